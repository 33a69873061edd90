#!/usr/bin/env python3
"""Staging throughput into a 4-node emulated cluster (1 Gbit/s links, a mode 3 workspace):
`bbctl stage in` against `cp -a` and `rsync -a`, each run on node 0 from the host's disk, and
the link bound (node 0's link carries the 3/4 of the data that other nodes hold).

  bench/staging/stage_throughput.py BUILD_BIN_DIR [--rounds R] [--small-mib N] [--big-gib G]
                            [--out bench/results/staging.md]

Data sets: N files of 1 MiB, and one file of G GiB (random bytes, made once). Each round runs
every tool on both sets, in a rotated order; the copy is removed after each run. Reported:
MB/s (10^6 bytes), median [range] over the rounds, and the ratios to the link bound and to cp -a.
"""
import argparse, datetime, os, platform, shutil, statistics, subprocess, sys, tempfile, time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINK_BYTES_S = 1e9 / 8
LINK_BOUND = LINK_BYTES_S / 0.75  # 3/4 of what node 0 writes leaves over its link


def sh(*cmd, **kw):
    return subprocess.run(list(cmd), check=True, **kw)


def make_data(work, small, big_gib):
    d = f"{work}/src"
    os.makedirs(f"{d}/small", exist_ok=True)
    block = os.urandom(1 << 20)
    for i in range(small):
        with open(f"{d}/small/f{i:05d}", "wb") as f:
            f.write(block[i % 4096:] + block[:i % 4096])
    os.makedirs(f"{d}/big", exist_ok=True)
    with open(f"{d}/big/one", "wb") as f:
        chunk = os.urandom(64 << 20)
        for i in range(big_gib * 16):
            f.write(chunk[i:] + chunk[:i])
    return d


def tools(bbctl):
    return {
        "bbctl stage in": lambda s, t: [bbctl, "stage", "in", s, t, "--quiet"],
        "cp -a": lambda s, t: ["cp", "-a", s, t],
        "rsync -a": lambda s, t: ["rsync", "-a", s + "/", t + "/"],
    }


def run_once(bbctl, cmd, src, dst, mnt):
    t0 = time.monotonic()
    sh(bbctl, "exec", "--node", "0", "--", *cmd(src, dst))
    took = time.monotonic() - t0
    sh(bbctl, "exec", "--node", "0", "--", "rm", "-rf", dst)
    return took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--small-mib", type=int, default=1024)
    ap.add_argument("--big-gib", type=int, default=4)
    ap.add_argument("--out", default=f"{SRC}/bench/results/staging.md")
    a = ap.parse_args()
    if shutil.which("rsync") is None:
        sys.exit("stage_throughput: rsync is not installed (apt-get install rsync)")
    bbctl = os.path.abspath(f"{a.bin}/bbctl")
    work = tempfile.mkdtemp(prefix="bb-stage-bench-")
    root, mnt = f"{work}/root", f"{work}/mnt"
    data = make_data(work, a.small_mib, a.big_gib)
    sets = {f"{a.small_mib} x 1 MiB": (f"{data}/small", a.small_mib << 20),
            f"1 x {a.big_gib} GiB": (f"{data}/big", a.big_gib << 30)}
    sh(bbctl, "emulate", "up", "--nodes", "4", "--link-rate", "1gbit", "--root", root, "--mount", mnt,
       stdout=subprocess.DEVNULL)
    results = {}
    try:
        sh(bbctl, "job", "start", "--name", "ws", "--mode-file", f"{SRC}/configs/modes/mode3.yaml",
           stdout=subprocess.DEVNULL)
        names = list(tools(bbctl))
        for r in range(a.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for set_name, (src, size) in sets.items():
                for t in order:
                    took = run_once(bbctl, tools(bbctl)[t], src, f"{mnt}/ws/copy", mnt)
                    results.setdefault((set_name, t), []).append(size / took / 1e6)
                    print(f"round {r + 1}: {set_name}, {t}: {size / took / 1e6:.1f} MB/s", flush=True)
    finally:
        subprocess.run([bbctl, "emulate", "down"], stdout=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)
    write(a, sets, results)


def write(a, sets, results):
    lines = [
        "# Staging throughput into the 4-node emulated cluster",
        "",
        f"Recorded {datetime.date.today()} on a {os.cpu_count()}-core Debian 12 machine, by",
        f"`bench/staging/stage_throughput.py build/bin --rounds {a.rounds} --small-mib {a.small_mib} --big-gib {a.big_gib}`:",
        "4 emulated nodes, 1 Gbit/s links, a mode 3 workspace; every tool runs on node 0 and reads",
        "the host's disk. MB/s = 10^6 bytes/s, median [range] of the rounds (tools interleaved,",
        f"rotated). Link bound: node 0 keeps 1/4 of the data and sends 3/4 over its link, {LINK_BOUND / 1e6:.0f} MB/s.",
        "",
        "| data | tool | MB/s | of the link bound | of cp -a |",
        "|---|---|---|---|---|",
    ]
    for set_name in sets:
        cp = statistics.median(results[(set_name, "cp -a")])
        for t in ["bbctl stage in", "cp -a", "rsync -a"]:
            v = results[(set_name, t)]
            m = statistics.median(v)
            lines.append(f"| {set_name} | {t} | {m:.1f} [{min(v):.1f}-{max(v):.1f}] | {m / (LINK_BOUND / 1e6):.2f} | "
                         f"{m / cp:.2f}x |")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
