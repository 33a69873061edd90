#include "modeselect/static/job/rank_paths.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "modeselect/static/lang/model.h"
#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

// Slurm's task environment (srun(1)), and the launchers' own (Open MPI, MPICH/Hydra, PMIx,
// MVAPICH, Cray PALS).
constexpr RankVar kRankVars[] = {
    {"SLURM_PROCID", RankScope::kTask},
    {"PMI_RANK", RankScope::kTask},
    {"PMIX_RANK", RankScope::kTask},
    {"OMPI_COMM_WORLD_RANK", RankScope::kTask},
    {"MV2_COMM_WORLD_RANK", RankScope::kTask},
    {"PALS_RANKID", RankScope::kTask},
    {"SLURM_NODEID", RankScope::kNode},
    {"SLURMD_NODENAME", RankScope::kNode},
    {"HOSTNAME", RankScope::kNode},
    {"SLURM_LOCALID", RankScope::kNodeSlot},
    {"OMPI_COMM_WORLD_LOCAL_RANK", RankScope::kNodeSlot},
    {"OMPI_COMM_WORLD_NODE_RANK", RankScope::kNodeSlot},
    {"MPI_LOCALRANKID", RankScope::kNodeSlot},
    {"PALS_LOCAL_RANKID", RankScope::kNodeSlot},
    {"SLURM_NTASKS", RankScope::kSize},
    {"SLURM_NPROCS", RankScope::kSize},
    {"SLURM_STEP_NUM_TASKS", RankScope::kSize},
    {"OMPI_COMM_WORLD_SIZE", RankScope::kSize},
    {"PMI_SIZE", RankScope::kSize},
};

// Variables with one value for every task of a job: a path built from them (and nothing
// the task's shell alone knows) is the same path for all.
constexpr const char* kJobWide[] = {"BB_MOUNT",
                                    "BB_WORKSPACE",
                                    "DW_JOB_STRIPED",
                                    "DW_JOB_PRIVATE",
                                    "SLURM_JOB_ID",
                                    "SLURM_JOBID",
                                    "SLURM_JOB_NAME",
                                    "SLURM_SUBMIT_DIR",
                                    "SLURM_CLUSTER_NAME",
                                    "SLURM_NNODES",
                                    "SLURM_JOB_NUM_NODES",
                                    "SLURM_ARRAY_JOB_ID",
                                    "SLURM_ARRAY_TASK_ID",
                                    "HOME",
                                    "USER"};

// Command substitutions a task's shell runs that give the node's name.
constexpr const char* kNodeCommands[] = {"$(hostname", "$(uname -n", "$(cat /etc/hostname"};

// Without the step's task count, identity is tried on this many ranks (and shifts modulo it).
constexpr int kAssumedTasks = 16;
constexpr int kMaxTried = 64;

struct Scopes {
  bool task = false, node = false, slot = false, other = false;
  bool unknown = false;  // a part that is neither a rank variable nor the same for every task
  std::string expr;
};

void Note(std::string_view name, Scopes* s) {
  if (const RankVar* v = FindRankVar(name)) {
    s->task |= v->scope == RankScope::kTask;
    s->node |= v->scope == RankScope::kNode;
    s->slot |= v->scope == RankScope::kNodeSlot;
    return;
  }
  bool wide = false;
  for (const char* w : kJobWide) wide |= name == w;
  s->unknown |= !wide;
}

// `expr` with ${NAME} and $NAME written as NAME, so that the C evaluator reads the names.
std::string Bare(std::string_view expr) {
  std::string out;
  for (char c : expr) {
    if (c != '$' && c != '{' && c != '}') out.push_back(c);
  }
  return out;
}

// The names in an arithmetic expression.
std::vector<std::string> Names(std::string_view expr) {
  std::vector<std::string> out;
  for (size_t i = 0; i < expr.size();) {
    if (!text::IsIdentChar(expr[i]) || std::isdigit(static_cast<unsigned char>(expr[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < expr.size() && text::IsIdentChar(expr[j])) ++j;
    out.emplace_back(expr.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<double> Eval(std::string_view expr, int rank, int tasks) {
  scan::Unit u;
  u.lang = Lang::kC;
  u.toks = TokenizeC(Bare(expr));
  scan::NameValue lookup = [&](std::string_view n) -> std::optional<double> {
    const RankVar* v = FindRankVar(n);
    if (v && v->scope == RankScope::kTask) return rank;
    if (v && v->scope == RankScope::kSize) return tasks;
    return std::nullopt;
  };
  return scan::ConstEval(u, {0, u.ntoks()}, lookup);
}

// $((...)) naming a task: the rank itself on every rank tried, or another.
void Arithmetic(std::string_view expr, int tasks, Scopes* s) {
  bool task = false;
  s->unknown = true;  // arithmetic the batch shell could not evaluate
  for (const std::string& n : Names(expr)) {
    const RankVar* v = FindRankVar(n);
    if (v && v->scope == RankScope::kTask) {
      task = true;
    } else {
      Note(n, s);
    }
  }
  if (!task) return;
  int n = tasks > 0 ? tasks : kAssumedTasks;
  for (int r = 0; r < std::min(n, kMaxTried); ++r) {
    std::optional<double> v = Eval(expr, r, n);
    if (!v || *v != r) {
      if (!s->other) s->expr = std::string(expr);
      s->other = true;
      return;
    }
  }
  s->task = true;
}

}  // namespace

std::span<const RankVar> RankVars() { return kRankVars; }

const RankVar* FindRankVar(std::string_view name) {
  for (const RankVar& v : kRankVars) {
    if (name == v.name) return &v;
  }
  return nullptr;
}

RankPath ClassifyPath(std::string_view path, int tasks) {
  Scopes s;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '$') continue;
    std::string_view rest = path.substr(i);
    bool node_command = false;
    for (const char* c : kNodeCommands) node_command |= rest.rfind(c, 0) == 0;
    s.node |= node_command;
    s.unknown |= !node_command && rest.rfind("$(", 0) == 0 && rest.rfind("$((", 0) != 0;
    if (rest.rfind("$((", 0) == 0) {
      int depth = 0;
      size_t j = i + 3;
      for (; j < path.size(); ++j) {
        if (path[j] == '(') ++depth;
        if (path[j] != ')') continue;
        if (depth == 0 && j + 1 < path.size() && path[j + 1] == ')') break;
        --depth;
      }
      Arithmetic(path.substr(i + 3, j - i - 3), tasks, &s);
      i = std::min(j + 1, path.size());
    } else if (rest.rfind("${", 0) == 0) {
      size_t close = rest.find('}');
      if (close != std::string_view::npos) Note(rest.substr(2, close - 2), &s);
    }
  }
  s.unknown |= path.find_first_of("*?[") != std::string_view::npos;  // a glob names several files
  RankPath p;
  if (s.task || (s.node && s.slot)) {
    p.owner = PathOwner::kTask;
  } else if (s.other) {
    p.owner = PathOwner::kOtherTask;
    p.expr = s.expr;
  } else if (s.node || s.slot) {
    p.owner = PathOwner::kNode;
  } else if (s.unknown) {
    p.owner = PathOwner::kUnknown;
  }
  return p;
}

std::optional<int> NamedTask(const RankPath& p, int rank, int tasks) {
  if (p.owner != PathOwner::kOtherTask) return std::nullopt;
  std::optional<double> v = Eval(p.expr, rank, tasks);
  if (!v || std::fabs(*v) > 1e9) return std::nullopt;
  return static_cast<int>(std::floor(*v));
}

}  // namespace bb::modeselect
