#include "fs/daemon/metrics.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <utility>

#include "fs/base/thread_name.h"
#include "transport/transport.h"

namespace bb::fs {
namespace {

using nlohmann::json;
using Labels = std::vector<std::pair<std::string, std::string>>;
// One series: its labels (besides node) and value; a name suffix for histogram parts.
struct Series {
  Labels labels;
  double value;
  std::string suffix;
};
using Extract = std::function<void(const json& node, std::vector<Series>* out)>;

struct Metric {
  const char* name;
  const char* type;  // counter, gauge, histogram
  const char* help;
  Extract extract;
};

double Num(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string Str(const json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// A field of every element of array `list`, labelled by `by` (e.g. each peer's calls_sent).
Extract PerElement(const char* list, const char* by, const char* label, const char* field, Labels extra = {}) {
  return [=](const json& node, std::vector<Series>* out) {
    auto it = node.find(list);
    if (it == node.end() || !it->is_array()) return;
    for (const auto& e : *it) {
      if (!e.contains(by) || !e.contains(field)) continue;
      Labels l = {{label, Str(e[by])}};
      l.insert(l.end(), extra.begin(), extra.end());
      out->push_back({l, Num(e, field), ""});
    }
  };
}

// The node's own id is "local", every other node "remote".
Extract ToNodes(const char* field, const char* label, const char* value) {
  return [=](const json& node, std::vector<Series>* out) {
    if (!node.contains("to") || !node["to"].is_array()) return;
    for (const auto& t : node["to"]) {
      std::string peer = Str(t.value("node", json(0)));
      std::string locality = peer == Str(node.value("node", json(-1))) ? "local" : "remote";
      out->push_back({{{"peer", peer}, {label, value}, {"locality", locality}}, Num(t, field), ""});
    }
  };
}

Extract Fields(const char* object, const char* label, std::vector<std::pair<const char*, const char*>> fields) {
  return [=](const json& node, std::vector<Series>* out) {
    auto it = node.find(object);
    if (it == node.end() || !it->is_object()) return;
    for (const auto& [field, value] : fields) {
      if (it->contains(field)) out->push_back({{{label, value}}, Num(*it, field), ""});
    }
  };
}

Extract Qos(const char* field, double scale = 1) {
  return [=](const json& node, std::vector<Series>* out) {
    if (!node.contains("qos") || !node["qos"].contains("channels")) return;
    for (const auto& c : node["qos"]["channels"]) {
      if (!c.contains(field) || !c[field].is_number()) continue;  // no limit: no series
      out->push_back({{{"job", Str(c.value("job", json("")))}, {"class", Str(c.value("class", json("")))}},
                      c[field].get<double>() * scale,
                      ""});
    }
  };
}

Extract Scalar(const char* field) {
  return [=](const json& node, std::vector<Series>* out) {
    if (node.contains(field) && node[field].is_number()) out->push_back({{}, node[field].get<double>(), ""});
  };
}

void Histogram(const json& node, std::vector<Series>* out) {
  if (!node.contains("peers") || !node["peers"].is_array()) return;
  for (const auto& p : node["peers"]) {
    if (!p.contains("latency") || !p["latency"].is_array()) continue;
    std::string peer = Str(p.value("peer", json(0)));
    double cumulative = 0;
    const json& buckets = p["latency"];
    for (size_t i = 0; i < buckets.size(); ++i) {
      cumulative += buckets[i].is_number() ? buckets[i].get<double>() : 0;
      std::string le = i < transport::kLatencyBounds.size() ? fmt::format("{}", transport::kLatencyBounds[i]) : "+Inf";
      out->push_back({{{"peer", peer}, {"le", le}}, cumulative, "_bucket"});
    }
    out->push_back({{{"peer", peer}}, Num(p, "latency_seconds"), "_sum"});
    out->push_back({{{"peer", peer}}, cumulative, "_count"});
  }
}

// The metrics, in the order they are written (metrics.h lists them).
const std::vector<Metric> kMetrics = {
    {"bb_fs_operations_total", "counter", "File system operations (FUSE requests) by type.",
     [](const json& node, std::vector<Series>* out) {
       if (!node.contains("ops") || !node["ops"].is_object()) return;
       for (const auto& [op, n] : node["ops"].items()) out->push_back({{{"op", op}}, n.get<double>(), ""});
     }},
    {"bb_fs_errors_total", "counter", "Operations answered with an error, by errno.",
     [](const json& node, std::vector<Series>* out) {
       if (!node.contains("errors") || !node["errors"].is_object()) return;
       for (const auto& [e, n] : node["errors"].items()) out->push_back({{{"errno", e}}, n.get<double>(), ""});
     }},
    {"bb_requests_total", "counter", "Requests this node sent to each node, by kind (metadata, data).",
     [](const json& node, std::vector<Series>* out) {
       ToNodes("meta_requests", "kind", "metadata")(node, out);
       ToNodes("data_requests", "kind", "data")(node, out);
     }},
    {"bb_data_bytes_total", "counter", "Chunk bytes this node read from and wrote to each node.",
     [](const json& node, std::vector<Series>* out) {
       ToNodes("read_bytes", "direction", "read")(node, out);
       ToNodes("write_bytes", "direction", "write")(node, out);
     }},
    {"bb_served_requests_total", "counter", "Requests this node's stores served, by kind.",
     Fields("served", "kind", {{"meta_ops", "metadata"}, {"data_ops", "data"}})},
    {"bb_served_bytes_total", "counter", "Chunk bytes this node's stores read and wrote.",
     Fields("served", "direction", {{"read_bytes", "read"}, {"write_bytes", "write"}})},
    {"bb_rpc_calls_total", "counter", "Calls sent to another node.", PerElement("peers", "peer", "peer", "calls_sent")},
    {"bb_rpc_failed_total", "counter", "Calls the transport failed (timeout, broken link).",
     PerElement("peers", "peer", "peer", "calls_failed")},
    {"bb_rpc_extended_total", "counter", "Deadlines passed while the peer was alive and working.",
     PerElement("peers", "peer", "peer", "calls_extended")},
    {"bb_rpc_pushed_back_total", "counter", "Calls sent again because the peer's queue was full.",
     PerElement("peers", "peer", "peer", "calls_pushed_back")},
    {"bb_rpc_sent_bytes_total", "counter", "Request bytes sent.", PerElement("peers", "peer", "peer", "bytes_sent")},
    {"bb_rpc_received_bytes_total", "counter", "Reply bytes received.",
     PerElement("peers", "peer", "peer", "bytes_received")},
    {"bb_rpc_latency_seconds", "histogram", "Latency of calls to another node.", Histogram},
    {"bb_rpc_requests_received_total", "counter", "Requests other nodes sent to this one.",
     PerElement("peers", "peer", "peer", "requests_received")},
    {"bb_qos_operations_total", "counter", "Requests that passed the QoS stage.", Qos("ops")},
    {"bb_qos_units_total", "counter", "Units (operations or bytes) that passed the QoS stage.", Qos("units")},
    {"bb_qos_rate", "gauge", "Measured rate of a job's channel, units/s.", Qos("rate")},
    {"bb_qos_limit", "gauge", "Limit of a job's channel, units/s (absent: unlimited).", Qos("limit")},
    {"bb_qos_queued", "gauge", "Requests waiting for tokens.", Qos("queued")},
    {"bb_qos_waited_total", "counter", "Requests that waited for tokens.", Qos("waited")},
    {"bb_qos_wait_seconds_total", "counter", "Time requests waited for tokens.", Qos("wait_ms_total", 1e-3)},
    {"bb_small_files_total", "counter",
     "Files of streams of small files: made on this node, stored with their first write, asked back by their "
     "name's node, refused by it (lost).",
     Fields("small_files", "event",
            {{"made_here", "made"},
             {"with_first_write", "with_write"},
             {"handed_over", "handed_over"},
             {"lost", "lost"}})},
    {"bb_space_bytes", "gauge", "The backing store's space.",
     Fields("space", "kind", {{"total_bytes", "total"}, {"free_bytes", "free"}, {"avail_bytes", "avail"}})},
    {"bb_workspaces", "gauge", "Workspaces this node routes.", Scalar("workspaces")},
    {"bb_workspace_mode", "gauge", "Each workspace this node routes (a Slurm job's is job<id>): its mode, 1-4.",
     PerElement("workspace_list", "name", "workspace", "mode")},
    {"bb_workspace_chunk_bytes", "gauge", "Each workspace's chunk size.",
     PerElement("workspace_list", "name", "workspace", "chunk_size")},
    {"bb_nodes", "gauge", "Nodes of the instance.", Scalar("nodes")},
};

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string MetricsText(const std::vector<json>& nodes) {
  std::string out;
  for (const Metric& m : kMetrics) {
    std::string lines;
    for (const json& node : nodes) {
      std::vector<Series> series;
      m.extract(node, &series);
      std::string id = Str(node.value("node", json(0)));
      std::string node_labels = "node=\"" + Escape(id) + "\"";
      if (node.contains("name") && node["name"].is_string()) {
        node_labels = "node=\"" + Escape(node["name"].get<std::string>()) + "\",node_id=\"" + Escape(id) + "\"";
      }
      for (const Series& s : series) {
        std::string labels = node_labels;
        for (const auto& [k, v] : s.labels) labels += "," + k + "=\"" + Escape(v) + "\"";
        lines += fmt::format("{}{}{{{}}} {}\n", m.name, s.suffix, labels, s.value);
      }
    }
    if (lines.empty()) continue;
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", m.name, m.help, m.name, m.type) + lines;
  }
  return out;
}

MetricsWriter::MetricsWriter(std::string path, std::chrono::seconds interval, std::function<std::string()> text,
                             std::optional<gid_t> gid)
    : path_(std::move(path)), interval_(interval), text_(std::move(text)), gid_(gid) {
  thread_ = NamedThread("bb-metrics", [this] {
    std::unique_lock lock(mu_);
    while (!stop_) {
      lock.unlock();
      WriteOnce();
      lock.lock();
      cv_.wait_for(lock, interval_, [&] { return stop_; });
    }
  });
}

MetricsWriter::~MetricsWriter() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  ::unlink(path_.c_str());
  ::unlink((path_ + ".tmp").c_str());
}

void MetricsWriter::WriteOnce() {
  std::string tmp = path_ + ".tmp";
  std::string text = text_();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && ::fchmod(fd, gid_ ? 0640 : 0644) == 0 && (!gid_ || ::fchown(fd, -1, *gid_) == 0) &&
            ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) ok = ::close(fd) == 0 && ok;
  ok = ok && ::rename(tmp.c_str(), path_.c_str()) == 0;
  if (!ok && !failing_) spdlog::warn("metrics: cannot write {}: {}", path_, std::strerror(errno));
  if (ok && failing_) spdlog::info("metrics: writing {} again", path_);
  failing_ = !ok;
}

}  // namespace bb::fs
