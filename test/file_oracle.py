#!/usr/bin/env python3
"""One file's data and size against a model, in the manner of fsx.

Usage: file_oracle.py FILE OPS SEED [--max-size BYTES] [--max-op BYTES]

Runs OPS random operations on FILE (made anew) through the mount: writes at any offset
(pwrite, also past the end), reads (pread), truncates up and down (ftruncate), fallocate plain
and KEEP_SIZE, reads and writes through a shared mapping (mmap + msync), fsync, and a close and
reopen now and then. After every operation the file's size (fstat) must be the model's, and
every read must return the model's bytes. Sizes and offsets cross chunk boundaries when the
workspace's chunks are smaller than --max-size (the test uses 64 KiB chunks).

Prints "FAIL <op number> <what>" and exits 1 at the first difference (with the last 20
operations before it), else prints "ok <ops> <size> <sha256>" so that the caller can compare
the file as other nodes read it.
"""

import argparse
import collections
import ctypes
import hashlib
import mmap
import os
import random
import sys

FALLOC_FL_KEEP_SIZE = 1
_libc = ctypes.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]


def fallocate(fd, mode, offset, length):
    if _libc.fallocate(fd, mode, offset, length) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


class Oracle:
    def __init__(self, path, seed, max_size, max_op):
        self.path = path
        self.rng = random.Random(seed)
        self.max_size = max_size
        self.max_op = max_op
        self.model = bytearray()
        self.log = collections.deque(maxlen=20)
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)

    def fail(self, n, what):
        print(f"FAIL {n} {what}")
        for line in self.log:
            print("  " + line)
        sys.exit(1)

    def span(self, within=None):
        limit = self.max_size if within is None else within
        offset = self.rng.randrange(0, max(1, limit))
        length = self.rng.randrange(1, self.max_op + 1)
        if within is not None:
            length = min(length, within - offset)
        return offset, length

    def write(self):
        offset, length = self.span()
        data = self.rng.randbytes(length)
        os.pwrite(self.fd, data, offset)
        if offset > len(self.model):
            self.model.extend(bytes(offset - len(self.model)))
        self.model[offset:offset + length] = data
        return f"write {offset:#x} +{length:#x}"

    def read(self, n):
        offset, length = self.span()
        got = os.pread(self.fd, length, offset)
        want = bytes(self.model[offset:offset + length])
        if got != want:
            first = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
            self.fail(n, f"read {offset:#x} +{length:#x}: {len(got)} bytes, want {len(want)}; "
                      f"first difference at {offset + first:#x}")
        return f"read {offset:#x} +{length:#x}"

    def truncate(self):
        size = self.rng.randrange(0, self.max_size + 1)
        os.ftruncate(self.fd, size)
        if size < len(self.model):
            del self.model[size:]
        else:
            self.model.extend(bytes(size - len(self.model)))
        return f"truncate {size:#x}"

    def fallocate(self):
        offset, length = self.span()
        keep = self.rng.random() < 0.5
        fallocate(self.fd, FALLOC_FL_KEEP_SIZE if keep else 0, offset, length)
        if not keep and offset + length > len(self.model):
            self.model.extend(bytes(offset + length - len(self.model)))
        return f"fallocate {offset:#x} +{length:#x}{' keep_size' if keep else ''}"

    def mapped(self, n, writing):
        size = len(self.model)
        if size == 0:
            return "map (empty file)"
        offset, length = self.span(size)
        with mmap.mmap(self.fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE) as m:
            if writing:
                data = self.rng.randbytes(length)
                m[offset:offset + length] = data
                m.flush()
                self.model[offset:offset + length] = data
            elif m[offset:offset + length] != self.model[offset:offset + length]:
                self.fail(n, f"mapped read {offset:#x} +{length:#x} differs")
        return f"map{'write' if writing else 'read'} {offset:#x} +{length:#x}"

    def reopen(self):
        os.close(self.fd)
        self.fd = os.open(self.path, os.O_RDWR)
        return "close, open"

    def step(self, n):
        r = self.rng.random()
        if r < 0.30:
            what = self.write()
        elif r < 0.55:
            what = self.read(n)
        elif r < 0.65:
            what = self.truncate()
        elif r < 0.73:
            what = self.fallocate()
        elif r < 0.81:
            what = self.mapped(n, writing=False)
        elif r < 0.89:
            what = self.mapped(n, writing=True)
        elif r < 0.94:
            os.fsync(self.fd)
            what = "fsync"
        else:
            what = self.reopen()
        self.log.append(f"{n}: {what}")
        size = os.fstat(self.fd).st_size
        if size != len(self.model):
            self.fail(n, f"size {size:#x} after {what}, want {len(self.model):#x}")

    def finish(self, ops):
        os.close(self.fd)
        with open(self.path, "rb") as f:
            data = f.read()
        if data != self.model:
            self.fail(ops, f"the file read whole differs ({len(data)} bytes, want {len(self.model)})")
        print(f"ok {ops} {len(self.model)} {hashlib.sha256(self.model).hexdigest()}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("ops", type=int)
    p.add_argument("seed", type=int)
    p.add_argument("--max-size", type=int, default=1 << 20)
    p.add_argument("--max-op", type=int, default=160 << 10)
    a = p.parse_args()
    o = Oracle(a.file, a.seed, a.max_size, a.max_op)
    for n in range(1, a.ops + 1):
        try:
            o.step(n)
        except OSError as e:
            o.fail(n, f"{e} (the operations before it follow)")
    o.finish(a.ops)


if __name__ == "__main__":
    main()
