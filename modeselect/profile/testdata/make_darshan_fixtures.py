#!/usr/bin/python3
"""Writes the darshan-parser fixtures of modeselect/profile/ (run from this folder).

Darshan is not packaged in Debian, so the fixtures are written here in darshan-parser's own
layout (darshan-util/darshan-parser.c, 3.4): the job header, the log regions, the mount table,
per module a "# <MOD> module data" section whose records print every counter of the module
(POSIX: darshan-posix-log-format.h, version 4; MPI-IO: version 3; STDIO: version 2) as
<module> <rank> <record id> <counter> <value> <file name> <mount pt> <fs type>, tab-separated,
and for --total the summed record as "total_<COUNTER>: <value>". Counts follow Darshan's own
rules: the first access of a rank at offset 0 is neither sequential nor consecutive, a 1 MiB
request falls in the 100K_1M bin (bins include their upper bound), timestamps are seconds from
the job's start.

Jobs:
  nn      IOR -F -C on 4 ranks: rank r writes /scratch/ckpt/rank<r>.dat (16 x 1 MiB, fsync),
          then reads back the file of rank (r + 1) % 4 (16 x 1 MiB).
  n1      IOR -a MPIIO -c on 4 ranks: one shared file (rank -1 records in POSIX and MPI-IO),
          32 collective writes then 32 collective reads of 1 MiB; rank 0 reads a 512-byte
          input file and prints to <STDOUT>.
  meta    mdtest -w 8 on 4 ranks: each rank creates 5 files in /scratch/md, writes 8 bytes,
          stats each twice.
"""
import hashlib

BINS = ["0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"]
POSIX = (["OPENS", "FILENOS", "DUPS", "READS", "WRITES", "SEEKS", "STATS", "MMAPS", "FSYNCS", "FDSYNCS",
          "RENAME_SOURCES", "RENAME_TARGETS", "RENAMED_FROM", "MODE", "BYTES_READ", "BYTES_WRITTEN",
          "MAX_BYTE_READ", "MAX_BYTE_WRITTEN", "CONSEC_READS", "CONSEC_WRITES", "SEQ_READS", "SEQ_WRITES",
          "RW_SWITCHES", "MEM_NOT_ALIGNED", "MEM_ALIGNMENT", "FILE_NOT_ALIGNED", "FILE_ALIGNMENT",
          "MAX_READ_TIME_SIZE", "MAX_WRITE_TIME_SIZE"]
         + ["SIZE_READ_" + b for b in BINS] + ["SIZE_WRITE_" + b for b in BINS]
         + ["STRIDE%d_STRIDE" % i for i in range(1, 5)] + ["STRIDE%d_COUNT" % i for i in range(1, 5)]
         + ["ACCESS%d_ACCESS" % i for i in range(1, 5)] + ["ACCESS%d_COUNT" % i for i in range(1, 5)]
         + ["FASTEST_RANK", "FASTEST_RANK_BYTES", "SLOWEST_RANK", "SLOWEST_RANK_BYTES"])
POSIX_F = ["OPEN_START_TIMESTAMP", "READ_START_TIMESTAMP", "WRITE_START_TIMESTAMP", "CLOSE_START_TIMESTAMP",
           "OPEN_END_TIMESTAMP", "READ_END_TIMESTAMP", "WRITE_END_TIMESTAMP", "CLOSE_END_TIMESTAMP",
           "READ_TIME", "WRITE_TIME", "META_TIME", "MAX_READ_TIME", "MAX_WRITE_TIME",
           "FASTEST_RANK_TIME", "SLOWEST_RANK_TIME", "VARIANCE_RANK_TIME", "VARIANCE_RANK_BYTES"]
MPIIO = (["INDEP_OPENS", "COLL_OPENS", "INDEP_READS", "INDEP_WRITES", "COLL_READS", "COLL_WRITES",
          "SPLIT_READS", "SPLIT_WRITES", "NB_READS", "NB_WRITES", "SYNCS", "HINTS", "VIEWS", "MODE",
          "BYTES_READ", "BYTES_WRITTEN", "RW_SWITCHES", "MAX_READ_TIME_SIZE", "MAX_WRITE_TIME_SIZE"]
         + ["SIZE_READ_AGG_" + b for b in BINS] + ["SIZE_WRITE_AGG_" + b for b in BINS]
         + ["ACCESS%d_ACCESS" % i for i in range(1, 5)] + ["ACCESS%d_COUNT" % i for i in range(1, 5)]
         + ["FASTEST_RANK", "FASTEST_RANK_BYTES", "SLOWEST_RANK", "SLOWEST_RANK_BYTES"])
