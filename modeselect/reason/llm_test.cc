#include "modeselect/reason/llm.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <map>
#include <nlohmann/json.hpp>

#include "modeselect/reason/chat_test_util.h"

namespace bb::modeselect {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr int64_t kMs = 1'000'000;

std::string GoodBody(int mode) { return testing::ChatAnswerBody(mode, 0.9, "one shared file"); }

// An HttpClient that answers from a script (the last answer repeats) and spends `cost` of the
// manual clock per call, never more than the deadline it was given.
class ScriptedHttp final : public HttpClient {
 public:
  struct Call {
    std::string url;
    std::vector<std::string> headers;
    std::string body;
    milliseconds deadline;
  };

  ScriptedHttp(ManualClock* clock, std::vector<Result<HttpResponse>> script, milliseconds cost)
      : clock_(clock), script_(std::move(script)), cost_(cost) {}

  Result<HttpResponse> Post(const std::string& url, const std::vector<std::string>& headers, const std::string& body,
                            milliseconds deadline) override {
    calls.push_back({url, headers, body, deadline});
    clock_->Advance(nanoseconds(std::min(cost_, deadline)).count());
    return script_[std::min(calls.size(), script_.size()) - 1];
  }

  std::vector<Call> calls;

 private:
  ManualClock* clock_;
  std::vector<Result<HttpResponse>> script_;
  milliseconds cost_;
};

struct Fixture {
  explicit Fixture(std::vector<Result<HttpResponse>> script, milliseconds cost = milliseconds(100),
                   LlmOptions o = Options())
      : http(&clock, std::move(script), cost), reasoner(o, &http, &clock, [this](nanoseconds d) {
          sleeps.push_back(d);
          clock.Advance(d.count());
        }) {}

  static LlmOptions Options() {
    LlmOptions o;
    o.base_url = "http://127.0.0.1:8080/v1";
    o.model = "m";
    o.deadline = milliseconds(10000);
    return o;
  }

