// ParseDarshanText: darshan-parser --base and --total text (testdata/, written by
// make_darshan_fixtures.py in darshan-parser's layout) into Profiles and signals, and broken
// text giving EINVAL that names the line.
#include <algorithm>
#include <catch2/catch.hpp>

#include "modeselect/profile/profile.h"
#include "modeselect/profile/signals.h"
#include "modeselect/profile/test_builders.h"

namespace bb::modeselect {
namespace {

using testing::FindIn;
using testing::Fixture;
using testing::kMiB;

// Signals no Darshan log has: nodes, directories and what only the file system sees.
const char* const kNeverFromDarshan[] = {"profile.writer_nodes_per_file",
                                         "profile.shared_write_fraction",
                                         "profile.cross_node_read_fraction",
                                         "profile.cross_node_files",
                                         "profile.cross_node_file_fraction",
                                         "profile.shared_dir_meta_share",
                                         "profile.common_parent_dirs",
                                         "profile.cross_node_dirs",
                                         "profile.creates",
                                         "profile.shared_dir_creator_nodes",
                                         "profile.readdirs",
                                         "profile.append_fraction",
                                         "profile.nodes"};
// Signals that need per-file records (absent from --total).
const char* const kPerFile[] = {"profile.files_written",
                                "profile.files_read",
                                "profile.writers_per_file",
                                "profile.files_per_writer",
                                "profile.cross_rank_read_fraction",
                                "profile.shared_read_fraction",
                                "profile.phases",
                                "profile.processes"};

struct Expected {
  const char* fixture;
  ProfileSource source;
  std::vector<std::pair<const char*, double>> signals;
};

Profile Parse(const char* fixture) {
  Result<Profile> r = ParseDarshanText(Fixture(fixture), fixture);
  if (!r.has_value()) FAIL(r.error().message());
  return std::move(r).value();
}

TEST_CASE("ParseDarshanText: signals of the N-N, N-1 and metadata fixtures", "[modeselect][profile]") {
  const double mib64 = 64.0 * kMiB, br1 = 32.0 * kMiB + 512;
  const Expected kCases[] = {
      {"darshan_nn_base.txt",
       ProfileSource::kDarshanBase,
       {
           {"profile.files_written", 4},
           {"profile.files_read", 4},
           {"profile.writers_per_file", 1},
           {"profile.files_per_writer", 1},
           {"profile.cross_rank_read_fraction", 1},
           {"profile.shared_read_fraction", 0},
           {"profile.bytes_written", mib64},
           {"profile.bytes_read", mib64},
           {"profile.read_share", 0.5},
           {"profile.meta_ops", 16},
           {"profile.meta_per_mib", 16.0 / 128},
           {"profile.stats", 4},
           {"profile.fsyncs", 4},
           {"profile.small_write_fraction", 0},
           {"profile.small_read_fraction", 0},
           {"profile.mean_write_size", kMiB},
           {"profile.mean_read_size", kMiB},
           {"profile.random_fraction", 0},
           {"profile.phases", 1},
           {"profile.wall_seconds", 6.2},
           {"profile.processes", 4},
       }},
      {"darshan_nn_total.txt",
       ProfileSource::kDarshanTotal,
       {{"profile.bytes_written", mib64},
        {"profile.bytes_read", mib64},
        {"profile.meta_ops", 16},
        {"profile.random_fraction", 8.0 / 128},  // the first access at offset 0 of 8 records, uncorrectable here
        {"profile.mean_write_size", kMiB},
        {"profile.small_write_fraction", 0},
        {"profile.wall_seconds", 6.2}}},
      {"darshan_n1_base.txt",
       ProfileSource::kDarshanBase,
       {{"profile.files_written", 1},
        {"profile.files_read", 2},
        {"profile.writers_per_file", 4},
        {"profile.files_per_writer", 1},
        {"profile.shared_read_fraction", 32.0 * kMiB / br1},
        {"profile.cross_rank_read_fraction", 0},
        {"profile.processes", 4},
        {"profile.bytes_written", 32.0 * kMiB},
        {"profile.bytes_read", br1},
        {"profile.small_read_fraction", 1.0 / 33},
        {"profile.small_write_fraction", 0},
        {"profile.random_fraction", 0},
        {"profile.meta_ops", 18},
        {"profile.meta_per_mib", 18 / ((br1 + 32.0 * kMiB) / kMiB)},
        {"profile.stats", 5},
        {"profile.fsyncs", 4},
        {"profile.phases", 2}}},
      {"darshan_n1_total.txt",
       ProfileSource::kDarshanTotal,
       {{"profile.bytes_written", 32.0 * kMiB + 3000},  // <STDOUT>'s bytes are in STDIO's sum
        {"profile.bytes_read", br1},
        {"profile.random_fraction", 3.0 / 65},
        {"profile.meta_ops", 18}}},
      {"darshan_meta_base.txt",
       ProfileSource::kDarshanBase,
       {{"profile.files_written", 20},
        {"profile.files_read", 0},
        {"profile.writers_per_file", 1},
        {"profile.files_per_writer", 5},
        {"profile.processes", 4},
        {"profile.meta_ops", 60},
        {"profile.meta_per_mib", 60},
        {"profile.stats", 40},
        {"profile.small_write_fraction", 1},
        {"profile.mean_write_size", 8},
        {"profile.random_fraction", 0},
        {"profile.bytes_written", 160},
        {"profile.phases", 0},
        {"profile.wall_seconds", 1.3}}},
      {"darshan_meta_total.txt",
       ProfileSource::kDarshanTotal,
       {{"profile.meta_ops", 60},
        {"profile.meta_per_mib", 60},
        {"profile.small_write_fraction", 1},
        {"profile.random_fraction", 1},
        {"profile.bytes_written", 160}}},
  };
  for (const Expected& c : kCases) {
    INFO(c.fixture);
    Profile p = Parse(c.fixture);
    CHECK(p.source == c.source);
    CHECK((p.job.tasks == 4 && p.job.nodes == 0 && !p.has_nodes && !p.has_namespace));
    std::vector<Signal> signals = ProfileSignals(p);
    for (const auto& [name, value] : c.signals) {
      INFO(name);
      const Signal* s = FindIn(signals, name);
      REQUIRE(s != nullptr);
      CHECK(s->value == Approx(value).epsilon(1e-12).margin(1e-12));
    }
    for (const char* name : kNeverFromDarshan) CHECK(FindIn(signals, name) == nullptr);
    if (c.source == ProfileSource::kDarshanTotal) {
      for (const char* name : kPerFile) CHECK(FindIn(signals, name) == nullptr);
    }
  }
}

TEST_CASE("ParseDarshanText: a --base log gives every profile signal but the node and namespace ones",
          "[modeselect][profile]") {
  std::vector<Signal> signals = ProfileSignals(Parse("darshan_nn_base.txt"));
  for (const SignalInfo& row : Signals()) {
    std::string_view name = row.name;
    if (!name.starts_with("profile.")) continue;
    INFO(name);
    bool never =
        std::find(std::begin(kNeverFromDarshan), std::end(kNeverFromDarshan), name) != std::end(kNeverFromDarshan);
    CHECK((FindIn(signals, name) != nullptr) != never);
  }
}

TEST_CASE("ParseDarshanText: the N-N log as a Profile", "[modeselect][profile]") {
  Profile p = Parse("darshan_nn_base.txt");
  CHECK(p.job.exe == "/scratch/bin/ior -a POSIX -F -C -w -r -e -t 1m -b 16m -o /scratch/ckpt/rank");
  CHECK((p.job.start_unix == 1764583200 && *p.job.wall_seconds == 6.2));
  REQUIRE(p.files.size() == 4);
  const FileRecord& f = p.files[0];
  CHECK(f.path == "/scratch/ckpt/rank0.dat");
  CHECK((f.io.opens == 2 && f.io.writes == 16 && f.io.reads == 16 && f.io.stats == 1 && f.io.fsyncs == 1));
  CHECK(f.io.write_sizes == SizeBins{0, 0, 0, 0, 16, 0, 0, 0, 0, 0});  // 1 MiB is in Darshan's 100K_1M bin
  CHECK((f.io.seq_writes == 16 && f.io.consec_writes == 16));          // 15 counted, the first added back
  CHECK(f.io.max_offset == 16 * kMiB);
  REQUIRE((f.writers.size() == 1 && f.readers.size() == 1));
  CHECK((f.writers[0].name == "rank 0" && *f.writers[0].bytes == 16 * kMiB));
  CHECK(f.readers[0].name == "rank 3");  // rank r read the file of rank r + 1
  CHECK(!f.shared_record);
  CHECK(f.first_unix == Approx(1764583200.4));
  CHECK(f.last_unix == Approx(1764583205.2));
  CHECK((p.totals.files == 4 && p.totals.meta_ops == 16 && p.totals.data_ops == 128));
  // Writes spread over 0.5-2.5 s, reads over 3.1-5.1 s.
  REQUIRE(p.timeline.buckets.size() == 6);
  CHECK(p.timeline.estimated);
  CHECK((p.timeline.buckets[0].bytes_written == 16 * kMiB && p.timeline.buckets[1].bytes_written == 32 * kMiB));
  CHECK((p.timeline.buckets[3].bytes_read == 30198989 && p.timeline.buckets[5].bytes_read == 3355443));
  std::vector<Signal> signals = ProfileSignals(p);
  const Signal* cross = FindIn(signals, "profile.cross_rank_read_fraction");
  CHECK(cross->why ==
        "67108864 of 67108864 bytes read (100%) were read by processes that did not write the file (4 files): "
        "/scratch/ckpt/rank0.dat (written by rank 0, read by rank 3), /scratch/ckpt/rank1.dat (written by rank 1, "
        "read by rank 0), /scratch/ckpt/rank2.dat (written by rank 2, read by rank 1) and 1 more");
}

TEST_CASE("ParseDarshanText: the N-1 MPI-IO log's shared records", "[modeselect][profile]") {
  Profile p = Parse("darshan_n1_base.txt");
  REQUIRE(p.files.size() == 2);  // <STDOUT> left out
  const FileRecord& shared = p.files[0];
  CHECK(shared.path == "/scratch/shared.dat");
  CHECK((shared.shared_record && shared.shared_writers == 4 && shared.shared_readers == 4));
  CHECK((shared.writers.empty() && shared.readers.empty()));
  CHECK((shared.mpiio.coll_writes == 32 && shared.mpiio.coll_reads == 32 && shared.mpiio.coll_opens == 8));
  CHECK((shared.io.opens == 8 && shared.io.writes == 32 && shared.io.bytes_written == 32 * kMiB));
  const FileRecord& input = p.files[1];
  REQUIRE(input.readers.size() == 1);
  CHECK((input.readers[0].name == "rank 0" && *input.readers[0].bytes == 512));
  std::vector<Signal> s = ProfileSignals(p);
  CHECK(FindIn(s, "profile.writers_per_file")->why ==
        "the 1 written files had 4 writer processes each; the most: /scratch/shared.dat (4)");
  CHECK(FindIn(s, "profile.cross_rank_read_fraction")
            ->why.find("(0 files; 1 with a rank -1 record name no ranks and count as not)") != std::string::npos);
  CHECK((p.totals.mpiio.coll_writes == 32 && p.totals.mpiio.indep_writes == 0 && p.totals.mpiio.Reads() == 32));
  CHECK(FindIn(s, "profile.phases")->why ==
        "2 switches between write-heavy and read-heavy seconds: read 0 s, write 1-2 s, read 4-5 s (estimated from "
        "Darshan's first and last read and write times)");
}

TEST_CASE("ParseDarshanText: truncated and garbled logs name the line", "[modeselect][profile]") {
  Result<Profile> cut = ParseDarshanText(Fixture("darshan_truncated.txt"), "darshan_truncated.txt");
  REQUIRE(!cut.has_value());
  CHECK(cut.error().code() == EINVAL);
  CHECK(cut.error().message() ==
        "darshan_truncated.txt: line 260: a record with 4 of 8 columns (truncated or not a record): \"POSIX\"");
  Result<Profile> bad = ParseDarshanText(Fixture("darshan_garbled.txt"), "darshan_garbled.txt");
  REQUIRE(!bad.has_value());
  CHECK(bad.error().message() ==
        "darshan_garbled.txt: line 150: value \"0x1f\" of POSIX_BYTES_WRITTEN is not a number");
}

const std::string kHead =
    "# darshan log version: 3.41\n# exe: ./a.out\n# nprocs: 2\n# run time: 3.5000\n\n"
    "# *******************************************************\n# POSIX module data\n"
    "# *******************************************************\n";

std::string Rec(const std::string& rank, const std::string& counter, const std::string& value,
                const std::string& module = "POSIX") {
  return module + "\t" + rank + "\t77\t" + counter + "\t" + value + "\t/s/f\t/s\tfuse.bbfs\n";
}

TEST_CASE("ParseDarshanText: each malformed line", "[modeselect][profile]") {
  const std::pair<std::string, std::string> kBad[] = {
      {"hello world\n", "line 1: a record before the \"# darshan log version:\" header: not darshan-parser output"},
      {"# just a comment\n\n", "not darshan-parser output: no \"# darshan log version:\" line in 2 lines"},
      {Rec("0", "POSIX_OPENS", "1"),
       "line 1: a record before the \"# darshan log version:\" header: not darshan-parser output"},
      {"# darshan log version: 3.41\n" + Rec("0", "POSIX_OPENS", "1"),
       "line 2: a record before the \"# nprocs:\" line"},
      {"# darshan log version: 3.41\n# nprocs: -4\n", "line 2: nprocs \"-4\" is not a positive integer"},
      {kHead + Rec("2", "POSIX_OPENS", "1"), "line 9: rank 2 but the header says nprocs 2"},
      {kHead + Rec("x", "POSIX_OPENS", "1"), "line 9: rank \"x\" is not an integer >= -1"},
      {kHead + Rec("-2", "POSIX_OPENS", "1"), "line 9: rank \"-2\" is not an integer >= -1"},
      {kHead + "POSIX\t0\tabc\tPOSIX_OPENS\t1\t/f\t/\text4\n", "line 9: record id \"abc\" is not an unsigned integer"},
      {kHead + Rec("0", "POSIX OPENS", "1"), "line 9: counter name \"POSIX OPENS\" is not one word"},
      {kHead + Rec("0", "MPIIO_COLL_WRITES", "3"), "line 9: counter MPIIO_COLL_WRITES in a POSIX record"},
      {kHead + Rec("0", "MPIIO_COLL_WRITES", "3", "MPI-IO"),
       "line 9: a record of module \"MPI-IO\" in the POSIX module section"},
      {kHead + Rec("0", "POSIX_READS", "7e"), "line 9: value \"7e\" of POSIX_READS is not a number"},
      {kHead + "total_POSIX_READS 7\n",
       "line 9: a total line that is not \"total_<COUNTER>: <value>\": "
       "\"total_POSIX_READS 7\""},
      {kHead + "total_POSIX_READS: seven\n", "line 9: value \"seven\" of POSIX_READS is not a number"},
  };
  for (const auto& [text, message] : kBad) {
    INFO(text);
    Result<Profile> r = ParseDarshanText(text, "t");
    REQUIRE(!r.has_value());
    CHECK(r.error().code() == EINVAL);
    CHECK(r.error().message() == "t: " + message);
  }
}

TEST_CASE("ParseDarshanText: what the format allows", "[modeselect][profile]") {
  // A section that never ends (no newline after the last record), blanks instead of tabs, a
  // file name with a tab in it, -1 for a counter not monitored, an unknown counter.
  std::string text = kHead + Rec("0", "POSIX_OPENS", "1") + "POSIX 1 77 POSIX_WRITES 3 /s/f /s fuse.bbfs\n" +
                     "POSIX\t1\t78\tPOSIX_READS\t2\t/s/a\tb\t/s\tfuse.bbfs\n" + Rec("0", "POSIX_STATS", "-1") +
                     Rec("0", "POSIX_NEW_COUNTER", "9") + "POSIX\t1\t77\tPOSIX_BYTES_WRITTEN\t300\t/s/f\t/s\tfuse.bbfs";
  Result<Profile> r = ParseDarshanText(text, "t");
  REQUIRE(r.has_value());
  REQUIRE(r->files.size() == 2);
  CHECK((r->files[0].path == "/s/f" && r->files[0].io.opens == 1 && r->files[0].io.writes == 3));
  CHECK(r->files[0].io.bytes_written == 300);
  CHECK(r->files[0].io.stats == 0);
  CHECK(r->files[1].path == "/s/a\tb");
  REQUIRE(r->warnings.size() == 1);
  CHECK(r->warnings[0] == "darshan: 1 counters read were -1 (not monitored) and count as 0");
  // Header only: a job that opened nothing.
  Result<Profile> none =
      ParseDarshanText("# darshan log version: 3.41\n# nprocs: 8\n# no module data available.\n", "n");
  REQUIRE(none.has_value());
  CHECK((none->source == ProfileSource::kDarshanBase && none->files.empty() && none->job.tasks == 8));
}

}  // namespace
}  // namespace bb::modeselect
