// What the commands of a batch script mean: wrappers, helper scripts, compilers and make,
// Python programs, benchmarks, staging copies and per-task directories.
#include <cstring>

#include "modeselect/static/cmdline/makefile.h"
#include "modeselect/static/job/job_interp.h"
#include "modeselect/static/job/rank_paths.h"

namespace bb::modeselect {
namespace {

bool In(std::string_view w, std::initializer_list<const char*> list) {
  for (const char* s : list) {
    if (w == s) return true;
  }
  return false;
}

bool IsCompiler(std::string_view p) {
  return In(p, {"mpicc", "mpicxx", "mpic++",    "mpiCC",    "mpif90", "mpif77", "mpifort", "gcc",     "g++",  "cc",
                "c++",   "clang",  "clang++",   "gfortran", "ifort",  "ifx",    "icc",     "icx",     "icpx", "nvcc",
                "nvc",   "nvc++",  "nvfortran", "ftn",      "CC",     "mpiicc", "mpiicpc", "mpiifort"});
}

}  // namespace

bool IsUtility(std::string_view p) {
  return In(p, {"echo",       "printf", "rm",        "ls",    "sleep",  "module", "ml",       "set",     "shopt",
                "trap",       "wait",   "true",      "false", "exit",   "return", "hostname", "date",    "mountpoint",
                "kill",       "pkill",  "sync",      "df",    "du",     "cat",    "grep",     "sed",     "awk",
                "tee",        "head",   "tail",      "wc",    "sort",   "find",   "touch",    "chmod",   "ln",
                "scontrol",   "sacct",  "squeue",    "sinfo", "bbd",    "bbctl",  "cmake",    "git",     "pip",
                "pip3",       "conda",  "unset",     "umask", "ulimit", "export", "local",    "declare", "typeset",
                "readonly",   "test",   "[",         "[[",    "((",     "let",    "eval",     "shift",   "read",
                "exec",       "nproc",  "uname",     "id",    "whoami", "env",    "printenv", "lscpu",   "free",
                "nvidia-smi", "mkdir",  "cp",        "mv",    "rsync",  "tar",    "dd",       "sbcast",  "scp",
                "stat",       "md5sum", "sha256sum", "diff",  "cmp",    "xargs",  "wget",     "curl",    "srun",
                "mpirun",     "cd"});
}

bool JobInterpreter::IsBurstBuffer(const std::string& s) const {
  for (const char* v : {"${BB_MOUNT}", "${BB_WORKSPACE}", "${DW_JOB_STRIPED}", "${DW_JOB_PRIVATE}"}) {
    if (s.find(v) != std::string::npos) return true;
  }
  for (const std::string& p : bb_prefixes_) {
    if (s.rfind(p, 0) == 0 && (s.size() == p.size() || s[p.size()] == '/' || p.back() == '/')) return true;
  }
  return false;
}

JobInterpreter::Program JobInterpreter::Dispatch(std::vector<std::string> argv, const Command& c,
                                                 const Launch* launch) {
  // Wrappers that run the rest of the line: time, env VAR=x, nohup, numactl ..., timeout 10m.
  while (!argv.empty()) {
    std::string p = text::Basename(argv[0]);
    if (!In(p, {"time", "nohup", "command", "builtin", "exec", "stdbuf", "nice", "ionice", "numactl", "env", "timeout",
                "taskset", "chrt", "valgrind", "strace"}))
      break;
    size_t i = 1;
    while (i < argv.size() && (argv[i][0] == '-' || (p == "env" && argv[i].find('=') != std::string::npos))) {
      bool value = (p == "timeout" && (argv[i] == "-s" || argv[i] == "-k")) ||
                   (p == "numactl" && argv[i].size() == 2 && std::strchr("CNmpi", argv[i][1])) ||
                   (p == "taskset" && argv[i] == "-c") || (p == "env" && argv[i] == "-u");
      i += value ? 2 : 1;
    }
    if (p == "timeout" && i < argv.size()) ++i;                     // the duration
    if (p == "taskset" && i < argv.size() && argv[1] != "-c") ++i;  // the mask
    argv.erase(argv.begin(), argv.begin() + static_cast<long>(std::min(i, argv.size())));
  }
  if (argv.empty()) return {};
  if (task_ && launch == task_->launch) TaskPaths(argv, c);
  std::string p = text::Basename(argv[0]);
  if (IsLauncher(p) && !launch) {
    Launcher(argv, c);
    return {};
  }
  if (p == "cd") {
    cwd_ = argv.size() > 1 ? Resolve(argv[1]) : job_dir_;
    return {};
  }
  if (p == "export" || p == "local" || p == "declare" || p == "typeset" || p == "readonly") {
    for (size_t i = 1; i < argv.size(); ++i) {
      size_t eq = argv[i].find('=');
      if (argv[i][0] != '-' && eq != std::string::npos) SetVar(argv[i].substr(0, eq), argv[i].substr(eq + 1));
    }
    return {};
  }
  if (p == "source" || p == ".") {
    if (argv.size() > 1) Follow(argv[1], std::vector<std::string>(argv.begin() + 2, argv.end()), true);
    return {};
  }
  return Run(argv, c, launch);
}

// A command that is no shell builtin: what it runs.
JobInterpreter::Program JobInterpreter::Run(const std::vector<std::string>& argv, const Command& c,
                                            const Launch* launch) {
  std::string p = text::Basename(argv[0]);
  Program prog;
  if (p == "bash" || p == "sh" || p == "zsh" || p == "ksh" || p == "dash" || p.ends_with(".sh")) {
    return Shell(argv, c, launch);
  }
  if (IsCompiler(p)) {
    Compile(argv);
    return {};
  }
  if (p == "make" || p == "gmake") {
    Make(argv);
    return {};
  }
  if (In(p, {"cp", "rsync", "tar", "dd", "sbcast", "scp", "dcp", "mv", "bbcp"})) Staging(argv, c);
  if (p == "mkdir") Mkdir(argv, c, launch);
  if (p.rfind("python", 0) == 0 || text::Extension(p) == ".py") return Python(argv);
  if (p == "ior" || p == "mdtest" || p == "fio") return Benchmark(argv, c, launch);
  std::string path = Resolve(argv[0]);
  auto bin = binaries_.find(path);
  if (bin == binaries_.end()) bin = binaries_.find(p);
  if (bin != binaries_.end()) {
    for (const std::string& s : bin->second) TraceSource(s);
  } else if (IsUtility(p)) {
    prog.kind = Kind::kInfra;
    return prog;
  }
  prog.kind = Kind::kApp;
  prog.paths = DataPaths(std::vector<std::string>(argv.begin() + 1, argv.end()));
  return prog;
}

JobInterpreter::Program JobInterpreter::Python(const std::vector<std::string>& argv) {
  Program prog;
  prog.kind = Kind::kApp;
  size_t i = text::Extension(text::Basename(argv[0])) == ".py" ? 0 : 1;
  for (; i < argv.size() && argv[i][0] == '-'; ++i) {
    if (argv[i] == "-m" || argv[i] == "-c") return prog;  // a module or inline code: not traced
    if (argv[i] == "-W" || argv[i] == "-X") ++i;
  }
  if (i >= argv.size()) return prog;
  TraceSource(Resolve(argv[i]));
  prog.paths = DataPaths(std::vector<std::string>(argv.begin() + static_cast<long>(i) + 1, argv.end()));
  return prog;
}

std::optional<FioJobFile> JobInterpreter::InputFile(const std::string& name) {
  std::string full = Resolve(name);
  if (auto it = written_.find(full); it != written_.end()) return it->second;
  Result<std::string> t = files_.Read(full);
  if (!t) return std::nullopt;
  FioJobFile f{text::RelativeTo(full, job_dir_), std::move(*t), 1};
  out_.scripts.push_back(f.path);
  return f;
}

JobInterpreter::Program JobInterpreter::Benchmark(const std::vector<std::string>& argv, const Command& c,
                                                  const Launch* launch) {
  Where w{Display(), Line(c.line), Snippet(Line(c.line)), StepTasks(launch)};
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  std::string p = text::Basename(argv[0]);
  BenchmarkRun r;
  if (p == "ior") {
    // ior -f SCRIPT: the script's settings count as -O directives after the command line's.
    for (size_t k = 0; k + 1 < argv.size(); ++k) {
      if (argv[k] != "-f") continue;
      if (std::optional<FioJobFile> script = InputFile(argv[k + 1])) {
        args.push_back("-O");
        args.push_back(IorScriptDirectives(script->text));
      }
    }
    r = ParseIorArgs(args, w);
  } else if (p == "mdtest") {
    r = ParseMdtestArgs(args, w);
  } else {
    std::vector<FioJobFile> jobs;
    for (const std::string& a : args) {
      if (a.empty() || a[0] == '-') continue;
      if (std::optional<FioJobFile> f = InputFile(a)) jobs.push_back(std::move(*f));
    }
    r = ParseFioArgs(args, jobs, w, vars_);
  }
  for (const Finding& f : r.findings) findings_.Add(f.fact, f.file, f.line, f.snippet, f.value, Merge::kMax);
  if (launch && !r.shifts.empty()) CrossNode(*launch, r.shifts, w.line);
  Program prog;
  prog.kind = Kind::kApp;
  for (const std::string& path : r.paths) prog.paths.push_back(text::NormalizePath(Resolve(path)));
  prog.writes = r.writes;
  prog.reads = r.reads;
  return prog;
}

void JobInterpreter::Compile(const std::vector<std::string>& argv) {
  std::string out = "a.out";
  std::vector<std::string> srcs;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "-o" && i + 1 < argv.size()) {
      out = argv[++i];
    } else if (argv[i].rfind("-o", 0) == 0 && argv[i].size() > 2) {
      out = argv[i].substr(2);
    } else if (argv[i][0] != '-' && IsCompiledSource(argv[i])) {
      srcs.push_back(Resolve(argv[i]));
    }
  }
  if (srcs.empty()) return;
  binaries_[Resolve(out)] = srcs;
  binaries_[text::Basename(out)] = srcs;
}

