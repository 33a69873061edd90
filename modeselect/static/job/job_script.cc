// The interpreter's control flow: scripts, blocks, loops, functions, simple commands.
#include <cctype>

#include "modeselect/static/job/job_interp.h"

namespace bb::modeselect {
namespace {

constexpr int kMaxDepth = 8;
constexpr int kMaxCommands = 20000;
constexpr size_t kMaxIterations = 16;

bool IsName(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!text::IsIdentChar(c)) return false;
  }
  return true;
}

// NAME=value as the first word(s) of a command: the word's first part is an unquoted literal
// holding the '='.
bool IsAssignment(const Word& w) {
  if (w.parts.empty() || w.parts[0].kind != WordPart::kLiteral || w.parts[0].quoted) return false;
  size_t eq = w.parts[0].text.find('=');
  if (eq == std::string::npos) return false;
  std::string name = w.parts[0].text.substr(0, eq);
  if (!name.empty() && name.back() == '+') name.pop_back();
  return IsName(name);
}

}  // namespace

JobInterpreter::JobInterpreter(const std::string& path, const FileSource& files)
    : job_path_(path), job_dir_(text::Dirname(path)), files_(files), cwd_(job_dir_) {}

JobScript JobInterpreter::Run(std::string_view text) {
  Sbatch(text);
  vars_["SLURM_SUBMIT_DIR"] = job_dir_;
  const SbatchGeometry& g = out_.sbatch;
  if (g.nodes) vars_["SLURM_NNODES"] = vars_["SLURM_JOB_NUM_NODES"] = std::to_string(g.nodes);
  int tasks = g.ntasks ? g.ntasks : g.nodes * g.ntasks_per_node;
  if (tasks) vars_["SLURM_NTASKS"] = vars_["SLURM_NPROCS"] = std::to_string(tasks);
  if (g.ntasks_per_node) vars_["SLURM_NTASKS_PER_NODE"] = std::to_string(g.ntasks_per_node);
  Script(job_path_, std::string(text), {});
  StepFacts();
  ReadFacts();
  out_.findings = std::move(findings_).Take();
  return std::move(out_);
}

// #SBATCH lines (until the first command, as sbatch reads them) and #BB/#DW staging directives.
void JobInterpreter::Sbatch(std::string_view text) {
  text::LineIndex lines(text);
  std::string display = text::RelativeTo(job_path_, job_dir_);
  for (int n = 1; n <= lines.Count(); ++n) {
    std::string_view l = text::Trim(lines.Line(n));
    if (l.empty()) continue;
    if (l[0] != '#') break;
    for (const char* dir : {"#DW ", "#BB "}) {
      if (l.rfind(dir, 0) != 0) continue;
      std::string_view rest = text::Trim(l.substr(4));
      if (rest.rfind("stage_in", 0) == 0) findings_.Add("script.stage_in", display, n, l, 1, Merge::kSum);
      if (rest.rfind("stage_out", 0) == 0) findings_.Add("script.stage_out", display, n, l, 1, Merge::kSum);
    }
    if (l.rfind("#SBATCH", 0) != 0) continue;
    std::string_view rest = l.substr(7);
    size_t comment = rest.find(" #");
    if (comment != std::string_view::npos) rest = rest.substr(0, comment);
    std::vector<std::string> args;
    for (std::string_view w : text::Split(rest, " \t")) args.emplace_back(w);
    ApplySbatch(args, &out_.sbatch);
  }
}

bool JobInterpreter::Script(const std::string& path, std::string text, std::vector<std::string> positional,
                            int offset) {
  if (depth_ >= kMaxDepth) return false;
  auto src = std::make_shared<Source>();
  src->path = path;
  src->display = text::RelativeTo(path, job_dir_);
  src->text = std::move(text);
  src->lines = text::LineIndex(src->text);
  if (offset >= 0 && !frames_.empty()) {
    src->origin = Top().src->origin ? Top().src->origin : Top().src;
    src->offset = offset + Top().src->offset;
  } else {
    out_.scripts.push_back(src->display);
  }
  parsed_.push_back(ParseShell(src->text));
  frames_.push_back(Frame{std::move(src), std::move(positional)});
  ++depth_;
  Block(parsed_.back());
  --depth_;
  frames_.pop_back();
  return true;
}

// Runs a helper script (sourced: same variables; run: a copy of them).
bool JobInterpreter::Follow(const std::string& path, const std::vector<std::string>& args, bool share_vars) {
  std::string full = Resolve(path);
  if (!files_.IsFile(full) || depth_ >= kMaxDepth) return false;
  Result<std::string> text = files_.Read(full);
  if (!text) {
    out_.unreadable.push_back(text::RelativeTo(full, job_dir_));
    return false;
  }
  std::map<std::string, std::string> saved = vars_;
  std::string cwd = cwd_;
  Script(full, std::move(*text), args);
  if (!share_vars) vars_ = std::move(saved);
  cwd_ = cwd;
  return true;
}

void JobInterpreter::Block(const std::vector<Command>& cmds) {
  for (const Command& c : cmds) {
    if (executed_ > kMaxCommands) return;
    Exec(c);
  }
}

