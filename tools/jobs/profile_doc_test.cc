// MergeProfiles: the nodes' profile_stop replies (fs/daemon/profile_json.h) merged into the
// profile document, version 2: each file as every node saw it, the bytes each node read, the
// classes of every file, and the top files of a large run.
#include "tools/jobs/profile_doc.h"

#include <catch2/catch.hpp>

#include "modeselect/profile/signals.h"

namespace bb::jobs {
namespace {

using nlohmann::json;

constexpr uint64_t kMiB = 1 << 20;

// One file of a node's reply: `flags` among "created", "opened", "written", "read", "stat".
json NodeFile(uint64_t id, const std::string& path, std::vector<std::string> flags, uint64_t bytes_written,
              uint64_t bytes_read, std::vector<int> writers, std::vector<int> readers) {
  json f = {{"file_id", id},
            {"path", path},
            {"opens", 1u},
            {"writes", bytes_written / kMiB},
            {"reads", bytes_read / kMiB},
            {"bytes_written", bytes_written},
            {"bytes_read", bytes_read},
            {"max_offset", std::max(bytes_written, bytes_read)},
            {"first_unix", 1.0},
            {"last_unix", 2.0},
            {"writers", writers},
            {"readers", readers}};
  for (const std::string& flag : flags) f[flag] = true;
  return f;
}

json Node(uint32_t n, json files, json dirs = json::array()) {
  return {
      {"node", n},
      {"start_unix", 1.0},
      {"files", std::move(files)},
      {"dirs", std::move(dirs)},
      {"timeline", json::array({json{{"meta_ops", 5u}, {"data_ops", 7u}, {"bytes_read", 0u}, {"bytes_written", 0u}}})}};
}

const json kJob = {{"name", "j"},         {"mode", 3},           {"nodes", 2},       {"tasks", 2},
                   {"tasks_per_node", 1}, {"wall_seconds", 1.5}, {"exit_status", 0}, {"script", "j.sh"}};

TEST_CASE("MergeProfiles: a file as every node saw it, with the bytes read on nodes that did not write it",
          "[jobs][profile]") {
  // Node 0 writes /a (8 MiB) and reads 1 MiB of it back; node 1 reads 3 MiB of it.
  std::vector<json> nodes = {
      Node(0, {NodeFile(7, "/a", {"created", "opened", "written", "read"}, 8 * kMiB, kMiB, {10}, {10})},
           {{{"path", "/"}, {"creates", 1u}, {"made_entries", true}, {"looked_up", true}}}),
      Node(1, {NodeFile(7, "/a", {"opened", "read", "stat"}, 0, 3 * kMiB, {}, {20})}),
  };
  Result<json> doc = MergeProfiles(nodes, kJob);
  REQUIRE(doc.has_value());
  CHECK((*doc)["version"] == 2);
  const json& a = (*doc)["files"][0];
  CHECK(a["path"] == "/a");
  CHECK(a["created_on"] == 0);
  CHECK(a["writer_nodes"] == json({0}));
  CHECK(a["reader_nodes"] == json({0, 1}));
  CHECK(a["stat_nodes"] == json({1}));
  CHECK(a["readers"] == json({"0:10", "1:20"}));
  CHECK(a["bytes_read"] == 4 * kMiB);
  CHECK(a["remote_bytes_read"] == 3 * kMiB);
  CHECK((*doc)["totals"]["processes"] == 2);
  CHECK((*doc)["totals"]["writer_processes"] == 1);
  CHECK((*doc)["totals"]["nodes"] == json({0, 1}));
  CHECK((*doc)["totals"]["meta_ops"] == 10);
  REQUIRE((*doc)["file_classes"].size() == 1);
  CHECK((*doc)["file_classes"][0]["remote_bytes_read"] == 3.0 * kMiB);
  CHECK((*doc)["file_classes"][0]["example"] == "/a");

  Result<modeselect::Profile> p = modeselect::ParseProbeProfile(doc->dump(), "doc.json");
  REQUIRE(p.has_value());
  for (const modeselect::Signal& s : modeselect::ProfileSignals(*p)) {
    if (s.name == "profile.cross_node_read_fraction") CHECK(s.value == 0.75);  // not 0.5: node 1 read more
    if (s.name == "profile.cross_node_files") CHECK(s.value == 1);
  }
}

TEST_CASE("MergeProfiles: a run of 5,000 files lists its top files and sums every file by class", "[jobs][profile]") {
  std::vector<json> nodes;
  for (uint32_t n = 0; n < 4; ++n) {
    json files = json::array();
    for (uint64_t i = 0; i < 1250; ++i) {
      uint64_t id = n * 10000 + i, bytes = (i == 77 && n == 2) ? 64 * kMiB : kMiB;
      files.push_back(NodeFile(id, "/out/r" + std::to_string(n) + "." + std::to_string(i),
                               {"created", "opened", "written"}, bytes, 0, {100 + static_cast<int>(n)}, {}));
    }
    nodes.push_back(Node(n, std::move(files)));
  }
  Result<json> doc = MergeProfiles(nodes, kJob);
  REQUIRE(doc.has_value());
  CHECK((*doc)["totals"]["files"] == 5000);
  CHECK((*doc)["files"].size() <= 64 + 64 + (*doc)["file_classes"].size());
  uint64_t classed = 0;
  for (const json& c : (*doc)["file_classes"]) classed += c["files"].get<uint64_t>();
  CHECK(classed == 5000);
  bool biggest = false;
  for (const json& f : (*doc)["files"]) biggest |= f["path"] == "/out/r2.77";
  CHECK(biggest);
  CHECK((*doc)["totals"]["bytes_written"] == 4999 * kMiB + 64 * kMiB);

  Result<json> whole = MergeProfiles(nodes, kJob, modeselect::KeepLimits{SIZE_MAX, 0, SIZE_MAX, 0});
  REQUIRE(whole.has_value());
  CHECK((*whole)["files"].size() == 5000);
}

TEST_CASE("MergeProfiles: a node's profile without its node id, or a file without its id", "[jobs][profile]") {
  Result<json> no_node = MergeProfiles({json{{"files", json::array()}}}, kJob);
  REQUIRE(!no_node.has_value());
  CHECK(no_node.error().code() == EPROTO);
  CHECK(no_node.error().message() == "a node's profile without its node id");
  Result<json> no_id = MergeProfiles({Node(3, {{{"path", "/x"}}})}, kJob);
  REQUIRE(!no_id.has_value());
  CHECK(no_id.error().message() == "node 3: a file without a file_id");
}

TEST_CASE("MergeProfiles: the job's geometry from signed or unsigned numbers, a negative count as 0",
          "[jobs][profile]") {
  const int nodes = 4, tasks = 8, bad = -3;  // the emulator's fields are ints: JSON keeps them signed
  const unsigned tpn = 2;
  json job = {{"name", "j"}, {"nodes", nodes}, {"tasks", tasks}, {"tasks_per_node", tpn}, {"mode", 3}};
  Result<json> doc = MergeProfiles({Node(0, {})}, job);
  REQUIRE(doc.has_value());
  CHECK((*doc)["job"]["nodes"] == 4);
  CHECK((*doc)["job"]["tasks"] == 8);
  CHECK((*doc)["job"]["tasks_per_node"] == 2);
  job["tasks"] = bad;
  doc = MergeProfiles({Node(0, {})}, job);
  REQUIRE(doc.has_value());
  CHECK((*doc)["job"]["tasks"] == 0);
}

}  // namespace
}  // namespace bb::jobs
