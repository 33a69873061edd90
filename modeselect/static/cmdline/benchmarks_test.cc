// IOR, mdtest and fio: option tables in short and long forms, sizes, job files.
#include "modeselect/static/cmdline/benchmarks.h"

#include <catch2/catch.hpp>

#include "modeselect/static/test_util.h"
#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

using testing::Render;
using testing::Sorted;

std::vector<std::string> Args(std::string_view line) {
  std::vector<std::string> out;
  for (std::string_view w : text::Split(line, " ")) out.emplace_back(w);
  return out;
}

const Where kAt{"job.sh", 7, "srun ior ...", 16};

TEST_CASE("IOR: short options, grouped flags, defaults", "[modeselect]") {
  BenchmarkRun r = ParseIorArgs(Args("-a POSIX -b 47008 -t 4k -s 8 -F -w -e -o /bb/ior/f -i 3"), kAt);
  CHECK(Render(r.findings) == Sorted({"7 ior.run 16", "7 ior.file_per_proc 1", "7 ior.write 1", "7 ior.fsync 1",
                                      "7 ior.transfer_size 4096", "7 ior.block_size 47008", "7 ior.segments 8"}));
  CHECK(r.paths == std::vector<std::string>{"/bb/ior/f"});
  CHECK(r.writes);
  CHECK_FALSE(r.reads);

  r = ParseIorArgs(Args("-t1m -b2g -vvz -C -Q 1 -Z -D 30"), kAt);
  CHECK(Render(r.findings) == Sorted({"7 ior.run 16", "7 ior.shared_file 1", "7 ior.write 1", "7 ior.read 1",
                                      "7 ior.reorder 1", "7 ior.random 1", "7 ior.transfer_size 1048576",
                                      "7 ior.block_size 2147483648", "7 ior.segments 1", "7 ior.stonewall 30"}));
  CHECK(r.paths == std::vector<std::string>{"testFile"});
}

TEST_CASE("IOR: long options and -O directives", "[modeselect]") {
  BenchmarkRun r =
      ParseIorArgs(Args("-a MPIIO --collective --dataPacketType offset --mpiio.useFileView -r "
                        "-O blockSize=8m,transferSize=2m,segmentCount=2,filePerProc=1,reorderTasks=1 -o f"),
                   kAt);
  CHECK(Render(r.findings) ==
        Sorted({"7 ior.run 16", "7 ior.file_per_proc 1", "7 ior.read 1", "7 ior.reorder 1", "7 ior.collective 1",
                "7 ior.api_mpiio 1", "7 ior.transfer_size 2097152", "7 ior.block_size 8388608", "7 ior.segments 2"}));
  CHECK(r.reads);
  CHECK_FALSE(r.writes);
  r = ParseIorArgs(Args("-O fileperproc=0 -F -Y"), kAt);
  CHECK(testing::Only(Render(r.findings), {"ior.shared_file", "ior.file_per_proc", "ior.fsync"}) ==
        Sorted({"7 ior.shared_file 1", "7 ior.fsync 1"}));
}

TEST_CASE("IOR scripts: key=value lines of every run, comments and markers left out", "[modeselect]") {
  CHECK(
      IorScriptDirectives("IOR START\n  api=MPIIO # the API\n  blockSize=8m\nRUN\n  filePerProc=1\nRUN\nIOR STOP\n") ==
      "api=MPIIO,blockSize=8m,filePerProc=1");
  CHECK(IorScriptDirectives("# only a comment\nnot a setting\n=x\nhints=a,b\n") == "");
  BenchmarkRun r =
      ParseIorArgs(Args("-O " + IorScriptDirectives("IOR START\nfilePerProc=1\nrandomOffset=1\nRUN\n")), kAt);
  CHECK(testing::Only(Render(r.findings), {"ior.file_per_proc", "ior.random"}) ==
        Sorted({"7 ior.file_per_proc 1", "7 ior.random 1"}));
}

TEST_CASE("mdtest: its option table, -B takes a value", "[modeselect]") {
  BenchmarkRun r = ParseMdtestArgs(
      Args("-n 1000 -u -F -d /bb/md@/bb/md2 -z 3 -b 2 -N 4 -w 3901 -e 3901 -W 10 -L -P -Y -X -i 2 -C"), kAt);
  CHECK(Render(r.findings) == Sorted({"7 mdtest.run 16", "7 mdtest.unique_dir 1", "7 mdtest.files_only 1",
                                      "7 mdtest.items 1000", "7 mdtest.shift 4", "7 mdtest.write_bytes 3901",
                                      "7 mdtest.read_bytes 3901", "7 mdtest.depth 3", "7 mdtest.stonewall 10"}));
  CHECK(r.paths == std::vector<std::string>{"/bb/md", "/bb/md2"});
  CHECK(r.writes);
  CHECK_FALSE(r.reads);
  r = ParseMdtestArgs(Args("-I 10 -D -B 1 -T -E -r"), kAt);
  CHECK(Render(r.findings) ==
        Sorted({"7 mdtest.run 16", "7 mdtest.shared_dir 1", "7 mdtest.dirs_only 1", "7 mdtest.items 10"}));
  CHECK(r.reads);
  CHECK_FALSE(r.writes);
}

