// A scanned darshan-parser log as a Profile: records grouped by file (record id), modules
// combined as modeselect/profile/profile.h describes, ranks named, the timeline estimated.

#include <algorithm>
#include <map>
#include <unordered_map>

#include "modeselect/profile/darshan_log.h"

namespace bb::modeselect::darshan {
namespace {

constexpr int64_t kMaxSeconds = 86400;  // as the daemons' timeline: a day

uint64_t U(double v) { return v >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(v); }  // v >= 0 (darshan_text.cc)

constexpr uint64_t IoCounts::*kSums[] = {
    &IoCounts::opens,         &IoCounts::reads,     &IoCounts::writes,       &IoCounts::bytes_read,
    &IoCounts::bytes_written, &IoCounts::seq_reads, &IoCounts::consec_reads, &IoCounts::seq_writes,
    &IoCounts::consec_writes, &IoCounts::seeks,     &IoCounts::stats,        &IoCounts::fsyncs,
    &IoCounts::truncates,     &IoCounts::renames,   &IoCounts::unlinks,      &IoCounts::append_writes};

void AddIo(const IoCounts& from, IoCounts* to) {
  for (auto m : kSums) to->*m += from.*m;
  for (size_t b = 0; b < kSizeBinCount; ++b) {
    to->read_sizes[b] += from.read_sizes[b];
    to->write_sizes[b] += from.write_sizes[b];
  }
  to->max_offset = std::max(to->max_offset, from.max_offset);
}

void AddMaxOffset(const Counters& v, IoCounts* io) {
  if (v[kBytesRead] + v[kBytesWritten] > 0) {
    io->max_offset = std::max(io->max_offset, U(std::max(v[kMaxByteRead], v[kMaxByteWritten])) + 1);
  }
}

// `counted` + 1 when it is below `all`: Darshan counts a record's first access at offset 0 as
// neither sequential nor consecutive, the probe counts it as both.
uint64_t WithFirst(double counted, double all, bool first_fix) {
  return U(counted) + (first_fix && counted < all ? 1 : 0);
}

// `first_fix`: `v` is one record (one rank or rank -1), not the --total sum.
void AddPosix(const Counters& v, bool first_fix, IoCounts* io) {
  uint64_t opens = U(v[kOpens]), not_opens = U(v[kFilenos]) + U(v[kDups]);  // POSIX_OPENS counts them (v4)
  io->opens += opens > not_opens ? opens - not_opens : 0;
  io->reads += U(v[kReads]);
  io->writes += U(v[kWrites]);
  io->bytes_read += U(v[kBytesRead]);
  io->bytes_written += U(v[kBytesWritten]);
  for (size_t b = 0; b < kSizeBinCount; ++b) {
    io->read_sizes[b] += U(v[kSizeRead0 + b]);
    io->write_sizes[b] += U(v[kSizeWrite0 + b]);
  }
  io->seq_reads += WithFirst(v[kSeqReads], v[kReads], first_fix);
  io->consec_reads += WithFirst(v[kConsecReads], v[kReads], first_fix);
  io->seq_writes += WithFirst(v[kSeqWrites], v[kWrites], first_fix);
  io->consec_writes += WithFirst(v[kConsecWrites], v[kWrites], first_fix);
  io->seeks += U(v[kSeeks]);
  io->stats += U(v[kStats]);
  io->fsyncs += U(v[kFsyncs]) + U(v[kFdsyncs]);
  io->renames += U(v[kRenameSources]);
  AddMaxOffset(v, io);
}

void AddMpiio(const Counters& v, MpiioCounts* m) {
  m->indep_opens += U(v[kIndepOpens]);
  m->coll_opens += U(v[kCollOpens]);
  m->indep_reads += U(v[kIndepReads]);
  m->indep_writes += U(v[kIndepWrites]);
  m->coll_reads += U(v[kCollReads]);
  m->coll_writes += U(v[kCollWrites]);
  m->split_reads += U(v[kSplitReads]);
  m->split_writes += U(v[kSplitWrites]);
  m->nb_reads += U(v[kNbReads]);
  m->nb_writes += U(v[kNbWrites]);
  m->syncs += U(v[kSyncs]);
  m->bytes_read += U(v[kBytesRead]);
  m->bytes_written += U(v[kBytesWritten]);
}

void AddMpiioCounts(const MpiioCounts& from, MpiioCounts* to) {
  for (auto m : {&MpiioCounts::indep_opens, &MpiioCounts::coll_opens, &MpiioCounts::indep_reads,
                 &MpiioCounts::indep_writes, &MpiioCounts::coll_reads, &MpiioCounts::coll_writes,
                 &MpiioCounts::split_reads, &MpiioCounts::split_writes, &MpiioCounts::nb_reads, &MpiioCounts::nb_writes,
                 &MpiioCounts::syncs, &MpiioCounts::bytes_read, &MpiioCounts::bytes_written}) {
    to->*m += from.*m;
  }
}

// Read and write calls of one record, in its module's terms.
std::pair<uint64_t, uint64_t> Calls(const Record& r) {
  if (r.module != Module::kMpiio) return {U(r.v[kReads]), U(r.v[kWrites])};
  MpiioCounts m;
  AddMpiio(r.v, &m);
  return {m.Reads(), m.Writes()};
}

// Adds a record's counters to the file (or, for --total, the totals' stand-in) it belongs to.
void AddRecord(const Record& r, bool first_fix, FileRecord* f, uint64_t* stdio_calls) {
  switch (r.module) {
    case Module::kPosix:
      AddPosix(r.v, first_fix, &f->io);
      break;
    case Module::kStdio:
      f->io.opens += U(r.v[kOpens]);
      f->stream_bytes_read += U(r.v[kBytesRead]);
      f->stream_bytes_written += U(r.v[kBytesWritten]);
      *stdio_calls += U(r.v[kReads]) + U(r.v[kWrites]);
      AddMaxOffset(r.v, &f->io);
      break;
    case Module::kMpiio:
      AddMpiio(r.v, &f->mpiio);
      break;
    case Module::kOther:
      break;
  }
}

// What one rank did to one file, over its records.
struct RankUse {
  bool read = false, wrote = false;
  uint64_t bytes_read = 0, bytes_written = 0, mpi_bytes_read = 0, mpi_bytes_written = 0;
};

void AddUse(const Record& r, uint32_t nprocs, std::map<int64_t, RankUse>* ranks, FileRecord* f) {
  auto [reads, writes] = Calls(r);
  bool mpi = r.module == Module::kMpiio;
  uint64_t br = U(r.v[kBytesRead]), bw = U(r.v[kBytesWritten]);
  if (r.rank < 0) {
    f->shared_record = true;
    f->shared_readers = std::max(f->shared_readers, static_cast<uint32_t>(std::min<uint64_t>(nprocs, reads)));
    f->shared_writers = std::max(f->shared_writers, static_cast<uint32_t>(std::min<uint64_t>(nprocs, writes)));
    return;
  }
  RankUse& u = (*ranks)[r.rank];
  u.read |= reads > 0 || br > 0;
  u.wrote |= writes > 0 || bw > 0;
  (mpi ? u.mpi_bytes_read : u.bytes_read) += br;
  (mpi ? u.mpi_bytes_written : u.bytes_written) += bw;
}

void NameRanks(const std::map<int64_t, RankUse>& ranks, FileRecord* f) {
  for (const auto& [rank, u] : ranks) {
    std::string name = "rank " + std::to_string(rank);
    if (u.read) f->readers.push_back(Process{name, std::max(u.bytes_read, u.mpi_bytes_read)});
    if (u.wrote) f->writers.push_back(Process{name, std::max(u.bytes_written, u.mpi_bytes_written)});
  }
}

void AddTimes(const Record& r, double start_time, FileRecord* f) {
  double first = r.v[kOpenStart] > 0 ? r.v[kOpenStart] : std::min(r.v[kReadStart], r.v[kWriteStart]);
  double last = std::max({r.v[kCloseEnd], r.v[kReadEnd], r.v[kWriteEnd]});
  if (first > 0 && (f->first_unix == 0 || start_time + first < f->first_unix)) f->first_unix = start_time + first;
  if (last > 0) f->last_unix = std::max(f->last_unix, start_time + last);
}

// Bytes spread evenly over intervals, summed per second: whole seconds through a difference
// array of rates, the partial seconds at the ends directly.
class Spread {
 public:
  void Add(double start, double end, double bytes) {
    if (!(bytes > 0) || !(start >= 0) || !(end >= start)) return;
    start = std::min<double>(start, kMaxSeconds);
    end = std::min<double>(end, kMaxSeconds);
    auto a = static_cast<size_t>(start), b = static_cast<size_t>(end);
    if (direct_.size() < b + 2) direct_.resize(b + 2), rate_diff_.resize(b + 2);
    if (a == b || end - start < 1e-9) {
      direct_[a] += bytes;
      return;
    }
    double rate = bytes / (end - start);
    direct_[a] += rate * (static_cast<double>(a + 1) - start);
    direct_[b] += rate * (end - static_cast<double>(b));
    if (b > a + 1) rate_diff_[a + 1] += rate, rate_diff_[b] -= rate;
  }
  // Bytes in second t, for t < size().
  std::vector<uint64_t> Seconds() const {
    std::vector<uint64_t> out(direct_.size());
    double rate = 0;
    for (size_t t = 0; t < direct_.size(); ++t) {
      rate += rate_diff_[t];
      double bytes = direct_[t] + rate;  // NaN when a huge rate's start and end cancelled
      out[t] = !(bytes > 0.5) ? 0 : bytes >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(bytes + 0.5);
    }
    return out;
  }

