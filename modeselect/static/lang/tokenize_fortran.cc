#include <cctype>
#include <cstring>

#include "modeselect/static/lang/tokenize.h"
#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

// One Fortran statement after its continuation lines are joined; lines[i] is the source line
// of text[i].
struct Logical {
  std::string text;
  std::vector<int> lines;

  void Append(std::string_view s, int line) {
    text.append(s);
    lines.insert(lines.end(), s.size(), line);
  }
  void Clear() {
    text.clear();
    lines.clear();
  }
};

// `line` without its '!' comment (quotes respected).
std::string_view StripComment(std::string_view line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '!') {
      return line.substr(0, i);
    }
  }
  return line;
}

bool IsDottedOp(std::string_view s, size_t i, size_t* end) {
  // ".eq.", ".and.", ".true." ...: a dot, letters, a dot.
  size_t j = i + 1;
  while (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) ++j;
  if (j == i + 1 || j >= s.size() || s[j] != '.' || j - i > 8) return false;
  *end = j + 1;
  return true;
}

constexpr const char* kPuncts[] = {"::", "=>", "==", "/=", "<=", ">=", "**", "//", "(/", "/)"};

class StatementLexer {
 public:
  StatementLexer(const Logical& l, std::vector<Token>* out) : s_(l.text), l_(l), out_(out) {}

  void Run() {
    bool any = false;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      size_t start = pos_;
      if (std::isspace(static_cast<unsigned char>(c)) || c == '&') {
        ++pos_;
        continue;
      }
      if (c == ';') {
        ++pos_;
        if (any) Emit(TokKind::kNewline, start, "");
        any = false;
        continue;
      }
      any = true;
      size_t end = 0;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80) {
        while (pos_ < s_.size() &&
               (text::IsIdentChar(s_[pos_]) || s_[pos_] == '$' || static_cast<unsigned char>(s_[pos_]) >= 0x80))
          ++pos_;
        Emit(TokKind::kIdent, start, text::Lower(s_.substr(start, pos_ - start)));
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
        Number();
      } else if (c == '.' && IsDottedOp(s_, pos_, &end)) {
        pos_ = end;
        Emit(TokKind::kPunct, start, text::Lower(s_.substr(start, end - start)));
      } else if (c == '\'' || c == '"') {
        String(c);
      } else {
        Punct();
      }
    }
    if (any) Emit(TokKind::kNewline, s_.empty() ? 0 : s_.size() - 1, "");
  }

 private:
  void Emit(TokKind kind, size_t at, std::string text) {
    int line = l_.lines.empty() ? 1 : l_.lines[std::min(at, l_.lines.size() - 1)];
    out_->push_back(Token{kind, 0, line, std::move(text)});
  }

  void Digits() {
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }

  void Number() {
    size_t start = pos_;
    Digits();
    size_t end = 0;
    if (pos_ < s_.size() && s_[pos_] == '.' && !IsDottedOp(s_, pos_, &end)) {
      ++pos_;
      Digits();
    }
    if (pos_ < s_.size() && std::strchr("eEdDqQ", s_[pos_]) != nullptr && s_[pos_] != '\0') {
      size_t k = pos_ + 1;
      if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
      if (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]))) {
        pos_ = k;
        Digits();
      }
    }
    if (pos_ < s_.size() && s_[pos_] == '_') {
      while (pos_ < s_.size() && text::IsIdentChar(s_[pos_])) ++pos_;
    }
    Emit(TokKind::kNumber, start, text::Lower(s_.substr(start, pos_ - start)));
  }

  void String(char quote) {
    size_t start = pos_++;
    std::string body;
    while (pos_ < s_.size()) {
      if (s_[pos_] == quote) {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == quote) {
          body.push_back(quote);  // a doubled quote stands for one
          pos_ += 2;
          continue;
        }
        ++pos_;
        break;
      }
      body.push_back(s_[pos_++]);
    }
    Emit(TokKind::kString, start, std::move(body));
  }

  void Punct() {
    size_t start = pos_;
    for (const char* p : kPuncts) {
      size_t n = std::strlen(p);
      if (s_.compare(pos_, n, p) == 0) {
        pos_ += n;
        return Emit(TokKind::kPunct, start, p);
      }
    }
    ++pos_;
    Emit(TokKind::kPunct, start, std::string(1, s_[start]));
  }

  const std::string& s_;
  const Logical& l_;
  std::vector<Token>* out_;
  size_t pos_ = 0;
};

void Flush(Logical* l, std::vector<Token>* out) {
  if (!l->text.empty()) StatementLexer(*l, out).Run();
  l->Clear();
}

void Preproc(std::string_view line, int n, std::vector<Token>* out) {
  out->push_back(Token{TokKind::kPreproc, 0, n, std::string(text::Trim(line))});
}

void FreeForm(std::string_view text, std::vector<Token>* out) {
  Logical l;
  bool cont = false;
  int n = 0;
  size_t b = 0;
  while (b <= text.size()) {
    size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    std::string_view line = text.substr(b, e - b);
    ++n;
    b = e + 1;
    if (!cont && !text::Trim(line).empty() && text::Trim(line)[0] == '#') {
      Preproc(line, n, out);
      continue;
    }
    std::string_view code = text::Trim(StripComment(line));
    if (code.empty() && cont) continue;  // comment lines may sit between continuations
    bool next = !code.empty() && code.back() == '&';
    if (next) code.remove_suffix(1);
    if (cont && !code.empty() && code[0] == '&') {
      code.remove_prefix(1);
    } else if (cont) {
      l.Append(" ", n);
    }
    l.Append(code, n);
    cont = next;
    if (!cont) Flush(&l, out);
    if (e == text.size()) break;
  }
  Flush(&l, out);
}

void FixedForm(std::string_view text, std::vector<Token>* out) {
  Logical l;
  int n = 0;
  size_t b = 0;
  while (b <= text.size()) {
    size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    std::string_view line = text.substr(b, e - b);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++n;
    b = e + 1;
    bool last = e == text.size();
    if (line.empty() || std::strchr("cC*!dD", line[0]) != nullptr) {
      if (last) break;
      continue;
    }
    if (line[0] == '#') {
      Preproc(line, n, out);
    } else if (line[0] == '\t') {
      bool cont = line.size() > 1 && line[1] >= '1' && line[1] <= '9';
      if (!cont) Flush(&l, out);
      l.Append(" ", n);
      l.Append(StripComment(line.substr(cont ? 2 : 1)), n);
    } else if (line.size() > 5 && line[5] != ' ' && line[5] != '0' && text::Trim(line.substr(0, 5)).empty()) {
      l.Append(StripComment(line.substr(6)), n);  // continuation of the statement before
    } else {
      Flush(&l, out);
      l.Append(text::Trim(line.substr(0, std::min<size_t>(5, line.size()))), n);
      l.Append(" ", n);
      if (line.size() > 6) l.Append(StripComment(line.substr(6)), n);
    }
    if (last) break;
  }
  Flush(&l, out);
}

}  // namespace

std::vector<Token> TokenizeFortran(std::string_view text, bool fixed_form) {
  std::vector<Token> out;
  if (fixed_form) {
    FixedForm(text, &out);
  } else {
    FreeForm(text, &out);
  }
  return out;
}

}  // namespace bb::modeselect
