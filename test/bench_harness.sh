#!/usr/bin/env bash
# The benchmark harness and the oracle on the emulated cluster (root): a tiny fio scenario
# writes per-run JSON, a report and a chart, and a second invocation makes no run again; a bad
# scenario file is refused naming the file, field and value; the oracle labels two tiny job
# folders (one shares a file across nodes: mode 1 must be disqualified; one is node-private).
# Each tool builds and tears down its own cluster; the trap removes anything left.
set -euo pipefail
bin=${1:?usage: bench_harness.sh BUILD_BIN_DIR SOURCE_DIR}
src=${2:?usage: bench_harness.sh BUILD_BIN_DIR SOURCE_DIR}
bbctl=$bin/bbctl
tmp=$(mktemp -d /tmp/bb-bench-harness-XXXXXX)
fails=0
finish() {
  local rc=$?
  "$bbctl" emulate down >/dev/null 2>&1 || true
  rm -rf "$tmp" "$src/bench/modeselect/testdata/oracle/node_private/src/private_io"
  if [ $rc -eq 0 ] && [ $fails -eq 0 ]; then echo "bench_harness: all passed"; else echo "bench_harness: FAILED"; exit 1; fi
}
trap finish EXIT
source "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
json() { $py -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }
out=$tmp/out

# ---- the harness ----
check "the harness runs the tiny scenario" \
  sh -c "$py '$src/bench/phases/harness.py' '$src/bench/phases/scenarios/ci_tiny.yaml' --out '$out' --bbctl '$bbctl' 2> '$tmp/h1.err'"
cat "$tmp/h1.err"
check "it made both runs" grep -q "made 2 runs, 0 already made" "$tmp/h1.err"
check "it showed progress (done/total, elapsed, time left)" grep -qE '^\[2/2\] .*elapsed .*left' "$tmp/h1.err"
check "one JSON per run" test "$(ls "$out"/runs/*.json | wc -l)" = 2
run3=$out/runs/ci-tiny.fio-nn.m3.r0.json
check "a run's JSON has fio's figures: write and read MiB/s > 0, the wall time, the mode" \
  test "$(json "$run3" "(d['ok'], d['mode'], sorted(f['key'] for f in d['figures']), all(f['value'] > 0 for f in d['figures']))")" \
  = "(True, 3, ['read.read', 'wall_seconds', 'write.write'], True)"
check "fio's figure is the aggregate of both tasks' JSON (8 MiB written)" \
  test "$(json "$run3" "(d['details']['write']['tasks'], d['details']['write']['aggregate']['write']['bytes'])")" = "(2, 8388608)"
check "the report has the workload's rows and both modes" \
  sh -c "grep -q '| fio-nn | write.write | MiB/s |' '$out/report.md' && grep -q 'mode 1' '$out/report.md' && grep -q 'kernel' '$out/report.md'"
check "the report records the command" grep -q 'bench/phases/harness.py .*ci_tiny.yaml' "$out/report.md"
check "a PNG chart" sh -c "head -c 8 '$out/ci-tiny.png' | od -c | grep -q 'P   N   G'"
check "the cluster it built is down again" sh -c "! '$bbctl' emulate status >/dev/null 2>&1"
check "... and its scratch folder is gone" sh -c "! ls -d /tmp/bb-harness-* >/dev/null 2>&1"
before=$(stat -c %Y "$run3")
check "a second invocation resumes" \
  sh -c "$py '$src/bench/phases/harness.py' '$src/bench/phases/scenarios/ci_tiny.yaml' --out '$out' --bbctl '$bbctl' 2> '$tmp/h2.err'"
check "... and makes no run again (0 made, 2 already made)" grep -q "nothing to run (2 runs already made" "$tmp/h2.err"
check "... leaving the runs' JSON as they were" test "$(stat -c %Y "$run3")" = "$before"

