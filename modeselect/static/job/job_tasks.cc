// Shells and the commands a launcher runs on every task: a shell's commands come from its -c
// text, its stdin (a here-document, a here-string, `< file`) or its script file, and are read
// by the same interpreter as the batch script, in a child shell (variables and the working
// directory do not come back). Under a launcher, what each command does with its paths gives
// the per-task facts: a path built from the task's rank is the task's own, one built from the
// node the node's, one built from another rank (rank + 1, (rank + N) mod size) read by the task
// another task's — with how many of those reads cross nodes in the step's placement — and one
// every task names the same is shared.
#include "modeselect/static/job/job_interp.h"
#include "modeselect/static/job/rank_paths.h"

namespace bb::modeselect {
namespace {

struct ShellArgs {
  bool command = false;     // -c: the first operand is the text
  bool from_stdin = false;  // -s: the commands come from stdin, every operand is a parameter
  size_t operand = 0;       // the first operand (argv.size() when none)
};

// bash/sh options: flags grouped or not (-lc, -e -x -c), -o/+o/-O/+O NAME, --long options
// (--rcfile and --init-file take a file).
ShellArgs ParseShellArgs(const std::vector<std::string>& argv, size_t first) {
  ShellArgs a;
  size_t i = first;
  for (; i < argv.size(); ++i) {
    const std::string& w = argv[i];
    if (w == "--" || w == "-") {
      ++i;
      break;
    }
    if (w.rfind("--", 0) == 0) {
      if (w == "--rcfile" || w == "--init-file") ++i;
      continue;
    }
    if (w.size() < 2 || (w[0] != '-' && w[0] != '+')) break;
    if (w == "-o" || w == "+o" || w == "-O" || w == "+O") {
      ++i;
      continue;
    }
    a.command |= w[0] == '-' && w.find('c') != std::string::npos;
    a.from_stdin |= w[0] == '-' && w.find('s') != std::string::npos;
  }
  a.operand = std::min(i, argv.size());
  return a;
}

// The line of the word after the shell's -c option (where the text starts).
int CommandTextLine(const Command& c) {
  for (size_t k = 0; k + 1 < c.words.size(); ++k) {
    std::string w = c.words[k].Plain();
    if (w.size() >= 2 && w[0] == '-' && w[1] != '-' && w.find('c') != std::string::npos) return c.words[k + 1].line;
  }
  return c.line;
}

bool IsNumber(std::string_view s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos; }

// Commands that read or write the files they are given; `skip` leading operands are no file
// (grep's pattern, awk's program).
struct FileCommand {
  const char* name;
  PathUse use;
  int skip;
};
using Use = PathUse;
constexpr FileCommand kFileCommands[] = {
    {"cat", Use::kRead, 0},       {"head", Use::kRead, 0},       {"tail", Use::kRead, 0},   {"md5sum", Use::kRead, 0},
    {"sha256sum", Use::kRead, 0}, {"sha1sum", Use::kRead, 0},    {"cksum", Use::kRead, 0},  {"wc", Use::kRead, 0},
    {"sort", Use::kRead, 0},      {"uniq", Use::kRead, 0},       {"cut", Use::kRead, 0},    {"cmp", Use::kRead, 0},
    {"diff", Use::kRead, 0},      {"od", Use::kRead, 0},         {"xxd", Use::kRead, 0},    {"hexdump", Use::kRead, 0},
    {"tac", Use::kRead, 0},       {"zcat", Use::kRead, 0},       {"ls", Use::kRead, 0},     {"stat", Use::kRead, 0},
    {"du", Use::kRead, 0},        {"find", Use::kRead, 0},       {"grep", Use::kRead, 1},   {"egrep", Use::kRead, 1},
    {"awk", Use::kRead, 1},       {"sed", Use::kRead, 1},        {"touch", Use::kWrite, 0}, {"tee", Use::kWrite, 0},
    {"truncate", Use::kWrite, 0}, {"fallocate", Use::kWrite, 0},
};

}  // namespace

JobInterpreter::Program JobInterpreter::Shell(const std::vector<std::string>& argv, const Command& c,
                                              const Launch* launch) {
  Program prog;
  ShellArgs a = ParseShellArgs(argv, text::Basename(argv[0]).ends_with(".sh") ? 0 : 1);
  std::optional<std::string> text;
  std::string script;  // a script file: the operand, or `< file`
  int line = c.line;
  std::vector<std::string> args;
  bool from_stdin = false;
  if (a.command && a.operand < argv.size()) {
    text = argv[a.operand];
    line = CommandTextLine(c);
    if (a.operand + 2 < argv.size()) args.assign(argv.begin() + static_cast<long>(a.operand) + 2, argv.end());
  } else if (!a.command && !a.from_stdin && a.operand < argv.size()) {
    script = argv[a.operand];
    args.assign(argv.begin() + static_cast<long>(a.operand) + 1, argv.end());
  } else if (!a.command) {
    from_stdin = true;
    for (const Redirect& r : c.redirects) {
      if (r.op == "<<" || r.op == "<<-") text = HereDoc(r), line = r.body_line;
      if (r.op == "<<<") text = ExpandJoined(r.target), line = r.target.line;
      if (r.op == "<") script = ExpandJoined(r.target);
    }
    args.assign(argv.begin() + static_cast<long>(a.operand), argv.end());
  }
  if (!text && script.empty()) return prog;
  // srun gives its stdin to every task; mpirun and mpiexec (Open MPI, Hydra) to rank 0 alone.
  bool rank0 = from_stdin && launch && launch->launcher != "srun";
  TaskWork work;
  work.launch = launch;
  work.tasks = rank0 ? 1 : StepTasks(launch);
  TaskWork* outer = task_;
  if (launch && !task_) task_ = &work;
  size_t before = out_.sources.size() + steps_.size() + findings_.findings().size() + work.paths.size();
  if (text) {
    std::map<std::string, std::string> vars = vars_;
    std::string cwd = cwd_;
    Script(Top().src->path, std::move(*text), args, std::max(1, line) - 1);
    vars_ = std::move(vars);
    cwd_ = std::move(cwd);
  } else {
    Follow(script, args, false);
  }
  task_ = outer;
  if (!launch) return prog;  // the batch shell's child: its own commands are the steps
  size_t after = out_.sources.size() + steps_.size() + findings_.findings().size() + work.paths.size();
  prog.kind = after > before ? Kind::kApp : Kind::kInfra;
  prog.tasks = rank0 ? 1 : 0;
  if (!work.paths.empty()) {
    prog.paths = std::move(work.paths);
    prog.writes = work.writes;
    prog.reads = work.reads;
  }
  return prog;
}

void JobInterpreter::TaskPaths(const std::vector<std::string>& argv, const Command& c) {
  int line = Line(c.line);
  std::string p = text::Basename(argv[0]);
  for (const Redirect& r : c.redirects) {
    if (p == "[[") break;  // [[ a < b ]] compares strings
    Use use = r.op == "<" || r.op == "<>"                                   ? Use::kRead
              : r.op == ">>" || r.op == "&>>"                               ? Use::kAppend
              : r.op == ">" || r.op == ">|" || r.op == "&>" || r.op == ">&" ? Use::kWrite
                                                                            : Use::kArg;
    if (use == Use::kArg) continue;  // here-documents, descriptors
    std::string target = ExpandJoined(r.target);
    if (target.empty() || target == "-" || IsNumber(target)) continue;
    TaskPath(target, use, line);
  }
  std::vector<std::string> operands;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (!argv[i].empty() && argv[i][0] != '-' && !IsNumber(argv[i])) operands.push_back(argv[i]);
  }
  if (p == "cp" || p == "mv" || p == "rsync" || p == "install" || p == "ln") {
    for (size_t i = 0; i < operands.size(); ++i)
      TaskPath(operands[i], i + 1 < operands.size() ? Use::kRead : Use::kWrite, line);
    return;
  }
  if (p == "dd") {
    for (const std::string& o : operands) {
      if (o.rfind("if=", 0) == 0) TaskPath(o.substr(3), Use::kRead, line);
      if (o.rfind("of=", 0) == 0) TaskPath(o.substr(3), Use::kWrite, line);
    }
    return;
  }
  for (const FileCommand& f : kFileCommands) {
    if (p != f.name) continue;
    bool append = p == "tee" && std::find(argv.begin(), argv.end(), "-a") != argv.end();
    for (size_t i = static_cast<size_t>(f.skip); i < operands.size(); ++i) {
      TaskPath(operands[i], append ? Use::kAppend : f.use, line);
    }
    return;
  }
  bool program = !IsUtility(p) && !IsLauncher(p) && p != "ior" && p != "mdtest" && p != "fio" && p != "bash" &&
                 p != "sh" && !p.ends_with(".sh");
  if (!program) return;
  for (const std::string& path : DataPaths(std::vector<std::string>(argv.begin() + 1, argv.end()))) {
    TaskPath(path, Use::kArg, line);
  }
}

