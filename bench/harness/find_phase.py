#!/usr/bin/python3
"""The IO500 find phase: walks DIR and counts the files newer than TIMESTAMP_FILE, of SIZE
bytes, whose name matches PATTERN (find DIR -newer TS -size SIZEc -name PATTERN). Prints one
JSON line: {"scanned", "matched", "seconds", "rate"} (entries looked at per second, the figure
IO500 scores). Usage: find_phase.py DIR TIMESTAMP_FILE SIZE PATTERN"""
import fnmatch
import json
import os
import sys
import time


def walk(top, newer_than, size, pattern):
    scanned = matched = 0
    stack = [top]
    while stack:
        with os.scandir(stack.pop()) as it:
            for e in it:
                scanned += 1
                st = e.stat(follow_symlinks=False)
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                elif st.st_mtime > newer_than and st.st_size == size and fnmatch.fnmatch(e.name, pattern):
                    matched += 1
    return scanned, matched


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    top, ts, size, pattern = argv[1], argv[2], int(argv[3]), argv[4]
    newer_than = os.stat(ts).st_mtime
    t0 = time.monotonic()
    scanned, matched = walk(top, newer_than, size, pattern)
    seconds = time.monotonic() - t0
    print(json.dumps({"scanned": scanned, "matched": matched, "seconds": seconds,
                      "rate": scanned / seconds if seconds > 0 else 0.0}))


if __name__ == "__main__":
    main(sys.argv)