void JobInterpreter::Make(const std::vector<std::string>& argv) {
  std::string dir = cwd_, file;
  std::vector<std::string> targets;
  std::map<std::string, std::string> overrides;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if ((a == "-C" || a == "--directory") && i + 1 < argv.size()) {
      dir = text::JoinPath(dir, argv[++i]);
    } else if (a.rfind("-C", 0) == 0 && a.size() > 2) {
      dir = text::JoinPath(dir, a.substr(2));
    } else if ((a == "-f" || a == "--file") && i + 1 < argv.size()) {
      file = argv[++i];
    } else if (a == "-j" || a == "-l") {
      if (i + 1 < argv.size() && text::ParseInt(argv[i + 1])) ++i;
    } else if (a[0] != '-' && a.find('=') != std::string::npos) {
      overrides[a.substr(0, a.find('='))] = a.substr(a.find('=') + 1);
    } else if (a[0] != '-') {
      targets.push_back(a);
    }
  }
  std::vector<std::string> names =
      file.empty() ? std::vector<std::string>{"GNUmakefile", "makefile", "Makefile"} : std::vector<std::string>{file};
  for (const std::string& n : names) {
    std::string path = text::JoinPath(dir, n);
    Result<std::string> t = files_.Read(path);
    if (!t) continue;
    out_.scripts.push_back(text::RelativeTo(path, job_dir_));
    Makefile mk = ParseMakefile(*t, overrides);
    if (targets.empty()) targets.push_back(mk.default_target);
    for (const std::string& target : targets) {
      std::vector<std::string> srcs;
      auto exists = [&](const std::string& rel) { return files_.IsFile(text::JoinPath(dir, rel)); };
      std::vector<std::string> deps = MakeTargetSources(mk, target, exists);
      for (const std::string& s : deps) srcs.push_back(text::JoinPath(dir, s));
      // `make all` builds the rules `all` depends on: each is a binary of its own.
      for (const MakeRule& r : mk.rules) {
        bool match = false;
        for (const std::string& tg : r.targets) match |= tg == target;
        for (const std::string& pre : match ? r.prereqs : std::vector<std::string>{}) {
          std::vector<std::string> sub;
          for (const std::string& s : MakeTargetSources(mk, pre, exists)) sub.push_back(text::JoinPath(dir, s));
          if (!sub.empty() && !IsCompiledSource(pre) && text::Extension(pre) != ".o") {
            binaries_[text::JoinPath(dir, pre)] = sub;
            binaries_[text::Basename(pre)] = sub;
          }
        }
      }
      if (srcs.empty()) continue;
      binaries_[text::JoinPath(dir, target)] = srcs;
      binaries_[text::Basename(target)] = srcs;
    }
    return;
  }
}

