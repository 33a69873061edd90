// Helpers shared by the static extractor's tests: findings rendered as sorted strings so a
// test states exactly which facts it expects at which lines with which values.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "modeselect/findings.h"
#include "modeselect/static/lang/sources.h"

namespace bb::modeselect::testing {

// "LINE FACT VALUE" (with "FILE:" in front when `with_file`), sorted.
inline std::vector<std::string> Render(const std::vector<Finding>& fs, bool with_file = false) {
  std::vector<std::string> out;
  for (const Finding& f : fs) {
    char value[32];
    std::snprintf(value, sizeof value, "%.15g", f.value);
    out.push_back((with_file ? f.file + ":" : "") + std::to_string(f.line) + " " + f.fact + " " + value);
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

inline std::vector<Finding> ScanOne(Lang lang, const std::string& text, const std::string& path = "t") {
  std::vector<SourceFile> files{SourceFile{path, lang, text}};
  return ScanSources(files);
}

// A snippet and every finding it must give, "LINE FACT VALUE".
struct SnippetCase {
  const char* name;
  Lang lang;
  const char* text;
  std::vector<std::string> expect;
};

// The file name a C or C++ snippet is scanned under ("t" for the rest).
inline const char* SnippetPath(Lang lang) { return lang == Lang::kC ? "t.c" : lang == Lang::kCpp ? "t.cc" : "t"; }

// Only the findings of `facts`.
inline std::vector<std::string> Only(const std::vector<std::string>& rendered,
                                     std::initializer_list<const char*> facts) {
  std::vector<std::string> out;
  for (const std::string& r : rendered) {
    for (const char* f : facts) {
      if (r.find(std::string(" ") + f + " ") != std::string::npos) out.push_back(r);
    }
  }
  return out;
}

}  // namespace bb::modeselect::testing
