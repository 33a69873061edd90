// Running other programs from bbctl: argv in, exit status out, never through a shell.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "fs/base/mounts.h"
#include "fs/base/status.h"

namespace bb::ctl {

// Runs `argv` to completion (stdout/stderr inherited unless `quiet`). Returns its exit status,
// or -1 when it could not be started or was killed.
int Run(const std::vector<std::string>& argv, bool quiet = false, const std::map<std::string, std::string>& env = {});
// As Run, but a non-zero exit is an error naming the command.
Status RunOk(const std::vector<std::string>& argv, bool quiet = false);
// Starts `argv` without waiting; returns its pid. `stdout_to`: a file for its standard output.
Result<pid_t> Spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
                    bool quiet = false, const std::string& stdout_to = "");
// Runs `argv` to completion and returns its standard output (stderr inherited); a non-zero exit
// is an error naming the command and what it printed.
Result<std::string> Capture(const std::vector<std::string>& argv);
// As Capture, with the program's stderr joined to its stdout; the error starts with `what`
// and holds what the program printed.
Status RunLogged(const std::vector<std::string>& argv, const std::string& what);
// What a program run with a deadline gave.
struct Ran {
  int exit_status = -1;    // when it exited
  int signal = 0;          // the signal that ended it (at the deadline: SIGTERM or SIGKILL)
  bool timed_out = false;  // it was still running at the deadline, and was ended
  std::string out, err;    // its standard output and error (each at most 1 MiB, the rest dropped)
};
// Runs `argv` (no shell; stdin from /dev/null) until it ends or `deadline` passes, when it gets
// SIGTERM and, 2 s later, SIGKILL. Errors: it cannot be started (errno of the spawn).
Result<Ran> RunWithDeadline(const std::vector<std::string>& argv, std::chrono::milliseconds deadline);
// Waits for `pid`; returns its exit status or -1.
int Wait(pid_t pid);
// The exit status of `pid` once it has exited (-1 when killed), or -2 while it runs.
int TryWait(pid_t pid);
// Sends SIGTERM, waits up to `seconds`, then SIGKILL. True when the process is gone.
bool Terminate(pid_t pid, int seconds);
// Whether `pid` runs: any of its threads (one that exited and waits to be reaped does not).
// Another user's process counts.
bool Alive(pid_t pid);
// The pid recorded in a bbd root's lock file (or, when that cannot be read, of the running bbd
// serving `root`), or -1.
pid_t DaemonPid(const std::string& root);
// The running bbd serving `root` (by its command line's --root), or -1.
pid_t DaemonPidByRoot(const std::string& root);
// Every running bbd and the root it serves (canonical), from /proc.
std::vector<std::pair<pid_t, std::string>> RunningDaemons();
// The directory of the running bbctl binary (bbd is looked up beside it first).
std::string SelfDir();

// Appends the user's bbd arguments to `argv`, after the settings for daemons that share this
// host's cores (no transport polling: it would take the cores from the other daemons) unless
// the user sets them.
void AppendBbdArgs(std::vector<std::string>* argv, const std::vector<std::string>& user_args);

}  // namespace bb::ctl