MPIIO_F = POSIX_F
STDIO = ["OPENS", "FDOPENS", "READS", "WRITES", "SEEKS", "FLUSHES", "BYTES_WRITTEN", "BYTES_READ",
         "MAX_BYTE_READ", "MAX_BYTE_WRITTEN", "FASTEST_RANK", "FASTEST_RANK_BYTES", "SLOWEST_RANK",
         "SLOWEST_RANK_BYTES"]
STDIO_F = ["META_TIME", "WRITE_TIME", "READ_TIME", "OPEN_START_TIMESTAMP", "CLOSE_START_TIMESTAMP",
           "WRITE_START_TIMESTAMP", "READ_START_TIMESTAMP", "OPEN_END_TIMESTAMP", "CLOSE_END_TIMESTAMP",
           "WRITE_END_TIMESTAMP", "READ_END_TIMESTAMP", "FASTEST_RANK_TIME", "SLOWEST_RANK_TIME",
           "VARIANCE_RANK_TIME", "VARIANCE_RANK_BYTES"]
MODULES = {"POSIX": ("POSIX", POSIX, POSIX_F, 4), "MPI-IO": ("MPIIO", MPIIO, MPIIO_F, 3),
           "STDIO": ("STDIO", STDIO, STDIO_F, 2)}
MIB = 1 << 20


def rid(path):
    return int.from_bytes(hashlib.sha1(path.encode()).digest()[:8], "big")


def mount(path):
    return ("/scratch", "fuse.bbfs") if path.startswith("/scratch") else ("UNKNOWN", "UNKNOWN")


def bin_of(size):
    for i, upper in enumerate([100, 1024, 10240, 102400, MIB, 4 * MIB, 10 * MIB, 100 * MIB, 1 << 30]):
        if size <= upper:
            return BINS[i]
    return BINS[-1]


def record(module, rank, path, **c):
    """A record: every counter 0 but those given (F counters by their name after F_)."""
    return {"module": module, "rank": rank, "path": path, "c": c}


def accesses(sizes_offsets, kind):
    """Darshan's counters for one rank's sequence of (offset, size) accesses of one kind."""
    out = {"READS" if kind == "r" else "WRITES": len(sizes_offsets)}
    last, consec, seq, hist, top = 0, 0, 0, {}, 0
    for off, size in sizes_offsets:
        consec += off == last + 1 if last else 0
        seq += off > last
        last = off + size - 1
        top = max(top, last)
        key = ("SIZE_READ_" if kind == "r" else "SIZE_WRITE_") + bin_of(size)
        hist[key] = hist.get(key, 0) + 1
    pre = "READ" if kind == "r" else "WRITE"
    out.update({"CONSEC_" + pre + "S": consec, "SEQ_" + pre + "S": seq,
                "BYTES_" + ("READ" if kind == "r" else "WRITTEN"): sum(s for _, s in sizes_offsets),
                "MAX_BYTE_" + ("READ" if kind == "r" else "WRITTEN"): top}, **hist)
    return out


def header(exe, nprocs, run_time, modules):
    start = 1764583200
    lines = ["# darshan log version: 3.41", "# compression method: ZLIB", "# exe: " + exe, "# uid: 1000",
             "# jobid: 4711", "# start_time: %d" % start, "# start_time_asci: Mon Dec  1 10:00:00 2025",
             "# end_time: %d" % (start + int(run_time)),
             "# end_time_asci: Mon Dec  1 10:00:%02d 2025" % int(run_time), "# nprocs: %d" % nprocs,
             "# run time: %.4f" % run_time, "# metadata: lib_ver = 3.4.6", "# metadata: h = romio_no_indep_rw=true",
             "", "# log file regions", "# -------------------------------------------------------",
             "# header: 760 bytes (uncompressed)", "# job data: 229 bytes (compressed)",
             "# record table: 158 bytes (compressed)"]
    for m in modules:
        lines.append("# %s module: 512 bytes (compressed), ver=%d" % (m, MODULES[m][3]))
    lines += ["", "# mounted file systems (mount point and fs type)",
              "# -------------------------------------------------------",
              "# mount entry:\t/scratch\tfuse.bbfs", "# mount entry:\t/\text4"]
    return lines


