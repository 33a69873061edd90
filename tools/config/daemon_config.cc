#include "tools/config/daemon_config.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "tools/config/yaml.h"

namespace bb::config {
namespace {

using fs::DaemonConfig;

template <typename T, typename U>
Status Put(Result<U> value, T* out) {
  if (!value) return value.error();
  *out = static_cast<T>(*value);
  return Status::Ok();
}

constexpr char kAnInteger[] = "an integer";
constexpr char kMilliseconds[] = "milliseconds";
constexpr char kMs[] = "ms";
constexpr char kMicroseconds[] = "microseconds";
constexpr char kUs[] = "µs";
constexpr char kNoUnit[] = "";

// Readers of the common kinds of field, one instance per field (the table's rows name them).
template <auto Member>
Status Path(const std::string& s, const std::string& n, const YAML::Node& v, DaemonConfig* c) {
  return Put(YamlScalar<std::string>(s, n, v, "a path"), &(c->*Member));
}
template <auto Member>
Status HostPort(const std::string& s, const std::string& n, const YAML::Node& v, DaemonConfig* c) {
  return Put(YamlHostPort(s, n, v), &(c->*Member));
}
template <auto Member>
Status Size(const std::string& s, const std::string& n, const YAML::Node& v, DaemonConfig* c) {
  return Put(YamlSize(s, n, v), &(c->*Member));
}
template <auto Member>
Status Seconds(const std::string& s, const std::string& n, const YAML::Node& v, DaemonConfig* c) {
  return Put(YamlNumberIn(s, n, v, 0, 3600, "seconds"), &(c->*Member));
}
template <auto Member, int64_t Lo, int64_t Hi, const char* Expected = kAnInteger, const char* Unit = kNoUnit>
Status Int(const std::string& s, const std::string& n, const YAML::Node& v, DaemonConfig* c) {
  return Put(YamlIntIn(s, n, v, Lo, Hi, Expected, Unit), &(c->*Member));
}

Status OneOf(const std::string& s, const std::string& n, const YAML::Node& v, const std::set<std::string>& allowed,
             const std::string& list, std::string* out) {
  BB_ASSIGN_OR_RETURN(*out, YamlScalar<std::string>(s, n, v, list.c_str()));
  if (!allowed.count(*out)) return YamlError(s, v.Mark(), "field '" + n + "' must be " + list);
  return Status::Ok();
}

// `on` or `off`, into a bool member.
template <auto Member>
Status OnOff(const std::string& s, const std::string& n, const YAML::Node& v, DaemonConfig* c) {
  std::string value;
  BB_RETURN_IF_ERROR(OneOf(s, n, v, {"on", "off"}, "on or off", &value));
  c->*Member = value == "on";
  return Status::Ok();
}

Status ReadQosLimits(const std::string& s, const std::string& n, const YAML::Node& v, DaemonConfig* c) {
  if (!v.IsMap()) return YamlError(s, v.Mark(), "field '" + n + "' must map job ids to limits");
  for (const auto& j : v) {
    std::string job = j.first.Scalar();
    if (!j.second.IsMap()) return YamlError(s, j.second.Mark(), n + "." + job + " must be a mapping");
    DaemonConfig::QosLimit lim;
    for (const auto& f : j.second) {
      std::string name = f.first.Scalar();
      std::string full = n + "." + job + "." + name;
      if (name == "metadata") {
        BB_ASSIGN_OR_RETURN(double ops, YamlScalar<double>(s, full, f.second, "operations per second"));
        if (!(ops > 0)) return YamlError(s, f.second.Mark(), "field '" + full + "' must be above 0");
        lim.metadata = ops;
      } else if (name == "data") {
        BB_ASSIGN_OR_RETURN(uint64_t bytes, YamlSize(s, full, f.second));
        if (bytes == 0) return YamlError(s, f.second.Mark(), "field '" + full + "' must be above 0");
        lim.data = static_cast<double>(bytes);
      } else {
        return YamlError(s, f.first.Mark(), "unknown field '" + full + "' (known: metadata, data)");
      }
    }
    c->qos_limits[job] = lim;
  }
  return Status::Ok();
}

// A name safe to put in the options of a mount: no comma, space or backslash could add an option.
bool MountSourceName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char ch) {
    return std::isalnum(ch) || std::string_view("-_.:@/+").find(static_cast<char>(ch)) != std::string_view::npos;
  });
}

