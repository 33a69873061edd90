#include "tools/jobs/batch_script.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "tools/jobs/words.h"

namespace bb::jobs {
namespace {

enum class Arg { kNone, kRequired, kOptional };  // kOptional: only as --opt=value

struct Option {
  const char* name;  // long name, without "--"
  char short_name;   // 0 when none
  Arg arg;
};

// sbatch's options (Slurm 22.05). Those that shape the job are read in Apply; the rest are
// accepted as sbatch would and have no meaning on the emulated cluster.
constexpr Option kOptions[] = {
    {"nodes", 'N', Arg::kRequired},
    {"ntasks", 'n', Arg::kRequired},
    {"ntasks-per-node", 0, Arg::kRequired},
    {"distribution", 'm', Arg::kRequired},
    {"time", 't', Arg::kRequired},
    {"job-name", 'J', Arg::kRequired},
    {"account", 'A', Arg::kRequired},
    {"acctg-freq", 0, Arg::kRequired},
    {"array", 'a', Arg::kRequired},
    {"batch", 0, Arg::kRequired},
    {"bb", 0, Arg::kRequired},
    {"bbf", 0, Arg::kRequired},
    {"begin", 'b', Arg::kRequired},
    {"chdir", 'D', Arg::kRequired},
    {"clusters", 'M', Arg::kRequired},
    {"comment", 0, Arg::kRequired},
    {"constraint", 'C', Arg::kRequired},
    {"container", 0, Arg::kRequired},
    {"core-spec", 'S', Arg::kRequired},
    {"cores-per-socket", 0, Arg::kRequired},
    {"cpu-freq", 0, Arg::kRequired},
    {"cpus-per-gpu", 0, Arg::kRequired},
    {"cpus-per-task", 'c', Arg::kRequired},
    {"deadline", 0, Arg::kRequired},
    {"delay-boot", 0, Arg::kRequired},
    {"dependency", 'd', Arg::kRequired},
    {"error", 'e', Arg::kRequired},
    {"exclude", 'x', Arg::kRequired},
    {"export", 0, Arg::kRequired},
    {"export-file", 0, Arg::kRequired},
    {"extra-node-info", 'B', Arg::kRequired},
    {"gid", 0, Arg::kRequired},
    {"gpu-bind", 0, Arg::kRequired},
    {"gpu-freq", 0, Arg::kRequired},
    {"gpus", 'G', Arg::kRequired},
    {"gpus-per-node", 0, Arg::kRequired},
    {"gpus-per-socket", 0, Arg::kRequired},
    {"gpus-per-task", 0, Arg::kRequired},
    {"gres", 0, Arg::kRequired},
    {"gres-flags", 0, Arg::kRequired},
    {"hint", 0, Arg::kRequired},
    {"input", 'i', Arg::kRequired},
    {"licenses", 'L', Arg::kRequired},
    {"mail-type", 0, Arg::kRequired},
    {"mail-user", 0, Arg::kRequired},
    {"mcs-label", 0, Arg::kRequired},
    {"mem", 0, Arg::kRequired},
    {"mem-bind", 0, Arg::kRequired},
    {"mem-per-cpu", 0, Arg::kRequired},
    {"mem-per-gpu", 0, Arg::kRequired},
    {"mincpus", 0, Arg::kRequired},
    {"network", 0, Arg::kRequired},
    {"nodefile", 'F', Arg::kRequired},
    {"nodelist", 'w', Arg::kRequired},
    {"ntasks-per-core", 0, Arg::kRequired},
    {"ntasks-per-gpu", 0, Arg::kRequired},
    {"ntasks-per-socket", 0, Arg::kRequired},
    {"open-mode", 0, Arg::kRequired},
    {"output", 'o', Arg::kRequired},
    {"partition", 'p', Arg::kRequired},
    {"power", 0, Arg::kRequired},
    {"prefer", 0, Arg::kRequired},
    {"priority", 0, Arg::kRequired},
    {"profile", 0, Arg::kRequired},
    {"qos", 'q', Arg::kRequired},
    {"reservation", 0, Arg::kRequired},
    {"signal", 0, Arg::kRequired},
    {"sockets-per-node", 0, Arg::kRequired},
    {"switches", 0, Arg::kRequired},
    {"thread-spec", 0, Arg::kRequired},
    {"threads-per-core", 0, Arg::kRequired},
    {"time-min", 0, Arg::kRequired},
    {"tmp", 0, Arg::kRequired},
    {"uid", 0, Arg::kRequired},
    {"wait-all-nodes", 0, Arg::kRequired},
    {"wckey", 0, Arg::kRequired},
    {"wrap", 0, Arg::kRequired},
    {"kill-on-invalid-dep", 0, Arg::kRequired},
    {"exclusive", 0, Arg::kOptional},
    {"get-user-env", 0, Arg::kOptional},
    {"nice", 0, Arg::kOptional},
    {"propagate", 0, Arg::kOptional},
    {"no-kill", 'k', Arg::kOptional},
    {"immediate", 'I', Arg::kOptional},
    {"contiguous", 0, Arg::kNone},
    {"hold", 'H', Arg::kNone},
    {"ignore-pbs", 0, Arg::kNone},
    {"no-requeue", 0, Arg::kNone},
    {"requeue", 0, Arg::kNone},
    {"overcommit", 'O', Arg::kNone},
    {"quiet", 'Q', Arg::kNone},
    {"reboot", 0, Arg::kNone},
    {"oversubscribe", 's', Arg::kNone},
    {"test-only", 0, Arg::kNone},
    {"use-min-nodes", 0, Arg::kNone},
    {"verbose", 'v', Arg::kNone},
    {"wait", 'W', Arg::kNone},
    {"parsable", 0, Arg::kNone},
    {"spread-job", 0, Arg::kNone},
};

const Option* Find(const std::string& name, char short_name) {
  for (const Option& o : kOptions) {
    if (short_name != 0 ? o.short_name == short_name : name == o.name) return &o;
  }
  return nullptr;
}

Result<int> Count(const std::string& value, const char* what) {
  if (value.empty() || value.size() > 9 || !std::all_of(value.begin(), value.end(), ::isdigit)) {
    return Status(EINVAL, std::string(what) + " must be a number, got '" + value + "'");
  }
  int n = std::stoi(value);
  if (n < 1) return Status(EINVAL, std::string(what) + " must be at least 1");
  return n;
}

Status Apply(const Option& o, const std::string& value, BatchOptions* out) {
  std::string name = o.name;
  if (name == "nodes") {
    std::string max = value.substr(value.find('-') == std::string::npos ? 0 : value.find('-') + 1);
    BB_ASSIGN_OR_RETURN(out->nodes, Count(max, "the node count"));
  } else if (name == "ntasks") {
    BB_ASSIGN_OR_RETURN(out->ntasks, Count(value, "the task count"));
  } else if (name == "ntasks-per-node") {
    BB_ASSIGN_OR_RETURN(out->ntasks_per_node, Count(value, "the tasks per node"));
  } else if (name == "distribution") {
    BB_ASSIGN_OR_RETURN(out->distribution, ParseDistribution(value));
  } else if (name == "time") {
    BB_ASSIGN_OR_RETURN(out->time_limit_s, ParseTimeLimit(value));
  } else if (name == "job-name") {
    out->job_name = value;
  }
  return Status::Ok();
}

// One directive line's words: options and their values.
Status ApplyLine(const std::vector<std::string>& words, BatchOptions* out) {
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.size() < 2 || w[0] != '-') return Status(EINVAL, "'" + w + "' is not an option");
    bool is_long = w[1] == '-';
    std::string name = is_long ? w.substr(2, w.find('=') - 2) : "";
    const Option* o = is_long ? Find(name, 0) : Find("", w[1]);
    if (o == nullptr) return Status(EINVAL, "sbatch has no option " + (is_long ? "--" + name : w.substr(0, 2)));
    std::string shown = is_long ? "--" + name : w.substr(0, 2);
    std::optional<std::string> value;
    if (is_long && w.find('=') != std::string::npos) {
      value = w.substr(w.find('=') + 1);
    } else if (!is_long && w.size() > 2) {
      value = w.substr(w[2] == '=' ? 3 : 2);
    }
    if (o->arg == Arg::kNone && value) return Status(EINVAL, shown + " takes no value");
    if (o->arg == Arg::kRequired && !value) {
      if (i + 1 >= words.size()) return Status(EINVAL, shown + " needs a value");
      value = words[++i];
    }
    if (Status s = Apply(*o, value.value_or(""), out); !s.ok()) return s.Annotate(shown);
  }
  return Status::Ok();
}

}  // namespace

