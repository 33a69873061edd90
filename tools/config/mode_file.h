// The mode file: one per job, YAML, written by hand or by bb-modeselect
// (docs/architecture.md#workspaces-and-mode-files).
//
//   mode: N                       the layout: a mode of the table in fs/core/placement/layout.h (1..4)
//   chunk_size: SIZE              a valid chunk size (fs/core/placement/chunking.h; default 512KiB)
//   metadata_server_ratio: R      modes that use one (mode 2): 0 < R <= 1 (default 0.25)
//   confidence: C                 decision record: 0..1
//   reason: TEXT                  decision record: why this mode
//   selected_by: WHO              decision record: one of SelectedByValues()
// `mode` is required. An unknown field, a wrong type or a value out of range is an error that
// names the file, line and field; nothing falls back silently.
//
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>

#include "fs/base/status.h"
#include "fs/core/placement/layout.h"

namespace bb::config {

struct ModeFile {
  fs::WorkspaceSpec spec;
  double confidence = 1.0;
  std::string reason;
  std::string selected_by = "user";
};

// Who may have made a decision: "rules", "llm", "user", "fallback".
std::span<const char* const> SelectedByValues();

// EINVAL with "<source>:<line>: <what>" when the text is not a valid mode file.
Result<ModeFile> ParseModeFile(const std::string& text, const std::string& source);
Result<ModeFile> LoadModeFile(const std::string& path);
// The most a mode file may hold; LoadModeFile refuses a larger one (EFBIG, naming the limit).
inline constexpr size_t kMaxModeFileBytes = 64 << 10;
// The YAML text of `m` (ParseModeFile reads it back unchanged).
std::string FormatModeFile(const ModeFile& m);

}  // namespace bb::config
