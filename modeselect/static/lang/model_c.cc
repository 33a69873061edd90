// The C and C++ front end: functions at namespace and class scope, and inside each function a
// recursive descent over statements that keeps the loops and if-conditions around each one.
#include "modeselect/static/lang/model.h"
#include "modeselect/static/text.h"

namespace bb::modeselect::scan {
namespace {

struct Ctx {
  std::vector<int> loops;
  std::vector<Guard> guards;
};

bool IsTypeWord(std::string_view w) {
  static constexpr const char* kWords[] = {
      "const",    "static",  "volatile",   "unsigned", "signed",   "long",    "short",    "int",
      "char",     "double",  "float",      "bool",     "size_t",   "ssize_t", "off_t",    "int8_t",
      "uint8_t",  "int16_t", "uint16_t",   "int32_t",  "uint32_t", "int64_t", "uint64_t", "constexpr",
      "register", "std",     "MPI_Offset", "auto",     "inline",   "extern",  "byte"};
  for (const char* k : kWords) {
    if (w == k) return true;
  }
  return false;
}

Loop LineLoop(int line) {
  Loop l;
  l.line = line;
  return l;
}

class CBuilder {
 public:
  explicit CBuilder(Unit* u) : u_(*u) {}

  void Run() {
    file_scope_.name = "";
    TopLevel(0, u_.ntoks());
    if (!file_scope_.stmts.empty()) u_.functions.push_back(std::move(file_scope_));
  }

 private:
  const Token& T(int i) const { return u_.tok(i); }

  void TopLevel(int begin, int end) {
    int decl = begin;
    for (int i = begin; i < end;) {
      const Token& t = T(i);
      if (t.kind == TokKind::kPreproc) {
        Define(t.text);
        decl = ++i;
      } else if (t.Is(";")) {
        Declaration(&file_scope_, {decl, i}, {});
        decl = ++i;
      } else if (t.Is("(") || t.Is("[")) {
        i = MatchClose(u_, i, end) + 1;
      } else if (t.Is("{")) {
        int close = MatchClose(u_, i, end);
        Braced(decl, i, close);
        decl = i = close + 1;
      } else if (t.Is("}")) {
        decl = ++i;
      } else {
        ++i;
      }
    }
  }

  // A '{' at namespace or class scope: a scope to descend into, a function, or skipped.
  void Braced(int decl, int brace, int close) {
    bool has_eq = false, record = false;
    int name_paren = -1;
    for (int i = decl; i < brace; ++i) {
      const Token& t = T(i);
      if (t.Is("namespace") || (t.Is("extern") && i + 1 < brace && T(i + 1).kind == TokKind::kString)) {
        return TopLevel(brace + 1, close);
      }
      if (t.Is("class") || t.Is("struct") || t.Is("union")) record = true;
      if (t.Is("enum")) return;
      if (t.Is("=") && name_paren < 0) has_eq = true;
      if (t.Is("(") && name_paren < 0 && i > decl && T(i - 1).kind == TokKind::kIdent &&
          T(i - 1).text != "__attribute__" && T(i - 1).text != "alignas") {
        name_paren = i;
      }
      if (t.Is("(") || t.Is("[")) i = MatchClose(u_, i, brace);
    }
    if (record && name_paren < 0) return TopLevel(brace + 1, close);
    if (has_eq || name_paren < 0) return;
    FunctionAt(name_paren, brace, close);
  }

  void FunctionAt(int paren, int brace, int close) {
    Function f;
    f.name = T(paren - 1).text;
    f.line = T(paren - 1).line;
    int pclose = MatchClose(u_, paren, brace);
    int depth = 0, last_ident = -1;
    bool in_default = false, ref = false;
    for (int i = paren + 1; i <= pclose; ++i) {
      const Token& t = T(i);
      bool cut = i == pclose || (depth == 0 && t.Is(","));
      if (cut) {
        if (last_ident >= 0 && T(last_ident).text != "void") {
          f.params.push_back(T(last_ident).text);
          f.by_ref.push_back(ref);
        }
        last_ident = -1;
        in_default = ref = false;
        continue;
      }
      if (depth == 0 && !in_default && (t.Is("*") || t.Is("&") || t.Is("&&") || t.Is("["))) ref = true;
      if (t.Is("(") || t.Is("[") || t.Is("{") || t.Is("<")) ++depth;
      if (t.Is(")") || t.Is("]") || t.Is("}") || t.Is(">")) --depth;
      if (t.Is("=") && depth == 0) in_default = true;
      if (t.kind == TokKind::kIdent && depth == 0 && !in_default) last_ident = i;
    }
    Block(&f, brace + 1, close, Ctx{});
    u_.functions.push_back(std::move(f));
  }

  void Block(Function* f, int begin, int end, const Ctx& ctx) {
    for (int i = begin; i < end;) {
      int next = Statement(f, i, end, ctx);
      i = next > i ? next : i + 1;
    }
  }

