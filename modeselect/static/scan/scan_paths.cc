// Path builders: a helper that formats a file name into one of its parameters (snprintf,
// strcpy, an internal write, a C++ reference or Fortran dummy assigned a string) or returns one
// (a std::string, an f-string, a Fortran function result). Every call of such a helper walks it
// again with that call's own arguments, so ckpt_path(mine, .., rank) and ckpt_path(partner, ..,
// (rank + 1) % size) give `mine` and `partner` different rank terms, where the parameter seeds
// (merged over every caller) would give both the same.
#include <algorithm>

#include "modeselect/static/scan/scan_internal.h"

namespace bb::modeselect::scan {
namespace {

// A call follows builders this many calls deep (k1 calling k2 calling k3): a name built by a
// deeper helper does not reach the caller, and a cycle of helpers is cut there. Each level
// walks the next once per call, so the bound also keeps a job's scan within milliseconds.
constexpr int kMaxBuilderDepth = 3;

// A value worth handing back to the caller: a name, a rank expression, a random number.
bool Carries(const Val& v) { return v.text || v.Ranked() || v.random; }

int ParamOf(const Function& f, const std::string& name) {
  auto it = std::find(f.params.begin(), f.params.end(), name);
  return it == f.params.end() ? -1 : static_cast<int>(it - f.params.begin());
}

}  // namespace

Walker::Walker(JobState& job, int unit, int fn, const CallArgs& args, int depth) : Walker(job, unit, fn) {
  quiet_ = true;
  depth_ = depth;
  for (const std::string& p : f_.params) env_[p] = Val{};  // the seeds of every caller do not apply
  size_t pos = 0;
  for (const auto& [keyword, v] : args) {
    int index = keyword.empty() ? static_cast<int>(pos++) : ParamOf(f_, keyword);
    if (index < 0 || static_cast<size_t>(index) >= f_.params.size()) continue;
    Val& p = env_[f_.params[static_cast<size_t>(index)]];
    p = v;
    p.source = false;  // a copy of the rank, as any other parameter
  }
}

Built Walker::Build() {
  for (const Stmt& s : f_.stmts) Statement(s);
  return Outputs();
}

// What the walk so far has built: parameters that received a name, and the return value.
Built Walker::Outputs() const {
  Built b;
  b.out.resize(f_.params.size());
  for (size_t i = 0; i < f_.params.size() && i < f_.by_ref.size(); ++i) {
    auto it = env_.find(f_.params[i]);
    if (f_.by_ref[i] && built_.count(f_.params[i]) && it != env_.end() && Carries(it->second)) b.out[i] = it->second;
  }
  std::optional<Val> ret = returned_;
  if (!f_.result.empty() && built_.count(f_.result)) {
    if (auto it = env_.find(f_.result); it != env_.end()) ret = it->second;
  }
  if (ret && Carries(*ret)) b.ret = ret;
  return b;
}

void Walker::Return(const Stmt& s) {
  if (s.span.size() < 2 || !u_.tok(s.span.begin).Is("return")) return;
  Val v = Eval({s.span.begin + 1, s.span.end});
  if (returned_) {
    returned_->Merge(v);
  } else {
    returned_ = v;
  }
}

// A call of a user function that builds names: walk it with these arguments, bind the result.
void Walker::BuilderCall(const Call& c) {
  auto it = job_.functions.find(c.base);
  if (it == job_.functions.end() || depth_ >= kMaxBuilderDepth) return;
  std::vector<FnRef> defs;
  bool local = false;  // a helper of this file hides one of the same name in another
  for (FnRef d : it->second) {
    if (!job_.builders.count({d.unit, d.fn})) continue;
    defs.push_back(d);
    local |= d.unit == unit_;
  }
  if (defs.empty()) return;
  CallArgs args;
  for (const Arg& a : c.args) args.emplace_back(a.keyword, Eval(a.span));
  for (FnRef d : defs) {
    if (local && d.unit != unit_) continue;
    Bind(c, job_.fn(d), Walker(job_, d.unit, d.fn, args, depth_ + 1).Build());
  }
}

// The caller's variable passed for each built parameter gets the name; the call gets the value
// the helper returns.
void Walker::Bind(const Call& c, const Function& callee, const Built& b) {
  size_t pos = 0;
  for (const Arg& a : c.args) {
    int index = a.keyword.empty() ? static_cast<int>(pos++) : ParamOf(callee, a.keyword);
    if (index < 0 || static_cast<size_t>(index) >= b.out.size() || !b.out[static_cast<size_t>(index)]) continue;
    for (int k = a.span.begin; k < a.span.end; ++k) {
      if (u_.tok(k).kind != TokKind::kIdent) continue;
      env_[u_.tok(k).text] = *b.out[static_cast<size_t>(index)];
      MarkBuilt(u_.tok(k).text);  // a builder that calls a builder builds too
      break;
    }
  }
  if (b.ret) returns_[c.name_token] = *b.ret;
}

}  // namespace bb::modeselect::scan
