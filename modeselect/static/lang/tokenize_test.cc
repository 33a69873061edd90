// The tokenizers: where comments, strings and preprocessor lines begin and end.
#include "modeselect/static/lang/tokenize.h"

#include <catch2/catch.hpp>

namespace bb::modeselect {
namespace {

// "kind:text@line" for every token, kinds abbreviated: I N S C P # ; > <.
std::vector<std::string> Dump(Lang lang, std::string_view text) {
  std::vector<std::string> out;
  for (const Token& t : Tokenize(lang, text)) {
    const char* k = "INSCP#;><" + static_cast<int>(t.kind);
    std::string kind(1, *k);
    if (t.kind == TokKind::kString && (t.flags & kFString)) kind = "F";
    out.push_back(kind + ":" + t.text + "@" + std::to_string(t.line));
  }
  return out;
}

struct Case {
  const char* name;
  Lang lang;
  const char* text;
  std::vector<std::string> expect;
};

const Case kCases[] = {
    {"C: comments, strings, chars",
     Lang::kC,
     "a /* open( */ b // fopen(\n\"x(\\\"y\" 'c' '\\''",
     {"I:a@1", "I:b@1", "S:x(\\\"y@2", "C:c@2", "C:\\'@2"}},
    {"C: preprocessor lines with continuations, splices in code",
     Lang::kC,
     "#define N \\\n  100 /* c */\nx = N;\n  # include <a.h>\nint a\\\nb;",
     {"#:#define N 100@1", "I:x@3", "P:=@3", "I:N@3", "P:;@3", "#:#include <a.h>@4", "I:int@5", "I:ab@5", "P:;@6"}},
    {"C++: raw strings with delimiters, prefixes, digit separators, operators",
     Lang::kCpp,
     "u8R\"d(a)\"b\n)d\" L\"w\" 1'000'000 a->b::c <<= 0x1p-3",
     {"S:a)\"b\n@1", "S:w@2", "N:1000000@2", "I:a@2", "P:->@2", "I:b@2", "P:::@2", "I:c@2", "P:<<=@2", "N:0x1p-3@2"}},
    {"Fortran free form: ! comments, & continuations, doubled quotes, case, ;",
     Lang::kFortranFree,
     "CALL Foo(a, & ! comment\n   & 'it''s', \"x!y\") ; X = 1.5D0 .EQ. y\n",
     {"I:call@1", "I:foo@1", "P:(@1", "I:a@1", "P:,@1", "S:it's@2", "P:,@2", "S:x!y@2", "P:)@2", ";:@2", "I:x@2",
      "P:=@2", "N:1.5d0@2", "P:.eq.@2", "I:y@2", ";:@2"}},
    {"Fortran fixed form: c and * comments, labels, column-6 continuation",
     Lang::kFortranFixed,
     "C comment open(1)\n* another\n   10 X = 1\n     &  + 2\n      END\n",
     {"N:10@3", "I:x@3", "P:=@3", "N:1@3", "P:+@4", "N:2@4", ";:@4", "I:end@5", ";:@5"}},
    {"Python: every string form, comments, implicit joins, indentation",
     Lang::kPython,
     "x = (1,\n  2)  # c\nif x:\n    s = rb'\\d' + '''a\nb''' + f\"{r!r}\"\n",
     {"I:x@1", "P:=@1", "P:(@1", "N:1@1", "P:,@1",   "N:2@2", "P:)@2",    ";:@2",  "I:if@3",    "I:x@3", "P::@3",
      ";:@3",  ">:@4",  "I:s@4", "P:=@4", "S:\\d@4", "P:+@4", "S:a\nb@4", "P:+@5", "F:{r!r}@5", ";:@5",  "<:@6"}},
    {"Python: f-strings with nested quotes, backslash continuation",
     Lang::kPython,
     "a = f'{d[\"k\"]}' \\\n  + 1\n",
     {"I:a@1", "P:=@1", "F:{d[\"k\"]}@1", "P:+@2", "N:1@2", ";:@2"}},
};

TEST_CASE("tokenizers: comments, strings, lines, per language", "[modeselect]") {
  for (const Case& c : kCases) {
    INFO(c.name);
    CHECK(Dump(c.lang, c.text) == c.expect);
  }
}

TEST_CASE("languages by file extension", "[modeselect]") {
  CHECK(LangOfPath("src/a.c") == Lang::kC);
  CHECK(LangOfPath("a.cpp") == Lang::kCpp);
  CHECK(LangOfPath("x/y.F90") == Lang::kFortranFree);
  CHECK(LangOfPath("old.f") == Lang::kFortranFixed);
  CHECK(LangOfPath("t.py") == Lang::kPython);
  CHECK_FALSE(LangOfPath("job.sh").has_value());
  CHECK_FALSE(LangOfPath("Makefile").has_value());
}

}  // namespace
}  // namespace bb::modeselect