  // Parses the statement at `i`; returns the index after it.
  int Statement(Function* f, int i, int end, const Ctx& ctx) {
    if (i >= end) return end;
    const Token& t = T(i);
    if (t.Is("{")) {
      int close = MatchClose(u_, i, end);
      Block(f, i + 1, close, ctx);
      return close + 1;
    }
    if (t.Is(";")) return i + 1;
    if (t.kind == TokKind::kPreproc) {
      Define(t.text);
      return i + 1;
    }
    bool paren = i + 1 < end && T(i + 1).Is("(");
    if ((t.Is("for") || t.Is("while")) && paren) return LoopStatement(f, i, end, ctx);
    if (t.Is("do")) return DoWhile(f, i, end, ctx);
    if ((t.Is("if") || t.Is("switch")) && i + 1 < end) return IfStatement(f, i, end, ctx);
    if (t.Is("else")) return Statement(f, i + 1, end, ctx);
    if (t.Is("try")) {
      int next = Statement(f, i + 1, end, ctx);
      while (next + 1 < end && T(next).Is("catch") && T(next + 1).Is("(")) {
        next = Statement(f, MatchClose(u_, next + 1, end) + 1, end, ctx);
      }
      return next;
    }
    if ((t.Is("case") || t.Is("default"))) {
      int j = i + 1;
      while (j < end && !T(j).Is(":") && !T(j).Is(";")) ++j;
      return j + 1;
    }
    return Simple(f, i, end, ctx);
  }

  int Simple(Function* f, int i, int end, const Ctx& ctx) {
    int j = i;
    while (j < end && !T(j).Is(";") && !T(j).Is("}")) {
      if (T(j).Is("(") || T(j).Is("[") || T(j).Is("{")) {
        j = MatchClose(u_, j, end) + 1;
      } else {
        ++j;
      }
    }
    j = std::min(j, end);
    if (j > i) Declaration(f, {i, j}, ctx);
    return j < end && T(j).Is(";") ? j + 1 : std::max(j, i + 1);
  }

  int LoopStatement(Function* f, int i, int end, const Ctx& ctx) {
    int open = i + 1, close = MatchClose(u_, open, end);
    Ctx inner = ctx;
    inner.loops.push_back(static_cast<int>(f->loops.size()));
    f->loops.push_back(T(i).Is("for") ? ForLoop(open + 1, close) : LineLoop(T(i).line));
    Stmt& h = AddStmt(u_, f, {open + 1, close}, inner.loops, inner.guards);
    h.lhs.clear();
    return Statement(f, close + 1, end, inner);
  }

  int DoWhile(Function* f, int i, int end, const Ctx& ctx) {
    Ctx inner = ctx;
    inner.loops.push_back(static_cast<int>(f->loops.size()));
    f->loops.push_back(LineLoop(T(i).line));
    int next = Statement(f, i + 1, end, inner);
    if (next + 1 < end && T(next).Is("while") && T(next + 1).Is("(")) {
      int close = MatchClose(u_, next + 1, end);
      AddStmt(u_, f, {next + 2, close}, inner.loops, inner.guards).lhs.clear();
      next = close + 1;
      if (next < end && T(next).Is(";")) ++next;
    }
    return next;
  }

  int IfStatement(Function* f, int i, int end, const Ctx& ctx) {
    int open = i + 1;
    if (T(open).Is("constexpr") && open + 1 < end) ++open;
    if (!T(open).Is("(")) return Simple(f, i, end, ctx);
    int close = MatchClose(u_, open, end);
    AddStmt(u_, f, {open + 1, close}, ctx.loops, ctx.guards);
    Ctx then = ctx, other = ctx;
    if (T(i).Is("if")) {
      then.guards.push_back(Guard{{open + 1, close}, false});
      other.guards.push_back(Guard{{open + 1, close}, true});
    }
    int next = Statement(f, close + 1, end, then);
    if (next < end && T(next).Is("else")) next = Statement(f, next + 1, end, other);
    return next;
  }

  // for (init; cond; step) or for (decl : range).
  Loop ForLoop(int begin, int end) {
    Loop l;
    l.line = T(begin > 0 ? begin - 1 : 0).line;
    std::vector<int> semis;
    int colon = -1;
    for (int i = begin; i < end; ++i) {
      if (T(i).Is("(") || T(i).Is("[") || T(i).Is("{"))
        i = MatchClose(u_, i, end);
      else if (T(i).Is(";"))
        semis.push_back(i);
      else if (T(i).Is(":") && colon < 0)
        colon = i;
    }
    if (semis.size() != 2) {
      if (colon > begin && T(colon - 1).kind == TokKind::kIdent) l.var = T(colon - 1).text;
      if (colon >= 0) l.iterable = {colon + 1, end};
      return l;
    }
    for (int i = begin; i < semis[0]; ++i) {
      if (T(i).Is("=") && i > begin && T(i - 1).kind == TokKind::kIdent) {
        l.var = T(i - 1).text;
        int e = i + 1;
        while (e < semis[0] && !T(e).Is(",")) ++e;
        l.lo = {i + 1, e};
        break;
      }
    }
    Condition(&l, semis[0] + 1, semis[1]);
    Increment(&l, semis[1] + 1, end);
    return l;
  }

