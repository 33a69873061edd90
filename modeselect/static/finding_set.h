// FindingSet: collects findings so that one place (fact, file, line) is one finding, however
// often an extractor sees it; the value merges by sum (counts of calls) or max/min (sizes,
// iteration counts). Facts outside the vocabulary (modeselect/facts.cc) are dropped, so a typo
// can never reach a rule. Private to modeselect/static/.
//
// Thread-safety: none; one set per extraction.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "modeselect/findings.h"

namespace bb::modeselect {

enum class Merge { kSum, kMax, kMin };

class FindingSet {
 public:
  // Adds the finding, or merges `value` into the one already at (fact, file, line).
  // Returns false (and adds nothing) when `fact` is not in the vocabulary.
  bool Add(std::string_view fact, std::string_view file, int line, std::string_view snippet, double value, Merge merge);
  bool Has(std::string_view fact) const;
  const std::vector<Finding>& findings() const { return findings_; }
  std::vector<Finding> Take() && { return std::move(findings_); }

 private:
  std::vector<Finding> findings_;
  std::unordered_map<std::string, size_t> index_;  // fact '\0' file '\0' line -> position
};

}  // namespace bb::modeselect
