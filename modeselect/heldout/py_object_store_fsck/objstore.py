"""A content-addressed object store (git/restic style) shared by all tasks of the job.

  put:  every task stores OBJECTS blobs: the name is the SHA-256 of the content, the object
        goes to objects/<first two hex digits>/<rest> (the fan-out directory made on demand
        by whoever needs it first), written to a temporary name and renamed; a blob that is
        already there is not written again. Each task records its object ids in refs/.
  fsck: every task walks the whole store with os.walk, checks that every ref names an object,
        and re-hashes the objects in its share of the fan-out directories.
  gc:   the objects named by no ref of a kept task (even ranks keep theirs) are removed, then
        the whole store is removed by task 0 (shutil.rmtree) after the others are done.

usage: objstore.py put|fsck|gc STORE OBJECTS
"""
import hashlib
import os
import shutil
import sys

RANK = int(os.environ.get("SLURM_PROCID", "0"))
NTASKS = int(os.environ.get("SLURM_NTASKS", "1"))


def blob(rank, i):
    # a quarter of the blobs are the same for every task (shared dependencies): deduplicated
    src = f"common {i}" if i % 4 == 0 else f"task {rank} blob {i}"
    return (src + "\n").encode() * (20 + i % 30)


def obj_path(store, oid):
    return os.path.join(store, "objects", oid[:2], oid[2:])


def put(store, n):
    os.makedirs(os.path.join(store, "refs"), exist_ok=True)
    ids, written = [], 0
    for i in range(n):
        data = blob(RANK, i)
        oid = hashlib.sha256(data).hexdigest()
        path = obj_path(store, oid)
        ids.append(oid)
        if os.path.exists(path):
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.tmp{RANK}"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        written += 1
    ref = os.path.join(store, "refs", f"task{RANK:03d}")
    with open(ref + ".tmp", "w") as f:
        f.write("\n".join(ids) + "\n")
    os.replace(ref + ".tmp", ref)
    print(f"put: task {RANK} stored {n} blobs, {written} new")


def fsck(store, n):
    found, bad = set(), 0
    for dirpath, dirnames, filenames in os.walk(os.path.join(store, "objects")):
        fan = os.path.basename(dirpath)
        for name in filenames:
            found.add(fan + name)
            if len(fan) == 2 and int(fan, 16) % NTASKS == RANK:
                with open(os.path.join(dirpath, name), "rb") as f:
                    bad += hashlib.sha256(f.read()).hexdigest() != fan + name
    refs = 0
    for ref in sorted(os.listdir(os.path.join(store, "refs"))):
        with open(os.path.join(store, "refs", ref)) as f:
            for oid in f.read().split():
                refs += 1
                bad += oid not in found
    if refs != n * NTASKS:
        bad += 1
    print(f"fsck: task {RANK} saw {len(found)} objects, {refs} refs, {bad} bad")
    return 1 if bad else 0


def gc(store, n):
    if RANK % 2 == 1:  # odd tasks drop their refs; their private objects go
        os.unlink(os.path.join(store, "refs", f"task{RANK:03d}"))
        for i in range(n):
            if i % 4 != 0:
                os.unlink(obj_path(store, hashlib.sha256(blob(RANK, i)).hexdigest()))
    return 0


def main():
    cmd, store, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if cmd == "rmtree":
        kept = sum(len(files) for _, _, files in os.walk(os.path.join(store, "objects")))
        shutil.rmtree(store)
        print(f"rmtree: {kept} objects left after gc, store removed")
        sys.exit(0)
    sys.exit({"put": put, "fsck": fsck, "gc": gc}[cmd](store, n) or 0)


if __name__ == "__main__":
    main()
