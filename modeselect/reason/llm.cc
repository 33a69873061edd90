#include "modeselect/reason/llm.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <thread>
#include <utility>

#include "modeselect/reason/llm_reply.h"
#include "modeselect/reason/prompt.h"

namespace bb::modeselect {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

// The first wait between attempts; it doubles after each, up to kMaxBackoff. Short, because a
// 429 or 503 from a local server clears as soon as a slot frees, and the deadline bounds it all.
constexpr nanoseconds kFirstBackoff = milliseconds(250);
constexpr nanoseconds kMaxBackoff = milliseconds(2000);

std::string_view TrimSlashes(std::string_view s) {
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  return s;
}

// The first non-empty of `flag` and the variables `names`, or "".
std::string FirstOf(const std::string& flag, std::initializer_list<const char*> names, const EnvLookup& env) {
  if (!flag.empty()) return flag;
  for (const char* name : names) {
    std::optional<std::string> v = env(name);
    if (v && !v->empty()) return *v;
  }
  return "";
}

bool Retryable(const Result<HttpResponse>& r) {
  if (!r.has_value()) return r.error().code() == ECONNREFUSED || r.error().code() == EHOSTUNREACH;
  return r->status == 429 || r->status == 503;
}

}  // namespace

std::optional<std::string> ProcessEnv(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::string ChatCompletionsUrl(std::string_view base_url) {
  return std::string(TrimSlashes(base_url)) + "/chat/completions";
}

Result<LlmOptions> LlmOptionsFromEnv(LlmOptions flags, const EnvLookup& env) {
  LlmOptions o = std::move(flags);
  o.base_url = std::string(TrimSlashes(FirstOf(o.base_url, {"OPENAI_BASE_URL"}, env)));
  o.api_key = FirstOf(o.api_key, {"OPENAI_API_KEY"}, env);
  o.model = FirstOf(o.model, {"BB_LLM_MODEL", "OPENAI_MODEL"}, env);
  if (o.base_url.empty()) {
    return Status(EINVAL,
                  "no LLM server: set OPENAI_BASE_URL (e.g. http://127.0.0.1:8080/v1) or give "
                  "the base URL as a flag");
  }
  if (o.base_url.rfind("http://", 0) != 0 && o.base_url.rfind("https://", 0) != 0) {
    const std::string what = "the LLM base URL (OPENAI_BASE_URL) is not http(s)://: ";
    return Status(EINVAL, what + o.base_url);
  }
  if (o.model.empty()) {
    return Status(EINVAL, "no LLM model: set BB_LLM_MODEL or OPENAI_MODEL, or give it as a flag");
  }
  if (o.deadline.count() <= 0) return Status(EINVAL, "the LLM deadline must be positive");
  if (o.max_attempts < 1) return Status(EINVAL, "the LLM attempts must be at least 1");
  if (o.max_tokens < 1) return Status(EINVAL, "the LLM max_tokens must be at least 1");
  return o;
}

LlmReasoner::LlmReasoner(LlmOptions options, HttpClient* http, const Clock* clock, Sleep sleep)
    : options_(std::move(options)),
      url_(ChatCompletionsUrl(options_.base_url)),
      http_(http),
      clock_(clock),
      sleep_(sleep ? std::move(sleep) : Sleep([](nanoseconds d) { std::this_thread::sleep_for(d); })) {}

std::string LlmReasoner::RetryRefusal(const Result<HttpResponse>& last, int attempt, nanoseconds backoff,
                                      int64_t deadline_ns) const {
  if (!Retryable(last)) return "not retryable";
  if (attempt >= options_.max_attempts) return "attempts used up";
  if (clock_->MonotonicNs() + backoff.count() >= deadline_ns) return "no time left to retry";
  return "";
}

Result<Decision> LlmReasoner::Decide(const Evidence& evidence, const KnowledgeBase& kb) {
  return DecideWith(evidence, kb, "");
}

Result<Decision> LlmReasoner::DecideWith(const Evidence& evidence, const KnowledgeBase& kb,
                                         std::string_view rules_findings) {
  const int64_t start_ns = clock_->MonotonicNs();
  const int64_t deadline_ns = start_ns + nanoseconds(options_.deadline).count();
  const std::string body = BuildChatRequest(evidence, kb, options_, rules_findings)
                               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::vector<std::string> headers = {"Content-Type: application/json", "Accept: application/json"};
  if (!options_.api_key.empty()) headers.push_back("Authorization: Bearer " + options_.api_key);

  const std::string where = "LLM at " + url_;
  nanoseconds backoff = kFirstBackoff;
  for (int attempt = 1;; ++attempt) {
    const int64_t left_ns = deadline_ns - clock_->MonotonicNs();
    if (left_ns <= 0) {
      return Status(ETIMEDOUT, where + ": the deadline of " + std::to_string(options_.deadline.count()) +
                                   " ms passed after " + std::to_string(attempt - 1) + " attempt(s)");
    }
    // Round up so that a deadline less than 1 ms away is still tried rather than spent.
    const milliseconds left((left_ns + 999'999) / 1'000'000);
    Result<HttpResponse> r = http_->Post(url_, headers, body, left);
    const std::string refusal = RetryRefusal(r, attempt, backoff, deadline_ns);
    if (refusal.empty()) {
      sleep_(backoff);
      backoff = std::min(backoff * 2, kMaxBackoff);
      continue;
    }
    const std::string context = where + " (attempt " + std::to_string(attempt) + " of " +
                                std::to_string(options_.max_attempts) + (Retryable(r) ? ", " + refusal : "") + ")";
    if (!r.has_value()) return r.error().Annotate(context);
    Result<Decision> d = ParseChatReply(r->status, r->body);
    if (!d.has_value()) return d.error().Annotate(context);
    d->selected_by = "llm";
    d->elapsed_ms = static_cast<double>(clock_->MonotonicNs() - start_ns) / 1e6;
    return d;
  }
}

}  // namespace bb::modeselect
