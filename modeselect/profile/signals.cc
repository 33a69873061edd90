// ProfileSignals: the volume, request and time signals here; the sharing signals of
// files and directories in sharing.cc. signals.h defines each.

#include "modeselect/profile/signals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "modeselect/profile/signal_parts.h"

namespace bb::modeselect {
namespace profile_signals {

std::string Num(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string Percent(double part, double whole) {
  if (!(whole > 0)) return "";
  char buf[32];
  std::snprintf(buf, sizeof(buf), " (%.0f%%)", 100 * part / whole);
  return buf;
}

std::string Examples::Text() const {
  if (first.empty()) return "";
  std::string s = ": ";
  for (size_t i = 0; i < first.size(); ++i) s += (i ? ", " : "") + first[i];
  if (count > first.size()) s += " and " + std::to_string(count - first.size()) + " more";
  return s;
}

void Emit(std::vector<Signal>* out, const char* name, double value, std::string why) {
  out->push_back(Signal{name, value, std::move(why)});
}

}  // namespace profile_signals

namespace {

using profile_signals::Emit;
using profile_signals::Num;
using profile_signals::Percent;

constexpr double kMiB = 1024.0 * 1024.0;
// The share of Darshan's 10K-100K bin taken to lie below 64 KiB: (65536 - 10240) / (102400 - 10240).
constexpr double kSmallShareOfBin3 = 0.6;

// "; the most <what> /path (N)": the file with the largest `metric`, or "" when none has any.
template <typename Metric>
std::string Most(const Profile& p, Metric metric, const char* what) {
  const FileRecord* top = nullptr;
  for (const FileRecord& f : p.files) {
    if (metric(f) > 0 && (!top || metric(f) > metric(*top))) top = &f;
  }
  if (!top) return p.has_files ? "" : " (" + std::string(ProfileSourceName(p.source)) + ": no per-file records)";
  return std::string("; the most ") + what + " " + top->path + " (" + Num(static_cast<double>(metric(*top))) + ")";
}

void AddVolumeSignals(const Profile& p, std::vector<Signal>* out) {
  const ProfileTotals& t = p.totals;
  auto bw = static_cast<double>(t.io.bytes_written + t.stream_bytes_written);
  auto br = static_cast<double>(t.io.bytes_read + t.stream_bytes_read);
  Emit(out, "profile.bytes_written", bw,
       Num(bw) + " bytes written" +
           Most(
               p, [](const FileRecord& f) { return f.BytesWritten(); }, "to"));
  Emit(out, "profile.bytes_read", br,
       Num(br) + " bytes read" +
           Most(
               p, [](const FileRecord& f) { return f.BytesRead(); }, "from"));
  if (br + bw > 0) {
    Emit(out, "profile.read_share", br / (br + bw), Num(br) + " bytes read and " + Num(bw) + " written");
  }
  auto meta = static_cast<double>(t.meta_ops);
  std::string counted =
      p.source == ProfileSource::kProbe ? " counted by the daemons" : " (Darshan: opens, stats, renames, fsyncs)";
  Emit(out, "profile.meta_ops", meta,
       Num(meta) + " metadata operations" + counted +
           Most(
               p, [](const FileRecord& f) { return f.io.opens; }, "opens of"));
  double mib = (br + bw) / kMiB;
  Emit(out, "profile.meta_per_mib", meta / std::max(1.0, mib),
       Num(meta) + " metadata operations over " + Num(mib) + " MiB moved" + (mib < 1 ? " (counted as 1 MiB)" : ""));
  Emit(out, "profile.stats", static_cast<double>(t.io.stats),
       Num(static_cast<double>(t.io.stats)) + " stat calls" +
           Most(
               p, [](const FileRecord& f) { return f.io.stats; }, "of"));
  Emit(out, "profile.fsyncs", static_cast<double>(t.io.fsyncs),
       Num(static_cast<double>(t.io.fsyncs)) + " fsync and fdatasync calls" +
           Most(
               p, [](const FileRecord& f) { return f.io.fsyncs; }, "of"));
}

void EmitSmall(const Profile& p, const SizeBins& bins, const char* name, const char* what, std::vector<Signal>* out) {
  double all = 0;
  for (uint64_t b : bins) all += static_cast<double>(b);
  if (all == 0) return;
  double small = static_cast<double>(bins[0] + bins[1] + bins[2]) + kSmallShareOfBin3 * static_cast<double>(bins[3]);
  bool writes = std::string_view(what) == "write";
  Emit(out, name, small / all,
       Num(small) + " of " + Num(all) + " " + what + " requests were below 64 KiB" + Percent(small, all) +
           " (0.6 of the 10K-100K bin's " + Num(static_cast<double>(bins[3])) + " counted small)" +
           Most(
               p, [writes](const FileRecord& f) { return writes ? f.io.writes : f.io.reads; }, "requests to"));
}

void AddRequestSignals(const Profile& p, std::vector<Signal>* out) {
  const IoCounts& io = p.totals.io;
  EmitSmall(p, io.write_sizes, "profile.small_write_fraction", "write", out);
  EmitSmall(p, io.read_sizes, "profile.small_read_fraction", "read", out);
  auto writes = static_cast<double>(io.writes), reads = static_cast<double>(io.reads);
  if (writes > 0) {
    Emit(out, "profile.mean_write_size", static_cast<double>(io.bytes_written) / writes,
         Num(static_cast<double>(io.bytes_written)) + " bytes in " + Num(writes) + " write requests");
  }
  if (reads > 0) {
    Emit(out, "profile.mean_read_size", static_cast<double>(io.bytes_read) / reads,
         Num(static_cast<double>(io.bytes_read)) + " bytes in " + Num(reads) + " read requests");
  }
  if (reads + writes > 0) {
    double random = std::max(0.0, reads + writes - static_cast<double>(io.seq_reads + io.seq_writes));
    auto not_seq = [](const FileRecord& f) {
      uint64_t ops = f.io.reads + f.io.writes, seq = f.io.seq_reads + f.io.seq_writes;
      return ops > seq ? ops - seq : 0;
    };
    Emit(out, "profile.random_fraction", random / (reads + writes),
         Num(random) + " of " + Num(reads + writes) + " reads and writes were neither sequential nor consecutive" +
             Most(p, not_seq, "in"));
  }
  if (p.has_namespace && writes > 0) {
    auto appends = static_cast<double>(io.append_writes);
    Emit(out, "profile.append_fraction", appends / writes,
         Num(appends) + " of " + Num(writes) + " writes were to files opened with O_APPEND" +
             Most(
                 p, [](const FileRecord& f) { return f.io.append_writes; }, "to"));
  }
}

void AddPhases(const Profile& p, std::vector<Signal>* out) {
  int switches = 0, last = 0;
  std::string runs;  // "write 0-3 s, read 4 s, ..."
  int64_t run_start = 0, run_end = 0, shown = 0;
  auto close_run = [&] {
    if (last == 0 || shown++ >= 6) return;
    runs += std::string(runs.empty() ? "" : ", ") + (last > 0 ? "write " : "read ") + std::to_string(run_start) +
            (run_end > run_start ? "-" + std::to_string(run_end) : "") + " s";
  };
  for (const TimeBucket& b : p.timeline.buckets) {
    int kind = b.bytes_written > b.bytes_read ? 1 : b.bytes_read > b.bytes_written ? -1 : 0;
    if (kind == 0) continue;
    if (kind != last) {
      close_run();
      switches += last != 0;
      last = kind;
      run_start = b.t;
    }
    run_end = b.t;
  }
  close_run();
  if (shown > 6) runs += ", ...";
  Emit(out, "profile.phases", switches,
       Num(switches) + " switches between write-heavy and read-heavy seconds" + (runs.empty() ? "" : ": " + runs) +
           (p.timeline.estimated ? " (estimated from Darshan's first and last read and write times)" : ""));
}

void AddTimeSignals(const Profile& p, std::vector<Signal>* out) {
  if (p.has_timeline) AddPhases(p, out);
  if (p.job.wall_seconds) {
    Emit(out, "profile.wall_seconds", *p.job.wall_seconds,
         std::string(p.source == ProfileSource::kProbe ? "the probe run took " : "Darshan's run time: ") +
             Num(*p.job.wall_seconds) + " s");
  }
}

size_t TableIndex(const std::string& name) {
  std::span<const SignalInfo> table = Signals();
  for (size_t i = 0; i < table.size(); ++i) {
    if (name == table[i].name) return i;
  }
  return table.size();
}

}  // namespace

std::vector<Signal> ProfileSignals(const Profile& p) {
  std::vector<Signal> out;
  // A version 2 document brings its summary; else the files and directories listed are all.
  std::shared_ptr<const ProfileSummary> summary = p.summary;
  if (!summary) summary = std::make_shared<const ProfileSummary>(Summarise(p));
  profile_signals::AddFileSignals(p, *summary, &out);
  profile_signals::AddDirSignals(p, *summary, &out);
  AddVolumeSignals(p, &out);
  AddRequestSignals(p, &out);
  AddTimeSignals(p, &out);
  std::vector<std::pair<size_t, Signal>> ordered;
  for (Signal& s : out) ordered.emplace_back(TableIndex(s.name), std::move(s));
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  out.clear();
  for (auto& [index, s] : ordered) out.push_back(std::move(s));
  return out;
}

}  // namespace bb::modeselect
