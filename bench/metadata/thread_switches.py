#!/usr/bin/env python3
"""Context switches and CPU time per operation, by daemon thread, on a 4-node emulated cluster.

  bench/metadata/thread_switches.py BUILD_BIN_DIR [--rounds R] [--files N] [--mib M]
                           [--out bench/results/thread_switches.md]        (root)

In a mode 3 workspace (1 Gbit/s links): creates, 2 processes per node each making N empty files
in one shared directory (open O_CREAT + close); then writes, one dd per node of M MiB in 1 MiB
writes to a file of its own; then S seconds of nothing (idle). Around each load, every thread of
every bbd is read from /proc/PID/task/TID: its name (the daemon names its threads: bb-progress,
bb-handler, ...; the FUSE workers keep the program's name, bbd), voluntary + involuntary context
switches, and its run time (schedstat, in ns: an idle daemon's few milliseconds are below the
10 ms of utime + stime). Reported per create, per MiB written and per idle second, summed over the
4 daemons by thread name: median [range] over the rounds, a fresh cluster each round.
"""
import argparse
import collections
import datetime
import os
import platform
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "phases"))  # md_scaling.py
import md_scaling as md  # noqa: E402  (the emulated cluster, med)

def threads(pids):
    """{(pid, tid): (name, switches, run time in ns)} of every thread of the processes `pids`."""
    out = {}
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            base = f"/proc/{pid}/task/{tid}"
            try:
                name = open(f"{base}/comm").read().strip()
                switches = sum(int(l.split()[1]) for l in open(f"{base}/status") if "ctxt_switches" in l)
                run_ns = int(open(f"{base}/schedstat").read().split()[0])
            except OSError:
                continue
            out[(pid, tid)] = (name, switches, run_ns)
    return out


def per_thread_name(before, after, ops):
    """{name: (switches per op, CPU µs per op)} between two snapshots."""
    sw, cpu = collections.Counter(), collections.Counter()
    for key, (name, s1, c1) in after.items():
        _, s0, c0 = before.get(key, (name, 0, 0))
        sw[name] += s1 - s0
        cpu[name] += c1 - c0
    res = {n: (sw[n] / ops, cpu[n] / 1e3 / ops) for n in sw}
    res["all threads"] = (sum(sw.values()) / ops, sum(cpu.values()) / 1e3 / ops)
    return res


def one_round(bbctl, files, mib, idle_s):
    with tempfile.TemporaryDirectory(prefix="bb-switches-") as work:
        c = md.Cluster(bbctl, work, 4, [])
        try:
            ws = c.workspace("sw", 3)
            c.exec(0, ["mkdir", f"{ws}/d"], check=True)
            maker = ("import os, sys\nfor i in range(int(sys.argv[2])): "
                     "os.close(os.open(f'{sys.argv[1]}.{i}', os.O_CREAT | os.O_WRONLY, 0o644))")
            results = {}
            pids = c.bbd_pids()
            t0, start = threads(pids), time.monotonic()
            procs = [c.popen(n, ["python3", "-c", maker, f"{ws}/d/n{n}.{r}", str(files)])
                     for n in range(4) for r in range(2)]
            if any(p.wait() for p in procs):
                raise RuntimeError("a create process failed")
            creates = 8 * files
            results["create"] = (creates / (time.monotonic() - start), per_thread_name(t0, threads(pids), creates))
            t0, start = threads(pids), time.monotonic()
            procs = [c.popen(n, ["dd", "if=/dev/zero", f"of={ws}/f{n}", "bs=1M", f"count={mib}", "status=none"])
                     for n in range(4)]
            if any(p.wait() for p in procs):
                raise RuntimeError("a dd failed")
            written = 4 * mib
            results["write"] = (written / (time.monotonic() - start), per_thread_name(t0, threads(pids), written))
            time.sleep(2)  # the writes' tail (write-behind, chunk store) settles first
            t0 = threads(pids)
            time.sleep(idle_s)
            results["idle"] = (0.0, per_thread_name(t0, threads(pids), idle_s))
            return results
        finally:
            c.down()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bin")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--files", type=int, default=1500, help="files per create process (8 processes)")
    ap.add_argument("--mib", type=int, default=200, help="MiB each node's dd writes")
    ap.add_argument("--idle", type=int, default=10, help="seconds of the idle phase")
    ap.add_argument("--out", default=f"{SRC}/bench/results/thread_switches.md")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("thread_switches: run as root (emulated nodes)")
    bbctl = os.path.join(a.bin, "bbctl")
    rounds = []
    for r in range(a.rounds):
        rounds.append(one_round(bbctl, a.files, a.mib, a.idle))
        for load, (rate, by_name) in rounds[-1].items():
            print(f"round {r + 1} {load}: {rate:,.0f}/s, {by_name['all threads'][0]:.2f} switches and "
                  f"{by_name['all threads'][1]:.0f} us CPU per op", flush=True)
    lines = [
        "# Context switches and CPU time per operation, by daemon thread",
        "",
        f"Recorded {datetime.date.today()} with `bench/metadata/thread_switches.py BUILD/bin --rounds {a.rounds} --files "
        f"{a.files} --mib {a.mib} --idle {a.idle}` on a {os.cpu_count()}-core machine, kernel {platform.release()} (method in the "
        "script's header). 4 emulated nodes, mode 3; sums over the 4 daemons; median over rounds [range]. "
        "`bbd` is the FUSE workers (and the main thread).",
        "",
    ]
    for load, unit in (("create", "create"), ("write", "MiB written"), ("idle", "idle second")):
        rates = [rd[load][0] for rd in rounds]
        title = {"create": f"creates/s: {md.med(rates)}", "write": f"MiB/s: {md.med(rates)}",
                 "idle": f"{a.idle} s after the writes, nothing running"}[load]
        lines += [f"## {load} ({title})", "",
                  f"| thread | context switches per {unit} | CPU µs per {unit} |", "|---|---|---|"]
        names = sorted({n for rd in rounds for n in rd[load][1]}, key=lambda n: (n == "all threads", n))
        for n in names:
            sw = [rd[load][1].get(n, (0.0, 0.0))[0] for rd in rounds]
            cpu = [rd[load][1].get(n, (0.0, 0.0))[1] for rd in rounds]
            if max(sw) < 0.005 and max(cpu) < 0.5:
                continue  # threads that did nothing
            lines.append(f"| {n} | {md.med(sw)} | {md.med(cpu)} |")
        lines.append("")
    with open(a.out, "w") as f:
        f.write("\n".join(lines))
    print(f"thread_switches: wrote {a.out}")


if __name__ == "__main__":
    main()
