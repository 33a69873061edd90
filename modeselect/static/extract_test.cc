// ExtractStatic end to end: a fake job folder on disk (testdata/job1: job.sh, a sourced
// env.sh, a helper post.sh, src/ with a Makefile, C, Fortran and Python), and the errors.
#include "modeselect/static/extract.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "modeselect/static/test_util.h"

namespace bb::modeselect {
namespace {

using testing::Render;

const std::string kJob = BB_SOURCE_DIR "/modeselect/static/testdata/job1/job.sh";

TEST_CASE("ExtractStatic on a job folder: script, helpers and sources", "[modeselect]") {
  Result<StaticEvidence> r = ExtractStatic(kJob, {});
  REQUIRE(r.has_value());
  CHECK(r->nodes == 4);
  CHECK(r->ntasks == 0);
  CHECK(r->ntasks_per_node == 8);
  CHECK(r->files_scanned == std::vector<std::string>{"job.sh", "env.sh", "src/Makefile", "post.sh", "src/solver.c",
                                                     "src/io.c", "src/analyze.py", "src/field.f90", "src/summary.py"});
  REQUIRE(r->launches.size() == 8);
  std::vector<std::string> programs;
  for (const Launch& l : r->launches) programs.push_back(l.launcher + " " + l.argv[0] + " @" + std::to_string(l.line));
  CHECK(programs == std::vector<std::string>{"srun ior @24", "srun ior @27", "srun ./src/solver @29",
                                             "mpirun python3 @30", "srun ./field @31", "srun mdtest @32",
                                             "srun fio @44", " python3 @3"});
  CHECK(r->launches[1].distribution == "cyclic");
  CHECK(r->launches[3].tasks == 16);
  CHECK(r->launches[3].tasks_per_node == 4);
  CHECK(r->launches[7].file == "post.sh");
  CHECK(Render(r->findings, true) == std::vector<std::string>{"job.sh:17 script.stage_in 1",
                                                              "job.sh:20 script.rank_dirs 4",
                                                              "job.sh:24 ior.api_mpiio 1",
                                                              "job.sh:24 ior.block_size 4194304",
                                                              "job.sh:24 ior.collective 1",
                                                              "job.sh:24 ior.file_per_proc 1",
                                                              "job.sh:24 ior.fsync 1",
                                                              "job.sh:24 ior.run 32",
                                                              "job.sh:24 ior.segments 4",
                                                              "job.sh:24 ior.transfer_size 1048576",
                                                              "job.sh:24 ior.write 1",
                                                              "job.sh:24 launch.parallel 32",
                                                              "job.sh:27 file.read_other_node 0",
                                                              "job.sh:27 ior.api_mpiio 1",
                                                              "job.sh:27 ior.block_size 4194304",
                                                              "job.sh:27 ior.collective 1",
                                                              "job.sh:27 ior.file_per_proc 1",
                                                              "job.sh:27 ior.read 1",
                                                              "job.sh:27 ior.reorder 1",
                                                              "job.sh:27 ior.run 32",
                                                              "job.sh:27 ior.segments 4",
                                                              "job.sh:27 ior.transfer_size 1048576",
                                                              "job.sh:27 launch.layout_changes 1",
                                                              "job.sh:27 launch.multi_step 7",
                                                              "job.sh:27 launch.parallel 32",
                                                              "job.sh:27 script.reads_earlier_output 1",
                                                              "job.sh:29 launch.parallel 32",
                                                              "job.sh:30 launch.layout_changes 1",
                                                              "job.sh:30 launch.parallel 16",
                                                              "job.sh:30 script.reads_earlier_output 1",
                                                              "job.sh:31 launch.parallel 32",
                                                              "job.sh:32 file.read_other_node 1",
                                                              "job.sh:32 launch.parallel 32",
                                                              "job.sh:32 mdtest.depth 2",
                                                              "job.sh:32 mdtest.files_only 1",
                                                              "job.sh:32 mdtest.items 1000",
                                                              "job.sh:32 mdtest.read_bytes 4096",
                                                              "job.sh:32 mdtest.run 32",
                                                              "job.sh:32 mdtest.shift 8",
                                                              "job.sh:32 mdtest.unique_dir 1",
                                                              "job.sh:32 mdtest.write_bytes 4096",
                                                              "job.sh:36 fio.block_size 4096",
                                                              "job.sh:37 fio.size 67108864",
                                                              "job.sh:39 fio.file_per_job 1",
                                                              "job.sh:39 fio.nrfiles 1",
                                                              "job.sh:40 fio.rand_write 1",
                                                              "job.sh:41 fio.numjobs 4",
                                                              "job.sh:42 fio.fsync 16",
                                                              "job.sh:44 fio.run 1",
                                                              "job.sh:44 launch.parallel 4",
                                                              "job.sh:46 script.stage_out 1",
                                                              "post.sh:3 script.reads_earlier_output 1",
                                                              "src/analyze.py:10 file.per_rank 1",
                                                              "src/analyze.py:10 io.numpy 1",
                                                              "src/analyze.py:7 meta.dir_scan 1",
                                                              "src/analyze.py:8 access.shuffle 1",
                                                              "src/field.f90:10 io.fortran 1",
                                                              "src/field.f90:23 access.small_writes 4",
                                                              "src/field.f90:23 meta.create_storm 20",
                                                              "src/field.f90:8 file.per_rank 1",
                                                              "src/field.f90:8 io.fortran 1",
                                                              "src/field.f90:9 io.fortran 1",
                                                              "src/io.c:5 io.stdio 1",
                                                              "src/solver.c:16 meta.mkdir_one_rank 1",
                                                              "src/solver.c:19 file.per_rank 1",
                                                              "src/solver.c:19 io.stdio 1",
                                                              "src/solver.c:21 access.small_writes 256",
                                                              "src/solver.c:23 io.stdio 1",
                                                              "src/solver.c:24 sync.barrier_between_phases 1",
                                                              "src/solver.c:26 file.per_rank 1",
                                                              "src/solver.c:26 file.read_other_rank 1",
                                                              "src/solver.c:26 file.write_then_read 1",
                                                              "src/solver.c:26 io.stdio 1",
                                                              "src/solver.c:27 io.stdio 1",
                                                              "src/summary.py:4 meta.dir_scan 1",
                                                              "src/summary.py:5 io.python 1",
                                                              "src/summary.py:6 io.python 1"});
  for (const Finding& f : r->findings) {
    INFO(f.fact << " " << f.file << ":" << f.line);
    CHECK(FactKnown(f.fact));
    CHECK(f.snippet.size() <= 160);
    CHECK_FALSE(f.snippet.empty());
  }
  std::vector<const Finding*> small = r->Of("access.small_writes");
  REQUIRE(small.size() == 2);
  CHECK(small[0]->file == "src/solver.c");
  CHECK(small[0]->snippet == "write_record(fp, rec, sizeof rec);");
}

TEST_CASE("ExtractStatic is fast: a whole job in well under 20 ms", "[modeselect]") {
  double best = 1e9;
  for (int i = 0; i < 5; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Result<StaticEvidence> r = ExtractStatic(kJob, {});
    REQUIRE(r.has_value());
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
#ifdef NDEBUG
  CHECK(best < 20);
#endif
}

TEST_CASE("ExtractStatic: the job script's errors, unreadable sources are listed, not fatal", "[modeselect]") {
  Result<StaticEvidence> missing = ExtractStatic(BB_SOURCE_DIR "/modeselect/static/testdata/none.sh", {});
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code() == ENOENT);
  CHECK(missing.error().message().find("none.sh") != std::string::npos);

  MemoryFiles files;
  files.AddUnreadable("/j/job.sh", EACCES);
  Result<StaticEvidence> denied = ExtractStatic("/j/job.sh", {}, files);
  REQUIRE_FALSE(denied.has_value());
  CHECK(denied.error().code() == EACCES);

  MemoryFiles job;
  job.Add("/j/job.sh", "#SBATCH -N 2\nsrun python3 app/train.py\n");
  job.Add("/j/app/train.py", "import os\nos.makedirs('out')\n");
  job.AddUnreadable("/j/app/secret.c", EACCES);
  job.Add("/elsewhere/lib/io.f90", "program p\nopen(10, file='x', status='new')\nend program p\n");
  job.Add("/elsewhere/lib/notes.txt", "open(\n");
  ExtractOptions opts;
  opts.source_dirs = {"/j", "/elsewhere/lib"};
  Result<StaticEvidence> r = ExtractStatic("/j/job.sh", opts, job);
  REQUIRE(r.has_value());
  CHECK(r->files_scanned ==
        std::vector<std::string>{"job.sh", "app/train.py", "unreadable:app/secret.c", "/elsewhere/lib/io.f90"});
  CHECK(Render(r->findings, true) ==
        testing::Sorted({"job.sh:2 launch.parallel 2", "app/train.py:2 meta.mkdir_every_rank 1",
                         "/elsewhere/lib/io.f90:2 file.create_excl 1", "/elsewhere/lib/io.f90:2 io.fortran 1"}));
}

}  // namespace
}  // namespace bb::modeselect
