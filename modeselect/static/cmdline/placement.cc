#include "modeselect/static/cmdline/placement.h"

#include <algorithm>

namespace bb::modeselect {
namespace {

// Placing and counting stay cheap for any step: past this many ranks (or random offsets) an
// evenly spaced sample of them is counted.
constexpr int kMaxPlaced = 1 << 20;
constexpr int kMaxCounted = 2048;

int Stride(int n) { return std::max(1, n / kMaxCounted); }

int TasksOnNode(std::span<const int> node_of, int node) {
  return static_cast<int>(std::count(node_of.begin(), node_of.end(), node));
}

// IOR's offset for -C: it tests whether ranks 0 and 1 share a node (QueryNodeMapping) and
// shifts by whole nodes of node 0's size under a block mapping, by ranks under a cyclic one.
int IorNodeOffset(std::span<const int> node_of, int q) {
  int tasks = static_cast<int>(node_of.size());
  bool block = tasks > 1 && node_of[0] == node_of[1];
  int shift = block ? TasksOnNode(node_of, node_of[0]) : 1;
  return static_cast<int>((static_cast<long long>(q) * shift) % tasks);
}

}  // namespace

std::optional<StepPlacement> PlaceStep(const Launch& l, const SbatchGeometry& g, int tasks) {
  if (tasks <= 0) return std::nullopt;
  StepPlacement p;
  p.tasks = tasks;
  p.cyclic = l.distribution == "cyclic";
  if (l.launcher.empty()) return StepPlacement{1, 1, 1, false};
  if (l.launcher == "srun") {
    p.nodes = l.nodes ? l.nodes : g.nodes;
    p.tasks_per_node = l.tasks_per_node;
    if (p.nodes == 0 && p.tasks_per_node > 0) p.nodes = (tasks + p.tasks_per_node - 1) / p.tasks_per_node;
  } else if (l.tasks_per_node > 0) {  // mpirun -N K, --map-by ppr:K:node
    p.tasks_per_node = l.tasks_per_node;
    p.nodes = (tasks + l.tasks_per_node - 1) / l.tasks_per_node;
  } else {  // mpirun by slot: each node's slots are the job's tasks per node
    p.nodes = l.nodes ? l.nodes : g.nodes;
    int job_tasks = g.ntasks ? g.ntasks : g.nodes * g.ntasks_per_node;
    p.tasks_per_node = tasks <= job_tasks ? g.ntasks_per_node : 0;
  }
  if (p.nodes <= 0) return std::nullopt;
  if (p.tasks_per_node > 0 && static_cast<long long>(p.tasks_per_node) * p.nodes < tasks) p.tasks_per_node = 0;
  p.nodes = std::min(p.nodes, tasks);
  return p;
}

std::vector<int> NodeOfRank(const StepPlacement& p) {
  if (p.nodes < 1 || p.tasks < 1 || p.tasks > kMaxPlaced || p.nodes > kMaxPlaced) return {};
  if (p.tasks_per_node > 0 && static_cast<long long>(p.nodes) * p.tasks_per_node < p.tasks) return {};
  std::vector<int> node(static_cast<size_t>(p.tasks));
  if (p.cyclic) {
    for (int r = 0; r < p.tasks; ++r) node[static_cast<size_t>(r)] = r % p.nodes;
    return node;
  }
  size_t r = 0;
  int left = p.tasks;
  for (int n = 0; n < p.nodes; ++n) {
    int count =
        p.tasks_per_node > 0 ? std::min(left, p.tasks_per_node) : p.tasks / p.nodes + (n < p.tasks % p.nodes ? 1 : 0);
    for (int k = 0; k < count; ++k) node[r++] = n;
    left -= count;
  }
  return node;
}

std::optional<double> CrossNodeFraction(std::span<const int> node_of, std::span<const RankShift> shifts) {
  const int tasks = static_cast<int>(node_of.size());
  if (tasks == 0) return std::nullopt;
  double reads = 0, crossing = 0;
  auto count = [&](int r, long long offset, double weight) {
    int other = static_cast<int>((r + offset % tasks + tasks) % tasks);
    if (other == r) return;
    reads += weight;
    if (node_of[static_cast<size_t>(other)] != node_of[static_cast<size_t>(r)]) crossing += weight;
  };
  for (const RankShift& s : shifts) {
    for (int r = 0; r < tasks; r += Stride(tasks)) {
      if (s.kind == RankShift::kOffset) count(r, s.offset, 1);
      if (s.kind == RankShift::kIorNode) count(r, IorNodeOffset(node_of, s.offset), 1);
      if (s.kind != RankShift::kIorRandom) continue;
      int nodes = *std::max_element(node_of.begin(), node_of.end()) + 1;
      int q = std::min(s.offset, nodes - 1);
      int low = std::min(tasks - 1, q * TasksOnNode(node_of, node_of[0]));
      int step = Stride(tasks - low);
      double weight = 1.0 / ((tasks - low + step - 1) / step);
      for (int o = low; o < tasks; o += step) count(r, o, weight);
    }
  }
  if (reads == 0) return std::nullopt;
  return crossing / reads;
}

std::optional<double> CrossNodeFraction(std::span<const int> node_of,
                                        const std::function<std::optional<int>(int rank)>& target) {
  const int tasks = static_cast<int>(node_of.size());
  int reads = 0, crossing = 0;
  for (int r = 0; r < tasks; r += Stride(tasks)) {
    std::optional<int> other = target(r);
    if (!other || *other == r || *other < 0 || *other >= tasks) continue;
    ++reads;
    if (node_of[static_cast<size_t>(*other)] != node_of[static_cast<size_t>(r)]) ++crossing;
  }
  if (reads == 0) return std::nullopt;
  return static_cast<double>(crossing) / reads;
}

}  // namespace bb::modeselect
