// Summaries: each file's pattern; classes that get coarser and stay exact; version 2 documents
// written and read back to the same signals; the corpus's recorded (version 1) profiles giving
// the same signals as their summaries.
#include "modeselect/profile/summary.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "modeselect/profile/probe_document.h"
#include "modeselect/profile/signals.h"
#include "modeselect/profile/test_builders.h"

namespace bb::modeselect {
namespace {

using namespace testing;  // NOLINT: the builders
using nlohmann::json;

TEST_CASE("PatternOf: what a file's class says of it", "[modeselect][profile]") {
  struct Row {
    const char* what;
    FileRecord file;
    FilePattern want;
  };
  FileRecord own = NewFile("/own", 1);
  Write(&own, {"1:10"}, kMiB, kMiB);
  Read(&own, {"1:10"}, kMiB, kMiB);
  FileRecord remote = NewFile("/remote", 0);
  Write(&remote, {"0:10"}, 4 * kMiB, kMiB);
  Read(&remote, {"1:20", "2:30"}, 4 * kMiB, kMiB);
  remote.stat_nodes = {3};
  FileRecord input = NewFile("/input", std::nullopt);
  Read(&input, {"0:1", "0:2"}, 100, 100, /*random=*/true);
  FileRecord log = NewFile("/log", 2);
  Write(&log, {"0:1", "1:2"}, 500, 50, false, /*append=*/true);
  FileRecord touched = NewFile("/empty", 3);
  const Row rows[] = {
      {"written and read back by its maker", own, {"writer", 1, 1, 0, 1, 1, 1, 5, "sequential"}},
      {"read on two other nodes, stat'ed on a fourth", remote, {"writer", 1, 2, 2, 4, 1, 2, 6, "sequential"}},
      {"input from before the run, read at random", input, {"before", 0, 1, 1, 1, 0, 2, 1, "random"}},
      {"appended to from two nodes, made on a third", log, {"other", 2, 0, 0, 3, 2, 0, 1, "append"}},
      {"made and never used", touched, {"writer", 0, 0, 0, 1, 0, 0, 0, "none"}},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    FilePattern got = PatternOf(r.file, true);
    CHECK(got.made == r.want.made);
    CHECK(got.writer_nodes == r.want.writer_nodes);
    CHECK(got.reader_nodes == r.want.reader_nodes);
    CHECK(got.remote_reader_nodes == r.want.remote_reader_nodes);
    CHECK(got.nodes == r.want.nodes);
    CHECK(got.writers == r.want.writers);
    CHECK(got.readers == r.want.readers);
    CHECK(got.size_class == r.want.size_class);
    CHECK(got.access == r.want.access);
    CHECK_FALSE(got.coarse);
  }
}

// 400 files in many patterns: 1 to 40 reader nodes, 1 to 10 writers.
Profile ManyPatterns() {
  std::vector<FileRecord> files;
  for (uint32_t i = 0; i < 400; ++i) {
    FileRecord f = NewFile("/d" + std::to_string(i % 7) + "/f" + std::to_string(i), i % 40);
    std::vector<std::string> writers, readers;
    for (uint32_t w = 0; w <= i % 10; ++w) writers.push_back(std::to_string((i + w) % 40) + ":" + std::to_string(w));
    for (uint32_t r = 0; r <= i % 40; ++r) readers.push_back(std::to_string(r) + ":9" + std::to_string(r));
    Write(&f, writers, (i % 5 + 1) * kKiB, kKiB, i % 3 == 0);
    Read(&f, readers, kKiB, kKiB);
    f.remote_bytes_read = (i * 977) % (f.io.bytes_read + 1);
    files.push_back(std::move(f));
  }
  std::vector<DirRecord> dirs;
  for (uint32_t d = 0; d < 7; ++d) {
    std::vector<uint32_t> entries = d == 0 ? std::vector<uint32_t>{0, 1} : std::vector<uint32_t>{0, d, d + 1};
    dirs.push_back(Dir("/d" + std::to_string(d), d, 60 + d, entries, {0, 1, 2},
                       d % 2 ? std::vector<uint32_t>{5} : std::vector<uint32_t>{}));
  }
  return ProbeProfile(std::move(files), std::move(dirs), {}, 40);
}

void CheckSameSums(const FileSums& a, const FileSums& b) {
  CHECK(a.files == b.files);
  CHECK(a.written == b.written);
  CHECK(a.read == b.read);
  CHECK(a.writers == b.writers);
  CHECK(a.writer_nodes == b.writer_nodes);
  CHECK(a.cross_node == b.cross_node);
  CHECK(a.multi_node == b.multi_node);
  CHECK(a.cross_rank == b.cross_rank);
  CHECK(a.remote_bytes_read == Approx(b.remote_bytes_read));
  CHECK(a.cross_rank_bytes_read == Approx(b.cross_rank_bytes_read));
  CHECK(a.shared_bytes_read == Approx(b.shared_bytes_read));
  CHECK(a.node_shared_bytes == Approx(b.node_shared_bytes));
  CHECK(a.io.opens == b.io.opens);
  CHECK(a.io.bytes_written == b.io.bytes_written);
  CHECK(a.io.seq_writes == b.io.seq_writes);
  CHECK(a.io.write_sizes == b.io.write_sizes);
  CHECK(a.io.max_offset == b.io.max_offset);
}

TEST_CASE("Summarise: classes coarsen past the limit and their sums stay the files'", "[modeselect][profile]") {
  Profile p = ManyPatterns();
  FileSums files;
  for (const FileRecord& f : p.files) files.Add(MeasureFile(f, true));
  const size_t exact = Summarise(p).files.size();
  REQUIRE(exact > 20);
  struct Row {
    size_t max;
    bool coarse;
  };
  for (Row r : {Row{exact, false}, Row{exact - 1, true}, Row{8, true}, Row{1, true}}) {
    INFO("at most " << r.max << " classes");
    ProfileSummary s = Summarise(p, SummaryLimits{r.max, r.max});
    CHECK(s.files.size() <= r.max);
    CHECK(s.dirs.size() <= r.max);
    CheckSameSums(s.FileTotals(), files);
    CHECK(s.DirTotals().dirs == 7);
    CHECK(s.DirTotals().creates == 60 * 7 + 21);
    for (const FileClass& c : s.files) CHECK(c.pattern.coarse == r.coarse);
    for (size_t i = 1; i < s.files.size(); ++i) CHECK(s.files[i - 1].sums.files >= s.files[i].sums.files);
    if (r.max == 1) CHECK(s.files.front().pattern.made == "mixed");
  }
}

TEST_CASE("KeepTop: a large run lists its top files and every class's example", "[modeselect][profile]") {
  Profile p = ManyPatterns();
  ProfileSummary s = Summarise(p);
  Profile all = p;
  KeepTop(&all, s, KeepLimits{});  // 400 files: all kept
  CHECK(all.files.size() == 400);
  KeepTop(&p, s, KeepLimits{100, 5, 3, 2});
  CHECK(p.files.size() < 400);
  CHECK(p.files.size() <= 10 + s.files.size());
  for (const FileClass& c : s.files) {
    INFO(c.example);
    CHECK(std::any_of(p.files.begin(), p.files.end(), [&](const FileRecord& f) { return f.path == c.example; }));
  }
  uint64_t most = 0;
  for (const FileRecord& f : all.files) most = std::max(most, f.BytesRead() + f.BytesWritten());
  CHECK(std::any_of(p.files.begin(), p.files.end(),
                    [&](const FileRecord& f) { return f.BytesRead() + f.BytesWritten() == most; }));
  CHECK(p.dirs.size() <= 7);
}

void CheckSameSignals(const std::vector<Signal>& want, const std::vector<Signal>& got) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(want[i].name);
    CHECK(got[i].name == want[i].name);
    CHECK(got[i].value == Approx(want[i].value).epsilon(1e-9).margin(1e-12));
  }
}

