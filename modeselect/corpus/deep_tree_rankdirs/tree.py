"""Per-task deep directory trees: every task builds its own tree under ROOT/task<rank>
(DEPTH levels, FANOUT subdirectories per level, FILES small files in every leaf), walks it
with os.walk and checks every file, then removes it.

usage: python3 tree.py ROOT DEPTH FANOUT FILES
"""
import os
import shutil
import sys
import time


def task_rank():
    # mpiexec (Open MPI) sets OMPI_COMM_WORLD_RANK; srun sets SLURM_PROCID; PMI_RANK for others.
    for var in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"):
        if var in os.environ:
            return int(os.environ[var])
    return 0


# An earlier version had rank 0 do os.makedirs(os.path.join(root, "shared")) and every task
# open(f"{root}/shared/{rank}.txt", "w") there; now each task stays in its own tree.
def build(path, depth, fanout, files, counter):
    os.makedirs(path, exist_ok=True)
    if depth == 0:
        for i in range(files):
            with open(os.path.join(path, "leaf%02d.txt" % i), "w") as f:
                f.write("%s %d\n" % (path, i))
            counter[0] += 1
        return
    for b in range(fanout):
        build(os.path.join(path, "d%d" % b), depth - 1, fanout, files, counter)


def verify(root):
    seen = 0
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            with open(os.path.join(dirpath, name)) as f:
                text = f.read()
            if text != "%s %d\n" % (dirpath, int(name[4:6])):
                raise SystemExit("tree.py: %s/%s has unexpected content" % (dirpath, name))
            seen += 1
    return seen


def main():
    root, depth, fanout, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rank = task_rank()
    mine = os.path.join(root, "task%03d" % rank)
    t0 = time.time()
    made = [0]
    build(mine, depth, fanout, files, made)
    t1 = time.time()
    seen = verify(mine)
    t2 = time.time()
    shutil.rmtree(mine)
    t3 = time.time()
    if seen != made[0]:
        raise SystemExit("tree.py[%d]: walked %d files, made %d" % (rank, seen, made[0]))
    print("task %d: %d files in %d-deep tree; build %.2fs walk %.2fs remove %.2fs"
          % (rank, seen, depth, t1 - t0, t2 - t1, t3 - t2))


if __name__ == "__main__":
    main()
