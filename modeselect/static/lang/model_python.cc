// The Python front end: blocks by indentation, def/class, for/while loops (range() bounds),
// if/elif/else chains, with-items bound by `as`, imports as aliases, module-level constants.
#include "modeselect/static/lang/model.h"
#include "modeselect/static/text.h"

namespace bb::modeselect::scan {
namespace {

struct Ctx {
  std::vector<int> loops;
  std::vector<Guard> guards;
};

bool IsCompound(std::string_view w) {
  return w == "if" || w == "elif" || w == "else" || w == "for" || w == "while" || w == "with" || w == "try" ||
         w == "except" || w == "finally" || w == "def" || w == "class" || w == "match" || w == "case";
}

class PyBuilder {
 public:
  explicit PyBuilder(Unit* u) : u_(*u) {}

  void Run() {
    int i = 0;
    while (i < u_.ntoks()) Block(&file_, i, Ctx{});
    u_.functions.push_back(std::move(file_));
  }

 private:
  const Token& T(int i) const { return u_.tok(i); }

  int LineEnd(int i) const {
    while (i < u_.ntoks() && T(i).kind != TokKind::kNewline) ++i;
    return i;
  }

  // The ':' that ends a compound statement's header, or -1.
  int HeaderColon(int b, int e) const {
    int depth = 0;
    for (int i = b; i < e; ++i) {
      if (T(i).Is("(") || T(i).Is("[") || T(i).Is("{")) ++depth;
      if (T(i).Is(")") || T(i).Is("]") || T(i).Is("}")) --depth;
      if (depth == 0 && T(i).Is(":")) return i;
    }
    return -1;
  }

  // Reads statements until the block's kDedent (consumed) or the end of the tokens.
  void Block(Function* f, int& i, const Ctx& ctx) {
    std::vector<Guard> chain;  // conditions of the if/elif chain being read
    while (i < u_.ntoks()) {
      const Token& t = T(i);
      if (t.kind == TokKind::kDedent) {
        ++i;
        return;
      }
      if (t.kind == TokKind::kNewline || t.kind == TokKind::kIndent) {
        ++i;
        continue;
      }
      Line(f, i, ctx, &chain);
    }
  }

  void Line(Function* f, int& i, const Ctx& ctx, std::vector<Guard>* chain) {
    int b = i, e = LineEnd(i);
    if (T(b).Is("async") && b + 1 < e) ++b;
    const std::string& w = T(b).text;
    bool keyword = T(b).kind == TokKind::kIdent && IsCompound(w);
    int colon = keyword ? HeaderColon(b, e) : -1;
    if (w != "elif" && w != "else") chain->clear();
    if (T(b).Is("@")) {
      i = e + 1;
    } else if (T(b).Is("import") || T(b).Is("from")) {
      Import(b, e);
      i = e + 1;
    } else if (colon < 0) {
      Simple(f, b, e, ctx);
      i = e + 1;
    } else if (w == "def") {
      Def(b, colon, e, i);
    } else if (w == "for" || w == "while") {
      LoopHeader(f, b, colon, e, i, ctx);
    } else if (w == "if" || w == "elif" || w == "else") {
      Ctx inner = ctx;
      for (Guard g : *chain) {
        g.negated = true;
        inner.guards.push_back(g);
      }
      if (w != "else") {
        Guard g{{b + 1, colon}, false};
        AddStmt(u_, f, g.cond, ctx.loops, inner.guards).lhs.clear();
        inner.guards.push_back(g);
        chain->push_back(g);
      }
      Suite(f, colon, e, i, inner);
    } else if (w == "with") {
      With(f, b + 1, colon, ctx);
      Suite(f, colon, e, i, ctx);
    } else {
      Suite(f, colon, e, i, ctx);  // try, except, finally, class, match, case
    }
  }

  void Suite(Function* f, int colon, int e, int& i, const Ctx& ctx) {
    i = e + 1;
    if (colon + 1 < e) {
      Simple(f, colon + 1, e, ctx);  // for x in y: f.write(x)
      return;
    }
    if (i < u_.ntoks() && T(i).kind == TokKind::kIndent) {
      ++i;
      Block(f, i, ctx);
    }
  }

  void Simple(Function* f, int b, int e, const Ctx& ctx) {
    int depth = 0, start = b;
    for (int k = b; k <= e; ++k) {
      if (k < e) {
        if (T(k).Is("(") || T(k).Is("[") || T(k).Is("{")) ++depth;
        if (T(k).Is(")") || T(k).Is("]") || T(k).Is("}")) --depth;
        if (!(depth == 0 && T(k).Is(";"))) continue;
      }
      if (k > start) {
        Stmt& s = AddStmt(u_, f, {start, k}, ctx.loops, ctx.guards);
        if (f == &file_ && ctx.loops.empty() && ctx.guards.empty() && !s.lhs.empty() && !s.augmented) {
          if (std::optional<double> v = ConstEval(u_, s.rhs)) u_.constants[s.lhs] = *v;
        }
      }
      start = k + 1;
    }
  }

