#!/bin/bash
#SBATCH --job-name=sample-sheet
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Sequencing sample sheet expanded into a directory per sample in one shared samples/
# directory: every task makes the directories of its samples (metadata, a small reads file,
# a done marker); every task then polls the whole tree with find until all samples are done,
# and counts and sizes them with find and du; at last every task removes its own samples.
set -euo pipefail

export SAMPLES=$BB_MOUNT/run_$SLURM_JOB_ID/samples PER_TASK=60
mkdir -p "$SAMPLES"

srun bash -c '
  set -euo pipefail
  mkdir -p "$SAMPLES"
  total=$((PER_TASK * SLURM_NTASKS))
  for ((i = 0; i < PER_TASK; i++)); do
    s=$SAMPLES/S$(printf %03d $SLURM_PROCID)_$(printf %03d $i)
    mkdir "$s"
    printf "{\"sample\": \"%s\", \"lane\": %d}\n" "$(basename "$s")" $((i % 8)) > "$s/meta.json"
    printf "@r%d\nACGTACGTAC\n+\nIIIIIIIIII\n" $(seq 1 20) > "$s/reads.fq"
    touch "$s/done"
  done
  polls=0
  while [ "$(find "$SAMPLES" -mindepth 2 -maxdepth 2 -name done | wc -l)" -lt $total ]; do
    polls=$((polls + 1)); sleep 0.1
  done
  files=$(find "$SAMPLES" -type f | wc -l)
  dirs=$(find "$SAMPLES" -mindepth 1 -maxdepth 1 -type d | wc -l)
  echo "task $SLURM_PROCID: $dirs samples, $files files seen after $polls polls"
  [ "$files" -eq $((3 * total)) ] && [ "$dirs" -eq $total ]
' | sort -k2n

srun bash -c 'rm -rf "$SAMPLES"/S$(printf %03d $SLURM_PROCID)_*'
left=$(find "$SAMPLES" -mindepth 1 | wc -l)
echo "sample-sheet: $left entries left"
[ "$left" -eq 0 ]
rmdir "$SAMPLES" "$(dirname "$SAMPLES")"
