// The Walker's statement loop: contexts (loops, rank-0 guards), call dispatch, assignments.
#include <cmath>

#include "modeselect/static/scan/scan_internal.h"

namespace bb::modeselect::scan {

void JobState::Emit(int unit, std::string_view fact, int line, double value, Merge merge) {
  if (!emit || !out) return;
  out->Add(fact, units[unit].path, line, info[unit].lines.Line(line), value, merge);
}

Walker::Walker(JobState& job, int unit, int fn)
    : job_(job), unit_(unit), fn_(fn), u_(job.units[unit]), f_(job.units[unit].functions[fn]), info_(job.info[unit]) {
  for (const std::string& r : info_.rank_names) {
    Val v;
    v.rank = true;
    v.term = "rank";
    env_[r] = v;
  }
  for (const std::string& s : info_.size_names) env_[s].size = true;
  if (auto it = job.param_seeds.find({unit, fn}); it != job.param_seeds.end()) {
    for (size_t i = 0; i < it->second.size() && i < f_.params.size(); ++i) {
      env_[f_.params[i]].Merge(it->second[i]);
      if (it->second[i].num) env_[f_.params[i]].num = it->second[i].num;
    }
  }
  loops_.resize(f_.loops.size());
  sum_.unit = unit;
  sum_.fn = fn;
  sum_.has_callers = !f_.name.empty() && job.called.count(f_.name) > 0;
}

FunctionSummary Walker::Run() {
  for (const Stmt& s : f_.stmts) Statement(s);
  if (!f_.name.empty() && Outputs().Any()) job_.builders.insert({unit_, fn_});
  return std::move(sum_);
}

void Walker::Emit(std::string_view fact, int line, double value, Merge merge) {
  if (!quiet_) job_.Emit(unit_, fact, line, value, merge);
}

void Walker::EnterLoop(int index) {
  LoopState& st = loops_[static_cast<size_t>(index)];
  st.done = true;
  const Loop& l = f_.loops[static_cast<size_t>(index)];
  if (!l.hi.empty()) {
    std::optional<double> lo =
        l.lo.empty() ? (u_.lang == Lang::kPython ? std::optional<double>(0) : std::nullopt) : Number(u_, l.lo);
    std::optional<double> hi = Number(u_, l.hi);
    std::optional<double> step = l.step.empty() ? std::optional<double>(1) : Number(u_, l.step);
    if (lo && hi && step && *step != 0) {
      double n = l.down ? *lo - *hi : *hi - *lo;
      if (l.inclusive) n += 1;
      n = std::ceil(n / std::fabs(*step));
      if (n >= 0 && n < 1e12) st.iters = n;
    }
    st.over_ranks = Eval(l.hi).size;
  }
  if (!l.iterable.empty() && !st.over_ranks) st.over_ranks = Eval(l.iterable).size;
  if (l.var.empty()) return;
  Val v;
  v.loopvar = true;
  if (st.over_ranks) {
    v.other = true;
    v.term = "*all*";
  }
  env_[l.var] = v;
}

Walker::Context Walker::ContextOf(const Stmt& s) {
  Context c;
  c.in_loop = !s.loops.empty();
  c.depth = static_cast<int>(s.loops.size());
  double iters = 1;
  bool known = false;
  for (int i : s.loops) {
    if (!loops_[static_cast<size_t>(i)].done) EnterLoop(i);
    if (loops_[static_cast<size_t>(i)].iters) {
      iters *= *loops_[static_cast<size_t>(i)].iters;
      known = true;
    }
  }
  c.iters = known ? iters : 0;
  for (const Guard& g : s.guards) c.guarded = c.guarded || RankZeroGuard(g);
  return c;
}

void Walker::Statement(const Stmt& s) {
  Context ctx = ContextOf(s);
  results_.clear();
  returns_.clear();
  for (size_t i = s.calls.size(); i > 0; --i) DoCall(s, s.calls[i - 1], ctx);
  if (u_.lang == Lang::kCpp || u_.lang == Lang::kC) StreamShift(s, ctx);
  if (u_.lang == Lang::kCpp && s.lhs.empty()) RandomDeclarator(s);
  if (s.lhs.empty()) Return(s);
  if (s.lhs.empty() || s.rhs.empty()) return;
  Val v = Eval(s.rhs);
  if (v.source && v.rank && !v.other) info_.rank_names.insert(s.lhs);
  if (v.size && !v.rank && s.rhs.size() <= 8) info_.size_names.insert(s.lhs);
  if (v.rank) info_.parallel = true;
  if (s.augmented) {
    env_[s.lhs].Merge(v);
  } else {
    env_[s.lhs] = v;
  }
  // Through a C++ reference or a Fortran dummy an assignment reaches the caller (Outputs keeps
  // only parameters passed by reference); in C it only moves the function's own pointer.
  if (v.text && (u_.lang == Lang::kCpp || IsFortran(u_.lang))) MarkBuilt(s.lhs);
}

std::string Walker::Normalize(const Call& c) const {
  std::string name = c.name;
  if (u_.lang == Lang::kPython) {
    size_t dot = name.find('.');
    std::string head = name.substr(0, dot);
    if (auto it = u_.aliases.find(head); it != u_.aliases.end()) {
      name = it->second + (dot == std::string::npos ? "" : name.substr(dot));
    }
    if (name.rfind("numpy.", 0) == 0) name = "np." + name.substr(6);
    if (name.rfind("mpi4py.", 0) == 0) name = name.substr(7);
    return name;
  }
  static constexpr const char* kPrefixes[] = {
      "::", "std::", "experimental::", "filesystem::", "fs::", "boost::", "stdfs::"};
  for (bool again = true; again;) {
    again = false;
    for (const char* p : kPrefixes) {
      if (name.rfind(p, 0) == 0 && name.size() > std::string_view(p).size()) {
        name = name.substr(std::string_view(p).size());
        again = true;
      }
    }
  }
  return name;
}

// The variable a call's result is assigned to: fd = open(...), FILE *f = fopen(...),
// if ((fd = open(...)) < 0).
std::string Walker::ResultVar(const Stmt& s, const Call& c) const {
  int j = c.name_token;
  while (j - 2 >= s.span.begin && (u_.tok(j - 1).Is(".") || u_.tok(j - 1).Is("::") || u_.tok(j - 1).Is("->")) &&
         u_.tok(j - 2).kind == TokKind::kIdent)
    j -= 2;
  --j;
  while (j >= s.span.begin && u_.tok(j).Is("(")) --j;
  if (j >= s.span.begin && u_.tok(j).Is(")")) {  // a cast: (FILE *) fopen(...)
    int depth = 0;
    for (; j >= s.span.begin; --j) {
      if (u_.tok(j).Is(")")) ++depth;
      if (u_.tok(j).Is("(") && --depth == 0) break;
    }
    --j;
  }
  if (j - 1 >= s.span.begin && u_.tok(j).Is("=") && u_.tok(j - 1).kind == TokKind::kIdent) return u_.tok(j - 1).text;
  return "";
}

void Walker::DoCall(const Stmt& s, const Call& c, const Context& ctx) {
  bool plain = c.object.empty() || c.object == "self" || c.object == "this";
  if (plain && job_.functions.count(c.base) && c.base != f_.name) return UserCall(c, ctx);
  if (plain && job_.functions.count(c.base)) return;  // recursion
  std::string name = Normalize(c);
  if (u_.lang == Lang::kPython && name == "print" && c.Get(-1, "file")) {
    Val h = Eval(c.Get(-1, "file")->span);
    if (!h.handle) return;
    Emit("io.python", c.line);
    SizedRecord(c, true, std::nullopt, -1, true, ctx);
    Use(h, true, false, c.line);
    sum_.timeline.push_back({Phase::kWrite, c.line});
    return;
  }
  const OpInfo* op = FindOp(u_.lang, c, name);
  if (!op && job_.functions.count(c.base)) return UserCall(c, ctx);  // obj.helper(...)
  if (!op) {
    if (std::optional<MpiData> d = ClassifyMpiData(u_.lang, c)) return MpiDataCall(c, *d, ctx);
    return PrefixApi(c, name);
  }
  Operation(s, c, *op, ctx);
}

// HDF5, NetCDF and PnetCDF calls the table does not list count under their interface.
void Walker::PrefixApi(const Call& c, const std::string& name) {
  if (u_.lang == Lang::kPython) return;
  std::string low = text::Lower(name);
  bool pnetcdf = low.rfind("ncmpi_", 0) == 0 || low.rfind("nfmpi_", 0) == 0 || low.rfind("nf90mpi_", 0) == 0;
  bool hdf5 = IsFortran(u_.lang) ? low.rfind("h5", 0) == 0 && low.size() > 4 && low.substr(low.size() - 2) == "_f"
                                 : name.rfind("H5", 0) == 0 && name.size() > 3;
  bool netcdf = pnetcdf || low.rfind("nc_", 0) == 0 || low.rfind("nf90_", 0) == 0 || low.rfind("nf_", 0) == 0;
  if (hdf5) Emit("io.hdf5", c.line);
  if (netcdf) Emit("io.netcdf", c.line);
}

void Walker::Operation(const Stmt& s, const Call& c, const OpInfo& o, const Context& ctx) {
  const OpInfo* op = &o;
  switch (op->op) {
    case Op::kOpen:
      return Open(s, c, *op, ctx);
    case Op::kWrite:
    case Op::kRead:
      return DataCall(c, *op, ctx, op->op == Op::kWrite);
    case Op::kSeek:
      if (*ApiFact(op->api)) Emit(ApiFact(op->api), c.line);
      return Offset(c, c.Get(op->offset_arg));
    case Op::kSync:
      return Emit("file.sync", c.line);
    case Op::kClose: {
      if (op->handle_arg == kReceiver && !HandleOf(c, *op).handle) return;
      if (*ApiFact(op->api)) Emit(ApiFact(op->api), c.line);
      const Arg* status = c.Get(-1, "status");
      if (status && text::IEquals(text::Trim(Eval(status->span).key), "delete") && ctx.in_loop)
        Emit("meta.unlink_storm", c.line, ctx.iters, Merge::kMax);
      return;
    }
    case Op::kBarrier:
      sum_.timeline.push_back({Phase::kBarrier, c.line});
      return;
    case Op::kRankOut:
    case Op::kSizeOut:
      return RankOut(c, *op);
    case Op::kFormat:
    case Op::kCopyStr:
      return Format(c, *op);
    case Op::kSetView:
      Emit("io.mpiio.set_view", c.line);
      if (Eval(c.Get(op->offset_arg) ? c.Get(op->offset_arg)->span : Span{}).Ranked()) Emit("access.strided", c.line);
      return;
    case Op::kInfoSet:
      return Emit("io.mpiio.hints", c.line);
    case Op::kParallel:
      info_.hdf5_parallel = true;
      Emit("io.hdf5", c.line);
      return Emit("io.hdf5.parallel", c.line);
    case Op::kShuffle: {
      if (c.base == "DataLoader") {
        const Arg* a = c.Get(-1, "shuffle");
        if (!a || a->span.size() != 1 || !u_.tok(a->span.begin).Is("True")) return;
      }
      return Emit("access.shuffle", c.line);
    }
    case Op::kRandomOut:
      if (const Arg* a = c.Get(op->out_arg); a && a->span.size() == 1) env_[u_.tok(a->span.begin).text].random = true;
      return;
    default:
      return Meta(c, *op, ctx);
  }
}

// MPI_Comm_rank(comm, &rank) / mpi_comm_size(comm, n, ierr): the out-argument holds the rank.
void Walker::RankOut(const Call& c, const OpInfo& op) {
  const Arg* a = c.Get(op.out_arg);
  if (!a) return;
  for (int k = a->span.begin; k < a->span.end; ++k) {
    if (u_.tok(k).kind != TokKind::kIdent) continue;
    Val v;
    (op.op == Op::kRankOut ? v.rank : v.size) = true;
    if (v.rank) v.term = "rank";
    (op.op == Op::kRankOut ? info_.rank_names : info_.size_names).insert(u_.tok(k).text);
    info_.parallel = true;
    env_[u_.tok(k).text] = v;
    return;
  }
}

void Walker::UserCall(const Call& c, const Context& ctx) {
  BuilderCall(c);
  CallSite cs;
  cs.callee = c.base;
  cs.line = c.line;
  cs.in_loop = ctx.in_loop;
  cs.iters = ctx.iters;
  cs.depth = ctx.depth;
  cs.guarded = ctx.guarded;
  for (const Arg& a : c.args) {
    if (!a.keyword.empty()) continue;
    cs.args.push_back(Eval(a.span));
    int param = -1;
    Span s = a.span;
    if (s.size() == 2 && u_.tok(s.begin).Is("&")) ++s.begin;
    if (s.size() == 1) {
      for (size_t i = 0; i < f_.params.size(); ++i) {
        if (f_.params[i] == u_.tok(s.begin).text) param = static_cast<int>(i);
      }
    }
    cs.arg_param.push_back(param);
  }
  job_.called.insert(c.base);
  sum_.timeline.push_back({Phase::kCall, c.line, static_cast<int>(sum_.calls.size())});
  sum_.calls.push_back(std::move(cs));
}

// std::uniform_int_distribution<long> dist(0, n); std::mt19937 gen(seed): dist and gen are
// random sources.
void Walker::RandomDeclarator(const Stmt& s) {
  for (int k = s.span.begin; k + 1 < s.span.end; ++k) {
    if (u_.tok(k).kind != TokKind::kIdent || !EvalName(u_.tok(k).text, u_.tok(k).text).random) continue;
    int j = k + 1;
    if (u_.tok(j).Is("<")) {
      for (int depth = 0; j < s.span.end; ++j) {
        if (u_.tok(j).Is("<")) ++depth;
        if (u_.tok(j).Is(">") && --depth == 0) break;
        if (u_.tok(j).Is(">>") && (depth -= 2) <= 0) break;
      }
      ++j;
    }
    if (j < s.span.end && u_.tok(j).kind == TokKind::kIdent) env_[u_.tok(j).text].random = true;
    return;
  }
}

// C++ `out << x << y;` on a file stream is a formatted write; on a string stream it builds a
// name; `in >> x` on an input stream is a read.
void Walker::StreamShift(const Stmt& s, const Context& ctx) {
  if (s.span.size() < 3 || u_.tok(s.span.begin).kind != TokKind::kIdent) return;
  const Token& op = u_.tok(s.span.begin + 1);
  if (!op.Is("<<") && !op.Is(">>")) return;
  const std::string& var = u_.tok(s.span.begin).text;
  auto type = u_.stream_types.find(var);
  auto it = env_.find(var);
  bool file = (type != u_.stream_types.end()) || (it != env_.end() && it->second.handle);
  if (!file) {
    if (op.Is("<<")) {
      Val v = Eval({s.span.begin + 2, s.span.end});
      v.text = true;
      env_[var].Merge(v);
      MarkBuilt(var);
    }
    return;
  }
  bool write = op.Is("<<");
  Emit("io.stdio", s.line);
  Val h = it != env_.end() ? it->second : Val{};
  Call c;
  c.line = s.line;
  SizedRecord(c, write, std::nullopt, -1, true, ctx);
  Use(h, write, !write && h.mode.write, s.line);
  sum_.timeline.push_back({write ? Phase::kWrite : Phase::kRead, s.line});
}

}  // namespace bb::modeselect::scan
