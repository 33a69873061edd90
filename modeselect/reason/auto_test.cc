// --reasoner auto: the rules decide, and the LLM is asked, with what the rules found, only when
// they abstain or the evidence conflicts; whatever the LLM does, the decision is usable.
#include "modeselect/reason/auto.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "modeselect/reason/chat_test_util.h"
#include "modeselect/reason/rules.h"

namespace bb::modeselect {
namespace {

using nlohmann::json;

std::string Answer(int mode, double confidence) {
  return testing::ChatAnswerBody(mode, confidence, "the model's reason");
}

// Answers every request with one response and keeps the user messages it was sent.
class OneAnswerHttp final : public HttpClient {
 public:
  explicit OneAnswerHttp(Result<HttpResponse> r) : r_(std::move(r)) {}
  Result<HttpResponse> Post(const std::string&, const std::vector<std::string>&, const std::string& body,
                            std::chrono::milliseconds) override {
    prompts.push_back(json::parse(body)["messages"][1]["content"].get<std::string>());
    return r_;
  }
  std::vector<std::string> prompts;

 private:
  Result<HttpResponse> r_;
};

Rule MakeRule(const char* id, const char* condition, std::array<double, 4> votes) {
  Rule r;
  r.id = id;
  r.reason = std::string("because ") + id;
  auto c = ParseCondition(condition);
  REQUIRE(c.has_value());
  r.all.push_back(*c);
  r.votes = votes;
  return r;
}

Evidence Sample() {
  Evidence e;
  e.have_static = true;
  e.statics.findings = {{"file.per_rank", "src/ckpt.c", 12, "snprintf(name, ..., rank)", 1}};
  return e;
}

TEST_CASE("auto: the LLM only when the rules abstain or conflict, told what the rules found", "[modeselect][auto]") {
  const KnowledgeBase none;  // no rule fires: the rules abstain
  KnowledgeBase clear, conflict;
  clear.rules = {MakeRule("hybrid", "file.per_rank", {0, 0, 0, 3})};
  conflict.rules = {MakeRule("meta", "file.per_rank", {0, 2, 0, 0}), MakeRule("local", "file.per_rank", {0, 0, 0, 2})};
  struct Row {
    const char* what;
    const KnowledgeBase* kb;
    Result<HttpResponse> reply;
    bool asked;
    const char* in_prompt;  // what the rules found, as the LLM was told
    int mode;
    const char* by;
    int own_mode;     // a fallback's own pick (0: none)
    const char* why;  // in the primary reason
  };
  const HttpResponse good2{200, Answer(2, 0.9)}, low{200, Answer(4, 0.3)}, broken{500, R"({"error": "down"})"};
  const Row rows[] = {
      {"the rules decide: no question", &clear, good2, false, "", 4, "rules", 0, "because hybrid"},
      {"the rules abstain: the LLM decides", &none, good2, true, "the rules abstain", 2, "llm", 0, "rules abstain"},
      {"a conflict: the LLM decides", &conflict, good2, true, "rules fired: meta local", 2, "llm", 0,
       "evidence conflicts"},
      {"a conflict, the LLM unsure: mode 3 with its pick", &conflict, low, true, "the decision rule's pick", 3,
       "fallback", 4, "confidence 0.30"},
      {"a conflict, the LLM down: the rules' fallback with their pick", &conflict, broken, true, "evidence conflicts",
       3, "fallback", 2, "gave no answer"},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    OneAnswerHttp http(r.reply);
    ManualClock clock;
    LlmOptions o;
    o.base_url = "http://127.0.0.1:1/v1";
    o.model = "m";
    o.max_attempts = 1;
    LlmReasoner llm(o, &http, &clock);
    AutoReasoner reasoner(&llm);
    const Result<Decision> d = reasoner.Decide(Sample(), *r.kb);
    REQUIRE(d.has_value());
    CHECK(http.prompts.size() == (r.asked ? 1u : 0u));
    if (r.asked && !http.prompts.empty()) CHECK_THAT(http.prompts[0], Catch::Contains(r.in_prompt));
    CHECK(d->mode == r.mode);
    CHECK(d->selected_by == r.by);
    CHECK(d->own_mode == r.own_mode);
    CHECK_THAT(d->primary_reason, Catch::Contains(r.why));
  }
}

}  // namespace
}  // namespace bb::modeselect
