"""Analysis of a run.bp directory written by bpwrite.

Every reader rank opens the metadata index, checks that it describes a complete output,
and selects the blocks of the last step in its window of writers: reader r of R takes
writers/R consecutive writers, starting one window further on than its own ranks (the
window after the one its node produced). It reads each selected block from its subfile by
offset, checks it element by element and against the min/max recorded in the index, and
the readers reduce a global mean of each variable.

usage: bpselect.py RUN.bp
"""
import os
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

HEADER = np.dtype([("magic", "S8"), ("writers", "<i4"), ("steps", "<i4"), ("variables", "<i4"),
                   ("subfiles", "<i4"), ("blocks", "<i8")])
RECORD = np.dtype([("variable", "<i4"), ("step", "<i4"), ("writer", "<i4"), ("subfile", "<i4"),
                   ("offset", "<i8"), ("nbytes", "<i8"), ("start", "<i8"), ("count", "<i8"),
                   ("min", "<f8"), ("max", "<f8")])


def value(variable, step, i):
    """The same field as bpindex.h's bp::Value."""
    if variable == 0:
        return 250.0 + 0.001 * (i % 100000) + step
    return 1.0e5 - 0.5 * (i % 7919) - 10.0 * step


def fail(msg):
    sys.stderr.write(f"bpselect[{rank}]: {msg}\n")
    sys.stderr.flush()
    comm.Abort(1)


def read_index(run):
    with open(os.path.join(run, "md.idx"), "rb") as f:
        header = np.frombuffer(f.read(HEADER.itemsize), dtype=HEADER)[0]
        if header["magic"] != b"BPIDX01":
            fail(f"{run}/md.idx: not a block index")
        records = np.frombuffer(f.read(), dtype=RECORD)
    want = header["writers"] * header["steps"] * header["variables"]
    if header["blocks"] != want or len(records) != want:
        fail(f"{run}/md.idx: {len(records)} block records, expected {want}")
    return header, records


def main():
    run = sys.argv[1]
    header, records = read_index(run)
    writers = int(header["writers"])
    last = int(header["steps"]) - 1
    per_reader = writers // size
    # This reader's window of writers, one window further on.
    window = [(w + per_reader) % writers for w in range(rank * per_reader, (rank + 1) * per_reader)]
    sums = np.zeros(int(header["variables"]))
    subfiles = {}
    for rec in records:
        if rec["step"] != last or int(rec["writer"]) not in window:
            continue
        name = os.path.join(run, f"data.{int(rec['subfile'])}")
        if name not in subfiles:
            subfiles[name] = open(name, "rb")
        f = subfiles[name]
        f.seek(int(rec["offset"]))
        raw = f.read(int(rec["nbytes"]))
        if len(raw) != rec["nbytes"]:
            fail(f"{name}: {len(raw)} bytes at {rec['offset']}, the index says {rec['nbytes']}")
        block = np.frombuffer(raw, dtype="<f8")
        idx = np.arange(rec["start"], rec["start"] + rec["count"], dtype=np.int64)
        expect = value(int(rec["variable"]), last, idx)
        if not np.array_equal(block, expect):
            bad = int(np.count_nonzero(block != expect))
            fail(f"{name}: block of writer {rec['writer']} variable {rec['variable']}: {bad} wrong values")
        if block.min() != rec["min"] or block.max() != rec["max"]:
            fail(f"{name}: block of writer {rec['writer']} does not match its min/max in the index")
        sums[int(rec["variable"])] += block.sum()
    for f in subfiles.values():
        f.close()
    total = np.zeros_like(sums)
    comm.Allreduce(sums, total, op=MPI.SUM)
    n = writers * int(records["count"][0])
    if rank == 0:
        print(f"bpselect: step {last}: mean temperature {total[0] / n:.4f}, mean pressure {total[1] / n:.2f} "
              f"({size} readers, {len(records)} blocks indexed)")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one rank's failure must not leave the others in a collective
        fail(f"{type(e).__name__}: {e}")
