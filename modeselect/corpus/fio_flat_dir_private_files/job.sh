#!/bin/bash
#SBATCH --job-name=fio-scratch
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# Node scratch through fio: every node runs the job file scratch.fio in one flat directory
# that all nodes share, with the node's id in every file name (verified random writes, then a
# burst of small step files); fio removes the files at the end of each section.
set -euo pipefail

export SCRATCH=$BB_MOUNT/fio_scratch
mkdir -p "$SCRATCH"

srun --ntasks-per-node=1 bash -c '
  mkdir -p "$SCRATCH"
  NODE=$(printf %02d $SLURM_NODEID) fio --output-format=terse --terse-version=3 "$SLURM_SUBMIT_DIR/scratch.fio" \
    > "$SLURM_SUBMIT_DIR/fio.$SLURM_JOB_ID.$SLURM_NODEID.terse"
' || { echo "fio failed on a node" >&2; exit 1; }

# terse v3: job name, group and error code in fields 3-5; one line per section and node
status=0 lines=0
for f in fio."$SLURM_JOB_ID".*.terse; do
  while IFS=';' read -r _ _ job group err _; do
    echo "$f: section $group ($job) error=$err"
    lines=$((lines + 1))
    [ "$err" = 0 ] || status=1
  done < "$f"
  rm -f "$f"
done
if [ "$lines" -ne $((2 * SLURM_NNODES)) ]; then
  echo "expected 2 sections on each of $SLURM_NNODES nodes, got $lines results" >&2
  status=1
fi
rmdir "$SCRATCH" 2>/dev/null || true
exit $status
