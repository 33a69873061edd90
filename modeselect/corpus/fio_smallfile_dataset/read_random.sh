#!/bin/bash
# One reader task: random 4 KiB reads over the whole data set for 1 s; JSON into $1.
exec fio --eta=never --output-format=json --output="$1/reader.${SLURM_PROCID}.json" randread.fio
