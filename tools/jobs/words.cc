#include "tools/jobs/words.h"

#include <cctype>
#include <sstream>

namespace bb::jobs {

Result<std::vector<std::string>> SplitWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '#' && !in_word) {
      break;
    } else if (c == '\'') {
      size_t end = line.find('\'', i + 1);
      if (end == std::string::npos) return Status(EINVAL, "unterminated ' quote");
      word += line.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() && std::string("\"\\$`").find(line[j + 1]) != std::string::npos) ++j;
        word += line[j];
      }
      if (j >= line.size()) return Status(EINVAL, "unterminated \" quote");
      i = j;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

Status ForEachDirective(const std::string& text, std::string_view prefix,
                        const std::function<Status(int, const std::string&)>& fn) {
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    if (line[start] != '#') break;  // the first command ends the directives
    size_t end = start + prefix.size();
    if (line.compare(start, prefix.size(), prefix) != 0 || (line.size() > end && !std::isblank(line[end]))) continue;
    BB_RETURN_IF_ERROR(fn(line_no, line.substr(end)));
  }
  return Status::Ok();
}

}  // namespace bb::jobs
