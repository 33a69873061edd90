// Launches and the facts about steps: parallel steps, several steps, a layout that changes
// between steps that share data, a step that reads what an earlier one wrote, input that one
// task writes and a later step's tasks read; where a step's tasks run.
#include "modeselect/static/job/job_interp.h"

namespace bb::modeselect {
namespace {

bool Within(const std::string& a, const std::string& b) {
  return a == b || (a.size() > b.size() && a.compare(0, b.size(), b) == 0 && a[b.size()] == '/');
}

bool SharePath(const Step& a, const Step& b) {
  for (const std::string& x : a.paths) {
    for (const std::string& y : b.paths) {
      if (Within(x, y) || Within(y, x)) return true;
    }
  }
  return false;
}

}  // namespace

void JobInterpreter::Launcher(const std::vector<std::string>& argv, const Command& c) {
  Launch l = ParseLauncher(argv);
  if (l.distribution.empty()) l.distribution = out_.sbatch.distribution;
  l.file = Display();
  l.line = Line(c.line);
  Program prog;
  std::string cwd = cwd_;
  if (!l.chdir.empty()) cwd_ = Resolve(l.chdir);
  if (!l.argv.empty()) prog = Dispatch(l.argv, c, &l);
  cwd_ = std::move(cwd);
  RecordStep(std::move(l), prog, true);
}

void JobInterpreter::RecordStep(Launch l, const Program& p, bool parallel) {
  l.step = static_cast<int>(out_.launches.size());
  Step s;
  s.launch = l.step;
  s.parallel = parallel;
  s.app = p.kind == Kind::kApp;
  s.paths = p.paths;
  s.writes = p.writes;
  s.reads = p.reads;
  s.tasks = p.tasks ? p.tasks : Tasks(l);
  s.repeat = repeat_;
  s.looped = loops_ > 0;
  s.file = l.file;
  s.line = l.line;
  s.snippet = Snippet(l.line);
  steps_.push_back(std::move(s));
  out_.launches.push_back(std::move(l));
}

// The tasks Slurm gives a step: its own -n, or -N x --ntasks-per-node, or the allocation's.
int JobInterpreter::Tasks(const Launch& l) const {
  const SbatchGeometry& g = out_.sbatch;
  if (l.tasks) return l.tasks;
  if (l.launcher.empty()) return 1;
  int nodes = l.nodes ? l.nodes : g.nodes;
  if (l.tasks_per_node && nodes) return l.tasks_per_node * nodes;
  if (l.nodes) return g.ntasks_per_node ? l.nodes * g.ntasks_per_node : l.nodes;
  if (g.ntasks) return g.ntasks;
  if (g.nodes) return g.nodes * std::max(1, g.ntasks_per_node);
  return 0;
}

int JobInterpreter::StepTasks(const Launch* l) const {
  if (!l) return 1;
  if (task_ && task_->launch == l && task_->tasks) return task_->tasks;
  return Tasks(*l);
}

std::optional<StepPlacement> JobInterpreter::Placement(const Launch& l) const {
  return PlaceStep(l, out_.sbatch, StepTasks(&l));
}

void JobInterpreter::CrossNode(const Launch& l, std::span<const RankShift> shifts, int line) {
  std::optional<StepPlacement> p = Placement(l);
  std::optional<double> f = p ? CrossNodeFraction(NodeOfRank(*p), shifts) : std::nullopt;
  if (f) Emit("file.read_other_node", line, *f, Merge::kMax);
}

void JobInterpreter::CrossNode(const Launch& l, const std::function<std::optional<int>(int)>& target, int line) {
  std::optional<StepPlacement> p = Placement(l);
  std::optional<double> f = p ? CrossNodeFraction(NodeOfRank(*p), target) : std::nullopt;
  if (f) Emit("file.read_other_node", line, *f, Merge::kMax);
}

void JobInterpreter::StepFacts() {
  const SbatchGeometry& g = out_.sbatch;
  std::vector<const Step*> apps;
  for (const Step& s : steps_) {
    if (s.app && s.parallel) apps.push_back(&s);
  }
  auto add = [&](const char* fact, const Step& s, double v, Merge m) {
    findings_.Add(fact, s.file, s.line, s.snippet, v, m);
  };
  int total = 0;
  std::vector<const Step*> parallel;
  for (const Step* s : apps) {
    if (s->tasks == 1) continue;  // one task is no parallel step
    add("launch.parallel", *s, s->tasks, Merge::kMax);
    parallel.push_back(s);
    total += s->repeat;
  }
  if (total >= 2) add("launch.multi_step", *parallel[std::min<size_t>(1, parallel.size() - 1)], total, Merge::kMax);
  struct Layout {
    int tasks, per_node;
    std::string dist;
  };
  auto layout = [&](const Launch& l) {
    int tasks = Tasks(l);
    int nodes = l.nodes ? l.nodes : g.nodes;
    int per_node = l.tasks_per_node   ? l.tasks_per_node
                   : (tasks && nodes) ? (tasks + nodes - 1) / nodes
                                      : g.ntasks_per_node;
    return Layout{tasks, per_node, l.distribution.empty() ? "block" : l.distribution};
  };
  for (size_t j = 1; j < apps.size(); ++j) {
    Layout b = layout(out_.launches[static_cast<size_t>(apps[j]->launch)]);
    for (size_t i = 0; i < j; ++i) {
      if (apps[i]->tasks == 1) continue;  // one task's output is on one node however the next step is placed
      bool share = SharePath(*apps[i], *apps[j]) || (apps[i]->paths.empty() && apps[j]->paths.empty());
      Layout a = layout(out_.launches[static_cast<size_t>(apps[i]->launch)]);
      if (share && (a.tasks != b.tasks || a.per_node != b.per_node || a.dist != b.dist)) {
        add("launch.layout_changes", *apps[j], 1, Merge::kMax);
        break;
      }
    }
  }
}

// A step that reads what an earlier one wrote: by one task (a preparation step, a plain command
// of the batch shell; not one of a loop's, which are several writers) for a step of several,
// the input all of them share; else output read back, possibly by other tasks.
void JobInterpreter::ReadFacts() {
  auto add = [&](const char* fact, const Step& s, double v) {
    findings_.Add(fact, s.file, s.line, s.snippet, v, Merge::kMax);
  };
  for (size_t j = 1; j < steps_.size(); ++j) {
    const Step& reader = steps_[j];
    if (!reader.app || !reader.reads) continue;
    bool earlier_output = false;
    for (size_t i = 0; i < j; ++i) {
      const Step& writer = steps_[i];
      if (!writer.app || !writer.writes || !SharePath(writer, reader)) continue;
      if (writer.tasks == 1 && !writer.looped && reader.tasks != 1) {
        add("script.one_writer_input", writer, reader.tasks);
      } else {
        earlier_output = true;
      }
    }
    if (earlier_output) add("script.reads_earlier_output", reader, 1);
  }
}

}  // namespace bb::modeselect
