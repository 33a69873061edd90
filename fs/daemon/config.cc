#include "fs/daemon/config.h"

#include <yaml-cpp/yaml.h>

#include "fs/daemon/yaml_fields.h"

#include <fstream>
#include <set>
#include <sstream>

#include "fs/core/chunking.h"
#include "fs/daemon/hosts_file.h"

namespace bb::fs {
Result<DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source) {
  BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYaml(text, source));
  DaemonConfig cfg;
  if (doc.IsNull()) return cfg;
  if (!doc.IsMap()) return YamlError(source, doc.Mark(), "the configuration must be a mapping of fields");
  for (const auto& kv : doc) {
    if (!kv.first.IsScalar()) return YamlError(source, kv.first.Mark(), "field names must be plain words");
    std::string field = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (field == "root") {
      BB_ASSIGN_OR_RETURN(cfg.root, YamlScalar<std::string>(source, field, v, "a path"));
    } else if (field == "mount") {
      BB_ASSIGN_OR_RETURN(cfg.mount, YamlScalar<std::string>(source, field, v, "a path"));
    } else if (field == "chunk_size") {
      BB_ASSIGN_OR_RETURN(cfg.chunk_size, YamlChunkSize(source, field, v));
    } else if (field == "reserve") {
      BB_ASSIGN_OR_RETURN(cfg.reserve_bytes, YamlSize(source, field, v));
    } else if (field == "write_behind") {
      BB_ASSIGN_OR_RETURN(cfg.write_behind_bytes, YamlSize(source, field, v));
      if (cfg.write_behind_bytes > (uint64_t{64} << 30)) {
        return YamlError(source, v.Mark(), "field 'write_behind' must be at most 64GiB");
      }
    } else if (field == "log_level") {
      BB_ASSIGN_OR_RETURN(cfg.log_level, YamlScalar<std::string>(source, field, v, "a log level"));
      static const std::set<std::string> kLevels = {"trace", "debug", "info", "warn", "error"};
      if (!kLevels.count(cfg.log_level)) {
        return YamlError(source, v.Mark(), "field 'log_level' must be one of trace, debug, info, warn, error");
      }
    } else if (field == "fuse_threads") {
      BB_ASSIGN_OR_RETURN(cfg.fuse_threads, YamlIntIn(source, field, v, 1, 1024));
    } else if (field == "cache_timeout") {
      BB_ASSIGN_OR_RETURN(cfg.cache_timeout, YamlScalar<double>(source, field, v, "a number of seconds"));
      if (!(cfg.cache_timeout >= 0 && cfg.cache_timeout <= 3600)) {
        return YamlError(source, v.Mark(), "field 'cache_timeout' must be 0..3600 seconds");
      }
    } else if (field == "private_cache_timeout") {
      BB_ASSIGN_OR_RETURN(cfg.private_cache_timeout, YamlScalar<double>(source, field, v, "a number of seconds"));
      if (!(cfg.private_cache_timeout >= 0 && cfg.private_cache_timeout <= 3600)) {
        return YamlError(source, v.Mark(), "field 'private_cache_timeout' must be 0..3600 seconds");
      }
    } else if (field == "qos_stage") {
      BB_ASSIGN_OR_RETURN(cfg.qos_stage, YamlScalar<std::string>(source, field, v, "auto, on or off"));
      if (cfg.qos_stage != "auto" && cfg.qos_stage != "on" && cfg.qos_stage != "off") {
        return YamlError(source, v.Mark(), "field 'qos_stage' must be auto, on or off");
      }
    } else if (field == "qos_controller") {
      BB_ASSIGN_OR_RETURN(cfg.qos_controller, YamlScalar<std::string>(source, field, v, "ip:port"));
      if (auto hp = ParseHostPort(cfg.qos_controller); !hp) {
        return YamlError(source, v.Mark(), "field 'qos_controller': " + hp.error().message());
      }
    } else if (field == "qos_threads") {
      BB_ASSIGN_OR_RETURN(cfg.qos_threads, YamlIntIn(source, field, v, 1, 256));
    } else if (field == "qos_limits") {
      if (!v.IsMap()) return YamlError(source, v.Mark(), "field 'qos_limits' must map job ids to limits");
      for (const auto& j : v) {
        std::string job = j.first.Scalar();
        if (!j.second.IsMap()) return YamlError(source, j.second.Mark(), "qos_limits." + job + " must be a mapping");
        DaemonConfig::QosLimit lim;
        for (const auto& f : j.second) {
          std::string name = f.first.Scalar();
          std::string full = "qos_limits." + job + "." + name;
          if (name == "metadata") {
            BB_ASSIGN_OR_RETURN(double ops, YamlScalar<double>(source, full, f.second, "operations per second"));
            if (!(ops > 0)) return YamlError(source, f.second.Mark(), "field '" + full + "' must be above 0");
            lim.metadata = ops;
          } else if (name == "data") {
            BB_ASSIGN_OR_RETURN(uint64_t bytes, YamlSize(source, full, f.second));
            if (bytes == 0) return YamlError(source, f.second.Mark(), "field '" + full + "' must be above 0");
            lim.data = static_cast<double>(bytes);
          } else {
            return YamlError(source, f.first.Mark(), "unknown field '" + full + "' (known: metadata, data)");
          }
        }
        cfg.qos_limits[job] = lim;
      }
    } else if (field == "hosts_file") {
      BB_ASSIGN_OR_RETURN(cfg.hosts_file, YamlScalar<std::string>(source, field, v, "a path"));
    } else if (field == "node_name") {
      BB_ASSIGN_OR_RETURN(cfg.node_name, YamlScalar<std::string>(source, field, v, "a name"));
      if (cfg.node_name.empty() || cfg.node_name.find_first_of(" \t\n") != std::string::npos) {
        return YamlError(source, v.Mark(), "field 'node_name' must be a non-empty word");
      }
    } else if (field == "listen") {
      BB_ASSIGN_OR_RETURN(cfg.listen, YamlScalar<std::string>(source, field, v, "ip:port"));
      if (auto hp = ParseHostPort(cfg.listen); !hp) {
        return YamlError(source, v.Mark(), "field 'listen': " + hp.error().message());
      }
    } else if (field == "nodes") {
      BB_ASSIGN_OR_RETURN(cfg.nodes, YamlIntIn(source, field, v, 1, 4096));
    } else if (field == "rpc_timeout") {
      BB_ASSIGN_OR_RETURN(cfg.rpc_timeout_ms, YamlIntIn(source, field, v, 1, 600000, "milliseconds", "ms"));
    } else if (field == "io_threads") {
      BB_ASSIGN_OR_RETURN(cfg.io_threads, YamlIntIn(source, field, v, 1, 256));
    } else if (field == "rpc_large_in_flight") {
      BB_ASSIGN_OR_RETURN(cfg.rpc_large_in_flight, YamlIntIn(source, field, v, 1, 1024));
    } else if (field == "rpc_poll_spin") {
      BB_ASSIGN_OR_RETURN(cfg.rpc_poll_spin_us, YamlIntIn(source, field, v, 0, 10000, "microseconds", "µs"));
    } else {
      return YamlError(source, kv.first.Mark(),
                 "unknown field '" + field +
                     "' (known: root, mount, chunk_size, log_level, fuse_threads, cache_timeout, "
                     "private_cache_timeout, qos_stage, qos_limits, qos_controller, qos_threads, "
                     "reserve, write_behind, io_threads, hosts_file, node_name, listen, nodes, rpc_timeout, "
                     "rpc_poll_spin, rpc_large_in_flight)");
    }
  }
  return cfg;
}

