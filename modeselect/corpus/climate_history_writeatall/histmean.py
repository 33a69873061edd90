"""Post-processing of an atm_hist history file: checks the header and the file size, then
computes the time-mean temperature field and the wind extrema over all hours and compares
them with the analytic fields the model wrote.

usage: histmean.py HISTORY_FILE
"""
import os
import sys

import numpy as np

HEADER_BYTES = 4096


def fields(hour, nlat, nlon):
    """The model's T, U, V at an hour (as atm_hist.c's field(), in float32)."""
    phi = (np.arange(nlat) + 0.5) * np.pi / nlat - np.pi / 2
    lam = np.arange(nlon) * 2 * np.pi / nlon
    P, L = np.meshgrid(phi, lam, indexing="ij")
    t = 288.0 - 40.0 * np.sin(P) ** 2 + 2.0 * np.cos(L - hour * np.pi / 12)
    u = 20.0 * np.cos(P) + 0.1 * hour
    v = 5.0 * np.sin(2 * L) * np.cos(P) - 0.05 * hour
    return [a.astype(np.float32) for a in (t, u, v)]


def main(path):
    with open(path, "rb") as f:
        head = f.read(HEADER_BYTES)
    if head[:8] != b"ATMHIST1":
        sys.exit(f"histmean: {path}: no history header")
    nlat, nlon, nvars, hours = np.frombuffer(head[8:24], dtype="<i4")
    names = head[64:128].split(b"\0")[0].decode().split()
    expected = HEADER_BYTES + int(hours) * nvars * nlat * nlon * 4
    size = os.path.getsize(path)
    if size != expected:
        sys.exit(f"histmean: {path} has {size} bytes, expected {expected}")

    hist = np.memmap(path, dtype="<f4", mode="r", offset=HEADER_BYTES, shape=(hours, nvars, nlat, nlon))
    tmean = hist[:, 0].astype(np.float64).mean(axis=0)
    want_t = np.zeros((nlat, nlon))
    bad = 0
    for h in range(hours):
        want = fields(h, nlat, nlon)
        want_t += want[0]
        for k in range(nvars):
            wrong = np.count_nonzero(np.abs(hist[h, k] - want[k]) > 1e-3 * np.abs(want[k]).max())
            if wrong:
                print(f"histmean: hour {h} {names[k]}: {wrong} wrong values", file=sys.stderr)
                bad += wrong
    want_t /= hours
    if np.abs(tmean - want_t).max() > 1e-3:
        sys.exit("histmean: the time-mean temperature is off")
    if bad:
        sys.exit(f"histmean: {bad} wrong values in {path}")
    print(f"histmean: {hours} hours, {names}: mean T {tmean.mean():.3f} K "
          f"(min {tmean.min():.2f}, max {tmean.max():.2f}), "
          f"U in [{hist[:, 1].min():.2f}, {hist[:, 1].max():.2f}], V in [{hist[:, 2].min():.2f}, {hist[:, 2].max():.2f}]")


if __name__ == "__main__":
    main(sys.argv[1])
