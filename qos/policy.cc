#include "qos/policy.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bb::qos {
namespace {

double Clean(double v) { return std::isfinite(v) && v > 0 ? v : 0; }

// Scales `rates` down so they sum to at most max_rate.
void Cap(std::vector<double>& rates, double max_rate) {
  max_rate = Clean(max_rate);
  double sum = std::accumulate(rates.begin(), rates.end(), 0.0);
  if (sum > max_rate && sum > 0) {
    double f = max_rate / sum;
    for (double& r : rates) r *= f;
  }
  // Rounding may leave the sum a hair above the cap; trim the largest.
  sum = std::accumulate(rates.begin(), rates.end(), 0.0);
  if (sum > max_rate && !rates.empty()) {
    auto it = std::max_element(rates.begin(), rates.end());
    *it = std::max(0.0, *it - (sum - max_rate));
  }
}

// Water-filling: gives each job min(cap_j, level * share_j) with the level raised until the
// capacity is used or every job is capped.
std::vector<double> Fill(const std::vector<double>& caps, const std::vector<double>& shares, double capacity) {
  size_t n = caps.size();
  std::vector<double> out(n, 0);
  std::vector<bool> done(n, false);
  double left = capacity;
  for (size_t round = 0; round < n && left > 1e-12; ++round) {
    double share_sum = 0;
    for (size_t i = 0; i < n; ++i)
      if (!done[i]) share_sum += shares[i];
    if (share_sum <= 0) break;
    double level = left / share_sum;
    bool capped_any = false;
    for (size_t i = 0; i < n; ++i) {
      if (done[i]) continue;
      if (caps[i] - out[i] <= level * shares[i]) {
        left -= caps[i] - out[i];
        out[i] = caps[i];
        done[i] = true;
        capped_any = true;
      }
    }
    if (!capped_any) {
      for (size_t i = 0; i < n; ++i)
        if (!done[i]) out[i] += level * shares[i];
      left = 0;
    }
  }
  return out;
}

}  // namespace

std::vector<double> StaticRates(const std::vector<JobLoad>& jobs, double max_rate) {
  std::vector<double> rates;
  for (const JobLoad& j : jobs) rates.push_back(Clean(j.demand));
  Cap(rates, max_rate);
  return rates;
}

std::vector<double> PriorityRates(const std::vector<JobLoad>& jobs, double max_rate) {
  std::vector<double> caps, shares;
  for (const JobLoad& j : jobs) {
    caps.push_back(Clean(j.demand));
    shares.push_back(Clean(j.weight));
  }
  auto rates = Fill(caps, shares, Clean(max_rate));
  Cap(rates, max_rate);
  return rates;
}

std::vector<double> ProportionalRates(const std::vector<JobLoad>& jobs, double max_rate) {
  std::vector<double> caps;
  for (const JobLoad& j : jobs) caps.push_back(Clean(j.demand));
  auto rates = Fill(caps, std::vector<double>(jobs.size(), 1.0), Clean(max_rate));
  double left = Clean(max_rate) - std::accumulate(rates.begin(), rates.end(), 0.0);
  if (left > 0 && !rates.empty()) {
    for (double& r : rates) r += left / static_cast<double>(rates.size());
  }
  Cap(rates, max_rate);
  return rates;
}