  void Def(int b, int colon, int e, int& i) {
    Function fn;
    fn.name = b + 1 < e ? T(b + 1).text : "";
    fn.line = T(b).line;
    if (b + 2 < e && T(b + 2).Is("(")) {
      int close = MatchClose(u_, b + 2, colon);
      int depth = 0;
      for (int k = b + 3; k < close; ++k) {
        if (T(k).Is("(") || T(k).Is("[") || T(k).Is("{")) ++depth;
        if (T(k).Is(")") || T(k).Is("]") || T(k).Is("}")) --depth;
        if (depth != 0 || T(k).kind != TokKind::kIdent) continue;
        const Token& prev = T(k - 1);
        if (!(prev.Is("(") || prev.Is(",") || prev.Is("*") || prev.Is("**"))) continue;
        if (T(k).text != "self" && T(k).text != "cls") fn.params.push_back(T(k).text);
      }
    }
    Suite(&fn, colon, e, i, Ctx{});
    u_.functions.push_back(std::move(fn));
  }

  void LoopHeader(Function* f, int b, int colon, int e, int& i, const Ctx& ctx) {
    Loop l;
    l.line = T(b).line;
    Span header{b + 1, colon};
    if (T(b).Is("for")) {
      int in = b + 1;
      while (in < colon && !T(in).Is("in")) ++in;
      for (int k = b + 1; k < in; ++k) {
        if (T(k).kind == TokKind::kIdent) {
          l.var = T(k).text;
          break;
        }
      }
      header = {std::min(in + 1, colon), colon};
      l.iterable = header;
      if (in + 2 < colon && T(in + 1).Is("range") && T(in + 2).Is("(") && MatchClose(u_, in + 2, colon) == colon - 1) {
        Range(&l, in + 3, colon - 1);
      }
    }
    Ctx inner = ctx;
    inner.loops.push_back(static_cast<int>(f->loops.size()));
    f->loops.push_back(l);
    AddStmt(u_, f, header, inner.loops, inner.guards).lhs.clear();
    Suite(f, colon, e, i, inner);
  }

  void Range(Loop* l, int b, int e) {
    std::vector<Span> args;
    int depth = 0, start = b;
    for (int k = b; k <= e; ++k) {
      if (k < e) {
        if (T(k).Is("(") || T(k).Is("[")) ++depth;
        if (T(k).Is(")") || T(k).Is("]")) --depth;
        if (!(depth == 0 && T(k).Is(","))) continue;
      }
      args.push_back({start, k});
      start = k + 1;
    }
    if (args.size() == 1) l->hi = args[0];
    if (args.size() >= 2) {
      l->lo = args[0];
      l->hi = args[1];
    }
    if (args.size() >= 3) {
      l->step = args[2];
      l->down = T(args[2].begin).Is("-");
    }
  }

  // with open(p, "w") as f, lock: each item is a statement; `as NAME` makes it an assignment.
  void With(Function* f, int b, int colon, const Ctx& ctx) {
    int depth = 0, start = b;
    for (int k = b; k <= colon; ++k) {
      if (k < colon) {
        if (T(k).Is("(") || T(k).Is("[") || T(k).Is("{")) ++depth;
        if (T(k).Is(")") || T(k).Is("]") || T(k).Is("}")) --depth;
        if (!(depth == 0 && T(k).Is(","))) continue;
      }
      int as = start;
      while (as < k && !T(as).Is("as")) ++as;
      if (as > start) {
        Stmt& s = AddStmt(u_, f, {start, as}, ctx.loops, ctx.guards);
        if (as + 1 < k && T(as + 1).kind == TokKind::kIdent) {
          s.lhs = T(as + 1).text;
          s.rhs = {start, as};
        }
      }
      start = k + 1;
    }
  }

  // import numpy as np / from os.path import join as pjoin, exists
  void Import(int b, int e) {
    std::string from;
    int i = b + 1;
    if (T(b).Is("from")) {
      for (; i < e && !T(i).Is("import"); ++i) from += T(i).text;
      ++i;
    }
    while (i < e) {
      std::string name;
      for (; i < e && !T(i).Is(",") && !T(i).Is("as"); ++i) {
        if (!T(i).Is("(") && !T(i).Is(")")) name += T(i).text;
      }
      std::string alias = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
      bool renamed = i + 1 < e && T(i).Is("as");
      if (renamed) {
        alias = T(i + 1).text;
        i += 2;
      } else if (from.empty()) {
        alias = name;  // import os.path binds "os", which needs no alias
      }
      std::string full = from.empty() ? name : from + "." + name;
      if (!name.empty() && alias != full) u_.aliases[alias] = full;
      while (i < e && !T(i).Is(",")) ++i;
      ++i;
    }
  }

  Unit& u_;
  Function file_;
};

}  // namespace

void BuildPython(Unit* u) { PyBuilder(u).Run(); }

Unit BuildUnit(std::string path, Lang lang, std::string_view text) {
  Unit u;
  u.path = std::move(path);
  u.lang = lang;
  u.toks = Tokenize(lang, text);
  if (lang == Lang::kPython) {
    BuildPython(&u);
  } else if (IsFortran(lang)) {
    BuildFortran(&u);
  } else {
    BuildC(&u);
  }
  return u;
}

}  // namespace bb::modeselect::scan
