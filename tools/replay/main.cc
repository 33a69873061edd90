// bb-replay: replays a metadata workload through a mount at a rate that follows a profile or a
// trace, with N threads, and prints the achieved rate every second.
//
//   bb-replay --dir DIR [--threads N] [--duration S] (--rate OPS | --profile FILE | --trace FILE)
//
// --rate OPS       a constant target (0 = as fast as possible)
// --profile FILE   lines "SECONDS OPS": from that second on the target is OPS (piecewise
//                  constant; '#' starts a comment) — a variable-rate profile
// --trace FILE     lines "SECONDS OP PATH [PATH2]" with OP one of create, open, stat, rename,
//                  unlink, mkdir (PATHs relative to --dir): each operation at its time
// Without a trace, every thread runs a mix on its own files in DIR: create, stat, open+close,
// rename, stat, unlink (each a metadata request to the file system).
// Output: CSV "second,target,achieved,errors" on stdout, then a summary line on stderr. The
// job the operations count against is the caller's (BB_JOB_ID or SLURM_JOB_ID).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "tools/cli/cli.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Step {
  double at;    // seconds from the start
  double rate;  // ops/s from then on
};

struct TraceOp {
  double at;
  std::string op, path, path2;
};

// Calls `parse(line number, fields)` for every line of `file` that has something before its
// '#' comment; `parse` returns false for a malformed line, which makes this fail with `want`.
template <class F>
bool ReadLines(const std::string& file, const char* want, std::string* error, F&& parse) {
  std::ifstream in(file);
  if (!in) return *error = "cannot read " + file, false;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    double at;
    if (!(fields >> at)) continue;  // blank or comment
    if (!parse(at, fields)) return *error = file + ":" + std::to_string(n) + ": want " + want, false;
  }
  return true;
}

constexpr const char* kOps[] = {"create", "open", "stat", "rename", "unlink", "mkdir"};

bool LoadProfile(const std::string& file, std::vector<Step>* out, std::string* error) {
  bool ok = ReadLines(file, "'SECONDS OPS' with times in order", error, [&](double at, std::istringstream& f) {
    Step s{at, 0};
    if (!(f >> s.rate) || s.rate < 0 || s.at < 0 || (!out->empty() && s.at < out->back().at)) return false;
    out->push_back(s);
    return true;
  });
  if (ok && out->empty()) return *error = file + ": no steps", false;
  return ok;
}

bool LoadTrace(const std::string& file, std::vector<TraceOp>* out, std::string* error) {
  return ReadLines(file, "'SECONDS OP PATH [PATH2]' with a known OP", error, [&](double at, std::istringstream& f) {
    TraceOp t{at, "", "", ""};
    f >> t.op >> t.path >> t.path2;
    bool known = std::find(std::begin(kOps), std::end(kOps), t.op) != std::end(kOps);
    if (!known || t.path.empty() || (t.op == "rename" && t.path2.empty())) return false;
    out->push_back(t);
    return true;
  });
}

double TargetAt(const std::vector<Step>& steps, double t) {
  double r = steps.front().rate;
  for (const Step& s : steps) {
    if (s.at <= t) r = s.rate;
  }
  return r;
}

