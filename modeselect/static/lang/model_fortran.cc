// The Fortran front end: program units (program, subroutine, function), do loops (block,
// labelled, do while), if blocks and one-line ifs, and the declarations that give sizes,
// character variables and parameters.
#include "modeselect/static/lang/model.h"
#include "modeselect/static/text.h"

namespace bb::modeselect::scan {
namespace {

struct Frame {
  enum Kind { kDo, kIf, kOther } kind = kOther;
  int loop = -1;         // kDo: index into Function::loops
  std::string label;     // labelled do: the label that ends it
  Guard guard;           // kIf: the condition of the branch being read
  bool guarded = false;  // kIf: `guard` applies
};

Frame MakeFrame(Frame::Kind k) {
  Frame f;
  f.kind = k;
  return f;
}

bool IsTypeKeyword(std::string_view w) {
  return w == "integer" || w == "real" || w == "double" || w == "character" || w == "logical" || w == "complex" ||
         w == "type" || w == "class";
}

class FortranBuilder {
 public:
  explicit FortranBuilder(Unit* u) : u_(*u) {}

  void Run() {
    int n = u_.ntoks();
    for (int b = 0; b < n;) {
      int e = b;
      while (e < n && u_.tok(e).kind != TokKind::kNewline) ++e;
      if (e > b && u_.tok(b).kind != TokKind::kPreproc) Statement(b, e);
      b = e + 1;
      while (b < n && u_.tok(b).kind == TokKind::kPreproc) ++b;
    }
    Finish();
  }

 private:
  const Token& T(int i) const { return u_.tok(i); }
  Function* F() { return &current_; }

  void Finish() {
    if (!current_.stmts.empty() || !current_.name.empty()) u_.functions.push_back(std::move(current_));
    current_ = Function{};
    frames_.clear();
  }

  std::vector<int> Loops() const {
    std::vector<int> out;
    for (const Frame& f : frames_) {
      if (f.kind == Frame::kDo) out.push_back(f.loop);
    }
    return out;
  }
  std::vector<Guard> Guards() const {
    std::vector<Guard> out;
    for (const Frame& f : frames_) {
      if (f.kind == Frame::kIf && f.guarded) out.push_back(f.guard);
    }
    return out;
  }

  void Statement(int b, int e) {
    std::string label;
    if (T(b).kind == TokKind::kNumber) label = T(b++).text;
    if (b + 1 < e && T(b).kind == TokKind::kIdent && T(b + 1).Is(":")) b += 2;  // construct name
    if (b >= e) return EndLabel(label);
    const std::string& w = T(b).text;
    std::string w2 = b + 1 < e ? T(b + 1).text : "";
    if (w == "interface" || (w == "abstract" && w2 == "interface")) ++interface_;
    if (interface_ > 0) {
      if ((w == "end" && w2 == "interface") || w == "endinterface") --interface_;
      return;
    }
    if (ProgramUnit(b, e) || End(b, e)) return EndLabel(label);
    if (w == "do") {
      Do(b, e, label);
    } else if (w == "if" && b + 1 < e && T(b + 1).Is("(")) {
      If(b, e);
    } else if ((w == "else" && w2 == "if") || w == "elseif") {
      ElseIf(b + (w == "else" ? 1 : 0), e);
    } else if (w == "else") {
      if (!frames_.empty() && frames_.back().kind == Frame::kIf) frames_.back().guard.negated = true;
    } else if (w == "select" || ((w == "where" || w == "forall") && T(e - 1).Is(")"))) {
      frames_.push_back(MakeFrame(Frame::kOther));
    } else if (IsTypeKeyword(w) || w == "parameter" || w == "dimension") {
      Declaration(b, e);
    } else if (w != "use" && w != "implicit" && w != "contains" && w != "include" && w != "case" && w != "module" &&
               w != "format") {
      AddStmt(u_, F(), {b, e}, Loops(), Guards());
    }
    EndLabel(label);
  }

