"""Campaign driver: runs the job's stages as job steps through subprocess (srun), and does the
bookkeeping in between itself: it reads every worker's summary and samples rows of every
worker's output, writes the campaign report, and finally has every worker validate another
worker's output.

usage: driver.py OUT ROWS
"""
import os
import struct
import subprocess
import sys


def step(*args):
    cmd = ["srun"] + list(args)
    print("driver:", " ".join(cmd), flush=True)
    done = subprocess.run(cmd)
    if done.returncode != 0:
        sys.exit(f"driver: step failed with {done.returncode}: {' '.join(cmd)}")


def main():
    out, rows = sys.argv[1], int(sys.argv[2])
    workers = int(os.environ["SLURM_NTASKS"])
    os.makedirs(out, exist_ok=True)
    step("--ntasks", str(workers), "./bin/spectra", "make", out, str(rows))

    report, total = [], 0.0
    for w in range(workers):
        with open(os.path.join(out, f"summary.{w:03d}.txt")) as f:
            who, n, power = f.read().split()
        if int(who) != w or int(n) != rows:
            sys.exit(f"driver: summary of worker {w} is wrong")
        path = os.path.join(out, f"spectra.{w:03d}.bin")
        if os.path.getsize(path) != rows * 1024 * 8:
            sys.exit(f"driver: {path} has the wrong size")
        with open(path, "rb") as f:  # the peak bin of a few sampled rows
            peaks = []
            for r in range(0, rows, rows // 4):
                f.seek(r * 1024 * 8)
                row = struct.unpack("1024d", f.read(1024 * 8))
                peaks.append(max(range(1024), key=row.__getitem__))
        report.append(f"worker {w}: power {float(power):.6e}, peak bins {peaks}")
        total += float(power)
    with open(os.path.join(out, "report.txt"), "w") as f:
        f.write("\n".join(report) + f"\ntotal {total:.6e}\n")
    print("\n".join(report))

    step("--ntasks", str(workers), "bash", "-c",
         f'exec ./bin/spectra check {out} {rows} $(( (SLURM_PROCID + 3) % SLURM_NTASKS ))')
    for w in range(workers):
        os.unlink(os.path.join(out, f"spectra.{w:03d}.bin"))
        os.unlink(os.path.join(out, f"summary.{w:03d}.txt"))
    os.unlink(os.path.join(out, "report.txt"))
    os.rmdir(out)
    print(f"driver: campaign of {workers} workers done, total power {total:.6e}")


if __name__ == "__main__":
    main()
