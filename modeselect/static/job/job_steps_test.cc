// The facts about steps: input written by one task and read by a later step's tasks, output
// read back by other tasks, and how many of a benchmark's shifted reads cross nodes in its
// step's placement.
#include <catch2/catch.hpp>

#include "modeselect/static/job/job_script.h"
#include "modeselect/static/test_util.h"

namespace bb::modeselect {
namespace {

using testing::Only;
using testing::Render;
using testing::Sorted;

struct StepCase {
  const char* name;
  const char* script;
  std::vector<std::string> expect;  // every finding of the step facts below
};

std::vector<std::string> StepFacts(const JobScript& js) {
  return Only(Render(js.findings), {"script.one_writer_input", "script.reads_earlier_output", "launch.layout_changes",
                                    "file.read_shared_input", "file.read_other_rank"});
}

TEST_CASE("steps: input written by one task and read by every task is shared input", "[modeselect]") {
  const char* kGeometry = "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\n";
  const StepCase kCases[] = {
      {"srun -N1 -n1",
       "srun -N1 -n1 ./prep --out $BB_MOUNT/data\nsrun ./solve --in $BB_MOUNT/data/grid\n",
       {"3 script.one_writer_input 8"}},
      {"srun --nodes=1 --ntasks=1",
       "srun --nodes=1 --ntasks=1 ./prep $BB_MOUNT/d\nsrun ./solve $BB_MOUNT/d\n",
       {"3 script.one_writer_input 8"}},
      {"srun -n 1", "srun -n 1 ./prep $BB_MOUNT/d\nsrun -n 4 ./solve $BB_MOUNT/d\n", {"3 script.one_writer_input 4"}},
      {"mpirun -np 1",
       "mpirun -np 1 ./prep $BB_MOUNT/d\nmpirun -np 8 ./solve $BB_MOUNT/d\n",
       {"3 script.one_writer_input 8"}},
      {"a plain command of the batch shell runs once",
       "python3 make_input.py $BB_MOUNT/in.dat\nsrun ./solve $BB_MOUNT/in.dat\n",
       {"3 script.one_writer_input 8"}},
      {"a one-task step in inline shell, read by inline shell on every task",
       "srun -n1 bash -c './gen > $BB_MOUNT/table'\nsrun bash -c './lookup < $BB_MOUNT/table > "
       "$BB_MOUNT/o.$SLURM_PROCID'\n",
       {"3 script.one_writer_input 8", "4 file.read_shared_input 1"}},
      {"N tasks write, N tasks placed otherwise read: output read back, not shared input",
       "srun ./sim $BB_MOUNT/ck\nsrun -m cyclic ./sim --restart $BB_MOUNT/ck\n",
       {"4 script.reads_earlier_output 1", "4 launch.layout_changes 1"}},
      {"N tasks write, one task reads them all: output read back",
       "srun ./sim $BB_MOUNT/ck\nsrun -N1 -n1 ./analyze $BB_MOUNT/ck\n",
       {"4 script.reads_earlier_output 1", "4 launch.layout_changes 1"}},
      {"one-task steps of a loop are several writers: their output read back",
       "for m in 1 2 3; do\n  srun -N1 -n1 ./member $BB_MOUNT/ens/m$m &\ndone\nwait\nsrun ./combine $BB_MOUNT/ens\n",
       {"7 script.reads_earlier_output 1"}},
      {"trap: a one-task step that only makes the directories",
       "srun -N1 -n1 mkdir -p $BB_MOUNT/out\nsrun ./sim $BB_MOUNT/out\n",
       {}},
      {"trap: a one-task step whose output no later step reads",
       "srun -N1 -n1 ./setup $BB_MOUNT/setup.log\nsrun ./sim $BB_MOUNT/run\n",
       {}},
  };
  for (const StepCase& c : kCases) {
    INFO(c.name);
    JobScript js = ParseJobScript("/jobs/t/job.sh", std::string(kGeometry) + c.script);
    CHECK(StepFacts(js) == Sorted(c.expect));
  }
}

TEST_CASE("steps: a one-task step counts as one task, not as a parallel step", "[modeselect]") {
  JobScript js = ParseJobScript("job.sh", "#SBATCH -N 4\nsrun -N1 -n1 ./prep $BB_MOUNT/d\nsrun ./solve $BB_MOUNT/d\n");
  CHECK(Only(Render(js.findings), {"launch.parallel", "launch.multi_step"}) == Sorted({"3 launch.parallel 4"}));
}

TEST_CASE("benchmarks: the fraction of shifted reads that cross nodes in the step's placement", "[modeselect]") {
  const StepCase kCases[] = {
      {"mdtest -N 1, stat only, 2 per node in block: half the neighbours on the same node",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\nsrun mdtest -T -N 1 -n 10 -d $BB_MOUNT/m\n",
       {"3 file.read_other_node 0.5"}},
      {"mdtest -N 1, every phase: stat +1, read +2, remove +3",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\nsrun mdtest -N 1 -n 10 -d $BB_MOUNT/m\n",
       {"3 file.read_other_node 0.833333333333333"}},
      {"mdtest -N 1, one task per node: every read crosses",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=1\nmpiexec -n 4 --map-by node mdtest -T -r -N 1 -d $BB_MOUNT/m\n",
       {"3 file.read_other_node 1"}},
      {"mdtest -N 4 with the tasks dealt cyclically over 4 nodes: every read stays on its node",
       "#SBATCH -N 4\n#SBATCH -n 8\nsrun --distribution=cyclic mdtest -T -N 4 -d $BB_MOUNT/m\n",
       {"3 file.read_other_node 0"}},
      {"mdtest -N 1 with 4 per node from mpirun ppr: a quarter cross",
       "#SBATCH -N 2\n#SBATCH --ntasks-per-node=4\nmpirun -np 8 --map-by ppr:4:node mdtest -T -N 1 -d $BB_MOUNT/m\n",
       {"3 file.read_other_node 0.25"}},
      {"IOR -C shifts by the tasks per node: always another node",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\nsrun ior -w -r -C -o $BB_MOUNT/f\n",
       {"3 file.read_other_node 1"}},
      {"IOR -C -Q 4 on 4 nodes: each task reads its own data again",
       "#SBATCH -N 4\nsrun ior -r -C -Q 4 -o $BB_MOUNT/f\n",
       {}},
      {"IOR -Z: random tasks at least one node away",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\nsrun ior -w -r -Z -X 7 -o $BB_MOUNT/f\n",
       {"3 file.read_other_node 0.916666666666667"}},
      {"IOR -Q alone changes nothing", "#SBATCH -N 4\nsrun ior -w -r -Q 2 -o $BB_MOUNT/f\n", {}},
      {"mdtest inside inline shell, under its launcher's placement",
       "#SBATCH -N 2\n#SBATCH --ntasks-per-node=2\nsrun bash -c 'cd $BB_MOUNT && mdtest -T -N 1 -d m'\n",
       {"3 file.read_other_node 0.5"}},
  };
  for (const StepCase& c : kCases) {
    INFO(c.name);
    JobScript js = ParseJobScript("/jobs/t/job.sh", c.script);
    CHECK(Only(Render(js.findings), {"file.read_other_node"}) == Sorted(c.expect));
  }
}

}  // namespace
}  // namespace bb::modeselect
