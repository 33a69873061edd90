# Helpers to run fio on every node of an emulated cluster at once (sourced by tools/demo.sh and
# bench/cluster_fio.sh, since replaced by bench/phases/scenarios/cluster_fio.yaml). Needs: $bbctl, $nodes, $work (a scratch folder).

# Aggregate of several fio JSON outputs (files given as arguments), like IOR reports it: all
# bytes (or operations) of every node divided by the slowest node's run time. KIND: "bw" MiB/s,
# "iops" operations/s of the job's one direction, "iops_rw" reads plus writes.
# For "bw" writes a node's run time is not fio's, which ends with the last write and so leaves
# out the close, where a file system with writes behind waits for them. It runs from the start
# of the first I/O (the first line of the latency log fio wrote beside the JSON, with
# --log_unix_epoch) to fio's report, which comes after the file is closed. Reads keep fio's run
# time: their close waits for nothing, and fio's own ending (tens of ms) would weigh on short,
# cached reads.
fio_aggregate() {
  python3 -c '
import json, sys
kind, files = sys.argv[1], sys.argv[2:]
total, longest = 0.0, 0.0
for f in files:
    report = json.load(open(f))
    j = report["jobs"][0]
    dirs = [j["read"], j["write"]] if kind == "iops_rw" else \
           [j["write"] if j["write"]["total_ios"] > 0 else j["read"]]
    for d in dirs:
        total += d["io_bytes"] / 2**20 if kind == "bw" else d["total_ios"]
        seconds = d["runtime"] / 1000.0
        if kind == "bw" and d is j["write"] and d["io_bytes"] > 0:
            # First line: completion time (Unix ms), latency (ns), ...
            done_ms, lat_ns = open(f[:-len(".json")] + "_lat.1.log").readline().split(",")[:2]
            started_ms = int(done_ms) - int(lat_ns) / 1e6
            seconds = max(seconds, (report["timestamp_ms"] - started_ms) / 1000.0)
        longest = max(longest, seconds)
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
    if [ "$kind" = bw ]; then
      rm -f "$work/fio.${n}_lat.1.log"
      args+=(--write_lat_log="$work/fio.$n" --log_unix_epoch=1)
    fi
    "$bbctl" exec --node "$n" -- fio --output-format=json "${args[@]}" > "$work/fio.$n.json" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  local files=()
  for n in $(seq 0 $((nodes - 1))); do files+=("$work/fio.$n.json"); done
  fio_aggregate "$kind" "${files[@]}"
}

# warm_memory MIB: touches MIB of memory once (a file in /dev/shm, then removed), so that the
# page cache a run is about to fill comes from memory the machine has already backed. On a VM
# whose host takes freed memory back (free page reporting), the first touch of such memory is
# several times slower than of memory in use; a run that grows the page cache into it then
# measures the host, not the file system. Needs MIB free in /dev/shm.
warm_memory() {
  local f
  f=$(mktemp /dev/shm/bb-warm-XXXXXX)
  dd if=/dev/zero of="$f" bs=1M count="$1" status=none || true
  rm -f "$f"
}
