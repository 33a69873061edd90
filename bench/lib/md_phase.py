#!/usr/bin/env python3
"""One phase of an mdtest-style metadata benchmark in one process.

    md_phase.py PHASE DIR COUNT PREFIX
    md_phase.py statloop DIR COUNT PREFIX SECONDS PROCS

PHASE: create (empty files PREFIX0..PREFIX<COUNT-1> in DIR, creating DIR if needed), stat, or
remove (the files, then DIR when it is empty); statloop: PROCS processes stat the files round
and round for SECONDS. Prints JSON: {"ops": N, "seconds": S}.
Each operation is one system call, so the rate is the file system's, not Python's.
"""
import json
import os
import sys
import time


def statloop(names, seconds, procs):
    """Each of `procs` processes stats `names` in turn for `seconds`; returns all their stats."""
    pipes = []
    for p in range(procs):
        r, w = os.pipe()
        if os.fork() == 0:
            os.close(r)
            n, i, end = 0, p * 7919, time.monotonic() + seconds
            while time.monotonic() < end:
                for _ in range(64):
                    os.stat(names[i % len(names)])
                    i += 1
                n += 64
            os.write(w, str(n).encode())
            os._exit(0)
        os.close(w)
        pipes.append(r)
    total = 0
    for r in pipes:
        total += int(os.read(r, 64) or b"0")
        os.close(r)
    for _ in pipes:
        os.wait()
    return total


def main() -> int:
    phase, d, count, prefix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    names = [f"{d}/{prefix}{i}" for i in range(count)]
    if phase == "statloop":
        seconds, procs = float(sys.argv[5]), int(sys.argv[6])
        print(json.dumps({"ops": statloop(names, seconds, procs), "seconds": seconds}))
        return 0
    if phase == "create":
        os.makedirs(d, exist_ok=True)
    start = time.monotonic()
    if phase == "create":
        for n in names:
            os.close(os.open(n, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644))
    elif phase == "stat":
        for n in names:
            os.stat(n)
    elif phase == "remove":
        for n in names:
            os.unlink(n)
    else:
        print(f"md_phase.py: unknown phase {phase}", file=sys.stderr)
        return 2
    seconds = time.monotonic() - start
    if phase == "remove":
        try:
            os.rmdir(d)
        except OSError:
            pass  # a shared directory: the last remover takes it
    print(json.dumps({"ops": count, "seconds": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
