// The --select step without a cluster: selectors that decide, fail, crash, hang or print
// nothing, each run for real (small shell scripts), and the job's mode that follows — the
// selector's, or mode 3 with the reason, never a failed job.
#include "tools/bbctl/emulator/job_select.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tools/bbctl/proc.h"
#include "tools/config/mode_file.h"

namespace bb::ctl {
namespace {

using namespace std::chrono_literals;

// A folder of fake selectors, gone at the end.
class Selectors {
 public:
  Selectors() {
    char tmpl[] = "/tmp/bb-select-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  ~Selectors() { std::filesystem::remove_all(dir_); }
  // A selector whose body is `script` (sh); "$OUT" is the mode file it is given.
  std::vector<std::string> Make(const std::string& name, const std::string& script) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\nOUT=\"$1\"\n" << script << "\n";
    ::chmod(path.c_str(), 0755);
    return {path, mode_file()};
  }
  std::string mode_file() const { return dir_ + "/mode.yaml"; }

 private:
  std::string dir_;
};

const char* const kDecides =
    "printf 'mode: 2\\nconfidence: 0.8\\nreason: shared directories\\nselected_by: rules\\n' > \"$OUT\"\n"
    "echo 'bb-modeselect: reading' >&2\n"
    "echo '{\"selected_mode\": 2, \"confidence\": 0.8, \"selected_by\": \"rules\", "
    "\"primary_reason\": \"shared directories\"}'";

TEST_CASE("job run --select: a selector's decision, or mode 3 and why", "[bbctl][select]") {
  struct Row {
    const char* what;
    const char* script;
    int mode;
    const char* reason;  // a part of the selection's reason
  };
  const Row rows[] = {
      {"a decision", kDecides, 2, "shared directories"},
      {"a failure", "echo 'bb-modeselect: cannot read the knowledge base /kb' >&2; exit 2", 3,
       "the mode selector failed (exit 2): bb-modeselect: cannot read the knowledge base /kb"},
      {"a crash", "kill -SEGV $$", 3, "the mode selector was killed by signal 11"},
      {"a hang", "exec sleep 30", 3, "the mode selector gave no decision within 0.3 s"},
      {"no output", "exit 0", 3, "the mode selector printed no decision"},
      {"not JSON", "echo 'mode 2, I think'", 3, "the mode selector printed no decision"},
      {"a mode out of range", "echo '{\"selected_mode\": 7}'", 3, "names no mode 1 to 4"},
      {"no mode file", "echo '{\"selected_mode\": 1, \"confidence\": 1}'", 3, "mode file cannot be used"},
      {"a mode file of another mode",
       "printf 'mode: 4\\n' > \"$OUT\"; echo '{\"selected_mode\": 1, \"confidence\": 1}'", 3,
       "the mode selector's mode file says mode 4, its decision mode 1"},
  };
  Selectors s;
  for (const Row& r : rows) {
    INFO(r.what);
    auto start = std::chrono::steady_clock::now();
    jobs::Selection got = ChooseMode(s.Make("sel", r.script), s.mode_file(), 300ms);
    CHECK(std::chrono::steady_clock::now() - start < 5s);
    CHECK(got.mode == r.mode);
    CHECK(got.fallback == (r.mode == 3));
    CHECK(got.reason.find(r.reason) != std::string::npos);
    // The job then runs from the mode file: the selector's, or mode 3 with the reason.
    Result<config::ModeFile> m = config::LoadModeFile(s.mode_file());
    REQUIRE(m.has_value());
    CHECK(fs::ModeNumber(m->spec.layout.mode) == r.mode);
    if (got.fallback) {
      CHECK(m->selected_by == "fallback");
      CHECK(m->reason == got.reason);
      CHECK(got.reason.ends_with("mode 3 (distributed hashing, correct for any job)"));
    }
  }
}

TEST_CASE("job run --select: a selector that cannot start, and a probe without a profile", "[bbctl][select]") {
  Selectors s;
  jobs::Selection missing = ChooseMode({"/nonexistent/bb-modeselect", s.mode_file()}, s.mode_file(), 1s);
  CHECK(missing.fallback);
  CHECK(missing.reason.starts_with("the mode selector did not run (cannot run /nonexistent/bb-modeselect"));
  jobs::SelectorRun no_run;
  no_run.error = "no profile of the probe run: disk full";
  jobs::Selection no_profile = TakeSelection(no_run, s.mode_file());
  CHECK(no_profile.mode == 3);
  CHECK(no_profile.reason.find("no profile of the probe run: disk full") != std::string::npos);
  CHECK(config::LoadModeFile(s.mode_file())->selected_by == "fallback");
}

TEST_CASE("RunWithDeadline: output, exit status, signal, and a program ended at its deadline", "[bbctl]") {
  Result<Ran> ok = RunWithDeadline({"sh", "-c", "echo out; echo err >&2; exit 3"}, 5s);
  REQUIRE(ok.has_value());
  CHECK((ok->out == "out\n" && ok->err == "err\n" && ok->exit_status == 3 && ok->signal == 0 && !ok->timed_out));
  Result<Ran> killed = RunWithDeadline({"sh", "-c", "kill -KILL $$"}, 5s);
  REQUIRE(killed.has_value());
  CHECK((killed->signal == SIGKILL && !killed->timed_out));
  auto start = std::chrono::steady_clock::now();
  Result<Ran> hung = RunWithDeadline({"sh", "-c", "trap '' TERM; echo started; while :; do sleep 1; done"}, 200ms);
  REQUIRE(hung.has_value());
  CHECK(hung->timed_out);
  CHECK(hung->out == "started\n");
  CHECK(hung->signal == SIGKILL);  // SIGTERM ignored: SIGKILL 2 s later
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  CHECK_FALSE(RunWithDeadline({"/nonexistent/program"}, 1s).has_value());
}

}  // namespace
}  // namespace bb::ctl
