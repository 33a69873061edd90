// The QoS controller's logic (docs/architecture.md#qos-the-stage-and-the-controller): its policy
// (read from YAML by tools/config/qos_policy.h), the messages it exchanges with daemons and
// bbctl, and one control cycle (collect -> compute -> enforce). The network side (Boost.Asio) is
// bb-controller (tools/controller/main.cc); the daemon side is qos/client.h.
//
// Policy (as the YAML file holds it):
//   algorithm: psfa            # static | priority | proportional | psfa
//   interval_ms: 1000          # control cycle, 10..60000
//   max_rate:                  # Max_R per class, cluster-wide
//     metadata: 110000         #   operations/s
//     data: 1GiB               #   bytes/s
//   jobs:                      # managed jobs; any other job is not limited
//     A: {metadata: 40000, data: 200MiB, weight: 2}
// An unknown field, a wrong type or a value out of range is an error naming the file, line
// and field.
//
// Messages: a 4-byte big-endian length, then that many bytes of JSON (at most 16 MiB).
//   daemon -> controller  {"type":"hello","node":N}                          (on connecting)
//   controller -> daemon  {"type":"collect"}                                  (each cycle)
//   daemon -> controller  {"type":"report","node":N,"usage":{JOB:{"metadata":ops/s,"data":B/s}}}
//   controller -> daemon  {"type":"shares","interval_ms":I,"nodes":N,"even_share":E,
//                          "jobs":{JOB:{"metadata":{"rate":R,"usage":U},"data":{...}}}}
//   bbctl -> controller   {"type":"status"}  ->  {"type":"status", ...}
// A cycle: collect (wait for every daemon's report, at most a quarter of the interval), compute,
// enforce (send the shares), sleep. The shares message is one and the same for every daemon:
// each job's cluster-wide rate R and usage U per class; each daemon takes its own part of R
// from the usage it reported (ShareOf, qos/policy.h: E of R evenly over the N reporting nodes,
// the rest by usage), so the controller's work and message per cycle do not grow with the
// nodes. A job or class missing from "jobs" is not limited by that daemon.
//
// Thread-safety: pure functions and value types.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fs/base/status.h"
#include "qos/policy.h"

namespace bb::qos {

struct JobPolicy {
  double metadata = 0;  // demand, ops/s
  double data = 0;      // demand, bytes/s
  double weight = 1;
};

struct Policy {
  Algorithm algorithm = Algorithm::kPsfa;
  int interval_ms = 1000;
  double max_metadata = 0;
  double max_data = 0;
  std::map<std::string, JobPolicy> jobs;
};

// Usage one daemon reported: job -> (metadata ops/s, data bytes/s).
using NodeUsage = std::map<std::string, std::pair<double, double>>;
// The "usage" object of a report ({JOB: {"metadata": r, "data": r}}, each class optional);
// EPROTO naming the job and field when it is not that, or a rate is not a number >= 0.
Result<NodeUsage> ParseUsage(const nlohmann::json& usage);

// The fraction of a job's rate split evenly over its nodes (CycleResult::Rate, ShareOf).
inline constexpr double kEvenShare = 0.05;

struct JobState {
  double demand[2] = {0, 0};
  double weight = 1;
  double rate[2] = {0, 0};   // assigned, cluster-wide
  double usage[2] = {0, 0};  // measured, cluster-wide
};

struct CycleResult {
  std::map<std::string, JobState> jobs;
  // Per node (in `nodes` order) and managed job (in `job_names` order): the (metadata, data)
  // usage that node reported. Flat, so a cycle over 1,000 nodes does no map work per node.
  std::vector<std::string> nodes;
  std::vector<std::string> job_names;
  std::vector<std::pair<double, double>> node_usage;  // node * job_names.size() + job
  // That node's share of the job's (metadata, data) rate, as the node computes it from the
  // shares message (ShareOf with kEvenShare).
  std::pair<double, double> Rate(size_t node, size_t job) const;
  // The same by name; (0, 0) when either is unknown.
  std::pair<double, double> Rate(const std::string& node, const std::string& job) const;
};

// One cycle: per class, the policy's per-job rates from demands, weights and the usage summed
// over nodes (`previous`: the last cycle's result, for PSFA's hysteresis). Each node takes its
// own share of them (Rate): 5 % evenly, so a node where the job is just starting is never
// stuck at zero, and 95 % by where the job's usage is.
CycleResult ComputeCycle(const Policy& policy, const std::map<std::string, NodeUsage>& usage,
                         const CycleResult* previous);

// The cycle's shares message (see the file comment): only the classes a job has a demand for.
std::string SharesBody(const CycleResult& r, int interval_ms);

// A daemon's limits from a shares message: job -> (metadata, data) rate on this node, unset for
// a class the job is not limited in. `reported`: the usage this daemon reported for the cycle;
// null when it reported none (it connected meanwhile): then an even share. EPROTO naming the
// field when the message is not a shares message.
using NodeLimits = std::map<std::string, std::pair<std::optional<double>, std::optional<double>>>;
Result<NodeLimits> LimitsFromShares(const nlohmann::json& msg, const NodeUsage* reported);

// Framing.
inline constexpr uint32_t kMaxMessage = 16u << 20;
std::string Frame(const nlohmann::json& message);
// The frame of a body that is already JSON text.
std::string FrameBody(std::string_view body);
// The body length a 4-byte header announces.
uint32_t FrameLength(const char header[4]);
// Takes the next complete body off the front of `in`: nullopt while it is incomplete; EPROTO
// when the header announces more than kMaxMessage.
Result<std::optional<std::string>> PopMessage(std::string* in);
// Parses a message body; EPROTO naming what is wrong.
Result<nlohmann::json> ParseMessage(std::string_view body);

}  // namespace bb::qos
