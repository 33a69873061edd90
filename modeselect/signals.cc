#include "modeselect/evidence.h"

namespace bb::modeselect {
namespace {

// The signals the reducers derive (modeselect/profile/signals.h and the static summary). A new
// signal is one row here.
constexpr SignalInfo kSignals[] = {
    // From a probe profile or a Darshan log.
    {"profile.files_written", "files the job wrote", "count"},
    {"profile.files_read", "files the job read", "count"},
    {"profile.writers_per_file", "mean number of processes writing each written file (1 = N-N, many = N-1)", "count"},
    {"profile.writer_nodes_per_file", "mean number of nodes writing each written file", "count"},
    {"profile.files_per_writer", "mean number of files each writing process wrote", "count"},
    {"profile.shared_write_fraction", "fraction of written bytes that went to files written from more than one node",
     "fraction"},
    {"profile.cross_node_read_fraction", "fraction of read bytes read on a node that wrote none of the file",
     "fraction"},
    {"profile.cross_node_files", "files made or written on one node and used on another", "count"},
    {"profile.cross_node_file_fraction", "fraction of files used on more than one node", "fraction"},
    {"profile.cross_node_dirs", "directories listed on a node while another node made entries in them", "count"},
    {"profile.common_parent_dirs", "directories made on one node that other nodes made entries in", "count"},
    {"profile.cross_rank_read_fraction", "fraction of read bytes read by processes that did not write the file",
     "fraction"},
    {"profile.shared_read_fraction",
     "fraction of read bytes that came from files read by more than one process (on more than one node, when nodes are "
     "known)",
     "fraction"},
    {"profile.bytes_written", "bytes written", "bytes"},
    {"profile.bytes_read", "bytes read", "bytes"},
    {"profile.read_share", "bytes read / (bytes read + bytes written)", "fraction"},
    {"profile.meta_ops", "metadata operations (opens, creates, stats, lookups, unlinks, mkdirs, readdirs)", "count"},
    {"profile.meta_per_mib", "metadata operations per MiB of data moved", "ops/MiB"},
    {"profile.creates", "files and directories created", "count"},
    {"profile.shared_dir_creator_nodes", "most nodes that created entries in one directory", "count"},
    {"profile.shared_dir_meta_share", "share of all operations spent in directories many nodes filled with entries",
     "fraction"},
    {"profile.readdirs", "directory listings", "count"},
    {"profile.stats", "stat calls", "count"},
    {"profile.small_write_fraction", "fraction of write requests below 64 KiB", "fraction"},
    {"profile.small_read_fraction", "fraction of read requests below 64 KiB", "fraction"},
    {"profile.mean_write_size", "mean write request size", "bytes"},
    {"profile.mean_read_size", "mean read request size", "bytes"},
    {"profile.random_fraction", "fraction of reads and writes that were neither sequential nor consecutive",
     "fraction"},
    {"profile.append_fraction", "fraction of write requests on files opened with O_APPEND", "fraction"},
    {"profile.fsyncs", "fsync and fdatasync calls", "count"},
    {"profile.phases", "alternations between write-heavy and read-heavy seconds", "count"},
    {"profile.wall_seconds", "the probe run's wall time", "seconds"},
    {"profile.processes", "processes that did I/O", "count"},
    {"profile.nodes", "nodes whose processes did I/O", "count"},
};

}  // namespace

std::span<const SignalInfo> Signals() { return kSignals; }

const SignalInfo* FindSignal(std::string_view name) {
  for (const SignalInfo& s : kSignals) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

const Signal* Evidence::Find(std::string_view name) const {
  for (const Signal& s : signals) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

double Evidence::Value(std::string_view name, double otherwise) const {
  const Signal* s = Find(name);
  return s ? s->value : otherwise;
}

}  // namespace bb::modeselect
