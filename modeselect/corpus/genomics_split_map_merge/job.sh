#!/bin/bash
#SBATCH --job-name=readqc
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Read QC pipeline: the sequencer's reads (a FASTQ file) are split into chunks of 1000 reads
# on one node, all tasks trim and score the chunks round-robin, and the per-chunk tables are
# concatenated into the run's QC table, which is checked against the run statistics.
set -euo pipefail

# the site Python has numpy; a user's own python3 on PATH may not
PYTHON=python3
if ! $PYTHON -c 'import numpy' 2>/dev/null; then
  PYTHON=/usr/bin/python3
fi

WORK=$BB_MOUNT/readqc.$SLURM_JOB_ID
READS=32000
READS_PER_CHUNK=1000
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/chunks" "$WORK/qc"

# 1. the input (synthetic reads here) and its split into chunk files, on one node
srun -N 1 -n 1 $PYTHON make_reads.py "$WORK/sample.fastq" $READS "$WORK/sample.stats"
srun -N 1 -n 1 split -l $((4 * READS_PER_CHUNK)) -d -a 3 --additional-suffix=.fastq \
  "$WORK/sample.fastq" "$WORK/chunks/chunk_"
nchunks=$(ls "$WORK/chunks" | wc -l)
echo "readqc: $nchunks chunks"

# 2. trim and score, chunks dealt round-robin over the tasks
srun -l -D "$WORK" "$SLURM_SUBMIT_DIR/qc_chunks.sh" chunks qc $nchunks

# 3. merge in chunk order and check
cat "$WORK"/qc/chunk_*.tsv > "$WORK/sample.qc.tsv"
read -r want_reads want_bases want_gc < "$WORK/sample.stats"
read -r got_reads got_bases got_gc < <(awk -F'\t' '{n++; b += $2; g += $3} END {print n, b, g}' "$WORK/sample.qc.tsv")
first=$(head -n 1 "$WORK/sample.qc.tsv" | cut -f1) last=$(tail -n 1 "$WORK/sample.qc.tsv" | cut -f1)
echo "readqc: $got_reads reads, $got_bases bases kept, $got_gc G/C ($first .. $last)"
if [ "$got_reads" != "$want_reads" ] || [ "$got_bases" != "$want_bases" ] || [ "$got_gc" != "$want_gc" ] ||
   [ "$first" != "read_000000" ] || [ "$last" != "read_$(printf %06d $((READS - 1)))" ]; then
  echo "readqc: the QC table does not match the run statistics ($want_reads reads, $want_bases bases, $want_gc G/C)" >&2
  exit 1
fi
