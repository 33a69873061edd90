#!/usr/bin/python3
"""What `bbctl job run --profile` costs, with the counts behind it: the same job run with the
probe's counters on and off, in pairs (the order alternating), mode 3 on the emulated cluster.

  bench/modeselect/profile_cost.py [--pairs 10] [--nodes 4] [--link-rate 1gbit] [--attach]
                        [--bbctl build/bin/bbctl] [--out bench/results/profile_cost.md]

Per run: the job's figure (fio's IOPS for a time-based run, else the job's wall time), every
daemon's CPU time (the sum of /proc/<bbd>/task/*/schedstat over the run) and the operations the
daemons served (FUSE requests, from `bbctl stats`). Per pair: figure on / off and daemon CPU per
operation on / off. The report gives their medians and ranges: with 4 daemons and their clients
on 2 cores the job's figure varies by tens of percent from run to run, while CPU per operation
moves much less, so it is what shows a cost of a few percent. mdtest needs `mdtest` on PATH or in
IOR_BIN (skipped, and said so, without it).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/: the harness package
from harness import cluster, report, stats  # noqa: E402

HEADER = "#!/bin/bash\n#SBATCH -N {nodes}\n#SBATCH --ntasks-per-node=1\ncd \"$BB_MOUNT\"\n"
# name -> (the job's step, the figure: "iops" from fio's JSON or "wall" = the job's seconds, tool)
WORKLOADS = {
    "fio-rand": ("srun bash -c 'fio --name=r$SLURM_PROCID --filename=$BB_MOUNT/f.$SLURM_PROCID --rw=randrw "
                 "--rwmixread=50 --bs=4k --size=32m --time_based --runtime=4 --ioengine=psync "
                 "--output-format=json --output={out}/fio.$SLURM_PROCID.json'", "iops", "fio"),
    "fio-seq": ("srun bash -c 'fio --name=s$SLURM_PROCID --filename=$BB_MOUNT/s.$SLURM_PROCID --rw=write --bs=1m "
                "--size=64m --end_fsync=1 --output-format=json --output={out}/fio.$SLURM_PROCID.json && "
                "fio --name=t$SLURM_PROCID --filename=$BB_MOUNT/s.$SLURM_PROCID --rw=read --bs=1m --size=64m "
                "--output-format=json --output={out}/fio-read.$SLURM_PROCID.json'", "wall", "fio"),
    "mdtest": ("srun mdtest -n 1000 -u -F -d $BB_MOUNT/md", "wall", "mdtest"),
}


def bbd_cpu_ns():
    total = 0
    pids = subprocess.run(["pgrep", "-x", "bbd"], capture_output=True, text=True).stdout.split()
    for pid in pids:
        for f in glob.glob(f"/proc/{pid}/task/*/schedstat"):
            try:
                with open(f) as fh:
                    total += int(fh.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass  # a thread that ended
    return total


def served_ops(bbctl):
    out = subprocess.run([bbctl, "stats", "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise cluster.ClusterError(f"bbctl stats failed: {out.stderr.strip()}")
    return sum(sum(n["ops"].values()) for n in json.loads(out.stdout))


def fio_iops(out_dir, nodes, seconds=4.0):
    ios = 0
    for k in range(nodes):
        with open(os.path.join(out_dir, f"fio.{k}.json")) as f:
            job = json.load(f)["jobs"][0]
        ios += job["read"]["total_ios"] + job["write"]["total_ios"]
    return ios / seconds


def one_run(a, work, workload, profile, tag):
    step, figure, _ = WORKLOADS[workload]
    out = os.path.join(work, f"{workload}.{tag}.{'on' if profile else 'off'}")
    os.makedirs(out, exist_ok=True)
    script = os.path.join(out, "job.sh")
    with open(script, "w") as f:
        f.write(HEADER.format(nodes=a.nodes) + step.format(out=out) + "\n")
    os.chmod(script, 0o755)
    cmd = [a.bbctl, "job", "run", "--name", f"pcost-{workload}-{tag}", "--mode", "3", "--timeout", "300", "--json"]
    if profile:
        cmd += ["--profile", os.path.join(out, "profile.json")]
    ops0, cpu0 = served_ops(a.bbctl), bbd_cpu_ns()
    p = subprocess.run(cmd + ["--", script], capture_output=True, text=True, cwd=out)
    cpu1, ops1 = bbd_cpu_ns(), served_ops(a.bbctl)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    res = json.loads(lines[-1]) if lines else {}
    if p.returncode != 0 or res.get("exit_status", 1) != 0:
        raise cluster.ClusterError(f"{workload} ({'on' if profile else 'off'}) failed: {p.stderr.strip()[-400:]}")
    value = fio_iops(out, a.nodes) if figure == "iops" else res["wall_seconds"]
    ops = max(1, ops1 - ops0)
    return {"figure": value, "cpu_ns": cpu1 - cpu0, "ops": ops, "cpu_per_op_us": (cpu1 - cpu0) / ops / 1000}


def measure(a, work, workload, log):
    higher = WORKLOADS[workload][1] == "iops"
    pairs = []
    for i in range(a.pairs):
        order = [False, True] if i % 2 == 0 else [True, False]
        pair = {p: one_run(a, work, workload, p, f"p{i}") for p in order}
        # Cost = how much slower with the profile: >0 is a cost.
        fig = pair[True]["figure"] / pair[False]["figure"]
        cost = (1 / fig - 1) if higher else (fig - 1)
        cpu = pair[True]["cpu_per_op_us"] / pair[False]["cpu_per_op_us"] - 1
        pairs.append({"off": pair[False], "on": pair[True], "cost": cost, "cpu_cost": cpu})
        log(f"{workload} pair {i + 1}/{a.pairs}: off {pair[False]['figure']:.4g} on {pair[True]['figure']:.4g} "
            f"(cost {100 * cost:+.1f} %); daemon CPU per op off {pair[False]['cpu_per_op_us']:.1f} us, "
            f"on {pair[True]['cpu_per_op_us']:.1f} us ({100 * cpu:+.1f} %)")
    return {"higher_is_better": higher, "pairs": pairs}


def pct(values):
    s = stats.spread(values)
    return f"{100 * s['median']:+.1f} % [{100 * s['min']:+.1f} – {100 * s['max']:+.1f}]"


def render(a, results, skipped, command, description):
    lines = ["# What `--profile` costs", "", f"Command: `{command}` ({time.strftime('%Y-%m-%d %H:%M')}).", "",
             f"Machine: {report.machine()}; {description}.", "",
             f"Mode 3, {a.nodes} nodes, one task per node, {a.pairs} pairs per workload (each pair runs the job "
             "with the profile off and on, one after the other, the order alternating). Cost: how much slower "
             "(or how much more daemon CPU per operation) with the profile on, per pair; median [min – max]. "
             "Target: at most 2 %.", "",
             "| workload | figure | off, median [min–max] | on, median [min–max] | paired cost | daemon CPU per op, off / on (µs) | paired CPU-per-op cost | ops per run |",
             "|---|---|---|---|---|---|---|---|"]
    for w, r in results.items():
        unit = "IOPS" if r["higher_is_better"] else "s (wall)"
        off = stats.spread([p["off"]["figure"] for p in r["pairs"]])
        on = stats.spread([p["on"]["figure"] for p in r["pairs"]])
        c_off = stats.median([p["off"]["cpu_per_op_us"] for p in r["pairs"]])
        c_on = stats.median([p["on"]["cpu_per_op_us"] for p in r["pairs"]])
        ops = stats.median([p["off"]["ops"] for p in r["pairs"]])
        lines.append(f"| {w} | {unit} | {off['median']:.4g} [{off['min']:.4g}–{off['max']:.4g}] | "
                     f"{on['median']:.4g} [{on['min']:.4g}–{on['max']:.4g}] | {pct([p['cost'] for p in r['pairs']])} | "
                     f"{c_off:.1f} / {c_on:.1f} | {pct([p['cpu_cost'] for p in r['pairs']])} | {ops:.0f} |")
    for w, why in skipped.items():
        lines.append(f"| {w} | — | skipped: {why} | | | | | |")
    return "\n".join(lines) + "\n"


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pairs", type=int, default=10)
    p.add_argument("--nodes", type=int, default=4)
    p.add_argument("--link-rate", default="1gbit")
    p.add_argument("--attach", action="store_true", help="run on the emulated cluster that is up")
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--bbctl", default=os.path.join(root, "build/bin/bbctl"))
    p.add_argument("--out", default=os.path.join(root, "bench/results/profile_cost.md"))
    a = p.parse_args(argv)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    if os.environ.get("IOR_BIN"):
        os.environ["PATH"] = os.environ["IOR_BIN"] + os.pathsep + os.environ["PATH"]
    wanted = [w for w in a.workloads.split(",") if w]
    unknown = [w for w in wanted if w not in WORKLOADS]
    if unknown:
        log(f"profile_cost: unknown workload(s) {', '.join(unknown)} (known: {', '.join(WORKLOADS)})")
        return 2
    skipped = {w: f"{WORKLOADS[w][2]} is not on PATH (set IOR_BIN for mdtest)" for w in wanted
               if shutil.which(WORKLOADS[w][2]) is None}
    work = tempfile.mkdtemp(prefix="bb-pcost-")
    target = cluster.EmulatedCluster(a.bbctl, a.nodes, a.link_rate, work, own=not a.attach, log=log)
    results = {}
    try:
        target.start()
        for w in wanted:
            if w not in skipped:
                results[w] = measure(a, work, w, log)
    except cluster.ClusterError as e:
        log(f"profile_cost: {e}")
        return 1
    finally:
        target.stop()
        cluster.remove_workdir(work)
    command = "bench/modeselect/profile_cost.py" + "".join(f" {x}" for x in argv)
    text = render(a, results, skipped, command, target.description)
    with open(a.out, "w") as f:
        f.write(text)
    with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
        json.dump({"command": command, "results": results, "skipped": skipped}, f, indent=1, sort_keys=True)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
