#include <cctype>
#include <cstring>

#include "modeselect/static/lang/tokenize.h"
#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

// The text with every backslash-newline removed (translation phase 2), and where they were,
// so tokens still carry the line they start on in the original.
struct Spliced {
  std::string text;
  std::vector<size_t> splices;  // offsets in `text` where a line was joined
};

Spliced RemoveSplices(std::string_view in) {
  Spliced out;
  out.text.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\\' && i + 1 < in.size() && in[i + 1] == '\n') {
      out.splices.push_back(out.text.size());
      ++i;
    } else if (in[i] == '\\' && i + 2 < in.size() && in[i + 1] == '\r' && in[i + 2] == '\n') {
      out.splices.push_back(out.text.size());
      i += 2;
    } else {
      out.text.push_back(in[i]);
    }
  }
  return out;
}

constexpr const char* kPuncts[] = {"<<=", ">>=", "...", "->*", "::", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&",
                                   "||",  "++",  "--",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", "##"};

class CLexer {
 public:
  explicit CLexer(std::string_view text) : sp_(RemoveSplices(text)), s_(sp_.text) {}

  std::vector<Token> Run() {
    while (pos_ < s_.size()) Step();
    return std::move(out_);
  }

 private:
  char At(size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  // The original line of offset `p`; offsets are asked in increasing order.
  int LineOf(size_t p) {
    for (; cursor_ < p && cursor_ < s_.size(); ++cursor_) {
      if (s_[cursor_] == '\n') ++line_;
    }
    while (splice_ < sp_.splices.size() && sp_.splices[splice_] <= p) {
      ++line_;
      ++splice_;
    }
    return line_;
  }

  void Emit(TokKind kind, size_t start, std::string text, uint8_t flags = 0) {
    out_.push_back(Token{kind, flags, LineOf(start), std::move(text)});
  }

  bool AtLineStart(size_t p) const {
    while (p > 0) {
      char c = s_[p - 1];
      if (c == '\n') return true;
      if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') return false;
      --p;
    }
    return true;
  }

  void Step() {
    char c = s_[pos_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (c == '/' && At(pos_ + 1) == '/') {
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    } else if (c == '/' && At(pos_ + 1) == '*') {
      size_t end = s_.find("*/", pos_ + 2);
      pos_ = end == std::string::npos ? s_.size() : end + 2;
    } else if (c == '#' && AtLineStart(pos_)) {
      Preproc();
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
               static_cast<unsigned char>(c) >= 0x80) {
      Ident();
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && std::isdigit(static_cast<unsigned char>(At(pos_ + 1))))) {
      Number();
    } else if (c == '"') {
      Quoted(pos_, pos_, '"', TokKind::kString);
    } else if (c == '\'') {
      Quoted(pos_, pos_, '\'', TokKind::kChar);
    } else {
      Punct();
    }
  }

  void Preproc() {
    size_t start = pos_;
    std::string text;
    bool space = false;
    while (pos_ < s_.size() && s_[pos_] != '\n') {
      if (s_[pos_] == '/' && At(pos_ + 1) == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        break;
      }
      if (s_[pos_] == '/' && At(pos_ + 1) == '*') {
        size_t end = s_.find("*/", pos_ + 2);
        pos_ = end == std::string::npos ? s_.size() : end + 2;
        space = true;
        continue;
      }
      char ch = s_[pos_++];
      if (std::isspace(static_cast<unsigned char>(ch))) {
        space = true;
        continue;
      }
      if (space && !text.empty() && text != "#") text.push_back(' ');
      space = false;
      text.push_back(ch);
    }
    Emit(TokKind::kPreproc, start, std::move(text));
  }

  void Ident() {
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (text::IsIdentChar(s_[pos_]) || s_[pos_] == '$' || static_cast<unsigned char>(s_[pos_]) >= 0x80))
      ++pos_;
    std::string_view word(s_.data() + start, pos_ - start);
    char next = At(pos_);
    bool prefix = word == "L" || word == "u" || word == "U" || word == "u8";
    bool raw_prefix = word == "R" || word == "LR" || word == "uR" || word == "UR" || word == "u8R";
    if (raw_prefix && next == '"') return RawString(start);
    if (prefix && (next == '"' || next == '\'')) {
      size_t q = pos_;
      return Quoted(start, q, next, next == '"' ? TokKind::kString : TokKind::kChar);
    }
    Emit(TokKind::kIdent, start, std::string(word));
  }

  void Number() {
    size_t start = pos_;
    while (pos_ < s_.size()) {
      char ch = s_[pos_];
      if (text::IsIdentChar(ch) || ch == '.') {
        ++pos_;
      } else if (ch == '\'' && text::IsIdentChar(At(pos_ + 1))) {
        ++pos_;  // digit separator 1'000'000
      } else if ((ch == '+' || ch == '-') && std::string_view("eEpP").find(s_[pos_ - 1]) != std::string_view::npos &&
                 !(s_[start] == '0' && (At(start + 1) == 'x' || At(start + 1) == 'X') &&
                   (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E'))) {
        ++pos_;
      } else {
        break;
      }
    }
    std::string num;
    for (size_t i = start; i < pos_; ++i) {
      if (s_[i] != '\'') num.push_back(s_[i]);
    }
    Emit(TokKind::kNumber, start, std::move(num));
  }

  // A "..." or '...' literal whose opening quote is at `q` (its prefix starts at `start`).
  void Quoted(size_t start, size_t q, char quote, TokKind kind) {
    pos_ = q + 1;
    size_t b = pos_;
    while (pos_ < s_.size() && s_[pos_] != quote && s_[pos_] != '\n') {
      pos_ += s_[pos_] == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] != '\n' ? 2 : 1;
    }
    size_t e = std::min(pos_, s_.size());
    if (pos_ < s_.size() && s_[pos_] == quote) ++pos_;
    Emit(kind, start, std::string(s_.substr(b, e - b)));
  }

  // R"delim( ... )delim": no escapes, newlines allowed. Splices inside a raw string are
  // reverted by the standard; this lexer keeps them removed (harmless for the scanner).
  void RawString(size_t start) {
    size_t open = s_.find('(', pos_ + 1);
    size_t nl = s_.find('\n', pos_ + 1);
    if (open == std::string::npos || (nl != std::string::npos && nl < open) || open - pos_ - 1 > 16) {
      return Quoted(start, pos_, '"', TokKind::kString);
    }
    std::string close = ")" + s_.substr(pos_ + 1, open - pos_ - 1) + "\"";
    size_t end = s_.find(close, open + 1);
    size_t stop = end == std::string::npos ? s_.size() : end;
    std::string body = s_.substr(open + 1, stop - open - 1);
    pos_ = end == std::string::npos ? s_.size() : end + close.size();
    Emit(TokKind::kString, start, std::move(body), kRawString);
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

  Spliced sp_;
  const std::string& s_;
  size_t pos_ = 0;
  size_t cursor_ = 0;
  size_t splice_ = 0;
  int line_ = 1;
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> TokenizeC(std::string_view text) { return CLexer(text).Run(); }

std::optional<Lang> LangOfPath(std::string_view path) {
  std::string_view ext = text::Extension(path);
  static constexpr std::pair<const char*, Lang> kExts[] = {{".c", Lang::kC},
                                                           {".h", Lang::kC},
                                                           {".cc", Lang::kCpp},
                                                           {".cpp", Lang::kCpp},
                                                           {".cxx", Lang::kCpp},
                                                           {".C", Lang::kCpp},
                                                           {".c++", Lang::kCpp},
                                                           {".hpp", Lang::kCpp},
                                                           {".hh", Lang::kCpp},
                                                           {".hxx", Lang::kCpp},
                                                           {".f90", Lang::kFortranFree},
                                                           {".F90", Lang::kFortranFree},
                                                           {".f95", Lang::kFortranFree},
                                                           {".F95", Lang::kFortranFree},
                                                           {".f03", Lang::kFortranFree},
                                                           {".F03", Lang::kFortranFree},
                                                           {".f08", Lang::kFortranFree},
                                                           {".F08", Lang::kFortranFree},
                                                           {".f", Lang::kFortranFixed},
                                                           {".F", Lang::kFortranFixed},
                                                           {".for", Lang::kFortranFixed},
                                                           {".f77", Lang::kFortranFixed},
                                                           {".FOR", Lang::kFortranFixed},
                                                           {".py", Lang::kPython}};
  for (const auto& [e, lang] : kExts) {
    if (ext == e) return lang;
  }
  return std::nullopt;
}

bool IsFortran(Lang lang) { return lang == Lang::kFortranFree || lang == Lang::kFortranFixed; }

const char* LangName(Lang lang) {
  switch (lang) {
    case Lang::kC:
      return "c";
    case Lang::kCpp:
      return "c++";
    case Lang::kFortranFree:
      return "fortran";
    case Lang::kFortranFixed:
      return "fortran-fixed";
    case Lang::kPython:
      return "python";
  }
  return "?";
}

std::vector<Token> Tokenize(Lang lang, std::string_view text) {
  switch (lang) {
    case Lang::kC:
    case Lang::kCpp:
      return TokenizeC(text);
    case Lang::kFortranFree:
      return TokenizeFortran(text, false);
    case Lang::kFortranFixed:
      return TokenizeFortran(text, true);
    case Lang::kPython:
      return TokenizePython(text);
  }
  return {};
}

}  // namespace bb::modeselect
