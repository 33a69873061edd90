// The LLM reasoner and the curl client against the real stub server (test/llm_stub.py), one
// process per test case, spawned with pipes and always reaped.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "modeselect/reason/http.h"
#include "modeselect/reason/llm.h"

extern char** environ;

namespace bb::modeselect {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// The stub server as a child process: its stdin is a pipe this object holds (closing it ends
// the stub, so even a test binary that dies leaves nothing behind), its stdout gives the port.
class StubServer {
 public:
  StubServer() {
    const std::string err = Start();
    if (!err.empty()) {
      Stop();
      FAIL("stub server: " << err);
    }
  }
  StubServer(const StubServer&) = delete;
  StubServer& operator=(const StubServer&) = delete;
  ~StubServer() { Stop(); }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  pid_t pid() const { return pid_; }

  // Closes the stub's stdin, which should make it exit.
  void CloseStdin() {
    if (stdin_ >= 0) close(stdin_);
    stdin_ = -1;
  }
  // Waits up to `limit` for the stub to exit; its wait status, or -1 if it is still running.
  int WaitExit(milliseconds limit) {
    const auto end = steady_clock::now() + limit;
    while (pid_ > 0) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return status;
      }
      if (steady_clock::now() >= end) break;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return -1;
  }

 private:
  std::string Start() {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return "pipe2 failed";
    if (pipe2(out, O_CLOEXEC) != 0) {
      close(in[0]), close(in[1]);
      return "pipe2 failed";
    }
    stdin_ = in[1];
    stdout_ = out[0];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);  // dup2 clears O_CLOEXEC
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    std::string python = "/usr/bin/python3", script = BB_SOURCE_DIR "/test/llm_stub.py";
    char* argv[] = {python.data(), script.data(), nullptr};
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]), close(out[1]);
    if (rc != 0) {
      pid_ = -1;
      return "posix_spawn: " + std::string(strerror(rc));
    }
    return ReadPort(milliseconds(10000));
  }

  std::string ReadPort(milliseconds limit) {
    std::string line;
    const auto end = steady_clock::now() + limit;
    while (line.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<milliseconds>(end - steady_clock::now());
      if (left.count() <= 0) return "no PORT line within " + std::to_string(limit.count()) + " ms";
      pollfd p = {stdout_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[256];
      const ssize_t n = read(stdout_, buf, sizeof buf);
      if (n <= 0) return "the stub exited before printing its port";
      line.append(buf, n);
    }
    if (sscanf(line.c_str(), "PORT %d", &port_) != 1 || port_ <= 0) return "bad line: " + line;
    return "";
  }

  void Stop() {
    CloseStdin();
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      if (WaitExit(milliseconds(3000)) == -1 && pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
      }
    }
    if (stdout_ >= 0) close(stdout_);
    stdout_ = -1;
  }

  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  int port_ = 0;
};

LlmOptions Options(const std::string& base_url, const std::string& model, milliseconds deadline = milliseconds(10000)) {
  LlmOptions o;
  o.base_url = base_url;
  o.model = model;
  o.deadline = deadline;
  return o;
}

// The reasoner's raw outcome against `base_url` with `model`.
Result<Decision> Ask(HttpClient* http, const LlmOptions& o) {
  SystemClock clock;
  LlmReasoner reasoner(o, http, &clock);
  return reasoner.Decide(Evidence{}, KnowledgeBase{});
}

std::string Says(const Result<Decision>& r) {
  return r.has_value() ? "mode " + std::to_string(r->mode) : r.error().ToString();
}

TEST_CASE("stub: good replies through curl become decisions", "[modeselect][llm]") {
  StubServer stub;
  auto http = NewCurlHttpClient();
  struct Row {
    const char* model;
    const char* api_key;
    int mode;            // after Finalize(0.7)
    const char* by;      // selected_by after Finalize
    const char* reason;  // in primary_reason
  };
  const Row rows[] = {
      {"good", "", 3, "llm", "every rank writes its own file"},
      {"good-1", "", 1, "llm", "stub"},
      {"good-4", "", 4, "llm", "stub"},
      {"fenced", "", 4, "llm", "stub"},
      {"reasoning", "", 2, "llm", "stub"},
      {"auth", "sk-test", 2, "llm", "stub"},
      {"low-confidence", "", 3, "fallback", "chose mode 1 with confidence 0.30"},
  };
  for (const Row& r : rows) {
    INFO(r.model);
    LlmOptions o = Options(stub.base_url(), r.model);
    o.api_key = r.api_key;
    const Result<Decision> outcome = Ask(http.get(), o);
    INFO(Says(outcome));
    REQUIRE(outcome.has_value());
    CHECK(outcome->selected_by == "llm");
    const Decision d = Finalize(outcome, 0.7);
    CHECK(d.mode == r.mode);
    CHECK(d.selected_by == r.by);
    CHECK(d.primary_reason.find(r.reason) != std::string::npos);
  }
}

