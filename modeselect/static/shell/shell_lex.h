// The shell lexer behind ParseShell (shell.h): words, operators, newlines, with here-document
// bodies attached to their redirection. Private to modeselect/static/.
//
// Thread-safety: pure function.
#pragma once

#include <string_view>
#include <vector>

#include "modeselect/static/shell/shell.h"

namespace bb::modeselect {

struct ShellToken {
  enum Kind : uint8_t { kWord, kOp, kNewline };
  Kind kind = kWord;
  Word word;       // kWord
  std::string op;  // kOp: "&&", "||", ";", ";;", "&", "|", "(", ")", "<", ">", "<<" ...
  int line = 0;
  std::string body;  // kOp "<<"/"<<-": the here-document
  bool body_quoted = false;
  int body_line = 0;
};

std::vector<ShellToken> LexShell(std::string_view text);

}  // namespace bb::modeselect
