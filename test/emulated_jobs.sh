#!/usr/bin/env bash
# Slurm batch scripts on a 4-node emulated cluster (bbctl job run): the batch environment,
# srun's block and cyclic placement, an MPI program across nodes, a failing task, the time
# limit, bad directives; the I/O profile of a probe run against known counts; --select with a
# selector that fails. Needs root.
# Always tears the cluster down.
set -euo pipefail
bin=${1:?usage: emulated_jobs.sh BUILD_BIN_DIR}
bbctl=$bin/bbctl
source "$(dirname "$0")/lib.sh"
cluster_test emulated_jobs
run() { "$bbctl" job run "$@"; }
# json FILE EXPR: evaluates the Python expression over the JSON document `d` in FILE.
json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

"$bbctl" emulate up --nodes 4 --link-rate 1gbit --root "$root" --mount "$mnt" >/dev/null
cd "$tmp"

# ---- the batch step and srun's placement ----
cat > place.sh <<'EOF'
#!/bin/bash
#SBATCH --nodes=4
#SBATCH --ntasks-per-node 2
set -e
echo "$SLURM_JOB_ID $SLURM_NNODES $SLURM_JOB_NUM_NODES $SLURM_NTASKS $SLURM_NTASKS_PER_NODE $SLURM_JOB_NODELIST $SLURM_SUBMIT_DIR $PWD $BB_NODE $BB_MOUNT" > "$BB_MOUNT/batch"
srun bash -c 'echo "$SLURM_PROCID $SLURM_NODEID $SLURM_LOCALID $BB_NODE $SLURM_NTASKS $SLURM_STEP_ID" > "$BB_MOUNT/block.$SLURM_PROCID"'
srun --distribution=cyclic bash -c 'echo "$SLURM_PROCID $SLURM_NODEID $SLURM_STEP_ID" > "$BB_MOUNT/cyclic.$SLURM_PROCID"'
srun -N 2 -n 3 --cpu-bind=cores --overlap bash -c 'echo "$SLURM_PROCID $SLURM_NODEID" > "$BB_MOUNT/part.$SLURM_PROCID"'
cat "$BB_MOUNT"/block.* > "$SLURM_SUBMIT_DIR/block.out"
cat "$BB_MOUNT"/cyclic.* > "$SLURM_SUBMIT_DIR/cyclic.out"
cat "$BB_MOUNT"/part.* > "$SLURM_SUBMIT_DIR/part.out"
cat "$BB_MOUNT/batch" > "$SLURM_SUBMIT_DIR/batch.out"
EOF
check "a batch script with srun steps runs and exits 0" run --name place --mode 3 --keep -- place.sh
read -r jid nnodes jnodes ntasks tpn nodelist submit pwd0 node0 mount0 < batch.out
check "the batch step has Slurm's environment ($jid $nnodes $jnodes $ntasks $tpn $nodelist)" \
  test -n "$jid" -a "$nnodes" = 4 -a "$jnodes" = 4 -a "$ntasks" = 8 -a "$tpn" = 2 -a "$nodelist" = "node[0-3]"
check "the batch shell runs on node 0, in the folder it was submitted from, with BB_MOUNT the workspace" \
  test "$node0" = 0 -a "$submit" = "$tmp" -a "$pwd0" = "$tmp" -a "$mount0" = "$mnt/place"
check "block placement: two consecutive ranks per node, local ids 0 and 1, step 0" \
  test "$(cat block.out)" = "$(printf '0 0 0 0 8 0\n1 0 1 0 8 0\n2 1 0 1 8 0\n3 1 1 1 8 0\n4 2 0 2 8 0\n5 2 1 2 8 0\n6 3 0 3 8 0\n7 3 1 3 8 0')"
check "cyclic placement: rank r on node r mod 4, step 1" \
  test "$(cat cyclic.out)" = "$(printf '0 0 1\n1 1 1\n2 2 1\n3 3 1\n4 0 1\n5 1 1\n6 2 1\n7 3 1')"
check "srun -N 2 -n 3: ranks 0,1 on node 0 and 2 on node 1" test "$(cat part.out)" = "$(printf '0 0\n1 0\n2 1')"
check "each task ran on its node: node 2 sees rank 4's file in its own mount" \
  test "$(on 2 cat "$mnt/place/block.4")" = "4 2 0 2 8 0"
check "--keep keeps the workspace" sh -c "'$bbctl' job list | grep -q place"
"$bbctl" job stop --name place >/dev/null

