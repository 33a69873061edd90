#!/usr/bin/env python3
"""What a file per chunk costs the backing file system, against sparse files.

8 threads each write 512 chunks of 512 KiB (2 GiB in all) into DIR, first as one new file per
chunk (the layout of GekkoFS), then into one sparse file per thread at the offsets the chunks
would have; the files are removed after each pass, and the passes alternate ROUNDS times. It
prints MiB/s of each pass. The data stays in the page cache (no fsync), so what is measured is
the CPU the file system spends per chunk: creating an inode and a directory entry, or not.

    bench/store/file_per_chunk.py DIR [ROUNDS]     (DIR on the file system to measure; emptied)
"""
import os
import shutil
import sys
import threading
import time

CHUNK = 512 * 1024
THREADS = 8
CHUNKS = 512


def write(base, k, per_chunk):
    d = os.path.join(base, f"d{k}")
    os.makedirs(d, exist_ok=True)
    buf = b"x" * CHUNK
    if per_chunk:
        for i in range(CHUNKS):
            fd = os.open(os.path.join(d, str(i)), os.O_CREAT | os.O_RDWR | os.O_EXCL, 0o600)
            os.pwrite(fd, buf, 0)
            os.close(fd)
    else:
        fd = os.open(os.path.join(d, "all"), os.O_CREAT | os.O_RDWR, 0o600)
        for i in range(CHUNKS):
            os.pwrite(fd, buf, i * 4 * CHUNK)  # every 4th chunk, as a node of 4 holds them
        os.close(fd)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    base = os.path.join(sys.argv[1], "bb-file-per-chunk")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    os.makedirs(base, exist_ok=True)
    try:
        for _ in range(rounds):
            for per_chunk in (True, False):
                t = time.time()
                threads = [threading.Thread(target=write, args=(base, k, per_chunk)) for k in range(THREADS)]
                for th in threads:
                    th.start()
                for th in threads:
                    th.join()
                seconds = time.time() - t
                print(f"{'file per chunk' if per_chunk else 'sparse files  '}: "
                      f"{THREADS * CHUNKS * CHUNK / 2**20 / seconds:6.0f} MiB/s")
                for entry in os.listdir(base):
                    shutil.rmtree(os.path.join(base, entry))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
