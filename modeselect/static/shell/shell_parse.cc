// ParseShell: recursive descent over the lexer's tokens.
#include "modeselect/static/shell/shell.h"
#include "modeselect/static/shell/shell_lex.h"

namespace bb::modeselect {
namespace {

constexpr int kMaxNesting = 100;

class Parser {
 public:
  explicit Parser(std::vector<ShellToken> toks) : t_(std::move(toks)) {}

  std::vector<Command> Run() {
    std::vector<Command> out;
    while (i_ < t_.size()) {
      size_t before = i_;
      std::vector<Command> more = List({});
      for (Command& c : more) out.push_back(std::move(c));
      if (i_ == before) ++i_;  // a stray ')' or reserved word
    }
    return out;
  }

 private:
  bool AtEnd() const { return i_ >= t_.size(); }
  const ShellToken& Cur() const { return t_[i_]; }
  std::string Plain() const { return !AtEnd() && Cur().kind == ShellToken::kWord ? Cur().word.Plain() : ""; }
  bool IsOp(std::string_view op) const { return !AtEnd() && Cur().kind == ShellToken::kOp && Cur().op == op; }
  void SkipSeparators() {
    while (!AtEnd() && (Cur().kind == ShellToken::kNewline || IsOp(";") || IsOp("&"))) ++i_;
  }
  // `for ((i = 0; i < n; i++))`: arithmetic, whose `<` is no redirection (the lexer reads a
  // command `(( i < n ))` as one word).
  bool AtArith() const {
    return IsOp("(") && i_ + 1 < t_.size() && t_[i_ + 1].kind == ShellToken::kOp && t_[i_ + 1].op == "(";
  }
  void SkipArith() {
    int depth = 0;
    do {
      if (IsOp("(")) ++depth;
      if (IsOp(")")) --depth;
      ++i_;
    } while (!AtEnd() && depth > 0);
  }

  void Expect(std::string_view word) {
    SkipSeparators();
    if (Plain() == word) ++i_;
  }

  // Commands until one of `stops` (a reserved word or ";;") in command position.
  std::vector<Command> List(std::initializer_list<std::string_view> stops) {
    std::vector<Command> out;
    if (++depth_ > kMaxNesting) {
      i_ = t_.size();
      return out;
    }
    for (;;) {
      SkipSeparators();
      if (AtEnd() || IsOp(")")) break;
      bool stop = false;
      for (std::string_view s : stops) {
        stop |= Plain() == s || IsOp(s);
      }
      if (stop) break;
      size_t before = i_;
      Command c = ParseCommand();
      if (c.kind != Command::kSimple || !c.words.empty() || !c.redirects.empty()) out.push_back(std::move(c));
      while (IsOp("|") || IsOp("&&") || IsOp("||") || IsOp("|&")) ++i_;
      if (i_ == before) ++i_;
    }
    --depth_;
    return out;
  }

  Command ParseCommand() {
    Command c;
    c.line = AtEnd() ? 0 : Cur().line;
    std::string w = Plain();
    if (w == "!") {
      ++i_;
      w = Plain();
    }
    if (w == "for" || w == "select") return For(c);
    if (w == "while" || w == "until") {
      ++i_;
      c.kind = Command::kWhile;
      c.blocks.push_back(List({"do"}));
      Expect("do");
      c.blocks.push_back(List({"done"}));
      Expect("done");
      return Tail(c);
    }
    if (w == "if") return If(c);
    if (w == "case") return Case(c);
    if (w == "{") {
      ++i_;
      c.kind = Command::kGroup;
      c.blocks.push_back(List({"}"}));
      Expect("}");
      return Tail(c);
    }
    if (IsOp("(")) {
      ++i_;
      c.kind = Command::kGroup;
      c.blocks.push_back(List({}));
      if (IsOp(")")) ++i_;
      return Tail(c);
    }
    if (w == "function" && i_ + 1 < t_.size() && t_[i_ + 1].kind == ShellToken::kWord) {
      ++i_;
      c.name = Cur().word.Plain();
      ++i_;
      if (IsOp("(") && i_ + 1 < t_.size() && t_[i_ + 1].op == ")") i_ += 2;
      return Function(c);
    }
    if (!w.empty() && i_ + 2 < t_.size() && t_[i_ + 1].kind == ShellToken::kOp && t_[i_ + 1].op == "(" &&
        t_[i_ + 2].kind == ShellToken::kOp && t_[i_ + 2].op == ")") {
      c.name = w;
      i_ += 3;
      return Function(c);
    }
    return Simple(c);
  }