void JobInterpreter::TraceSource(const std::string& path) {
  if (!files_.IsFile(path) || !sources_seen_.insert(path).second) return;
  out_.sources.push_back(path);
}

// Arguments that name files or directories: paths with a '/', burst buffer paths, the values of
// --opt=value; not the sources and configuration files a program reads as code.
std::vector<std::string> JobInterpreter::DataPaths(const std::vector<std::string>& args) const {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    std::string v = a.rfind("--", 0) == 0 && a.find('=') != std::string::npos ? a.substr(a.find('=') + 1) : a;
    if (v.empty() || v[0] == '-' || (v.find('/') == std::string::npos && !IsBurstBuffer(v))) continue;
    std::string_view ext = text::Extension(v);
    if (In(ext, {".py", ".sh", ".c", ".cc", ".cpp", ".f90", ".yaml", ".yml", ".json", ".cfg", ".ini", ".toml", ".fio",
                 ".conf", ".txt"}))
      continue;
    out.push_back(text::NormalizePath(Resolve(v)));
  }
  return out;
}

void JobInterpreter::Staging(const std::vector<std::string>& argv, const Command& c) {
  std::string p = text::Basename(argv[0]);
  std::vector<std::string> srcs, all;
  std::string dest, archive, dir;
  bool extract = false, create = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (p == "tar" && (i == 1 || a[0] == '-') && a.rfind("--", 0) != 0 && a.find('/') == std::string::npos) {
      extract |= a.find('x') != std::string::npos;
      create |= a.find('c') != std::string::npos;
      if (a.find('C') != std::string::npos && i + 1 < argv.size())
        dir = argv[++i];
      else if (a.find('f') != std::string::npos && i + 1 < argv.size())
        archive = argv[++i];
      continue;
    }
    if (a.rfind("--directory=", 0) == 0) dir = a.substr(12);
    if (a.rfind("--file=", 0) == 0) archive = a.substr(7);
    if (p == "dd" && a.rfind("if=", 0) == 0) srcs.push_back(a.substr(3));
    if (p == "dd" && a.rfind("of=", 0) == 0) dest = a.substr(3);
    if ((a == "-t" || a == "--target-directory") && i + 1 < argv.size())
      dest = argv[++i];
    else if (a == "-e" && p == "rsync" && i + 1 < argv.size())
      ++i;
    else if (a[0] != '-' && p != "dd")
      all.push_back(a);
  }
  if (p == "tar") {
    bool bb_side = IsBurstBuffer(dir);
    for (const std::string& a : all) bb_side |= IsBurstBuffer(a);
    if (extract && IsBurstBuffer(dir) && !IsBurstBuffer(archive)) Emit("script.stage_in", Line(c.line));
    if (create && !archive.empty() && bb_side && !IsBurstBuffer(archive)) Emit("script.stage_out", Line(c.line));
    if (create && IsBurstBuffer(archive) && !bb_side) Emit("script.stage_in", Line(c.line));
    return;
  }
  if (p != "dd") {
    if (dest.empty() && all.size() >= 2) {
      dest = all.back();
      all.pop_back();
    }
    srcs = all;
  }
  bool src_bb = false, src_other = false;
  for (const std::string& s : srcs) (IsBurstBuffer(s) ? src_bb : src_other) = true;
  if (IsBurstBuffer(dest) && src_other) Emit("script.stage_in", Line(c.line));
  if (!dest.empty() && !IsBurstBuffer(dest) && src_bb) Emit("script.stage_out", Line(c.line));
}

