// The LLM reasoner's request: the JSON schema its answer must follow and the chat-completions
// body that carries the knowledge base (system message) and one job's evidence (user message).
//
// The answer's schema (DecisionSchema):
//   selected_mode   integer 1..4
//   confidence      number 0..1
//   io_topology     string, e.g. "N-N private", "N-1 shared", "N-N then cross-node read"
//   primary_reason  string, one sentence
//   risk_analysis   [string]
//   evidence        [{file: string, line: integer >= 0, finding: string}]
//   scores          {"1".."4": number 0..1}
// every key required, no other keys. It goes out as
//   response_format: {"type": "json_schema",
//                     "json_schema": {"name": "mode_decision", "strict": true, "schema": ...}}
// — the nested form, which vLLM, llama.cpp server and Ollama all read (llama.cpp silently
// ignores the flat {"type": "json_schema", "schema": ...}).
//
// Size: the prompt stays compact for a large job (well under 6,000 tokens): findings are capped
// per fact and in total, snippets and other free text truncated, and what was left out is
// counted in the message.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "modeselect/evidence.h"
#include "modeselect/knowledge.h"
#include "modeselect/reason/llm.h"

namespace bb::modeselect {

inline constexpr int kPromptFindingsPerFact = 4;      // findings quoted per fact
inline constexpr int kPromptFindings = 60;            // findings quoted in all
inline constexpr int kPromptLaunches = 8;             // launch lines quoted
inline constexpr size_t kPromptSnippetBytes = 100;    // of a snippet, a launch's argv
inline constexpr size_t kPromptFindingsBytes = 4500;  // of the findings section, the "also found" line included
inline constexpr size_t kPromptRulesBytes = 1500;     // of what the rules found (--reasoner auto)

// The findings section of the user message, at most `cap` bytes: per fact (in the order first
// found) a header and up to kPromptFindingsPerFact quotes, kPromptFindings in all, while the
// facts fit; the facts left listed by name and count on an "also found, not quoted" line, as
// many as fit, then how many more. "" without findings or when not even the heading fits.
std::string FindingsText(const StaticEvidence& s, size_t cap);

// The JSON schema of the model's answer (above).
nlohmann::json DecisionSchema();

// The chat-completions request body for `evidence`: model, messages (system: the modes and
// patterns of `kb` and the rules of the answer; user: geometry, launches, findings, signals,
// which evidence is missing and, when not empty, what the knowledge base's rules found,
// `rules_findings`, clipped to kPromptRulesBytes), temperature 0, max_tokens and response_format.
nlohmann::json BuildChatRequest(const Evidence& evidence, const KnowledgeBase& kb, const LlmOptions& options,
                                std::string_view rules_findings = {});

}  // namespace bb::modeselect