// `p` written as a version 2 document listing `keep` of it, and read back.
Profile RoundTrip(Profile p, const KeepLimits& keep) {
  ProfileSummary s = Summarise(p);
  KeepTop(&p, s, keep);
  std::string text = ProbeDocument(p, s).dump();
  Result<Profile> back = ParseProbeProfile(text, "v2.json");
  INFO((back.has_value() ? "" : back.error().message()));
  REQUIRE(back.has_value());
  return std::move(*back);
}

TEST_CASE("ProbeDocument: a version 2 document reads back to the same signals", "[modeselect][profile]") {
  Profile p = ManyPatterns();
  std::vector<Signal> want = ProfileSignals(p);
  Profile whole = RoundTrip(p, KeepLimits{});
  CHECK(whole.files.size() == 400);
  CHECK(whole.files[3].remote_bytes_read == p.files[3].remote_bytes_read);
  CheckSameSignals(want, ProfileSignals(whole));
  Profile top = RoundTrip(p, KeepLimits{10, 4, 2, 1});
  CHECK(top.files.size() < 100);
  CHECK(top.totals.files == 400);
  CHECK(top.totals.io.write_sizes == p.totals.io.write_sizes);  // the histograms of every file
  CheckSameSignals(want, ProfileSignals(top));
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("the corpus's recorded profiles give the same signals as their version 2 summaries",
          "[modeselect][profile]") {
  std::filesystem::path dir = std::string(BB_SOURCE_DIR) + "/modeselect/corpus/oracle";
  size_t read = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.path().string().ends_with(".profile.json")) continue;
    INFO(e.path().filename().string());
    Result<Profile> v1 = ParseProbeProfile(ReadAll(e.path()), e.path().string());
    REQUIRE(v1.has_value());
    // Listing 8 files and 4 directories: most of the corpus's runs are summarised.
    Profile v2 = RoundTrip(*v1, KeepLimits{8, 4, 4, 2});
    CHECK(v2.files.size() <= v1->files.size());
    CheckSameSignals(ProfileSignals(*v1), ProfileSignals(v2));
    ++read;
  }
  CHECK(read >= 45);
}

