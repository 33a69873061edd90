// Random input never crashes or hangs the tokenizers, parsers and scanners.
#include <catch2/catch.hpp>
#include <chrono>
#include <random>

#include "modeselect/static/cmdline/benchmarks.h"
#include "modeselect/static/cmdline/makefile.h"
#include "modeselect/static/job/job_script.h"
#include "modeselect/static/lang/sources.h"
#include "modeselect/static/lang/tokenize.h"
#include "modeselect/static/shell/shell.h"

namespace bb::modeselect {
namespace {

// Random bytes mixed with the fragments that open and close the lexers' states.
std::string RandomText(std::mt19937& rng) {
  static const char* kFragments[] = {"\"",
                                     "'",
                                     "\"\"\"",
                                     "'''",
                                     "R\"(",
                                     ")\"",
                                     "/*",
                                     "*/",
                                     "//",
                                     "#",
                                     "\\\n",
                                     "\n",
                                     "&\n",
                                     "$(",
                                     "${",
                                     "}",
                                     "$((",
                                     "))",
                                     "`",
                                     "<<EOF\n",
                                     "\nEOF\n",
                                     "<<-'X'\n",
                                     "(",
                                     ")",
                                     "[",
                                     "]",
                                     "{",
                                     "}",
                                     ";",
                                     "do ",
                                     "done ",
                                     "if ",
                                     "then ",
                                     "fi ",
                                     "for i in 1 2; ",
                                     "case x in ",
                                     "esac",
                                     "f\"{",
                                     "b'",
                                     "r\"",
                                     "open(",
                                     "fopen(",
                                     "write(",
                                     "MPI_File_open(",
                                     "sprintf(",
                                     "rank",
                                     "for (int i = 0; i < 10; i++) ",
                                     "do i = 1, n\n",
                                     "end do\n",
                                     "def f(x):\n",
                                     "    ",
                                     "\t",
                                     "if rank == 0:\n",
                                     "srun -n 4 ",
                                     "mpirun -np ",
                                     "ior -w -t ",
                                     "fio --name=",
                                     "[global]\n",
                                     "%.o: %.c\n",
                                     "$(SRC:.c=.o)",
                                     "call ",
                                     "c ",
                                     "     &",
                                     "!",
                                     "\\",
                                     "=",
                                     ",",
                                     "0x",
                                     "1e",
                                     "\r"};
  std::uniform_int_distribution<int> pieces(0, 120), pick(0, 99), frag(0, std::size(kFragments) - 1), byte(0, 255);
  std::string s;
  for (int n = pieces(rng); n > 0; --n) {
    if (pick(rng) < 45)
      s += kFragments[frag(rng)];
    else
      s += static_cast<char>(byte(rng));
  }
  return s;
}

TEST_CASE("200 random texts through every lexer, parser and scanner", "[modeselect]") {
  std::mt19937 rng(20240611);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) {
    std::string text = RandomText(rng);
    INFO("case " << i);
    for (Lang lang : {Lang::kC, Lang::kCpp, Lang::kFortranFree, Lang::kFortranFixed, Lang::kPython}) {
      std::vector<Token> toks = Tokenize(lang, text);
      CHECK(toks.size() <= text.size() + 2);
      std::vector<SourceFile> files{SourceFile{"f", lang, text}, SourceFile{"g", lang, text + "\n" + text}};
      for (const Finding& f : ScanSources(files)) CHECK(FactKnown(f.fact));
    }
    (void)ParseShell(text);
    (void)ParseMakefile(text);
    JobScript js = ParseJobScript("/j/job.sh", text);
    for (const Finding& f : js.findings) CHECK(FactKnown(f.fact));
    FioJobFile job{"j.fio", text, 1};
    std::vector<std::string> args{text, "-t", text, "--name=" + text};
    (void)ParseFioArgs(args, {&job, 1}, Where{});
    (void)ParseIorArgs(args, Where{});
    (void)ParseMdtestArgs(args, Where{});
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 30);  // no hang (a few hundred milliseconds when optimized)
}

}  // namespace
}  // namespace bb::modeselect
