# Helpers to run fio on every node of an emulated cluster at once (sourced by tools/demo.sh and
# bench/cluster_fio.sh). Needs: $bbctl, $nodes, $work (a scratch folder).

# Aggregate of several fio JSON outputs (files given as arguments), like IOR reports it: all
# bytes (or operations) of every node divided by the slowest node's run time. KIND: "bw" MiB/s,
# "iops" operations/s of the job's one direction, "iops_rw" reads plus writes.
fio_aggregate() {
  python3 -c '
import json, sys
kind, files = sys.argv[1], sys.argv[2:]
total, longest = 0.0, 0.0
for f in files:
    j = json.load(open(f))["jobs"][0]
    dirs = [j["read"], j["write"]] if kind == "iops_rw" else \
           [j["write"] if j["write"]["total_ios"] > 0 else j["read"]]
    for d in dirs:
        total += d["io_bytes"] / 2**20 if kind == "bw" else d["total_ios"]
        longest = max(longest, d["runtime"] / 1000.0)
print(round(total / longest) if longest > 0 else 0)' "$@"
}

# on_all_nodes KIND OFFSET FIO-ARGS...: one fio per node at the same time; prints their
# aggregate (fio_aggregate). In the arguments @N is the node number, @T node (N + OFFSET) mod nodes, @O the
# node number times $slice_bytes (a byte offset for shared-file jobs) and @S the same for @T.
on_all_nodes() {
  local kind=$1 offset=$2; shift 2
  local pids=() n a
  for n in $(seq 0 $((nodes - 1))); do
    local target=$(( (n + offset) % nodes )) args=()
    for a in "$@"; do
      a=${a//@N/$n}; a=${a//@T/$target}; a=${a//@O/$(( n * ${slice_bytes:-0} ))}
      a=${a//@S/$(( target * ${slice_bytes:-0} ))}
      args+=("$a")
    done
    "$bbctl" exec --node "$n" -- fio --output-format=json "${args[@]}" > "$work/fio.$n.json" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  local files=()
  for n in $(seq 0 $((nodes - 1))); do files+=("$work/fio.$n.json"); done
  fio_aggregate "$kind" "${files[@]}"
}