  Command Function(Command c) {
    c.kind = Command::kFunction;
    SkipNewlines();
    if (AtEnd() || depth_ > kMaxNesting) return c;
    std::vector<Command> body;
    ++depth_;
    body.push_back(ParseCommand());
    --depth_;
    c.blocks.push_back(std::move(body));
    return c;
  }

  void SkipNewlines() {
    while (!AtEnd() && Cur().kind == ShellToken::kNewline) ++i_;
  }

  Command For(Command c) {
    ++i_;
    if (AtArith()) {  // for ((init; cond; step)): a loop whose trips are not known, as a while
      SkipArith();
      c.kind = Command::kWhile;
      c.blocks.emplace_back();
      Expect("do");
      c.blocks.push_back(List({"done"}));
      Expect("done");
      return Tail(c);
    }
    c.kind = Command::kFor;
    if (!AtEnd() && Cur().kind == ShellToken::kWord) {
      c.name = Cur().word.Plain();
      ++i_;
    }
    SkipNewlines();
    if (Plain() == "in") {
      ++i_;
      c.items = true;
      while (!AtEnd() && Cur().kind == ShellToken::kWord) c.words.push_back(t_[i_++].word);
    }
    Expect("do");
    c.blocks.push_back(List({"done"}));
    Expect("done");
    return Tail(c);
  }

  Command If(Command c) {
    ++i_;
    c.kind = Command::kIf;
    c.blocks.push_back(List({"then"}));
    Expect("then");
    c.blocks.push_back(List({"elif", "else", "fi"}));
    for (;;) {
      SkipSeparators();
      std::string w = Plain();
      if (w == "elif") {
        ++i_;
        c.blocks.push_back(List({"then"}));
        Expect("then");
        c.blocks.push_back(List({"elif", "else", "fi"}));
      } else if (w == "else") {
        ++i_;
        c.blocks.push_back(List({"fi"}));
      } else {
        break;
      }
    }
    Expect("fi");
    return Tail(c);
  }

  Command Case(Command c) {
    ++i_;
    c.kind = Command::kCase;
    if (!AtEnd() && Cur().kind == ShellToken::kWord) c.words.push_back(t_[i_++].word);
    Expect("in");
    for (;;) {
      SkipSeparators();
      if (AtEnd() || Plain() == "esac") break;
      if (IsOp("(")) ++i_;
      while (!AtEnd() && !IsOp(")") && Cur().kind != ShellToken::kNewline) ++i_;  // patterns
      if (IsOp(")")) ++i_;
      c.blocks.push_back(List({";;", ";&", ";;&", "esac"}));
      if (IsOp(";;") || IsOp(";&") || IsOp(";;&")) ++i_;
      if (AtEnd()) break;
    }
    Expect("esac");
    return Tail(c);
  }

  // Redirections after a compound command: `done < list.txt`, `} > log`.
  Command Tail(Command c) {
    while (!AtEnd() && Cur().kind == ShellToken::kOp && IsRedirect(Cur().op)) Redir(&c);
    if (IsOp("&")) c.background = true;
    return c;
  }

  static bool IsRedirect(const std::string& op) {
    return op == "<" || op == ">" || op == ">>" || op == "<<" || op == "<<-" || op == "<<<" || op == ">&" ||
           op == "<&" || op == "&>" || op == "&>>" || op == ">|" || op == "<>";
  }

  void Redir(Command* c) {
    Redirect r;
    r.op = Cur().op;
    r.body = Cur().body;
    r.body_quoted = Cur().body_quoted;
    r.body_line = Cur().body_line;
    ++i_;
    if (!AtEnd() && Cur().kind == ShellToken::kWord) r.target = t_[i_++].word;
    c->redirects.push_back(std::move(r));
  }

  Command Simple(Command c) {
    c.kind = Command::kSimple;
    while (!AtEnd()) {
      const ShellToken& t = Cur();
      if (t.kind == ShellToken::kWord) {
        c.words.push_back(t.word);
        ++i_;
      } else if (t.kind == ShellToken::kOp && IsRedirect(t.op)) {
        Redir(&c);
      } else {
        break;
      }
    }
    if (IsOp("&")) c.background = true;
    return c;
  }

  std::vector<ShellToken> t_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

std::vector<Command> ParseShell(std::string_view text) { return Parser(LexShell(text)).Run(); }

}  // namespace bb::modeselect
