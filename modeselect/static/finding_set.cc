#include "modeselect/static/finding_set.h"

#include <algorithm>

#include "modeselect/static/text.h"

namespace bb::modeselect {

bool FindingSet::Add(std::string_view fact, std::string_view file, int line, std::string_view snippet, double value,
                     Merge merge) {
  if (!FactKnown(fact)) return false;
  std::string key;
  key.reserve(fact.size() + file.size() + 12);
  key.append(fact).push_back('\0');
  key.append(file).push_back('\0');
  key.append(std::to_string(line));
  auto [it, inserted] = index_.emplace(std::move(key), findings_.size());
  if (inserted) {
    findings_.push_back(Finding{std::string(fact), std::string(file), line, text::Snippet(snippet), value});
    return true;
  }
  double& v = findings_[it->second].value;
  switch (merge) {
    case Merge::kSum:
      v += value;
      break;
    case Merge::kMax:
      v = std::max(v, value);
      break;
    case Merge::kMin:
      v = std::min(v, value);
      break;
  }
  return true;
}

bool FindingSet::Has(std::string_view fact) const {
  return std::any_of(findings_.begin(), findings_.end(), [&](const Finding& f) { return f.fact == fact; });
}

}  // namespace bb::modeselect
