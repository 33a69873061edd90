// The mode file: one per job, YAML, written by hand or by the mode selector (DESIGN.md §6).
//
//   mode: 1..4                    the layout (fs/core/layout.h)
//   chunk_size: SIZE              power of two, 4KiB..1GiB (default 512KiB)
//   metadata_server_ratio: R      mode 2 only, 0 < R <= 1 (default 0.25)
//   confidence: C                 decision record: 0..1
//   reason: TEXT                  decision record: why this mode
//   selected_by: WHO              decision record: rules | llm | user | fallback
// `mode` is required. An unknown field, a wrong type or a value out of range is an error that
// names the file, line and field; nothing falls back silently.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "fs/base/status.h"
#include "fs/core/layout.h"

namespace bb::fs {

struct ModeFile {
  LayoutOptions layout;
  uint64_t chunk_size = 512 * 1024;
  double confidence = 1.0;
  std::string reason;
  std::string selected_by = "user";
};

// EINVAL with "<source>:<line>: <what>" when the text is not a valid mode file.
Result<ModeFile> ParseModeFile(const std::string& text, const std::string& source);
Result<ModeFile> LoadModeFile(const std::string& path);
// The YAML text of `m` (ParseModeFile reads it back unchanged).
std::string FormatModeFile(const ModeFile& m);

}  // namespace bb::fs
