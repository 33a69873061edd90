#include "modeselect/reason/llm_reply.h"

#include <catch2/catch.hpp>
#include <cerrno>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace bb::modeselect {
namespace {

using nlohmann::json;

json Answer(int mode = 2) {
  return {{"selected_mode", mode},
          {"confidence", 0.85},
          {"io_topology", "N-N private"},
          {"primary_reason", "every rank writes its own file"},
          {"risk_analysis", {"a later step may read across nodes"}},
          {"evidence", {{{"file", "src/io.c"}, {"line", 42}, {"finding", "file.per_rank"}}}},
          {"scores", {{"1", 0.2}, {"2", 0.9}, {"3", 0.5}, {"4", 0.4}}}};
}

json Changed(const std::function<void(json&)>& change) {
  json a = Answer();
  change(a);
  return a;
}

// A chat-completions body whose message is `message`.
std::string WithMessage(const json& message, const std::string& finish = "stop") {
  return json{{"id", "chatcmpl-1"},
              {"object", "chat.completion"},
              {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish}}}}}
      .dump();
}
std::string WithContent(const std::string& content, const std::string& finish = "stop") {
  return WithMessage({{"role", "assistant"}, {"content", content}}, finish);
}
std::string WithAnswer(const json& answer) { return WithContent(answer.dump()); }

TEST_CASE("a good reply becomes the model's decision", "[modeselect][llm]") {
  Result<Decision> d = ParseChatReply(200, WithAnswer(Answer(2)));
  REQUIRE(d.has_value());
  CHECK(d->mode == 2);
  CHECK(d->confidence == Approx(0.85));
  CHECK(d->io_topology == "N-N private");
  CHECK(d->primary_reason == "every rank writes its own file");
  CHECK(d->risk_analysis == std::vector<std::string>{"a later step may read across nodes"});
  REQUIRE(d->evidence.size() == 1);
  CHECK(d->evidence[0].file == "src/io.c");
  CHECK(d->evidence[0].line == 42);
  CHECK(d->evidence[0].finding == "file.per_rank");
  CHECK(d->scores == std::array<double, 4>{0.2, 0.9, 0.5, 0.4});
  CHECK(d->selected_by == "llm");
}

