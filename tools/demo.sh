#!/usr/bin/env bash
# The main job: installs the Debian packages, builds, starts a 4-node emulated cluster (network
# namespaces, 1 Gbit/s links, UCX over TCP), and runs the example job
# (configs/examples/checkpoint-restart: every rank writes a checkpoint, then a restart places the
# ranks round robin so they read checkpoints other nodes wrote) the way a user would with the
# mode selector: one probe run in mode 3 with its I/O profile, bb-modeselect's decision from the
# job script, its sources and that profile, then the job in the chosen mode. Prints the decision
# with its reasons and evidence beside both runs' times, shows that node-local mode would break
# this job, and tears the cluster down. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "demo.sh: needs root (it builds network and mount namespaces)" >&2; exit 1; }
./tools/install-deps.sh >/dev/null
./tools/build.sh >/dev/null
bin=$PWD/build/bin
job=$PWD/configs/examples/checkpoint-restart
nodes=${NODES:-4}
work=$(mktemp -d /tmp/bb-demo-XXXXXX)
trap '"$bin/bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

"$bin/bbctl" emulate up --nodes "$nodes" --link-rate 1gbit --root "$work/root" --mount "$work/mnt"
make -s -C "$job"
cd "$job"

echo
echo "== bbctl job run --select: probe in mode 3, choose, run in the chosen mode"
"$bin/bbctl" job run --name demo --select --profile "$work/probe.json" --json -- job.sh 2> "$work/select.log" |
  tail -n 1 > "$work/run.json"
cat "$work/select.log"

echo
echo "== the decision, explained (bb-modeselect --job job.sh --profile probe.json --explain)"
"$bin/bb-modeselect" --job job.sh --profile "$work/probe.json" --explain

echo
echo "== the same job in node-local mode (1), which it must not use"
rc=0
"$bin/bbctl" job run --name demo-mode1 --mode 1 -- job.sh > "$work/mode1.log" 2>&1 || rc=$?
grep -m1 -E "No such file|FAILED" "$work/mode1.log" || true
echo "exit status $rc (the restart on other nodes cannot see the checkpoints: node-local is wrong for this job)"

python3 - "$work/run.json" "$work/select.log" "$work/probe.json" <<'PY'
import json, re, sys
run = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
probe = re.search(r"probe run \(mode 3\) of \S+: exit (\d+) after ([\d.]+) s", log)
probe_s = float(probe.group(2)) if probe else float("nan")
prof = json.load(open(sys.argv[3]))
gib = (prof["totals"]["bytes_written"] + prof["totals"]["bytes_read"]) / 2**30
print()
print("== result")
print(f"  {'probe run, mode 3 (distributed hashing)':48s} {probe_s:7.2f} s")
print(f"  {'run in the selected mode ' + str(run['mode']):48s} {run['wall_seconds']:7.2f} s   exit {run['exit_status']}")
if run["wall_seconds"] > 0:
    print(f"  {'speedup over mode 3':48s} {probe_s / run['wall_seconds']:7.2f} x")
print(f"  {'data moved by the job (written + read)':48s} {gib:7.2f} GiB")
cross = [f["path"] for f in prof["files"] if f["created_on"] is not None and set(f["reader_nodes"]) - {f["created_on"]}]
print(f"  {'checkpoints read on another node than their writer':48s} {len(cross):7d} of {len(prof['files'])}")
sys.exit(run["exit_status"])
PY