  // program/subroutine/function headers; true when the statement was one.
  bool ProgramUnit(int b, int e) {
    if (T(b).Is("program")) {
      Finish();
      current_.line = T(b).line;
      return true;
    }
    if (T(b).Is("end")) return false;
    // Prefixes come first: recursive, pure, a type (character(len=64) function f(r)).
    for (int i = b; i < e && !T(i).Is("::") && !T(i).Is("="); ++i) {
      if (T(i).Is("(")) i = MatchClose(u_, i, e);
      if (i >= e || !(T(i).Is("subroutine") || T(i).Is("function"))) continue;
      if (i > b && T(i - 1).Is("module") && i + 1 < e && T(i + 1).Is("procedure")) return false;
      if (i + 1 >= e || T(i + 1).kind != TokKind::kIdent) return false;
      Finish();
      current_.name = T(i + 1).text;
      current_.line = T(i).line;
      if (T(i).Is("function")) FunctionResult(b, i, e);
      if (i + 2 < e && T(i + 2).Is("(")) {
        int close = MatchClose(u_, i + 2, e);
        for (int k = i + 3; k < close; ++k) {
          if (T(k).kind != TokKind::kIdent) continue;
          current_.params.push_back(T(k).text);
          current_.by_ref.push_back(true);  // dummy arguments are the caller's variables
        }
      }
      return true;
    }
    return false;
  }

  // The variable a function's value is left in: its name, or the one of result(x). A character
  // function's name is a character variable an internal write can fill.
  void FunctionResult(int b, int at, int e) {
    current_.result = current_.name;
    if (T(b).Is("character")) u_.char_vars.insert(current_.name);
    int open = at + 2;
    int close = open < e && T(open).Is("(") ? MatchClose(u_, open, e) : at + 1;
    if (close + 3 < e && T(close + 1).Is("result") && T(close + 2).Is("(") && T(close + 3).kind == TokKind::kIdent)
      current_.result = T(close + 3).text;
  }

  bool End(int b, int e) {
    const std::string& w = T(b).text;
    std::string what = w.size() > 3 && w.rfind("end", 0) == 0 ? w.substr(3)
                       : (w == "end" && b + 1 < e)            ? T(b + 1).text
                                                              : "";
    if (w != "end" && what.empty()) return false;
    if (what == "do" || what == "if" || what == "select" || what == "where" || what == "forall") {
      Frame::Kind k = what == "do" ? Frame::kDo : what == "if" ? Frame::kIf : Frame::kOther;
      for (size_t i = frames_.size(); i > 0; --i) {
        if (frames_[i - 1].kind == k && frames_[i - 1].label.empty()) {
          frames_.erase(frames_.begin() + static_cast<long>(i - 1), frames_.end());
          break;
        }
      }
      return true;
    }
    if (what.empty() || what == "subroutine" || what == "function" || what == "program") {
      Finish();
      return true;
    }
    return what == "module" || what == "type" || what == "associate" || what == "block";
  }

  void EndLabel(const std::string& label) {
    if (label.empty()) return;
    while (!frames_.empty() && frames_.back().kind == Frame::kDo && frames_.back().label == label) frames_.pop_back();
  }

  void Do(int b, int e, const std::string& /*label*/) {
    Frame fr = MakeFrame(Frame::kDo);
    int i = b + 1;
    if (i < e && T(i).kind == TokKind::kNumber) fr.label = T(i++).text;
    if (i < e && T(i).Is(",")) ++i;
    Loop l;
    l.line = T(b).line;
    if (i + 1 < e && T(i).kind == TokKind::kIdent && T(i + 1).Is("=")) {
      l.var = T(i).text;
      l.inclusive = true;
      std::vector<int> commas;
      int depth = 0;
      for (int k = i + 2; k < e; ++k) {
        if (T(k).Is("(")) ++depth;
        if (T(k).Is(")")) --depth;
        if (depth == 0 && T(k).Is(",")) commas.push_back(k);
      }
      if (!commas.empty()) {
        l.lo = {i + 2, commas[0]};
        l.hi = {commas[0] + 1, commas.size() > 1 ? commas[1] : e};
        if (commas.size() > 1) l.step = {commas[1] + 1, e};
        if (!l.step.empty() && T(l.step.begin).Is("-")) l.down = true;
      }
    }
    fr.loop = static_cast<int>(current_.loops.size());
    current_.loops.push_back(l);
    frames_.push_back(fr);
    AddStmt(u_, F(), {b + 1, e}, Loops(), Guards()).lhs.clear();
  }

  void If(int b, int e) {
    int close = MatchClose(u_, b + 1, e);
    Guard g{{b + 2, close}, false};
    AddStmt(u_, F(), {b + 2, close}, Loops(), Guards());
    if (close + 1 < e && T(close + 1).Is("then")) {
      Frame fr = MakeFrame(Frame::kIf);
      fr.guard = g;
      fr.guarded = true;
      frames_.push_back(fr);
      return;
    }
    std::vector<Guard> guards = Guards();
    guards.push_back(g);
    if (close + 1 < e) AddStmt(u_, F(), {close + 1, e}, Loops(), guards);  // if (c) stmt
  }

