#!/usr/bin/env python3
"""Samples a daemon's QoS channels through its control socket and writes per-job rates.

    qos_sample.py SOCKET SECONDS INTERVAL CLASS OUT.csv

Every INTERVAL seconds it asks the daemon for its statistics and writes, per job, the units
the stage admitted since the previous sample divided by the time between the two samples on
the daemon's own clock: CSV "t,job,rate" with t in seconds since the first sample.
"""
import csv
import json
import socket
import sys
import time


def stats(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    s.sendall(b'{"cmd":"stats"}\n')
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return json.loads(data)


def main():
    path, seconds, interval, cls, out = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
    rows = []
    prev = None
    t0 = None
    end = time.monotonic() + seconds
    next_at = time.monotonic()
    while time.monotonic() < end:
        s = stats(path)
        now = s["time_ns"] / 1e9
        units = {c["job"]: c["units"] for c in s["qos"]["channels"] if c["class"] == cls}
        if prev is not None:
            dt = now - prev[0]
            for job, u in units.items():
                rows.append((round(now - t0, 3), job, (u - prev[1].get(job, 0)) / dt))
        else:
            t0 = now
        prev = (now, units)
        next_at += interval
        time.sleep(max(0.0, next_at - time.monotonic()))
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t", "job", "rate"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