Status ApplyOverrides(DaemonConfig* cfg, const std::vector<std::pair<std::string, std::string>>& values,
                      const std::string& source) {
  for (const auto& [field, text] : values) {
    YAML::Emitter e;
    e << YAML::BeginMap << YAML::Key << field << YAML::Value << text << YAML::EndMap;
    BB_ASSIGN_OR_RETURN(DaemonConfig one, ParseDaemonConfig(e.c_str(), source));
    if (field == "root") cfg->root = one.root;
    else if (field == "mount") cfg->mount = one.mount;
    else if (field == "chunk_size") cfg->chunk_size = one.chunk_size;
    else if (field == "log_level") cfg->log_level = one.log_level;
    else if (field == "fuse_threads") cfg->fuse_threads = one.fuse_threads;
    else if (field == "cache_timeout") cfg->cache_timeout = one.cache_timeout;
    else if (field == "private_cache_timeout") cfg->private_cache_timeout = one.private_cache_timeout;
    else if (field == "reserve") cfg->reserve_bytes = one.reserve_bytes;
    else if (field == "write_behind") cfg->write_behind_bytes = one.write_behind_bytes;
    else if (field == "hosts_file") cfg->hosts_file = one.hosts_file;
    else if (field == "node_name") cfg->node_name = one.node_name;
    else if (field == "listen") cfg->listen = one.listen;
    else if (field == "nodes") cfg->nodes = one.nodes;
    else if (field == "rpc_timeout") cfg->rpc_timeout_ms = one.rpc_timeout_ms;
    else if (field == "rpc_poll_spin") cfg->rpc_poll_spin_us = one.rpc_poll_spin_us;
    else if (field == "io_threads") cfg->io_threads = one.io_threads;
    else if (field == "rpc_large_in_flight") cfg->rpc_large_in_flight = one.rpc_large_in_flight;
    else if (field == "qos_stage") cfg->qos_stage = one.qos_stage;
    else if (field == "qos_controller") cfg->qos_controller = one.qos_controller;
    else if (field == "qos_threads") cfg->qos_threads = one.qos_threads;
  }
  return Status::Ok();
}

Status ValidateDaemonConfig(const DaemonConfig& cfg) {
  if (cfg.cluster()) {
    if (cfg.listen.empty()) return Status(EINVAL, "a cluster node needs 'listen' (--listen IP:PORT)");
    if (cfg.node_name.empty()) return Status(EINVAL, "a cluster node needs 'node_name' (--node-name)");
  } else if (cfg.nodes > 1 || !cfg.listen.empty()) {
    return Status(EINVAL, "'nodes' and 'listen' need 'hosts_file' (--hosts-file)");
  }
  return Status::Ok();
}

Result<DaemonConfig> LoadDaemonConfig(const std::string& path) {
  BB_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, "config file"));
  return ParseDaemonConfig(text, path);
}

}  // namespace bb::fs
