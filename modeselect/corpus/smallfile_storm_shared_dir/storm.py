#!/usr/bin/env python3
"""Small-file storm in ONE shared directory.

    storm.py create DIR N   every task creates N small files (1 KiB) in DIR
    storm.py check DIR N    every task stats and reads the files of the next task and
                            checks them
    storm.py remove DIR N   every task removes its own files

Tasks are numbered by Slurm (SLURM_PROCID / SLURM_NTASKS)."""
import os
import sys
import zlib

SIZE = 1024


def payload(owner, i):
    seed = f"{owner}:{i}:".encode()
    return (seed * (SIZE // len(seed) + 1))[:SIZE]


def name(directory, owner, i):
    return os.path.join(directory, "obj_{:04d}_{:05d}.dat".format(owner, i))


def create(directory, n, rank):
    for i in range(n):
        with open(name(directory, rank, i), "wb") as f:
            f.write(payload(rank, i))


def check(directory, n, rank, ntasks):
    other = (rank + 1) % ntasks
    bad = 0
    for i in range(n):
        path = name(directory, other, i)
        st = os.stat(path)
        with open(path, "rb") as f:
            data = f.read()
        if st.st_size != SIZE or zlib.crc32(data) != zlib.crc32(payload(other, i)):
            bad += 1
    return bad


def remove(directory, n, rank):
    for i in range(n):
        os.unlink(name(directory, rank, i))


def main():
    phase, directory, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rank = int(os.environ["SLURM_PROCID"])
    ntasks = int(os.environ["SLURM_NTASKS"])
    if phase == "create":
        create(directory, n, rank)
    elif phase == "check":
        bad = check(directory, n, rank, ntasks)
        if bad:
            sys.exit(f"storm.py[{rank}]: {bad} files of task {(rank + 1) % ntasks} are wrong")
    elif phase == "remove":
        remove(directory, n, rank)
    else:
        sys.exit(f"storm.py: unknown phase {phase}")


if __name__ == "__main__":
    main()
