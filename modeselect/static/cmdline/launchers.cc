#include "modeselect/static/cmdline/launchers.h"

#include <cstring>

#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

// srun(1) options that take a value; every other option is a flag (or takes its optional
// value only as --opt=value).
constexpr const char* kSrunShortValue = "ABCDGJLMNSTWcdeimnopqrtwx";
constexpr const char* kSrunLongValue[] = {"account",
                                          "extra-node-info",
                                          "begin",
                                          "bb",
                                          "bbf",
                                          "cpu-bind",
                                          "comment",
                                          "constraint",
                                          "cluster-constraint",
                                          "cpus-per-task",
                                          "chdir",
                                          "dependency",
                                          "error",
                                          "export",
                                          "gres",
                                          "gres-flags",
                                          "gpus",
                                          "gpus-per-node",
                                          "gpus-per-task",
                                          "gpus-per-socket",
                                          "gpu-bind",
                                          "gpu-freq",
                                          "cpus-per-gpu",
                                          "mem-per-gpu",
                                          "input",
                                          "job-name",
                                          "jobid",
                                          "licenses",
                                          "clusters",
                                          "distribution",
                                          "mail-type",
                                          "mail-user",
                                          "mem",
                                          "mem-per-cpu",
                                          "mem-bind",
                                          "mincpus",
                                          "mpi",
                                          "nodes",
                                          "ntasks",
                                          "ntasks-per-node",
                                          "ntasks-per-core",
                                          "ntasks-per-socket",
                                          "ntasks-per-gpu",
                                          "nodefile",
                                          "nodelist",
                                          "network",
                                          "open-mode",
                                          "output",
                                          "partition",
                                          "prolog",
                                          "epilog",
                                          "qos",
                                          "reservation",
                                          "relative",
                                          "signal",
                                          "sockets-per-node",
                                          "cores-per-socket",
                                          "threads-per-core",
                                          "switches",
                                          "task-epilog",
                                          "task-prolog",
                                          "time",
                                          "time-min",
                                          "threads",
                                          "tmp",
                                          "uid",
                                          "gid",
                                          "wait",
                                          "wckey",
                                          "exclude",
                                          "het-group",
                                          "hint",
                                          "container",
                                          "container-id",
                                          "cpu-freq",
                                          "core-spec",
                                          "thread-spec",
                                          "profile",
                                          "slurmd-debug",
                                          "power",
                                          "priority",
                                          "accel-bind",
                                          "tres-per-task",
                                          "send-libs",
                                          "segment",
                                          "stepmgr"};

// mpirun/mpiexec options that take one value (dashes stripped), and those that take two.
constexpr const char* kMpiValue[] = {"np",
                                     "n",
                                     "c",
                                     "N",
                                     "npernode",
                                     "npersocket",
                                     "map-by",
                                     "rank-by",
                                     "bind-to",
                                     "H",
                                     "host",
                                     "hosts",
                                     "hostfile",
                                     "machinefile",
                                     "default-hostfile",
                                     "f",
                                     "x",
                                     "wdir",
                                     "wd",
                                     "prefix",
                                     "app",
                                     "tune",
                                     "am",
                                     "output-filename",
                                     "output",
                                     "path",
                                     "cpus-per-proc",
                                     "cpus-per-rank",
                                     "ppn",
                                     "perhost",
                                     "rankfile",
                                     "stdin",
                                     "report-bindings-file",
                                     "s",
                                     "launcher",
                                     "iface",
                                     "bootstrap",
                                     "configfile",
                                     "gpus-per-proc",
                                     "personality",
                                     "runtime-options",
                                     "pmixmca"};
constexpr const char* kMpiTwoValues[] = {"mca", "gmca", "genv", "env", "setenv", "omca"};

bool In(std::string_view w, std::span<const char* const> list) {
  for (const char* s : list) {
    if (w == s) return true;
  }
  return false;
}

void SetDistribution(Launch* l, std::string_view value) { l->distribution = ParseDistribution(value); }

// --map-by node | slot | core | ppr:K:node[:pe=N] | node:PE=2 ...
void MapBy(Launch* l, std::string_view v) {
  std::string s = text::Lower(v);
  if (s.rfind("ppr:", 0) == 0) {
    std::vector<std::string_view> parts = text::Split(s, ":");
    if (parts.size() >= 3 && parts[2].rfind("node", 0) == 0) l->tasks_per_node = ParseCount(parts[1]);
    l->distribution = "block";
    return;
  }
  std::string_view head = text::Split(s, ":,").empty() ? std::string_view() : text::Split(s, ":,")[0];
  if (head == "node" || head == "nodes") l->distribution = "cyclic";
  if (head == "slot" || head == "slots" || head == "core" || head == "socket" || head == "numa" || head == "hwthread" ||
      head == "l3cache" || head == "package")
    l->distribution = "block";
}