  void Condition(Loop* l, int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const std::string& op = T(i).text;
      if (T(i).kind != TokKind::kPunct || (op != "<" && op != "<=" && op != ">" && op != ">=" && op != "!=")) continue;
      bool var_left = i - 1 == begin && T(begin).text == l->var;
      if (var_left) {
        l->hi = {i + 1, end};
        l->inclusive = op == "<=" || op == ">=";
        l->down = op == ">" || op == ">=";
      } else if (i + 2 == end && T(i + 1).text == l->var) {
        l->hi = {begin, i};
        l->inclusive = op == "<=" || op == ">=";
        l->down = op == "<" || op == "<=";
      }
      return;
    }
  }

  void Increment(Loop* l, int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const std::string& op = T(i).text;
      if (op == "--" || op == "-=") l->down = true;
      if ((op == "+=" || op == "-=") && T(i).kind == TokKind::kPunct) l->step = {i + 1, end};
      if ((op == "*=" || op == "/=" || op == "<<=" || op == ">>=") && T(i).kind == TokKind::kPunct)
        l->hi = {};  // geometric: the count is not (hi - lo) / step
    }
  }

  void Define(const std::string& directive) {
    std::string_view d = directive;
    if (d.rfind("#define ", 0) != 0 && d.rfind("# define ", 0) != 0) return;
    d.remove_prefix(d.find("define") + 7);
    size_t sp = d.find(' ');
    if (sp == std::string_view::npos) return;
    std::string name(d.substr(0, sp));
    if (name.find('(') != std::string::npos) return;  // a function-like macro
    Unit tmp;
    tmp.lang = u_.lang;
    tmp.toks = TokenizeC(d.substr(sp + 1));
    tmp.constants = u_.constants;
    if (std::optional<double> v = ConstEval(tmp, {0, tmp.ntoks()})) u_.constants[name] = *v;
  }

  // A declaration or expression statement: records constants, sizes and streams it declares.
  void Declaration(Function* f, Span s, const Ctx& ctx) {
    Stmt& st = AddStmt(u_, f, s, ctx.loops, ctx.guards);
    std::string type;
    bool is_const = false;
    int i = s.begin;
    for (; i < s.end && T(i).kind == TokKind::kIdent && IsTypeWord(T(i).text); ++i) {
      if (T(i).text == "const" || T(i).text == "constexpr")
        is_const = true;
      else if (T(i).text != "static" && T(i).text != "std" && T(i).text != "register" && T(i).text != "inline" &&
               T(i).text != "extern" && T(i).text != "volatile")
        type += (type.empty() ? "" : " ") + T(i).text;
      if (i + 1 < s.end && T(i + 1).Is("::")) ++i;
    }
    if (is_const && !st.lhs.empty()) {
      if (std::optional<double> v = ConstEval(u_, st.rhs)) u_.constants[st.lhs] = *v;
    }
    for (int k = s.begin; k + 1 < s.end; ++k) {
      const std::string& w = T(k).text;
      if ((w == "ofstream" || w == "ifstream" || w == "fstream") && T(k + 1).kind == TokKind::kIdent)
        u_.stream_types[T(k + 1).text] = w;
    }
    double elem = TypeBytes(type);
    if (elem <= 0) return;
    // Each declarator: char path[512], rec[RECORD], *p;
    while (i < s.end) {
      i = Declarator(i, s.end, elem);
      int depth = 0;
      for (; i < s.end && !(depth == 0 && T(i).Is(",")); ++i) {
        if (T(i).Is("(") || T(i).Is("[") || T(i).Is("{")) ++depth;
        if (T(i).Is(")") || T(i).Is("]") || T(i).Is("}")) --depth;
      }
      ++i;
    }
  }

  // Records the size of the declarator at `i`; returns the index after its name and extents.
  int Declarator(int i, int end, double elem) {
    bool pointer = false;
    while (i < end && (T(i).Is("*") || T(i).Is("&"))) {
      pointer = true;
      ++i;
    }
    if (i >= end || T(i).kind != TokKind::kIdent) return i;
    std::string name = T(i).text;
    double bytes = pointer ? 8 : elem;
    int k = i + 1;
    while (k < end && T(k).Is("[")) {
      int close = MatchClose(u_, k, end);
      std::optional<double> n = ConstEval(u_, {k + 1, close});
      if (!n) return close + 1;
      bytes *= *n;
      k = close + 1;
    }
    u_.var_bytes[name] = bytes;
    return k;
  }

  Unit& u_;
  Function file_scope_;
};

}  // namespace

void BuildC(Unit* u) { CBuilder(u).Run(); }

}  // namespace bb::modeselect::scan