def description(module):
    prefix = MODULES[module][0]
    return ["", "# description of %s counters:" % prefix, "#   %s_*: %s operation counts." % (prefix, module),
            "#   %s_BYTES_*: total bytes read and written." % prefix,
            "#   %s_F_*_START_TIMESTAMP: timestamp of first open/read/write/close." % prefix]


def counter_lines(rec):
    prefix, ints, floats, _ = MODULES[rec["module"]]
    mnt, fs = mount(rec["path"])
    out = []
    for name in ints:
        out.append("%s\t%d\t%d\t%s_%s\t%d\t%s\t%s\t%s" % (rec["module"], rec["rank"], rid(rec["path"]), prefix, name,
                                                          rec["c"].get(name, 0), rec["path"], mnt, fs))
    for name in floats:
        out.append("%s\t%d\t%d\t%s_F_%s\t%f\t%s\t%s\t%s" % (rec["module"], rec["rank"], rid(rec["path"]), prefix,
                                                            name, rec["c"].get("F_" + name, 0.0), rec["path"], mnt,
                                                            fs))
    return out


def total(records, module):
    prefix, ints, floats, _ = MODULES[module]
    t = {}
    for rec in records:
        if rec["module"] != module:
            continue
        for name in ints:
            v = rec["c"].get(name, 0)
            t[name] = max(t.get(name, 0), v) if name.startswith("MAX_BYTE") else t.get(name, 0) + v
        for name in floats:
            v = rec["c"].get("F_" + name, 0.0)
            if "START" in name:
                t[name] = min(t.get(name, v) or v, v) if v else t.get(name, 0.0)
            elif "END" in name:
                t[name] = max(t.get(name, 0.0), v)
            else:
                t[name] = t.get(name, 0.0) + v
    return (["total_%s_%s: %d" % (prefix, n, t.get(n, 0)) for n in ints]
            + ["total_%s_F_%s: %f" % (prefix, n, t.get(n, 0.0)) for n in floats])


def write(name, exe, nprocs, run_time, records, form):
    modules = [m for m in MODULES if any(r["module"] == m for r in records)]
    lines = header(exe, nprocs, run_time, modules)
    if form == "base":
        lines += ["", "# description of columns:", "#   <module>: module responsible for this I/O record.",
                  "#   <rank>: MPI rank.  -1 indicates that the file is shared",
                  "#      across all processes and statistics are aggregated.",
                  "#   <record id>: hash of the record's file path",
                  "#   <counter name> and <counter value>: statistical counters.",
                  "#      A value of -1 indicates that Darshan could not monitor",
                  "#      that counter, and its value should be ignored.",
                  "#   <file name>: full file path for the record.",
                  "#   <mount pt>: mount point that the file resides on.",
                  "#   <fs type>: type of file system that the file resides on."]
    for m in modules:
        lines += ["", "# *******************************************************", "# %s module data" % m,
                  "# *******************************************************"]
        if form == "base":
            lines += description(m)
            lines += ["", "#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs type>"]
            for rec in records:
                if rec["module"] == m:
                    lines += counter_lines(rec)
        else:
            lines += description(m) + [""] + total(records, m)
    with open(name, "w") as f:
        f.write("\n".join(lines) + "\n")
    return lines


def nn():
    recs = []
    for r in range(4):
        w = accesses([(i * MIB, MIB) for i in range(16)], "w")
        recs.append(record("POSIX", r, "/scratch/ckpt/rank%d.dat" % r, OPENS=1, STATS=1, FSYNCS=1, MODE=420,
                           F_OPEN_START_TIMESTAMP=0.4 + r / 100, F_WRITE_START_TIMESTAMP=0.5,
                           F_WRITE_END_TIMESTAMP=2.5, F_CLOSE_END_TIMESTAMP=2.6 + r / 100, F_WRITE_TIME=1.9,
                           F_META_TIME=0.05, **w))
    for r in range(4):
        rd = accesses([(i * MIB, MIB) for i in range(16)], "r")
        recs.append(record("POSIX", r, "/scratch/ckpt/rank%d.dat" % ((r + 1) % 4), OPENS=1, MODE=420,
                           F_OPEN_START_TIMESTAMP=3.0, F_READ_START_TIMESTAMP=3.1, F_READ_END_TIMESTAMP=5.1,
                           F_CLOSE_END_TIMESTAMP=5.2, F_READ_TIME=1.8, F_META_TIME=0.02, **rd))
    recs.sort(key=lambda x: x["rank"])
    return "/scratch/bin/ior -a POSIX -F -C -w -r -e -t 1m -b 16m -o /scratch/ckpt/rank", 4, 6.2, recs