// The fields, in the order docs/install.md lists them.
const DaemonField kFields[] = {
    {"root",
     "backing directory: `meta/` (LevelDB), `meta.spare`, `chunks/` (file data; docs/architecture.md shows the "
     "layout), `bbd.lock`, `bbd.log`",
     "—", true, Path<&DaemonConfig::root>},
    {"mount", "mount point (must exist, must not be mounted)", "—", true, Path<&DaemonConfig::mount>},
    {"fsname",
     "the mount's source in `/proc/mounts`, `df` and `findmnt` (letters, digits, `-_.:@/+`), so that two instances "
     "on one node can be told apart",
     "`bbfs`", true,
     [](auto& s, auto& n, auto& v, auto* c) -> Status {
       BB_ASSIGN_OR_RETURN(c->fsname, YamlScalar<std::string>(s, n, v, "a name"));
       if (!MountSourceName(c->fsname)) {
         return YamlError(s, v.Mark(), "field '" + n + "' must be 1-64 letters, digits or -_.:@/+");
       }
       return Status::Ok();
     }},
    {"chunk_size", "chunk size, a power of two from 4 KiB to 1 GiB", "`512KiB`", true,
     [](auto& s, auto& n, auto& v, auto* c) { return Put(YamlChunkSize(s, n, v), &c->chunk_size); }},
    {"log_level", "trace, debug, info, warn, error", "`info`", true,
     [](auto& s, auto& n, auto& v, auto* c) {
       return OneOf(s, n, v, {"trace", "debug", "info", "warn", "error"}, "one of trace, debug, info, warn, error",
                    &c->log_level);
     }},
    {"log_to",
     "`file` (`<root>/bbd.log`, reopened on SIGHUP/SIGUSR1; stderr with `--foreground`) or `syslog` (facility "
     "daemon, ident `bbd`: journald or a syslog daemon keeps it)",
     "`file`", true,
     [](auto& s, auto& n, auto& v, auto* c) -> Status {
       return OneOf(s, n, v, {"file", "syslog"}, "file or syslog", &c->log_to);
     }},
    {"fuse_threads", "most FUSE worker threads", "16", true, Int<&DaemonConfig::fuse_threads, 1, 1024>},
    {"cache_timeout",
     "seconds the kernel caches attributes and entries (in a cluster kept coherent by invalidations: see "
     "docs/consistency.md)",
     "1.0 (300 in a cluster)", true, Seconds<&DaemonConfig::cache_timeout>},
    {"private_cache_timeout",
     "the same for node-private files (mode 1 workspaces), whose pages the kernel also keeps across opens; 0 = "
     "treat them like shared files",
     "60", true, Seconds<&DaemonConfig::private_cache_timeout>},
    {"statahead",
     "in a cluster: most entries of a directory read ahead with their attributes, in one request per node, "
     "when its entries are looked up one after another (`ls -l`, `find`, a stat per file); `0` = every lookup "
     "asks the entry's node (see docs/consistency.md)",
     "8192", true, Int<&DaemonConfig::statahead, 0, 65536>},
    {"small_file_streams",
     "in a cluster: a process making small files one after another in a directory gets each new name reserved "
     "by its lookup, makes the file on its own node and closes it without a flush, its writes going through "
     "(see docs/consistency.md); `off` = every create asks the name's node",
     "`on`", true, OnOff<&DaemonConfig::small_file_streams>},
    {"dir_leases",
     "in a cluster, with `small_file_streams`: a directory where a process makes files one after another is "
     "leased to its node by each node holding its names, so the lookup before each create is answered on its "
     "own node; anyone else's access to the directory asks for the lease back first (see docs/consistency.md); "
     "`off` = each new name is reserved by a lookup at its node",
     "`on`", true, OnOff<&DaemonConfig::dir_leases>},
    {"xattrs",
     "extended attributes (`user.*`, `trusted.*`, `security.*`, as the kernel allows), kept with each file's entry, "
     "at most 64 KiB per value and 128 KiB per file; `off` = `ENOTSUP`. Costs a request for `security.capability` "
     "before every "
     "`write()`, which the kernel asks of file systems that keep attributes",
     "`off`", true, OnOff<&DaemonConfig::xattrs>},
    {"reserve",
     "free space kept on the backing store so metadata can always be written; as much again (9 MiB at least) is held "
     "in `meta.spare`, given back when the disk fills anyway",
     "`8MiB`", true, Size<&DaemonConfig::reserve_bytes>},
    {"write_behind",
     "most bytes of writes to other nodes' chunks still on their way after `write()` returned; `close`/`fsync` "
     "wait for them and report their first error (as NFS and Lustre clients do). Files opened `O_SYNC`, `O_DSYNC` "
     "or `O_DIRECT` always wait. `0` = every write waits",
     "`64MiB`", true,
     [](auto& s, auto& n, auto& v, auto* c) -> Status {
       BB_ASSIGN_OR_RETURN(uint64_t bytes, YamlSize(s, n, v));
       if (bytes > (uint64_t{64} << 30)) return YamlError(s, v.Mark(), "field '" + n + "' must be at most 64GiB");
       c->write_behind_bytes = bytes;
       return Status::Ok();
     }},
    {"io_threads",
     "threads that carry the chunks of one read or write, and the writes behind, to their nodes at the same time", "16",
     true, Int<&DaemonConfig::io_threads, 1, 256>},
    {"hosts_file", "shared hosts file of a cluster (one line per node: `name ip:port`)", "— (one node)", true,
     Path<&DaemonConfig::hosts_file>},
    {"cluster_key_file",
     "the instance's secret (64 hex digits, mode 0600, owned by the daemon's user): every connection between "
     "daemons and to `bb-controller` proves it. Made by the first daemon when missing (`bbctl start` and `bbctl "
     "emulate up` make a new one per instance)",
     "`HOSTS_FILE.key`", true, Path<&DaemonConfig::cluster_key_file>},
    {"node_name", "this node's name in the hosts file", "host name", true,
     [](auto& s, auto& n, auto& v, auto* c) -> Status {
       BB_ASSIGN_OR_RETURN(c->node_name, YamlScalar<std::string>(s, n, v, "a name"));
       if (c->node_name.empty() || c->node_name.find_first_of(" \t\n") != std::string::npos) {
         return YamlError(s, v.Mark(), "field '" + n + "' must be a non-empty word");
       }
       return Status::Ok();
     }},
    {"listen", "`ip:port` this daemon serves the other nodes on", "—", true, HostPort<&DaemonConfig::listen>},
    {"nodes", "how many nodes the instance has; each daemon waits for all before mounting", "1", true,
     Int<&DaemonConfig::nodes, 1, 4096>},
    {"rpc_timeout", "deadline of every call to another node, ms", "5000", true,
     Int<&DaemonConfig::rpc_timeout_ms, 1, 600000, kMilliseconds, kMs>},
    {"rpc_liveness",
     "ms a node may leave pings unanswered, or serve nothing, before calls to it past their deadline fail; while it "
     "answers and serves, they wait (0: the rpc_timeout)",
     "0", true, Int<&DaemonConfig::rpc_liveness_ms, 0, 600000, kMilliseconds, kMs>},
    {"rpc_poll_spin",
     "microseconds the transport keeps polling for messages before it sleeps (a caller waiting for a small reply polls "
     "too); trades a core's time for round-trip latency. `bbctl emulate` sets 0: its nodes share the host's cores",
     "50", true, Int<&DaemonConfig::rpc_poll_spin_us, 0, 10000, kMicroseconds, kUs>},
    {"rpc_large_in_flight",
     "most chunk-sized transfers to other nodes under way at once: enough to keep the links busy while each "
     "transfer's handshake waits in the links' queues",
     "16", true, Int<&DaemonConfig::rpc_large_in_flight, 1, 1024>},
    {"rpc_max_queued",
     "requests from other nodes waiting for a handler, at most; past it this node pushes back (the caller sends "
     "again after 1-64 ms and waits, counted as `calls_pushed_back`), so memory stays bounded under overload",
     "4096", true, Int<&DaemonConfig::rpc_max_queued, 16, 1000000>},
    {"qos_stage", "`auto` (on when limits or a controller are set), `on`, `off`", "`auto`", true,
     [](auto& s, auto& n, auto& v, auto* c) {
       return OneOf(s, n, v, {"auto", "on", "off"}, "auto, on or off", &c->qos_stage);
     }},
    {"qos_limits", "static per-job limits: `JOB: {metadata: OPS, data: SIZE}` per second", "—", false, ReadQosLimits},
    {"metrics_file",
     "a file the daemon rewrites every `metrics_interval` with its counters in the Prometheus text format (a "
     "node_exporter textfile collector reads it; `bbctl stats --prometheus` prints the same). A relative path is "
     "in the root",
     "— (none)", true, Path<&DaemonConfig::metrics_file>},
    {"metrics_group",
     "the group that may read `metrics_file` (the file is then 0640; without one it is 0644, since it holds counts, "
     "not data)",
     "— (world-readable)", true,
     [](auto& s, auto& n, auto& v, auto* c) {
       BB_ASSIGN_OR_RETURN(c->metrics_group, YamlScalar<std::string>(s, n, v, "a group name"));
       return Status::Ok();
     }},
    {"metrics_interval", "seconds between two writes of `metrics_file`", "15", true,
     Int<&DaemonConfig::metrics_interval_s, 1, 3600>},
    {"qos_controller", "`ip:port` of `bb-controller`", "—", true, HostPort<&DaemonConfig::qos_controller>},
    {"qos_threads", "threads answering requests that waited for tokens", "4", true,
     Int<&DaemonConfig::qos_threads, 1, 256>},
    {"qos_identity",
     "how a request's job is found: `cgroup` (the Slurm job of the calling process's cgroup, which a job cannot "
     "choose; else its cgroup, else its user) or `environment` (`BB_JOB_ID`, then `SLURM_JOB_ID` of the process "
     "first: only where users may name their job themselves)",
     "`cgroup`", true,
     [](auto& s, auto& n, auto& v, auto* c) {
       return OneOf(s, n, v, {"cgroup", "environment"}, "cgroup or environment", &c->qos_identity);
     }},
};