// mkdir of one directory per task or node: a task or node variable under a launcher
// (rank_paths.h), a loop variable, or a brace range (rank_{0..15}).
void JobInterpreter::Mkdir(const std::vector<std::string>& argv, const Command& c, const Launch* launch) {
  int dirs = 0;
  bool per_task = false, per_node = false;
  int tasks = StepTasks(launch);
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a[0] == '-') continue;
    ++dirs;
    PathOwner owner = ClassifyPath(a, tasks).owner;
    per_task |= owner == PathOwner::kTask || owner == PathOwner::kOtherTask;
    per_node |= owner == PathOwner::kNode;
  }
  bool loop = false;
  for (const Word& w : c.words) {
    for (const WordPart& part : w.parts) {
      for (const std::string& v : loop_vars_) loop |= part.kind == WordPart::kParam && part.text == v && !v.empty();
    }
  }
  if (launch && (per_task || per_node)) {
    int n = per_task ? tasks : (launch->nodes ? launch->nodes : out_.sbatch.nodes);
    if (n != 1) Emit("script.rank_dirs", Line(c.line), n, Merge::kMax);
    return;
  }
  if (loop) return Emit("script.rank_dirs", Line(c.line), repeat_, Merge::kSum);
  if (dirs >= 2) {
    for (const Word& w : c.words) {
      if (w.raw.find("..") != std::string::npos && w.raw.find('{') != std::string::npos)
        return Emit("script.rank_dirs", Line(c.line), dirs, Merge::kMax);
    }
  }
}

}  // namespace bb::modeselect
