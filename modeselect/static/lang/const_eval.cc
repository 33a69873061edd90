// ConstEval: a small recursive-descent evaluator for the constant expressions that size
// records and bound loops: 4096, 1 << 20, 64 * 1024, sizeof(double) * N, (size_t)1 << 16, 2**20.
#include <cmath>

#include "modeselect/static/lang/model.h"

namespace bb::modeselect::scan {
namespace {

class Evaluator {
 public:
  Evaluator(const Unit& u, Span s, const NameValue& lookup) : u_(u), end_(s.end), lookup_(lookup) { pos_ = s.begin; }

  std::optional<double> Run() {
    std::optional<double> v = Shift();
    if (!v || pos_ != end_) return std::nullopt;
    return v;
  }

 private:
  bool Peek(std::string_view p) const { return pos_ < end_ && u_.tok(pos_).Is(p); }
  bool Take(std::string_view p) {
    if (!Peek(p)) return false;
    ++pos_;
    return true;
  }

  std::optional<double> Shift() {
    std::optional<double> v = Additive();
    while (v && (Peek("<<") || Peek(">>"))) {
      bool left = u_.tok(pos_++).text == "<<";
      std::optional<double> r = Additive();
      if (!r || *r < 0 || *r > 62) return std::nullopt;
      v = left ? std::ldexp(*v, static_cast<int>(*r)) : std::floor(std::ldexp(*v, -static_cast<int>(*r)));
    }
    return v;
  }

  std::optional<double> Additive() {
    std::optional<double> v = Multiplicative();
    while (v && (Peek("+") || Peek("-"))) {
      bool plus = u_.tok(pos_++).text == "+";
      std::optional<double> r = Multiplicative();
      if (!r) return std::nullopt;
      v = plus ? *v + *r : *v - *r;
    }
    return v;
  }

  std::optional<double> Multiplicative() {
    std::optional<double> v = Power();
    while (v && (Peek("*") || Peek("/") || Peek("%") || Peek("//"))) {
      std::string op = u_.tok(pos_++).text;
      std::optional<double> r = Power();
      if (!r) return std::nullopt;
      if (op == "*") {
        v = *v * *r;
      } else if (*r == 0) {
        return std::nullopt;
      } else if (op == "%") {
        v = std::fmod(*v, *r);
      } else {
        bool integral = std::floor(*v) == *v && std::floor(*r) == *r;
        v = (op == "//" || integral) ? std::trunc(*v / *r) : *v / *r;
      }
    }
    return v;
  }

  std::optional<double> Power() {
    std::optional<double> v = Unary();
    if (v && Take("**")) {
      std::optional<double> r = Unary();
      if (!r || *r > 64) return std::nullopt;
      return std::pow(*v, *r);
    }
    return v;
  }

  std::optional<double> Unary() {
    if (++depth_ > 64) return std::nullopt;
    std::optional<double> v;
    if (Take("-")) {
      v = Unary();
      if (v) v = -*v;
    } else if (Take("+")) {
      v = Unary();
    } else {
      v = Primary();
    }
    --depth_;
    return v;
  }

  // A C cast "(type)" at pos_: the type's tokens are names and '*' only.
  bool SkipCast() {
    if (!Peek("(") || u_.lang == Lang::kPython || IsFortran(u_.lang)) return false;
    int i = pos_ + 1;
    bool name = false;
    for (; i < end_ && !u_.tok(i).Is(")"); ++i) {
      const Token& t = u_.tok(i);
      if (t.kind == TokKind::kIdent && !u_.constants.count(t.text)) {
        name = true;
      } else if (!t.Is("*") && !t.Is("::")) {
        return false;
      }
    }
    if (!name || i >= end_ || i + 1 >= end_) return false;
    pos_ = i + 1;
    return true;
  }

  std::optional<double> SizeOf() {
    bool paren = Take("(");
    std::string type;
    int first = pos_;
    while (pos_ < end_ && !Peek(")") && (u_.tok(pos_).kind == TokKind::kIdent || Peek("::") || Peek("*"))) {
      if (!type.empty() && u_.tok(pos_).kind == TokKind::kIdent && type.back() != ':') type += ' ';
      type += u_.tok(pos_++).text;
      if (!paren) break;
    }
    if (paren && !Take(")")) return std::nullopt;
    if (type.rfind("std::", 0) == 0 && type != "std::byte") type = type.substr(5);
    if (double b = TypeBytes(type); b > 0) return b;
    if (pos_ - first == 1 || (!paren && !type.empty())) {
      auto it = u_.var_bytes.find(type);
      if (it != u_.var_bytes.end()) return it->second;
    }
    if (type.find('*') != std::string::npos) return 8.0;
    return std::nullopt;
  }

  std::optional<double> Primary() {
    if (pos_ >= end_) return std::nullopt;
    if (SkipCast()) return Unary();
    if (Take("(")) {
      std::optional<double> v = Shift();
      if (!Take(")")) return std::nullopt;
      return v;
    }
    const Token& t = u_.tok(pos_++);
    if (t.kind == TokKind::kNumber) return ParseNumber(u_.lang, t.text);
    if (t.kind != TokKind::kIdent) return std::nullopt;
    if (t.text == "sizeof") return SizeOf();
    if (lookup_) {
      if (std::optional<double> v = lookup_(t.text)) return v;
    }
    auto it = u_.constants.find(t.text);
    if (it != u_.constants.end()) return it->second;
    return std::nullopt;
  }

  const Unit& u_;
  int pos_ = 0;
  int end_;
  int depth_ = 0;
  const NameValue& lookup_;
};

}  // namespace

std::optional<double> ConstEval(const Unit& u, Span span, const NameValue& lookup) {
  if (span.empty() || span.end > u.ntoks()) return std::nullopt;
  return Evaluator(u, span, lookup).Run();
}

}  // namespace bb::modeselect::scan