const DaemonField* FindField(const std::string& name) {
  for (const DaemonField& f : kFields) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string KnownFields() {
  std::string out;
  for (const DaemonField& f : kFields) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

// Reads every field of the mapping `doc` over `cfg`.
Status ReadInto(const YAML::Node& doc, const std::string& source, DaemonConfig* cfg) {
  for (const auto& kv : doc) {
    std::string name = kv.first.Scalar();
    const DaemonField* f = FindField(name);
    if (f == nullptr) {
      return YamlError(source, kv.first.Mark(), "unknown field '" + name + "' (known: " + KnownFields() + ")");
    }
    BB_RETURN_IF_ERROR(f->read(source, name, kv.second, cfg));
  }
  return Status::Ok();
}

}  // namespace

std::span<const DaemonField> DaemonFields() { return kFields; }

std::string FlagOf(const std::string& field) {
  std::string flag = field;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return "--" + flag;
}

Result<DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source) {
  BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYamlMap(text, source, "the configuration"));
  DaemonConfig cfg;
  BB_RETURN_IF_ERROR(ReadInto(doc, source, &cfg));
  return cfg;
}

Result<DaemonConfig> LoadDaemonConfig(const std::string& path) {
  BB_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, "config file"));
  return ParseDaemonConfig(text, path);
}

Status ApplyOverrides(DaemonConfig* cfg, const std::vector<std::pair<std::string, std::string>>& values,
                      const std::string& source) {
  for (const auto& [field, text] : values) {
    const DaemonField* f = FindField(field);
    if (f == nullptr || !f->flag) return Status(EINVAL, source + ": unknown field '" + field + "'");
    YAML::Emitter e;  // the value as the file would hold it, so it is read the same way
    e << YAML::BeginMap << YAML::Key << field << YAML::Value << text << YAML::EndMap;
    BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYamlMap(e.c_str(), source, "the command line"));
    BB_RETURN_IF_ERROR(ReadInto(doc, source, cfg));
  }
  return Status::Ok();
}

std::string DaemonFieldsMarkdown() {
  std::string out = "| field | meaning | default |\n|---|---|---|\n";
  for (const DaemonField& f : kFields) {
    out += "| `" + std::string(f.name) + "` | " + f.meaning + " | " + f.default_text + " |\n";
  }
  return out;
}

}  // namespace bb::config
