#!/bin/bash
#SBATCH --job-name=stagein-tar
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Input staging per node: the job packs its input deck (a tarball in the submit directory);
# on every node the first task unpacks it into the node's input directory in the burst buffer;
# then every task copies the deck into its own work directory, patches its copy of the mesh
# with dd (the task's rank stamped into a block), verifies the deck against the manifest and
# the patch, and removes its work directory; the first task of each node removes the node's copy.
set -euo pipefail

DECK=deck.$SLURM_JOB_ID.tar.gz
trap 'rm -rf "$DECK" deck.$SLURM_JOB_ID' EXIT
mkdir -p deck.$SLURM_JOB_ID/mesh deck.$SLURM_JOB_ID/params
for ((i = 0; i < 24; i++)); do
  head -c $((256 * 1024)) /dev/urandom > deck.$SLURM_JOB_ID/mesh/part_$(printf %02d $i).bin
  printf 'part %d\nrefine %d\n' $i $((i % 3)) > deck.$SLURM_JOB_ID/params/part_$(printf %02d $i).nml
done
(cd deck.$SLURM_JOB_ID && find . -type f ! -name MANIFEST.md5 | sort | xargs md5sum > MANIFEST.md5)
tar czf "$DECK" -C deck.$SLURM_JOB_ID .

export STAGE=$BB_MOUNT/stage DECK
srun --ntasks-per-node=2 bash -c '
  set -euo pipefail
  node_in=$STAGE/node$SLURM_NODEID/input
  work=$STAGE/node$SLURM_NODEID/work.$SLURM_PROCID
  if [ "$SLURM_LOCALID" -eq 0 ]; then
    mkdir -p "$node_in"
    tar xzf "$SLURM_SUBMIT_DIR/$DECK" -C "$node_in"
    touch "$node_in/.ready"
  fi
  while [ ! -e "$node_in/.ready" ]; do sleep 0.05; done
  mkdir -p "$work"
  cp -r "$node_in/." "$work/"
  (cd "$work" && md5sum --quiet -c MANIFEST.md5)
  part=$work/mesh/part_$(printf %02d $((SLURM_PROCID % 24))).bin
  printf "rank %08d" $SLURM_PROCID | dd of="$part" bs=1 seek=4096 conv=notrunc status=none
  stamp=$(dd if="$part" bs=1 skip=4096 count=13 status=none)
  [ "$stamp" = "$(printf "rank %08d" $SLURM_PROCID)" ]
  rm -rf "$work"
  echo "task $SLURM_PROCID on node $SLURM_NODEID: deck verified and patched"
' | sort -k2n
srun --ntasks-per-node=1 bash -c 'rm -rf "$STAGE/node$SLURM_NODEID"; rmdir "$STAGE" 2>/dev/null || true'
