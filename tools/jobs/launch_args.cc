#include "tools/jobs/launch_args.h"

#include <algorithm>
#include <cctype>

namespace bb::jobs {
namespace {

Result<int> Positive(const std::string& opt, const std::string& v) {
  if (v.empty() || v.size() > 9 || !std::all_of(v.begin(), v.end(), ::isdigit) || std::stoi(v) < 1) {
    return Status(EINVAL, opt + " needs a positive number, got '" + v + "'");
  }
  return std::stoi(v);
}

// srun's options that take a value (short letter, long name); the placement ones are read.
struct SrunOption {
  char short_name;
  const char* name;
  bool value;
};
constexpr SrunOption kSrun[] = {
    {'N', "nodes", true},
    {'n', "ntasks", true},
    {0, "ntasks-per-node", true},
    {'m', "distribution", true},
    {'D', "chdir", true},
    {'l', "label", false},
    {'c', "cpus-per-task", true},
    {'J', "job-name", true},
    {'o', "output", true},
    {'e', "error", true},
    {'i', "input", true},
    {'t', "time", true},
    {0, "cpu-bind", true},
    {0, "mpi", true},
    {0, "mem", true},
    {0, "mem-per-cpu", true},
    {0, "gres", true},
    {'G', "gpus", true},
    {0, "export", true},
    {'p', "partition", true},
    {'w', "nodelist", true},
    {'x', "exclude", true},
    {0, "hint", true},
    {0, "signal", true},
    {0, "mem-bind", true},
    {'W', "wait", true},
    {'A', "account", true},
    {'q', "qos", true},
    {0, "overlap", false},
    {'u', "unbuffered", false},
    {0, "exclusive", false},
    {'Q', "quiet", false},
    {'v', "verbose", false},
    {'X', "disable-status", false},
    {0, "exact", false},
    {'O', "overcommit", false},
    {'s', "oversubscribe", false},
    {'K', "kill-on-bad-exit", false},
    {0, "pty", false},
    {0, "propagate", false},
    {0, "whole", false},
    {0, "cpus-per-gpu", true},
    {0, "gpus-per-task", true},
    {0, "threads-per-core", true},
    {0, "ntasks-per-core", true},
};

const SrunOption* FindSrun(char short_name, const std::string& name) {
  for (const SrunOption& o : kSrun) {
    if (short_name ? o.short_name == short_name : name == o.name) return &o;
  }
  return nullptr;
}

Status ApplySrun(const std::string& name, const std::string& v, SrunArgs* a) {
  if (name == "nodes") {
    BB_ASSIGN_OR_RETURN(a->nodes,
                        Positive("--nodes", v.substr(v.find('-') == std::string::npos ? 0 : v.find('-') + 1)));
  } else if (name == "ntasks") {
    BB_ASSIGN_OR_RETURN(a->tasks, Positive("--ntasks", v));
  } else if (name == "ntasks-per-node") {
    BB_ASSIGN_OR_RETURN(a->tasks_per_node, Positive("--ntasks-per-node", v));
  } else if (name == "distribution") {
    BB_ASSIGN_OR_RETURN(a->distribution, ParseDistribution(v));
  } else if (name == "chdir") {
    a->chdir = v;
  } else if (name == "label") {
    a->label = true;
  }
  return Status::Ok();
}

}  // namespace

Result<SrunArgs> ParseSrunArgs(const std::vector<std::string>& args) {
  SrunArgs a;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& w = args[i];
    if (w == "--") {
      ++i;
      break;
    }
    if (w.size() < 2 || w[0] != '-') break;
    bool is_long = w[1] == '-';
    std::string name = is_long ? w.substr(2, w.find('=') - 2) : "";
    const SrunOption* o = FindSrun(is_long ? 0 : w[1], name);
    std::string shown = is_long ? "--" + name : w.substr(0, 2);
    if (o == nullptr) return Status(EINVAL, "srun: unrecognized option '" + shown + "'");
    std::string value;
    if (o->value) {
      if (is_long && w.find('=') != std::string::npos) {
        value = w.substr(w.find('=') + 1);
      } else if (!is_long && w.size() > 2) {
        value = w.substr(w[2] == '=' ? 3 : 2);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return Status(EINVAL, "srun: option '" + shown + "' needs a value");
      }
    }
    BB_RETURN_IF_ERROR(ApplySrun(o->name, value, &a).Annotate("srun"));
  }
  a.program.assign(args.begin() + static_cast<long>(std::min(i, args.size())), args.end());
  if (a.program.empty()) return Status(EINVAL, "srun: no command given");
  return a;
}