def n1():
    w = accesses([(k * 4 * MIB + r * MIB, MIB) for r in range(4) for k in range(8)], "w")
    w["SEQ_WRITES"] = 31  # per rank: only rank 0's first write (at 0) is not sequential
    w["CONSEC_WRITES"] = 0
    rd = accesses([(k * 4 * MIB + r * MIB, MIB) for r in range(4) for k in range(8)], "r")
    rd["SEQ_READS"], rd["CONSEC_READS"] = 31, 0
    recs = [
        record("POSIX", -1, "/scratch/shared.dat", OPENS=8, STATS=4, FSYNCS=4, MODE=436, F_OPEN_START_TIMESTAMP=0.9,
               F_WRITE_START_TIMESTAMP=1.0, F_WRITE_END_TIMESTAMP=3.0, F_READ_START_TIMESTAMP=4.0,
               F_READ_END_TIMESTAMP=6.0, F_CLOSE_END_TIMESTAMP=6.1, F_WRITE_TIME=7.5, F_READ_TIME=7.0,
               F_META_TIME=0.3, FASTEST_RANK=2, FASTEST_RANK_BYTES=16 * MIB, SLOWEST_RANK=0,
               SLOWEST_RANK_BYTES=16 * MIB, **{**w, **rd}),
        record("POSIX", 0, "/scratch/input.cfg", OPENS=1, STATS=1, F_OPEN_START_TIMESTAMP=0.1,
               F_READ_START_TIMESTAMP=0.2, F_READ_END_TIMESTAMP=0.2, F_CLOSE_END_TIMESTAMP=0.3,
               **accesses([(0, 512)], "r")),
        record("MPI-IO", -1, "/scratch/shared.dat", COLL_OPENS=8, COLL_WRITES=32, COLL_READS=32, SYNCS=4, HINTS=4,
               VIEWS=8, MODE=9, BYTES_WRITTEN=32 * MIB, BYTES_READ=32 * MIB, SIZE_WRITE_AGG_100K_1M=32,
               SIZE_READ_AGG_100K_1M=32, F_OPEN_START_TIMESTAMP=0.9, F_WRITE_START_TIMESTAMP=1.0,
               F_WRITE_END_TIMESTAMP=3.0, F_READ_START_TIMESTAMP=4.0, F_READ_END_TIMESTAMP=6.0,
               F_CLOSE_END_TIMESTAMP=6.1),
        record("STDIO", 0, "<STDOUT>", WRITES=40, BYTES_WRITTEN=3000, MAX_BYTE_WRITTEN=2999,
               F_WRITE_START_TIMESTAMP=0.05, F_WRITE_END_TIMESTAMP=6.2),
    ]
    return "/scratch/bin/ior -a MPIIO -c -w -r -t 1m -b 8m -s 1 -o /scratch/shared.dat", 4, 6.4, recs


def meta():
    recs = []
    for r in range(4):
        for i in range(5):
            t0 = 0.2 + r * 0.01 + i * 0.05
            recs.append(record("POSIX", r, "/scratch/md/file.mdtest.%d.%d" % (r, i), OPENS=1, STATS=2, MODE=436,
                               F_OPEN_START_TIMESTAMP=t0, F_WRITE_START_TIMESTAMP=t0 + 0.001,
                               F_WRITE_END_TIMESTAMP=t0 + 0.001, F_CLOSE_END_TIMESTAMP=t0 + 0.002,
                               F_META_TIME=0.004, **accesses([(0, 8)], "w")))
    return "/scratch/bin/mdtest -F -w 8 -n 5 -d /scratch/md", 4, 1.3, recs


if __name__ == "__main__":
    for job, make in (("nn", nn), ("n1", n1), ("meta", meta)):
        exe, nprocs, run_time, recs = make()
        for form in ("base", "total"):
            lines = write("darshan_%s_%s.txt" % (job, form), exe, nprocs, run_time, recs, form)
            if job == "nn" and form == "base":
                # Truncated in the middle of a record line (line 260), and one value garbled (line 150).
                with open("darshan_truncated.txt", "w") as f:
                    f.write("\n".join(lines[:259]) + "\n" + lines[259][:40])
                garbled = list(lines)
                garbled[149] = garbled[149].replace("\t1048576\t", "\t10485 76\t").replace("\t0\t/", "\t0x1f\t/")
                with open("darshan_garbled.txt", "w") as f:
                    f.write("\n".join(garbled) + "\n")