 private:
  std::vector<double> direct_, rate_diff_;
};

Timeline EstimateTimeline(const std::vector<Record>& records) {
  Spread reads, writes;
  for (const Record& r : records) {
    if (r.module == Module::kMpiio || r.path.starts_with("<")) continue;  // MPI-IO's bytes are POSIX's
    reads.Add(r.v[kReadStart], r.v[kReadEnd], r.v[kBytesRead]);
    writes.Add(r.v[kWriteStart], r.v[kWriteEnd], r.v[kBytesWritten]);
  }
  std::vector<uint64_t> rs = reads.Seconds(), ws = writes.Seconds();
  Timeline tl;
  tl.estimated = true;
  for (size_t t = 0; t < std::max(rs.size(), ws.size()); ++t) {
    TimeBucket b;
    b.t = static_cast<int64_t>(t);
    b.bytes_read = t < rs.size() ? rs[t] : 0;
    b.bytes_written = t < ws.size() ? ws[t] : 0;
    if (b.bytes_read + b.bytes_written > 0) tl.buckets.push_back(b);
  }
  return tl;
}

std::vector<FileRecord> Files(const Log& log, uint64_t* stdio_calls) {
  std::vector<FileRecord> files;
  std::unordered_map<uint64_t, size_t> by_id;
  std::vector<std::map<int64_t, RankUse>> ranks;
  for (const Record& r : log.records) {
    if (r.path.starts_with("<")) continue;  // <STDIN>, <STDOUT>, <STDERR>
    auto [it, added] = by_id.try_emplace(r.id, files.size());
    if (added) {
      files.emplace_back().path = r.path;
      ranks.emplace_back();
    }
    FileRecord& f = files[it->second];
    AddRecord(r, true, &f, stdio_calls);
    AddUse(r, log.nprocs, &ranks[it->second], &f);
    AddTimes(r, log.start_time, &f);
  }
  for (size_t i = 0; i < files.size(); ++i) NameRanks(ranks[i], &files[i]);
  return files;
}

void CountOps(uint64_t stdio_calls, ProfileTotals* t) {
  t->meta_ops = t->io.opens + t->io.stats + t->io.renames + t->io.fsyncs;
  t->data_ops = t->io.reads + t->io.writes + stdio_calls;
}

}  // namespace

Profile ToProfile(const Log& log, const std::string& source) {
  Profile p;
  p.origin = source;
  p.job.exe = log.exe;
  p.job.tasks = log.nprocs;
  p.job.wall_seconds = log.run_time;
  p.job.start_unix = log.start_time;
  p.warnings = log.warnings;
  uint64_t stdio_calls = 0;
  if (!log.records.empty() || !log.have_totals) {
    p.source = ProfileSource::kDarshanBase;
    p.has_files = p.has_timeline = true;
    p.files = Files(log, &stdio_calls);
    for (const FileRecord& f : p.files) {
      AddIo(f.io, &p.totals.io);
      p.totals.stream_bytes_read += f.stream_bytes_read;
      p.totals.stream_bytes_written += f.stream_bytes_written;
      AddMpiioCounts(f.mpiio, &p.totals.mpiio);
    }
    p.totals.files = p.files.size();
    p.timeline = EstimateTimeline(log.records);
  } else {
    p.source = ProfileSource::kDarshanTotal;
    FileRecord all;
    for (size_t m = 0; m < kReadModules; ++m) {
      AddRecord(Record{static_cast<Module>(m), -1, 0, "", log.totals[m]}, false, &all, &stdio_calls);
    }
    p.totals.io = all.io;
    p.totals.stream_bytes_read = all.stream_bytes_read;
    p.totals.stream_bytes_written = all.stream_bytes_written;
    p.totals.mpiio = all.mpiio;
  }
  CountOps(stdio_calls, &p.totals);
  return p;
}

}  // namespace bb::modeselect::darshan

namespace bb::modeselect {

Result<Profile> ParseDarshanText(std::string_view text, const std::string& source) {
  try {
    Result<darshan::Log> log = darshan::ScanText(text);
    if (!log.has_value()) return log.error().Annotate(source);
    return darshan::ToProfile(*log, source);
  } catch (const std::exception& e) {  // allocation failure: nothing else throws here
    return Status(EINVAL, source + ": " + e.what());
  }
}

}  // namespace bb::modeselect
