// A lexer and parser for the bash subset of Slurm batch scripts: words with their quoting
// ('...', "...", $'...', backslashes), parameter expansions (${VAR:-default}, $VAR, $1),
// command substitutions and arithmetic (kept as text), comments, backslash-newline
// continuations, redirections with here-document bodies, and the compound commands for,
// while/until, if/elif/else, case, { ...; }, ( ... ) and function definitions. Expansion and
// execution are the interpreter's (job_script.cc). Any text parses: a construct left open
// ends at the end of the text.
//
// Thread-safety: pure functions; the AST is a value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bb::modeselect {

struct WordPart {
  enum Kind : uint8_t { kLiteral, kParam, kCommand, kArith };
  Kind kind = kLiteral;
  bool quoted = false;  // inside quotes: no field splitting, no brace expansion
  std::string text;     // literal text; the parameter's name; the inner text of $(...)/$((...))
  std::string op;       // kParam: ":-", "-", ":=", "=", ":+", "+", ":?", "#", "##", "%", "%%",
                        // "/", "//", "len" (${#x}), or "" for plain $x
  std::string arg;      // kParam: the raw text after op (expanded by the interpreter)
};

struct Word {
  std::vector<WordPart> parts;
  std::string raw;  // the word as written
  int line = 0;

  // The word's text when it is one unquoted literal (a reserved word candidate), else "".
  std::string Plain() const;
};

struct Redirect {
  std::string op;            // ">", ">>", "<", "<<", "<<-", "<<<", "2>", ">&" ...
  Word target;               // the file (or here-document delimiter)
  std::string body;          // here-document text
  bool body_quoted = false;  // the delimiter was quoted: no expansion in the body
  int body_line = 0;         // the line the body starts on
};

struct Command {
  enum Kind : uint8_t { kSimple, kFor, kWhile, kIf, kCase, kGroup, kFunction };
  Kind kind = kSimple;
  int line = 0;
  std::vector<Word> words;  // kSimple: assignments and argv; kFor: items; kCase: the subject
  std::vector<Redirect> redirects;
  bool background = false;  // ended by '&'
  bool items = false;       // kFor: an `in` list was given
  std::string name;         // kFor: the variable; kFunction: the function's name
  // kIf: cond, then, [cond, then]..., [else]; kWhile: cond, body; kFor, kGroup, kFunction:
  // body; kCase: one body per arm.
  std::vector<std::vector<Command>> blocks;
};

std::vector<Command> ParseShell(std::string_view text);

}  // namespace bb::modeselect
