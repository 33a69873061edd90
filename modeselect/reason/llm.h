// LlmReasoner: the optional reasoner that asks a language model, over an OpenAI-compatible
// chat-completions API (vLLM, llama.cpp server, Ollama's /v1, OpenAI), for a decision that
// follows a JSON schema (modeselect/reason/prompt.h builds the request, llm_reply.h checks the
// answer). Used only when the user asks for it (--reasoner llm); its failures end in the
// fallback through Finalize() like any other reasoner's.
//
// Where the server is: LlmOptionsFromEnv() takes flags first, then OPENAI_BASE_URL (required;
// e.g. http://127.0.0.1:8080/v1), OPENAI_API_KEY (optional, sent as "Authorization: Bearer"),
// BB_LLM_MODEL or OPENAI_MODEL. The request goes to <base_url>/chat/completions.
//
// Time: one deadline covers every attempt. Only connect failures (ECONNREFUSED, EHOSTUNREACH)
// and HTTP 429 and 503 are retried, after a short backoff that never outlasts the deadline;
// any other failure is returned at once.
//
// Thread-safety: an LlmReasoner is used by one thread at a time (Reasoner's contract).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "fs/base/clock.h"
#include "fs/base/status.h"
#include "modeselect/reason/http.h"
#include "modeselect/reason/reasoner.h"

namespace bb::modeselect {

struct LlmOptions {
  std::string base_url;                       // "http://127.0.0.1:8080/v1", no trailing slash once resolved
  std::string model;                          // the served model's name
  std::string api_key;                        // "" = no Authorization header
  std::chrono::milliseconds deadline{60000};  // for all attempts together
  int max_attempts = 3;
  int max_tokens = 1024;  // the reply's budget; a reply cut at it is refused
};

// An environment lookup: the variable's value, or nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
// The process environment (std::getenv).
std::optional<std::string> ProcessEnv(const char* name);

// `flags` with each empty string field filled from the environment (an empty variable counts
// as unset): base_url from OPENAI_BASE_URL, api_key from OPENAI_API_KEY, model from
// BB_LLM_MODEL, else OPENAI_MODEL (the selector's own variable wins over the generic one).
// Trailing slashes of the base URL are dropped.
// Errors (EINVAL, the message naming the flag or variable): no base URL; a base URL that is not
// http:// or https://; no model; deadline <= 0, max_attempts < 1 or max_tokens < 1.
Result<LlmOptions> LlmOptionsFromEnv(LlmOptions flags, const EnvLookup& env = ProcessEnv);

// "<base_url>/chat/completions", trailing slashes of `base_url` dropped.
std::string ChatCompletionsUrl(std::string_view base_url);

class LlmReasoner final : public Reasoner {
 public:
  // Waits between attempts; tests pass one that advances a ManualClock.
  using Sleep = std::function<void(std::chrono::nanoseconds)>;

  // `options` as LlmOptionsFromEnv() returns them. `http` and `clock` must outlive this.
  LlmReasoner(LlmOptions options, HttpClient* http, const Clock* clock, Sleep sleep = {});

  std::string_view name() const override { return "llm"; }

  // The model's decision (selected_by "llm", elapsed_ms from the first request to the reply,
  // measured on the clock). Errors: those of HttpClient::Post (ETIMEDOUT also when the overall
  // deadline passed between attempts; ECONNREFUSED or EHOSTUNREACH once every attempt failed to
  // connect) and those of ParseChatReply (EAGAIN when 429/503 outlasted the attempts, EBADMSG
  // for an answer that breaks the schema, ...), the message naming the server and attempts.
  Result<Decision> Decide(const Evidence& evidence, const KnowledgeBase& kb) override;
  // The same with what the rules found (`rules_findings`, text) in the prompt: the auto
  // reasoner's question when the rules abstain or conflict (modeselect/reason/auto.h).
  Result<Decision> DecideWith(const Evidence& evidence, const KnowledgeBase& kb, std::string_view rules_findings);

 private:
  // Why the next attempt should not be made after `last` (or "" to retry): not retryable,
  // attempts used up, or no time left for `backoff` before `deadline_ns`.
  std::string RetryRefusal(const Result<HttpResponse>& last, int attempt, std::chrono::nanoseconds backoff,
                           int64_t deadline_ns) const;

  const LlmOptions options_;
  const std::string url_;
  HttpClient* const http_;
  const Clock* const clock_;
  const Sleep sleep_;
};

}  // namespace bb::modeselect
