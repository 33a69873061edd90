#!/usr/bin/env bash
# The metrics: 2 daemons (bbctl start, loopback) do real work, then `bbctl stats --prometheus`
# is parsed with a Prometheus text-format parser (Debian's python3-prometheus-client) and its
# counters must equal `bbctl stats --json` taken at the same moment; each daemon's
# metrics_file parses too, is rewritten every interval, is world-readable whatever the daemon's
# umask, and is gone when the daemon stops; every series names its node; a lookup of a missing
# name is not an error; every metric the Grafana dashboard (configs/grafana/) plots is in the
# output. Needs root and /dev/fuse. Cleans up always.
set -euo pipefail
bin=${1:?usage: metrics.sh BUILD_BIN_DIR}
bbctl=$bin/bbctl
tmp=$(mktemp -d /tmp/bb-metrics-XXXXXX)
fails=0
finish() {
  local rc=$?
  "$bbctl" stop --root "$tmp/r" >/dev/null 2>&1 || true
  rm -rf "$tmp"
  if [ $rc -eq 0 ] && [ $fails -eq 0 ]; then echo "metrics: all passed"; else echo "metrics: FAILED"; exit 1; fi
}
trap finish EXIT
source "$(dirname "$0")/lib.sh"
py=/usr/bin/python3  # Debian's, with its packages

(umask 077; "$bbctl" start --nodes 2 --root "$tmp/r" --mount "$tmp/m" --base-port $((7900 + RANDOM % 200)) -- \
  --metrics-file metrics.prom --metrics-interval 1 >/dev/null)
"$bbctl" job start --root "$tmp/r" --name wsA --mode-file "$(dirname "$0")/../configs/modes/mode3.yaml" >/dev/null
for i in $(seq 20); do head -c 300000 /dev/urandom > "$tmp/m/node0/f$i"; done
cat "$tmp/m/node1"/f* > /dev/null
ls "$tmp/m/node1/no-such-file" 2>/dev/null || true   # a lookup miss: an answer, not an error
mkdir "$tmp/m/node0/full" && touch "$tmp/m/node0/full/x"
rmdir "$tmp/m/node0/full" 2>/dev/null || true          # ENOTEMPTY (39): an error
# A snapshot of both forms with nothing sent between them (background work, such as chunk
# removals or write-behind, may still be under way): the counters before and after agree.
for _ in $(seq 10); do
  "$bbctl" stats --root "$tmp/r" --json > "$tmp/stats.json"
  "$bbctl" stats --root "$tmp/r" --prometheus > "$tmp/metrics.txt"
  "$bbctl" stats --root "$tmp/r" --json > "$tmp/stats.after.json"
  $py -c 'import json, sys
c = lambda f: [{k: v for k, v in n.items() if k in ("ops", "errors", "to", "peers")} for n in json.load(open(f))]
sys.exit(c(sys.argv[1]) != c(sys.argv[2]))' "$tmp/stats.json" "$tmp/stats.after.json" && break
  sleep 0.5
done

check "bbctl stats --prometheus parses as Prometheus text, and its counters equal bbctl stats --json" $py - "$tmp" <<'PY'
import json, sys
from prometheus_client.parser import text_string_to_metric_families
tmp = sys.argv[1]
stats = json.load(open(f"{tmp}/stats.json"))
fams = {f.name: f for f in text_string_to_metric_families(open(f"{tmp}/metrics.txt").read())}
def value(family, suffix="_total", **labels):
    hits = [s.value for s in fams[family].samples
            if s.name == family + suffix and all(s.labels.get(k) == str(v) for k, v in labels.items())]
    assert len(hits) == 1, (family, labels, hits)
    return hits[0]
