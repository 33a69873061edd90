#!/usr/bin/env python3
"""File create rate of two builds side by side: one bbd on this host, and a 4-node emulated
cluster (1 Gbit/s links, mode 3), mdtest creating files in one shared directory (the case where
every create changes the same parent: its mtime, ctime and, for mkdir, its nlink).

  bench/metadata/create_rate_ab.py BEFORE_BIN_DIR AFTER_BIN_DIR [--rounds R] [--files N] [--label TEXT]
                          [--write BYTES] [--out bench/results/dir_times.md]

With --write, each file gets BYTES written as it is made (mdtest -w BYTES, as IO500's mdtest-hard
with 3901): the create then also carries the file's first chunk and its size.

mdtest comes from PATH (or /opt/ior/bin); it is not in Debian: build it from the IOR sources.
Each round runs both builds, alternating which goes first, on a fresh daemon or cluster.
Reported: creates/s and the daemons' CPU time per create (utime + stime of every bbd, from
/proc), median [range] over the rounds, and after/before.
"""
import argparse, datetime, os, platform, re, shutil, statistics, subprocess, sys, tempfile, time


def mdtest():
    path = shutil.which("mdtest") or ("/opt/ior/bin/mdtest" if os.path.exists("/opt/ior/bin/mdtest") else None)
    if not path:
        sys.exit("create_rate_ab: mdtest is not on PATH (build it from https://github.com/hpc/ior)")
    return path


def creates_per_s(out):
    m = re.search(r"File creation\s*:?\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)", out)
    if not m:
        raise RuntimeError("no 'File creation' line in mdtest's output:\n" + out[-2000:])
    return float(m.group(3))


def daemon_ticks(root):
    """CPU clock ticks (utime + stime) of every bbd whose root is under `root`."""
    pids = subprocess.run(["pgrep", "-f", f"bbd --root {root}"], capture_output=True, text=True).stdout.split()
    total = 0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total


def measured(root, run, creates):
    """Runs `run` (mdtest's output back); its creates/s and the daemons' CPU µs per create."""
    before = daemon_ticks(root)
    out = run()
    cpu_us = (daemon_ticks(root) - before) * 1e6 / os.sysconf("SC_CLK_TCK") / creates
    return creates_per_s(out), cpu_us


def mdtest_args(files, write):
    return ["-C", "-F", "-n", str(files)] + (["-w", str(write)] if write else [])


def single_node(bin_dir, files, ranks, write=0):
    work = tempfile.mkdtemp(prefix="bb-create-")
    root, mnt = f"{work}/root", f"{work}/mnt"
    os.makedirs(mnt)
    subprocess.run([f"{bin_dir}/bbd", "--root", root, "--mount", mnt], check=True, stdout=subprocess.DEVNULL)
    try:
        os.makedirs(f"{mnt}/d")
        return measured(root, lambda: subprocess.run(
            ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), mdtest()] +
            mdtest_args(files, write) + ["-d", f"{mnt}/d"], capture_output=True, text=True, check=True).stdout,
            ranks * files)
    finally:
        subprocess.run(["kill", open(f"{root}/bbd.lock").read().strip()])
        for _ in range(100):
            if f" {mnt} " not in open("/proc/self/mountinfo").read():
                break
            time.sleep(0.1)
        shutil.rmtree(work, ignore_errors=True)


def cluster(bin_dir, files, ranks, write=0):
    work = tempfile.mkdtemp(prefix="bb-create-emu-")
    bbctl = f"{bin_dir}/bbctl"
    subprocess.run([bbctl, "emulate", "up", "--nodes", "4", "--link-rate", "1gbit", "--root", f"{work}/root", "--mount",
                    f"{work}/mnt"], check=True, stdout=subprocess.DEVNULL)
    try:
        subprocess.run([bbctl, "exec", "--node", "0", "--", "mkdir", f"{work}/mnt/d"], check=True)
        return measured(f"{work}/root", lambda: subprocess.run(
            ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), bbctl, "exec", "--by-rank", "--",
             mdtest()] + mdtest_args(files, write) + ["-d", f"{work}/mnt/d"], capture_output=True, text=True,
            check=True).stdout, ranks * files)
    finally:
        subprocess.run([bbctl, "emulate", "down"], stdout=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--files", type=int, default=2000, help="files per rank")
    ap.add_argument("--label", default="")
    ap.add_argument("--write", type=int, default=0, help="bytes written into each file as it is made (mdtest -w)")
    ap.add_argument("--title", default="File create rate before and after the parent directory's times and link count")
    ap.add_argument("--scenarios", default="one node,4 nodes", help="comma-separated: 'one node', '4 nodes'")
    ap.add_argument("--out", default="bench/results/dir_times.md")
    a = ap.parse_args()
    res = {(s, v): [] for s in ("one node", "4 nodes") for v in ("before", "after")}
    cpu = {(s, v): [] for s in ("one node", "4 nodes") for v in ("before", "after")}
    for r in range(a.rounds):
        order = [("before", a.before), ("after", a.after)]
        if r % 2:
            order.reverse()
        for scenario, fn, ranks in (("one node", single_node, 4), ("4 nodes", cluster, 8)):
            if scenario not in a.scenarios.split(","):
                continue
            for variant, bin_dir in order:
                rate, cpu_us = fn(bin_dir, a.files, ranks, a.write)
                res[(scenario, variant)].append(rate)
                cpu[(scenario, variant)].append(cpu_us)
                print(f"round {r}: {scenario} {variant}: {rate:,.0f} creates/s, {cpu_us:,.0f} us CPU per create",
                      flush=True)
    with open(a.out, "w") as f:
        f.write(f"# {a.title}\n\n")
        f.write(f"Recorded {datetime.date.today()} with `bench/metadata/create_rate_ab.py BEFORE AFTER --rounds {a.rounds} "
                f"--files {a.files} --scenarios '{a.scenarios}'" + (f" --write {a.write}" if a.write else "") +
                f" --title '{a.title}'` on a 2-core Debian 12 machine, kernel {platform.release()}. {a.label} "
                "mdtest -C -F" + (f" -w {a.write}" if a.write else "") + " in one shared directory: 4 ranks on one bbd, 8 ranks over a 4-node emulated cluster "
                "(1 Gbit/s, the default layout). The builds alternate within each round; median [range] over "
                "the rounds.\n\n")
        f.write("| | figure | before | after | after / before (medians) |\n|---|---|---|---|---|\n")
        for scenario in ("one node", "4 nodes"):
            for name, table in (("creates/s", res), ("daemon CPU µs per create", cpu)):
                b, af = table[(scenario, "before")], table[(scenario, "after")]
                if not b:
                    continue
                f.write(f"| {scenario} | {name} | {statistics.median(b):,.0f} [{min(b):,.0f}–{max(b):,.0f}] | "
                        f"{statistics.median(af):,.0f} [{min(af):,.0f}–{max(af):,.0f}] | "
                        f"{statistics.median(af) / statistics.median(b):.3f} |\n")
    print(open(a.out).read())


if __name__ == "__main__":
    main()
