// The batch-script interpreter: variables, functions, loops, helper scripts, built binaries,
// staging, per-task directories and the facts about steps.
#include "modeselect/static/job/job_script.h"

#include <catch2/catch.hpp>

#include "modeselect/static/test_util.h"

namespace bb::modeselect {
namespace {

using testing::Only;
using testing::Render;
using testing::Sorted;

TEST_CASE("job script: #SBATCH geometry, variables, srun options, steps", "[modeselect]") {
  const char* text = R"SH(#!/bin/bash
#SBATCH --nodes=2
#SBATCH -n 16
#SBATCH --ntasks-per-node 8
NP=${NP:-8}
APP=./bin/app
DIR=${BB_MOUNT:-/tmp/bb}/run
srun -n $NP -o out.%t --cpu-bind=cores $APP --out "$DIR/a"
srun -N 2 --ntasks-per-node=4 -m cyclic $APP --in "$DIR/a"
mpirun -np $((NP * 2)) --map-by node ./bin/other
)SH";
  JobScript js = ParseJobScript("/jobs/x/job.sh", text);
  CHECK(js.sbatch.nodes == 2);
  CHECK(js.sbatch.ntasks == 16);
  CHECK(js.sbatch.ntasks_per_node == 8);
  REQUIRE(js.launches.size() == 3);
  CHECK(js.launches[0].tasks == 8);
  CHECK(js.launches[0].argv == std::vector<std::string>{"./bin/app", "--out", "${BB_MOUNT}/run/a"});
  CHECK(js.launches[0].line == 8);
  CHECK(js.launches[0].file == "job.sh");
  CHECK(js.launches[1].distribution == "cyclic");
  CHECK(js.launches[1].step == 1);
  CHECK(js.launches[2].launcher == "mpirun");
  CHECK(js.launches[2].tasks == 16);
  CHECK(js.launches[2].distribution == "cyclic");
  CHECK(Render(js.findings) ==
        Sorted({"8 launch.parallel 8", "9 launch.parallel 8", "10 launch.parallel 16", "9 launch.multi_step 3",
                "9 launch.layout_changes 1", "9 script.reads_earlier_output 1"}));
}

TEST_CASE("job script: functions, for loops, brace ranges, per-task directories", "[modeselect]") {
  const char* text = R"SH(
#SBATCH -N 4
OUT=$BB_MOUNT/out
mk() {
  mkdir -p "$OUT/$1"
}
step() { srun --ntasks-per-node=2 mkdir -p "$OUT/task.$SLURM_PROCID"; }
for n in 0 1 2 3; do
  mk "node$n"
done
for i in $(seq 1 100); do
  mkdir -p $OUT/step$i
done
mkdir -p $OUT/rank_{0..15}
log=$(step)
)SH";
  JobScript js = ParseJobScript("job.sh", text);
  CHECK(Render(js.findings) == Sorted({"12 script.rank_dirs 100", "14 script.rank_dirs 16", "7 script.rank_dirs 8"}));
  REQUIRE(js.launches.size() == 1);
  CHECK(js.launches[0].tasks_per_node == 2);
}

TEST_CASE("job script: stage in and out with cp, rsync and tar", "[modeselect]") {
  const char* text = R"SH(
export BB_MOUNT=/mnt/bb
cp -r $HOME/input $BB_MOUNT/
rsync -a --exclude '*.tmp' data/ /mnt/bb/data
tar -C $BB_MOUNT -xf inputs.tar
./simulate
tar -czf results.tgz -C /mnt/bb out
cp -t $HOME/results /mnt/bb/out/summary.csv
cp a b
)SH";
  JobScript js = ParseJobScript("job.sh", text);
  CHECK(Render(js.findings) == Sorted({"3 script.stage_in 1", "4 script.stage_in 1", "5 script.stage_in 1",
                                       "7 script.stage_out 1", "8 script.stage_out 1"}));
}

