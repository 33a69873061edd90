#!/bin/bash
#SBATCH --job-name=ring-pipeline
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:03:00
# A pipeline written as job-array steps run one after the other inside one allocation: for
# every step index one element per node runs stage.sh; each element consumes the block its
# ring neighbour produced in the step before and produces its own.
set -euo pipefail

export PIPE=$BB_MOUNT/ring STEPS=5

for ((SLURM_ARRAY_TASK_ID = 0; SLURM_ARRAY_TASK_ID < STEPS; SLURM_ARRAY_TASK_ID++)); do
  export SLURM_ARRAY_TASK_ID
  srun --ntasks-per-node=1 "$SLURM_SUBMIT_DIR/stage.sh" "$PIPE" $SLURM_ARRAY_TASK_ID | sort
done

# every element checks its last block: letters shifted STEPS-1 times from the step-0 block of
# element (PROCID + STEPS - 1) mod NTASKS; then it removes its blocks
srun --ntasks-per-node=1 bash -c '
  src=$(( (SLURM_PROCID + STEPS - 1) % SLURM_NTASKS ))
  want=$(head -c 6291456 < <(yes "element $src of the pipeline, step 0 ....................................." 2>/dev/null) |
    tr "a-y" "b-z" | tr "a-y" "b-z" | tr "a-y" "b-z" | tr "a-y" "b-z" | cksum | cut -d" " -f1)
  last=$PIPE/step$((STEPS - 1))/block.$SLURM_PROCID
  got=$(cksum < "$last" | cut -d" " -f1)
  rm -f "$last" "$last.cksum" "$PIPE/step$((STEPS - 2))/block.$SLURM_PROCID" "$PIPE/step$((STEPS - 2))/block.$SLURM_PROCID.cksum"
  if [ "$got" != "$want" ]; then echo "element $SLURM_PROCID: final block is wrong" >&2; exit 1; fi
  echo "element $SLURM_PROCID: final block checked"' | sort
for ((i = 0; i < STEPS; i++)); do rmdir "$PIPE/step$i"; done
rmdir "$PIPE"