Result<std::optional<int>> ParseTimeLimit(const std::string& text) {
  if (text == "UNLIMITED" || text == "INFINITE" || text == "unlimited" || text == "infinite")
    return std::optional<int>();
  std::string rest = text;
  int days = 0;
  bool with_days = rest.find('-') != std::string::npos;
  auto bad = Status(EINVAL, "time limit '" + text + "' is not MM, MM:SS, HH:MM:SS or D-HH[:MM[:SS]]");
  if (with_days) {
    auto d = Count(rest.substr(0, rest.find('-')), "days");
    if (!d && rest.substr(0, rest.find('-')) != "0") return bad;
    days = d ? *d : 0;
    rest = rest.substr(rest.find('-') + 1);
  }
  std::vector<int> parts;
  std::stringstream ss(rest);
  for (std::string p; std::getline(ss, p, ':');) {
    if (p.empty() || p.size() > 6 || !std::all_of(p.begin(), p.end(), ::isdigit)) return bad;
    parts.push_back(std::stoi(p));
  }
  if (parts.empty() || parts.size() > 3) return bad;
  int seconds = 0;
  if (with_days) {  // D-HH, D-HH:MM, D-HH:MM:SS
    seconds = parts[0] * 3600 + (parts.size() > 1 ? parts[1] * 60 : 0) + (parts.size() > 2 ? parts[2] : 0);
  } else if (parts.size() == 1) {  // MM
    seconds = parts[0] * 60;
  } else if (parts.size() == 2) {  // MM:SS
    seconds = parts[0] * 60 + parts[1];
  } else {  // HH:MM:SS
    seconds = parts[0] * 3600 + parts[1] * 60 + parts[2];
  }
  return std::optional<int>(days * 86400 + seconds);
}

