#include "modeselect/static/text.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace bb::modeselect::text {

std::string_view Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string Snippet(std::string_view line) {
  std::string_view t = Trim(line);
  if (t.size() <= 160) return std::string(t);
  size_t n = 160;
  // Back off continuation bytes (10xxxxxx) so a multi-byte character is never cut in half.
  while (n > 0 && (static_cast<unsigned char>(t[n]) & 0xC0) == 0x80) --n;
  return std::string(t.substr(0, n));
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::optional<double> ParseSize(std::string_view s) {
  s = Trim(s);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0 || i > 24) return std::nullopt;
  std::string num(s.substr(0, i));
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) return std::nullopt;
  std::string unit = Lower(s.substr(i));
  static constexpr std::pair<const char*, int> kUnits[] = {
      {"", 0},    {"b", 0},    {"k", 10}, {"kb", 10}, {"kib", 10}, {"m", 20}, {"mb", 20}, {"mib", 20}, {"g", 30},
      {"gb", 30}, {"gib", 30}, {"t", 40}, {"tb", 40}, {"tib", 40}, {"p", 50}, {"pb", 50}, {"pib", 50}};
  for (const auto& [name, shift] : kUnits) {
    if (unit == name) return std::ldexp(v, shift);
  }
  return std::nullopt;
}

std::optional<long long> ParseInt(std::string_view s) {
  s = Trim(s);
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::string str(s);
  char* end = nullptr;
  long long v = std::strtoll(str.c_str(), &end, 0);
  if (end != str.c_str() + str.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseSeconds(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  double scale = 1;
  char last = static_cast<char>(std::tolower(static_cast<unsigned char>(s.back())));
  if (last == 's' || last == 'm' || last == 'h' || last == 'd') {
    scale = last == 'm' ? 60 : last == 'h' ? 3600 : last == 'd' ? 86400 : 1;
    s.remove_suffix(1);
  }
  std::optional<long long> v = ParseInt(s);
  if (!v) return std::nullopt;
  return static_cast<double>(*v) * scale;
}

std::vector<std::string_view> Split(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && seps.find(s[i]) != std::string_view::npos) ++i;
    size_t b = i;
    while (i < s.size() && seps.find(s[i]) == std::string_view::npos) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size()) starts_.push_back(i + 1);
  }
}

std::string_view LineIndex::Line(int n) const {
  if (n < 1 || n > Count()) return {};
  size_t b = starts_[n - 1];
  size_t e = text_.find('\n', b);
  if (e == std::string_view::npos) e = text_.size();
  std::string_view line = text_.substr(b, e - b);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string Dirname(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string Basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string NormalizePath(std::string_view path) {
  bool absolute = !path.empty() && path[0] == '/';
  std::vector<std::string_view> parts;
  for (std::string_view p : Split(path, "/")) {
    if (p == ".") continue;
    if (p == ".." && !parts.empty() && parts.back() != "..") {
      parts.pop_back();
    } else if (p != ".." || !absolute) {
      parts.push_back(p);
    }
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  if (out.empty()) out = ".";
  return out;
}

std::string JoinPath(std::string_view dir, std::string_view rel) {
  if (!rel.empty() && rel[0] == '/') return NormalizePath(rel);
  if (dir.empty() || dir == ".") return NormalizePath(rel);
  return NormalizePath(std::string(dir) + "/" + std::string(rel));
}

std::string RelativeTo(std::string_view path, std::string_view dir) {
  if (dir.empty() || dir == ".") return std::string(path);
  std::string prefix = std::string(dir) + (dir.back() == '/' ? "" : "/");
  if (path.substr(0, prefix.size()) == prefix) return std::string(path.substr(prefix.size()));
  return std::string(path);
}

std::string_view Extension(std::string_view path) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash) || dot == slash + 1 || dot == 0)
    return {};
  return path.substr(dot);
}

}  // namespace bb::modeselect::text
