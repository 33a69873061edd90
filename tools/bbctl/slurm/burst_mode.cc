// The first node's mode file (burst_prolog.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tools/bbctl/proc.h"
#include "tools/bbctl/slurm/burst_history.h"
#include "tools/bbctl/slurm/burst_prolog.h"

namespace bb::ctl {
namespace {

// A mode file the job's user wrote (at most 64 KiB, a regular file, never through a link).
Result<std::string> ReadUsersModeFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Status(errno, "cannot read " + path + ": " + std::strerror(errno));
  struct stat st;
  std::string text(64 << 10, '\0');
  ssize_t n = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? ::read(fd, text.data(), text.size()) : -1;
  ::close(fd);
  if (n < 0 || static_cast<size_t>(n) == text.size()) return Status(EINVAL, path + " is not a mode file");
  text.resize(static_cast<size_t>(n));
  return text;
}

}  // namespace

std::string ModeSummary(const std::string& mode_file, int asked, const std::string& evidence_file) {
  std::ifstream in(mode_file);
  std::string mode = "?", reason;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("mode: ", 0) == 0) mode = line.substr(6);
    if (line.rfind("reason: ", 0) == 0) reason = line.substr(8);
  }
  if (asked != 0) return "mode " + mode + " (asked)";
  if (reason.size() > 200) reason = reason.substr(0, 200) + "...";
  std::string evidence = LastLine(evidence_file);
  return "mode " + mode + " (mode=auto: " + (reason.empty() ? "the mode selector's choice" : reason) + ")" +
         (evidence.empty() ? "" : "; decided from " + evidence);
}

void WriteModeFile(const BurstJob& j, const jobs::BbRequest& req, const std::string& script_text,
                   const std::string& mode_file) {
  auto fallback = [&](const std::string& why) {
    std::ofstream(mode_file) << jobs::ModeFileText(req);
    std::ofstream(j.state + "/mode.note") << "mode selector failed (" << why << "): mode 3\n";
  };
  if (req.mode != 0) {
    std::ofstream(mode_file) << jobs::ModeFileText(req);
    return;
  }
  auto scratch = UserScratch(j);
  if (!scratch) return fallback(scratch.error().message());
  const std::string script = *scratch + "/script", chosen_file = *scratch + "/mode.yaml";
  if (Status s = WriteUsers(j, script, script_text, 0600); !s.ok()) return fallback(s.message());
  std::vector<std::string> argv = {
      Beside("bb-modeselect"),        "--job", script,     "--sources", j.slurm.work_dir, "--nodes",
      std::to_string(j.nodes.size()), "--out", chosen_file};
  if (!req.reasoner.empty()) argv.insert(argv.end(), {"--reasoner", req.reasoner});
  std::string evidence;
  if (!req.profile.empty() || !req.darshan.empty()) {
    // The job's own evidence (#BB profile= or darshan=), read as the user like the rest.
    bool darshan = !req.darshan.empty();
    std::string path = jobs::OutsidePath(darshan ? req.darshan : req.profile, j.slurm.work_dir);
    argv.insert(argv.end(), {darshan ? "--darshan" : "--profile", path});
    evidence = "the script, its sources and the " + std::string(darshan ? "Darshan log" : "I/O profile") +
               " the job named (" + path + ")";
  } else {
    const std::string history = HistoryPath(j, HistoryKey(script_text, j.nodes.size()));
    bool have_profile = !history.empty() && Run(AsUser(j, {"test", "-r", history}), true) == 0;
    if (have_profile) argv.insert(argv.end(), {"--profile", history});
    evidence = have_profile ? "the script, its sources and the I/O profile of its last run (" + history + ")"
                            : "the script and its sources (no earlier run of this script on " +
                                  std::to_string(j.nodes.size()) + " nodes; this run's profile is kept for the next)";
  }
  std::ofstream(j.state + "/evidence") << evidence << "\n";
  auto chosen = Capture(AsUser(j, argv));
  auto text = chosen ? ReadUsersModeFile(chosen_file) : Result<std::string>(chosen.error());
  std::error_code ec;
  std::filesystem::remove_all(*scratch, ec);
  if (!text) return fallback(text.error().message());
  std::ofstream(mode_file) << *text;
}

}  // namespace bb::ctl
