"""Training input pipeline with a node-local decode cache (mpi4py + numpy).

The first task of every node (SLURM_LOCALID 0) decodes that node's share of the data set
into shards under CACHE/node<SLURM_NODEID> (numpy .npy files, written as .tmp and renamed);
the node's tasks then read random samples from their node's shards by memory map for a few
epochs and check every sample against its generator. The shards never leave their node: the
node communicator is split from SLURM_NODEID. The first task clears the node's cache.

usage: cache_loader.py CACHE SHARDS_PER_NODE SAMPLES_PER_SHARD EPOCHS
"""
import os
import sys

import numpy as np
from mpi4py import MPI

SAMPLE = 1024  # float32 values per sample


def sample_values(node, shard, idx):
    """The decoded sample: a fixed function of where it lives, so any reader can check it."""
    base = np.float32(node * 1e6 + shard * 1e3 + idx)
    return base + np.arange(SAMPLE, dtype=np.float32) * np.float32(0.5)


def main():
    cache, shards, per_shard, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    world = MPI.COMM_WORLD
    node = int(os.environ["SLURM_NODEID"])
    local = int(os.environ["SLURM_LOCALID"])
    comm = world.Split(color=node, key=local)
    node_dir = os.path.join(cache, f"node{node}")

    if local == 0:
        os.makedirs(node_dir, exist_ok=True)
        for s in range(shards):
            data = np.stack([sample_values(node, s, i) for i in range(per_shard)])
            path = os.path.join(node_dir, f"shard_{s:03d}.npy")
            with open(path + ".tmp", "wb") as f:
                np.save(f, data)
            os.replace(path + ".tmp", path)
    comm.Barrier()

    rng = np.random.default_rng(1000 * node + local)
    maps = [np.load(os.path.join(node_dir, f"shard_{s:03d}.npy"), mmap_mode="r") for s in range(shards)]
    checked = bad = 0
    for _ in range(epochs):
        order = rng.permutation(shards * per_shard)[: (shards * per_shard) // comm.size]
        for k in order:
            s, i = divmod(int(k), per_shard)
            got = np.asarray(maps[s][i])
            bad += int(not np.array_equal(got, sample_values(node, s, i)))
            checked += 1
    del maps
    comm.Barrier()
    if local == 0:
        for s in range(shards):
            os.unlink(os.path.join(node_dir, f"shard_{s:03d}.npy"))
        os.rmdir(node_dir)
        try:  # the cache root goes with the last node's directory
            os.rmdir(cache)
        except OSError:
            pass

    checked = world.allreduce(checked)
    bad = world.allreduce(bad)
    if world.rank == 0:
        print(f"cache_loader: {world.size} tasks on {world.size // comm.size} nodes, {checked} samples read, {bad} bad")
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    main()