void JobInterpreter::Exec(const Command& c) {
  switch (c.kind) {
    case Command::kSimple:
      ++executed_;
      return Simple(c);
    case Command::kFor:
      return For(c);
    case Command::kFunction:
      if (!c.name.empty()) functions_[c.name] = Function{&c, Top().src};
      return;
    case Command::kWhile:  // the condition once, the body once as a loop's
      if (!c.blocks.empty()) Block(c.blocks[0]);
      ++loops_;
      for (size_t b = 1; b < c.blocks.size(); ++b) Block(c.blocks[b]);
      --loops_;
      return;
    case Command::kIf:
    case Command::kCase:
    case Command::kGroup:
      // Every branch and body once: which one runs is decided at run time.
      for (const std::vector<Command>& b : c.blocks) Block(b);
      return;
  }
}

void JobInterpreter::For(const Command& c) {
  std::vector<std::string> items;
  if (c.items) {
    for (const Word& w : c.words) {
      for (std::string& f : Expand(w)) items.push_back(std::move(f));
    }
  } else {
    items = Top().positional;
  }
  if (c.blocks.empty()) return;
  loop_vars_.push_back(c.name);
  ++loops_;
  if (!c.name.empty() && items.size() <= kMaxIterations && !items.empty()) {
    for (const std::string& item : items) {
      vars_[c.name] = item;
      Block(c.blocks[0]);
    }
  } else {
    int saved = repeat_;
    repeat_ *= std::max<int>(1, static_cast<int>(std::min<size_t>(items.size(), 1 << 20)));
    vars_.erase(c.name);
    Block(c.blocks[0]);
    repeat_ = saved;
  }
  loop_vars_.pop_back();
  --loops_;
}

void JobInterpreter::Simple(const Command& c) {
  size_t i = 0;
  for (; i < c.words.size() && IsAssignment(c.words[i]); ++i) {
  }
  bool command = i < c.words.size();
  for (size_t k = 0; k < i && !command; ++k) {
    std::string a = ExpandJoined(c.words[k]);
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq);
    if (!name.empty() && name.back() == '+') {
      name.pop_back();
      SetVar(name, vars_[name] + a.substr(eq + 1));
    } else {
      SetVar(name, a.substr(eq + 1));
    }
  }
  // cat > job.fio <<EOF ... EOF: the body is a file later commands may read.
  for (const Redirect& r : c.redirects) {
    if (r.op != "<<" && r.op != "<<-") continue;
    for (const Redirect& t : c.redirects) {
      if (t.op != ">" && t.op != ">>" && t.op != ">|") continue;
      std::string target = Resolve(ExpandJoined(t.target));
      written_[target] = FioJobFile{Display(), HereDoc(r), Line(r.body_line)};
    }
  }
  if (!command) return;
  std::vector<std::string> argv;
  for (size_t k = i; k < c.words.size(); ++k) {
    for (std::string& f : Expand(c.words[k])) argv.push_back(std::move(f));
  }
  if (argv.empty()) return;
  if (auto fn = functions_.find(argv[0]); fn != functions_.end()) {
    return CallFunction(fn->second, std::vector<std::string>(argv.begin() + 1, argv.end()));
  }
  std::vector<std::string> words = argv;
  Program prog = Dispatch(std::move(argv), c, task_ ? task_->launch : nullptr);
  if (task_) {  // a command of every task: part of the launcher's step
    task_->paths.insert(task_->paths.end(), prog.paths.begin(), prog.paths.end());
    if (prog.kind == Kind::kApp && !prog.paths.empty()) task_->writes |= prog.writes, task_->reads |= prog.reads;
    return;
  }
  if (prog.kind == Kind::kApp) {
    Launch l;
    l.argv = std::move(words);
    l.file = Display();
    l.line = Line(c.line);
    RecordStep(std::move(l), prog, false);
  }
}

// A function runs in the script that defines it (its lines are that file's) with its own $1...
void JobInterpreter::CallFunction(const Function& fn, std::vector<std::string> args) {
  if (depth_ >= kMaxDepth || fn.body->blocks.empty()) return;
  frames_.push_back(Frame{fn.src, std::move(args)});
  ++depth_;
  Block(fn.body->blocks[0]);
  --depth_;
  frames_.pop_back();
}

void JobInterpreter::Emit(const char* fact, int line, double value, Merge merge) {
  findings_.Add(fact, Display(), line, Snippet(line), value, merge);
}

std::string JobInterpreter::Snippet(int line) const {
  const Source& s = *frames_.back().src;
  return text::Snippet(s.origin ? s.origin->lines.Line(line) : s.lines.Line(line));
}

const std::string& JobInterpreter::Display() const { return frames_.back().src->display; }

JobScript ParseJobScript(const std::string& path, std::string_view text, const FileSource& files) {
  return JobInterpreter(path, files).Run(text);
}

JobScript ParseJobScript(const std::string& path, std::string_view text) {
  MemoryFiles none;
  return JobInterpreter(path, none).Run(text);
}

}  // namespace bb::modeselect