// One path a task's command uses. Facts only for burst-buffer paths in a step of several tasks
// (in a step of one task nothing is per task, and nothing is shared).
void JobInterpreter::TaskPath(const std::string& raw, PathUse use, int line) {
  std::string path = text::NormalizePath(Resolve(raw));
  task_->paths.push_back(path);
  task_->writes |= use != Use::kRead;
  task_->reads |= use == Use::kRead || use == Use::kArg;
  int tasks = task_->tasks;
  if (tasks == 1 || !IsBurstBuffer(path)) return;
  RankPath owner = ClassifyPath(path, tasks);
  bool read = use == Use::kRead || use == Use::kArg;
  switch (owner.owner) {
    case PathOwner::kTask:
      return Emit("file.per_rank", line);
    case PathOwner::kNode:
      return Emit("file.per_node", line);
    case PathOwner::kOtherTask:
      if (!read) return Emit("file.per_rank", line);  // rank + 1 as a name: still one per task
      Emit("file.read_other_rank", line);
      return CrossNode(
          *task_->launch, [&](int r) { return NamedTask(owner, r, tasks); }, line);
    case PathOwner::kUnknown:  // the task's shell alone knows the name
      return;
    case PathOwner::kAll:
      if (use == Use::kRead) Emit("file.read_shared_input", line);
      if (use == Use::kWrite || use == Use::kAppend) Emit("file.shared", line);
      if (use == Use::kAppend) Emit("file.append", line);
      return;
  }
}

}  // namespace bb::modeselect