// One metadata operation; true when it succeeded.
bool RunOp(const std::string& op, const std::string& a, const std::string& b) {
  struct stat st;
  if (op == "create") {
    int fd = ::open(a.c_str(), O_CREAT | O_WRONLY, 0644);
    if (fd < 0) return false;
    return ::close(fd) == 0;
  }
  if (op == "open") {
    int fd = ::open(a.c_str(), O_RDONLY);
    if (fd < 0) return false;
    return ::close(fd) == 0;
  }
  if (op == "stat") return ::stat(a.c_str(), &st) == 0;
  if (op == "rename") return ::rename(a.c_str(), b.c_str()) == 0;
  if (op == "unlink") return ::unlink(a.c_str()) == 0;
  if (op == "mkdir") return ::mkdir(a.c_str(), 0755) == 0 || errno == EEXIST;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bb-replay: replay a metadata workload at a given rate"};
  std::string dir, profile_file, trace_file;
  int threads = 4;
  double duration = 10, rate = -1;
  app.add_option("--dir", dir, "directory in the mount to work in")->required();
  app.add_option("--threads", threads, "worker threads")->check(CLI::Range(1, 1024));
  app.add_option("--duration", duration, "seconds (default: 10, or the profile's/trace's length)");
  auto* r = app.add_option("--rate", rate, "constant target, ops/s (0 = as fast as possible)");
  auto* p = app.add_option("--profile", profile_file, "variable-rate profile");
  auto* t = app.add_option("--trace", trace_file, "trace to replay");
  r->excludes(p)->excludes(t);
  p->excludes(t);
  bb::cli::Setup(app);
  if (int rc = bb::cli::Parse(app, argc, argv, "bb-replay"); rc >= 0) return rc;

  std::vector<Step> steps;
  std::vector<TraceOp> trace;
  std::string error;
  if (!profile_file.empty()) {
    if (!LoadProfile(profile_file, &steps, &error)) return std::fprintf(stderr, "bb-replay: %s\n", error.c_str()), 1;
    if (app.count("--duration") == 0) duration = steps.back().at + 1;
  } else if (!trace_file.empty()) {
    if (!LoadTrace(trace_file, &trace, &error)) return std::fprintf(stderr, "bb-replay: %s\n", error.c_str()), 1;
    if (app.count("--duration") == 0 && !trace.empty()) duration = trace.back().at + 1;
  } else {
    steps.push_back({0, rate < 0 ? 0 : rate});
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "bb-replay: %s is not a directory\n", dir.c_str());
    return 1;
  }
  size_t seconds = static_cast<size_t>(duration) + 1;
  std::vector<std::atomic<uint64_t>> done(seconds), errors(seconds);
  std::atomic<size_t> next_trace{0};
  auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  auto record = [&](bool ok) {
    size_t sec = static_cast<size_t>(elapsed());
    if (sec >= seconds) return;
    (ok ? done : errors)[sec]++;
  };

  std::vector<std::thread> workers;
  for (int w = 0; w < threads; ++w) {
    workers.emplace_back([&, w] {
      if (!trace.empty()) {
        for (;;) {
          size_t i = next_trace.fetch_add(1);
          if (i >= trace.size()) return;
          const TraceOp& op = trace[i];
          std::this_thread::sleep_until(start + std::chrono::duration<double>(op.at));
          if (elapsed() >= duration) return;
          record(RunOp(op.op, dir + "/" + op.path, op.path2.empty() ? "" : dir + "/" + op.path2));
        }
      }
      // Synthetic mix, paced by an absolute schedule so the rate does not drift; a thread
      // that falls behind catches up.
      std::string base = dir + "/r" + std::to_string(::getpid()) + "." + std::to_string(w) + ".";
      static const char* kMix[] = {"create", "stat", "open", "rename", "stat", "unlink"};
      uint64_t k = 0;
      double next = 0;
      while (true) {
        double now = elapsed();
        if (now >= duration) break;
        double target = TargetAt(steps, now);
        if (target > 0) {
          if (next < now - 0.1) next = now - 0.1;  // never bank more than 0.1 s of lag
          if (next > now) {
            std::this_thread::sleep_for(std::chrono::duration<double>(std::min(next - now, 0.05)));
            continue;
          }
          next += threads / target;
        }
        std::string a = base + std::to_string(k / 6 % 64), b = a + ".moved";
        // create, stat, open a; rename a to b; stat and unlink b.
        record(RunOp(kMix[k % 6], k % 6 >= 4 ? b : a, b));
        ++k;
      }
      // Leave nothing behind.
      for (int i = 0; i < 64; ++i) {
        ::unlink((base + std::to_string(i)).c_str());
        ::unlink((base + std::to_string(i) + ".moved").c_str());
      }
    });
  }
  for (auto& th : workers) th.join();
  std::printf("second,target,achieved,errors\n");
  uint64_t total = 0, total_err = 0;
  size_t full = static_cast<size_t>(duration);
  for (size_t s = 0; s < full; ++s) {
    double target = trace.empty() ? TargetAt(steps, static_cast<double>(s)) : 0;
    if (!trace.empty()) {
      for (const auto& op : trace) target += op.at >= static_cast<double>(s) && op.at < static_cast<double>(s + 1);
    }
    std::printf("%zu,%.0f,%llu,%llu\n", s, target, static_cast<unsigned long long>(done[s].load()),
                static_cast<unsigned long long>(errors[s].load()));
    total += done[s];
    total_err += errors[s];
  }
  std::fprintf(stderr, "bb-replay: %llu operations in %.0f s (%.0f ops/s), %llu errors\n",
               static_cast<unsigned long long>(total), duration, static_cast<double>(total) / duration,
               static_cast<unsigned long long>(total_err));
  return 0;
}
