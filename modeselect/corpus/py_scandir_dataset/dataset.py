"""An ImageFolder-style data set written by all ranks, indexed by walking it, then read.

write: every rank writes TRAIN (VAL) samples of every class into ROOT/train/class_CC/
       (ROOT/val/class_CC/), as rRRR_KKK.npy (32x32x3 float32); rank 0 writes classes.txt.
index: rank 0 walks ROOT with os.walk; every rank lists its share of the class directories
       with os.scandir (name and size of each entry); the scans put together must be the walk,
       and the walk must hold every sample written.
read:  one epoch over train/: a seeded shuffle of the indexed files, every size-th one for
       each rank, each loaded and checked against the sample its name says it is; the
       per-class means are reduced and checked.
clean: every rank removes the samples it wrote.

usage: dataset.py ROOT CLASSES
"""
import os
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
SHAPE = (32, 32, 3)
PER_SPLIT = {"train": 4, "val": 1}


def fail(msg):
    sys.stderr.write(f"dataset[{rank}]: {msg}\n")
    sys.stderr.flush()
    comm.Abort(1)


def sample(split, cls, writer, k):
    """The sample a name stands for: its class as the base level plus a seeded pattern."""
    seed = ((split == "val") << 20) + (cls << 12) + (writer << 4) + k
    rng = np.random.default_rng(seed)
    return (cls + 0.01 * rng.standard_normal(SHAPE)).astype(np.float32)


def parse(path):
    split, cls_dir, name = path.split(os.sep)[-3:]
    writer, k = name[1:-4].split("_")
    return split, int(cls_dir[6:]), int(writer), int(k)


def write(root, classes):
    mine = []
    for split, per in PER_SPLIT.items():
        for c in range(classes):
            d = os.path.join(root, split, f"class_{c:02d}")
            os.makedirs(d, exist_ok=True)
            for k in range(per):
                path = os.path.join(d, f"r{rank:03d}_{k:03d}.npy")
                np.save(path, sample(split, c, rank, k))
                mine.append(path)
    comm.Barrier()
    if rank == 0:
        with open(os.path.join(root, "classes.txt"), "w") as f:
            f.writelines(f"class_{c:02d}\n" for c in range(classes))
    return mine


def index(root, classes):
    walked = None
    if rank == 0:
        walked = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            walked += [os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith(".npy")]
    walked = comm.bcast(walked, root=0)

    dirs = [os.path.join(root, s, f"class_{c:02d}") for s in PER_SPLIT for c in range(classes)]
    scanned = []
    for d in dirs[rank::size]:
        with os.scandir(d) as it:
            scanned += [(e.path, e.stat().st_size) for e in it if e.is_file() and e.name.endswith(".npy")]
    scanned = sorted(x for part in comm.allgather(scanned) for x in part)

    want = size * classes * sum(PER_SPLIT.values())
    if len(walked) != want:
        fail(f"os.walk of {root} found {len(walked)} samples, {want} were written")
    if sorted(walked) != [p for p, _ in scanned]:
        fail("os.scandir of the class directories does not list what os.walk found")
    sizes = {s for _, s in scanned}
    if len(sizes) != 1:
        fail(f"samples of different sizes: {sorted(sizes)}")
    with open(os.path.join(root, "classes.txt")) as f:
        if len(f.read().split()) != classes:
            fail("classes.txt does not list every class")
    return walked


def read_epoch(files, classes):
    train = [p for p in files if p.split(os.sep)[-3] == "train"]
    order = np.random.default_rng(7).permutation(len(train))
    sums, counts = np.zeros(classes), np.zeros(classes)
    for i in order[rank::size]:
        split, c, writer, k = parse(train[i])
        x = np.load(train[i])
        if x.shape != SHAPE or not np.array_equal(x, sample(split, c, writer, k)):
            fail(f"{train[i]} does not hold its sample")
        sums[c] += x.mean()
        counts[c] += 1
    total_sums, total_counts = np.zeros(classes), np.zeros(classes)
    comm.Allreduce(sums, total_sums, op=MPI.SUM)
    comm.Allreduce(counts, total_counts, op=MPI.SUM)
    means = total_sums / total_counts
    if np.abs(means - np.arange(classes)).max() > 0.01:
        fail(f"per-class means off: {means}")
    return int(total_counts.sum())


def main():
    root, classes = sys.argv[1], int(sys.argv[2])
    t0 = MPI.Wtime()
    mine = write(root, classes)
    t1 = MPI.Wtime()
    files = index(root, classes)
    t2 = MPI.Wtime()
    n = read_epoch(files, classes)
    t3 = MPI.Wtime()
    comm.Barrier()
    for p in mine:
        os.remove(p)
    if rank == 0:
        print(f"dataset: {len(files)} samples in {2 * classes} class directories; write {t1 - t0:.3f} s, "
              f"index {t2 - t1:.3f} s, epoch of {n} samples {t3 - t2:.3f} s")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one rank's failure must not leave the others in a collective
        fail(f"{type(e).__name__}: {e}")