TEST_CASE("job script: a helper script is followed and a Makefile-built binary traced", "[modeselect]") {
  MemoryFiles files;
  files.Add("/j/env.sh", "IOR_FLAGS=\"-w -r -C\"\nexport STEPS=5\n");
  files.Add("/j/run_ior.sh", "#!/bin/bash\nsrun -n 8 ior $IOR_FLAGS -t ${1:-1m} -o $2\n");
  files.Add("/j/src/Makefile", "app: main.o util.o\n\tmpicc -o app main.o util.o\n");
  files.Add("/j/src/main.c", "int main() { return 0; }\n");
  files.Add("/j/src/util.c", "void util(void) {}\n");
  files.Add("/j/src/tool.f90", "program t\nend program t\n");
  files.Add("/j/post.py", "print(1)\n");
  const char* text = R"SH(#!/bin/bash
#SBATCH -N 2
source env.sh
make -C src
gfortran -o tool src/tool.f90
bash run_ior.sh 4m "$BB_MOUNT/ior.dat"
srun ./src/app --steps $STEPS
srun ./tool
python3 -u post.py
)SH";
  JobScript js = ParseJobScript("/j/job.sh", text, files);
  CHECK(js.scripts == std::vector<std::string>{"job.sh", "env.sh", "src/Makefile", "run_ior.sh"});
  CHECK(js.sources == std::vector<std::string>{"/j/src/main.c", "/j/src/util.c", "/j/src/tool.f90", "/j/post.py"});
  REQUIRE(js.launches.size() == 4);
  CHECK(js.launches[0].file == "run_ior.sh");
  CHECK(js.launches[0].line == 2);
  CHECK(js.launches[1].argv == std::vector<std::string>{"./src/app", "--steps", "5"});
  CHECK(js.launches[3].launcher.empty());
  CHECK(Only(Render(js.findings, true), {"ior.transfer_size", "ior.reorder", "ior.run"}) ==
        Sorted({"run_ior.sh:2 ior.transfer_size 4194304", "run_ior.sh:2 ior.reorder 1", "run_ior.sh:2 ior.run 8"}));
}

TEST_CASE("job script: a fio job file written by a here-document", "[modeselect]") {
  const char* text = R"SH(
DIR=$BB_MOUNT/fio
cat > job.fio <<EOF
[global]
directory=$DIR
bs=64k
[w]
rw=write
filename=shared.dat
numjobs=4
EOF
srun -N 2 fio job.fio
)SH";
  JobScript js = ParseJobScript("job.sh", text);
  CHECK(Render(js.findings) ==
        Sorted({"12 fio.run 1", "12 launch.parallel 2", "8 fio.seq_write 1", "9 fio.shared_file 1",
                "6 fio.block_size 65536", "10 fio.numjobs 4", "7 fio.nrfiles 1"}));
}

TEST_CASE("job script: an IOR script written by a here-document and run with -f", "[modeselect]") {
  const char* text = R"SH(
IN=$SLURM_SUBMIT_DIR/ior.in
cat > "$IN" <<EOF_IOR
IOR START
    api=POSIX        # comment
    testFile=$BB_MOUNT/seg
    filePerProc=1
    transferSize=4k
    blockSize=128k
    segmentCount=16
    writeFile=1
    readFile=1
RUN
IOR STOP
EOF_IOR
mpiexec -n 8 ior -f "$IN"
)SH";
  JobScript js = ParseJobScript("job.sh", text);
  CHECK(Only(Render(js.findings),
             {"ior.file_per_proc", "ior.shared_file", "ior.transfer_size", "ior.segments", "ior.write", "ior.read"}) ==
        Sorted({"16 ior.file_per_proc 1", "16 ior.transfer_size 4096", "16 ior.segments 16", "16 ior.write 1",
                "16 ior.read 1"}));
}

}  // namespace
}  // namespace bb::modeselect
