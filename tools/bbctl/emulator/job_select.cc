#include "tools/bbctl/emulator/job_select.h"

#include <fstream>

#include "tools/bbctl/proc.h"
#include "tools/config/mode_file.h"

namespace bb::ctl {

jobs::Selection TakeSelection(jobs::SelectorRun run, const std::string& mode_file) {
  if (run.error.empty() && !run.timed_out && run.signal == 0 && run.exit_status == 0) {
    Result<config::ModeFile> m = config::LoadModeFile(mode_file);
    if (m) {
      run.mode_file_mode = fs::ModeNumber(m->spec.layout.mode);
    } else {
      run.mode_file_error = m.error().message();
    }
  }
  jobs::Selection s = jobs::TakeDecision(run);
  if (!s.fallback) return s;
  config::ModeFile m;
  m.spec.layout.mode = fs::LayoutMode::kHashed;
  m.confidence = 0;
  m.reason = s.reason;
  m.selected_by = "fallback";
  std::ofstream f(mode_file, std::ios::trunc);
  f << config::FormatModeFile(m);
  f.flush();
  return s;
}

jobs::Selection ChooseMode(const std::vector<std::string>& argv, const std::string& mode_file,
                           std::chrono::milliseconds deadline) {
  jobs::SelectorRun run;
  run.deadline_s = std::chrono::duration<double>(deadline).count();
  std::remove(mode_file.c_str());  // a mode file left from before is not the selector's
  Result<Ran> ran = RunWithDeadline(argv, deadline);
  if (!ran) {
    run.error = ran.error().message();
  } else {
    run.timed_out = ran->timed_out;
    run.exit_status = ran->exit_status;
    run.signal = ran->timed_out ? 0 : ran->signal;
    run.output = std::move(ran->out);
    run.errors = std::move(ran->err);
  }
  return TakeSelection(std::move(run), mode_file);
}

}  // namespace bb::ctl
