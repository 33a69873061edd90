#!/usr/bin/env bash
# Overload on a 4-node emulated cluster: 64 tasks make files in one shared directory, then
# append 200-byte records with O_APPEND to one file, in mode 2, whose one metadata node (node 0)
# serves every create and every append's offset. Node 0's
# daemon is slowed far past the calls' deadline while alive — its CPU capped at 5 % of a core
# with a cgroup (or, without the cgroup v1 cpu controller, stopped for 200 ms of every 250) —
# and every write must succeed, the file holding every record exactly once: the callers see it
# answer pings and finish requests, and wait. Then the same load with node 0 killed midway
# must fail, and soon, not hang. Needs root. Always tears the cluster down and frees node 0.
set -euo pipefail
bin=${1:?usage: emulated_overload.sh BUILD_BIN_DIR}
bbctl=$(cd "$bin" && pwd)/bbctl
cg=/sys/fs/cgroup/cpu/bb-overload-$$
slower=

# Node 0 at full speed again: the stopper gone, the daemon continued, out of the cgroup.
free_node0() {
  if [ -n "$slower" ]; then kill "$slower" 2>/dev/null; wait "$slower" 2>/dev/null || true; slower=; fi
  pkill -CONT -f "node-name node0 " 2>/dev/null || true
  if [ -d "$cg" ]; then
    for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do echo "$p" > /sys/fs/cgroup/cpu/cgroup.procs 2>/dev/null || true; done
    rmdir "$cg" 2>/dev/null || true
  fi
}
cleanup_first() { free_node0; }

source "$(dirname "$0")/lib.sh"
cluster_test emulated_overload

cat > "$tmp/append.c" <<'EOF'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
// append LOG N: N records appended to LOG; files DIR N: N files made in DIR, a record each.
int main(int argc, char **argv) {
  int files = strcmp(argv[1], "files") == 0, n = atoi(argv[3]), rank = atoi(getenv("SLURM_PROCID"));
  int fd = files ? -1 : open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (!files && fd < 0) { fprintf(stderr, "rank %d open: %s\n", rank, strerror(errno)); return 1; }
  char rec[200], name[4096];
  for (int i = 0; i < n; i++) {
    int len = snprintf(rec, sizeof rec, "rank %04d record %06d ", rank, i);
    memset(rec + len, 'x', sizeof rec - len - 1);
    rec[sizeof rec - 1] = '\n';
    if (files) {
      snprintf(name, sizeof name, "%s/r%04d.%06d", argv[2], rank, i);
      fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
      if (fd < 0) { fprintf(stderr, "rank %d create %s: %s\n", rank, name, strerror(errno)); return 1; }
    }
    if (write(fd, rec, sizeof rec) != (ssize_t)sizeof rec) {
      fprintf(stderr, "rank %d write %d: %s\n", rank, i, strerror(errno));
      return 1;
    }
    if (files && close(fd) != 0) { fprintf(stderr, "rank %d close: %s\n", rank, strerror(errno)); return 1; }
  }
  if (!files && close(fd) != 0) { fprintf(stderr, "rank %d close: %s\n", rank, strerror(errno)); return 1; }
  return 0;
}
EOF
cc -O2 -o "$tmp/append" "$tmp/append.c"
cat > "$tmp/job.sh" <<EOF
#!/bin/bash
#SBATCH -N 4
#SBATCH --ntasks-per-node=16
mkdir "\$BB_MOUNT/d"
srun $tmp/append files "\$BB_MOUNT/d" \$RECORDS || exit 1
srun $tmp/append append "\$BB_MOUNT/log" \$RECORDS || exit 1
files=\$(ls "\$BB_MOUNT/d" | wc -l); filed=\$(cat "\$BB_MOUNT"/d/* | sort -u | wc -l)
lines=\$(wc -l < "\$BB_MOUNT/log"); unique=\$(sort -u "\$BB_MOUNT/log" | wc -l)
echo "files \$files with \$filed records, log lines \$lines unique \$unique, of \$((64 * RECORDS))"
[ "\$files" -eq \$((64 * RECORDS)) ] && [ "\$filed" -eq "\$files" ] && [ "\$lines" -eq \$((64 * RECORDS)) ] && [ "\$unique" -eq "\$lines" ]
EOF
chmod +x "$tmp/job.sh"
printf 'mode: 2\nmetadata_server_ratio: 0.25\n' > "$tmp/mode2.yaml"

# A 150 ms deadline, and 5 s (the default's length) for a node to answer a ping (or reply)
# before it counts as gone. At 2 % of a core shared by all its threads, node 0's progress
# thread went 3.5 to 5.5 s (and more) without a turn: its own calls and the pings it owed failed,
# one run in four or five, from the starting commit on; at 5 % the node is still slowed far
# past the deadline (the calls that waited it out are counted and asserted). A short queue (16
# waiting requests) so that node 0 also pushes back under the 64 writers.
"$bbctl" emulate up --nodes 4 --link-rate 1gbit --root "$root" --mount "$mnt" -- --rpc-timeout ${DEADLINE_MS:-150} \
  --rpc-liveness ${LIVENESS_MS:-5000} --rpc-max-queued 16 >/dev/null
node0=$(pgrep -f "node-name node0 " | head -1)

if [ -d /sys/fs/cgroup/cpu ] && mkdir "$cg" 2>/dev/null; then
  echo ${PERIOD_US:-100000} > "$cg/cpu.cfs_period_us"
  echo ${QUOTA_US:-5000} > "$cg/cpu.cfs_quota_us"
  for t in /proc/"$node0"/task/*; do echo "${t##*/}" > "$cg/tasks"; done
  how="CPU capped at $((${QUOTA_US:-5000} * 100 / ${PERIOD_US:-100000})) % of a core (cgroup)"
