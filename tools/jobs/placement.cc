#include "tools/jobs/placement.h"

namespace bb::jobs {

Result<Distribution> ParseDistribution(const std::string& text) {
  std::string first = text.substr(0, text.find(':'));
  if (first == "block" || first == "*") return Distribution::kBlock;
  if (first == "cyclic") return Distribution::kCyclic;
  return Status(EINVAL, "distribution '" + text + "' is not supported here (block or cyclic)");
}

Result<std::vector<int>> PlaceTasks(const StepShape& s) {
  if (s.nodes < 1) return Status(EINVAL, "a step needs at least one node");
  if (s.tasks < 1) return Status(EINVAL, "a step needs at least one task");
  if (s.tasks > kMaxTasks || s.nodes > kMaxTasks) {
    return Status(EINVAL, "a step of " + std::to_string(s.tasks) + " tasks on " + std::to_string(s.nodes) +
                              " nodes is larger than this emulation places (" + std::to_string(kMaxTasks) + ")");
  }
  if (s.tasks_per_node > 0 && s.tasks > s.nodes * s.tasks_per_node) {
    return Status(EINVAL, std::to_string(s.tasks) + " tasks do not fit " + std::to_string(s.nodes) + " nodes at " +
                              std::to_string(s.tasks_per_node) + " per node");
  }
  std::vector<int> node(s.tasks);
  if (s.distribution == Distribution::kCyclic) {
    for (int r = 0; r < s.tasks; ++r) node[r] = r % s.nodes;
    return node;
  }
  // Block: per-node counts, then consecutive ranks node after node.
  std::vector<int> count(s.nodes);
  if (s.tasks_per_node > 0) {
    int left = s.tasks;
    for (int& c : count) left -= (c = std::min(left, s.tasks_per_node));
  } else {
    for (int i = 0; i < s.nodes; ++i) count[i] = s.tasks / s.nodes + (i < s.tasks % s.nodes ? 1 : 0);
  }
  int r = 0;
  for (int i = 0; i < s.nodes; ++i) {
    for (int k = 0; k < count[i]; ++k) node[r++] = i;
  }
  return node;
}

std::string TasksPerNode(const std::vector<int>& node_of_rank, int nodes) {
  std::vector<int> count(nodes, 0);
  for (int n : node_of_rank) {
    if (n >= 0 && n < nodes) count[n]++;
  }
  std::string out;
  for (int i = 0; i < nodes;) {
    int j = i;
    while (j < nodes && count[j] == count[i]) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(count[i]);
    if (j - i > 1) out += "(x" + std::to_string(j - i) + ")";
    i = j;
  }
  return out;
}

std::string HostList(const std::string& prefix, int nodes) {
  if (nodes == 1) return prefix + "0";
  return prefix + "[0-" + std::to_string(nodes - 1) + "]";
}

}  // namespace bb::jobs
