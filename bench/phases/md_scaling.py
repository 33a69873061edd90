#!/usr/bin/env python3
"""IO500-style phases on the emulated cluster, bbfs in every mode beside libfuse's passthrough_ll,
and metadata scaling with node count.

  bench/phases/md_scaling.py BUILD_BIN_DIR [--rounds R] [--files F] [--out RESULT.md]   (root)

Part 1, on 4 emulated nodes (1 Gbit/s links): on every node at once, 2 MPI ranks (mpirun on
that node) run ior-easy (file per process, 1 MiB transfers, 64 MiB per rank), ior-hard (one
shared file per node, 47,008-byte records), mdtest-easy (-u -L -F -P -N 1: empty files, a
directory per rank) and mdtest-hard (-t -w 3901 -e 3901 -N 1 -F -P: 3,901-byte files in one
directory per node), each phase on its own as IO500 runs them (create, stat, read, delete).
Variants: passthrough_ll (built from the example Debian's libfuse3-dev ships) over a folder of
each node, bbfs in modes 1-4 with the cluster's defaults, bbfs mode 3 with `--cache-timeout 0`
(no kernel caching: the metadata path before coherent caching), and bbfs mode 3 with
`--small-file-streams off` (every create asks the name's node, every close flushes), and bbfs
mode 3 with `--dir-leases off` (each new name of a stream reserved by its lookup at the name's
node, as before directory leases). Figures
are aggregates: the sum over nodes of what each node's ior/mdtest reports. The daemons' CPU
time (utime + stime of every bbd, or passthrough_ll, from /proc) is taken around each phase
and divided by its operations; the FUSE requests and remote metadata requests per operation
come from `bbctl stats` of every node (round trips: every call to another node).

Part 2: mdtest-easy create in mode 3 on 2, 4 and 8 nodes, the same load per node (2 ranks x
F files): aggregate creates/s and daemon CPU time per create, with the nodes sharing this
machine's cores as they come, and with each node held to `--node-cpu` of a core (its daemon,
mpirun and ranks in one CPU cgroup, as on a node of its own): 8 nodes x 0.2 is 1.6 of the 2
cores, so the cores are not what limits the aggregate, and whether it grows with the nodes shows
whether the design scales. The held variant runs twice, the second time with `--dir-leases off`
(each new name reserved by its lookup at the name's node).

Variants are interleaved within each round; the tables give the median over rounds and the
range. ior, mdtest (github.com/hpc/ior) and mpirun (Debian's openmpi-bin) must be on PATH.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import summary_csv  # noqa: E402


def need(tool):
    path = shutil.which(tool)
    if not path:
        sys.exit(f"md_scaling: {tool} is not on PATH (ior and mdtest: build them from "
                 "https://github.com/hpc/ior; mpirun: tools/install-deps.sh)")
    return path


def build_passthrough(out_dir):
    listing = subprocess.run(["dpkg", "-L", "libfuse3-dev"], capture_output=True, text=True, check=True).stdout
    src = next((l for l in listing.split() if l.endswith("/passthrough_ll.c") or l.endswith("/passthrough_ll.c.gz")),
               None)
    if not src:
        sys.exit("md_scaling: libfuse3-dev does not ship passthrough_ll.c")
    os.makedirs(out_dir, exist_ok=True)
    binary = os.path.join(out_dir, "passthrough_ll")
    if src.endswith(".gz"):
        c = os.path.join(out_dir, "passthrough_ll.c")
        with open(c, "wb") as f:
            subprocess.run(["zcat", src], stdout=f, check=True)
        src = c
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "fuse3"], capture_output=True, text=True,
                           check=True).stdout.split()
    subprocess.run(["gcc", "-O2", "-o", binary, src] + flags, check=True)
    return binary


class Cluster:
    def __init__(self, bbctl, work, nodes, bbd_args, link_rate="1gbit"):
        self.bbctl, self.work, self.nodes = bbctl, work, nodes
        self.root, self.mnt = f"{work}/root", f"{work}/mnt"
        subprocess.run([bbctl, "emulate", "down"], capture_output=True)
        subprocess.run([bbctl, "emulate", "up", "--nodes", str(nodes), "--link-rate", link_rate, "--root", self.root,
                        "--mount", self.mnt, "--"] + bbd_args, check=True, capture_output=True)
        self.pt_pids = []
        self.cgroups = []

    def exec(self, node, cmd, **kw):
        return subprocess.run([self.bbctl, "exec", "--node", str(node), "--"] + cmd, **kw)

    def popen(self, node, cmd):
        argv = [self.bbctl, "exec", "--node", str(node), "--"] + cmd
        if self.cgroups:  # the node's own CPU: join its cgroup first
            argv = ["sh", "-c", f'echo $$ > {self.cgroups[node]}/cgroup.procs && exec "$@"', "sh"] + argv
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def cap_cpu(self, share):
        """Each node (its daemon, and what popen starts on it) gets `share` of a core."""
        v1 = "/sys/fs/cgroup/cpu"
        for n, pid in enumerate(sorted(self.bbd_pids(), key=lambda p: self.node_of(p))):
            if os.path.isfile(f"{v1}/cpu.cfs_quota_us"):
                cg = f"{v1}/bb-mds-node{n}"
                os.makedirs(cg, exist_ok=True)
                write(f"{cg}/cpu.cfs_period_us", "100000")
                write(f"{cg}/cpu.cfs_quota_us", str(int(share * 100000)))
            else:
                root = "/sys/fs/cgroup"
                if "cpu" not in read(f"{root}/cgroup.controllers").split():
                    sys.exit("md_scaling: --node-cpu needs the cgroup cpu controller (v1 or v2)")
                write(f"{root}/cgroup.subtree_control", "+cpu")
                cg = f"{root}/bb-mds-node{n}"
                os.makedirs(cg, exist_ok=True)
                write(f"{cg}/cpu.max", f"{int(share * 100000)} 100000")
            write(f"{cg}/cgroup.procs", str(pid))  # the whole process, every thread
            self.cgroups.append(cg)

    def node_of(self, pid):
        m = re.search(r"--node-name node(\d+)", read(f"/proc/{pid}/cmdline").replace("\0", " "))
        return int(m.group(1)) if m else 0

    def workspace(self, name, mode):
        subprocess.run([self.bbctl, "job", "start", "--name", name, "--mode-file",
                        f"{SRC}/configs/modes/mode{mode}.yaml"], check=True, capture_output=True)
        return f"{self.mnt}/{name}"

    def passthrough(self, binary):
        """passthrough_ll over a folder of each node, at the same path on every node."""
        mnt = f"{self.work}/pt"
        os.makedirs(mnt, exist_ok=True)
        for n in range(self.nodes):
            src = f"{self.work}/pt-src/n{n}"
            os.makedirs(src, exist_ok=True)
            self.exec(n, [binary, "-o", f"source={src}", mnt], check=True)
        time.sleep(0.5)
        out = subprocess.run(["pgrep", "-f", f"passthrough_ll -o source={self.work}/pt-src"], capture_output=True,
                             text=True).stdout
        self.pt_pids = [int(p) for p in out.split()]
        return mnt

    def down(self):
        if self.pt_pids:
            for n in range(self.nodes):
                self.exec(n, ["fusermount3", "-u", f"{self.work}/pt"], capture_output=True)
        subprocess.run([self.bbctl, "emulate", "down"], capture_output=True)
        for cg in self.cgroups:  # empty once the cluster's processes are gone
            for _ in range(50):
                try:
                    os.rmdir(cg)
                    break
                except OSError:
                    time.sleep(0.1)

    def bbd_pids(self):
        out = subprocess.run(["pgrep", "-f", f"bbd .*{self.root}"], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def stats(self):
        """(FUSE requests, round trips to other nodes), summed over the nodes."""
        fuse = remote = 0
        for n in range(self.nodes):
            s = json.loads(subprocess.run([self.bbctl, "stats", "--node", str(n), "--json"], capture_output=True,
                                          text=True, check=True).stdout)
            fuse += sum(s["ops"].values())
            remote += sum(p["calls_sent"] for p in s["peers"])
        return fuse, remote


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def cpu_seconds(pids):
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / tick


def mdtest_rate(text, label):
    m = re.search(rf"^\s*{label}\s+([0-9.]+)", text, re.M)
    if not m:
        raise RuntimeError(f"mdtest printed no '{label}' rate:\n{text[-2000:]}")
    return float(m.group(1))


def ior_bw(text, kind):
    m = re.search(rf"^{kind.lower()}\s+([0-9.]+)\s", text, re.M)  # the results table: bw(MiB/s) first
    if not m:
        raise RuntimeError(f"ior printed no {kind} bandwidth:\n{text[-2000:]}")
    return float(m.group(1))


def phases(files, segments):
    """(name, unit, operations per rank, command for a directory, parser)."""
    easy = ["-n", str(files), "-u", "-L", "-F", "-P", "-N", "1"]
    hard = ["-n", str(files), "-t", "-w", "3901", "-e", "3901", "-N", "1", "-F", "-P"]
    md = lambda args, flag, label: (lambda d, sub: ["mdtest"] + args + ["-d", f"{d}/{sub}", flag],
                                    lambda t: mdtest_rate(t, label))
    ior_e = ["-F", "-t", "1m", "-b", "64m", "-k", "-e"]
    ior_h = ["-t", "47008", "-b", "47008", "-s", str(segments), "-k", "-e"]
    io = lambda args, rw, kind: (lambda d, sub: ["ior", rw] + args + (["-C"] if rw == "-r" else []) +
                                 ["-o", f"{d}/{sub}/f"], lambda t: ior_bw(t, kind))
    return [
        ("ior-easy write", "MiB/s", 0) + io(ior_e, "-w", "Write"),
        ("mdtest-easy create", "ops/s", files) + md(easy, "-C", "File creation"),
        ("ior-hard write", "MiB/s", 0) + io(ior_h, "-w", "Write"),
        ("mdtest-hard create", "ops/s", files) + md(hard, "-C", "File creation"),
        ("ior-easy read", "MiB/s", 0) + io(ior_e, "-r", "Read"),
        ("mdtest-easy stat", "ops/s", files) + md(easy, "-T", "File stat"),
        ("ior-hard read", "MiB/s", 0) + io(ior_h, "-r", "Read"),
        ("mdtest-hard stat", "ops/s", files) + md(hard, "-T", "File stat"),
        ("mdtest-hard read", "ops/s", files) + md(hard, "-E", "File read"),
        ("mdtest-easy delete", "ops/s", files) + md(easy, "-r", "File removal"),
        ("mdtest-hard delete", "ops/s", files) + md(hard, "-r", "File removal"),
    ]


def run_phase(cluster, base, sub, command, parse, pids, bbfs):
    ranks = 2
    for n in range(cluster.nodes):
        cluster.exec(n, ["mkdir", "-p", f"{base}/n{n}/{sub}"], check=True)
    before = (cluster.stats() if bbfs else (0, 0), cpu_seconds(pids))
    procs = [cluster.popen(n, ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks)] +
                           command(f"{base}/n{n}", sub)) for n in range(cluster.nodes)]
    outs = [p.communicate()[0] for p in procs]
    after = (cluster.stats() if bbfs else (0, 0), cpu_seconds(pids))
    value = sum(parse(o) for o in outs)
    return value, after[1] - before[1], (after[0][0] - before[0][0], after[0][1] - before[0][1])


def split_variants(text):
    """'passthrough_ll,mode 3,mode 3, no streams' -> the three names (a piece that starts with a space
    belongs to the one before it)."""
    out = []
    for piece in text.split(","):
        if piece.startswith(" ") and out:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def part1(a, bbctl, pt_bin):
    results = {}  # (variant, phase) -> list of (value, cpu per op, fuse per op, remote per op)
    # Variants on a cluster of their own, started with these bbd arguments.
    own = {"mode 3, no caching": ["--cache-timeout", "0"], "mode 3, no streams": ["--small-file-streams", "off"],
           "mode 3, no leases": ["--dir-leases", "off"]}
    variants = ["passthrough_ll", "mode 1", "mode 2", "mode 3", "mode 4"] + list(own)
    if a.variants:
        variants = [v for v in variants if v in split_variants(a.variants)]
    shared = [v for v in variants if v not in own]  # the variants of one cluster
    for r in range(a.rounds):
        with tempfile.TemporaryDirectory(prefix="bb-mds-", dir="/var/tmp") as work:
            k = r % len(shared) if shared else 0
            groups = [(shared[k:] + shared[:k], [])] if shared else []  # rotated per round
            groups += [([v], own[v]) for v in variants if v in own]
            if r % 2:
                groups.reverse()  # which cluster comes first alternates
            for i, (names, extra) in enumerate(groups):
                c = Cluster(bbctl, f"{work}/{i}", 4, extra, a.link_rate)
                try:
                    bases = {}
                    for v in names:
                        if v == "passthrough_ll":
                            bases[v] = c.passthrough(pt_bin)
                        else:
                            bases[v] = c.workspace(v.split(",")[0].replace(" ", ""), int(v.split(",")[0][-1]))
                    for name, unit, per_rank, command, parse in phases(a.files, a.segments):
                        if a.phases and name not in a.phases.split(","):
                            continue
                        sub = name.split()[0]
                        for v in names:
                            pt = v == "passthrough_ll"
                            pids = c.pt_pids if pt else c.bbd_pids()
                            try:
                                value, cpu, (fuse, remote) = run_phase(c, bases[v], sub, command, parse, pids, not pt)
                            except RuntimeError as e:
                                print(f"{v} {name}: {e}", file=sys.stderr)
                                continue
                            ops = per_rank * 2 * c.nodes if per_rank else 0
                            row = (value, cpu / ops * 1e6 if ops else cpu, fuse / ops if ops else None,
                                   remote / ops if ops else None)
                            results.setdefault((v, name), []).append(row)
                            print(f"round {r + 1} {v:20s} {name:20s} {value:10.1f} {unit}  cpu {row[1]:.1f}"
                                  + (f" us/op, fuse {row[2]:.2f}/op, remote {row[3]:.2f}/op" if ops else " s"),
                                  flush=True)
                finally:
                    c.down()
    return variants, results


def part2(a, bbctl):
    results = {}  # (nodes, variant) -> list of (creates/s, cpu us per create, FUSE and remote requests per create)
    variants = [("shared cores", None, []), (f"{a.node_cpu} core per node", a.node_cpu, []),
                (f"{a.node_cpu} core per node, no leases", a.node_cpu, ["--dir-leases", "off"])]
    for r in range(a.rounds):
        for nodes in (2, 4, 8):
            for v, share, extra in (variants if r % 2 == 0 else variants[::-1]):
                with tempfile.TemporaryDirectory(prefix="bb-mds-", dir="/var/tmp") as work:
                    c = Cluster(bbctl, work, nodes, extra)
                    try:
                        if share:
                            c.cap_cpu(share)
                        base = c.workspace("m3", 3)
                        name, unit, per_rank, command, parse = phases(a.scale_files, 1)[1]
                        value, cpu, (fuse, remote) = run_phase(c, base, "mdtest", command, parse, c.bbd_pids(), True)
                        ops = per_rank * 2 * nodes
                        results.setdefault((nodes, v), []).append((value, cpu / ops * 1e6, fuse / ops, remote / ops))
                        print(f"round {r + 1} {nodes} nodes {v:12s} {value:10.1f} creates/s  cpu {cpu / ops * 1e6:.1f} "
                              f"us/create, fuse {fuse / ops:.2f}, remote {remote / ops:.2f}", flush=True)
                    finally:
                        c.down()
    return results


def med(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "—"
    m = statistics.median(xs)
    return f"{m:,.0f} [{min(xs):,.0f}–{max(xs):,.0f}]" if m >= 100 else f"{m:.2f} [{min(xs):.2f}–{max(xs):.2f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bin")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--files", type=int, default=1000, help="mdtest files per rank (part 1)")
    ap.add_argument("--scale-files", type=int, default=1000, help="mdtest files per rank (part 2)")
    ap.add_argument("--segments", type=int, default=400, help="ior-hard records per rank")
    ap.add_argument("--parts", default="1,2")
    ap.add_argument("--link-rate", default="1gbit", help="part 1: the emulated links' rate")
    ap.add_argument("--phases", help="part 1: only these phases (comma-separated names, e.g. 'ior-easy write')")
    ap.add_argument("--variants", help="part 1: only these variants (comma-separated, e.g. 'passthrough_ll,mode 3')")
    ap.add_argument("--node-cpu", type=float, default=0.2, help="part 2: the CPU share of a core each node gets")
    ap.add_argument("--out", default=f"{SRC}/bench/results/metadata_scaling.md")
    ap.add_argument("--csv", default=f"{SRC}/bench/results/phases.csv", help="append the figures here (charts)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("md_scaling: run as root (emulated nodes)")
    for t in ("ior", "mdtest", "mpirun"):
        need(t)
    bbctl = os.path.abspath(os.path.join(a.bin, "bbctl"))
    pt_bin = build_passthrough(os.path.join(os.path.dirname(os.path.abspath(a.bin)), "bench"))
    lines = [f"# Metadata and IO500-style phases on the emulated cluster\n",
             f"Recorded {datetime.date.today()} on a 2-core machine with `bench/phases/md_scaling.py BUILD/bin "
             f"{' '.join(sys.argv[2:])}` "
             "(method in the script's header). Median over rounds [range].\n"]
    part1_res, part2_res = {}, {}
    if "1" in a.parts:
        variants, res = part1(a, bbctl, pt_bin)
        part1_res = res
        names = [p[0] for p in phases(a.files, a.segments) if not a.phases or p[0] in a.phases.split(",")]
        bbfs_variants = [v for v in variants if v != "passthrough_ll"]
        lines.append(f"## IO500-style phases, 4 nodes, 2 ranks per node, {a.link_rate} links\n")
        lines.append("| phase | " + " | ".join(variants) + " |")
        lines.append("|---|" + "---|" * len(variants))
        for n in names:
            unit = "MiB/s" if n.startswith("ior") else "ops/s"
            lines.append(f"| {n} ({unit}) | " + " | ".join(med([x[0] for x in res.get((v, n), [])]) for v in variants)
                         + " |")
        lines.append("\nDaemon CPU time per operation (µs; passthrough_ll's own process, bbd's on every node), FUSE "
                     "requests and round trips to other nodes per operation (bbfs, from `bbctl stats`):\n")
        lines.append("| phase | " + " | ".join(f"{v} CPU" for v in variants) + " | " +
                     " | ".join(f"{v} FUSE / remote" for v in bbfs_variants) + " |")
        lines.append("|---|" + "---|" * (len(variants) + len(bbfs_variants)))
        for n in names:
            if n.startswith("ior"):
                continue
            cells = [med([x[1] for x in res.get((v, n), [])]) for v in variants]
            cells += [f"{med([x[2] for x in res.get((v, n), [])])} / {med([x[3] for x in res.get((v, n), [])])}"
                      for v in bbfs_variants]
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
    if "2" in a.parts:
        res = part2_res = part2(a, bbctl)
        lines.append("\n## mdtest-easy create in mode 3 on 2, 4 and 8 nodes (2 ranks per node, "
                     f"{a.scale_files} files per rank)\n")
        names = ("shared cores", f"{a.node_cpu} core per node", f"{a.node_cpu} core per node, no leases")
        lines.append("| nodes | " + " | ".join(f"creates/s, {v} | CPU µs per create, {v} | FUSE requests per create, "
                                               f"{v} | round trips to other nodes per create, {v}" for v in names) + " |")
        lines.append("|---|" + "---|" * (4 * len(names)))
        for nodes in (2, 4, 8):
            row = []
            for v in names:
                row += [med([x[i] for x in res.get((nodes, v), [])]) for i in range(4)]
            lines.append(f"| {nodes} | " + " | ".join(row) + " |")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"{summary_csv.append(a.csv, csv_rows(a, part1_res, part2_res))} rows appended to {a.csv}")


def csv_rows(a, part1_res, part2_res):
    """The recording's rows of bench/results/phases.csv: every phase and its CPU per operation."""
    commit = subprocess.run(["git", "-C", SRC, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    at = (commit, datetime.date.today().isoformat())
    rows = []
    for (v, n), xs in sorted(part1_res.items()):
        rows.append(summary_csv.row(*at, "phases", 4, v, n, "MiB/s" if n.startswith("ior") else "ops/s",
                                    [x[0] for x in xs]))
        if not n.startswith("ior"):
            rows.append(summary_csv.row(*at, "phases", 4, v, f"{n} CPU", "µs/op", [x[1] for x in xs]))
    for (nodes, v), xs in sorted(part2_res.items()):
        rows.append(summary_csv.row(*at, "scaling", nodes, v, "mdtest-easy create", "ops/s", [x[0] for x in xs]))
        rows.append(summary_csv.row(*at, "scaling", nodes, v, "mdtest-easy create CPU", "µs/op", [x[1] for x in xs]))
    return rows


if __name__ == "__main__":
    main()