std::vector<double> PsfaRates(const std::vector<JobLoad>& jobs, double max_rate, const std::vector<double>& previous) {
  max_rate = Clean(max_rate);
  size_t n = jobs.size();
  std::vector<double> rates(n, 0);
  double left = max_rate, total_usage = 0;
  for (size_t i = 0; i < n; ++i) {
    double demand = Clean(jobs[i].demand), usage = Clean(jobs[i].usage);
    double fair = left / static_cast<double>(n - i);
    double want = usage <= 0.95 * demand ? usage + 0.25 * (demand - usage) : demand;
    rates[i] = std::min(want, fair);
    total_usage += usage;
    left -= rates[i];
  }
  // Leftover by usage (equally when nothing is measured yet). No false allocation: a job that
  // used clearly less than it was given last cycle gets no more than its usage plus the growth
  // margin; a job that used (nearly) all of it is short, and may get up to its demand.
  if (left > 1e-12) {
    std::vector<double> caps(n), shares(n);
    for (size_t i = 0; i < n; ++i) {
      double demand = Clean(jobs[i].demand), usage = Clean(jobs[i].usage);
      // "Used it": at least 90 % of last cycle's rate (usage is measured over a cycle whose
      // rate may have changed midway, so a job held at its limit reads a little below it).
      bool busy = previous.size() != n || previous[i] <= 0 || usage >= 0.9 * previous[i];
      double want = usage <= 0.95 * demand ? usage + 0.25 * (demand - usage) : demand;
      caps[i] = std::max(0.0, (busy ? demand : want) - rates[i]);
      shares[i] = total_usage > 0 ? usage : 1.0;
    }
    auto extra = Fill(caps, shares, left);
    for (size_t i = 0; i < n; ++i) rates[i] += extra[i];
  }
  if (previous.size() == n) {
    std::vector<double> kept = rates;
    for (size_t i = 0; i < n; ++i) {
      if (previous[i] > 0 && std::abs(rates[i] - previous[i]) < 0.01 * previous[i]) kept[i] = previous[i];
    }
    if (std::accumulate(kept.begin(), kept.end(), 0.0) <= max_rate) rates = kept;
  }
  Cap(rates, max_rate);
  return rates;
}

double ShareOf(double rate, double node_usage, double total_usage, double nodes, double even_share) {
  rate = Clean(rate);
  even_share = std::clamp(Clean(even_share), 0.0, 1.0);
  nodes = std::max(Clean(nodes), 1.0);
  total_usage = Clean(total_usage);
  if (total_usage <= 0) return rate / nodes;
  return rate * (even_share / nodes + (1 - even_share) * std::min(Clean(node_usage), total_usage) / total_usage);
}

}  // namespace bb::qos

namespace bb::qos {
namespace {

std::vector<double> StaticAlgo(const std::vector<JobLoad>& j, double m, const std::vector<double>&) {
  return StaticRates(j, m);
}
std::vector<double> PriorityAlgo(const std::vector<JobLoad>& j, double m, const std::vector<double>&) {
  return PriorityRates(j, m);
}
std::vector<double> ProportionalAlgo(const std::vector<JobLoad>& j, double m, const std::vector<double>&) {
  return ProportionalRates(j, m);
}

constexpr AlgorithmInfo kAlgorithms[] = {
    {Algorithm::kStatic, "static", "each job at its demand, all scaled down alike past Max_R", StaticAlgo},
    {Algorithm::kPriority, "priority", "Max_R shared by weight, never past a job's demand", PriorityAlgo},
    {Algorithm::kProportional, "proportional", "max-min fair by demand, leftover split equally", ProportionalAlgo},
    {Algorithm::kPsfa, "psfa", "usage-aware sharing without false allocation", PsfaRates},
};
static_assert(std::size(kAlgorithms) == kAlgorithmCount, "one row per Algorithm, in enum order");

}  // namespace

std::span<const AlgorithmInfo> Algorithms() { return kAlgorithms; }

const AlgorithmInfo& AlgorithmOf(Algorithm a) { return kAlgorithms[static_cast<size_t>(a)]; }

const AlgorithmInfo* FindAlgorithm(std::string_view name) {
  for (const AlgorithmInfo& a : kAlgorithms) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

std::string AlgorithmNames() {
  std::string out;
  for (size_t i = 0; i < kAlgorithmCount; ++i) {
    if (i > 0) out += i + 1 == kAlgorithmCount ? " or " : ", ";
    out += kAlgorithms[i].name;
  }
  return out;
}

}  // namespace bb::qos
