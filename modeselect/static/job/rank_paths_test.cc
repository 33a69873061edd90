// Task identity in paths: which variables tell tasks apart, and what a path built from them
// names.
#include "modeselect/static/job/rank_paths.h"

#include <catch2/catch.hpp>

namespace bb::modeselect {
namespace {

TEST_CASE("rank variables: every row is found by its name, and only those", "[modeselect]") {
  for (const RankVar& v : RankVars()) {
    REQUIRE(FindRankVar(v.name) == &v);
  }
  CHECK(FindRankVar("SLURM_JOB_ID") == nullptr);
  CHECK(FindRankVar("slurm_procid") == nullptr);
}

TEST_CASE("rank variables: a task variable alone names one path per task", "[modeselect]") {
  for (const RankVar& v : RankVars()) {
    std::string path = std::string("/bb/out.${") + v.name + "}";
    PathOwner want = v.scope == RankScope::kTask                                      ? PathOwner::kTask
                     : v.scope == RankScope::kNode || v.scope == RankScope::kNodeSlot ? PathOwner::kNode
                                                                                      : PathOwner::kAll;
    INFO(path);
    CHECK(ClassifyPath(path, 8).owner == want);
  }
}

struct PathCase {
  const char* path;
  int tasks;
  PathOwner owner;
};

TEST_CASE("paths: one for all, per task, per node, another task's", "[modeselect]") {
  const PathCase kCases[] = {
      {"${BB_WORKSPACE}/run/task${SLURM_PROCID}/out.${SLURM_PROCID}", 8, PathOwner::kTask},
      {"${BB_MOUNT}/ckpt.${PMIX_RANK}", 8, PathOwner::kTask},
      {"${BB_MOUNT}/n${SLURM_NODEID}/t${SLURM_LOCALID}", 8, PathOwner::kTask},  // node and slot together
      {"${BB_MOUNT}/node${SLURM_NODEID}/tile", 8, PathOwner::kNode},
      {"${BB_MOUNT}/$(hostname -s)/log", 8, PathOwner::kNode},
      {"${BB_MOUNT}/scratch.${SLURM_LOCALID}", 8, PathOwner::kNode},  // the same names on every node
      {"${BB_MOUNT}/t$((SLURM_PROCID))", 8, PathOwner::kTask},
      {"${BB_MOUNT}/t$((SLURM_PROCID % 8))", 8, PathOwner::kTask},  // the rank itself for 8 tasks
      {"${BB_MOUNT}/t$((SLURM_PROCID+1))", 8, PathOwner::kOtherTask},
      {"${BB_MOUNT}/t$(( (${SLURM_PROCID}+1) % 8 ))", 8, PathOwner::kOtherTask},
      {"${BB_MOUNT}/t$((OMPI_COMM_WORLD_RANK + OFFSET))", 8, PathOwner::kOtherTask},
      {"${BB_MOUNT}/t.${SLURM_PROCID}.$((SLURM_PROCID+1))", 8, PathOwner::kTask},
      {"${BB_MOUNT}/t$((SLURM_NODEID * 2))", 8, PathOwner::kNode},
      {"${BB_MOUNT}/input.dat", 8, PathOwner::kAll},
      {"${BB_WORKSPACE}/out.${SLURM_JOB_ID}/${HOME}", 8, PathOwner::kAll},
      {"${BB_MOUNT}/qc/${name}.tsv", 8, PathOwner::kUnknown},  // a variable of the task's shell
      {"${BB_MOUNT}/qc/$(basename ${in} .fastq).tsv", 8, PathOwner::kUnknown},
      {"${BB_MOUNT}/t$((k * 2))", 8, PathOwner::kUnknown},
      {"${BB_MOUNT}/out/part.*", 8, PathOwner::kUnknown},
      {"${BB_MOUNT}/out.${SLURM_PROCID}/${name}", 8, PathOwner::kTask},  // the rank keeps it the task's
      {"/bb/x$((", 8, PathOwner::kUnknown},                              // cut short
  };
  for (const PathCase& c : kCases) {
    INFO(c.path);
    CHECK(ClassifyPath(c.path, c.tasks).owner == c.owner);
  }
}

struct NamedCase {
  const char* path;
  int rank, tasks;
  std::optional<int> named;
};

TEST_CASE("paths: the task another task's path names", "[modeselect]") {
  const NamedCase kCases[] = {
      {"/bb/t$((SLURM_PROCID+1))", 3, 8, 4},
      {"/bb/t$((SLURM_PROCID+1))", 7, 8, 8},  // past the last task: no task's file
      {"/bb/t$(( (SLURM_PROCID+1) % SLURM_NTASKS ))", 7, 8, 0},
      {"/bb/t$(( (${SLURM_PROCID}+3) % 8 ))", 6, 8, 1},
      {"/bb/t$(( (PMI_RANK + PMI_SIZE - 1) % PMI_SIZE ))", 0, 4, 3},
      {"/bb/t$((SLURM_PROCID / 2))", 5, 8, 2},  // integer division, as the shell's
      {"/bb/t$((SLURM_PROCID + OFFSET))", 1, 8, std::nullopt},
  };
  for (const NamedCase& c : kCases) {
    INFO(c.path << " rank " << c.rank);
    RankPath p = ClassifyPath(c.path, c.tasks);
    REQUIRE(p.owner == PathOwner::kOtherTask);
    CHECK(NamedTask(p, c.rank, c.tasks) == c.named);
  }
  CHECK(NamedTask(ClassifyPath("/bb/t${SLURM_PROCID}", 8), 1, 8) == std::nullopt);
}

}  // namespace
}  // namespace bb::modeselect
