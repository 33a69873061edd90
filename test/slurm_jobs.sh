#!/usr/bin/env bash
# Jobs under real Slurm (Debian's slurmctld, a slurmd per emulated node, munge) on the 4-node
# emulated cluster, with the burst buffer's hooks as Prolog, Epilog and TaskProlog: job scripts
# that ask for their burst buffer with #BB directives only. Checks what comes back byte for byte,
# and that no daemon, mount, root or hosts file is left on any node after a job that succeeds,
# fails, is cancelled, or whose burst buffer cannot start. Needs root. Always tears down.
set -euo pipefail
bin=$(cd "${1:?usage: slurm_jobs.sh BUILD_BIN_DIR SOURCE_DIR}" && pwd)
src=${2:?usage: slurm_jobs.sh BUILD_BIN_DIR SOURCE_DIR}
bbctl=$bin/bbctl
source "$(dirname "$0")/lib.sh"
cluster_test slurm_jobs
export SLURM_CONF=/run/bb-emu/slurm/slurm.conf

"$bbctl" emulate up --slurm --nodes 4 --link-rate 1gbit --root "$root" --mount "$mnt" >/dev/null
check "sinfo: four idle nodes" test "$(sinfo -h -N -o %t | sort | uniq -c | awk '{print $1 $2}')" = "4idle"

sub=$tmp/submit
mkdir -p "$sub/input/deep/er"
for i in 1 2 3 4 5; do head -c $((70000 * i + 13)) /dev/urandom > "$sub/input/f$i"; done
head -c 3000000 /dev/urandom > "$sub/input/deep/er/big"
printf 'x' > "$sub/input/with space"
ln -s f1 "$sub/input/link"

# run_job SCRIPT: submits it, waits for it to leave the queue (and its epilog to finish), prints
# its id. Jobs are short; 120 s is a hang.
run_job() {
  local id
  id=$(cd "$sub" && sbatch --parsable -o "$sub/out-%j.txt" "$1")
  for _ in $(seq 480); do
    squeue -h -j "$id" 2>/dev/null | grep -q . || break
    sleep 0.25
  done
  echo "$id"
}
state() { scontrol show job "$1" | grep -o 'JobState=[A-Z]*' | cut -d= -f2; }
# Nothing of job ID left: no daemon, no mount in any node's namespace, no root, no state (hosts file).
left_of() {
  local id=$1 n what=""
  pgrep -f -- "bb\.$id( |$)" >/dev/null && what+="daemon "
  for n in 0 1 2 3; do
    on $n grep -q " $mnt/bb.$id " /proc/self/mountinfo && what+="mount@node$n "
    [ -e "$root/local/node$n/bb.$id" ] && what+="root@node$n "
    [ -e "$root/local/node$n/bb.$id.user" ] && what+="user-folder@node$n "
    [ -e "$root/local/node$n/bb.$id.key" ] && what+="key@node$n "
  done
  [ -e "$root/bb-jobs/job.$id" ] && what+="state "
  echo "${what:-nothing}"
}

