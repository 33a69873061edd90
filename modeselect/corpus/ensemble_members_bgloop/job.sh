#!/bin/bash
#SBATCH --job-name=l96-ensemble
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Ensemble forecast: 8 independent Lorenz-96 members with perturbed initial states, each a
# single-task job step in a run directory of its own (history every 25 steps, a restart
# file at the end). The steps run side by side; the job fails if any member fails.
set -uo pipefail

ENS_DIR=$BB_MOUNT/ensemble
MEMBERS=8
STEPS=1000
trap 'rm -rf "$ENS_DIR" member_*.$SLURM_JOB_ID.log' EXIT

pids=()
for ((m = 0; m < MEMBERS; m++)); do
  dir=$ENS_DIR/mem$(printf %03d $m)
  srun -N 1 -n 1 --exclusive ./bin/l96_member "$dir" $m $STEPS > "member_$m.$SLURM_JOB_ID.log" 2>&1 &
  pids+=($!)
done

failed=0
for ((m = 0; m < MEMBERS; m++)); do
  if ! wait "${pids[m]}"; then
    echo "member $m failed:" >&2
    cat "member_$m.$SLURM_JOB_ID.log" >&2
    failed=$((failed + 1))
  else
    cat "member_$m.$SLURM_JOB_ID.log"
  fi
  rm -f "member_$m.$SLURM_JOB_ID.log"
done
echo "ensemble: $((MEMBERS - failed)) of $MEMBERS members done"
[ "$failed" -eq 0 ]