struct ShiftCase {
  const char* args;
  std::vector<RankShift> shifts;  // by kind and offset
};

TEST_CASE("IOR and mdtest: whose data the reading phases read", "[modeselect]") {
  const ShiftCase kIor[] = {
      {"-w -r -C", {{RankShift::kIorNode, 1}}},
      {"-r -C -Q 2", {{RankShift::kIorNode, 2}}},
      {"-w -W -C", {{RankShift::kIorNode, 2}}},  // the write check: two nodes away
      {"-w -r -W -C", {{RankShift::kIorNode, 1}, {RankShift::kIorNode, 2}}},
      {"-w -r -Z -X 11 -Q 3", {{RankShift::kIorRandom, 3}}},
      {"-w -r -C -Z", {{RankShift::kIorRandom, 1}}},  // -Z draws over -C
      {"-w -C", {}},                                  // no read phase
      {"-w -r -Q 2 -X 5", {}},                        // -Q and -X alone change nothing
      {"-r -O reorderTasks=1,taskPerNodeOffset=2", {{RankShift::kIorNode, 2}}},
  };
  for (const ShiftCase& c : kIor) {
    INFO("ior " << c.args);
    BenchmarkRun r = ParseIorArgs(Args(c.args), kAt);
    REQUIRE(r.shifts.size() == c.shifts.size());
    for (size_t i = 0; i < c.shifts.size(); ++i) {
      CHECK(r.shifts[i].kind == c.shifts[i].kind);
      CHECK(r.shifts[i].offset == c.shifts[i].offset);
    }
  }
  const ShiftCase kMdtest[] = {
      {"-n 10 -N 1", {{RankShift::kOffset, 1}, {RankShift::kOffset, 2}, {RankShift::kOffset, 3}}},
      {"-n 10 -T -N 2", {{RankShift::kOffset, 2}}},
      {"-n 10 -E -r -N 1", {{RankShift::kOffset, 2}, {RankShift::kOffset, 3}}},
      {"-n 10 -C -N 1", {}},  // the create phase works on its own items
      {"-n 10", {}},
  };
  for (const ShiftCase& c : kMdtest) {
    INFO("mdtest " << c.args);
    BenchmarkRun r = ParseMdtestArgs(Args(c.args), kAt);
    REQUIRE(r.shifts.size() == c.shifts.size());
    for (size_t i = 0; i < c.shifts.size(); ++i) CHECK(r.shifts[i].offset == c.shifts[i].offset);
  }
}

TEST_CASE("fio: which rw modes read and write", "[modeselect]") {
  struct Row {
    const char* rw;
    bool reads, writes;
  };
  const Row kRows[] = {{"read", true, false},      {"write", false, true}, {"randread", true, false},
                       {"randwrite", false, true}, {"rw", true, true},     {"readwrite", true, true},
                       {"randrw", true, true}};
  for (const Row& row : kRows) {
    INFO(row.rw);
    BenchmarkRun r = ParseFioArgs(Args(std::string("--name=j --filename=/bb/f --rw=") + row.rw), {}, kAt);
    CHECK(r.reads == row.reads);
    CHECK(r.writes == row.writes);
  }
}

TEST_CASE("fio: command-line sections, globals before the first --name", "[modeselect]") {
  BenchmarkRun r = ParseFioArgs(Args("--direct=1 --bs 1m --name=w --rw=write --size=2g --filename=/bb/shared "
                                     "--name=r --rw=randread --numjobs=8 --time_based --runtime=30s --output=x.json"),
                                {}, kAt);
  CHECK(Render(r.findings) ==
        Sorted({"7 fio.run 2", "7 fio.seq_write 1", "7 fio.shared_file 1", "7 fio.block_size 1048576",
                "7 fio.nrfiles 1", "7 fio.size 2147483648", "7 fio.direct 1", "7 fio.rand_read 1",
                "7 fio.file_per_job 1", "7 fio.numjobs 8", "7 fio.time_based 30"}));
  CHECK(r.paths == std::vector<std::string>{"/bb/shared"});
}

TEST_CASE("fio: job files, [global] inherited, ${VAR} from the script", "[modeselect]") {
  FioJobFile f{"job.sh", R"INI([global]
directory=${DIR}/fio
bs=4k
ioengine=libaio
; a comment
[seq]
rw=write
size=1g
end_fsync=1
[meta]
ioengine=filecreate
nrfiles=5000
filename_format=$jobname.$jobnum.$filenum
numjobs=4
)INI",
               20};
  BenchmarkRun r = ParseFioArgs(Args("job.fio"), {&f, 1}, kAt, {{"DIR", "/bb"}});
  CHECK(Render(r.findings) ==
        Sorted({"7 fio.run 2", "25 fio.file_per_job 1", "22 fio.block_size 4096", "25 fio.numjobs 1",
                "25 fio.nrfiles 1", "26 fio.seq_write 1", "27 fio.size 1073741824", "28 fio.fsync 1",
                "30 fio.filecreate 1", "31 fio.nrfiles 5000", "32 fio.file_per_job 1", "33 fio.numjobs 4"}));
  CHECK(r.paths == std::vector<std::string>{"/bb/fio", "/bb/fio"});
  CHECK(r.writes);
}

}  // namespace
}  // namespace bb::modeselect
