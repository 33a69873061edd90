// Small text helpers shared by the static extractors: trimming, snippets, sizes as benchmarks
// write them, line lookup and lexical path arithmetic. Private to modeselect/static/.
//
// Thread-safety: pure functions; a LineIndex is immutable after construction.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bb::modeselect::text {

std::string_view Trim(std::string_view s);
// The line trimmed and cut to at most 160 bytes (on a UTF-8 character boundary).
std::string Snippet(std::string_view line);
std::string Lower(std::string_view s);
bool IEquals(std::string_view a, std::string_view b);
bool IsIdentChar(char c);

// "47008", "4k", "1m", "2g", "1MiB", "4KB", "1.5m" -> bytes; every unit a power of 1024 (as IOR,
// mdtest and fio read them). nullopt for anything else.
std::optional<double> ParseSize(std::string_view s);
// A plain decimal or 0x integer, with an optional sign; nullopt otherwise.
std::optional<long long> ParseInt(std::string_view s);
// "30", "30s", "2m", "1h" -> seconds (fio's runtime=); nullopt otherwise.
std::optional<double> ParseSeconds(std::string_view s);

// Splits on runs of the characters in `seps`, dropping empty fields.
std::vector<std::string_view> Split(std::string_view s, std::string_view seps);

// The lines of a text, 1-based.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  // The text of line `n` without its newline; "" when out of range.
  std::string_view Line(int n) const;
  int Count() const { return static_cast<int>(starts_.size()); }

 private:
  std::string_view text_;
  std::vector<size_t> starts_;
};

// Lexical paths: no file system access.
std::string Dirname(std::string_view path);   // "a/b/c.sh" -> "a/b"; "c.sh" -> "."
std::string Basename(std::string_view path);  // "a/b/c.sh" -> "c.sh"
// `rel` resolved against `dir` unless it is absolute; then normalized ("a/./b/../c" -> "a/c").
std::string JoinPath(std::string_view dir, std::string_view rel);
std::string NormalizePath(std::string_view path);
// `path` relative to `dir` when it lies inside it, else `path` unchanged.
std::string RelativeTo(std::string_view path, std::string_view dir);
std::string_view Extension(std::string_view path);  // "x/y.f90" -> ".f90"; "" when none

}  // namespace bb::modeselect::text