Result<BatchOptions> ParseBatchDirectives(const std::string& text, const std::string& source) {
  BatchOptions out;
  Status s = ForEachDirective(text, "#SBATCH", [&](int line_no, const std::string& rest) {
    std::string body = rest.substr(0, rest.find(" #"));  // a trailing comment
    auto words = SplitWords(body);
    if (!words) return Status(EINVAL, source + ":" + std::to_string(line_no) + ": #SBATCH: " + words.error().message());
    if (Status a = ApplyLine(*words, &out); !a.ok()) {
      return Status(EINVAL, source + ":" + std::to_string(line_no) + ": #SBATCH " + a.message());
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<JobShape> ShapeJob(const BatchOptions& o, int cluster_nodes) {
  JobShape j;
  j.tasks_per_node = o.ntasks_per_node.value_or(0);
  if (o.nodes) {
    j.nodes = *o.nodes;
  } else if (o.ntasks && o.ntasks_per_node) {
    j.nodes = (*o.ntasks + *o.ntasks_per_node - 1) / *o.ntasks_per_node;
  } else if (o.ntasks) {
    j.nodes = std::min(*o.ntasks, cluster_nodes);
  }
  if (j.nodes > cluster_nodes) {
    return Status(EINVAL, "the job asks for " + std::to_string(j.nodes) + " nodes; the cluster has " +
                              std::to_string(cluster_nodes));
  }
  j.tasks = o.ntasks.value_or(o.ntasks_per_node ? j.nodes * *o.ntasks_per_node : j.nodes);
  if (j.tasks_per_node > 0 && j.tasks > j.nodes * j.tasks_per_node) {
    return Status(EINVAL, std::to_string(j.tasks) + " tasks do not fit " + std::to_string(j.nodes) + " nodes at " +
                              std::to_string(j.tasks_per_node) + " per node");
  }
  if (j.tasks < j.nodes) j.nodes = j.tasks;  // sbatch gives no node without a task
  return j;
}

}  // namespace bb::jobs
