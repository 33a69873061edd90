// srun, mpirun and mpiexec options, and #SBATCH geometry.
#include "modeselect/static/cmdline/launchers.h"

#include <catch2/catch.hpp>

#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

struct Case {
  const char* line;
  int nodes, tasks, per_node;
  const char* distribution;
  const char* program;  // argv[0] after the launcher's options
};

const Case kCases[] = {
    {"srun -N4 -n 32 ./app", 4, 32, 0, "", "./app"},
    {"srun --nodes=2 --ntasks-per-node=8 -m cyclic:block python3 x.py", 2, 0, 8, "cyclic", "python3"},
    {"srun --nodes 2 --ntasks 16 --distribution block ior -w", 2, 16, 0, "block", "ior"},
    {"srun -l -o out.%t -e err.%t --cpu-bind=cores --mpi=pmix --overlap -n 4 ./a", 0, 4, 0, "", "./a"},
    {"srun --label --exclusive --mem 4G -J job -t 10 -c 2 --gres gpu:1 ./a b", 0, 0, 0, "", "./a"},
    {"srun --multi-prog conf.txt", 0, 0, 0, "", "conf.txt"},
    {"srun -m plane=4 -n 8 ./a", 0, 8, 0, "", "./a"},
    {"mpirun -np 16 --map-by ppr:4:node ./a", 0, 16, 4, "block", "./a"},
    {"mpirun -n 8 --map-by node --bind-to core -x OMP_NUM_THREADS --mca btl ^openib ./a", 0, 8, 0, "cyclic", "./a"},
    {"mpirun -N 2 -H n1,n2,n3 --oversubscribe --allow-run-as-root ./a", 3, 0, 2, "", "./a"},
    {"mpirun -c 4 --npernode 1 --hostfile hosts --map-by slot:PE=2 ./a", 0, 4, 1, "block", "./a"},
    {"mpiexec -n 12 -ppn 6 -genv I_MPI_DEBUG 5 -f hosts python3 t.py", 0, 12, 6, "", "python3"},
    {"mpirun -np=8 --map-by=node ./a", 0, 8, 0, "cyclic", "./a"},
};

TEST_CASE("launcher options: geometry, and values never taken for the program", "[modeselect]") {
  for (const Case& c : kCases) {
    INFO(c.line);
    std::vector<std::string> argv;
    for (std::string_view w : text::Split(c.line, " ")) argv.emplace_back(w);
    Launch l = ParseLauncher(argv);
    CHECK(l.nodes == c.nodes);
    CHECK(l.tasks == c.tasks);
    CHECK(l.tasks_per_node == c.per_node);
    CHECK(l.distribution == c.distribution);
    REQUIRE_FALSE(l.argv.empty());
    CHECK(l.argv[0] == c.program);
  }
}

TEST_CASE("launcher options: the tasks' working directory", "[modeselect]") {
  const std::pair<const char*, const char*> kCases[] = {
      {"srun -D /bb/run ./a", "/bb/run"},
      {"srun -D/bb/run ./a", "/bb/run"},
      {"srun --chdir=/bb/r -n 2 ./a", "/bb/r"},
      {"srun --chdir /bb/r ./a", "/bb/r"},
      {"mpirun -wdir /bb/w -np 4 ./a", "/bb/w"},
      {"mpirun --wd=/bb/w ./a", "/bb/w"},
      {"srun -n 2 ./a -D x", ""},  // the program's own option
  };
  for (const auto& [line, dir] : kCases) {
    INFO(line);
    std::vector<std::string> argv;
    for (std::string_view w : text::Split(line, " ")) argv.emplace_back(w);
    CHECK(ParseLauncher(argv).chdir == dir);
  }
}

TEST_CASE("#SBATCH geometry in long, short and attached forms", "[modeselect]") {
  SbatchGeometry g;
  for (const char* line : {"-N 4", "--ntasks-per-node=8", "--job-name x", "-n64", "--distribution=cyclic"}) {
    std::vector<std::string> args;
    for (std::string_view w : text::Split(line, " ")) args.emplace_back(w);
    ApplySbatch(args, &g);
  }
  CHECK(g.nodes == 4);
  CHECK(g.ntasks == 64);
  CHECK(g.ntasks_per_node == 8);
  CHECK(g.distribution == "cyclic");
  CHECK(ParseCount("2-4") == 4);
  CHECK(ParseCount("x") == 0);
  CHECK(IsLauncher("/usr/bin/srun"));
  CHECK_FALSE(IsLauncher("sbatch"));
}

}  // namespace
}  // namespace bb::modeselect