void SrunOption(Launch* l, std::string_view opt, std::string_view value) {
  if (opt == "N" || opt == "nodes") l->nodes = ParseCount(value);
  if (opt == "n" || opt == "ntasks") l->tasks = ParseCount(value);
  if (opt == "ntasks-per-node") l->tasks_per_node = ParseCount(value);
  if (opt == "m" || opt == "distribution") SetDistribution(l, value);
  if (opt == "D" || opt == "chdir") l->chdir = value;
}

size_t ParseSrun(std::span<const std::string> a, Launch* l) {
  size_t i = 1;
  while (i < a.size()) {
    const std::string& w = a[i];
    if (w == "--") return i + 1;
    if (w.size() < 2 || w[0] != '-') return i;
    if (w[1] == '-') {
      size_t eq = w.find('=');
      std::string opt = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (eq != std::string::npos) {
        SrunOption(l, opt, std::string_view(w).substr(eq + 1));
      } else if (In(opt, kSrunLongValue) && i + 1 < a.size()) {
        SrunOption(l, opt, a[++i]);
      }
      ++i;
      continue;
    }
    std::string opt(1, w[1]);
    if (std::strchr(kSrunShortValue, w[1]) != nullptr) {
      if (w.size() > 2) {
        SrunOption(l, opt, std::string_view(w).substr(w[2] == '=' ? 3 : 2));
      } else if (i + 1 < a.size()) {
        SrunOption(l, opt, a[++i]);
      }
    }
    ++i;
  }
  return i;
}

void MpiOption(Launch* l, std::string_view opt, std::string_view v) {
  if (opt == "np" || opt == "n" || opt == "c") l->tasks = ParseCount(v);
  if (opt == "N" || opt == "npernode" || opt == "ppn" || opt == "perhost") l->tasks_per_node = ParseCount(v);
  if (opt == "map-by") MapBy(l, v);
  if (opt == "wdir" || opt == "wd") l->chdir = v;
  if (opt == "H" || opt == "host" || opt == "hosts") {
    l->nodes = static_cast<int>(text::Split(v, ",").size());
  }
}

size_t ParseMpirun(std::span<const std::string> a, Launch* l) {
  size_t i = 1;
  while (i < a.size()) {
    const std::string& w = a[i];
    if (w == "--" || w == ":") return i + 1;
    if (w.size() < 2 || w[0] != '-') return i;
    std::string opt = w.substr(w[1] == '-' ? 2 : 1);
    size_t eq = opt.find('=');
    if (eq != std::string::npos) {
      MpiOption(l, opt.substr(0, eq), std::string_view(opt).substr(eq + 1));
    } else if (In(opt, kMpiTwoValues)) {
      i += 2;
    } else if (In(opt, kMpiValue) && i + 1 < a.size()) {
      MpiOption(l, opt, a[++i]);
    } else if (opt == "rr" || opt == "bynode") {
      l->distribution = "cyclic";
    } else if (opt == "byslot") {
      l->distribution = "block";
    } else if (opt.size() > 1 && (opt[0] == 'n' || opt[0] == 'N') && ParseCount(opt.substr(1)) > 0 && w[1] != '-') {
      MpiOption(l, opt.substr(0, 1), opt.substr(1));  // -n4
    }
    ++i;
  }
  return i;
}

}  // namespace

bool IsLauncher(std::string_view program) {
  std::string base = text::Basename(program);
  return base == "srun" || base == "mpirun" || base == "mpiexec" || base == "mpiexec.hydra" || base == "orterun" ||
         base == "prun";
}

int ParseCount(std::string_view s) {
  s = text::Trim(s);
  size_t dash = s.find('-');
  if (dash != std::string_view::npos && dash > 0) s = s.substr(dash + 1);
  std::optional<long long> v = text::ParseInt(s);
  if (!v || *v < 0 || *v > 100000000) return 0;
  return static_cast<int>(*v);
}

std::string ParseDistribution(std::string_view s) {
  std::string v = text::Lower(text::Trim(s));
  std::string head = v.substr(0, v.find_first_of(":,"));
  if (head == "block" || head == "cyclic") return head;
  return "";
}

Launch ParseLauncher(std::span<const std::string> argv) {
  Launch l;
  if (argv.empty()) return l;
  l.launcher = text::Basename(argv[0]);
  if (l.launcher == "mpiexec.hydra" || l.launcher == "orterun" || l.launcher == "prun") l.launcher = "mpiexec";
  size_t prog = l.launcher == "srun" ? ParseSrun(argv, &l) : ParseMpirun(argv, &l);
  for (size_t i = prog; i < argv.size(); ++i) l.argv.push_back(argv[i]);
  return l;
}

void ApplySbatch(std::span<const std::string> args, SbatchGeometry* g) {
  std::vector<std::string> argv{"srun"};
  argv.insert(argv.end(), args.begin(), args.end());
  Launch l;
  ParseSrun(argv, &l);
  if (l.nodes) g->nodes = l.nodes;
  if (l.tasks) g->ntasks = l.tasks;
  if (l.tasks_per_node) g->ntasks_per_node = l.tasks_per_node;
  if (!l.distribution.empty()) g->distribution = l.distribution;
}

}  // namespace bb::modeselect
