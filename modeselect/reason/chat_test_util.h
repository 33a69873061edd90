// Test support of modeselect/reason/: an OpenAI chat-completions response whose message is the
// answer the LLM reasoner asks for (reason/llm.h), as the stub server and the fakes give it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace bb::modeselect::testing {

inline std::string ChatAnswerBody(int mode, double confidence, const std::string& reason) {
  const nlohmann::json answer = {{"selected_mode", mode},
                                 {"confidence", confidence},
                                 {"io_topology", "N-1 shared"},
                                 {"primary_reason", reason},
                                 {"risk_analysis", nlohmann::json::array()},
                                 {"evidence", nlohmann::json::array()},
                                 {"scores", {{"1", 0}, {"2", 0.8}, {"3", 0.6}, {"4", 0.1}}}};
  return nlohmann::json{
      {"choices", {{{"message", {{"role", "assistant"}, {"content", answer.dump()}}}, {"finish_reason", "stop"}}}}}
      .dump();
}

}  // namespace bb::modeselect::testing