Result<StepShape> SrunShape(const SrunArgs& a, const JobEnv& job) {
  StepShape s;
  s.nodes = a.nodes.value_or(job.nodes);
  if (s.nodes > job.nodes) {
    return Status(EINVAL, "srun: the step asks for " + std::to_string(s.nodes) + " nodes; the job has " +
                              std::to_string(job.nodes));
  }
  s.tasks_per_node = a.tasks_per_node.value_or(0);
  s.tasks = a.tasks.value_or(job.tasks);  // inherited from the allocation, as in Slurm
  // Slurm 22.05 starts the inherited count even when --ntasks-per-node says fewer fit.
  if (!a.tasks && s.tasks_per_node > 0 && s.tasks > s.nodes * s.tasks_per_node) s.tasks_per_node = 0;
  if (s.tasks < s.nodes) s.nodes = s.tasks;
  s.distribution = a.distribution.value_or(job.distribution.value_or(Distribution::kBlock));
  return s;
}

namespace {

// Open MPI's mpirun options: how many values each takes, and whether the real mpirun gets it.
struct MpiOption {
  const char* name;  // as written, one or two dashes
  int values;
  bool keep;
};
constexpr MpiOption kMpirun[] = {
    {"-np", 1, false},
    {"--np", 1, false},
    {"-n", 1, false},
    {"-c", 1, false},
    {"-N", 1, false},
    {"-npernode", 1, false},
    {"--npernode", 1, false},
    {"-pernode", 0, false},
    {"--pernode", 0, false},
    {"--map-by", 1, false},
    {"-map-by", 1, false},
    {"--rank-by", 1, false},
    {"-rank-by", 1, false},
    {"-H", 1, false},
    {"--host", 1, false},
    {"-host", 1, false},
    {"--hostfile", 1, false},
    {"-hostfile", 1, false},
    {"--machinefile", 1, false},
    {"-machinefile", 1, false},
    {"--default-hostfile", 1, false},
    {"--oversubscribe", 0, false},
    {"-oversubscribe", 0, false},
    {"--nooversubscribe", 0, false},
    {"--allow-run-as-root", 0, false},
    {"--nolocal", 0, false},
    {"--use-hwthread-cpus", 0, false},
    {"--cpus-per-proc", 1, false},
    {"-cpus-per-proc", 1, false},
    {"--cpus-per-rank", 1, false},
    {"-cpus-per-rank", 1, false},
    {"-x", 1, true},
    {"--mca", 2, true},
    {"-mca", 2, true},
    {"--gmca", 2, true},
    {"-gmca", 2, true},
    {"--bind-to", 1, true},
    {"-bind-to", 1, true},
    {"--bind-to-core", 0, true},
    {"--bind-to-socket", 0, true},
    {"-wdir", 1, true},
    {"--wdir", 1, true},
    {"-wd", 1, true},
    {"--prefix", 1, true},
    {"--path", 1, true},
    {"--tag-output", 0, true},
    {"-tag-output", 0, true},
    {"--timestamp-output", 0, true},
    {"-q", 0, true},
    {"--quiet", 0, true},
    {"-v", 0, true},
    {"--verbose", 0, true},
    {"--display-map", 0, true},
    {"--display-allocation", 0, true},
    {"--report-bindings", 0, true},
    {"--merge-stderr-to-stdout", 0, true},
    {"--output-filename", 1, true},
    {"-output-filename", 1, true},
    {"--timeout", 1, true},
    {"--show-progress", 0, true},
};

const MpiOption* FindMpi(const std::string& name) {
  for (const MpiOption& o : kMpirun) {
    if (name == o.name) return &o;
  }
  return nullptr;
}

Status ApplyMpi(const std::string& name, const std::vector<std::string>& v, MpirunArgs* a) {
  if (name == "-np" || name == "--np" || name == "-n" || name == "-c") {
    BB_ASSIGN_OR_RETURN(a->np, Positive(name, v[0]));
  } else if (name == "-N" || name == "-npernode" || name == "--npernode") {
    BB_ASSIGN_OR_RETURN(a->per_node, Positive(name, v[0]));
  } else if (name == "-pernode" || name == "--pernode") {
    a->per_node = 1;
  } else if (name == "--map-by" || name == "-map-by") {
    std::string m = v[0].substr(0, v[0].find(','));  // modifiers such as ",oversubscribe"
    if (m == "node") {
      a->by_node = true;
    } else if (m.rfind("ppr:", 0) == 0 && m.size() > 9 && m.substr(m.size() - 5) == ":node") {
      BB_ASSIGN_OR_RETURN(a->per_node, Positive("--map-by ppr", m.substr(4, m.size() - 9)));
    } else if (m != "slot" && m != "core" && m != "socket" && m != "numa" && m != "hwthread" && m != "board") {
      return Status(EINVAL, "mpirun: --map-by " + v[0] + " is not supported here");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<MpirunArgs> ParseMpirunArgs(const std::vector<std::string>& args) {
  MpirunArgs a;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string w = args[i];
    if (w == "--") {
      ++i;
      break;
    }
    if (w.empty() || w[0] != '-') break;
    std::vector<std::string> values;
    if (w.find('=') != std::string::npos && w.rfind("--", 0) == 0) {  // --opt=value
      values.push_back(w.substr(w.find('=') + 1));
      w = w.substr(0, w.find('='));
    }
    const MpiOption* o = FindMpi(w);
    if (o == nullptr) return Status(EINVAL, "mpirun: option '" + w + "' is not known here");
    while (static_cast<int>(values.size()) < o->values) {
      if (i + 1 >= args.size()) return Status(EINVAL, "mpirun: option '" + w + "' needs a value");
      values.push_back(args[++i]);
    }
    BB_RETURN_IF_ERROR(ApplyMpi(w, values, &a));
    if (o->keep) {
      a.kept.push_back(w);
      a.kept.insert(a.kept.end(), values.begin(), values.end());
    }
  }
  a.program.assign(args.begin() + static_cast<long>(std::min(i, args.size())), args.end());
  if (a.program.empty()) return Status(EINVAL, "mpirun: no program given");
  if (std::find(a.program.begin(), a.program.end(), ":") != a.program.end()) {
    return Status(EINVAL, "mpirun: several programs (':') are not supported here");
  }
  return a;
}

Result<StepShape> MpirunShape(const MpirunArgs& a, const JobEnv& job) {
  StepShape s;
  s.tasks = a.np.value_or(job.tasks);
  if (a.per_node) {
    s.tasks_per_node = *a.per_node;
    s.nodes = (s.tasks + *a.per_node - 1) / *a.per_node;
    if (!a.np) {  // K per node on every node of the job
      s.nodes = job.nodes;
      s.tasks = job.nodes * *a.per_node;
    }
    if (s.nodes > job.nodes) {
      return Status(EINVAL, "mpirun: " + std::to_string(s.tasks) + " ranks at " + std::to_string(*a.per_node) +
                                " per node need " + std::to_string(s.nodes) + " nodes; the job has " +
                                std::to_string(job.nodes));
    }
  } else {
    s.nodes = std::min(job.nodes, s.tasks);
    // By slot: each node's slots are the job's tasks per node; past them, spread evenly.
    s.tasks_per_node = s.tasks <= job.tasks && job.tasks_per_node > 0 ? job.tasks_per_node : 0;
  }
  s.distribution = a.by_node ? Distribution::kCyclic : Distribution::kBlock;
  return s;
}

}  // namespace bb::jobs
