// Shells a launcher runs on every task (inline -c text, here-documents, helper scripts): the
// paths of their commands as per-task, per-node, shared and other tasks' files; and the traps
// that are no sharing.
#include <catch2/catch.hpp>

#include "modeselect/static/job/job_script.h"
#include "modeselect/static/test_util.h"

namespace bb::modeselect {
namespace {

using testing::Render;
using testing::Sorted;

// The facts about who uses which files. Every case lists all it gives of these, so a case
// that expects none of the sharing facts fails when one appears.
const std::vector<std::string> kWatched = {
    "file.per_rank",
    "file.per_node",
    "script.rank_dirs",
    "file.read_other_rank",
    "file.read_other_node",
    "file.shared",
    "file.append",
    "file.read_shared_input",
    "meta.mkdir_one_rank",
    "launch.layout_changes",
    "script.reads_earlier_output",
    "script.one_writer_input",
};

std::vector<std::string> Watched(const JobScript& js) {
  std::vector<std::string> out;
  for (const std::string& r : Render(js.findings)) {
    for (const std::string& f : kWatched) {
      if (r.find(" " + f + " ") != std::string::npos) out.push_back(r);
    }
  }
  return out;
}

struct JobCase {
  const char* name;
  const char* script;  // the job script's text; line 1 is its first line
  std::vector<std::string> expect;
};

void Check(const JobCase& c) {
  INFO(c.name);
  JobScript js = ParseJobScript("/jobs/t/job.sh", c.script);
  CHECK(Watched(js) == Sorted(c.expect));
}

TEST_CASE("inline shell on a launcher line: per-task paths through the batch script's interpreter", "[modeselect]") {
  const JobCase kCases[] = {
      {"srun bash -c: per-task directory, cd into it, per-task output",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\n"
       "srun bash -c 'mkdir -p \"$BB_WORKSPACE/run/task$SLURM_PROCID\" && cd \"$BB_WORKSPACE/run/task$SLURM_PROCID\" "
       "&& ./app > out.$SLURM_PROCID'\n",
       {"3 script.rank_dirs 8", "3 file.per_rank 1"}},
      {"srun sh -c with double quotes: the task's shell expands the escaped variable",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\nIN=$BB_MOUNT/in\n"
       "srun sh -c \"cat $IN/part.\\$SLURM_PROCID > $BB_MOUNT/out/r.\\$PMIX_RANK\"\n",
       {"4 file.per_rank 2"}},
      {"mpirun bash -c: the next rank's checkpoint, half of them on the same node",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\n"
       "mpirun -np 8 bash -c 'cmp $BB_MOUNT/ck.$OMPI_COMM_WORLD_RANK "
       "$BB_MOUNT/ck.$(( (OMPI_COMM_WORLD_RANK+1) % OMPI_COMM_WORLD_SIZE ))'\n",
       {"3 file.per_rank 1", "3 file.read_other_rank 1", "3 file.read_other_node 0.5"}},
      {"srun --ntasks-per-node=2 bash -lc, a multi-line text: lines of the job script",
       "#SBATCH -N 4\n"
       "srun --ntasks-per-node=2 bash -lc '\n"
       "  d=$BB_MOUNT/w/$SLURM_PROCID\n"
       "  mkdir -p $d\n"
       "  ./solver --out $d/field.dat\n"
       "  next=$(( (SLURM_PROCID + 1) % SLURM_NTASKS ))\n"
       "  ./check --in $BB_MOUNT/w/$next/field.dat'\n",
       {"4 script.rank_dirs 8", "5 file.per_rank 1", "7 file.read_other_rank 1", "7 file.read_other_node 0.5"}},
      {"a quoted here-document fed to the shell on an srun line",
       "#SBATCH -N 2\n#SBATCH --ntasks-per-node=4\n"
       "srun bash <<'EOF'\n"
       "cd $BB_MOUNT\n"
       "echo $SLURM_PROCID >> ranks.log\n"
       "tar -xf in.tar -C node$SLURM_NODEID\n"
       "EOF\n",
       {"5 file.shared 1", "5 file.append 1"}},
      {"bash -s <<EOF: the batch shell expands, the escaped rank is the task's",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=1\nOUT=$BB_MOUNT/o\n"
       "srun bash -s big <<EOF\n"
       "mkdir -p $OUT/node\\$SLURM_NODEID\n"
       "./gen \\$1 > $OUT/node\\$SLURM_NODEID/part.\\$SLURM_PROCID\n"
       "cp $OUT/node\\$SLURM_NODEID/part.\\$SLURM_PROCID $OUT/node\\$SLURM_NODEID/copy\n"
       "EOF\n",
       {"5 script.rank_dirs 4", "6 file.per_rank 1", "7 file.per_rank 1", "7 file.per_node 1"}},
      {"reads of the previous rank with a cyclic placement: every one crosses",
       "#SBATCH -N 4\n#SBATCH -n 8\n"
       "srun -m cyclic sh -c 'od $BB_MOUNT/r$(( (SLURM_PROCID + 7) % 8 )) > $BB_MOUNT/s$SLURM_PROCID'\n",
       {"3 file.read_other_rank 1", "3 file.read_other_node 1", "3 file.per_rank 1"}},
      {"a loop in the text; names from the task's index on its node repeat on every node",
       "#SBATCH -N 2\n#SBATCH --ntasks-per-node=2\n"
       "srun bash -c 'for f in a b; do ./step $f > $BB_MOUNT/$f.$SLURM_LOCALID; done'\n",
       {"3 file.per_node 2"}},
      {"srun -D: relative paths from the tasks' working directory",
       "#SBATCH -N 4\n"
       "srun -D $BB_MOUNT/run bash -c './app > out.$SLURM_PROCID; cat ../in.$((SLURM_PROCID + 1)) > /dev/null'\n",
       {"2 file.per_rank 1", "2 file.read_other_rank 1", "2 file.read_other_node 1"}},
      {"mpirun's stdin reaches rank 0 alone: nothing per task",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\n"
       "mpirun -np 8 bash <<'EOF'\n"
       "./app > $BB_MOUNT/out.$OMPI_COMM_WORLD_RANK\n"
       "EOF\n",
       {}},
      {"a per-task output outside the burst buffer says nothing about its layout",
       "#SBATCH -N 4\nRES=$SLURM_SUBMIT_DIR/res\n"
       "srun bash -c \"./app > $RES/out.\\$SLURM_PROCID; cat $HOME/in > $RES/copy\"\n",
       {}},
  };
  for (const JobCase& c : kCases) Check(c);
}

TEST_CASE("inline shell: findings carry the job script's file and line", "[modeselect]") {
  const char* text =
      "#SBATCH -N 2\n"
      "echo start\n"
      "srun bash <<'EOF'\n"
      "cd $BB_MOUNT\n"
      "./app > out.$SLURM_PROCID\n"
      "EOF\n";
  JobScript js = ParseJobScript("/jobs/t/job.sh", text);
  REQUIRE(js.launches.size() == 1);
  CHECK(js.launches[0].argv == std::vector<std::string>{"bash"});
  CHECK(js.scripts == std::vector<std::string>{"job.sh"});
  bool found = false;
  for (const Finding& f : js.findings) {
    if (f.fact != "file.per_rank") continue;
    found = true;
    CHECK(f.file == "job.sh");
    CHECK(f.line == 5);
    CHECK(f.snippet == "./app > out.$SLURM_PROCID");
  }
  CHECK(found);
}

TEST_CASE("a helper script srun runs on every task: the same reading of its commands", "[modeselect]") {
  MemoryFiles files;
  files.Add("/jobs/t/task.sh",
            "#!/bin/bash\n"
            "cd $BB_MOUNT/run\n"
            "./app --in shared.in > out.$SLURM_PROCID\n"
            "cat part.$((SLURM_PROCID - SLURM_PROCID % 2 + (SLURM_PROCID + 1) % 2)) > /dev/null\n");
  JobScript js = ParseJobScript("/jobs/t/job.sh", "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\nsrun ./task.sh\n", files);
  CHECK(Render(js.findings, true) == Sorted({"job.sh:3 launch.parallel 8", "task.sh:3 file.per_rank 1",
                                             "task.sh:4 file.read_other_rank 1", "task.sh:4 file.read_other_node 0"}));
}

TEST_CASE("inline shell traps: a common parent, per-task work, a one-task step", "[modeselect]") {
  const JobCase kCases[] = {
      {"the batch shell makes the parent, every task works below it",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\n"
       "mkdir -p \"$BB_WORKSPACE/out\"\n"
       "srun bash -c 'cd \"$BB_WORKSPACE/out\" && mkdir -p task$SLURM_PROCID && ./app > task$SLURM_PROCID/log'\n",
       {"4 script.rank_dirs 8", "4 file.per_rank 1"}},
      {"every task makes the parent, then its own directory",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\n"
       "srun bash -c 'mkdir -p $BB_MOUNT/out && mkdir -p $BB_MOUNT/out/t$SLURM_PROCID && touch "
       "$BB_MOUNT/out/t$SLURM_PROCID/done'\n",
       {"3 script.rank_dirs 8", "3 file.per_rank 1"}},
      {"a one-task step: its paths are one task's, nothing is shared or per task",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\n"
       "srun -N1 -n1 bash -c 'mkdir -p $BB_MOUNT/t$SLURM_PROCID; echo x >> $BB_MOUNT/log; cat $BB_MOUNT/in'\n",
       {}},
      {"inline shell whose every path is the task's own",
       "#SBATCH -N 4\n#SBATCH --ntasks-per-node=2\n"
       "srun bash -c 'D=$BB_MOUNT/r$SLURM_PROCID; mkdir -p $D; ./sim $D/state; cat $D/state > $D/copy; "
       "md5sum $D/copy > $D/sum'\n",
       {"3 script.rank_dirs 8", "3 file.per_rank 5"}},
  };
  for (const JobCase& c : kCases) Check(c);
}

}  // namespace
}  // namespace bb::modeselect
