"""Writes a synthetic single-end FASTQ run: READS reads of 100 bases with Phred+33 qualities
that drop towards the 3' end, and the run statistics the QC step must reproduce: read count,
bases left after trimming each read at its first base of quality < 20, and G/C among those.

usage: make_reads.py OUT.fastq READS STATS_FILE
"""
import sys

import numpy as np

LENGTH = 100
MIN_Q = 20


def main(out, reads, stats):
    rng = np.random.default_rng(20240611)
    seq = np.frombuffer(b"ACGT", dtype=np.uint8)[rng.integers(0, 4, size=(reads, LENGTH))]
    decay = rng.uniform(0.05, 0.35, size=(reads, 1))
    qual = 38 - np.arange(LENGTH) * decay + rng.normal(0, 2, size=(reads, LENGTH))
    qual = np.clip(qual.astype(np.int64), 2, 40)
    low = qual < MIN_Q
    cut = np.where(low.any(axis=1), low.argmax(axis=1), LENGTH)
    kept = np.arange(LENGTH) < cut[:, None]
    gc = ((seq == ord("G")) | (seq == ord("C"))) & kept
    with open(out, "w") as f:
        for i in range(reads):
            f.write(f"@read_{i:06d} run=demo lane=1\n{seq[i].tobytes().decode()}\n+\n"
                    f"{(qual[i] + 33).astype(np.uint8).tobytes().decode()}\n")
    with open(stats, "w") as f:
        f.write(f"{reads} {int(cut.sum())} {int(gc.sum())}\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
