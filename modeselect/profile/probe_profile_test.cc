// ParseProbeProfile: probe documents into Profiles and signals, and every way a document can be
// wrong giving EINVAL that names the field and where it is.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "modeselect/profile/profile.h"
#include "modeselect/profile/signals.h"
#include "modeselect/profile/test_builders.h"

namespace bb::modeselect {
namespace {

using nlohmann::json;
using testing::FindIn;
using testing::Fixture;
using testing::kMiB;

void CheckSignals(const Profile& p, const std::vector<std::pair<const char*, double>>& expect) {
  std::vector<Signal> signals = ProfileSignals(p);
  for (const auto& [name, value] : expect) {
    INFO(name);
    const Signal* s = FindIn(signals, name);
    REQUIRE(s != nullptr);
    CHECK(s->value == Approx(value).epsilon(1e-12).margin(1e-12));
  }
}

TEST_CASE("ParseProbeProfile: a checkpoint-restart probe run", "[modeselect][profile]") {
  Result<Profile> r = ParseProbeProfile(Fixture("probe_ckpt.json"), "probe_ckpt.json");
  REQUIRE(r.has_value());
  const Profile& p = *r;
  CHECK(p.source == ProfileSource::kProbe);
  CHECK(p.origin == "probe_ckpt.json");
  CHECK((p.has_files && p.has_nodes && p.has_namespace && p.has_timeline));
  CHECK(p.job.name == "ckpt");
  CHECK(p.job.mode == 3);
  CHECK((p.job.nodes == 4 && p.job.tasks == 4 && p.job.tasks_per_node == 1));
  CHECK(*p.job.wall_seconds == 4.21);
  CHECK(*p.job.exit_status == 0);
  CHECK(p.job.start_unix == 1764590400.25);
  CHECK((p.totals.files == 6 && p.totals.dirs == 4 && p.totals.creates == 7 && p.totals.lookups == 27));
  CHECK((p.totals.meta_ops == 54 && p.totals.data_ops == 90 && p.totals.io.append_writes == 10));
  CHECK(p.totals.io.write_sizes == SizeBins{10, 0, 0, 0, 32, 0, 0, 0, 0, 0});  // summed from the files
  CHECK(p.totals.io.read_sizes == SizeBins{0, 0, 0, 0, 32, 16, 0, 0, 0, 0});
  REQUIRE(p.files.size() == 6);
  const FileRecord& ckpt1 = p.files[2];
  CHECK(ckpt1.path == "/ckpt/rank1.dat");
  CHECK(*ckpt1.created_on == 1);
  CHECK(ckpt1.opened_on == std::vector<uint32_t>{1, 2});
  CHECK((ckpt1.writer_nodes == std::vector<uint32_t>{1} && ckpt1.reader_nodes == std::vector<uint32_t>{2}));
  REQUIRE((ckpt1.writers.size() == 1 && ckpt1.readers.size() == 1));
  CHECK((ckpt1.writers[0].name == "1:20904" && !ckpt1.writers[0].bytes));
  CHECK(ckpt1.io.write_sizes[4] == 8);
  CHECK(!p.files[0].created_on);
  REQUIRE(p.dirs.size() == 4);
  CHECK((p.dirs[0].path == "/" && !p.dirs[0].created_on));
  CHECK((p.dirs[3].path == "/logs" && p.dirs[3].lookup_nodes == std::vector<uint32_t>{0, 1, 2, 3}));
  REQUIRE(p.timeline.buckets.size() == 4);
  CHECK((p.timeline.buckets[3].t == 3 && p.timeline.buckets[3].bytes_read == 8 * kMiB));

  double br = 25165824, bw = 8389408;
  CheckSignals(p, {{"profile.files_written", 5},
                   {"profile.files_read", 5},
                   {"profile.writers_per_file", 1},
                   {"profile.writer_nodes_per_file", 1},
                   {"profile.files_per_writer", 1.25},
                   {"profile.shared_write_fraction", 0},
                   {"profile.cross_node_read_fraction", 1.0 / 3},
                   {"profile.cross_node_files", 5},
                   {"profile.cross_node_file_fraction", 1},
                   {"profile.cross_node_dirs", 0},
                   {"profile.cross_rank_read_fraction", 1.0 / 3},
                   {"profile.shared_read_fraction", 2.0 / 3},
                   {"profile.bytes_written", bw},
                   {"profile.bytes_read", br},
                   {"profile.read_share", br / (br + bw)},
                   {"profile.meta_ops", 54},
                   {"profile.meta_per_mib", 54 / ((br + bw) / kMiB)},
                   {"profile.creates", 7},
                   {"profile.shared_dir_creator_nodes", 4},
                   {"profile.shared_dir_meta_share", 0},
                   {"profile.readdirs", 0},
                   {"profile.stats", 3},
                   {"profile.small_write_fraction", 10.0 / 42},
                   {"profile.small_read_fraction", 0},
                   {"profile.mean_write_size", bw / 42},
                   {"profile.mean_read_size", br / 48},
                   {"profile.random_fraction", 0},
                   {"profile.append_fraction", 10.0 / 42},
                   {"profile.fsyncs", 4},
                   {"profile.phases", 2},
                   {"profile.wall_seconds", 4.21},
                   {"profile.processes", 4},
                   {"profile.nodes", 4}});
  std::vector<Signal> s = ProfileSignals(p);
  CHECK(FindIn(s, "profile.creates")->why == "7 files and directories created in 4 directories; the most in /ckpt (4)");
  CHECK(FindIn(s, "profile.phases")->why ==
        "2 switches between write-heavy and read-heavy seconds: read 0 s, write 1-2 s, read 3 s");
  // /logs was looked up everywhere and listed nowhere: its log file, stat'ed on every node, is what is shared.
  CHECK(FindIn(s, "profile.cross_node_files")->why ==
        "5 of 6 files were made or written on one node and opened, read, written or stat'ed on another: "
        "/ckpt/rank0.dat (made on 0, written on 0, used on 0, 1), /ckpt/rank1.dat (made on 1, written on 1, used on 1, "
        "2), /ckpt/rank2.dat (made on 2, written on 2, used on 2, 3) and 2 more");
}

TEST_CASE("ParseProbeProfile: a probe run gives every profile signal of the table", "[modeselect][profile]") {
  Result<Profile> r = ParseProbeProfile(Fixture("probe_ckpt.json"), "probe_ckpt.json");
  REQUIRE(r.has_value());
  std::vector<Signal> signals = ProfileSignals(*r);
  for (const SignalInfo& row : Signals()) {
    if (!std::string_view(row.name).starts_with("profile.")) continue;
    INFO(row.name);
    CHECK(FindIn(signals, row.name) != nullptr);
  }
}

TEST_CASE("ParseProbeProfile: the document of a real probe run", "[modeselect][profile]") {
  Result<Profile> r = ParseProbeProfile(Fixture("probe_example.json"), "probe_example.json");
  REQUIRE(r.has_value());
  CHECK(r->files.size() == 2);  // the document lists 2 of its 41 files; totals are the document's
  CHECK(r->totals.files == 41);
  CheckSignals(*r, {{"profile.cross_node_read_fraction", 1},
                    {"profile.cross_node_files", 1},
                    {"profile.cross_node_dirs", 0},
                    {"profile.shared_dir_creator_nodes", 2},
                    {"profile.creates", 42},
                    {"profile.meta_ops", 300},
                    {"profile.phases", 0},
                    {"profile.read_share", 0.5},
                    {"profile.small_write_fraction", 1},
                    {"profile.small_read_fraction", 0.6},
                    {"profile.nodes", 4}});
  std::vector<Signal> signals = ProfileSignals(*r);
  const Signal* cross = FindIn(signals, "profile.cross_node_files");
  CHECK(cross->why.find("/data (made on 1, written on 1, used on 1, 2)") != std::string::npos);
}

TEST_CASE("ParseProbeProfile: a wrong version and a missing field", "[modeselect][profile]") {
  Result<Profile> v = ParseProbeProfile(Fixture("probe_bad_version.json"), "probe_bad_version.json");
  REQUIRE(!v.has_value());
  CHECK(v.error().code() == EINVAL);
  CHECK(v.error().message() ==
        "probe_bad_version.json: version: 3 is not supported (this reader knows versions 1 to 2)");
  Result<Profile> m = ParseProbeProfile(Fixture("probe_missing_field.json"), "probe_missing_field.json");
  REQUIRE(!m.has_value());
  CHECK(m.error().code() == EINVAL);
  CHECK(m.error().message() == "probe_missing_field.json: files[2] \"/ckpt/rank1.dat\": writer_nodes: missing");
}

// The real-looking document with one change, and the message it must give.
struct Mutation {
  const char* what;
  void (*change)(json* doc);
  const char* message;
};

TEST_CASE("ParseProbeProfile: each wrong field named with where it is", "[modeselect][profile]") {
  const json doc = json::parse(Fixture("probe_ckpt.json"));
  const Mutation kMutations[] = {
      {"no version", [](json* d) { d->erase("version"); }, "version: missing"},
      {"version as text", [](json* d) { (*d)["version"] = "1"; }, "version: expected an integer, got \"1\""},
      {"no job", [](json* d) { d->erase("job"); }, "job: missing"},
      {"mode out of range", [](json* d) { (*d)["job"]["mode"] = 7; }, "job: mode: expected 1 to 4, got 7"},
      {"wall time as text", [](json* d) { (*d)["job"]["wall_seconds"] = "4s"; },
       "job: wall_seconds: expected a number, got string"},
      {"negative count", [](json* d) { (*d)["totals"]["opens"] = -1; },
       "totals: opens: expected a count (an integer >= 0), got -1"},
      {"fractional count", [](json* d) { (*d)["files"][0]["reads"] = 1.5; },
       "files[0] \"/input/mesh.dat\": reads: expected a count (an integer >= 0), got 1.5"},
      {"nine bins", [](json* d) { (*d)["files"][1]["write_sizes"].erase(0); },
       "files[1] \"/ckpt/rank0.dat\": write_sizes: expected 10 counts, got 9"},
      {"a node as text", [](json* d) { (*d)["files"][1]["created_on"] = "0"; },
       "files[1] \"/ckpt/rank0.dat\": created_on: expected a count (an integer >= 0), got \"0\""},
      {"a bad process", [](json* d) { (*d)["files"][1]["writers"][0] = "node0"; },
       "files[1] \"/ckpt/rank0.dat\": writers[0]: expected \"NODE:PID\", got \"node0\""},
      {"a node list as a number", [](json* d) { (*d)["dirs"][1]["entry_nodes"] = 3; },
       "dirs[1] \"/ckpt\": entry_nodes: expected an array, got number"},
      {"a file as a string", [](json* d) { (*d)["files"][3] = "x"; }, "files[3]: expected an object"},
      {"a bucket without t", [](json* d) { (*d)["timeline"]["buckets"][1].erase("t"); },
       "timeline.buckets[1]: t: missing"},
      {"zero-second buckets", [](json* d) { (*d)["timeline"]["bucket_seconds"] = 0; },
       "timeline: bucket_seconds: must be > 0"},
      {"totals without a file sum", [](json* d) { (*d)["totals"].erase("seq_reads"); }, "totals: seq_reads: missing"},
      {"dirs as an object", [](json* d) { (*d)["dirs"] = json::object(); }, "dirs: expected an array, got object"},
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

TEST_CASE("ParseProbeProfile: not JSON, not an object, and a run with no files", "[modeselect][profile]") {
  Result<Profile> cut = ParseProbeProfile(Fixture("probe_ckpt.json").substr(0, 500), "cut.json");
  REQUIRE(!cut.has_value());
  CHECK(cut.error().message().starts_with("cut.json: not JSON: "));
  CHECK(ParseProbeProfile("[1, 2]", "a.json").error().message() == "a.json: expected a JSON object, got array");
  // As MergeProfiles writes a run that touched nothing: the totals' sums are left out.
  Result<Profile> empty = ParseProbeProfile(
      R"({"version": 1, "job": {"name": "j", "mode": 3, "nodes": 2, "tasks": 2, "tasks_per_node": 0,
          "wall_seconds": 0.1, "exit_status": 1, "script": "j.sh"},
          "totals": {"files": 0, "dirs": 0, "meta_ops": 0, "data_ops": 0},
          "timeline": {"bucket_seconds": 1, "start_unix": 0, "buckets": []}, "files": [], "dirs": []})",
      "empty.json");
  REQUIRE(empty.has_value());
  CHECK(*empty->job.exit_status == 1);
  std::vector<Signal> s = ProfileSignals(*empty);
  CHECK(FindIn(s, "profile.files_written")->value == 0);
  CHECK(FindIn(s, "profile.read_share") == nullptr);
  CHECK(FindIn(s, "profile.shared_dir_creator_nodes")->why == "no directory was used");
}

}  // namespace
}  // namespace bb::modeselect