bad = []
for node in stats:
    n = node["node"]
    name = node["name"]
    assert name and name != str(n), f"node {n} reports no name"
    for op, count in node["ops"].items():
        if value("bb_fs_operations", node_id=n, op=op) != count: bad.append(("op", n, op))
    for errno_, count in node["errors"].items():
        if value("bb_fs_errors", node_id=n, errno=errno_) != count: bad.append(("errno", n, errno_))
    for t in node["to"]:
        if value("bb_requests", node_id=n, peer=t["node"], kind="metadata") != t["meta_requests"]: bad.append(("meta", n))
        if value("bb_data_bytes", node_id=n, peer=t["node"], direction="read") != t["read_bytes"]: bad.append(("read", n))
    for p in node["peers"]:
        if value("bb_rpc_calls", node_id=n, peer=p["peer"]) != p["calls_sent"]: bad.append(("calls", n))
        if value("bb_rpc_latency_seconds", "_count", node=name, node_id=n, peer=p["peer"]) != p["calls_sent"]: bad.append(("latency", n))
    for w in node["workspace_list"]:
        if value("bb_workspace_mode", "", node=name, node_id=n, workspace=w["name"]) != w["mode"]: bad.append(("mode", n))
    if value("bb_workspace_mode", "", node_id=n, workspace="wsA") != 3: bad.append(("wsA", n))
    space = [s for s in fams["bb_space_bytes"].samples if s.labels["node_id"] == str(n) and s.labels["node"] == name and s.labels["kind"] == "total"]
    if not space or space[0].value != node["space"]["total_bytes"]: bad.append(("space", n))
assert fams["bb_rpc_latency_seconds"].type == "histogram"
assert any(s.value > 0 for s in fams["bb_fs_operations"].samples if s.labels["op"] == "write")
assert any(s.labels["errno"] == "39" for s in fams["bb_fs_errors"].samples), "the ENOTEMPTY of rmdir"
assert not any(s.labels["errno"] == "2" for s in fams["bb_fs_errors"].samples), "the lookup miss of ls counted as an error"
assert sum(p["calls_sent"] for node in stats for p in node["peers"]) > 0, "the nodes talked"
if bad:
    sys.exit(f"mismatches: {bad}")
PY

sleep 1.5
check "each daemon's metrics_file parses and is rewritten every interval" $py - "$tmp" <<'PY'
import os, sys, time
from prometheus_client.parser import text_string_to_metric_families
tmp = sys.argv[1]
for n in (0, 1):
    path = f"{tmp}/r/node{n}/metrics.prom"
    before = os.stat(path).st_mtime
    fams = {f.name for f in text_string_to_metric_families(open(path).read())}
    assert {"bb_fs_operations", "bb_space_bytes", "bb_nodes"} <= fams, fams
    for _ in range(40):
        if os.stat(path).st_mtime != before: break
        time.sleep(0.1)
    assert os.stat(path).st_mtime != before, f"{path} was not rewritten"
    assert os.stat(path).st_mode & 0o777 == 0o644, oct(os.stat(path).st_mode)
PY

check "every metric the Grafana dashboard plots is in the daemons' output" $py - "$tmp" "$(dirname "$0")/../configs/grafana/bbfs-dashboard.json" "$(dirname "$0")/../fs/daemon/metrics.cc" <<'PY'
import json, re, sys
from prometheus_client.parser import text_string_to_metric_families
tmp, dash = sys.argv[1], json.load(open(sys.argv[2]))
names = set()
for f in text_string_to_metric_families(open(f"{tmp}/metrics.txt").read()):
    names |= {s.name for s in f.samples}
plotted = {m for p in dash["panels"] for t in p["targets"] for m in re.findall(r"\bbb_[a-z_]+", t["expr"])}
# QoS series exist only while a job has a channel; the rest must be there on any live daemon.
qos_source = open(sys.argv[3]).read()
missing = sorted(m for m in plotted - names
                 if not (m.startswith("bb_qos_") and f'"{m}"' in qos_source))
assert plotted, "the dashboard plots nothing"
assert not missing, f"plotted but not exported: {missing}"
PY

"$bbctl" stop --root "$tmp/r" >/dev/null
check "the metrics files are removed when the daemons stop" sh -c "! ls '$tmp'/r/node*/metrics.prom 2>/dev/null"