TEST_CASE("ParseProbeProfile: a version 2 document's classes are read strictly", "[modeselect][profile]") {
  Profile p = ManyPatterns();
  ProfileSummary s = Summarise(p);
  const json doc = ProbeDocument(p, s);
  struct Mutation {
    const char* what;
    void (*change)(json* doc);
    const char* message;
  };
  const Mutation kMutations[] = {
      {"no classes", [](json* d) { d->erase("file_classes"); }, "file_classes: missing"},
      {"an unknown pattern", [](json* d) { (*d)["file_classes"][0]["pattern"]["made"] = "elsewhere"; },
       "file_classes[0]: pattern: made: unknown value \"elsewhere\""},
      {"a size class past the bins", [](json* d) { (*d)["file_classes"][1]["pattern"]["size_class"] = 10; },
       "file_classes[1]: pattern: size_class: expected null or 0 to 9"},
      {"negative bytes", [](json* d) { (*d)["file_classes"][0]["remote_bytes_read"] = -1.5; },
       "file_classes[0]: remote_bytes_read: negative"},
      {"counts without a histogram", [](json* d) { (*d)["file_classes"][0]["counts"].erase("read_sizes"); },
       "file_classes[0]: counts: read_sizes: missing"},
      {"a dir class without its sum", [](json* d) { (*d)["dir_classes"][0].erase("contended_ops"); },
       "dir_classes[0]: contended_ops: missing"},
      {"totals without processes", [](json* d) { (*d)["totals"].erase("processes"); }, "totals: processes: missing"},
      {"a file without its remote bytes", [](json* d) { (*d)["files"][0].erase("remote_bytes_read"); },
       "files[0] \"/d0/f0\": remote_bytes_read: missing"},
  };
  for (const Mutation& m : kMutations) {
    INFO(m.what);
    json changed = doc;
    m.change(&changed);
    Result<Profile> r = ParseProbeProfile(changed.dump(), "p.json");
    REQUIRE(!r.has_value());
    CHECK(r.error().code() == EINVAL);
    CHECK(r.error().message() == std::string("p.json: ") + m.message);
  }
}

}  // namespace
}  // namespace bb::modeselect
