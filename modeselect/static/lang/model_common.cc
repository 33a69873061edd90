#include <cmath>
#include <cstdlib>
#include <cstring>

#include "modeselect/static/lang/model.h"
#include "modeselect/static/text.h"

namespace bb::modeselect::scan {
namespace {

bool InList(std::string_view w, std::initializer_list<const char*> list) {
  for (const char* s : list) {
    if (w == s) return true;
  }
  return false;
}

// Names followed by '(' that are not calls.
bool NotACall(Lang lang, std::string_view w) {
  if (IsFortran(lang)) {
    return InList(w, {"if",        "elseif",  "while",     "select",   "case",        "where",     "forall",
                      "real",      "integer", "character", "logical",  "complex",     "type",      "class",
                      "dimension", "intent",  "kind",      "len",      "allocatable", "parameter", "double",
                      "procedure", "bind",    "result",    "function", "subroutine",  "program",   "module",
                      "interface", "format",  "common",    "data",     "then"});
  }
  if (lang == Lang::kPython) {
    return InList(w, {"if",     "elif",   "while",  "for",    "in",    "not",   "and",    "or",
                      "return", "lambda", "yield",  "assert", "del",   "with",  "except", "is",
                      "def",    "class",  "import", "from",   "await", "raise", "global", "nonlocal"});
  }
  return InList(w, {"if",    "for",     "while",         "switch",        "return",  "sizeof",   "alignof", "decltype",
                    "catch", "defined", "__attribute__", "static_assert", "typeid",  "noexcept", "alignas", "do",
                    "else",  "case",    "throw",         "__declspec",    "_Pragma", "operator", "new",     "delete"});
}

bool IsQualifier(const Token& t) {
  return t.kind == TokKind::kPunct && (t.text == "." || t.text == "->" || t.text == "::" || t.text == "%");
}

bool IsOpen(const Token& t) { return t.kind == TokKind::kPunct && (t.text == "(" || t.text == "[" || t.text == "{"); }
bool IsCloseFor(const Token& open, const Token& t) {
  if (t.kind != TokKind::kPunct) return false;
  return (open.text == "(" && t.text == ")") || (open.text == "[" && t.text == "]") ||
         (open.text == "{" && t.text == "}");
}

void SplitArgs(const Unit& u, int begin, int end, Call* c) {
  if (begin >= end) return;  // f()
  int depth = 0, start = begin;
  for (int i = begin; i <= end; ++i) {
    bool cut = i == end;
    if (!cut) {
      const Token& t = u.tok(i);
      if (IsOpen(t)) ++depth;
      if (t.kind == TokKind::kPunct && (t.text == ")" || t.text == "]" || t.text == "}")) --depth;
      cut = depth == 0 && t.Is(",");
    }
    if (!cut) continue;
    Arg a;
    a.span = {start, i};
    if (i - start >= 2 && u.tok(start).kind == TokKind::kIdent && u.tok(start + 1).Is("=") &&
        (u.lang == Lang::kPython || IsFortran(u.lang))) {
      a.keyword = u.tok(start).text;
      a.span.begin = start + 2;
    }
    c->args.push_back(a);
    start = i + 1;
  }
}

// The qualified name ending at token `k` ("os.path.join", "std::to_string", "f.write").
void QualifiedName(const Unit& u, int begin, int k, Call* c) {
  int j = k;
  while (j - 2 >= begin && IsQualifier(u.tok(j - 1)) && u.tok(j - 2).kind == TokKind::kIdent) j -= 2;
  std::string name;
  for (int i = j; i <= k; ++i) name += u.tok(i).text;
  c->name = name;
  c->base = u.tok(k).text;
  if (j < k) {
    c->object = name.substr(0, name.size() - c->base.size() - u.tok(k - 1).text.size());
  } else if (k - 1 >= begin && IsQualifier(u.tok(k - 1)) && k - 2 >= begin &&
             (u.tok(k - 2).Is(")") || u.tok(k - 2).Is("]"))) {
    c->object = "()";
  }
  if (u.lang == Lang::kCpp && j == k && j - 1 >= begin && u.tok(j - 1).kind == TokKind::kIdent) {
    const std::string& type = u.tok(j - 1).text;
    if (type == "ofstream" || type == "ifstream" || type == "fstream") {
      c->declares = c->base;  // std::ofstream out(name): the constructor is the open
      c->name = c->base = type;
    }
  }
}

bool IsFortranIoStatement(std::string_view w) {
  return InList(w, {"open", "close", "write", "read", "inquire", "flush", "print", "rewind", "backspace", "endfile"});
}

}  // namespace

const Arg* Call::Get(int i, std::string_view kw) const {
  if (!kw.empty()) {
    for (const Arg& a : args) {
      if (a.keyword == kw) return &a;
    }
  }
  int n = 0;
  for (const Arg& a : args) {
    if (!a.keyword.empty()) continue;
    if (n++ == i) return &a;
  }
  return nullptr;
}

int MatchClose(const Unit& u, int open, int limit) {
  if (open >= limit || !IsOpen(u.tok(open))) return limit;
  std::vector<const Token*> stack{&u.tok(open)};
  for (int i = open + 1; i < limit; ++i) {
    const Token& t = u.tok(i);
    if (IsOpen(t)) {
      stack.push_back(&t);
    } else if (t.kind == TokKind::kPunct && (t.text == ")" || t.text == "]" || t.text == "}")) {
      if (!IsCloseFor(*stack.back(), t)) continue;  // tolerate a stray bracket
      stack.pop_back();
      if (stack.empty()) return i;
    }
  }
  return limit;
}

std::vector<Call> FindCalls(const Unit& u, Span span) {
  std::vector<Call> out;
  bool fortran = IsFortran(u.lang);
  for (int k = span.begin; k < span.end; ++k) {
    const Token& t = u.tok(k);
    if (t.kind != TokKind::kIdent) continue;
    bool paren = k + 1 < span.end && u.tok(k + 1).Is("(");
    bool stmt_start = k == span.begin || (fortran && k == span.begin + 1 && u.tok(span.begin).kind == TokKind::kNumber);
    bool io_stmt = fortran && stmt_start && IsFortranIoStatement(t.text);
    bool fortran_call = fortran && k > span.begin && u.tok(k - 1).Is("call");
    if (!paren && !io_stmt && !fortran_call) continue;
    if (!io_stmt && !fortran_call && NotACall(u.lang, t.text)) continue;
    if (u.lang == Lang::kPython && k > span.begin && u.tok(k - 1).Is("def")) continue;
    Call c;
    c.line = t.line;
    c.name_token = k;
    QualifiedName(u, span.begin, k, &c);
    if (paren) {
      int close = MatchClose(u, k + 1, span.end);
      SplitArgs(u, k + 2, close, &c);
      if (io_stmt) c.tail = {std::min(close + 1, span.end), span.end};
      if (io_stmt && c.tail.begin < c.tail.end && u.tok(c.tail.begin).Is(",")) ++c.tail.begin;
    } else if (io_stmt) {
      c.tail = {k + 1, span.end};  // print *, x  /  read *, x
    }
    out.push_back(std::move(c));
  }
  return out;
}

void FindAssignment(const Unit& u, Stmt* s) {
  int depth = 0, colon = -1;
  for (int i = s->span.begin; i < s->span.end; ++i) {
    const Token& t = u.tok(i);
    if (t.kind != TokKind::kPunct) continue;
    if (IsOpen(t)) ++depth;
    if (t.text == ")" || t.text == "]" || t.text == "}") --depth;
    if (depth != 0) continue;
    if (t.text == ":" && u.lang == Lang::kPython && colon < 0) colon = i;
    bool plain = t.text == "=";
    bool compare =
        t.text == "==" || t.text == "!=" || t.text == "<=" || t.text == ">=" || (IsFortran(u.lang) && t.text == "/=");
    bool aug = t.text.size() >= 2 && t.text.back() == '=' && !compare;
    if (!plain && !aug) continue;
    int j = (colon >= 0 ? colon : i) - 1;
    if (j >= s->span.begin && (u.tok(j).Is("]") || u.tok(j).Is(")"))) {
      int depth2 = 0;
      for (; j >= s->span.begin; --j) {
        if (u.tok(j).Is("]") || u.tok(j).Is(")")) ++depth2;
        if (u.tok(j).Is("[") || u.tok(j).Is("(")) --depth2;
        if (depth2 == 0) break;
      }
      --j;
    }
    if (j < s->span.begin || u.tok(j).kind != TokKind::kIdent) return;
    std::string lhs = u.tok(j).text;
    while (j - 2 >= s->span.begin && IsQualifier(u.tok(j - 1)) && u.tok(j - 2).kind == TokKind::kIdent) {
      lhs = u.tok(j - 2).text + "." + lhs;
      j -= 2;
    }
    s->lhs = lhs;
    s->rhs = {i + 1, s->span.end};
    s->augmented = aug;
    return;
  }
}

Stmt& AddStmt(const Unit& u, Function* f, Span span, const std::vector<int>& loops, const std::vector<Guard>& guards) {
  Stmt s;
  s.span = span;
  s.line = span.begin < u.ntoks() ? u.tok(span.begin).line : 0;
  s.calls = FindCalls(u, span);
  s.loops = loops;
  s.guards = guards;
  FindAssignment(u, &s);
  f->stmts.push_back(std::move(s));
  return f->stmts.back();
}

std::optional<double> ParseNumber(Lang lang, std::string_view text) {
  std::string s;
  for (char c : text) {
    if (c != '_' && c != '\'') s.push_back(c);
  }
  if (IsFortran(lang)) {
    size_t kind = text.find('_');
    if (kind != std::string_view::npos) s = std::string(text.substr(0, kind));
    for (char& c : s) {
      if (c == 'd' || c == 'D' || c == 'q' || c == 'Q') c = 'e';
    }
  }
  bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  while (!s.empty() && std::strchr(hex ? "uUlLzZ" : "uUlLfFzZjJ", s.back()) != nullptr) s.pop_back();
  if (s.empty()) return std::nullopt;
  if (lang == Lang::kPython && s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
    s = "0" + s.substr(2);
  }
  char* end = nullptr;
  bool integral = s.find_first_of(hex ? "pP." : ".eE") == std::string::npos;
  if (lang == Lang::kPython && s.size() > 1 && s[0] == '0' && !hex && integral &&
      s.find_first_not_of('0') != std::string::npos) {
    return std::nullopt;  // Python has no 0644 literals
  }
  double v = integral ? static_cast<double>(std::strtoull(s.c_str(), &end, 0)) : std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

double TypeBytes(std::string_view type) {
  static constexpr std::pair<const char*, double> kTypes[] = {
      {"char", 1},          {"signed char", 1},  {"unsigned char", 1},
      {"bool", 1},          {"int8_t", 1},       {"uint8_t", 1},
      {"std::byte", 1},     {"short", 2},        {"unsigned short", 2},
      {"int16_t", 2},       {"uint16_t", 2},     {"int", 4},
      {"unsigned", 4},      {"unsigned int", 4}, {"float", 4},
      {"int32_t", 4},       {"uint32_t", 4},     {"long", 8},
      {"unsigned long", 8}, {"long long", 8},    {"unsigned long long", 8},
      {"size_t", 8},        {"ssize_t", 8},      {"off_t", 8},
      {"double", 8},        {"int64_t", 8},      {"uint64_t", 8},
      {"long double", 16},  {"MPI_Offset", 8},   {"void*", 8},
      {"char*", 8}};
  for (const auto& [name, bytes] : kTypes) {
    if (type == name) return bytes;
  }
  return 0;
}

}  // namespace bb::modeselect::scan