  void ElseIf(int b, int e) {
    if (frames_.empty() || frames_.back().kind != Frame::kIf) return;
    if (b + 1 >= e || !T(b + 1).Is("(")) return;
    int close = MatchClose(u_, b + 1, e);
    frames_.back().guard = Guard{{b + 2, close}, false};
    AddStmt(u_, F(), {b + 2, close}, Loops(), Guards());
  }

  // integer, parameter :: n = 100 / character(len=256) :: fname / real(8) :: buf(1024)
  void Declaration(int b, int e) {
    int colons = -1;
    for (int i = b; i < e; ++i) {
      if (T(i).Is("::")) {
        colons = i;
        break;
      }
    }
    bool parameter = T(b).Is("parameter");
    bool character = T(b).Is("character");
    double elem = ElementBytes(b, colons < 0 ? e : colons);
    double dims = 1;  // real, dimension(1024) :: a, b
    for (int i = b; i < colons; ++i) {
      parameter = parameter || T(i).Is("parameter");
      if (T(i).Is("dimension") && i + 1 < colons && T(i + 1).Is("(")) {
        dims = Extent(i + 2, MatchClose(u_, i + 1, colons));
      }
    }
    int first = colons >= 0 ? colons + 1 : b + 1;
    if (T(b).Is("parameter") && first < e && T(first).Is("(")) ++first;
    if (colons < 0 && !parameter) first = SkipTypeSpec(b, e);
    for (int i = first; i < e; ++i) {
      if (T(i).kind != TokKind::kIdent) continue;
      std::string name = T(i).text;
      int next = i + 1;
      double count = dims;
      if (next < e && T(next).Is("(")) {
        int close = MatchClose(u_, next, e);
        count = Extent(next + 1, close);
        next = close + 1;
      }
      if (character) u_.char_vars.insert(name);
      if (elem > 0 && count > 0) u_.var_bytes[name] = elem * count;
      if (next < e && T(next).Is("=")) {
        int end = next + 1;
        for (int depth = 0; end < e && !(depth == 0 && (T(end).Is(",") || T(end).Is(")"))); ++end) {
          if (T(end).Is("(")) ++depth;
          if (T(end).Is(")")) --depth;
        }
        if (parameter) {
          if (std::optional<double> v = ConstEval(u_, {next + 1, end})) u_.constants[name] = *v;
        }
        next = end;
      }
      i = next;
    }
  }

  int SkipTypeSpec(int b, int e) {
    int i = b + 1;
    if (T(b).Is("double") && i < e && T(i).Is("precision")) ++i;
    if (i < e && T(i).Is("(")) i = MatchClose(u_, i, e) + 1;
    if (i < e && T(i).Is("*")) i += 2;
    return i;
  }

  double ElementBytes(int b, int e) {
    const std::string& w = T(b).text;
    if (w == "double") return 8;
    if (w == "character") {
      for (int i = b; i < e; ++i) {
        if (T(i).kind == TokKind::kNumber) return ParseNumber(u_.lang, T(i).text).value_or(1);
        if (T(i).kind == TokKind::kIdent && u_.constants.count(T(i).text)) return u_.constants[T(i).text];
      }
      return 1;
    }
    double base = w == "integer" || w == "real" || w == "logical" ? 4 : w == "complex" ? 8 : 0;
    for (int i = b + 1; i < e && i < b + 6; ++i) {
      if (T(i).kind == TokKind::kNumber) {
        double k = ParseNumber(u_.lang, T(i).text).value_or(0);
        return w == "complex" ? 2 * k : k;
      }
      if (T(i).Is(",")) break;
    }
    return base;
  }

  // The element count of "(n)", "(n, m)", "(0:n-1)"; 0 when not constant.
  double Extent(int b, int e) {
    double count = 1;
    int start = b;
    for (int i = b; i <= e; ++i) {
      if (i < e && !T(i).Is(",")) continue;
      int colon = -1;
      for (int k = start; k < i; ++k) {
        if (T(k).Is(":")) colon = k;
      }
      std::optional<double> n;
      if (colon < 0) {
        n = ConstEval(u_, {start, i});
      } else {
        std::optional<double> lo = ConstEval(u_, {start, colon}), hi = ConstEval(u_, {colon + 1, i});
        if (lo && hi) n = *hi - *lo + 1;
      }
      if (!n || *n <= 0) return 0;
      count *= *n;
      start = i + 1;
    }
    return count;
  }

  Unit& u_;
  Function current_;
  std::vector<Frame> frames_;
  int interface_ = 0;
};

}  // namespace

void BuildFortran(Unit* u) { FortranBuilder(u).Run(); }

}  // namespace bb::modeselect::scan
