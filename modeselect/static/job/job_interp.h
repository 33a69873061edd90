// The batch-shell interpreter behind ParseJobScript: walks the parsed script in order with the
// variables it knows, expands words, and dispatches each command (job_script.cc: control
// flow and scripts; job_expand.cc: expansion; job_commands.cc: what commands mean;
// job_tasks.cc: shells a launcher runs on every task, and the paths of their commands;
// job_steps.cc: launches and the facts about steps). Private to modeselect/static/.
//
// Thread-safety: none; one interpreter per ParseJobScript call.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "modeselect/static/cmdline/benchmarks.h"
#include "modeselect/static/cmdline/placement.h"
#include "modeselect/static/finding_set.h"
#include "modeselect/static/job/job_script.h"
#include "modeselect/static/shell/shell.h"
#include "modeselect/static/text.h"

namespace bb::modeselect {

// A launched or plainly run program, as far as the step facts need it.
struct Step {
  int launch = -1;                 // index into JobScript::launches
  bool parallel = false;           // run by a launcher
  bool app = false;                // an application (not a daemon, a copy or a cleanup)
  std::vector<std::string> paths;  // files and directories it is given
  bool writes = true, reads = true;
  int tasks = 0;        // tasks that run it (0 = not known)
  int repeat = 1;       // times a loop runs it
  bool looped = false;  // inside a for or while loop: run more than once
  std::string file, snippet;
  int line = 0;
};

// What a command run on every task does with a path (kArg: an application's argument, which
// it may read or write).
enum class PathUse : uint8_t { kRead, kWrite, kAppend, kArg };

// Commands that are no application: shell utilities, the burst buffer's own daemons and tools.
bool IsUtility(std::string_view program);

class JobInterpreter {
 public:
  JobInterpreter(const std::string& path, const FileSource& files);
  JobScript Run(std::string_view text);

 private:
  struct Source {
    std::string path;     // for `files`
    std::string display;  // in findings
    std::string text;
    text::LineIndex lines{""};
    int offset = 0;                        // inline shell text: the line its text starts on, - 1
    std::shared_ptr<const Source> origin;  // inline shell text: the file it is written in
  };
  struct Frame {
    std::shared_ptr<const Source> src;
    std::vector<std::string> positional;
  };
  struct Function {
    const Command* body = nullptr;
    std::shared_ptr<const Source> src;  // the script that defines it
  };
  enum class Kind { kNone, kInfra, kApp };
  struct Program {
    Kind kind = Kind::kNone;
    std::vector<std::string> paths;
    bool writes = true, reads = true;
    int tasks = 0;  // tasks that run it when not the launch's (a launcher's stdin goes to one)
  };
  // What the commands a launcher runs on every task do (job_tasks.cc): the paths they use,
  // for the step facts.
  struct TaskWork {
    const Launch* launch = nullptr;
    int tasks = 0;  // the tasks that run the commands (0 = not known)
    std::vector<std::string> paths;
    bool writes = false, reads = false;
  };

  // job_script.cc
  void Sbatch(std::string_view text);
  // `offset` >= 0: the text is inline shell (bash -c TEXT, a here-document fed to a shell)
  // written in the current script, starting on line offset + 1 of it.
  bool Script(const std::string& path, std::string text, std::vector<std::string> positional, int offset = -1);
  void Block(const std::vector<Command>& cmds);
  void Exec(const Command& c);
  void For(const Command& c);
  void Simple(const Command& c);
  void CallFunction(const Function& fn, std::vector<std::string> args);
  bool Follow(const std::string& path, const std::vector<std::string>& args, bool share_vars);
  void Emit(const char* fact, int line, double value = 1, Merge merge = Merge::kSum);
  std::string Snippet(int line) const;  // `line` as Line() gives it
  int Line(int line) const { return line + frames_.back().src->offset; }
  const std::string& Display() const;
  Frame& Top() { return frames_.back(); }

