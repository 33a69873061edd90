// ProfileSignals: a Profile (modeselect/profile/profile.h) reduced to the "profile.*" signals
// of the table in modeselect/signals.cc — the numbers that decide a layout — each with a `why`
// citing the numbers and a file or directory ("1 of 2 files ... : /data (written on 1, used on 2)").
//
// A signal is absent, not zero, when the source cannot see it (node fields and directories:
// probe only; files: not in darshan --total) or when it is a ratio of nothing (read_share of a
// job that moved no bytes). Sources: P = probe, B = darshan --base, T = darshan --total.
//
// Terms. A file is written when its writes or bytes written (STDIO's included) are > 0, read
// likewise. Its writer count w(f) = max(|writers|, shared_writers) and reader count
// r(f) = max(|readers|, shared_readers): the named processes, or Darshan's estimate for a rank -1
// record (profile.h). A file is made on M = created_on + writer_nodes and used on U = opened_on +
// reader_nodes + stat_nodes + writer_nodes. Per-file sums are over every file: a document's
// summary (summary.h: each file's measures summed by class, so the sums are the same however
// files are grouped), or Profile::files when there is none; "totals" are Profile::totals.
//
//   files_written, files_read      P B    files written / read
//   writers_per_file               P B    mean w(f) over written files (1 = N-N, more = N-1)
//   writer_nodes_per_file          P      mean |writer_nodes| over written files
//   files_per_writer               P B    sum of w(f) over written files / distinct writer
//                                         processes (B: at least the largest shared_writers)
//   shared_write_fraction          P      bytes written to files with |writer_nodes| > 1 / bytes
//                                         written (per-file sums)
//   cross_node_read_fraction       P      bytes read on a node that wrote none of the file, of
//                                         files some node wrote / bytes read (per-file sums). A
//                                         version 1 document does not say what each node read:
//                                         a file's read bytes count as split evenly over its
//                                         reader nodes R, bytes read x |R - W| / |R|. A node that
//                                         reads a file it wrote part of reads its own
//   cross_node_files               P      files with M not empty and |M + U| > 1: made on one node
//                                         and used on another (with several makers, any use).
//                                         Node-local mode would show each node its own copy
//   cross_node_file_fraction       P      files used on more than one node (|M + U| > 1) / files
//   cross_node_dirs                P      directories but "/" listed on a node l while a node
//                                         other than l made entries in them: the listing would
//                                         differ in node-local mode. Entries that nodes add to a
//                                         common parent (mkdir -p run; run/task$RANK) are not
//                                         sharing; a node using an entry another made is, and
//                                         counts as the entry's (cross_node_files)
//   common_parent_dirs             P      directories but "/" made in the run on one node that
//                                         other nodes made entries in. Not sharing by itself: in
//                                         node-local mode each node has its own copy, which works
//                                         when every node makes it (mkdir -p run) and fails with
//                                         ENOENT when the nodes rely on the one node that made it
//                                         (mdtest's test directory); the profile cannot tell which
//   cross_rank_read_fraction       P B    bytes read from a file by processes that did not write
//                                         it (a reader's own bytes when known (B), else an even
//                                         share of the file's) / bytes read (per-file sums). Files
//                                         with a rank -1 record (B) name no ranks and count as not
//                                         cross-rank: a lower bound there
//   shared_read_fraction           P B    bytes read from files with r(f) > 1 and, when the
//                                         source names nodes (P), |reader_nodes| > 1 / bytes
//                                         read: input that several nodes read, not a file the
//                                         processes of one node pass along (make, then tar)
//   bytes_written, bytes_read      P B T  totals, STDIO's stream bytes included
//   read_share                     P B T  bytes read / (bytes read + bytes written)
//   meta_ops                       P B T  totals.meta_ops (profile.h says what B and T count)
//   meta_per_mib                   P B T  meta_ops / max(1, MiB read and written): a job that
//                                         moves under 1 MiB gets its op count
//   creates, readdirs              P      totals
//   shared_dir_creator_nodes       P      the most entry_nodes of one directory ("/" included)
//   shared_dir_meta_share          P      the metadata operations of contended directories —
//                                         entries created from >= 2 nodes, >= 64 creates
//                                         (summary.h) — their creates, unlinks, lookups and
//                                         listings and the opens and stats of the files in them,
//                                         / (meta_ops + data_ops): how much of the job a create
//                                         storm in a flat directory is ("/" included)
//   stats, fsyncs                  P B T  totals
//   small_write_fraction,          P B T  (bins 0-100 + 100-1K + 1K-10K + 0.6 x 10K-100K) / all
//   small_read_fraction                   binned requests: "small" is below 64 KiB, and the
//                                         10K-100K bin counts 0.6 = (64K - 10K) / (100K - 10K)
//                                         small, as if its sizes were uniform
//   mean_write_size, mean_read_size P B T totals' request bytes / requests (STDIO's not counted)
//   random_fraction                P B T  (reads + writes - seq_reads - seq_writes) / (reads +
//                                         writes): neither sequential nor consecutive
//   append_fraction                P      append_writes / writes
//   phases                         P B    switches between write-heavy (more bytes written than
//                                         read) and read-heavy seconds of the timeline, seconds
//                                         with equal bytes skipped (B: the estimated timeline)
//   wall_seconds                   P B T  the job's wall time (Darshan: "# run time:")
//   processes                      P B    distinct processes that read or wrote a file (B: at
//                                         least the largest rank -1 estimate)
//   nodes                          P      distinct nodes named by any file's or directory's lists
//
// Requests: the probe counts what the file system saw — the kernel merges reads and reads ahead,
// so its reads look larger and more sequential than the application's calls, which are what
// Darshan counts. Darshan's bins include their upper bound (1 MiB is in 100K-1M), the probe's
// do not (1 MiB is in 1M-4M); the 64 KiB cut is unaffected.
//
// Darshan's MPI-IO calls (independent, collective) are in Profile::totals.mpiio and per file;
// no signal reads them: the layout modes differ in placement, not in how MPI-IO batches calls.
//
// Cost: linear in the files and directories listed and the classes (10,000 files: a few
// milliseconds; a version 2 document of any size lists at most a few hundred).
//
// Thread-safety: a pure function.
#pragma once

#include <vector>

#include "modeselect/evidence.h"
#include "modeselect/profile/profile.h"

namespace bb::modeselect {

// The signals of `p`, in the order of the signal table (Signals()), each named there.
std::vector<Signal> ProfileSignals(const Profile& p);

}  // namespace bb::modeselect
