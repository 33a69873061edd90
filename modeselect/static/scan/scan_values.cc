// Value tracking: what an expression derives from (the rank, another task's rank, the task
// count, a random number, a loop variable, a literal file name), and rank-0 guards.
#include <cmath>

#include "modeselect/static/scan/scan_internal.h"

namespace bb::modeselect::scan {
namespace {

bool IsRankEnv(std::string_view s) {
  return s == "SLURM_PROCID" || s == "OMPI_COMM_WORLD_RANK" || s == "PMI_RANK" || s == "PMIX_RANK" ||
         s == "MV2_COMM_WORLD_RANK" || s == "RANK";
}
bool IsSizeEnv(std::string_view s) {
  return s == "SLURM_NTASKS" || s == "SLURM_NPROCS" || s == "OMPI_COMM_WORLD_SIZE" || s == "PMI_SIZE" ||
         s == "WORLD_SIZE";
}
bool IsRandomName(std::string_view s) {
  static constexpr const char* kNames[] = {"rand",
                                           "random",
                                           "drand48",
                                           "lrand48",
                                           "mrand48",
                                           "erand48",
                                           "nrand48",
                                           "jrand48",
                                           "rand_r",
                                           "randint",
                                           "randrange",
                                           "uniform",
                                           "integers",
                                           "random_sample",
                                           "choice",
                                           "mt19937",
                                           "mt19937_64",
                                           "default_random_engine",
                                           "minstd_rand",
                                           "random_device",
                                           "uniform_int_distribution",
                                           "uniform_real_distribution",
                                           "rand_int",
                                           "random_integers"};
  for (const char* n : kNames) {
    if (s == n) return true;
  }
  return false;
}
bool IsArith(const Token& t) {
  return t.kind == TokKind::kPunct && (t.text == "+" || t.text == "-" || t.text == "^" || t.text == "%");
}
bool IsTermToken(const Token& t) {
  if (t.kind == TokKind::kIdent || t.kind == TokKind::kNumber) return true;
  return t.kind == TokKind::kPunct && t.text.size() == 1 &&
         std::string_view("+-*/%^()").find(t.text[0]) != std::string_view::npos;
}

}  // namespace

void Val::Merge(const Val& o) {
  rank |= o.rank;
  other |= o.other;
  size |= o.size;
  random |= o.random;
  loopvar |= o.loopvar;
  text |= o.text;
  handle |= o.handle;
  source |= o.source;
  flags |= o.flags;
  key += o.key;
  if (term.empty() || (o.other && !other)) term = o.term.empty() ? term : o.term;
  mode.read |= o.mode.read;
  mode.write |= o.mode.write;
  mode.create |= o.mode.create;
  mode.append |= o.mode.append;
  mode.excl |= o.mode.excl;
  mode.direct |= o.mode.direct;
}

Val Walker::Eval(const Unit& u, Span s, int depth) {
  Val v;
  s.end = std::min(s.end, u.ntoks());
  for (int k = s.begin; k < s.end; ++k) {
    int skip = 0;
    v.Merge(EvalToken(u, k, s, depth, &skip));
    k += skip;
  }
  v.num = Number(u, s);
  return v;
}

Val Walker::EvalArg(const Call& c, int index, const char* kw) {
  const Arg* a = c.Get(index < 0 ? 1 << 20 : index, kw ? kw : "");
  if (!a) return Val{};
  return Eval(a->span);
}

// The name `dotted` (a.b.c) whose last part is `base`.
Val Walker::EvalName(const std::string& dotted, const std::string& base) {
  if (auto it = env_.find(dotted); it != env_.end()) {
    Val v = it->second;
    v.source = false;
    return v;
  }
  Val v;
  bool qualified = dotted.size() > base.size();
  std::string prefix = text::Lower(dotted.substr(0, dotted.size() - base.size()));
  bool comm = prefix.find("comm") != std::string::npos || prefix.find("mpi") != std::string::npos;
  if (base == "Get_rank" || (qualified && base == "rank")) {
    v.rank = v.source = true;
    v.term = "rank";
  } else if (base == "Get_size" || (qualified && comm && base == "size")) {
    v.size = true;
  } else if (IsRandomName(base)) {
    v.random = true;
  } else if (info_.rank_names.count(dotted)) {
    v.rank = true;
    v.term = "rank";
  } else if (info_.size_names.count(dotted)) {
    v.size = true;
  } else if (qualified) {
    size_t cut = dotted.find_first_of(".:-%");
    if (auto it = env_.find(dotted.substr(0, cut)); it != env_.end()) {
      v = it->second;  // buf.c_str(), oss.str(), name.data()
      v.source = false;
    }
  }
  v.flags |= FlagsOfName(base);
  return v;
}

Val Walker::EvalToken(const Unit& u, int k, Span s, int depth, int* skip) {
  const Token& t = u.tok(k);
  if (t.kind == TokKind::kString) {
    Val v = (t.flags & kFString) ? EvalFString(t.text, depth) : Val{};
    v.text = true;
    if (!(t.flags & kFString)) v.key = t.text;
    if (IsRankEnv(t.text)) {
      v.rank = v.source = true;
      v.term = "rank";
    }
    if (IsSizeEnv(t.text)) v.size = true;
    return v;
  }
  if (t.kind != TokKind::kIdent) return Val{};
  if (&u == &u_) {
    if (auto it = results_.find(k); it != results_.end()) return it->second;
  }
  std::string dotted = t.text;
  int j = k;
  while (j + 2 < s.end && (u.tok(j + 1).Is(".") || u.tok(j + 1).Is("::") || u.tok(j + 1).Is("->")) &&
         u.tok(j + 2).kind == TokKind::kIdent) {
    dotted += "." + u.tok(j + 2).text;
    j += 2;
  }
  *skip = j - k;
  if (&u == &u_) {
    if (auto it = results_.find(j); it != results_.end()) return it->second;
    if (auto it = returns_.find(j); it != returns_.end()) {
      // The builder's value stands for the whole call: its arguments are already in it.
      if (j + 1 < s.end && u.tok(j + 1).Is("(")) *skip = MatchClose(u, j + 1, s.end) - k;
      return it->second;
    }
  }
  Val v = EvalName(dotted, u.tok(j).text);
  if (v.rank && !v.other) {
    bool before = k > s.begin && IsArith(u.tok(k - 1)) &&
                  !(u.tok(k - 1).Is("%") && k - 2 >= s.begin &&
                    (u.tok(k - 2).kind == TokKind::kString || IsText(u.tok(k - 2).text)));
    bool after = j + 1 < s.end && IsArith(u.tok(j + 1)) && !(j + 2 < s.end && u.tok(j + 2).kind == TokKind::kString);
    if (before || after) {
      v.other = true;
      v.term = RankTerm(u, k, s);
    } else if (v.term.empty()) {
      v.term = "rank";
    }
  }
  return v;
}

// The rank expression around token k, rank and size names normalized: "(rank+1)%size".
std::string Walker::RankTerm(const Unit& u, int k, Span s) const {
  int b = k, e = k + 1;
  while (b > s.begin && IsTermToken(u.tok(b - 1))) --b;
  while (e < s.end && IsTermToken(u.tok(e))) ++e;
  std::string out;
  std::vector<std::string> parts;
  for (int i = b; i < e; ++i) {
    const Token& t = u.tok(i);
    std::string w = t.text;
    if (t.kind == TokKind::kIdent) {
      Val v;
      if (auto it = env_.find(w); it != env_.end()) v = it->second;
      if (info_.rank_names.count(w) || (v.rank && !v.other))
        w = "rank";
      else if (info_.size_names.count(w) || v.size)
        w = "size";
    }
    parts.push_back(w);
  }
  // Drop unbalanced parentheses at either end (the call's own).
  while (!parts.empty() && parts.front() == "(") {
    int balance = 0;
    for (const std::string& p : parts) balance += p == "(" ? 1 : p == ")" ? -1 : 0;
    if (balance <= 0) break;
    parts.erase(parts.begin());
  }
  while (!parts.empty() && parts.back() == ")") {
    int balance = 0;
    for (const std::string& p : parts) balance += p == "(" ? 1 : p == ")" ? -1 : 0;
    if (balance >= 0) break;
    parts.pop_back();
  }
  for (const std::string& p : parts) out += p;
  return out;
}

// f"ckpt_{rank:04d}.npy": the {expressions} evaluated, the literal parts kept as the key.
Val Walker::EvalFString(const std::string& body, int depth) {
  Val v;
  v.text = true;
  if (depth > 3) return v;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '{' && i + 1 < body.size() && body[i + 1] == '{') {
      v.key += '{';
      ++i;
      continue;
    }
    if (c != '{') {
      v.key += c;
      continue;
    }
    int nest = 1;
    size_t j = i + 1, stop = std::string::npos;
    for (; j < body.size() && nest > 0; ++j) {
      if (body[j] == '{' || body[j] == '[' || body[j] == '(') ++nest;
      if (body[j] == '}' || body[j] == ']' || body[j] == ')') --nest;
      if (nest == 1 && stop == std::string::npos && (body[j] == ':' || body[j] == '!')) stop = j;
    }
    size_t end = nest == 0 ? j - 1 : body.size();
    std::string expr = body.substr(i + 1, std::min(stop, end) - i - 1);
    Unit sub;
    sub.lang = Lang::kPython;
    sub.toks = Tokenize(Lang::kPython, expr);
    while (!sub.toks.empty() && sub.toks.back().kind != TokKind::kIdent && sub.toks.back().kind != TokKind::kNumber &&
           sub.toks.back().kind != TokKind::kPunct && sub.toks.back().kind != TokKind::kString)
      sub.toks.pop_back();
    Val e = Eval(sub, {0, sub.ntoks()}, depth + 1);
    e.key.clear();
    v.Merge(e);
    v.key += "{}";
    i = end;
  }
  return v;
}

