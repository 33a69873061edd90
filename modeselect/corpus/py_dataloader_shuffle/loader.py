"""A training-style data loader over a shared data set.

Rank 0 writes the data set once: SHARDS .npy files of 256 samples (1024 float32 features,
4 KiB per sample) and an index with a CRC per shard. After a barrier, every epoch all ranks
draw the same random permutation of all samples, take every size-th sample of it, read those
samples straight from the shard files (seek + read of 4 KiB) in mini-batches and check them.

usage: loader.py DATA_DIR SHARDS EPOCHS
"""
import json
import os
import sys
import zlib

import numpy as np
from mpi4py import MPI

SAMPLES_PER_SHARD = 256
FEATURES = 1024
BATCH = 32


def make_samples(ids):
    """Sample i holds i in feature 0 and a smooth function of i in the others."""
    data = np.empty((len(ids), FEATURES), dtype=np.float32)
    data[:, 0] = ids
    data[:, 1:] = (ids[:, None] % 977) * 0.001 + np.arange(1, FEATURES, dtype=np.float32)
    return data


def write_dataset(root, shards):
    os.makedirs(root, exist_ok=True)
    index = {"samples_per_shard": SAMPLES_PER_SHARD, "features": FEATURES, "shards": []}
    for s in range(shards):
        ids = np.arange(s * SAMPLES_PER_SHARD, (s + 1) * SAMPLES_PER_SHARD)
        data = make_samples(ids)
        name = f"shard_{s:03d}.npy"
        np.save(os.path.join(root, name), data)
        index["shards"].append({"file": name, "crc32": zlib.crc32(data.tobytes())})
    with open(os.path.join(root, "index.json"), "w") as f:
        json.dump(index, f)


class ShardReader:
    """Reads single samples of the .npy shards by offset."""

    def __init__(self, root, index):
        self.files, self.offsets = [], []
        for shard in index["shards"]:
            f = open(os.path.join(root, shard["file"]), "rb")
            version = np.lib.format.read_magic(f)
            shape, _, dtype = np.lib.format._read_array_header(f, version)
            if shape != (SAMPLES_PER_SHARD, FEATURES) or dtype != np.float32:
                raise ValueError(f"{shard['file']}: unexpected array {shape} {dtype}")
            self.files.append(f)
            self.offsets.append(f.tell())

    def sample(self, i):
        s, row = divmod(int(i), SAMPLES_PER_SHARD)
        f = self.files[s]
        f.seek(self.offsets[s] + row * FEATURES * 4)
        return np.frombuffer(f.read(FEATURES * 4), dtype=np.float32)


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    root, shards, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if rank == 0:
        write_dataset(root, shards)
    comm.Barrier()

    with open(os.path.join(root, "index.json")) as f:
        index = json.load(f)
    if rank == 1 % size:  # one rank checks whole shards against the index
        for shard in index["shards"]:
            data = np.load(os.path.join(root, shard["file"]))
            if zlib.crc32(data.tobytes()) != shard["crc32"]:
                raise ValueError(f"{shard['file']}: CRC mismatch")
    reader = ShardReader(root, index)
    total = len(index["shards"]) * SAMPLES_PER_SHARD
    t0 = MPI.Wtime()
    seen = bad = 0
    for epoch in range(epochs):
        order = np.random.default_rng(1234 + epoch).permutation(total)
        mine = order[rank::size]
        for start in range(0, len(mine), BATCH):
            ids = mine[start:start + BATCH]
            batch = np.stack([reader.sample(i) for i in ids])
            bad += int(np.count_nonzero(batch != make_samples(ids)))
            seen += len(ids)
    t1 = MPI.Wtime()
    seen, bad = comm.allreduce(seen), comm.allreduce(bad)
    if rank == 0:
        print(f"loader: {epochs} epochs, {seen} samples on {size} ranks in {t1 - t0:.2f} s, {bad} bad values")
    if bad or seen != epochs * total:
        raise SystemExit(1)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one failing rank must not leave the others in a collective
        print(f"loader[{MPI.COMM_WORLD.Get_rank()}]: {e}", file=sys.stderr)
        MPI.COMM_WORLD.Abort(1)
