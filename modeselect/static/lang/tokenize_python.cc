#include <cctype>
#include <cstring>

#include "modeselect/static/lang/tokenize.h"
#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

constexpr const char* kPuncts[] = {"**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "==", "!=", "<=",
                                   ">=",  "<<",  ">>",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "@="};

class PyLexer {
 public:
  explicit PyLexer(std::string_view s) : s_(s) {}

  std::vector<Token> Run() {
    while (pos_ < s_.size()) {
      if (at_line_start_ && depth_ == 0) {
        Indentation();
        continue;
      }
      Step();
    }
    EndLine();
    while (indents_.size() > 1) {
      indents_.pop_back();
      Emit(TokKind::kDedent, "");
    }
    return std::move(out_);
  }

 private:
  char At(size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  void Emit(TokKind kind, std::string text, uint8_t flags = 0, int line = 0) {
    out_.push_back(Token{kind, flags, line ? line : line_, std::move(text)});
  }

  void EndLine() {
    if (!out_.empty() && out_.back().kind != TokKind::kNewline && out_.back().kind != TokKind::kIndent &&
        out_.back().kind != TokKind::kDedent)
      Emit(TokKind::kNewline, "");
  }

  // Measures the indentation of a logical line; blank and comment-only lines do not count.
  void Indentation() {
    int col = 0;
    size_t p = pos_;
    for (; p < s_.size(); ++p) {
      if (s_[p] == ' ') {
        ++col;
      } else if (s_[p] == '\t') {
        col = (col / 8 + 1) * 8;
      } else if (s_[p] == '\f') {
        col = 0;
      } else {
        break;
      }
    }
    pos_ = p;
    at_line_start_ = false;
    char c = At(p);
    if (p >= s_.size() || c == '\n' || c == '\r' || c == '#') return;
    if (col > indents_.back()) {
      indents_.push_back(col);
      Emit(TokKind::kIndent, "");
    }
    while (col < indents_.back() && indents_.size() > 1) {
      indents_.pop_back();
      Emit(TokKind::kDedent, "");
    }
  }

  void Step() {
    char c = s_[pos_];
    if (c == '\n') {
      ++pos_;
      if (depth_ == 0) {
        EndLine();
        at_line_start_ = true;
      }
      ++line_;
    } else if (c == '\\' && (At(pos_ + 1) == '\n' || (At(pos_ + 1) == '\r' && At(pos_ + 2) == '\n'))) {
      pos_ += At(pos_ + 1) == '\n' ? 2 : 3;
      ++line_;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (c == '#') {
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80) {
      Word();
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && std::isdigit(static_cast<unsigned char>(At(pos_ + 1))))) {
      Number();
    } else if (c == '"' || c == '\'') {
      String(0);
    } else {
      Punct();
    }
  }

  void Word() {
    size_t start = pos_;
    while (pos_ < s_.size() && (text::IsIdentChar(s_[pos_]) || static_cast<unsigned char>(s_[pos_]) >= 0x80)) ++pos_;
    std::string_view w = s_.substr(start, pos_ - start);
    char next = At(pos_);
    if ((next == '"' || next == '\'') && w.size() <= 2) {
      uint8_t flags = 0;
      bool prefix = true;
      for (char ch : w) {
        char l = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (l == 'f')
          flags |= kFString;
        else if (l == 'r')
          flags |= kRawString;
        else if (l == 'b')
          flags |= kBytes;
        else if (l != 'u')
          prefix = false;
      }
      if (prefix) return String(flags);
    }
    Emit(TokKind::kIdent, std::string(w));
  }

  void Number() {
    size_t start = pos_;
    while (pos_ < s_.size()) {
      char ch = s_[pos_];
      if (text::IsIdentChar(ch) || ch == '.') {
        ++pos_;
      } else if ((ch == '+' || ch == '-') && (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E') &&
                 !(s_[start] == '0' && (At(start + 1) == 'x' || At(start + 1) == 'X'))) {
        ++pos_;
      } else {
        break;
      }
    }
    Emit(TokKind::kNumber, std::string(s_.substr(start, pos_ - start)));
  }

  // A string literal whose opening quote is at pos_. In an f-string, text inside {...} may
  // hold nested strings with any quote (Python 3.12), which are skipped whole.
  void String(uint8_t flags) {
    char q = s_[pos_];
    bool triple = At(pos_ + 1) == q && At(pos_ + 2) == q;
    int line = line_;
    pos_ += triple ? 3 : 1;
    size_t b = pos_;
    int braces = 0;
    while (pos_ < s_.size()) {
      char ch = s_[pos_];
      if (ch == '\\') {
        if (At(pos_ + 1) == '\n') ++line_;
        pos_ += 2;
        continue;
      }
      if (ch == '\n') {
        if (!triple && braces == 0) break;
        ++line_;
      }
      if ((flags & kFString) && ch == '{') {
        if (At(pos_ + 1) == '{' && braces == 0) {
          pos_ += 2;
          continue;
        }
        ++braces;
      } else if ((flags & kFString) && ch == '}' && braces > 0) {
        --braces;
      } else if (braces > 0 && (ch == '"' || ch == '\'') && ch != q) {
        size_t end = s_.find(ch, pos_ + 1);
        size_t nl = s_.find('\n', pos_ + 1);
        if (end != std::string_view::npos && (nl == std::string_view::npos || end < nl)) {
          pos_ = end + 1;
          continue;
        }
      } else if (ch == q && (!triple || (At(pos_ + 1) == q && At(pos_ + 2) == q))) {
        break;
      }
      ++pos_;
    }
    size_t e = std::min(pos_, s_.size());
    if (pos_ < s_.size() && s_[pos_] == q) pos_ += triple ? 3 : 1;
    pos_ = std::min(pos_, s_.size());
    Emit(TokKind::kString, std::string(s_.substr(b, e - b)), flags, line);
  }

  void Punct() {
    for (const char* p : kPuncts) {
      size_t n = std::strlen(p);
      if (s_.compare(pos_, n, p) == 0) {
        pos_ += n;
        return Emit(TokKind::kPunct, p);
      }
    }
    char c = s_[pos_++];
    if (c == '(' || c == '[' || c == '{') ++depth_;
    if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
    if (c == '\r') return;
    Emit(TokKind::kPunct, std::string(1, c));
  }

  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1;
  int depth_ = 0;
  bool at_line_start_ = true;
  std::vector<int> indents_{0};
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> TokenizePython(std::string_view text) { return PyLexer(text).Run(); }

}  // namespace bb::modeselect