std::optional<double> Walker::Number(const Unit& u, Span s) {
  if (s.empty()) return std::nullopt;
  NameValue lookup = [this](std::string_view name) -> std::optional<double> {
    auto it = env_.find(std::string(name));
    if (it == env_.end() || it->second.loopvar) return std::nullopt;
    return it->second.num;
  };
  return ConstEval(u, s, lookup);
}

// The operand before (or after) the comparison at token k: a name with its calls and
// subscripts, a number, or a parenthesized group.
Span Walker::Operand(int k, Span s, bool before) const {
  if (before) {
    int j = k - 1;
    while (j >= s.begin) {
      const Token& t = u_.tok(j);
      if (t.Is(")") || t.Is("]")) {
        int depth = 0;
        for (; j >= s.begin; --j) {
          if (u_.tok(j).Is(")") || u_.tok(j).Is("]")) ++depth;
          if (u_.tok(j).Is("(") || u_.tok(j).Is("[")) --depth;
          if (depth == 0) break;
        }
        --j;
      } else if (t.kind == TokKind::kIdent || t.kind == TokKind::kNumber) {
        --j;
        if (j >= s.begin && (u_.tok(j).Is(".") || u_.tok(j).Is("->") || u_.tok(j).Is("%"))) {
          --j;
        } else {
          break;
        }
      } else {
        break;
      }
    }
    return {j + 1, k};
  }
  int j = k + 1;
  while (j < s.end) {
    const Token& t = u_.tok(j);
    if (t.Is("(") || t.Is("[")) {
      j = MatchClose(u_, j, s.end) + 1;
    } else if (t.kind == TokKind::kIdent || t.kind == TokKind::kNumber) {
      ++j;
      if (j < s.end && (u_.tok(j).Is(".") || u_.tok(j).Is("->")))
        ++j;
      else if (!(j < s.end && (u_.tok(j).Is("(") || u_.tok(j).Is("["))))
        break;
    } else {
      break;
    }
  }
  return {k + 1, std::min(j, s.end)};
}

