#!/bin/bash
# qc_chunks.sh CHUNK_DIR QC_DIR NCHUNKS: one task's share of the QC step. Chunk k (in name
# order) is this task's when k mod SLURM_NTASKS = SLURM_PROCID; for each, every read is trimmed
# at its first base of quality < 20 and a line "id <tab> kept bases <tab> G/C count <tab> mean
# quality of the kept bases" goes into QC_DIR/<chunk>.tsv.
set -euo pipefail
chunk_dir=$1 qc_dir=$2 nchunks=$3
rank=${SLURM_PROCID:?} ntasks=${SLURM_NTASKS:?}

chunks=("$chunk_dir"/chunk_*.fastq)
if [ ! -e "${chunks[0]}" ] || [ ${#chunks[@]} -ne "$nchunks" ]; then
  echo "qc_chunks[$rank]: found ${#chunks[@]} chunk files in $chunk_dir, expected $nchunks" >&2
  exit 1
fi
done_here=0
for ((k = rank; k < nchunks; k += ntasks)); do
  in=${chunks[k]}
  name=$(basename "$in" .fastq)
  awk -v min_q=20 '
    BEGIN { for (i = 33; i < 127; i++) ord[sprintf("%c", i)] = i - 33 }
    NR % 4 == 1 { id = substr($1, 2) }
    NR % 4 == 2 { seq = $0 }
    NR % 4 == 0 {
      cut = length($0); qsum = 0
      for (p = 1; p <= length($0); p++) {
        q = ord[substr($0, p, 1)]
        if (q < min_q) { cut = p - 1; break }
        qsum += q
      }
      kept = substr(seq, 1, cut)
      gc = gsub(/[GC]/, "", kept)
      printf "%s\t%d\t%d\t%.1f\n", id, cut, gc, cut ? qsum / cut : 0
    }
    END { if (NR % 4 != 0) { print "truncated FASTQ record" > "/dev/stderr"; exit 1 } }
  ' "$in" > "$qc_dir/$name.tsv.part"
  mv "$qc_dir/$name.tsv.part" "$qc_dir/$name.tsv"
  done_here=$((done_here + 1))
done
echo "task $rank: $done_here chunks"
