// Tokenizers for the source languages the static extractor reads: C, C++, Fortran (free and
// fixed form) and Python. They know where comments, string literals and preprocessor lines
// begin and end, so an I/O call written inside a comment or a string is never mistaken for
// code. Any byte string is accepted: malformed input ends a token at the end of the line or
// the text, never with an error.
//
//   C/C++   comments, "..." with escapes and splices, raw strings R"d(...)d" (and u8R, LR, ...),
//           char literals, numbers with digit separators, one kPreproc token per directive.
//   Fortran free form: '!' comments, '&' continuations, ';' separators; fixed form: c/C/*/! in
//           column 1 and a continuation mark in column 6. Doubled quotes in strings; names
//           lowercased (Fortran is case-insensitive); statement labels stay as kNumber; every
//           statement ends with kNewline.
//   Python  '#' comments; every string form (r, b, u, f and their mixes, triple-quoted); an
//           f-string keeps its raw text and flag kFString so its {interpolations} can be read;
//           logical lines end with kNewline, indentation gives kIndent/kDedent.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bb::modeselect {

enum class Lang : uint8_t { kC, kCpp, kFortranFree, kFortranFixed, kPython };

// The language of a source file by its extension (.c .h; .cc .cpp .cxx .C .hpp .hh; .f90 .f95
// .f03 .f08 .F90 ...; .f .for .f77 .F; .py), or nullopt.
std::optional<Lang> LangOfPath(std::string_view path);
bool IsFortran(Lang lang);
const char* LangName(Lang lang);  // "c", "c++", "fortran", "fortran-fixed", "python"

enum class TokKind : uint8_t {
  kIdent,    // a name or keyword
  kNumber,   // a numeric literal as written
  kString,   // the literal's contents between the quotes, escapes not decoded
  kChar,     // a C character literal's contents
  kPunct,    // an operator or punctuation: "(", "->", "::", "<<=", ".eq." (Fortran) ...
  kPreproc,  // a whole preprocessor directive, whitespace collapsed: "#define N 100"
  kNewline,  // end of a statement (Fortran) or of a logical line (Python)
  kIndent,   // Python: the block deepens
  kDedent,   // Python: a block ends
};

// Flags of a kString token.
inline constexpr uint8_t kFString = 1;  // Python f-string: text holds {interpolations}
inline constexpr uint8_t kRawString = 2;
inline constexpr uint8_t kBytes = 4;

struct Token {
  TokKind kind = TokKind::kPunct;
  uint8_t flags = 0;
  int line = 0;  // 1-based line of the token's first character
  std::string text;

  bool Is(std::string_view t) const { return text == t && kind != TokKind::kString && kind != TokKind::kChar; }
};

std::vector<Token> Tokenize(Lang lang, std::string_view text);

// Per-language entry points (what Tokenize dispatches to).
std::vector<Token> TokenizeC(std::string_view text);
std::vector<Token> TokenizeFortran(std::string_view text, bool fixed_form);
std::vector<Token> TokenizePython(std::string_view text);

}  // namespace bb::modeselect