sed 's/^timeout: 60$/timeout: soon/' "$src/bench/phases/scenarios/ci_tiny.yaml" > "$tmp/bad.yaml"
rc=0; $py "$src/bench/phases/harness.py" "$tmp/bad.yaml" --out "$tmp/bad" --bbctl "$bbctl" 2> "$tmp/bad.err" || rc=$?
check "a bad scenario file is refused naming the file, field and value ($(cat "$tmp/bad.err"))" \
  sh -c "test $rc = 2 && grep -q \"$tmp/bad.yaml: timeout: 'soon'\" '$tmp/bad.err'"

# ---- the oracle ----
labels=$tmp/labels/labels.json
mkdir -p "$tmp/labels"
check "the oracle labels two job folders" \
  sh -c "$py '$src/bench/modeselect/oracle.py' '$src/bench/modeselect/testdata/oracle/shared_read' '$src/bench/modeselect/testdata/oracle/node_private' \
         --out '$labels' --repeats 3 --modes 1,2,3,4 --timeout 60 --nodes 2 --bbctl '$bbctl' 2> '$tmp/o.err'"
tail -5 "$tmp/o.err"
check "the labels file names both jobs" test "$(json "$labels" "sorted(d['jobs'])")" = "['node_private', 'shared_read']"
check "shared_read: mode 1 disqualified for breaking the job's semantics (node 1 reads node 0's file)" \
  test "$(json "$labels" "'semantics' in d['jobs']['shared_read']['disqualified'].get('1', '') and '/data' in d['jobs']['shared_read']['disqualified']['1']")" = True
check "shared_read: the label is one of the modes that keep its semantics" \
  test "$(json "$labels" "d['jobs']['shared_read']['label'] in (2, 3, 4)")" = True
check "node_private: no mode disqualified, a label among the modes tried" \
  test "$(json "$labels" "(d['jobs']['node_private']['disqualified'], d['jobs']['node_private']['label'] in (1, 2, 3, 4))")" = "({}, True)"
check "every mode ran 3 times, with its figure" \
  test "$(json "$labels" "sorted(len(v) for v in d['jobs']['node_private']['figures'].values())")" = "[3, 3, 3, 3]"
check "the probe profiles are kept beside the labels" \
  test -s "$tmp/labels/shared_read.profile.json" -a -s "$tmp/labels/node_private.profile.json"
check "the Markdown summary" grep -q '| shared_read |' "$tmp/labels/labels.md"
rc=0; $py "$src/bench/modeselect/oracle.py" "$src/bench/modeselect/testdata/oracle/shared_read" "$src/bench/modeselect/testdata/oracle/node_private" \
  --out "$labels" --repeats 3 --modes 1,2,3,4 --timeout 60 --nodes 2 --bbctl "$bbctl" 2> "$tmp/o2.err" || rc=$?
check "a second oracle invocation makes no run again and writes the same labels" \
  sh -c "test $rc = 0 && ! grep -q '^\[' '$tmp/o2.err' && grep -q 'labels' '$tmp/o2.err'"

# ---- a cluster the harness did not start ----
"$bbctl" emulate up --nodes 2 --link-rate 1gbit --root "$tmp/root" --mount "$tmp/mnt" >/dev/null
check "--attach runs on the cluster that is up" \
  sh -c "$py '$src/bench/phases/harness.py' '$src/bench/phases/scenarios/ci_tiny.yaml' --out '$tmp/att' --attach --bbctl '$bbctl' 2> '$tmp/a.err'"
check "... makes its runs there" grep -q "made 2 runs" "$tmp/a.err"
check "... and leaves that cluster up" "$bbctl" emulate status
rc=0; $py "$src/bench/phases/harness.py" "$src/bench/phases/scenarios/ci_tiny.yaml" --out "$tmp/att2" --bbctl "$bbctl" 2> "$tmp/a2.err" || rc=$?
check "without --attach it refuses to touch a cluster it did not start" \
  sh -c "test $rc = 1 && grep -q 'already up' '$tmp/a2.err' && '$bbctl' emulate status >/dev/null"
"$bbctl" emulate down >/dev/null
