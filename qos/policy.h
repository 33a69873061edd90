// QoS allocation policies: pure functions from the jobs' demands, weights and measured usage to
// per-job rates under a cluster-wide maximum Max_R (one class at a time: metadata ops/s or data
// bytes/s, never mixed).
//
// Invariants every policy keeps, whatever its input: no negative rate, no NaN, and the sum of
// the rates never above max_rate.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bb::qos {

struct JobLoad {
  double demand = 0;  // what the job asks for (its configured limit for static)
  double weight = 1;  // priority share
  double usage = 0;   // measured rate over the last period
};

// Static: each job at its demand; if the demands exceed max_rate, all are scaled down alike.
std::vector<double> StaticRates(const std::vector<JobLoad>& jobs, double max_rate);
// Priority: max_rate shared in proportion to weight, never more than a job's demand; what a
// capped job leaves is shared again by weight among the others.
std::vector<double> PriorityRates(const std::vector<JobLoad>& jobs, double max_rate);
// Proportional sharing: max-min fair by demand (progressive filling); leftover capacity is
// split equally among all jobs.
std::vector<double> ProportionalRates(const std::vector<JobLoad>& jobs, double max_rate);
// PSFA: usage-aware sharing without false allocation. A job that uses less than 95 % of its
// demand gets its usage plus a quarter of the gap (growth margin), a busy job its demand, each
// capped at its fair share of what is left; leftover capacity goes to jobs by usage — up to
// their demand for jobs that used at least 90 % of their previous rate, and never beyond usage
// plus margin for jobs that did not.
// `previous` (same order, may be empty) gives hysteresis: a rate moving by less than 1 % keeps
// its old value, as long as the total stays within max_rate.
std::vector<double> PsfaRates(const std::vector<JobLoad>& jobs, double max_rate, const std::vector<double>& previous);

// The algorithms a controller can run, in one table (Algorithms()): its name in the policy
// file, what it does, and its rate function (`previous`: the last rates, same order, may be
// empty; only PSFA uses it). A new algorithm is one row.
enum class Algorithm : uint8_t { kStatic, kPriority, kProportional, kPsfa };
inline constexpr size_t kAlgorithmCount = 4;
struct AlgorithmInfo {
  Algorithm id;
  const char* name;
  const char* summary;
  std::vector<double> (*rates)(const std::vector<JobLoad>& jobs, double max_rate, const std::vector<double>& previous);
};
std::span<const AlgorithmInfo> Algorithms();
// REQUIRES: `a` is one of the table's.
const AlgorithmInfo& AlgorithmOf(Algorithm a);
// The algorithm named `name`, or nullptr.
const AlgorithmInfo* FindAlgorithm(std::string_view name);
// "static, priority, proportional or psfa", for error messages.
std::string AlgorithmNames();

// One node's share of a job's rate among `nodes` nodes: `even_share` of it equally, the rest
// in proportion to the node's share of the job's total usage (all of it equally when the job
// has no usage yet). An even share above 0 keeps a node where the job is just starting off
// zero. A daemon computes it for itself from the one message the controller sends all.
double ShareOf(double rate, double node_usage, double total_usage, double nodes, double even_share);

}  // namespace bb::qos
