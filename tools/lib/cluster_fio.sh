# Helpers to run fio on every node of an emulated cluster at once (sourced by tools/demo.sh and
# bench/cluster_fio.sh). Needs: $bbctl, $nodes, $work (a scratch folder).

# fio JSON on stdin -> MiB/s ("bw") or operations/s ("iops") of its one job group.
fio_figure() {
  python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
s = j["write"] if j["write"]["total_ios"] > 0 else j["read"]
if sys.argv[1] == "bw":
    print(round(s["bw_bytes"] / 2**20))
elif sys.argv[1] == "iops":
    print(round(s["iops"]))
else:  # "iops_rw": reads and writes of a mixed job
    print(round(j["read"]["iops"] + j["write"]["iops"]))' "$1"
}

# on_all_nodes KIND OFFSET FIO-ARGS...: one fio per node at the same time; prints the sum of
# their figures. In the arguments @N is the node number, @T node (N + OFFSET) mod nodes, @O the
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
  local total=0
  for n in $(seq 0 $((nodes - 1))); do total=$((total + $(fio_figure "$kind" < "$work/fio.$n.json"))); done
  echo "$total"
}
