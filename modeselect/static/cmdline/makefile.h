// Makefiles, as far as the job script needs them: which source files a target is built from.
// Reads variables (=, :=, ::=, ?=, +=), explicit rules, pattern rules (%.o: %.c), the
// built-in rule that makes x.o from x.c/x.cc/x.cpp/x.f90/x.f, references $(VAR) ${VAR},
// substitution references $(SRC:.c=.o), $(patsubst ...), $(addprefix ...), $(addsuffix ...),
// and source files named in a target's recipe (mpicc -o app app.c io.c). Conditionals are
// read as if every branch were taken; `include` is ignored.
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace bb::modeselect {

struct MakeRule {
  std::vector<std::string> targets;  // expanded
  std::vector<std::string> prereqs;  // expanded
  std::vector<std::string> recipe;   // raw lines
  int line = 0;
};

struct Makefile {
  std::map<std::string, std::string> vars;
  std::vector<MakeRule> rules;
  std::string default_target;  // the first target that is no pattern and no .SPECIAL
};

// `overrides` are command-line assignments (make CC=mpicc).
Makefile ParseMakefile(std::string_view text, const std::map<std::string, std::string>& overrides = {});

// The source files (relative to the Makefile's folder) that `target` ("" = the default) is
// built from. `exists` says whether a candidate source exists (relative path); it picks
// between pattern rules.
std::vector<std::string> MakeTargetSources(const Makefile& mk, const std::string& target,
                                           const std::function<bool(const std::string&)>& exists);

// True for the extensions of C, C++ and Fortran sources.
bool IsCompiledSource(std::string_view path);

}  // namespace bb::modeselect