TEST_CASE("stub: broken answers and HTTP errors end in the fallback with the server's words", "[modeselect][llm]") {
  StubServer stub;
  auto http = NewCurlHttpClient();
  struct Row {
    const char* model;
    int code;
    const char* says;
  };
  const Row rows[] = {
      {"schema-break", EBADMSG, "selected_mode: missing"},
      {"schema-break-mode7", EBADMSG, "selected_mode: 7 is not one of"},
      {"schema-break-string", EBADMSG, "selected_mode: expected integer"},
      {"good-7", EBADMSG, "selected_mode"},
      {"error-nested", EINVAL, "HTTP 400: messages: field required (type invalid_request_error"},
      {"error-string", EIO, "HTTP 500: model not found"},
      {"error-detail", EINVAL, "HTTP 422: body.messages: Field required"},
      {"error-object", EINVAL, "HTTP 400: max_tokens is too large (type BadRequestError"},
      {"error-text", EIO, "HTTP 502: <html><body>502 Bad Gateway"},
      {"auth", EACCES, "HTTP 401: invalid api key"},
      {"no-such-behaviour", ENOENT, "HTTP 404"},
      {"length", EMSGSIZE, "finish_reason \"length\""},
      {"empty-choices", EPROTO, "choices are empty"},
      {"truncated", EPROTO, "127.0.0.1"},
  };
  for (const Row& r : rows) {
    INFO(r.model);
    const Result<Decision> outcome = Ask(http.get(), Options(stub.base_url(), r.model));
    REQUIRE_FALSE(outcome.has_value());
    INFO(outcome.error().ToString());
    CHECK(outcome.error().code() == r.code);
    CHECK(outcome.error().message().find(r.says) != std::string::npos);
    CHECK(outcome.error().message().find("attempt 1 of 3") != std::string::npos);
    const Decision d = Finalize(outcome, 0.7);
    CHECK(d.mode == 3);
    CHECK(d.selected_by == "fallback");
    CHECK(d.primary_reason.find(r.says) != std::string::npos);
  }
}

TEST_CASE("stub: a server that never answers ends at the deadline", "[modeselect][llm]") {
  StubServer stub;
  auto http = NewCurlHttpClient();
  const auto start = steady_clock::now();
  const Result<Decision> outcome = Ask(http.get(), Options(stub.base_url(), "never", milliseconds(1500)));
  const auto took = steady_clock::now() - start;
  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().code() == ETIMEDOUT);
  CHECK(took >= milliseconds(1400));
  CHECK(took < milliseconds(2500));
  CHECK(Finalize(outcome, 0.7).selected_by == "fallback");
}

TEST_CASE("stub: 429 and 503 are retried to success", "[modeselect][llm]") {
  StubServer stub;
  auto http = NewCurlHttpClient();
  for (const char* model : {"flaky-429", "flaky-503"}) {
    INFO(model);
    const Result<Decision> outcome = Ask(http.get(), Options(stub.base_url(), model));
    INFO(Says(outcome));
    REQUIRE(outcome.has_value());
    CHECK(outcome->mode == 3);
    CHECK(outcome->elapsed_ms >= 700);  // two backoffs: 250 ms and 500 ms
    CHECK(Finalize(outcome, 0.7).selected_by == "llm");
  }
  LlmOptions twice = Options(stub.base_url(), "flaky-429-twice");
  twice.max_attempts = 2;
  const Result<Decision> outcome = Ask(http.get(), twice);
  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().code() == EAGAIN);
  CHECK(outcome.error().message().find("busy, try again") != std::string::npos);
}

TEST_CASE("stub: a closed port is refused, retried and given up quickly", "[modeselect][llm]") {
  // A socket bound but not listening: connecting to it is refused, and no one else takes it.
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(s >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/v1";

  auto http = NewCurlHttpClient();
  const auto start = steady_clock::now();
  const Result<Decision> outcome = Ask(http.get(), Options(url, "good"));
  const auto took = steady_clock::now() - start;
  close(s);
  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().code() == ECONNREFUSED);
  CHECK(outcome.error().message().find("attempt 3 of 3") != std::string::npos);
  CHECK(took < milliseconds(3000));
  const Decision d = Finalize(outcome, 0.7);
  CHECK(d.mode == 3);
  CHECK(d.selected_by == "fallback");
}

TEST_CASE("stub: the curl client's own errors", "[modeselect][llm]") {
  StubServer stub;
  auto http = NewCurlHttpClient();
  const std::string url = stub.base_url() + "/chat/completions";
  auto body = [](const std::string& model) {
    return R"({"model":")" + model +
           R"(","response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{}}}})";
  };
  const std::vector<std::string> headers = {"Content-Type: application/json"};
  struct Row {
    const char* model;
    int code;
  };
  for (const Row& r :
       {Row{"huge", EMSGSIZE}, Row{"huge-chunked", EMSGSIZE}, Row{"truncated", EPROTO}, Row{"never", ETIMEDOUT}}) {
    INFO(r.model);
    Result<HttpResponse> got = http->Post(url, headers, body(r.model), milliseconds(700));
    REQUIRE_FALSE(got.has_value());
    INFO(got.error().ToString());
    CHECK(got.error().code() == r.code);
  }
  Result<HttpResponse> ok = http->Post(url, headers, body("good"), milliseconds(5000));
  REQUIRE(ok.has_value());
  CHECK(ok->status == 200);
  Result<HttpResponse> missing = http->Post(stub.base_url() + "/nowhere", headers, "{}", milliseconds(5000));
  REQUIRE(missing.has_value());  // an HTTP error status is a response
  CHECK(missing->status == 404);
  CHECK(missing->body == R"({"detail": "Not Found"})");
  CHECK(http->Post(url, headers, body("good"), milliseconds(0)).error().code() == ETIMEDOUT);
  CHECK(http->Post("ftp://127.0.0.1/x", headers, "{}", milliseconds(1000)).error().code() == EINVAL);
}

TEST_CASE("stub: the server exits when its stdin closes and on SIGTERM", "[modeselect][llm]") {
  {
    StubServer stub;
    stub.CloseStdin();
    const int status = stub.WaitExit(milliseconds(3000));
    REQUIRE(status != -1);
    CHECK(WIFEXITED(status));
  }
  {
    StubServer stub;
    REQUIRE(kill(stub.pid(), SIGTERM) == 0);
    const int status = stub.WaitExit(milliseconds(3000));
    REQUIRE(status != -1);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
}

}  // namespace
}  // namespace bb::modeselect