// True when the branch runs on rank 0 only: if (rank == 0), if (!rank), else of rank != 0.
bool Walker::RankZeroGuard(const Guard& g) {
  Span s = g.cond;
  int test = 0;  // 1: rank is zero, -1: rank is not zero
  auto zero = [&](Span o) {
    if (std::optional<double> v = Number(u_, o); v && *v == 0) return true;
    if (o.size() != 1 || u_.tok(o.begin).kind != TokKind::kIdent) return false;
    std::string w = text::Lower(u_.tok(o.begin).text);
    return w.find("root") != std::string::npos || w.find("master") != std::string::npos;
  };
  auto ranked = [&](Span o) {
    Val v = Eval(o);
    return !o.empty() && v.rank && !v.other;
  };
  for (int k = s.begin; k < s.end && test == 0; ++k) {
    const Token& t = u_.tok(k);
    bool eq = t.Is("==") || t.Is(".eq.");
    bool ne = t.Is("!=") || t.Is(".ne.") || (IsFortran(u_.lang) && t.Is("/="));
    if (eq || ne) {
      Span l = Operand(k, s, true), r = Operand(k, s, false);
      if ((ranked(l) && zero(r)) || (ranked(r) && zero(l))) test = eq ? 1 : -1;
    } else if ((t.Is("!") || t.Is("not") || t.Is(".not.")) && k + 1 < s.end) {
      if (ranked(Operand(k, s, false))) test = 1;
    }
  }
  if (test == 0 && s.size() <= 3 && ranked(s)) test = -1;  // if (rank) ...
  return (test == 1 && !g.negated) || (test == -1 && g.negated);
}

}  // namespace bb::modeselect::scan