  ManualClock clock;
  ScriptedHttp http;
  std::vector<nanoseconds> sleeps;
  LlmReasoner reasoner;
};

HttpResponse Http(long status, std::string body = "") { return {status, std::move(body)}; }

TEST_CASE("LLM options come from flags first, then the environment", "[modeselect][llm]") {
  std::map<std::string, std::string> vars = {{"OPENAI_BASE_URL", "http://env:8000/v1/"},
                                             {"OPENAI_API_KEY", "sk-env"},
                                             {"OPENAI_MODEL", "generic"},
                                             {"BB_LLM_MODEL", "ours"}};
  const EnvLookup env = [&](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  Result<LlmOptions> o = LlmOptionsFromEnv({}, env);
  REQUIRE(o.has_value());
  CHECK(o->base_url == "http://env:8000/v1");
  CHECK(o->api_key == "sk-env");
  CHECK(o->model == "ours");
  CHECK(ChatCompletionsUrl(o->base_url) == "http://env:8000/v1/chat/completions");
  CHECK(ChatCompletionsUrl("http://h/v1//") == "http://h/v1/chat/completions");

  LlmOptions flags;
  flags.base_url = "https://flag/v1";
  flags.model = "flagged";
  flags.api_key = "sk-flag";
  o = LlmOptionsFromEnv(flags, env);
  REQUIRE(o.has_value());
  CHECK(o->base_url == "https://flag/v1");
  CHECK(o->model == "flagged");
  CHECK(o->api_key == "sk-flag");

  vars.erase("BB_LLM_MODEL");
  vars["OPENAI_API_KEY"] = "";  // empty counts as unset
  o = LlmOptionsFromEnv({}, env);
  REQUIRE(o.has_value());
  CHECK(o->model == "generic");
  CHECK(o->api_key.empty());

  struct Row {
    const char* unset;
    const char* base_url;
    const char* says;
  };
  const Row rows[] = {{"OPENAI_BASE_URL", nullptr, "OPENAI_BASE_URL"},
                      {"", "ftp://x/v1", "is not http(s)://: ftp://x/v1"},
                      {"OPENAI_MODEL", nullptr, "BB_LLM_MODEL"}};
  for (const Row& r : rows) {
    INFO(r.says);
    auto saved = vars;
    vars.erase(r.unset);
    if (r.base_url) vars["OPENAI_BASE_URL"] = r.base_url;
    o = LlmOptionsFromEnv({}, env);
    REQUIRE_FALSE(o.has_value());
    CHECK(o.error().code() == EINVAL);
    CHECK(o.error().message().find(r.says) != std::string::npos);
    vars = saved;
  }
  flags = {};
  flags.deadline = milliseconds(0);
  CHECK_FALSE(LlmOptionsFromEnv(flags, env).has_value());
}

TEST_CASE("the LLM reasoner posts the request and times the answer", "[modeselect][llm]") {
  LlmOptions o = Fixture::Options();
  o.api_key = "sk-test";
  Fixture f({Http(200, GoodBody(2))}, milliseconds(250), o);
  Result<Decision> d = f.reasoner.Decide(Evidence{}, KnowledgeBase{});
  REQUIRE(d.has_value());
  CHECK(d->mode == 2);
  CHECK(d->selected_by == "llm");
  CHECK(d->elapsed_ms == Approx(250));
  REQUIRE(f.http.calls.size() == 1);
  const ScriptedHttp::Call& c = f.http.calls[0];
  CHECK(c.url == "http://127.0.0.1:8080/v1/chat/completions");
  CHECK(c.deadline == milliseconds(10000));
  CHECK(std::count(c.headers.begin(), c.headers.end(), "Authorization: Bearer sk-test") == 1);
  CHECK(std::count(c.headers.begin(), c.headers.end(), "Content-Type: application/json") == 1);
  const json body = json::parse(c.body);
  CHECK(body["model"] == "m");
  CHECK(body["response_format"]["type"] == "json_schema");

  Fixture anonymous({Http(200, GoodBody(2))});
  REQUIRE(anonymous.reasoner.Decide(Evidence{}, KnowledgeBase{}).has_value());
  for (const std::string& h : anonymous.http.calls[0].headers) {
    CHECK(h.rfind("Authorization", 0) == std::string::npos);
  }
}

TEST_CASE("the LLM reasoner retries connect failures, 429 and 503 only", "[modeselect][llm]") {
  struct Row {
    const char* name;
    Result<HttpResponse> first;
    size_t calls;  // 2: retried, then the good answer; 1: returned at once
    int code;      // of the error when not retried
  };
  const Row rows[] = {
      {"refused", Status(ECONNREFUSED, "refused"), 2, 0},
      {"unreachable", Status(EHOSTUNREACH, "no route"), 2, 0},
      {"429", Http(429, R"({"error":{"message":"slow down"}})"), 2, 0},
      {"503", Http(503, R"({"error":"loading"})"), 2, 0},
      {"timeout", Status(ETIMEDOUT, "no answer"), 1, ETIMEDOUT},
      {"truncated", Status(EPROTO, "partial"), 1, EPROTO},
      {"too big", Status(EMSGSIZE, "big"), 1, EMSGSIZE},
      {"400", Http(400, R"({"error":{"message":"bad"}})"), 1, EINVAL},
      {"500", Http(500, R"({"error":"model not found"})"), 1, EIO},
      {"schema", Http(200, GoodBody(7)), 1, EBADMSG},
  };
  for (const Row& r : rows) {
    INFO(r.name);
    Fixture f({r.first, Http(200, GoodBody(1))});
    Result<Decision> d = f.reasoner.Decide(Evidence{}, KnowledgeBase{});
    CHECK(f.http.calls.size() == r.calls);
    if (r.calls == 2) {
      REQUIRE(d.has_value());
      CHECK(d->mode == 1);
      REQUIRE(f.sleeps.size() == 1);
      CHECK(f.sleeps[0] == milliseconds(250));
    } else {
      REQUIRE_FALSE(d.has_value());
      CHECK(d.error().code() == r.code);
      CHECK(d.error().message().find("attempt 1 of 3") != std::string::npos);
      CHECK(f.sleeps.empty());
    }
  }
}

TEST_CASE("the LLM reasoner stops after its attempts, backing off", "[modeselect][llm]") {
  Fixture f({Status(ECONNREFUSED, "refused")});
  Result<Decision> d = f.reasoner.Decide(Evidence{}, KnowledgeBase{});
  REQUIRE_FALSE(d.has_value());
  CHECK(d.error().code() == ECONNREFUSED);
  CHECK(d.error().message().find("attempt 3 of 3, attempts used up") != std::string::npos);
  CHECK(f.http.calls.size() == 3);
  CHECK(f.sleeps == std::vector<nanoseconds>{milliseconds(250), milliseconds(500)});

  Fixture busy({Http(429, R"({"error":{"message":"slow down"}})")});
  d = busy.reasoner.Decide(Evidence{}, KnowledgeBase{});
  REQUIRE_FALSE(d.has_value());
  CHECK(d.error().code() == EAGAIN);
  CHECK(d.error().message().find("slow down") != std::string::npos);
}

TEST_CASE("one deadline bounds every attempt and backoff", "[modeselect][llm]") {
  LlmOptions o = Fixture::Options();
  o.deadline = milliseconds(1000);
  o.max_attempts = 10;
  Fixture f({Http(503, R"({"error":"loading"})")}, milliseconds(400), o);
  const int64_t start = f.clock.MonotonicNs();
  Result<Decision> d = f.reasoner.Decide(Evidence{}, KnowledgeBase{});
  REQUIRE_FALSE(d.has_value());
  CHECK(d.error().code() == EAGAIN);
  CHECK(d.error().message().find("no time left to retry") != std::string::npos);
  CHECK(f.clock.MonotonicNs() - start <= 1000 * kMs);
  REQUIRE(f.http.calls.size() == 2);  // 0-400 ms, backoff to 650 ms, 650-1000 ms
  CHECK(f.http.calls[0].deadline == milliseconds(1000));
  CHECK(f.http.calls[1].deadline == milliseconds(350));

  Fixture slow({Status(ECONNREFUSED, "refused")}, milliseconds(900), o);
  d = slow.reasoner.Decide(Evidence{}, KnowledgeBase{});
  REQUIRE_FALSE(d.has_value());
  CHECK(slow.http.calls.size() == 1);  // 900 ms + a 250 ms backoff would pass the deadline
  CHECK(d.error().code() == ECONNREFUSED);
}

}  // namespace
}  // namespace bb::modeselect