else
  (while kill -STOP "$node0" 2>/dev/null; do sleep 0.2; kill -CONT "$node0"; sleep 0.05; done) &
  slower=$!
  how="stopped 200 ms of every 250"
fi
echo "node 0: $how"
start=$(date +%s)
set +e
(cd "$tmp" && RECORDS=10 "$bbctl" job run --name slow --mode-file mode2.yaml --timeout 600 -- ./job.sh) > "$tmp/slow.out" 2>&1
rc=$?
set -e
grep -E "rank|files|bbctl: job" "$tmp/slow.out" | head -8
extended=$("$bbctl" stats --json | python3 -c "import json, sys; print(sum(p.get('calls_extended', 0) for n in json.load(sys.stdin) for p in n['peers']))")
failed=$("$bbctl" stats --json | python3 -c "import json, sys; print(sum(p.get('calls_failed', 0) for n in json.load(sys.stdin) for p in n['peers']))")
pushed=$("$bbctl" stats --json | python3 -c "import json, sys; print(sum(p.get('calls_pushed_back', 0) for n in json.load(sys.stdin) for p in n['peers']))")
echo "slowed run: $(( $(date +%s) - start )) s, $extended calls waited past their deadline, $pushed pushed back, $failed failed"
[ $rc -eq 0 ] || grep -h -E 'transport|timed out' "$root"/node*/bbd.log | sed 's/^\[[^]]*\] //' | sort | uniq -c | head -8
check "node 0 slowed far past the deadline: every append succeeds, every record once" test $rc -eq 0
check "the deadline was passed and waited out ($extended calls), none failed" test "$extended" -gt 0 -a "$failed" -eq 0

# Free node 0, then kill it under the same load: the job fails, and soon.
free_node0
(sleep 2; "$bbctl" emulate kill --node 0 >/dev/null) &
killer=$!
start=$(date +%s)
set +e
(cd "$tmp" && RECORDS=4000 "$bbctl" job run --name dead --mode-file mode2.yaml --timeout 120 -- ./job.sh) > "$tmp/dead.out" 2>&1
rc=$?
set -e
wait "$killer" || true
took=$(( $(date +%s) - start ))
grep -m 3 -E 'write|open|close' "$tmp/dead.out" || true
echo "killed node 0 after 2 s: the job ended with $rc after $took s"
check "a node killed under the load fails the job (exit $rc)" test $rc -ne 0
check "and it fails within the deadlines, not at the job's time limit ($took s)" test "$took" -lt 60