TEST_CASE("every reply shape ends in the right decision or error", "[modeselect][llm]") {
  const std::string a = Answer(4).dump();
  struct Row {
    const char* name;
    long status;
    std::string body;
    int code;          // 0: a decision
    const char* says;  // in the error message; for a decision, "" or the mode as text
  };
  const Row rows[] = {
      // Good replies in the forms servers and models really produce.
      {"plain", 200, WithContent(a), 0, "4"},
      {"whitespace", 200, WithContent("\n\n  " + a + "  \n"), 0, "4"},
      {"json fence", 200, WithContent("```json\n" + a + "\n```"), 0, "4"},
      {"bare fence", 200, WithContent("```\n" + a + "\n```\n"), 0, "4"},
      {"prose around", 200, WithContent("Here is my answer: " + a + " Hope it helps."), 0, "4"},
      {"201", 201, WithContent(a), 0, "4"},
      {"reasoning_content only", 200, WithMessage({{"role", "assistant"}, {"content", ""}, {"reasoning_content", a}}),
       0, "4"},
      {"content null, reasoning", 200, WithMessage({{"role", "assistant"}, {"content", nullptr}, {"reasoning", a}}), 0,
       "4"},
      {"content wins over reasoning", 200,
       WithMessage({{"role", "assistant"}, {"content", a}, {"reasoning_content", Answer(1).dump()}}), 0, "4"},
      {"content parts", 200, WithMessage({{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", a}}}}}), 0,
       "4"},
      {"integral float mode", 200, WithAnswer(Changed([](json& j) { j["selected_mode"] = 2.0; })), 0, "2"},
      // Answers that break the schema: the key is named.
      {"no selected_mode", 200, WithAnswer(Changed([](json& j) { j.erase("selected_mode"); })), EBADMSG,
       "selected_mode: missing"},
      {"mode 7", 200, WithAnswer(Changed([](json& j) { j["selected_mode"] = 7; })), EBADMSG,
       "selected_mode: 7 is not one of"},
      {"mode 0", 200, WithAnswer(Changed([](json& j) { j["selected_mode"] = 0; })), EBADMSG, "selected_mode"},
      {"string mode", 200, WithAnswer(Changed([](json& j) { j["selected_mode"] = "2"; })), EBADMSG,
       "selected_mode: expected integer"},
      {"fractional mode", 200, WithAnswer(Changed([](json& j) { j["selected_mode"] = 2.5; })), EBADMSG,
       "selected_mode: expected integer"},
      {"bool mode", 200, WithAnswer(Changed([](json& j) { j["selected_mode"] = true; })), EBADMSG, "selected_mode"},
      {"confidence 1.2", 200, WithAnswer(Changed([](json& j) { j["confidence"] = 1.2; })), EBADMSG,
       "confidence: 1.2 is above 1"},
      {"confidence text", 200, WithAnswer(Changed([](json& j) { j["confidence"] = "high"; })), EBADMSG,
       "confidence: expected number"},
      {"unknown key", 200, WithAnswer(Changed([](json& j) { j["mode_name"] = "x"; })), EBADMSG,
       "mode_name: not a key of the schema"},
      {"score missing", 200, WithAnswer(Changed([](json& j) { j["scores"].erase("3"); })), EBADMSG,
       "scores.3: missing"},
      {"score extra", 200, WithAnswer(Changed([](json& j) { j["scores"]["5"] = 0.1; })), EBADMSG,
       "scores.5: not a key"},
      {"score negative", 200, WithAnswer(Changed([](json& j) { j["scores"]["2"] = -0.1; })), EBADMSG,
       "scores.2: -0.1 is below 0"},
      {"evidence line text", 200, WithAnswer(Changed([](json& j) { j["evidence"][0]["line"] = "42"; })), EBADMSG,
       "evidence[0].line: expected integer"},
      {"evidence extra key", 200, WithAnswer(Changed([](json& j) { j["evidence"][0]["why"] = "x"; })), EBADMSG,
       "evidence[0].why: not a key"},
      {"risks not a list", 200, WithAnswer(Changed([](json& j) { j["risk_analysis"] = "none"; })), EBADMSG,
       "risk_analysis: expected array"},
      {"risk not a string", 200, WithAnswer(Changed([](json& j) { j["risk_analysis"] = json::array({1}); })), EBADMSG,
       "risk_analysis[0]: expected string"},
      {"topology number", 200, WithAnswer(Changed([](json& j) { j["io_topology"] = 3; })), EBADMSG,
       "io_topology: expected string"},
      {"answer an array", 200, WithContent("[1, 2]"), EBADMSG, "the answer: expected object"},
      {"answer not JSON", 200, WithContent("I think mode 1 is best."), EBADMSG, "not JSON"},
      {"answer cut", 200, WithContent("{\"selected_mode\": 2, \"confid"), EBADMSG, "not JSON"},
      {"answer empty", 200, WithContent("  \n"), EBADMSG, "empty"},
      {"answer null", 200, WithMessage({{"role", "assistant"}, {"content", nullptr}}), EBADMSG, "empty"},
      // Replies that are not a usable completion.
      {"finish length", 200, WithContent("{\"selected_mode\": 2, \"confid", "length"), EMSGSIZE,
       "finish_reason \"length\""},
      {"choices empty", 200, R"({"id":"x","object":"chat.completion","choices":[]})", EPROTO, "choices are empty"},
      {"no choices", 200, R"({"id":"x","object":"chat.completion"})", EPROTO, "no choices"},
      {"choice without message", 200, R"({"choices":[{"index":0,"text":"hi"}]})", EPROTO, "no message"},
      {"body truncated", 200, WithAnswer(Answer()).substr(0, 60), EPROTO, "not a JSON object"},
      {"body html", 200, "<html>hello</html>", EPROTO, "not a JSON object"},
      {"body empty", 200, "", EPROTO, "not a JSON object"},
      {"error in a 200", 200, R"({"error":{"message":"context overflow","type":"server_error"}})", EPROTO,
       "context overflow"},
      // HTTP errors in the shapes real servers send.
      {"llama.cpp nested", 400,
       R"({"error":{"code":400,"message":"the request exceeds the available context size","type":"invalid_request_error"}})",
       EINVAL,
       "HTTP 400: the request exceeds the available context size (type "
       "invalid_request_error, code 400)"},
      {"vLLM nested", 404,
       R"({"error":{"message":"The model `x` does not exist.","type":"NotFoundError","param":null,"code":404}})",
       ENOENT, "HTTP 404: The model `x` does not exist. (type NotFoundError, code 404)"},
      {"Ollama /v1 nested, null code", 404,
       R"({"error":{"message":"model \"x\" not found, try pulling it first","type":"not_found_error","param":null,"code":null}})",
       ENOENT, "model \"x\" not found, try pulling it first (type not_found_error)"},
      {"Ollama string", 500, R"({"error":"model not found"})", EIO, "HTTP 500: model not found"},
      {"vLLM flat", 400,
       R"({"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400})",
       EINVAL, "HTTP 400: max_tokens is too large (type BadRequestError, code 400)"},
      {"FastAPI validation", 422, R"({"detail":[{"loc":["body","messages"],"msg":"Field required","type":"missing"}]})",
       EINVAL, "HTTP 422: body.messages: Field required"},
      {"FastAPI route", 405, R"({"detail":"Method Not Allowed"})", EINVAL, "HTTP 405: Method Not Allowed"},
      {"proxy html", 502, "<html><body>502 Bad Gateway</body></html>", EIO, "Bad Gateway"},
      {"busy", 503, R"({"error":{"code":503,"message":"Loading model","type":"unavailable_error"}})", EAGAIN,
       "Loading model"},
      {"rate limited", 429, R"({"error":{"message":"slow down","type":"rate_limit_error"}})", EAGAIN,
       "HTTP 429: slow down"},
      {"no key", 401, R"({"error":{"message":"Invalid API Key","type":"authentication_error"}})", EACCES,
       "Invalid API Key"},
      {"not implemented", 501, R"({"error":"no"})", ENOTSUP, "HTTP 501"},
      {"empty error body", 500, "", EIO, "HTTP 500: (empty body)"},
      {"redirect", 301, "", EPROTO, "HTTP 301"},
  };
  for (const Row& r : rows) {
    INFO(r.name);
    Result<Decision> d = ParseChatReply(r.status, r.body);
    if (r.code == 0) {
      REQUIRE(d.has_value());
      CHECK(std::to_string(d->mode) == r.says);
      CHECK(d->selected_by == "llm");
    } else {
      REQUIRE_FALSE(d.has_value());
      INFO(d.error().ToString());
      CHECK(d.error().code() == r.code);
      CHECK(d.error().message().find(r.says) != std::string::npos);
    }
  }
}

TEST_CASE("a server's long error message is cut short", "[modeselect][llm]") {
  const std::string body = json{{"error", {{"message", std::string(5000, 'x')}}}}.dump();
  Result<Decision> d = ParseChatReply(400, body);
  REQUIRE_FALSE(d.has_value());
  CHECK(d.error().message().size() < 400);
  CHECK(ServerErrorMessage("  \n ") == "(empty body)");
  CHECK(ServerErrorMessage("line one\nline two") == "line one line two");
}

}  // namespace
}  // namespace bb::modeselect