# ---- an MPI program across nodes, and mpirun in the script ----
cat > mpi.c <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%d", getenv("BB_MOUNT"), argv[1], rank);
  FILE* f = fopen(path, "w");
  fprintf(f, "%d %d %d %s\n", rank, size, sum, getenv("BB_NODE"));
  return fclose(f) != 0 || MPI_Finalize() != MPI_SUCCESS;
}
EOF
check "an MPI program builds with mpicc" mpicc -o mpi mpi.c
cat > mpi.sh <<'EOF'
#!/bin/sh
#SBATCH -N 4 -n 8
srun ./mpi srun
mpirun -np 4 --map-by node ./mpi byNode
mpiexec ./mpi slots
cat "$BB_MOUNT"/srun.* > srun.out; cat "$BB_MOUNT"/byNode.* > bynode.out; cat "$BB_MOUNT"/slots.* > slots.out
EOF
check "srun and mpirun start MPI programs as one MPI job" run --name mpi --mode 3 -- mpi.sh
check "srun: 8 ranks of one communicator (sum 28), two per node in block order" \
  test "$(cat srun.out)" = "$(printf '0 8 28 0\n1 8 28 0\n2 8 28 1\n3 8 28 1\n4 8 28 2\n5 8 28 2\n6 8 28 3\n7 8 28 3')"
check "mpirun --map-by node: rank r on node r" test "$(cat bynode.out)" = "$(printf '0 4 6 0\n1 4 6 1\n2 4 6 2\n3 4 6 3')"
check "mpiexec without -np: one rank per slot of the job" test "$(wc -l < slots.out)" = 8

# ---- failures, the time limit, bad scripts ----
printf '#!/bin/bash\n#SBATCH -N 2 -n 2\nsrun bash -c "exit \\$((SLURM_PROCID * 5))"\nexit $?\n' > fail.sh
rc=0; run --name fail --mode 3 -- fail.sh 2>/dev/null || rc=$?
check "a failing task fails the job with its exit status (got $rc)" test "$rc" = 5
# An mpirun that hangs once its tasks ended, as Open MPI's may after a task failed
# (open-mpi/ompi#3380): srun stops it and answers with the tasks' highest exit status.
mkdir -p fakempi
cat > fakempi/mpirun <<'EOF'
#!/bin/bash
while [ "$1" != "-np" ]; do shift; done; np=$2; shift 2
while [ "${1##*/}" != bbctl ]; do shift; done
for ((r = 0; r < np; r++)); do OMPI_COMM_WORLD_RANK=$r "$@" & done
wait
exec sleep 6000
EOF
chmod +x fakempi/mpirun
printf '#!/bin/bash\n#SBATCH -N 2 -n 3\nexport PATH=$SLURM_SUBMIT_DIR/fakempi:$PATH\nsrun bash -c "exit \\$((SLURM_PROCID * 3))"\n' > stuck.sh
start=$(date +%s)
rc=0; out=$(run --name stuck --mode 3 --timeout 60 -- stuck.sh 2>&1) || rc=$?
took=$(( $(date +%s) - start ))
check "an mpirun left hanging after its tasks ended is stopped: exit $rc (the highest task's) after ${took}s" \
  sh -c "test $rc = 6 -a $took -lt 30 && ! pgrep -f 'sleep 600[0]' >/dev/null"
check "and srun says so ($(grep -o 'mpirun was still there.*' <<< "$out"))" grep -q "mpirun was still there" <<< "$out"
cat > hang.sh <<'EOF'
#!/bin/bash
#SBATCH -N 4 -n 4
echo started > "$SLURM_SUBMIT_DIR/hang.started"
srun sleep 600
EOF
start=$(date +%s)
rc=0; run --name hang --mode 3 --timeout 3 --json -- hang.sh > hang.json 2>/dev/null || rc=$?
took=$(( $(date +%s) - start ))
check "--timeout kills a hanging job (exit $rc after ${took}s, reported as timed out)" \
  sh -c "test $rc = 124 -a $took -lt 15 && grep -q '\"timed_out\":true' hang.json"
check "nothing of the killed job is left running on any node" sh -c "! pgrep -f 'sleep 60[0]' >/dev/null"
check "the killed job's workspace is gone" sh -c "! '$bbctl' job list | grep -q hang"
printf '#!/bin/bash\n#SBATCH -N 4\n#SBATCH --nodes=abc\nhostname\n' > badline.sh
out=$(run --name bad --mode 3 -- badline.sh 2>&1) && rc=0 || rc=$?
check "a bad #SBATCH line is an error naming the file, line and option ($out)" \
  sh -c "test $rc -ne 0 && echo \"\$1\" | grep -q 'badline.sh:3: #SBATCH --nodes'" _ "$out"
printf '#!/bin/bash\n#SBATCH -N 5\nhostname\n' > big.sh
out=$(run --name big --mode 3 -- big.sh 2>&1) && rc=0 || rc=$?
check "a job asking for more nodes than the cluster has is refused ($out)" \
  sh -c "test $rc -ne 0 && echo \"\$1\" | grep -q 'asks for 5 nodes; the cluster has 4'" _ "$out"
check "refused jobs leave no workspace" test -z "$("$bbctl" job list | tail -n +2)"

