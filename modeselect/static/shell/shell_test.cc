// The shell lexer and parser on the constructs of batch scripts.
#include "modeselect/static/shell/shell.h"

#include <catch2/catch.hpp>

#include "modeselect/static/shell/shell_lex.h"

namespace bb::modeselect {
namespace {

std::vector<std::string> Raw(const Command& c) {
  std::vector<std::string> out;
  for (const Word& w : c.words) out.push_back(w.raw);
  return out;
}

TEST_CASE("shell words: quotes, escapes, expansions, comments, continuations", "[modeselect]") {
  std::vector<Command> cmds = ParseShell(
      "echo 'a b' \"c $X ${Y:-d e}\" $'t\\tu' f\\ g # srun ior\n"
      "srun -n 4 \\\n  ./app $(hostname) `date` $((1+2))\n");
  REQUIRE(cmds.size() == 2);
  const Command& echo = cmds[0];
  REQUIRE(echo.words.size() == 5);
  CHECK(echo.words[1].parts[0].text == "a b");
  CHECK(echo.words[1].parts[0].quoted);
  const Word& dq = echo.words[2];
  REQUIRE(dq.parts.size() == 4);
  CHECK(dq.parts[1].kind == WordPart::kParam);
  CHECK(dq.parts[1].text == "X");
  CHECK(dq.parts[3].text == "Y");
  CHECK(dq.parts[3].op == ":-");
  CHECK(dq.parts[3].arg == "d e");
  CHECK(echo.words[3].parts[0].text == "t\tu");
  REQUIRE(echo.words[4].parts.size() == 3);  // f, the escaped blank, g
  CHECK(echo.words[4].parts[1].text == " ");
  CHECK(echo.words[4].parts[1].quoted);
  const Command& srun = cmds[1];
  CHECK(srun.line == 2);
  REQUIRE(srun.words.size() == 7);
  CHECK(srun.words[4].parts[0].kind == WordPart::kCommand);
  CHECK(srun.words[4].parts[0].text == "hostname");
  CHECK(srun.words[5].parts[0].kind == WordPart::kCommand);
  CHECK(srun.words[6].parts[0].kind == WordPart::kArith);
  CHECK(srun.words[6].parts[0].text == "1+2");
}

TEST_CASE("shell here-documents: bodies, quoted delimiters, <<- tabs", "[modeselect]") {
  std::vector<Command> cmds = ParseShell(
      "cat > job.fio <<EOF\n[global]\nbs=${BS}\nEOF\n"
      "cat <<'END' >/dev/null\nsrun ior -w\nEND\n"
      "cat <<-X\n\tindented\n\tX\n"
      "echo done\n");
  REQUIRE(cmds.size() == 4);
  REQUIRE(cmds[0].redirects.size() == 2);
  CHECK(cmds[0].redirects[0].op == ">");
  CHECK(cmds[0].redirects[0].target.raw == "job.fio");
  CHECK(cmds[0].redirects[1].op == "<<");
  CHECK(cmds[0].redirects[1].body == "[global]\nbs=${BS}\n");
  CHECK_FALSE(cmds[0].redirects[1].body_quoted);
  CHECK(cmds[0].redirects[1].body_line == 2);
  CHECK(cmds[1].redirects[0].body == "srun ior -w\n");
  CHECK(cmds[1].redirects[0].body_quoted);
  CHECK(cmds[2].redirects[0].body == "indented\n");
  CHECK(Raw(cmds[3]) == std::vector<std::string>{"echo", "done"});
  CHECK(cmds[3].line == 11);
}

TEST_CASE("shell compound commands: for, while, if/elif/else, case, functions, groups", "[modeselect]") {
  std::vector<Command> cmds = ParseShell(R"SH(
for n in 1 2 4; do
  srun -N $n ./app
done
while read l; do echo $l; done < list
if [[ -f x && $a == b ]]; then a; elif b; then c; else d; fi
case $MODE in
  write|w) ior -w ;;
  *) ior -r ;;
esac
run() { srun ./app "$@"; }
function stage {
  cp a b
}
( cd sub && make ) &
)SH");
  REQUIRE(cmds.size() == 7);
  CHECK(cmds[0].kind == Command::kFor);
  CHECK(cmds[0].name == "n");
  CHECK(Raw(cmds[0]) == std::vector<std::string>{"1", "2", "4"});
  REQUIRE(cmds[0].blocks.size() == 1);
  CHECK(Raw(cmds[0].blocks[0][0]) == std::vector<std::string>{"srun", "-N", "$n", "./app"});
  CHECK(cmds[1].kind == Command::kWhile);
  CHECK(cmds[1].redirects.size() == 1);
  CHECK(cmds[2].kind == Command::kIf);
  CHECK(cmds[2].blocks.size() == 5);
  CHECK(Raw(cmds[2].blocks[0][0]).size() == 8);  // [[ -f x && $a == b ]]
  CHECK(cmds[3].kind == Command::kCase);
  REQUIRE(cmds[3].blocks.size() == 2);
  CHECK(Raw(cmds[3].blocks[1][0]) == std::vector<std::string>{"ior", "-r"});
  CHECK(cmds[4].kind == Command::kFunction);
  CHECK(cmds[4].name == "run");
  CHECK(cmds[5].kind == Command::kFunction);
  CHECK(cmds[5].name == "stage");
  CHECK(cmds[6].kind == Command::kGroup);
  CHECK(cmds[6].background);
}

TEST_CASE("shell arithmetic: (( )) commands and C-style for loops hold no redirections", "[modeselect]") {
  std::vector<Command> cmds = ParseShell(
      "for ((k = rank; k < n; k += step)); do\n  cat in.$k > out.$k\ndone\n"
      "(( i < 3 )) && echo small\n"
      "((count++))\n");
  REQUIRE(cmds.size() == 4);
  CHECK(cmds[0].kind == Command::kWhile);
  REQUIRE(cmds[0].blocks.size() == 2);
  CHECK(cmds[0].blocks[0].empty());
  REQUIRE(cmds[0].blocks[1].size() == 1);
  CHECK(Raw(cmds[0].blocks[1][0]) == std::vector<std::string>{"cat", "in.$k"});
  CHECK(cmds[0].redirects.empty());
  CHECK(Raw(cmds[1]) == std::vector<std::string>{"(( i < 3 ))"});
  CHECK(cmds[1].redirects.empty());
  CHECK(Raw(cmds[2]) == std::vector<std::string>{"echo", "small"});
  CHECK(Raw(cmds[3]) == std::vector<std::string>{"((count++))"});
}

}  // namespace
}  // namespace bb::modeselect
