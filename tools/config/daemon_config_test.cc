#include "tools/config/daemon_config.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "fs/base/units.h"

namespace bb::config {
namespace {

TEST_CASE("a full configuration parses", "[config]") {
  auto c = ParseDaemonConfig(
      "root: /var/bb\nmount: /mnt/bb\nchunk_size: 1MiB\nlog_level: debug\n"
      "fuse_threads: 8\ncache_timeout: 0.5\nreserve: 16MiB\n",
      "bbd.yaml");
  REQUIRE(c.has_value());
  CHECK(c->root == "/var/bb");
  CHECK(c->mount == "/mnt/bb");
  CHECK(c->chunk_size == 1 << 20);
  CHECK(c->log_level == "debug");
  CHECK(c->fuse_threads == 8);
  CHECK(c->cache_timeout == 0.5);
  CHECK(c->reserve_bytes == 16 << 20);
}

TEST_CASE("QoS and caching fields parse", "[config]") {
  auto c = ParseDaemonConfig(
      "qos_stage: on\nqos_controller: 10.0.0.1:7600\nqos_threads: 8\nprivate_cache_timeout: 5\n"
      "qos_limits:\n  A: {metadata: 2000}\n  '42': {metadata: 100, data: 50MiB}\n",
      "bbd.yaml");
  REQUIRE(c.has_value());
  CHECK(c->QosActive());
  CHECK(c->qos_controller == "10.0.0.1:7600");
  CHECK(c->qos_threads == 8);
  CHECK(c->private_cache_timeout == 5);
  CHECK(*c->qos_limits.at("A").metadata == 2000);
  CHECK_FALSE(c->qos_limits.at("A").data.has_value());
  CHECK(*c->qos_limits.at("42").data == 50.0 * 1048576);
  CHECK_FALSE(ParseDaemonConfig("", "x")->QosActive());
  CHECK(ParseDaemonConfig("qos_limits: {A: {metadata: 1}}\n", "x")->QosActive());
  CHECK_FALSE(ParseDaemonConfig("qos_stage: off\nqos_limits: {A: {metadata: 1}}\n", "x")->QosActive());
}

TEST_CASE("an empty file gives the defaults", "[config]") {
  auto c = ParseDaemonConfig("", "empty.yaml");
  REQUIRE(c.has_value());
  CHECK(c->chunk_size == 512 * 1024);
  CHECK(c->fsname == "bbfs");
  CHECK(ParseDaemonConfig("fsname: bb-scratch\n", "bbd.yaml")->fsname == "bb-scratch");
  CHECK(c->rpc_poll_spin_us == 50);
  CHECK(c->io_threads == 16);
  CHECK(c->rpc_large_in_flight == 16);
  CHECK(c->write_behind_bytes == 64 << 20);
  CHECK(ParseDaemonConfig("write_behind: 0\n", "bbd.yaml")->write_behind_bytes == 0);
  CHECK(ParseDaemonConfig("write_behind: 1GiB\n", "bbd.yaml")->write_behind_bytes == 1 << 30);
  auto spin = ParseDaemonConfig("rpc_poll_spin: 0\n", "bbd.yaml");
  REQUIRE(spin.has_value());
  CHECK(spin->rpc_poll_spin_us == 0);
  auto io = ParseDaemonConfig("io_threads: 4\nrpc_large_in_flight: 32\n", "bbd.yaml");
  REQUIRE(io.has_value());
  CHECK(io->io_threads == 4);
  CHECK(io->rpc_large_in_flight == 32);
}

TEST_CASE("bad configurations name the file, line and field", "[config]") {
  struct Row {
    const char* text;
    const char* want;
  };
  const Row rows[] = {
      {"root: /a\nchunksize: 4096\n", "bbd.yaml:2: unknown field 'chunksize'"},
      {"chunk_size: 3000\n", "bbd.yaml:1: field 'chunk_size' must be a power of two"},
      {"chunk_size: 12XB\n", "bbd.yaml:1: field 'chunk_size': '12XB' has an unknown unit"},
      {"fuse_threads: many\n", "bbd.yaml:1: field 'fuse_threads' must be an integer"},
      {"fuse_threads: 0\n", "bbd.yaml:1: field 'fuse_threads' must be 1..1024"},
      {"log_level: loud\n", "bbd.yaml:1: field 'log_level' must be one of"},
      {"cache_timeout: -1\n", "bbd.yaml:1: field 'cache_timeout' must be 0..3600"},
      {"root: [a, b]\n", "bbd.yaml:1: field 'root' must be a path"},
      {"- a\n- b\n", "bbd.yaml:1: the configuration must be a mapping"},
      {"root: /a\n  mount: : :\n", "bbd.yaml:2:"},
      {"{a: 1}: 2\n", "bbd.yaml:1: field names must be plain words"},
      {"qos_stage: maybe\n", "bbd.yaml:1: field 'qos_stage' must be auto, on or off"},
      {"qos_controller: nowhere\n", "bbd.yaml:1: field 'qos_controller'"},
      {"qos_limits:\n  A: {metadata: -5}\n", "bbd.yaml:2: field 'qos_limits.A.metadata' must be above 0"},
      {"qos_limits:\n  A: {iops: 5}\n", "bbd.yaml:2: unknown field 'qos_limits.A.iops'"},
      {"qos_limits: 5\n", "bbd.yaml:1: field 'qos_limits' must map job ids to limits"},
      {"private_cache_timeout: 9000\n", "bbd.yaml:1: field 'private_cache_timeout' must be 0..3600"},
      {"rpc_poll_spin: 20000\n", "bbd.yaml:1: field 'rpc_poll_spin' must be 0..10000"},
      {"io_threads: 0\n", "bbd.yaml:1: field 'io_threads' must be 1..256"},
      {"rpc_large_in_flight: 2000\n", "bbd.yaml:1: field 'rpc_large_in_flight' must be 1..1024"},
      {"rpc_large_in_flight: many\n", "bbd.yaml:1: field 'rpc_large_in_flight' must be an integer"},
      {"rpc_poll_spin: fast\n", "bbd.yaml:1: field 'rpc_poll_spin' must be microseconds"},
      {"write_behind: 100GiB\n", "bbd.yaml:1: field 'write_behind' must be at most 64GiB"},
      {"write_behind: lots\n", "bbd.yaml:1: field 'write_behind'"},
      {"io_threads: 4\nio_threads: 8\n", "bbd.yaml:2: field 'io_threads' is given twice (first on line 1)"},
      {"qos_limits:\n  A: {metadata: 1, metadata: 2}\n", "bbd.yaml:2: field 'metadata' is given twice"},
      {"fsname: bb,allow_other\n", "bbd.yaml:1: field 'fsname' must be 1-64 letters"},
      {"fsname: 'a b'\n", "bbd.yaml:1: field 'fsname' must be 1-64 letters"},
      {"fsname: ''\n", "bbd.yaml:1: field 'fsname' must be 1-64 letters"},
  };
  for (const Row& r : rows) {
    INFO(r.text);
    auto c = ParseDaemonConfig(r.text, "bbd.yaml");
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().code() == EINVAL);
    CHECK_THAT(c.error().message(), Catch::Contains(r.want));
  }
}

TEST_CASE("sizes parse with units", "[config]") {
  CHECK(*ParseByteSize("4096") == 4096);
  CHECK(*ParseByteSize("512KiB") == 512 * 1024);
  CHECK(*ParseByteSize("2G") == 2ULL << 30);
  CHECK_FALSE(ParseByteSize("").has_value());
  CHECK_FALSE(ParseByteSize("KiB").has_value());
  CHECK_FALSE(ParseByteSize("99999999999999999999").has_value());
  CHECK(FormatByteSize(512) == "512 B");
  CHECK(FormatByteSize(1536) == "1.5 KiB");
  CHECK(FormatByteSize(3.0 * (1 << 30)) == "3 GiB");
}

TEST_CASE("command-line values are read as the file's and override it", "[config]") {
  auto c = ParseDaemonConfig("io_threads: 4\nroot: /a\n", "bbd.yaml");
  REQUIRE(c.has_value());
  REQUIRE(ApplyOverrides(&*c, {{"io_threads", "8"}, {"chunk_size", "1MiB"}}, "command line").ok());
  CHECK(c->io_threads == 8);
  CHECK(c->chunk_size == 1 << 20);
  CHECK(c->root == "/a");
  Status bad = ApplyOverrides(&*c, {{"io_threads", "0"}}, "command line");
  CHECK_THAT(bad.message(), Catch::Contains("command line:1: field 'io_threads' must be 1..256"));
  CHECK(ApplyOverrides(&*c, {{"qos_limits", "x"}}, "command line").code() == EINVAL);  // no flag
  CHECK(ApplyOverrides(&*c, {{"colour", "blue"}}, "command line").code() == EINVAL);
  CHECK(FlagOf("rpc_large_in_flight") == "--rpc-large-in-flight");
}

TEST_CASE("every field of the table is read from the file, and docs/install.md lists each", "[config]") {
  std::ifstream in(std::string(BB_SOURCE_DIR) + "/docs/install.md");
  std::stringstream page;
  page << in.rdbuf();
  // The page's table is DaemonFieldsMarkdown() word for word (regenerate it with
  // `bbd --config-fields`).
  CHECK_THAT(page.str(), Catch::Contains(DaemonFieldsMarkdown()));
  for (const DaemonField& f : DaemonFields()) {
    INFO(f.name);
    // A value of the wrong shape is refused with the field's name and line, whatever its kind.
    auto c = ParseDaemonConfig(std::string("\n") + f.name + ": [1, 2]\n", "bbd.yaml");
    REQUIRE_FALSE(c.has_value());
    CHECK_THAT(c.error().message(), Catch::Contains("bbd.yaml:2: ") && Catch::Contains(f.name));
  }
}

TEST_CASE("a missing config file is an error that names it", "[config]") {
  auto c = LoadDaemonConfig("/nonexistent/bbd.yaml");
  REQUIRE_FALSE(c.has_value());
  CHECK_THAT(c.error().message(), Catch::Contains("/nonexistent/bbd.yaml"));
}

}  // namespace
}  // namespace bb::config
