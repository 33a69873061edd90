// HttpClient: the seam for the one network call the mode selector makes — an HTTP POST to an
// OpenAI-compatible server — so the LLM reasoner is tested against an in-memory fake and a real
// stub server alike. The real implementation is libcurl's easy API (curl_http.cc, the only file
// that includes curl headers).
//
// Thread-safety: Post may be called from several threads at once on one client (each call is
// its own transfer).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::modeselect {

// The largest response body a client accepts.
inline constexpr size_t kMaxHttpResponseBytes = size_t{1} << 20;  // 1 MiB

struct HttpResponse {
  long status = 0;  // the HTTP status code, e.g. 200, 429
  std::string body;
};

class HttpClient {
 public:
  HttpClient() = default;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;
  virtual ~HttpClient() = default;

  // POSTs `body` to `url` with the extra `headers` ("Name: value"; Content-Type is the caller's
  // to set) and returns the response, whatever its status: an HTTP error status is a response,
  // not an error. Redirects are not followed (a 3xx is returned as it is).
  // Errors: ETIMEDOUT when the whole transfer (connect included) did not end within `deadline`
  // (a deadline <= 0 has passed already); ECONNREFUSED when nothing listens at the address;
  // EHOSTUNREACH when the host cannot be resolved or reached; EPROTO when the response is
  // malformed or truncated (fewer body bytes than Content-Length, an empty reply, a reset);
  // EMSGSIZE when the body exceeds kMaxHttpResponseBytes; EINVAL for a URL that is not http(s);
  // EIO for any other transport failure.
  virtual Result<HttpResponse> Post(const std::string& url, const std::vector<std::string>& headers,
                                    const std::string& body, std::chrono::milliseconds deadline) = 0;
};

// A client over libcurl. It connects to exactly the host of the URL: proxy settings in the
// environment (http_proxy, ...) are ignored, only http and https are spoken, and TLS peers are
// verified against the system's CA store.
std::unique_ptr<HttpClient> NewCurlHttpClient();

}  // namespace bb::modeselect
