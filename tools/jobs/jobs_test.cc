// Slurm's rules on the emulated cluster: batch directives, job shapes, step placement, srun and
// mpirun command lines.
#include <catch2/catch.hpp>

#include "tools/jobs/batch_script.h"
#include "tools/jobs/launch_args.h"
#include "tools/jobs/placement.h"
#include "tools/jobs/words.h"

namespace bb::jobs {
namespace {

TEST_CASE("block and cyclic place ranks as Slurm does", "[jobs]") {
  struct Row {
    StepShape shape;
    std::vector<int> want;
  };
  const Row rows[] = {
      {{4, 8, 0, Distribution::kBlock}, {0, 0, 1, 1, 2, 2, 3, 3}},
      {{4, 8, 0, Distribution::kCyclic}, {0, 1, 2, 3, 0, 1, 2, 3}},
      {{4, 6, 0, Distribution::kBlock}, {0, 0, 1, 1, 2, 3}},
      {{2, 3, 2, Distribution::kBlock}, {0, 0, 1}},
      {{4, 4, 2, Distribution::kBlock}, {0, 0, 1, 1}},
      {{3, 7, 0, Distribution::kCyclic}, {0, 1, 2, 0, 1, 2, 0}},
      {{1, 3, 0, Distribution::kBlock}, {0, 0, 0}},
  };
  for (const Row& r : rows) {
    INFO("nodes " << r.shape.nodes << " tasks " << r.shape.tasks << " per node " << r.shape.tasks_per_node);
    auto got = PlaceTasks(r.shape);
    REQUIRE(got.has_value());
    CHECK(*got == r.want);
  }
  CHECK(PlaceTasks({2, 5, 2, Distribution::kBlock}).error().code() == EINVAL);
  CHECK(PlaceTasks({0, 5, 0, Distribution::kBlock}).error().code() == EINVAL);
  CHECK(TasksPerNode({0, 0, 1, 1, 2, 3}, 4) == "2(x2),1(x2)");
  CHECK(TasksPerNode({0, 1, 2, 3}, 4) == "1(x4)");
  CHECK(HostList("node", 4) == "node[0-3]");
  CHECK(HostList("node", 1) == "node0");
  CHECK(*ParseDistribution("cyclic:block") == Distribution::kCyclic);
  CHECK(ParseDistribution("plane=4").error().code() == EINVAL);
}

TEST_CASE("#SBATCH directives are read until the first command, in every spelling", "[jobs]") {
  auto o = ParseBatchDirectives(
      "#!/bin/bash\n#SBATCH -N 2\n#SBATCH --ntasks=8   # eight ranks\n\n# a comment\n"
      "#SBATCH --ntasks-per-node 4 -J ckpt\n#SBATCH -t 1:30 --exclusive --mem=4G\n"
      "srun ./app\n#SBATCH -N 9\n",
      "job.sh");
  REQUIRE(o.has_value());
  CHECK(*o->nodes == 2);
  CHECK(*o->ntasks == 8);
  CHECK(*o->ntasks_per_node == 4);
  CHECK(o->job_name == "ckpt");
  CHECK(*o->time_limit_s == 90);
  CHECK(ParseBatchDirectives("#SBATCH -N4\n#SBATCH -m cyclic\n", "j")->distribution == Distribution::kCyclic);
  CHECK(*ParseBatchDirectives("#SBATCH --nodes=2-3\n", "j")->nodes == 3);
  struct Bad {
    const char* text;
    const char* want;
  };
  const Bad bad[] = {
      {"#SBATCH --nodes=abc\n", "job.sh:1: #SBATCH --nodes: the node count must be a number, got 'abc'"},
      {"#!/bin/sh\n#SBATCH --frobnicate\n", "job.sh:2: #SBATCH sbatch has no option --frobnicate"},
      {"#SBATCH -N\n", "job.sh:1: #SBATCH -N needs a value"},
      {"#SBATCH -Z 3\n", "sbatch has no option -Z"},
      {"#SBATCH --time=soon\n", "time limit 'soon'"},
      {"#SBATCH -J 'unclosed\n", "unterminated"},
      {"#SBATCH -n 0\n", "the task count must be at least 1"},
      {"#SBATCH --contiguous=yes\n", "--contiguous takes no value"},
  };
  for (const Bad& b : bad) {
    INFO(b.text);
    auto r = ParseBatchDirectives(b.text, "job.sh");
    REQUIRE_FALSE(r.has_value());
    CHECK_THAT(r.error().message(), Catch::Contains(b.want));
  }
}

TEST_CASE("time limits in Slurm's forms", "[jobs]") {
  CHECK(**ParseTimeLimit("10") == 600);
  CHECK(**ParseTimeLimit("10:30") == 630);
  CHECK(**ParseTimeLimit("1:00:05") == 3605);
  CHECK(**ParseTimeLimit("2-01") == 2 * 86400 + 3600);
  CHECK(**ParseTimeLimit("1-00:10:00") == 86400 + 600);
  CHECK_FALSE(ParseTimeLimit("UNLIMITED")->has_value());
  CHECK(ParseTimeLimit("1:2:3:4").error().code() == EINVAL);
}

TEST_CASE("a job's nodes and tasks follow from its directives and the cluster", "[jobs]") {
  auto shape = [](std::optional<int> n, std::optional<int> t, std::optional<int> tpn) {
    BatchOptions o;
    o.nodes = n;
    o.ntasks = t;
    o.ntasks_per_node = tpn;
    return ShapeJob(o, 4);
  };
  CHECK(shape({}, {}, {})->nodes == 1);
  CHECK(shape(4, {}, {})->tasks == 4);
  CHECK(shape(4, {}, 2)->tasks == 8);
  CHECK(shape({}, 8, 2)->nodes == 4);
  CHECK(shape({}, 3, {})->nodes == 3);
  CHECK(shape({}, 16, {})->nodes == 4);
  CHECK(shape(4, 2, {})->nodes == 2);
  CHECK_THAT(shape(5, {}, {}).error().message(), Catch::Contains("asks for 5 nodes; the cluster has 4"));
  CHECK(shape(2, 9, 4).error().code() == EINVAL);
}

TEST_CASE("srun: placement options before the program, others ignored, unknown ones refused", "[jobs]") {
  auto a = ParseSrunArgs(
      {"-N", "2", "--ntasks=4", "--cpu-bind=cores", "-m", "cyclic", "--overlap", "-l", "./app", "-n", "9", "--flag"});
  REQUIRE(a.has_value());
  CHECK(*a->nodes == 2);
  CHECK(*a->tasks == 4);
  CHECK(*a->distribution == Distribution::kCyclic);
  CHECK(a->label);
  CHECK(a->program == std::vector<std::string>{"./app", "-n", "9", "--flag"});
  JobEnv job{4, 8, 0, {}};
  auto s = SrunShape(*a, job);
  REQUIRE(s.has_value());
  CHECK(s->nodes == 2);
  CHECK(s->tasks == 4);
  // The allocation's task count is inherited, also with --ntasks-per-node alone.
  auto inherited = SrunShape(*ParseSrunArgs({"--ntasks-per-node=2", "hostname"}), job);
  CHECK(inherited->tasks == 8);
  CHECK(inherited->nodes == 4);
  auto one_per_node = SrunShape(*ParseSrunArgs({"--ntasks-per-node=1", "hostname"}), job);
  CHECK(one_per_node->tasks == 8);  // Slurm 22.05 still starts SLURM_NTASKS
  CHECK(*PlaceTasks(*one_per_node) == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(SrunShape(*ParseSrunArgs({"-N", "5", "x"}), job).error().code() == EINVAL);
  CHECK_THAT(ParseSrunArgs({"--frob", "x"}).error().message(), Catch::Contains("unrecognized option '--frob'"));
  CHECK_THAT(ParseSrunArgs({"-n"}).error().message(), Catch::Contains("needs a value"));
  CHECK_THAT(ParseSrunArgs({"-n", "2"}).error().message(), Catch::Contains("no command"));
  CHECK(*ParseSrunArgs({"-n4", "x"})->tasks == 4);
}

TEST_CASE("mpirun: ranks by slot, by node, or K per node, the rest goes to the real mpirun", "[jobs]") {
  JobEnv job{4, 8, 2, {}};
  auto a = ParseMpirunArgs({"-np", "8", "--map-by", "node", "-x", "OMP_NUM_THREADS", "--mca", "btl", "self,vader",
                            "--oversubscribe", "./ior", "-w"});
  REQUIRE(a.has_value());
  CHECK(a->kept == std::vector<std::string>{"-x", "OMP_NUM_THREADS", "--mca", "btl", "self,vader"});
  CHECK(a->program == std::vector<std::string>{"./ior", "-w"});
  auto s = MpirunShape(*a, job);
  REQUIRE(s.has_value());
  CHECK(s->distribution == Distribution::kCyclic);
  CHECK(*PlaceTasks(*s) == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3});
  auto k = MpirunShape(*ParseMpirunArgs({"-np", "4", "-N", "1", "app"}), job);
  CHECK(*PlaceTasks(*k) == std::vector<int>{0, 1, 2, 3});
  auto ppr = MpirunShape(*ParseMpirunArgs({"--map-by", "ppr:2:node", "app"}), job);
  CHECK(ppr->tasks == 8);
  CHECK(*PlaceTasks(*ppr) == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
  auto slots = MpirunShape(*ParseMpirunArgs({"app"}), job);
  CHECK(*PlaceTasks(*slots) == std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(MpirunShape(*ParseMpirunArgs({"-np", "12", "-N", "2", "app"}), job).error().code() == EINVAL);
  CHECK_THAT(ParseMpirunArgs({"--frob", "app"}).error().message(), Catch::Contains("'--frob' is not known"));
  CHECK_THAT(ParseMpirunArgs({"-np", "2", "a", ":", "-np", "2", "b"}).error().message(), Catch::Contains("':'"));
}

TEST_CASE("words split as a shell splits a simple command", "[jobs]") {
  CHECK(*SplitWords("a 'b c' \"d \\\"e\\\"\" f\\ g # rest") == std::vector<std::string>{"a", "b c", "d \"e\"", "f g"});
  CHECK(SplitWords("'open").error().code() == EINVAL);
}

}  // namespace
}  // namespace bb::jobs