  // job_expand.cc
  std::vector<std::string> Expand(const Word& w, bool split = true);
  std::string ExpandJoined(const Word& w);
  std::string ExpandText(std::string_view raw);
  std::string Param(const WordPart& p);
  std::string CommandSubst(const std::string& inner);
  std::optional<long long> Arith(std::string inner);
  std::string ArithText(const std::string& inner);
  std::string HereDoc(const Redirect& r);
  // An input file a command names: a here-document the script wrote to it, else the file.
  std::optional<FioJobFile> InputFile(const std::string& name);
  void SetVar(const std::string& name, const std::string& value);

  // job_commands.cc
  Program Dispatch(std::vector<std::string> argv, const Command& c, const Launch* launch);
  Program Run(const std::vector<std::string>& argv, const Command& c, const Launch* launch);
  Program Python(const std::vector<std::string>& argv);
  Program Benchmark(const std::vector<std::string>& argv, const Command& c, const Launch* launch);
  void Compile(const std::vector<std::string>& argv);
  void Make(const std::vector<std::string>& argv);
  void Staging(const std::vector<std::string>& argv, const Command& c);
  void Mkdir(const std::vector<std::string>& argv, const Command& c, const Launch* launch);
  void TraceSource(const std::string& path);
  std::vector<std::string> DataPaths(const std::vector<std::string>& args) const;
  bool IsBurstBuffer(const std::string& s) const;
  // `p` from the working directory; a path that starts with an unknown variable (${BB_MOUNT}/x)
  // is taken as absolute.
  std::string Resolve(const std::string& p) const { return text::JoinPath(p.starts_with("${") ? "" : cwd_, p); }

  // job_tasks.cc
  // A shell (bash, sh, a *.sh script): its -c text, the script on its stdin, or its script file,
  // run in a child shell (on every task of `launch` when given).
  Program Shell(const std::vector<std::string>& argv, const Command& c, const Launch* launch);
  // What a command run on every task does with its paths (`argv` without wrappers).
  void TaskPaths(const std::vector<std::string>& argv, const Command& c);
  void TaskPath(const std::string& path, PathUse use, int line);

  // job_steps.cc
  void Launcher(const std::vector<std::string>& argv, const Command& c);
  void RecordStep(Launch l, const Program& p, bool parallel);
  int Tasks(const Launch& l) const;
  // The tasks that run a command under `l` (the batch shell's one when null).
  int StepTasks(const Launch* l) const;
  std::optional<StepPlacement> Placement(const Launch& l) const;
  // Emits file.read_other_node: of the reads `shifts` or `target` make of other tasks' data
  // in launch `l`, the fraction that crosses nodes (nothing when the placement is not known).
  void CrossNode(const Launch& l, std::span<const RankShift> shifts, int line);
  void CrossNode(const Launch& l, const std::function<std::optional<int>(int)>& target, int line);
  void StepFacts();
  void ReadFacts();

  std::string job_path_, job_dir_;
  const FileSource& files_;
  JobScript out_;
  FindingSet findings_;
  std::map<std::string, std::string> vars_;
  std::set<std::string> bb_prefixes_;  // literal values given to $BB_MOUNT
  std::string cwd_;
  std::vector<Frame> frames_;
  std::deque<std::vector<Command>> parsed_;  // every parsed script, kept for functions_
  std::map<std::string, Function> functions_;
  std::map<std::string, std::vector<std::string>> binaries_;  // built binary -> its sources
  std::map<std::string, FioJobFile> written_;                 // cat > FILE <<EOF bodies
  std::vector<std::string> loop_vars_;                        // for-loop variables in scope
  std::vector<Step> steps_;
  std::set<std::string> sources_seen_;
  int repeat_ = 1;            // product of the trip counts of loops run once for many items
  int loops_ = 0;             // for and while loops around the current command
  int depth_ = 0;             // nesting of helpers and functions
  int executed_ = 0;          // simple commands run (bounded)
  TaskWork* task_ = nullptr;  // following a script a launcher runs on every task
};

}  // namespace bb::modeselect
