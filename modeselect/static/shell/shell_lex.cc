#include "modeselect/static/shell/shell_lex.h"

#include <cctype>
#include <cstring>

#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

constexpr const char* kOps[] = {";;&", "<<-", "<<<", "&>>", ";;", ";&", "&&", "||", "|&", "<<", ">>", ">&",
                                "<&",  "&>",  ">|",  "<>",  ";",  "&",  "|",  "(",  ")",  "<",  ">"};

bool IsMeta(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' ||
         c == '>' || c == '\r';
}

ShellToken Token(ShellToken::Kind kind, std::string op, int line) {
  ShellToken t;
  t.kind = kind;
  t.op = std::move(op);
  t.line = line;
  return t;
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  std::vector<ShellToken> Run() {
    while (pos_ < s_.size()) Step();
    return std::move(out_);
  }

 private:
  char At(size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  struct PendingDoc {
    size_t token;
    std::string delim;
    bool strip_tabs;
  };

  void Step() {
    char c = s_[pos_];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '\\' && At(pos_ + 1) == '\n') {
      pos_ += 2;
      ++line_;
    } else if (c == '\n') {
      ++pos_;
      out_.push_back(Token(ShellToken::kNewline, "", line_));
      ++line_;
      ReadHereDocs();
    } else if (c == '#') {
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    } else if (c == '(' && At(pos_ + 1) == '(' && CommandStart()) {
      ArithCommand();
    } else if (IsMeta(c) && !(dbracket_ && c != ';' && c != '\n')) {
      Operator();
    } else {
      ReadWord();
    }
  }

  bool CommandStart() const {
    if (out_.empty()) return true;
    const ShellToken& t = out_.back();
    return t.kind == ShellToken::kNewline || (t.kind == ShellToken::kOp && t.op != ")" && t.op != "<" && t.op != ">");
  }

  void Operator() {
    for (const char* op : kOps) {
      size_t n = std::strlen(op);
      if (s_.compare(pos_, n, op) != 0) continue;
      pos_ += n;
      out_.push_back(Token(ShellToken::kOp, op, line_));
      if (std::strcmp(op, "<<") == 0 || std::strcmp(op, "<<-") == 0) heredoc_next_ = out_.size() - 1;
      return;
    }
    ++pos_;
  }

  // (( expression )): one opaque word.
  void ArithCommand() {
    size_t end = s_.find("))", pos_ + 2);
    size_t stop = end == std::string_view::npos ? s_.size() : end + 2;
    Word w;
    w.line = line_;
    w.raw = std::string(s_.substr(pos_, stop - pos_));
    w.parts.push_back(
        WordPart{WordPart::kArith, false, w.raw.substr(2, w.raw.size() >= 4 ? w.raw.size() - 4 : 0), "", ""});
    for (size_t i = pos_; i < stop; ++i) line_ += s_[i] == '\n';
    pos_ = stop;
    Push(std::move(w));
  }

  void Push(Word w) {
    std::string plain = w.Plain();
    if (plain == "[[") dbracket_ = true;
    if (plain == "]]") dbracket_ = false;
    ShellToken t = Token(ShellToken::kWord, "", w.line);
    t.word = std::move(w);
    out_.push_back(std::move(t));
    if (heredoc_next_ != kNone) {
      std::string delim;
      bool quoted = false;
      for (const WordPart& p : out_.back().word.parts) {
        delim += p.kind == WordPart::kLiteral ? p.text : "$" + p.text;
        quoted |= p.quoted;
      }
      pending_.push_back({heredoc_next_, delim, out_[heredoc_next_].op == "<<-"});
      out_[heredoc_next_].body_quoted = quoted;
      heredoc_next_ = kNone;
    }
  }

  void ReadHereDocs() {
    for (const PendingDoc& d : pending_) {
      std::string body;
      out_[d.token].body_line = line_;
      while (pos_ < s_.size()) {
        size_t e = s_.find('\n', pos_);
        if (e == std::string_view::npos) e = s_.size();
        std::string_view l = s_.substr(pos_, e - pos_);
        pos_ = std::min(e + 1, s_.size());
        ++line_;
        if (d.strip_tabs) {
          while (!l.empty() && l[0] == '\t') l.remove_prefix(1);
        }
        std::string_view cmp = l;
        if (!cmp.empty() && cmp.back() == '\r') cmp.remove_suffix(1);
        if (cmp == d.delim) break;
        body.append(l).push_back('\n');
      }
      out_[d.token].body = std::move(body);
    }
    pending_.clear();
  }

  void ReadWord() {
    Word w;
    w.line = line_;
    size_t start = pos_;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == '(' && pos_ > start && s_[pos_ - 1] == '=') {  // an array: a=(x y z)
        size_t end = Matching(pos_ + 1, '(', ')');
        Lit(&w, s_.substr(pos_, std::min(end + 1, s_.size()) - pos_), true);
        Lines(pos_, end);
        pos_ = std::min(end + 1, s_.size());
        continue;
      }
      if (IsMeta(c) && !(dbracket_ && c != ' ' && c != '\t' && c != '\n' && c != ';' && c != '\r')) break;
      if (c == '\'') {
        size_t end = s_.find('\'', pos_ + 1);
        if (end == std::string_view::npos) end = s_.size();
        Lit(&w, s_.substr(pos_ + 1, end - pos_ - 1), true);
        Lines(pos_, end);
        pos_ = std::min(end + 1, s_.size());
      } else if (c == '$' && At(pos_ + 1) == '\'') {
        AnsiC(&w);
      } else if (c == '"') {
        DoubleQuoted(&w);
      } else if (c == '\\') {
        if (At(pos_ + 1) == '\n') {
          pos_ += 2;
          ++line_;
          continue;
        }
        if (pos_ + 1 < s_.size()) Lit(&w, s_.substr(pos_ + 1, 1), true);
        pos_ += 2;
      } else if (c == '$' || c == '`') {
        Dollar(&w, false);
      } else {
        Lit(&w, s_.substr(pos_, 1), false);
        ++pos_;
      }
    }
    pos_ = std::min(pos_, s_.size());
    w.raw = std::string(s_.substr(start, pos_ - start));
    // "2>file": a file descriptor number before a redirection is part of the operator.
    if (!w.raw.empty() && w.raw.size() <= 2 && std::isdigit(static_cast<unsigned char>(w.raw[0])) &&
        (At(pos_) == '>' || At(pos_) == '<') && w.raw.find_first_not_of("0123456789") == std::string::npos)
      return;
    if (w.parts.empty() && pos_ == start) {
      ++pos_;  // a stray byte that starts no token
      return;
    }
    Push(std::move(w));
  }

  void Lines(size_t from, size_t to) {
    for (size_t i = from; i < to && i < s_.size(); ++i) line_ += s_[i] == '\n';
  }

  static void Lit(Word* w, std::string_view text, bool quoted) {
    if (!w->parts.empty() && w->parts.back().kind == WordPart::kLiteral && w->parts.back().quoted == quoted) {
      w->parts.back().text.append(text);
      return;
    }
    w->parts.push_back(WordPart{WordPart::kLiteral, quoted, std::string(text), "", ""});
  }

  void AnsiC(Word* w) {
    pos_ += 2;
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '\'') {
      char c = s_[pos_++];
      if (c == '\n') ++line_;
      if (c != '\\' || pos_ >= s_.size()) {
        out.push_back(c);
        continue;
      }
      char e = s_[pos_++];
      static constexpr std::pair<char, char> kEsc[] = {{'n', '\n'}, {'t', '\t'}, {'r', '\r'},
                                                       {'a', '\a'}, {'0', '\0'}, {'e', 27}};
      char v = e;
      for (auto [k, x] : kEsc) {
        if (e == k) v = x;
      }
      out.push_back(v);
    }
    ++pos_;
    Lit(w, out, true);
  }

  void DoubleQuoted(Word* w) {
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_];
      if (c == '\\' && pos_ + 1 < s_.size() && std::strchr("$`\"\\\n", s_[pos_ + 1]) && s_[pos_ + 1]) {
        if (s_[pos_ + 1] == '\n')
          ++line_;
        else
          Lit(w, s_.substr(pos_ + 1, 1), true);
        pos_ += 2;
      } else if (c == '$' || c == '`') {
        Dollar(w, true);
      } else {
        if (c == '\n') ++line_;
        Lit(w, s_.substr(pos_, 1), true);
        ++pos_;
      }
    }
    ++pos_;
    if (w->parts.empty()) Lit(w, "", true);
  }

  // The end of a bracketed construct opened at `from` (exclusive of the closer), respecting
  // quotes and nesting.
  size_t Matching(size_t from, char open, char close) const {
    int depth = 1;
    for (size_t i = from; i < s_.size(); ++i) {
      char c = s_[i];
      if (c == '\\') {
        ++i;
      } else if (c == '\'' && open != '{') {
        size_t e = s_.find('\'', i + 1);
        if (e == std::string_view::npos) return s_.size();
        i = e;
      } else if (c == '"') {
        for (++i; i < s_.size() && s_[i] != '"'; ++i) i += s_[i] == '\\';
      } else if (c == open) {
        ++depth;
      } else if (c == close && --depth == 0) {
        return i;
      }
    }
    return s_.size();
  }

  void Dollar(Word* w, bool quoted) {
    WordPart p;
    p.quoted = quoted;
    size_t start = pos_;
    if (s_[pos_] == '`') {
      size_t e = pos_ + 1;
      while (e < s_.size() && s_[e] != '`') e += s_[e] == '\\' ? 2 : 1;
      e = std::min(e, s_.size());
      p.kind = WordPart::kCommand;
      p.text = std::string(s_.substr(pos_ + 1, e - pos_ - 1));
      pos_ = std::min(e + 1, s_.size());
    } else if (At(pos_ + 1) == '(' && At(pos_ + 2) == '(') {
      size_t e = s_.find("))", pos_ + 3);
      if (e == std::string_view::npos) e = s_.size();
      p.kind = WordPart::kArith;
      p.text = std::string(s_.substr(pos_ + 3, e - pos_ - 3));
      pos_ = std::min(e + 2, s_.size());
    } else if (At(pos_ + 1) == '(') {
      size_t e = Matching(pos_ + 2, '(', ')');
      p.kind = WordPart::kCommand;
      p.text = std::string(s_.substr(pos_ + 2, e - pos_ - 2));
      pos_ = std::min(e + 1, s_.size());
    } else if (At(pos_ + 1) == '{') {
      size_t e = Matching(pos_ + 2, '{', '}');
      Brace(std::string(s_.substr(pos_ + 2, e - pos_ - 2)), &p);
      pos_ = std::min(e + 1, s_.size());
    } else if (text::IsIdentChar(At(pos_ + 1)) && !std::isdigit(static_cast<unsigned char>(At(pos_ + 1)))) {
      size_t e = pos_ + 1;
      while (e < s_.size() && text::IsIdentChar(s_[e])) ++e;
      p.kind = WordPart::kParam;
      p.text = std::string(s_.substr(pos_ + 1, e - pos_ - 1));
      pos_ = e;
    } else if (At(pos_ + 1) != '\0' && std::strchr("0123456789@*#?$!-", At(pos_ + 1))) {
      p.kind = WordPart::kParam;
      p.text = std::string(1, s_[pos_ + 1]);
      pos_ += 2;
    } else {
      Lit(w, "$", quoted);
      ++pos_;
      return;
    }
    Lines(start, pos_);
    w->parts.push_back(std::move(p));
  }

  // The inside of ${...}: name, operator, argument.
  static void Brace(const std::string& in, WordPart* p) {
    p->kind = WordPart::kParam;
    size_t i = 0;
    if (!in.empty() && in[0] == '#' && in.size() > 1) {
      p->op = "len";
      i = 1;
    }
    size_t b = i;
    while (i < in.size() && (text::IsIdentChar(in[i]) || (i == b && std::strchr("@*#?$!", in[i]) && in[i]))) ++i;
    p->text = in.substr(b, i - b);
    if (p->op == "len") return;
    static constexpr const char* kParamOps[] = {":-", ":=", ":+", ":?", "##", "%%", "//",
                                                "-",  "=",  "+",  "?",  "#",  "%",  "/"};
    for (const char* op : kParamOps) {
      if (in.compare(i, std::strlen(op), op) == 0) {
        p->op = op;
        p->arg = in.substr(i + std::strlen(op));
        return;
      }
    }
    if (i < in.size()) p->op = "?unsupported";
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);
  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1;
  bool dbracket_ = false;
  size_t heredoc_next_ = kNone;
  std::vector<PendingDoc> pending_;
  std::vector<ShellToken> out_;
};

}  // namespace

std::string Word::Plain() const {
  if (parts.size() != 1 || parts[0].kind != WordPart::kLiteral || parts[0].quoted) return "";
  return parts[0].text;
}

std::vector<ShellToken> LexShell(std::string_view text) { return Lexer(text).Run(); }

}  // namespace bb::modeselect