# explain ID: what a failed check needs to be understood: the job's output and what Slurm said of it.
explain() {
  echo "  job $1's output:"
  sed 's/^/  | /' "$sub/out-$1.txt" 2>/dev/null || true
  echo "  Slurm's logs on job $1:"
  grep -h "JobId=$1\b\|job $1\b\|job_id $1\b" "$(dirname "$SLURM_CONF")"/*.log 2>/dev/null | tail -n 30 | sed 's/^/  | /' || true
}

# 1. Directives only: stage a directory in, 8 tasks on 4 nodes write, stage the results out.
cat > "$sub/job.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 4 -n 8
#BB mode=3
#BB stage_in source=input destination=in type=directory
#BB stage_out source=out destination=$SLURM_SUBMIT_DIR/out.$SLURM_JOB_ID type=directory
mkdir -p "$BB_WORKSPACE/out"
(cd "$BB_WORKSPACE/in" && find . -type f -print0 | sort -z | xargs -0 md5sum) > "$BB_WORKSPACE/out/input.md5"
srun bash -c 'head -c $((100000 + 4099 * SLURM_PROCID)) /dev/zero | tr "\0" "$SLURM_PROCID" > "$BB_WORKSPACE/out/r$SLURM_PROCID"
              echo "$SLURMD_NODENAME" > "$BB_WORKSPACE/out/node$SLURM_PROCID"'
EOF
id=$(run_job "$sub/job.sh")
out=$sub/out.$id
check "job $id completed ($(state "$id"))" test "$(state "$id")" = COMPLETED
check "the job saw BB_WORKSPACE and the staged-in files, byte for byte" \
  test "$(cat "$out/input.md5" 2>/dev/null)" = "$(cd "$sub/input" && find . -type f -print0 | sort -z | xargs -0 md5sum)"
good=1
for r in 0 1 2 3 4 5 6 7; do
  [ "$(md5sum < "$out/r$r" 2>/dev/null)" = "$(head -c $((100000 + 4099 * r)) /dev/zero | tr '\0' "$r" | md5sum)" ] || good=0
done
check "all 8 ranks' files staged out byte for byte" test $good = 1
check "the tasks wrote on all four nodes ($(cat "$out"/node* 2>/dev/null | sort -u | tr '\n' ' '))" \
  test "$(cat "$out"/node* 2>/dev/null | sort -u | wc -l)" = 4
check "the job's output reports the stage-out as verified" grep -q "stage_out .* done, every file verified" "$sub/out-$id.txt"
check "the job's output reports the start and the teardown" \
  sh -c "grep -q 'burst buffer up on 4 nodes' '$sub/out-$id.txt' && grep -q 'stopped and removed on every node' '$sub/out-$id.txt'"
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing

# 2. The application fails after writing part of its results: they still come back.
sed 's|^srun .*|srun bash -c '"'"'echo part > "$BB_WORKSPACE/out/r$SLURM_PROCID"'"'"'; exit 3|; /^ *echo "\$SLURMD/d' \
  "$sub/job.sh" > "$sub/fail.sh"
id=$(run_job "$sub/fail.sh")
before=$fails
check "the failing job $id failed ($(state "$id"))" test "$(state "$id")" = FAILED
check "its partial results were staged out ($(ls "$sub/out.$id" 2>/dev/null | wc -l) files)" \
  test "$(cat "$sub/out.$id"/r* 2>/dev/null | grep -c part)" = 8
[ "$fails" = "$before" ] || explain "$id"
check "nothing of the failed job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing

# 3. Cancelled while running: what exists comes back, nothing stays.
cat > "$sub/cancel.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 4 -n 4
#BB mode=2
#BB stage_out source=out destination=$SLURM_SUBMIT_DIR/out.$SLURM_JOB_ID type=directory
mkdir -p "$BB_WORKSPACE/out"
srun bash -c 'echo "rank $SLURM_PROCID" > "$BB_WORKSPACE/out/r$SLURM_PROCID"'
echo "srun: exit $?"
echo written
sleep 300
EOF
id=$(cd "$sub" && sbatch --parsable -o "$sub/out-%j.txt" cancel.sh)
for _ in $(seq 240); do grep -q written "$sub/out-$id.txt" 2>/dev/null && break; sleep 0.25; done
scancel "$id"
for _ in $(seq 480); do squeue -h -j "$id" 2>/dev/null | grep -q . || break; sleep 0.25; done
check "the cancelled job $id is CANCELLED ($(state "$id"))" test "$(state "$id")" = CANCELLED
before=$fails
check "what it wrote before the cancel was staged out" test "$(cat "$sub/out.$id"/r* 2>/dev/null | wc -l)" = 4
[ "$fails" = "$before" ] || explain "$id"
check "nothing of the cancelled job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing

# 3b. The first node's daemon dies while the job runs: its data went with it, and the job's
# output says that nothing was staged out, instead of nothing; nothing stays.
cat > "$sub/dies.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 4 -n 4
#BB mode=2
#BB stage_out source=out destination=$SLURM_SUBMIT_DIR/out.$SLURM_JOB_ID type=directory
mkdir -p "$BB_WORKSPACE/out"
echo rank0 > "$BB_WORKSPACE/out/r0"
echo written
for _ in $(seq 240); do [ -e "$SLURM_SUBMIT_DIR/go.$SLURM_JOB_ID" ] && break; sleep 0.25; done
EOF
id=$(cd "$sub" && sbatch --parsable -o "$sub/out-%j.txt" dies.sh)
for _ in $(seq 240); do grep -q written "$sub/out-$id.txt" 2>/dev/null && break; sleep 0.25; done
pkill -KILL -f -- "--root $root/local/node0/bb\.$id " || true
touch "$sub/go.$id"
for _ in $(seq 480); do squeue -h -j "$id" 2>/dev/null | grep -q . || break; sleep 0.25; done
before=$fails
check "a job whose first node's daemon died says nothing was staged out" \
  grep -q "stage_out: the daemon on node0 is not running; nothing was staged out" "$sub/out-$id.txt"
[ "$fails" = "$before" ] || explain "$id"
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing

# 4. A node whose daemon cannot start (its node-local storage is not a folder): the job fails
# within the deadline, naming the node and why; the node stays in service.
rmdir "$root/local/node2" 2>/dev/null || true
touch "$root/local/node2"
start=$(date +%s)
id=$(run_job "$sub/job.sh")
took=$(($(date +%s) - start))
rm -f "$root/local/node2"
check "a job whose burst buffer cannot start on node2 fails ($(state "$id"), ${took} s, deadline 60 s)" \
  test "$(state "$id")" = FAILED -a "$took" -lt 60
check "its output names node2 and the reason" grep -q "failed on node2: cannot create the root .*Not a directory" "$sub/out-$id.txt"
check "only node2 is blamed" test "$(grep -c 'failed on' "$sub/out-$id.txt")" = 1
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing
check "every node is still in service" test "$(sinfo -h -N -o %t | sort | uniq -c | awk '{print $1 $2}')" = "4idle"

# 5. A job without directives gets no burst buffer and pays nothing for it: the hooks' calls of
# Slurm's commands are counted (wrappers first on the hooks' PATH, through bb-slurm.env). With
# job_submit.lua's mark (BB_SUBMIT_MARK=on, as the emulator sets it) there are none: the prolog
# sees no "[#BB]" in SLURM_JOB_COMMENT; without the mark it reads the script once per node.
mkdir -p "$sub/count"
for c in scontrol squeue sinfo; do
  printf '#!/bin/sh\necho "$SLURM_JOB_ID %s $*" >> %s/calls\nexec /usr/bin/%s "$@"\n' "$c" "$sub/count" "$c" > "$sub/count/$c"
  chmod +x "$sub/count/$c"
done
hook_env="$(dirname "$SLURM_CONF")/bb-slurm.env"
cp "$hook_env" "$sub/bb-slurm.env.saved"
echo "PATH=$sub/count:\$PATH" >> "$hook_env"
printf '#!/bin/bash\n#SBATCH -N 2\necho "mount=${BB_MOUNT:-none}"\n' > "$sub/plain.sh"
id=$(run_job "$sub/plain.sh")
echo "BB_SUBMIT_MARK=off" >> "$hook_env"
unmarked=$(run_job "$sub/plain.sh")
cp "$sub/bb-slurm.env.saved" "$hook_env"
check "a job without #BB runs as always ($(state "$id"), $(cat "$sub/out-$id.txt"))" \
  test "$(state "$id")" = COMPLETED -a "$(cat "$sub/out-$id.txt")" = "mount=none"
calls=$(grep -c "^$id " "$sub/count/calls" 2>/dev/null || true)
check "its hooks called Slurm not once (${calls:-0} calls)" test "${calls:-0}" = 0
calls=$(grep -c "^$unmarked " "$sub/count/calls" 2>/dev/null || true)
check "without the submit mark, once per node, to read the script ($calls: $(grep "^$unmarked " "$sub/count/calls" 2>/dev/null | cut -d' ' -f2-4 | sort | uniq -c | tr '\n' ';'))" \
  sh -c "[ '$calls' = 2 ] && [ \"\$(grep '^$unmarked ' '$sub/count/calls' | grep -vc 'scontrol write batch_script')\" = 0 ]"
check "a job with #BB lines carries job_submit.lua's mark (job 1: $(scontrol show job 1 | grep -o 'Comment=[^ ]*'))" \
  sh -c "scontrol show job 1 | grep -q 'Comment=\[#BB\]'"

# 6. A malformed directive is refused by sbatch (job_submit.lua runs bbctl bb check) with the
# file, line and key the hooks would give, and no job is made.
printf '#!/bin/bash\n#SBATCH -N 2\n#BB mode=9\necho ran\n' > "$sub/bad.sh"
before=$(squeue -h | wc -l)
rc=0
refused=$(cd "$sub" && sbatch --parsable -o "$sub/out-%j.txt" bad.sh 2>&1) || rc=$?
check "sbatch refuses a bad #BB line naming it (exit $rc: $(echo "$refused" | head -2 | tr '\n' ' '))" \
  sh -c "[ $rc -ne 0 ] && printf '%s' \"\$1\" | grep -q \"script:3: #BB mode: '9' is not auto\"" _ "$refused"
check "and no job was made" test "$(squeue -h | wc -l)" = "$before"

printf '#!/bin/bash\n#SBATCH -N 2\n#BB mode=3 capacity=100GB\necho ran\n' > "$sub/cap.sh"
rc=0
refused=$(cd "$sub" && sbatch --parsable -o "$sub/out-%j.txt" cap.sh 2>&1) || rc=$?
check "sbatch refuses capacity=, which nothing would keep (exit $rc: $(echo "$refused" | head -1))" \
  sh -c "[ $rc -ne 0 ] && printf '%s' \"\$1\" | grep -q 'capacity: not supported'" _ "$refused"
check "and no job was made" test "$(squeue -h | wc -l)" = "$before"

# 6b. mode=auto with the job's own evidence and reasoner: a Darshan log named by #BB darshan=,
# read as the job's user, decides the mode (the job's output says from what).
cp "$src/modeselect/profile/testdata/darshan_nn_base.txt" "$sub/nn.darshan.txt"
printf '#!/bin/bash\n#SBATCH -N 2 -n 2\n#BB mode=auto darshan=nn.darshan.txt reasoner=rules\necho ran\n' > "$sub/evidence.sh"
id=$(run_job "$sub/evidence.sh")
check "a job naming its Darshan log ran ($(state "$id")) in the mode the selector chose from it" \
  sh -c "test '$(state "$id")' = COMPLETED &&
         grep -q 'in mode [1-4] (mode=auto: .*decided from the script, its sources and the Darshan log the job named ($sub/nn.darshan.txt)' '$sub/out-$id.txt'"
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing

# 7. A job of an unprivileged user: its workspace and everything staged are its own, the mode
# selector and the staging run as it.
usub=$tmp/user
mkdir -p "$usub/input"
head -c 300000 /dev/urandom > "$usub/input/a"
cat > "$usub/job.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 4 -n 4
#BB mode=auto
#BB stage_in source=input destination=in
#BB stage_out source=out destination=$SLURM_SUBMIT_DIR/out.$SLURM_JOB_ID
stat -c '%U' "$BB_WORKSPACE"
mkdir -p "$BB_WORKSPACE/out"
srun bash -c 'cmp "$BB_WORKSPACE/in/a" "$SLURM_SUBMIT_DIR/input/a" && id -un > "$BB_WORKSPACE/out/r$SLURM_PROCID"'
EOF
chown -R nobody:nogroup "$usub"
chmod 755 "$tmp"
id=$(cd "$usub" && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable -o "$usub/out-%j.txt" job.sh)
for _ in $(seq 480); do squeue -h -j "$id" 2>/dev/null | grep -q . || break; sleep 0.25; done
check "nobody's job $id completed in a workspace of its own ($(state "$id"), owner $(head -1 "$usub/out-$id.txt"))" \
  test "$(state "$id")" = COMPLETED -a "$(head -1 "$usub/out-$id.txt")" = nobody
check "its 4 tasks read the staged-in file and their results came back, owned by nobody" \
  test "$(cat "$usub/out.$id"/r* 2>/dev/null | sort -u)" = nobody -a "$(stat -c %U "$usub/out.$id/r3" 2>/dev/null)" = nobody
check "nothing of nobody's job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing

# 7b. A job whose user-chosen fields (name, comment, work dir) spell every field the hooks read,
# with root's values: the hooks take the job's owner from Slurm's environment and the rest from
# scontrol's JSON, so the staging runs as nobody: its files are nobody's, and a destination only
# root may write is refused.
hostile="x UserId=root(0) GroupId=root(0) WorkDir=/etc StdOut=/etc/bb-owned NodeList=node0 NumNodes=1 JobId=1"
hsub="$tmp/user2/w UserId=root(0) GroupId=root(0) WorkDir=/etc"
mkdir -p "$hsub/input"
head -c 100000 /dev/urandom > "$hsub/input/a"
cat > "$hsub/job.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 2 -n 2
#BB mode=3
#BB stage_in source=input destination=in
#BB stage_out source=in destination=$SLURM_SUBMIT_DIR/back.$SLURM_JOB_ID
#BB stage_out source=in destination=/etc/bb-stage-test.$SLURM_JOB_ID
id -un
EOF
chown -R nobody:nogroup "$tmp/user2"
id=$(cd "$hsub" && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable -J "$hostile" \
       --comment "$hostile" -o "$hsub/out-%j.txt" job.sh)
for _ in $(seq 480); do squeue -h -j "$id" 2>/dev/null | grep -q . || break; sleep 0.25; done
check "a job named and commented as root's ran as nobody ($(head -1 "$hsub/out-$id.txt" 2>/dev/null))" \
  test "$(head -1 "$hsub/out-$id.txt" 2>/dev/null)" = nobody
check "its stage-in and stage-out ran as nobody (the staged-out file is nobody's)" \
  test "$(stat -c %U "$hsub/back.$id/a" 2>/dev/null)" = nobody
check "its stage-out to a folder only root may write was refused, not done as root" \
  sh -c "test ! -e /etc/bb-stage-test.$id && grep -q 'stage_out .*/etc/bb-stage-test.$id' '$hsub/out-$id.txt'"
check "nothing was written where the fake fields pointed (/etc/bb-owned)" test ! -e /etc/bb-owned
[ -n "$id" ] && rm -rf "/etc/bb-stage-test.$id"
rm -f /etc/bb-owned
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing

# 7c. mode=auto keeps each run's I/O profile for the next run of the same script: the first
# submission decides from the script alone and keeps its profile; the second decides from the
# script and that profile, without a probe run, and says so.
cat > "$sub/auto.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 2 -n 4
#BB mode=auto
mkdir -p "$BB_WORKSPACE/out"
srun bash -c 'mkdir -p "$BB_WORKSPACE/out/t$SLURM_PROCID" && head -c 200000 /dev/zero > "$BB_WORKSPACE/out/t$SLURM_PROCID/data"'
EOF
history_dir=/root/.cache/bbfs/profiles
before_history=$(ls "$history_dir" 2>/dev/null | sort || true)
first=$(run_job "$sub/auto.sh")
check "the first mode=auto run ($first) decided from the script alone and kept its profile" \
  sh -c "grep -q 'decided from the script and its sources (no earlier run' '$sub/out-$first.txt' &&
         grep -q 'profile is kept for the next run of this script on 2 nodes' '$sub/out-$first.txt'"
second=$(run_job "$sub/auto.sh")
check "the second ($second) decided from the script and the first run's profile, with no probe run" \
  grep -q 'decided from the script, its sources and the I/O profile of its last run' "$sub/out-$second.txt"
check "both completed ($(state "$first") $(state "$second"))" test "$(state "$first") $(state "$second")" = "COMPLETED COMPLETED"
for f in $(ls "$history_dir" 2>/dev/null || true); do grep -qx "$f" <<<"$before_history" || rm -f "$history_dir/$f"; done

# 7d. Mode 1 on several nodes: each node sees only its own files, so every node stages the input
# in for itself and stages its own results out; none is lost (the first node alone saw a quarter).
cat > "$sub/private.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 4 -n 4
#BB mode=1
#BB stage_in source=input destination=in type=directory
#BB stage_out source=out destination=$SLURM_SUBMIT_DIR/private.$SLURM_JOB_ID type=directory
srun bash -c 'mkdir -p "$BB_WORKSPACE/out" && cmp "$BB_WORKSPACE/in/f2" "$SLURM_SUBMIT_DIR/input/f2" && echo "$SLURMD_NODENAME" > "$BB_WORKSPACE/out/r$SLURM_PROCID"'
EOF
id=$(run_job "$sub/private.sh")
before=$fails
check "a mode 1 job on 4 nodes completed: every node read the staged-in input ($(state "$id"))" test "$(state "$id")" = COMPLETED
check "the results of all 4 nodes were staged out ($(ls "$sub/private.$id" 2>/dev/null | tr '\n' ' '))" \
  test "$(cat "$sub/private.$id"/r* 2>/dev/null | sort -u | wc -l)" = 4
check "the job's output reports each node's stage-out" test "$(grep -c 'bb: node[0-3]: stage_out .* done' "$sub/out-$id.txt")" = 4
[ "$fails" = "$before" ] || explain "$id"
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing

# 7e. Staging within Slurm's Prolog/Epilog time limit (PrologEpilogTimeout; here a smaller
# BB_STAGE_LIMIT): a stage-in that would not fit at BB_STAGE_RATE is refused before it starts, one
# that runs late is stopped, each failing the job and never draining a node; a stage-out that runs
# late goes on after the Epilog returned, with the node back in service, and comes back whole.
four_idle() { test "$(sinfo -h -N -o %t | sort | uniq -c | awk '{print $1 $2}')" = "4idle"; }
cat > "$sub/stage.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 4 -n 4
#BB mode=3
#BB stage_in source=input destination=in
echo ran
EOF
printf 'BB_STAGE_LIMIT=6\nBB_STAGE_RATE=100KiB\n' >> "$hook_env"
id=$(run_job "$sub/stage.sh")
check "a stage-in that cannot fit the limit fails job $id before it runs ($(state "$id"))" \
  sh -c "test '$(state "$id")' = FAILED && ! grep -qx ran '$sub/out-$id.txt'"
check "its output says how much, at what rate and what limit" \
  grep -q "failed on node0: stage_in of .* needs about [0-9]* s at 100 KiB/s (BB_STAGE_RATE), more than the [0-9]* s the Prolog has left of its 6 s limit" "$sub/out-$id.txt"
check "no node was drained (job $id)" four_idle
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing
cp "$sub/bb-slurm.env.saved" "$hook_env"
truncate -s 3G "$sub/huge"
sed 's|^#BB stage_in .*|#BB stage_in source=huge destination=huge|' "$sub/stage.sh" > "$sub/stage_late.sh"
printf 'BB_STAGE_LIMIT=4\nBB_STAGE_RATE=1TiB\n' >> "$hook_env"
t0=$(date +%s)
id=$(run_job "$sub/stage_late.sh")
took=$(( $(date +%s) - t0 ))
check "a stage-in past the limit is stopped and fails job $id ($(state "$id"), ${took} s)" \
  sh -c "test '$(state "$id")' = FAILED && grep -q 'stage_in .*huge stopped after [0-9]* s, at the end of the time the Prolog has (4 s limit' '$sub/out-$id.txt'"
check "no node was drained (job $id)" four_idle
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing
rm -f "$sub/huge"
cat > "$sub/stage_out.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 4 -n 4
#BB mode=3
#BB stage_out source=big destination=$SLURM_SUBMIT_DIR/big.$SLURM_JOB_ID
head -c 800000000 /dev/zero > "$BB_WORKSPACE/big"
EOF
id=$(run_job "$sub/stage_out.sh")
check "a stage-out past the limit: job $id completed ($(state "$id"))" test "$(state "$id")" = COMPLETED
check "and no node was drained while it went on" four_idle
for _ in $(seq 600); do [ -e "$root/bb-jobs/job.$id" ] || break; sleep 0.25; done
size=$(stat -c %s "$sub/big.$id" 2>/dev/null || echo none)
check "its stage-out went on after the Epilog and came back whole ($size bytes)" \
  sh -c "test '$size' = 800000000 && cmp -s -n 800000000 '$sub/big.$id' /dev/zero"
check "the job's output says the stage-out went on past the limit, and was verified" \
  sh -c "grep -q \"epilog went on past Slurm's Epilog time limit\" '$sub/out-$id.txt' &&
         grep -q 'stage_out .*big.$id: done, every file verified' '$sub/out-$id.txt'"
cp "$sub/bb-slurm.env.saved" "$hook_env"
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing
rm -f "$sub/big.$id"

# 7f. The shared state folder on a root-squashed export (test/squash_fs.cc stands in for NFS with
# root_squash: root acts there as nobody, and cannot give files away): a job of a user of its own,
# mode=auto with stage-in and stage-out, runs as it does on any state folder. The squashed mount
# is made before the nodes, whose mount namespaces copy it.
squash_src=$tmp/squash-src squash=$tmp/squash
mkdir -p "$squash_src/jobs" "$squash" "$tmp/squser/input"
chown nobody:nogroup "$squash_src/jobs"
chmod 755 "$tmp" "$squash_src"  # the export: nobody must pass through to it
cleanup_first() {
  "$bbctl" emulate down >/dev/null 2>&1 || true
  fusermount3 -uz "$tmp/squash" 2>/dev/null || true
  userdel bbsquash 2>/dev/null || true
}
"$bin/../tests/squash_fs" "$squash_src" "$squash" &
for _ in $(seq 100); do mountpoint -q "$squash" && break; sleep 0.05; done
check "root may not write in the squashed state folder, nor give its files away" \
  sh -c "! touch '$squash/x' 2>/dev/null && touch '$squash/jobs/x' && ! chown 0 '$squash/jobs/x' 2>/dev/null &&
         test \"\$(stat -c %u '$squash_src/jobs/x')\" = 65534 && rm '$squash/jobs/x'"
userdel bbsquash 2>/dev/null || true
useradd --system --no-create-home --home-dir "$tmp/squser" --shell /bin/bash bbsquash
head -c 200000 /dev/urandom > "$tmp/squser/input/a"
cat > "$tmp/squser/job.sh" <<'EOF'
#!/bin/bash
#SBATCH -N 2 -n 2
#BB mode=auto
#BB stage_in source=input destination=in
#BB stage_out source=in destination=$SLURM_SUBMIT_DIR/back.$SLURM_JOB_ID
id -un
EOF
chown -R bbsquash "$tmp/squser"
"$bbctl" emulate down >/dev/null
"$bbctl" emulate up --slurm --nodes 4 --link-rate 1gbit --root "$root" --mount "$mnt" >/dev/null
echo "BB_STATE_DIR=$squash/jobs" >> "$hook_env"
id=$(cd "$tmp/squser" && runuser -u bbsquash -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable -o "$tmp/squser/out-%j.txt" job.sh)
for _ in $(seq 480); do squeue -h -j "$id" 2>/dev/null | grep -q . || break; sleep 0.25; done
before=$fails
check "with the state folder root-squashed, bbsquash's job $id completed as bbsquash ($(state "$id"), $(head -1 "$tmp/squser/out-$id.txt" 2>/dev/null))" \
  test "$(state "$id")" = COMPLETED -a "$(head -1 "$tmp/squser/out-$id.txt" 2>/dev/null)" = bbsquash
check "the mode selector chose its mode (it read its copy of the script, root the mode file it wrote)" \
  sh -c "grep -q 'in mode [1-4] (mode=auto' '$tmp/squser/out-$id.txt' && ! grep -q 'selector failed' '$tmp/squser/out-$id.txt'"
check "its input came back through stage-in and stage-out, bbsquash's" \
  sh -c "cmp -s '$tmp/squser/input/a' '$tmp/squser/back.$id/a' && test \"\$(stat -c %U '$tmp/squser/back.$id/a')\" = bbsquash"
check "its I/O profile was kept in bbsquash's home for the next run" \
  sh -c "grep -q 'profile is kept for the next run' '$tmp/squser/out-$id.txt' && ls '$tmp/squser/.cache/bbfs/profiles/' | grep -q ."
[ "$fails" = "$before" ] || { sed 's/^/  | /' "$tmp/squser/out-$id.txt" 2>/dev/null || true; }
check "nothing of job $id is left, on the nodes or in the squashed state folder ($(left_of "$id"))" \
  sh -c "test '$(left_of "$id")' = nothing && test ! -e '$squash_src/jobs/job.$id'"
cp "$sub/bb-slurm.env.saved" "$hook_env"
cleanup_first
unset -f cleanup_first

# 8. The job-script form, on a Slurm without the hooks: configs/slurm/bb-job.sh (mode=auto, the
# mode selector decides) with its application replaced, then the same with a failing application.
"$bbctl" emulate down >/dev/null
"$bbctl" emulate up --slurm --no-slurm-hooks --nodes 4 --link-rate 1gbit --root "$root" --mount "$mnt" >/dev/null
export PATH=$bin:$PATH UCX_TLS=tcp UCX_NET_DEVICES=eth0  # the job's environment (sbatch passes it on)
export BB_STATE_DIR=$root/bb-jobs BB_LOCAL_DIR=$root/local/%n BB_MOUNT_DIR=$mnt
mkdir -p "$BB_STATE_DIR"
app='srun bash -c '"'"'mkdir -p "$BB_WORKSPACE/output"; cmp "$BB_WORKSPACE/input/f3" "$SLURM_SUBMIT_DIR/input/f3" \&\& echo "$SLURMD_NODENAME" > "$BB_WORKSPACE/output/r$SLURM_PROCID"'"'"
sed "s|^srun ./app.*|$app|; s|--ntasks-per-node=8|--ntasks-per-node=2|" "$src/configs/slurm/bb-job.sh" > "$sub/tjob.sh"
id=$(run_job "$sub/tjob.sh")
before=$fails
check "the template job $id completed ($(state "$id"))" test "$(state "$id")" = COMPLETED
[ "$fails" = "$before" ] || explain "$id"
check "its 8 tasks read the staged-in input and their results came back from 4 nodes" \
  test "$(cat "$sub/output.$id"/r* 2>/dev/null | wc -l)" = 8 -a "$(cat "$sub/output.$id"/r* 2>/dev/null | sort -u | wc -l)" = 4
check "its output says mode=auto's choice" grep -q "in mode [1-4] (mode=auto" "$sub/out-$id.txt"
check "nothing of the template job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing
sed 's|^\(srun bash .*\)$|\1; exit 4|' "$sub/tjob.sh" > "$sub/tfail.sh"
id=$(run_job "$sub/tfail.sh")
check "the failing template job $id failed ($(state "$id")) and still staged out" \
  test "$(state "$id")" = FAILED -a "$(cat "$sub/output.$id"/r* 2>/dev/null | wc -l)" = 8
check "nothing of the failing template job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing
touch "$root/local/node2.x"; rm -rf "$root/local/node2"; mv "$root/local/node2.x" "$root/local/node2"
id=$(run_job "$sub/tjob.sh")
rm -f "$root/local/node2"
check "a template job whose burst buffer cannot start on node2 fails naming it" \
  sh -c "test '$(state "$id")' = FAILED && grep -q 'failed on node2: cannot create the root' '$sub/out-$id.txt'"
check "nothing of job $id is left ($(left_of "$id"))" test "$(left_of "$id")" = nothing
