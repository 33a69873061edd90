#!/usr/bin/env python3
"""One phase of an mdtest-style metadata benchmark in one process.

    md_phase.py PHASE DIR COUNT PREFIX

PHASE: create (empty files PREFIX0..PREFIX<COUNT-1> in DIR, creating DIR if needed), stat, or
remove (the files, then DIR when it is empty). Prints JSON: {"ops": N, "seconds": S}.
Each operation is one system call, so the rate is the file system's, not Python's.
"""
import json
import os
import sys
import time


def main() -> int:
    phase, d, count, prefix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    names = [f"{d}/{prefix}{i}" for i in range(count)]
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
