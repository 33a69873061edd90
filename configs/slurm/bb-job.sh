#!/bin/bash
# A Slurm job that runs its application on a burst buffer spanning its nodes: one bbd per node,
# node-local storage as the root, a hosts file on a shared file system, the mount at the same
# path everywhere. Stage data in and out with cp (or rsync) from the job script.
#SBATCH --job-name=bb-job
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=8
#SBATCH --time=01:00:00
set -euo pipefail

BB_ROOT=${BB_ROOT:-/local/$USER/bb.$SLURM_JOB_ID}        # node-local SSD or tmpfs
BB_MOUNT=${BB_MOUNT:-/tmp/bb.$SLURM_JOB_ID}              # same path on every node
BB_HOSTS=${BB_HOSTS:-$HOME/.bb/hosts.$SLURM_JOB_ID}      # on a shared file system
BB_PORT=${BB_PORT:-7070}
export BB_ROOT BB_MOUNT BB_HOSTS BB_PORT
mkdir -p -m 0700 "$(dirname "$BB_HOSTS")"
rm -f "$BB_HOSTS" "$BB_HOSTS.key"
bbctl key new "$BB_HOSTS.key"   # this job's secret: every connection between its daemons proves it

# One daemon per node, in the foreground of a step that lasts the whole job.
srun --ntasks-per-node=1 --overlap bash -c '
  mkdir -p "$BB_MOUNT"
  exec bbd --foreground --root "$BB_ROOT" --mount "$BB_MOUNT" --hosts-file "$BB_HOSTS" \
           --node-name "$(hostname -s)" --listen "$(hostname -I | cut -d" " -f1):$BB_PORT" \
           --nodes "$SLURM_JOB_NUM_NODES"' &
daemons=$!

# Every node mounted (each daemon mounts once all nodes are in the hosts file).
srun --ntasks-per-node=1 --overlap bash -c '
  for i in $(seq 600); do mountpoint -q "$BB_MOUNT" && exit 0; sleep 0.1; done
  echo "burst buffer not mounted on $(hostname -s)" >&2; exit 1'

cp -r "$SLURM_SUBMIT_DIR/input" "$BB_MOUNT/"                        # stage in
srun ./app --input "$BB_MOUNT/input" --output "$BB_MOUNT/output"     # the job
cp -r "$BB_MOUNT/output" "$SLURM_SUBMIT_DIR/output.$SLURM_JOB_ID"   # stage out

# Stop: SIGTERM unmounts cleanly; then free the node-local storage.
srun --ntasks-per-node=1 --overlap bash -c 'kill -TERM "$(cat "$BB_ROOT/bbd.lock")"'
wait "$daemons" || true
srun --ntasks-per-node=1 --overlap rm -rf "$BB_ROOT"
rm -f "$BB_HOSTS" "$BB_HOSTS.lock" "$BB_HOSTS.key"
