// The source scanner's internals: the value lattice it tracks through assignments (Val), the
// per-function summaries that carry facts across function and file boundaries, and the
// Walker that reads one function's statements in order. Private to modeselect/static/.
//
//   ScanSources (scan_sources.cc) builds every Unit, then walks every function three times:
//   discovery (which names hold the rank and the task count; which parameters receive them
//   from a caller), emission (findings with this function's own loops and guards), and
//   propagation (a helper's loop-sensitive events re-attributed to the loop that calls it,
//   barriers between write and read phases through calls, files written and read back).
//   Path builders (a helper that formats a name into a parameter passed by reference, or
//   returns a name or a rank expression) are walked again, quietly, at each call with that
//   call's arguments (scan_paths.cc), so the caller's buffer or result gets the name built from
//   its own arguments, not from every caller's.
//
// Thread-safety: none; one JobState per ScanSources call.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "modeselect/static/finding_set.h"
#include "modeselect/static/lang/model.h"
#include "modeselect/static/scan/scan_ops.h"
#include "modeselect/static/text.h"

namespace bb::modeselect::scan {

struct OpenMode {
  bool read = false, write = false, create = false, append = false, excl = false, direct = false;
};

// What the scanner knows about a value, as far as file names, offsets and sizes go.
struct Val {
  bool rank = false;     // derives from this task's rank
  bool other = false;    // rank arithmetic ((rank+1)%size, rank^1, size-1-rank) or all ranks
  bool size = false;     // the task count
  bool random = false;   // rand(), random(), a distribution
  bool loopvar = false;  // varies with an enclosing loop
  bool text = false;     // a string
  bool handle = false;   // an open file: descriptor, FILE*, stream, MPI_File, Fortran unit
  bool source = false;   // a rank source itself (Get_rank(), SLURM_PROCID), not a copy of one
  uint32_t flags = 0;    // kF* bits named in it
  std::optional<double> num;
  std::string key;   // the literal parts of a file name ("ckpt_%d.dat")
  std::string term;  // the rank expression: "rank", "(rank+1)%size", "*all*"
  OpenMode mode;     // a handle's open mode

  void Merge(const Val& o);
  bool Ranked() const { return rank || other; }
  // One name for every task: a literal or literal-built name with no rank or loop in it.
  bool Fixed() const { return !key.empty() && !rank && !other && !loopvar; }
};

struct UnitInfo {
  std::set<std::string> rank_names, size_names;
  bool parallel = false;       // the unit knows a rank (MPI, SLURM_PROCID ...)
  bool hdf5_parallel = false;  // H5Pset_fapl_mpio seen
  text::LineIndex lines{""};
};

// A loop-sensitive event of a function that is not inside one of its own loops: it becomes a
// storm or a small-record finding at a caller's loop.
enum class Pend : uint8_t { kCreate, kSmallWrite, kSmallRead, kStat, kUnlink, kMkdir };
struct Pending {
  Pend kind;
  double size = -1;      // bytes when known
  int size_param = -1;   // else the parameter that carries the size
  double scale = 1;      // ... times this (fwrite's element size)
  bool text = false;     // formatted records (size unknown, small)
  bool guarded = false;  // mkdir under `if (rank == 0)`
  int depth = 0;         // loops around it in its own function
};

struct CallSite {
  std::string callee;
  int line = 0;
  bool in_loop = false;
  double iters = 0;  // product of the known trip counts of the loops around it (0: none known)
  int depth = 0;
  bool guarded = false;
  std::vector<Val> args;
  std::vector<int> arg_param;  // argument i is the caller's parameter k, else -1
};

enum class Phase : uint8_t { kWrite, kRead, kBarrier, kCall };
struct PhaseItem {
  Phase kind;
  int line = 0;
  int call = -1;  // kCall: index into FunctionSummary::calls
};

// A file name (or handle) used to write or read: for write-then-read and read-other-rank.
struct NameUse {
  std::string key;
  std::string term;
  bool write = false;
  bool read = false;
  bool ranked = false, other = false, loopvar = false;
  int unit = 0;
  int line = 0;
};

struct FunctionSummary {
  int unit = 0, fn = 0;
  std::vector<Pending> pending;
  std::vector<CallSite> calls;
  std::vector<PhaseItem> timeline;
  bool has_callers = false;
};

struct FnRef {
  int unit, fn;
};

// What a path builder leaves for one call: the name built into each parameter (by index, none
// when it builds nothing there) and the value it returns.
struct Built {
  std::vector<std::optional<Val>> out;
  std::optional<Val> ret;

  bool Any() const {
    for (const std::optional<Val>& o : out) {
      if (o) return true;
    }
    return ret.has_value();
  }
};

// A call's arguments as a builder walk receives them: keyword ("" when positional) and value.
using CallArgs = std::vector<std::pair<std::string, Val>>;

// Everything shared by the walks over one job's sources.
struct JobState {
  std::vector<Unit> units;
  std::vector<UnitInfo> info;
  std::unordered_map<std::string, std::vector<FnRef>> functions;  // name -> definitions
  std::map<std::pair<int, int>, std::vector<Val>> param_seeds;    // (unit, fn) -> params
  std::map<std::pair<int, int>, FunctionSummary> summaries;
  std::vector<NameUse> names;
  std::set<std::string> called;            // every function name some call site names
  std::set<std::pair<int, int>> builders;  // (unit, fn) that build a name into a parameter or return one
  FindingSet* out = nullptr;
  bool emit = false;  // false while discovering