# ---- the probe profile: known work gives known counters ----
cat > probe.py <<'EOF'
import os, sys
rank, mount = int(os.environ["SLURM_PROCID"]), os.environ["BB_MOUNT"]
phase = sys.argv[1]
if phase == "write" and rank == 1:          # node 1: 10 writes of 4096 and 5 of 100 bytes, 3 opens
    fd = os.open(f"{mount}/data", os.O_CREAT | os.O_WRONLY, 0o644)
    for _ in range(10): os.write(fd, b"x" * 4096)
    for _ in range(5): os.write(fd, b"y" * 100)
    os.close(fd)
    for _ in range(2): os.close(os.open(f"{mount}/data", os.O_RDONLY))
elif phase == "read" and rank == 2:         # node 2 reads what node 1 wrote
    with open(f"{mount}/data", "rb") as f: assert len(f.read()) == 41460
elif phase == "storm" and rank in (0, 3):   # nodes 0 and 3 create 20 files each in one directory
    for i in range(20): open(f"{mount}/storm/r{rank}.{i}", "w").close()
EOF
cat > probe.sh <<'EOF'
#!/bin/bash
#SBATCH -N 4 --ntasks-per-node=1
srun python3 probe.py write
srun python3 probe.py read
mkdir "$BB_MOUNT/storm"
srun python3 probe.py storm
EOF
check "a probe run writes its profile" run --name probe --mode 3 --profile "$tmp/probe.json" -- probe.sh
geometry=$(json probe.json '(d["version"], d["job"]["nodes"], d["job"]["tasks"], d["job"]["exit_status"])' 2>&1 | tail -1)
check "the profile document has version 2 and the job's geometry ($geometry)" test "$geometry" = "(2, 4, 4, 0)"
data='[f for f in d["files"] if f["path"] == "/data"][0]'
check "data: 3 opens, 15 writes of known sizes, 41460 bytes, all from node 1" \
  test "$(json probe.json "($data['opens'], $data['writes'], $data['bytes_written'], $data['write_sizes'][1], $data['write_sizes'][2], $data['writer_nodes'], $data['created_on'])")" \
  = "(4, 15, 41460, 5, 10, [1], 1)"
check "data: read on node 2 only, every byte, by one process there" \
  test "$(json probe.json "($data['reader_nodes'], $data['bytes_read'], len($data['readers']), $data['readers'][0].split(':')[0])")" \
  = "([2], 41460, 1, '2')"
check "data: written sequentially (every write consecutive)" \
  test "$(json probe.json "($data['consec_writes'], $data['seq_writes'])")" = "(15, 15)"
check "data: every byte read on a node that did not write it" \
  test "$(json probe.json "$data['remote_bytes_read']")" = 41460
check "a small run lists every file, and its classes count every one" \
  test "$(json probe.json "(len(d['files']), sum(c['files'] for c in d['file_classes']))")" = "(41, 41)"
storm='[x for x in d["dirs"] if x["path"] == "/storm"][0]'
check "storm: 40 creates in one directory, made on node 0, entries from nodes 0 and 3" \
  test "$(json probe.json "($storm['creates'], $storm['created_on'], $storm['entry_nodes'])")" = "(40, 0, [0, 3])"
check "the totals add up (41 files, 40 + 1 + 1 creates)" \
  test "$(json probe.json "(d['totals']['files'], d['totals']['creates'], d['totals']['bytes_written'])")" = "(41, 42, 41460)"
check "the time line has the job's operations" \
  test "$(json probe.json "sum(b['data_ops'] for b in d['timeline']['buckets']) == d['totals']['data_ops'] > 0")" = True

# --select never fails a job because of the selector: one that fails (here: no knowledge base)
# gives mode 3, and the outcome says why.
check "--select with a failing selector runs the job" \
  sh -c "BB_MODESELECT_KB='$tmp/no-kb' '$bbctl' job run --name sel --select --json -- probe.sh > sel.json 2> sel.log"
check "... in mode 3, saying why ($(tail -c 300 sel.log | tr '\n' ' '))" \
  test "$(tail -n 1 sel.json | json /dev/stdin '(d["mode"], d["exit_status"], d["selected_by"], "failed (exit 2)" in d["selection_reason"])')" \
  = "(3, 0, 'fallback', True)"
check "... and bbctl's log says there was no decision" grep -q "no decision from bb-modeselect" sel.log

# Profiling off: a job run without --profile leaves no counters on any daemon.
check "a run without --profile" run --name plain --mode 3 --keep -- probe.sh
out=$(python3 -c '
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"{\"cmd\": \"profile_stop\", \"name\": \"plain\"}\n")
print(s.makefile().readline().strip())' "$root/node1/bbd.sock")
check "profiling off: the daemons hold no profile of it ($out)" grep -q "is not profiled" <<< "$out"
"$bbctl" job stop --name plain >/dev/null
