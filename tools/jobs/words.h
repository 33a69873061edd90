// Splitting a line into words as a POSIX shell does for a simple command: blanks separate
// words, '...' and "..." quote (backslash escapes in "..." and outside quotes), a '#' at the
// start of a word begins a comment. No expansion. EINVAL for an unterminated quote.
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fs/base/status.h"

namespace bb::jobs {

Result<std::vector<std::string>> SplitWords(const std::string& line);

// The directive lines of a batch script, as sbatch reads #SBATCH lines: lines starting with
// `prefix` (then a blank or the end) before the first command line (blank lines and other
// comments may come between). Calls fn(line number, the rest of the line) for each and stops at
// its first error.
Status ForEachDirective(const std::string& text, std::string_view prefix,
                        const std::function<Status(int, const std::string&)>& fn);

}  // namespace bb::jobs