  const Function& fn(FnRef r) const { return units[r.unit].functions[r.fn]; }
  void Emit(int unit, std::string_view fact, int line, double value, Merge merge);
};

// Reads one function's statements in order, tracking values through assignments.
class Walker {
 public:
  Walker(JobState& job, int unit, int fn);
  // A builder walk (scan_paths.cc): the parameters hold `args` (positional in order, keyword
  // by name), nothing is emitted or recorded as a name use; `depth` counts nested builders.
  Walker(JobState& job, int unit, int fn, const CallArgs& args, int depth);
  // Walks the function; fills the summary; emits findings when job.emit and not a builder walk.
  FunctionSummary Run();
  // Walks the function as a builder walk; returns what it builds.
  Built Build();

 private:
  struct Context {
    bool in_loop = false;
    double iters = 0;
    int depth = 0;
    bool guarded = false;
  };
  struct LoopState {
    bool done = false;
    std::optional<double> iters;
    bool over_ranks = false;
  };

  // scan_walk.cc
  void Statement(const Stmt& s);
  Context ContextOf(const Stmt& s);
  void EnterLoop(int index);
  void DoCall(const Stmt& s, const Call& c, const Context& ctx);
  void UserCall(const Call& c, const Context& ctx);
  void PrefixApi(const Call& c, const std::string& name);
  void Operation(const Stmt& s, const Call& c, const OpInfo& op, const Context& ctx);
  void RankOut(const Call& c, const OpInfo& op);
  void StreamShift(const Stmt& s, const Context& ctx);
  void RandomDeclarator(const Stmt& s);
  std::string Normalize(const Call& c) const;
  std::string ResultVar(const Stmt& s, const Call& c) const;
  void Emit(std::string_view fact, int line, double value = 1, Merge merge = Merge::kSum);

  // scan_values.cc
  Val Eval(Span s) { return Eval(u_, s, 0); }
  Val Eval(const Unit& u, Span s, int depth);
  Val EvalArg(const Call& c, int index, const char* kw = nullptr);
  Val EvalToken(const Unit& u, int k, Span s, int depth, int* skip);
  Val EvalName(const std::string& dotted, const std::string& base);
  Val EvalFString(const std::string& body, int depth);
  std::string RankTerm(const Unit& u, int k, Span s) const;
  bool RankZeroGuard(const Guard& g);
  std::optional<double> Number(const Unit& u, Span s);
  Span Operand(int k, Span s, bool before) const;
  bool IsText(const std::string& name) const {
    auto it = env_.find(name);
    return it != env_.end() && it->second.text;
  }

  // scan_paths.cc
  void BuilderCall(const Call& c);
  void Bind(const Call& c, const Function& callee, const Built& b);
  void Return(const Stmt& s);
  void MarkBuilt(const std::string& var) { built_.insert(var); }
  Built Outputs() const;

  // scan_io.cc and scan_meta.cc
  void Open(const Stmt& s, const Call& c, const OpInfo& op, const Context& ctx);
  OpenMode ModeOf(const Call& c, const OpInfo& op);
  OpenMode IosMode(const Call& c, const OpInfo& op);
  OpenMode FortranMode(const Call& c);
  bool ParallelOpen(const Call& c, const OpInfo& op);
  void BindHandle(const Stmt& s, const Call& c, const OpInfo& op, const Val& h);
  void DataCall(const Call& c, const OpInfo& op, const Context& ctx, bool write);
  void MpiDataCall(const Call& c, const MpiData& d, const Context& ctx);
  void SizedRecord(const Call& c, bool write, std::optional<double> size, int size_param, bool text, const Context& ctx,
                   double scale = 1);
  int ParamIndex(Span s) const;
  void Offset(const Call& c, const Arg* a);
  void Meta(const Call& c, const OpInfo& op, const Context& ctx);
  void Format(const Call& c, const OpInfo& op);
  bool FortranInternalWrite(const Call& c);
  Val HandleOf(const Call& c, const OpInfo& op);
  void Use(const Val& name, bool write, bool read, int line);

  JobState& job_;
  int unit_, fn_;
  const Unit& u_;
  const Function& f_;
  UnitInfo& info_;
  std::unordered_map<std::string, Val> env_;
  std::unordered_map<int, Val> results_;  // call name token -> the value the call returns
  std::unordered_map<int, Val> returns_;  // a builder call's name token -> its value (arguments included)
  bool quiet_ = false;                    // a builder walk
  int depth_ = 0;                         // builder walks around this one
  std::set<std::string> built_;           // variables a name was formatted or assigned into
  std::optional<Val> returned_;           // what the return statements return
  std::vector<LoopState> loops_;
  FunctionSummary sum_;
};

}  // namespace bb::modeselect::scan
