// The mode selector's knowledge base (modeselect/knowledge.h) from its YAML files in a folder
// (configs/modeselect/ by default): modes.yaml (the modes' trade-offs and the reasoners'
// settings), patterns.yaml (application patterns) and rules.yaml (the rules reasoner's rules).
// The files' format is described in configs/modeselect/README.md. Every condition must name a
// fact or signal of the selector's tables; an unknown field, a bad value, a duplicate rule id,
// a rule citing an unknown pattern are errors naming the file, line and field.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "fs/base/status.h"
#include "modeselect/knowledge.h"

namespace bb::config {

// Reads <dir>/modes.yaml, <dir>/patterns.yaml and <dir>/rules.yaml, and <dir>/calibration.yaml
// when there is one (tools/config/calibration_file.h).
Result<modeselect::KnowledgeBase> LoadKnowledgeBase(const std::string& dir);
// The same from texts (`source` prefixes the file names in errors).
Result<modeselect::KnowledgeBase> ParseKnowledgeBase(const std::string& modes, const std::string& patterns,
                                                     const std::string& rules, const std::string& source);

}  // namespace bb::config
