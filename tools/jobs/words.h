// Splitting a line into words as a POSIX shell does for a simple command: blanks separate
// words, '...' and "..." quote (backslash escapes in "..." and outside quotes), a '#' at the
// start of a word begins a comment. No expansion. EINVAL for an unterminated quote.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::jobs {

Result<std::vector<std::string>> SplitWords(const std::string& line);

}  // namespace bb::jobs
