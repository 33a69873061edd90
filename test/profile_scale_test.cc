// A probe run of 100,000 files, counted by the daemons' own code (fs::Profiles and the
// profile_stop reply, fs/daemon/profile_json.h), merged as bbctl merges it (MergeProfiles) and
// decided as bb-modeselect decides: the document stays under 1 MiB, the decision takes under
// 50 ms, and the summary's signals are those of the document that lists every file.
#include <catch2/catch.hpp>
#include <ctime>
#include <limits>

#include "fs/core/observe/profile.h"
#include "fs/daemon/profile_json.h"
#include "modeselect/profile/signals.h"
#include "modeselect/reason/rules.h"
#include "modeselect/select.h"
#include "tools/config/knowledge.h"
#include "tools/jobs/profile_doc.h"

namespace bb {
namespace {

using nlohmann::json;

constexpr uint32_t kNodes = 16, kTasksPerNode = 4;
constexpr uint64_t kPerTask = 1563, kFiles = kPerTask * kNodes * kTasksPerNode;  // 100,032
constexpr int64_t kSecond = 1'000'000'000;

// mdtest-like on 16 nodes of 4 tasks: node 0 makes /mdtest; every task makes its folder in it
// and creates, writes (3,901 bytes), stats and reads back its files; then each task stats and
// reads the files of the task one node over (mdtest -N), and removes its own. Rank 0 writes a
// 64 MiB summary that every node reads.
std::vector<json> ProbeRun() {
  std::vector<std::unique_ptr<fs::Profiles>> nodes;
  const std::string ws = "job", root = "/job";
  int64_t now = 1'764'590'400 * kSecond;
  for (uint32_t n = 0; n < kNodes; ++n) {
    nodes.push_back(std::make_unique<fs::Profiles>(n));
    nodes[n]->Start(ws, now);
  }
  nodes[0]->Created(ws, root + "/mdtest", 1, true, 100, now);
  const uint32_t tasks = kNodes * kTasksPerNode;
  auto task_dir = [&](uint32_t t) { return root + "/mdtest/task" + std::to_string(t); };
  auto file = [&](uint32_t t, uint64_t i) { return task_dir(t) + "/file." + std::to_string(i); };
  auto id = [&](uint32_t t, uint64_t i) { return 1000 + t * kPerTask + i; };
  const uint64_t per_task = kPerTask;
  for (uint32_t t = 0; t < tasks; ++t) {
    uint32_t n = t / kTasksPerNode;
    pid_t pid = static_cast<pid_t>(1000 + t);
    fs::Profiles& p = *nodes[n];
    fs::ProfileHandle h = p.For(ws);
    p.Lookup(ws, root + "/mdtest", now);
    p.Created(ws, task_dir(t), 2 + t, true, pid, now);
    for (uint64_t i = 0; i < per_task; ++i, now += 20'000) {
      p.Lookup(ws, task_dir(t), now);
      p.Created(ws, file(t, i), id(t, i), false, pid, now);
      p.Opened(h, file(t, i), id(t, i), pid, now);
      p.Accessed(h, id(t, i), true, 0, 3901, false, pid, now);
      p.Stat(ws, file(t, i), id(t, i), false, true, now);
      p.Opened(h, file(t, i), id(t, i), pid, now);
      p.Accessed(h, id(t, i), false, 0, 3901, false, pid, now);
    }
  }
  for (uint32_t t = 0; t < tasks; ++t) {  // the shifted phase: the task one node over
    uint32_t n = (t / kTasksPerNode + 1) % kNodes, other = t;
    pid_t pid = static_cast<pid_t>(5000 + t);
    fs::Profiles& p = *nodes[n];
    fs::ProfileHandle h = p.For(ws);
    for (uint64_t i = 0; i < per_task; ++i, now += 20'000) {
      p.Stat(ws, file(other, i), id(other, i), false, true, now);
      p.Opened(h, file(other, i), id(other, i), pid, now);
      p.Accessed(h, id(other, i), false, 0, 3901, false, pid, now);
    }
  }
  for (uint32_t t = 0; t < tasks; ++t) {
    for (uint64_t i = 0; i < per_task; ++i, now += 20'000) {
      nodes[t / kTasksPerNode]->Removed(ws, file(t, i), id(t, i), false, now);
    }
  }
  fs::ProfileHandle h0 = nodes[0]->For(ws);
  nodes[0]->Created(ws, root + "/summary.dat", 999, false, 100, now);
  for (uint64_t off = 0; off < (64ULL << 20); off += 1 << 20)
    nodes[0]->Accessed(h0, 999, true, off, 1 << 20, false, 100, now);
  for (uint32_t n = 0; n < kNodes; ++n) {
    fs::ProfileHandle h = nodes[n]->For(ws);
    nodes[n]->Opened(h, root + "/summary.dat", 999, 200 + n, now);
    for (uint64_t off = 0; off < (64ULL << 20); off += 4 << 20) {
      nodes[n]->Accessed(h, 999, false, off, 4 << 20, false, 200 + n, now);
    }
  }
  std::vector<json> replies;
  for (auto& p : nodes) replies.push_back(fs::ProfileJson(*p->Stop(ws)));
  return replies;
}

double ThreadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

json Job() {
  return {{"name", "mdtest"},
          {"mode", 3},
          {"nodes", kNodes},
          {"tasks", kNodes * kTasksPerNode},
          {"tasks_per_node", kTasksPerNode},
          {"wall_seconds", 61.5},
          {"exit_status", 0},
          {"script", "mdtest.sh"}};
}

TEST_CASE("a 100,000-file probe run: a profile under 1 MiB, decided in under 50 ms, with the signals of every file",
          "[profile][scale]") {
  double t0 = ThreadCpuMs();
  std::vector<json> replies = ProbeRun();
  double t1 = ThreadCpuMs();
  Result<json> doc = jobs::MergeProfiles(replies, Job());
  double t2 = ThreadCpuMs();
  REQUIRE(doc.has_value());
  const std::string text = doc->dump(1);  // as bbctl writes it
  size_t reply_bytes = 0;
  for (const json& r : replies) reply_bytes += r.dump().size();
  WARN("counting and the replies " << (t1 - t0) / 1e3 << " s CPU; the replies " << reply_bytes / 1048576.0
                                   << " MiB, merged in " << (t2 - t1) / 1e3 << " s CPU into " << text.size() / 1024.0
                                   << " KiB with " << (*doc)["files"].size() << " files listed, "
                                   << (*doc)["file_classes"].size() << " file classes, " << (*doc)["dir_classes"].size()
                                   << " directory classes");
  CHECK((*doc)["totals"]["files"] == kFiles + 1);
  CHECK(text.size() < (1u << 20));

  auto kb = config::LoadKnowledgeBase(std::string(BB_SOURCE_DIR) + "/configs/modeselect");
  REQUIRE(kb.has_value());
  SystemClock clock;
  modeselect::RulesReasoner rules;
  // The thread's CPU time, best of 3: the decision's work, not the machine's other load.
  double best = std::numeric_limits<double>::max();
  modeselect::Decision d;
  std::vector<modeselect::Signal> summary_signals;
  for (int run = 0; run < 3; ++run) {
    double start = ThreadCpuMs();
    Result<modeselect::Profile> p = modeselect::ParseProbeProfile(text, "probe.json");
    REQUIRE(p.has_value());
    summary_signals = modeselect::ProfileSignals(*p);
    modeselect::Evidence e = modeselect::MakeEvidence(std::nullopt, summary_signals, kNodes);
    d = modeselect::Decide(e, *kb, rules, clock, clock.MonotonicNs());
    best = std::min(best, ThreadCpuMs() - start);
  }
  WARN("decided mode " << d.mode << " (" << d.selected_by << ") in " << best << " ms CPU, best of 3");
  CHECK(best < 50);

  // Every file listed: the document as large as the run, and the same signals.
  Result<json> whole = jobs::MergeProfiles(replies, Job(), modeselect::KeepLimits{SIZE_MAX, 0, SIZE_MAX, 0});
  REQUIRE(whole.has_value());
  CHECK((*whole)["files"].size() == kFiles + 1);
  Result<modeselect::Profile> every = modeselect::ParseProbeProfile(whole->dump(), "whole.json");
  REQUIRE(every.has_value());
  std::vector<modeselect::Signal> every_signals = modeselect::ProfileSignals(*every);
  REQUIRE(every_signals.size() == summary_signals.size());
  for (size_t i = 0; i < every_signals.size(); ++i) {
    INFO(every_signals[i].name);
    CHECK(summary_signals[i].name == every_signals[i].name);
    CHECK(summary_signals[i].value == Approx(every_signals[i].value).epsilon(1e-9));
  }
  auto value = [&](const char* name) {
    for (const modeselect::Signal& s : summary_signals) {
      if (s.name == name) return s.value;
    }
    return -1.0;
  };
  CHECK(value("profile.cross_node_files") == kFiles + 1);  // every file read one node over, and the summary
  CHECK(value("profile.cross_node_dirs") == 0);            // the common parent /mdtest is never listed
  CHECK(value("profile.common_parent_dirs") == 1);
  CHECK(value("profile.processes") == kNodes * kTasksPerNode * 2 + 1 + kNodes);
}

}  // namespace
}  // namespace bb
