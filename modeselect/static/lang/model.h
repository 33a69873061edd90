// The source model the scanner works on: one Unit per source file, holding its tokens and its
// functions, each function a flat list of statements in execution order, every statement with
// the calls it makes, the assignment it is (if any), and its context: the loops around it and
// the if-conditions it is guarded by. Language front ends (model_c.cc, model_fortran.cc,
// model_python.cc) build it; the scanner (scan_*.cc) never looks at a language's syntax again
// except through the calls and spans recorded here. Private to modeselect/static/.
//
// Thread-safety: value types; building is a pure function of the text.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "modeselect/static/lang/tokenize.h"

namespace bb::modeselect::scan {

// Tokens [begin, end) of a Unit.
struct Span {
  int begin = 0;
  int end = 0;
  bool empty() const { return end <= begin; }
  int size() const { return end > begin ? end - begin : 0; }
};

struct Arg {
  std::string keyword;  // Python/Fortran keyword argument name, "" when positional
  Span span;
};

struct Call {
  std::string name;      // as written, qualifiers joined: "os.path.join", "std::to_string"
  std::string base;      // the last component: "join"
  std::string object;    // the receiver: "f" in f.write(...), "()" after a call, "" for none
  std::string declares;  // C++ `std::ofstream out(name)`: the variable the constructor makes
  std::vector<Arg> args;
  Span tail;  // Fortran I/O statements: the output/input list after the control list
  int name_token = 0;
  int line = 0;

  // The positional argument `i`, or the keyword argument `kw` (when not empty), or nullptr.
  const Arg* Get(int i, std::string_view kw = {}) const;
};

struct Guard {
  Span cond;
  bool negated = false;  // the else branch of `cond`
};

struct Loop {
  int line = 0;
  std::string var;         // the loop variable, "" when none
  Span lo, hi, step;       // counted loops: first value, limit, step ("" = 1)
  bool inclusive = false;  // the limit itself is run (C <=, Fortran do)
  bool down = false;       // counts down (C i--, a negative Fortran step)
  Span iterable;           // Python for/C++ range-for: what is iterated
};

struct Stmt {
  Span span;
  int line = 0;
  std::vector<Call> calls;
  std::string lhs;  // the assigned variable ("x", "self.rank"), "" when not an assignment
  Span rhs;
  bool augmented = false;  // +=, |=, <<= ...
  std::vector<int> loops;  // indices into Function::loops, outermost first
  std::vector<Guard> guards;
};

struct Function {
  std::string name;  // "" for file scope (Python module code, a Fortran main program)
  int line = 0;
  std::vector<std::string> params;
  // Per parameter: the caller's variable itself is what the function writes through it (C and
  // C++ pointers, arrays and references; every Fortran dummy); Python has none (empty).
  std::vector<bool> by_ref;
  std::string result;  // Fortran functions: the variable holding the value (the name, or result(x))
  std::vector<Loop> loops;
  std::vector<Stmt> stmts;
};

struct Unit {
  std::string path;
  Lang lang = Lang::kC;
  std::vector<Token> toks;
  std::vector<Function> functions;
  std::map<std::string, double> constants;          // #define N 100, const/parameter/module N
  std::map<std::string, double> var_bytes;          // declared sizes: char buf[4096] -> 4096
  std::set<std::string> char_vars;                  // Fortran character variables
  std::map<std::string, std::string> aliases;       // Python: "np" -> "numpy"
  std::map<std::string, std::string> stream_types;  // C++: "out" -> "ofstream"

  const Token& tok(int i) const { return toks[static_cast<size_t>(i)]; }
  int ntoks() const { return static_cast<int>(toks.size()); }
};

// Builds the model of one source file.
Unit BuildUnit(std::string path, Lang lang, std::string_view text);

// Front ends (what BuildUnit dispatches to; `u->toks` is filled).
void BuildC(Unit* u);
void BuildFortran(Unit* u);
void BuildPython(Unit* u);

// Shared by the front ends (model_common.cc).
// The index of the bracket closing the one at `open`, or `limit` when there is none before it.
int MatchClose(const Unit& u, int open, int limit);
// The calls in `span`, outer before inner, in source order.
std::vector<Call> FindCalls(const Unit& u, Span span);
// Fills lhs/rhs/augmented of `s` when its span is an assignment.
void FindAssignment(const Unit& u, Stmt* s);
// Appends a statement for `span` with context (loops, guards) to `f`.
Stmt& AddStmt(const Unit& u, Function* f, Span span, const std::vector<int>& loops, const std::vector<Guard>& guards);

// The value of a constant expression in `span`: numbers, + - * / % << >> ** and parentheses,
// casts, sizeof(type or variable), names through `lookup` (then Unit::constants).
using NameValue = std::function<std::optional<double>(std::string_view)>;
std::optional<double> ConstEval(const Unit& u, Span span, const NameValue& lookup = nullptr);
// A numeric literal of `lang` ("0x10", "4096UL", "1.0d3", "1_000") or nullopt.
std::optional<double> ParseNumber(Lang lang, std::string_view text);
// sizeof a C type or Fortran type spelled as one string ("int", "unsigned long", "double"), or 0.
double TypeBytes(std::string_view type);

}  // namespace bb::modeselect::scan
