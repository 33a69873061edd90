#!/bin/bash
# A Slurm job with a burst buffer, for clusters whose Slurm does not run the burst buffer's hooks
# (bb-hook.sh as Prolog/Epilog/TaskProlog: there the #BB lines alone do everything, and the two
# bbctl lines below only pick up what the hooks made). `bbctl bb up` starts one daemon per node
# of the allocation (whatever the job's task count), waits for every mount with a deadline
# (naming the node that failed and why), creates the job's workspace and stages in; `bbctl bb
# down` stages out what exists and removes the daemons, the node-local roots and the hosts
# file, also when the application failed. A cancelled job runs no more steps: only the hooks
# clean up after scancel.
#SBATCH --job-name=bb-job
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=8
#SBATCH --time=01:00:00
#BB mode=auto
#BB stage_in source=input destination=input type=directory
#BB stage_out source=output destination=$SLURM_SUBMIT_DIR/output.$SLURM_JOB_ID type=directory
set -euo pipefail
bb=(--state-dir "${BB_STATE_DIR:-$HOME/.bb/jobs}"   # on a file system every node shares
    --local-dir "${BB_LOCAL_DIR:-/tmp}"            # node-local storage (SSD, tmpfs)
    --mount-dir "${BB_MOUNT_DIR:-/tmp}")           # the mount: <dir>/bb.$SLURM_JOB_ID on every node
eval "$(bbctl bb up --script "$0" "${bb[@]}")"      # exports BB_MOUNT and BB_WORKSPACE
trap 'bbctl bb down --script "$0" "${bb[@]}"' EXIT

srun ./app --input "$BB_WORKSPACE/input" --output "$BB_WORKSPACE/output"
