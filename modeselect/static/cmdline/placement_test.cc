// Where a step's tasks run, and how many reads of another task's data cross nodes.
#include "modeselect/static/cmdline/placement.h"

#include <catch2/catch.hpp>

#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

std::vector<std::string> Words(std::string_view line) {
  std::vector<std::string> out;
  for (std::string_view w : text::Split(line, " ")) out.emplace_back(w);
  return out;
}

struct PlaceCase {
  const char* line;  // a launcher line ("" for a plain command)
  SbatchGeometry job;
  int tasks;  // as the interpreter counts them
  std::vector<int> node_of_rank;
};

TEST_CASE("placement: srun and mpirun as the emulated cluster places them", "[modeselect]") {
  const SbatchGeometry k4x2{4, 0, 2, ""}, k4x1{4, 0, 1, ""};
  const PlaceCase kCases[] = {
      {"srun ./a", k4x2, 8, {0, 0, 1, 1, 2, 2, 3, 3}},
      {"srun -n 6 ./a", k4x2, 6, {0, 0, 1, 1, 2, 3}},  // evenly, the first nodes one more
      {"srun --ntasks-per-node=2 -n 6 ./a", k4x2, 6, {0, 0, 1, 1, 2, 2}},
      {"srun --distribution=cyclic ./a", k4x2, 8, {0, 1, 2, 3, 0, 1, 2, 3}},
      {"srun -N 2 -n 4 ./a", k4x2, 4, {0, 0, 1, 1}},
      {"srun -N1 -n1 ./a", k4x2, 1, {0}},
      {"srun -n 2 ./a", k4x2, 2, {0, 1}},  // never more nodes than tasks
      {"srun ./a", k4x1, 4, {0, 1, 2, 3}},
      {"mpirun -np 8 ./a", k4x2, 8, {0, 0, 1, 1, 2, 2, 3, 3}},  // by slot
      {"mpirun -np 8 --map-by node ./a", k4x2, 8, {0, 1, 2, 3, 0, 1, 2, 3}},
      {"mpirun -np 8 --map-by ppr:4:node ./a", k4x2, 8, {0, 0, 0, 0, 1, 1, 1, 1}},
      {"mpirun -np 4 -N 1 ./a", k4x2, 4, {0, 1, 2, 3}},
      {"", k4x2, 1, {0}},
  };
  for (const PlaceCase& c : kCases) {
    INFO(c.line);
    Launch l;
    if (*c.line) l = ParseLauncher(Words(c.line));
    std::optional<StepPlacement> p = PlaceStep(l, c.job, c.tasks);
    REQUIRE(p);
    CHECK(NodeOfRank(*p) == c.node_of_rank);
  }
  Launch srun = ParseLauncher(Words("srun ./a"));
  CHECK_FALSE(PlaceStep(srun, SbatchGeometry{}, 8));  // no nodes known
  CHECK_FALSE(PlaceStep(srun, k4x2, 0));              // no tasks known
}

struct ShiftCase {
  const char* what;
  std::vector<int> node_of_rank;
  std::vector<RankShift> shifts;
  std::optional<double> fraction;
};

TEST_CASE("shifted reads: the fraction that lands on another node", "[modeselect]") {
  const std::vector<int> k4x2 = {0, 0, 1, 1, 2, 2, 3, 3}, k4x1 = {0, 1, 2, 3};
  const std::vector<int> kCyclic4x2 = {0, 1, 2, 3, 0, 1, 2, 3};
  const ShiftCase kCases[] = {
      {"mdtest -N 1, 2 per node, block: half the neighbours on the same node", k4x2, {{RankShift::kOffset, 1}}, 0.5},
      {"mdtest -N 1, 1 per node: every neighbour on another node", k4x1, {{RankShift::kOffset, 1}}, 1.0},
      {"mdtest -N 1, all three phases (+1, +2, +3)",
       k4x2,
       {{RankShift::kOffset, 1}, {RankShift::kOffset, 2}, {RankShift::kOffset, 3}},
       (0.5 + 1 + 1) / 3},
      {"mdtest -N 4 cyclic over 4 nodes: every read on its own node", kCyclic4x2, {{RankShift::kOffset, 4}}, 0.0},
      {"a shift by the task count reads its own data: none counted", k4x2, {{RankShift::kOffset, 8}}, std::nullopt},
      {"IOR -C, block: shifts by node 0's tasks", k4x2, {{RankShift::kIorNode, 1}}, 1.0},
      {"IOR -C, cyclic: shifts by one rank, the next node", kCyclic4x2, {{RankShift::kIorNode, 1}}, 1.0},
      {"IOR -C -Q 4 on 4 nodes: back to its own data", k4x2, {{RankShift::kIorNode, 4}}, std::nullopt},
      {"IOR -C on one node", {0, 0, 0, 0}, {{RankShift::kIorNode, 1}}, std::nullopt},
      {"IOR -Z, 2 per node: offsets 2..7, one in six lands home for odd ranks",
       k4x2,
       {{RankShift::kIorRandom, 1}},
       (1.0 + 5.0 / 6) / 2},
      {"no placement", {}, {{RankShift::kOffset, 1}}, std::nullopt},
  };
  for (const ShiftCase& c : kCases) {
    INFO(c.what);
    std::optional<double> f = CrossNodeFraction(c.node_of_rank, c.shifts);
    REQUIRE(f.has_value() == c.fraction.has_value());
    if (f) CHECK(*f == Approx(*c.fraction));
  }
}

TEST_CASE("shifted reads: a target per rank, unknown targets left out", "[modeselect]") {
  const std::vector<int> k4x2 = {0, 0, 1, 1, 2, 2, 3, 3};
  auto next = [](int r) -> std::optional<int> { return (r + 1) % 8; };
  CHECK(*CrossNodeFraction(k4x2, next) == Approx(0.5));
  auto past_end = [](int r) -> std::optional<int> { return r + 1; };  // rank 7 names no task
  CHECK(*CrossNodeFraction(k4x2, past_end) == Approx(3.0 / 7));
  auto unknown = [](int) -> std::optional<int> { return std::nullopt; };
  CHECK_FALSE(CrossNodeFraction(k4x2, unknown));
}

}  // namespace
}  // namespace bb::modeselect
