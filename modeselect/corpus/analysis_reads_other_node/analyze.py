"""Analysis step: reads every rank's field file written by the simulation, checks it against
the rank's own statistics and prints the global mean and RMS.

usage: analyze.py OUTDIR NRANKS
"""
import math
import struct
import sys
from array import array
from pathlib import Path


def main():
    outdir, nranks = Path(sys.argv[1]), int(sys.argv[2])
    stats = sorted(outdir.glob("stats_*.txt"))
    fields = sorted(outdir.glob("field_*.bin"))
    if len(stats) != nranks or len(fields) != nranks:
        sys.exit(f"analyze: {len(fields)} field and {len(stats)} stats files in {outdir}, expected {nranks}")
    total = total_sq = 0.0
    count = 0
    for field, stat in zip(fields, stats):
        words = stat.read_text().split()
        rank, n, s, sq = int(words[1]), int(words[3]), float(words[5]), float(words[7])
        with field.open("rb") as f:
            magic, frank, size, fn = struct.unpack("<4i", f.read(16))
            values = array("d")
            values.frombytes(f.read(8 * fn))
        if magic != 0x46494C44 or frank != rank or fn != n or len(values) != n:
            sys.exit(f"analyze: {field} does not match {stat}")
        fs = math.fsum(values)
        if not math.isclose(fs, s, rel_tol=1e-9, abs_tol=1e-6):
            sys.exit(f"analyze: {field}: sum {fs} but the simulation recorded {s}")
        total += fs
        total_sq += sq
        count += n
    mean = total / count
    print(f"analyze: {count} values from {nranks} ranks: mean {mean:.6f} rms {math.sqrt(total_sq / count):.6f}")


if __name__ == "__main__":
    main()
