#include "fs/daemon/metrics.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "fs/base/temp_dir.h"

namespace bb::fs {
namespace {

using nlohmann::json;

json Node(int id) {
  return {
      {"node", id},
      {"nodes", 2},
      {"ops", {{"create", 5}, {"read", 7}}},
      {"errors", {{"2", 3}}},
      {"to", json::array(
                 {{{"node", 0}, {"meta_requests", 4}, {"data_requests", 1}, {"read_bytes", 10}, {"write_bytes", 20}},
                  {{"node", 1}, {"meta_requests", 6}, {"data_requests", 2}, {"read_bytes", 30}, {"write_bytes", 40}}})},
      {"served", {{"meta_ops", 9}, {"data_ops", 8}, {"read_bytes", 7}, {"write_bytes", 6}}},
      {"peers", json::array({{{"peer", 1 - id},
                              {"calls_sent", 12},
                              {"calls_failed", 1},
                              {"calls_extended", 0},
                              {"bytes_sent", 100},
                              {"bytes_received", 200},
                              {"requests_received", 11},
                              {"latency", json::array({1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3})},
                              {"latency_seconds", 0.5}}})},
      {"space", {{"total_bytes", 1000}, {"free_bytes", 600}, {"avail_bytes", 500}}},
      {"small_files", {{"made_here", 9}, {"with_first_write", 6}, {"handed_over", 2}, {"lost", 0}, {"waiting", 1}}},
      {"workspaces", 1},
      {"workspace_list", json::array({{{"name", "job42"}, {"mode", 3}, {"chunk_size", 524288}}})},
      {"qos",
       {{"stage", true},
        {"channels", json::array({{{"job", "A"},
                                   {"class", "metadata"},
                                   {"limit", nullptr},
                                   {"ops", 4},
                                   {"units", 4},
                                   {"rate", 2.5},
                                   {"queued", 0},
                                   {"waited", 1},
                                   {"wait_ms_total", 250}}})}}}};
}

// name{labels} -> value, and the TYPE of each name.
std::map<std::string, double> Parse(const std::string& text, std::map<std::string, std::string>* types) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream t(line.substr(7));
      std::string name, type;
      t >> name >> type;
      REQUIRE(types->count(name) == 0);  // one TYPE per metric, however many nodes
      (*types)[name] = type;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.rfind(' ');
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}

TEST_CASE("metrics: the stats of two nodes as one Prometheus exposition", "[daemon]") {
  std::map<std::string, std::string> types;
  auto m = Parse(MetricsText({Node(0), Node(1)}), &types);
  CHECK(m.at("bb_fs_operations_total{node=\"0\",op=\"create\"}") == 5);
  CHECK(m.at("bb_fs_operations_total{node=\"1\",op=\"read\"}") == 7);
  CHECK(m.at("bb_fs_errors_total{node=\"0\",errno=\"2\"}") == 3);
  CHECK(m.at("bb_requests_total{node=\"0\",peer=\"0\",kind=\"metadata\",locality=\"local\"}") == 4);
  CHECK(m.at("bb_requests_total{node=\"0\",peer=\"1\",kind=\"data\",locality=\"remote\"}") == 2);
  CHECK(m.at("bb_data_bytes_total{node=\"1\",peer=\"1\",direction=\"write\",locality=\"local\"}") == 40);
  CHECK(m.at("bb_rpc_latency_seconds_bucket{node=\"0\",peer=\"1\",le=\"5e-05\"}") == 1);
  CHECK(m.at("bb_rpc_latency_seconds_bucket{node=\"0\",peer=\"1\",le=\"0.0001\"}") == 3);  // cumulative
  CHECK(m.at("bb_rpc_latency_seconds_bucket{node=\"0\",peer=\"1\",le=\"+Inf\"}") == 6);
  CHECK(m.at("bb_rpc_latency_seconds_count{node=\"0\",peer=\"1\"}") == 6);
  CHECK(m.at("bb_rpc_latency_seconds_sum{node=\"0\",peer=\"1\"}") == 0.5);
  CHECK(m.at("bb_qos_wait_seconds_total{node=\"0\",job=\"A\",class=\"metadata\"}") == 0.25);
  CHECK(m.count("bb_qos_limit{node=\"0\",job=\"A\",class=\"metadata\"}") == 0);  // unlimited: absent
  CHECK(m.at("bb_space_bytes{node=\"1\",kind=\"avail\"}") == 500);
  CHECK(m.at("bb_small_files_total{node=\"0\",event=\"made\"}") == 9);
  CHECK(m.at("bb_workspace_mode{node=\"1\",workspace=\"job42\"}") == 3);
  CHECK(m.at("bb_workspace_chunk_bytes{node=\"0\",workspace=\"job42\"}") == 524288);
  CHECK(m.at("bb_small_files_total{node=\"1\",event=\"lost\"}") == 0);
  CHECK(m.count("bb_small_files_total{node=\"0\",event=\"waiting\"}") == 0);  // not a counter
  CHECK(types.at("bb_rpc_latency_seconds") == "histogram");
  CHECK(types.at("bb_qos_rate") == "gauge");
  CHECK(types.at("bb_fs_operations_total") == "counter");
}

TEST_CASE("metrics: what a node does not report is left out, never an error", "[daemon]") {
  CHECK(MetricsText({json::object()}).empty());
  CHECK(MetricsText({json{{"ops", "not an object"}, {"peers", 3}, {"qos", {{"channels", 1}}}}}).empty());
  std::string text = MetricsText({json{{"node", 3}, {"nodes", 4}, {"to", json::array({{{"node", 3}}})}}});
  CHECK(text.find("bb_nodes{node=\"3\"} 4") != std::string::npos);
}

TEST_CASE("metrics: the writer replaces its file whole, at once and every interval", "[daemon]") {
  TempDir dir;
  std::string path = dir.path + "/bb.prom";
  std::atomic<int> calls{0};
  mode_t old_umask = ::umask(077);  // a daemon's umask must not hide the file from the collector
  {
    MetricsWriter w(path, std::chrono::seconds(1),
                    [&] { return "bb_nodes{node=\"0\"} " + std::to_string(++calls) + "\n"; });
    for (int i = 0; i < 100 && calls < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    for (int i = 0; i < 100 && ::access(path.c_str(), F_OK) != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    CHECK(line == "bb_nodes{node=\"0\"} 1");
    std::ifstream tmp(path + ".tmp");
    CHECK_FALSE(tmp.good());
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);
  }
  ::umask(old_umask);
  CHECK(::access(path.c_str(), F_OK) != 0);  // removed with the writer: no stale counters
}

TEST_CASE("metrics: with a group the file is 0640 and that group's", "[daemon]") {
  TempDir dir;
  std::string path = dir.path + "/bb.prom";
  gid_t gid = ::getgid();
  MetricsWriter w(
      path, std::chrono::seconds(60), [] { return std::string("bb_nodes{node=\"0\"} 1\n"); }, gid);
  struct stat st {};
  for (int i = 0; i < 200 && ::stat(path.c_str(), &st) != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK((st.st_mode & 0777) == 0640);
  CHECK(st.st_gid == gid);
}

TEST_CASE("metrics: a node that reports its name is labelled by it, its index beside", "[daemon]") {
  std::string text = MetricsText({json{{"node", 2}, {"name", "cn017"}, {"nodes", 4}}});
  CHECK(text.find("bb_nodes{node=\"cn017\",node_id=\"2\"} 4") != std::string::npos);
}

}  // namespace
}  // namespace bb::fs
