// The HttpClient over libcurl's easy API: one easy handle per Post, so concurrent calls share
// nothing but the process-wide curl_global_init.

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "modeselect/reason/http.h"

namespace bb::modeselect {
namespace {

// curl_global_init is not thread-safe in every libcurl build, so it runs once for the process;
// it is never undone (curl_global_cleanup at exit would race with other users of libcurl).
CURLcode GlobalInitOnce() {
  static std::once_flag once;
  static CURLcode rc = CURLE_OK;
  std::call_once(once, [] { rc = curl_global_init(CURL_GLOBAL_DEFAULT); });
  return rc;
}

struct Sink {
  std::string body;
  bool too_big = false;
};

// Returning less than it was given makes curl fail the transfer with CURLE_WRITE_ERROR: that is
// how a body past the bound stops (a chunked body has no Content-Length for MAXFILESIZE).
size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t bytes = size * n;
  if (sink->body.size() + bytes > kMaxHttpResponseBytes) {
    sink->too_big = true;
    return 0;
  }
  sink->body.append(data, bytes);
  return bytes;
}

struct EasyDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using Easy = std::unique_ptr<CURL, EasyDeleter>;
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

// The errno for a failed transfer; `os_errno` is curl's CURLINFO_OS_ERRNO.
int ErrnoOf(CURLcode rc, long os_errno, bool too_big) {
  switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
      return ETIMEDOUT;
    case CURLE_COULDNT_CONNECT:
      if (os_errno == EHOSTUNREACH || os_errno == ENETUNREACH) return EHOSTUNREACH;
      if (os_errno == ETIMEDOUT) return ETIMEDOUT;
      return ECONNREFUSED;
    case CURLE_COULDNT_RESOLVE_HOST:
      return EHOSTUNREACH;
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
      return EPROTO;
    case CURLE_FILESIZE_EXCEEDED:
      return EMSGSIZE;
    case CURLE_WRITE_ERROR:
      return too_big ? EMSGSIZE : EIO;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return EINVAL;
    default:
      return EIO;
  }
}

class CurlHttpClient final : public HttpClient {
 public:
  Result<HttpResponse> Post(const std::string& url, const std::vector<std::string>& headers, const std::string& body,
                            std::chrono::milliseconds deadline) override;

 private:
  // Sets every option of one transfer; false when libcurl refused one (too old a libcurl).
  static bool Configure(CURL* h, const std::string& url, curl_slist* headers, const std::string& body, long timeout_ms,
                        Sink* sink, char* errbuf);
};

bool CurlHttpClient::Configure(CURL* h, const std::string& url, curl_slist* headers, const std::string& body,
                               long timeout_ms, Sink* sink, char* errbuf) {
  CURLcode rc = CURLE_OK;
  auto set = [&](CURLoption option, auto value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(h, option, value);
  };
  set(CURLOPT_ERRORBUFFER, errbuf);
  set(CURLOPT_URL, url.c_str());
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_FOLLOWLOCATION, 0L);
  set(CURLOPT_PROXY, "");  // "" = no proxy, not even one from the environment
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_TIMEOUT_MS, timeout_ms);
  set(CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  set(CURLOPT_POST, 1L);
  set(CURLOPT_POSTFIELDS, body.data());
  set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  set(CURLOPT_HTTPHEADER, headers);
  set(CURLOPT_USERAGENT, "bb-modeselect");
  set(CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(kMaxHttpResponseBytes));
  set(CURLOPT_WRITEFUNCTION, &WriteBody);
  set(CURLOPT_WRITEDATA, static_cast<void*>(sink));
  return rc == CURLE_OK;
}

Result<HttpResponse> CurlHttpClient::Post(const std::string& url, const std::vector<std::string>& headers,
                                          const std::string& body, std::chrono::milliseconds deadline) {
  // CURLOPT_TIMEOUT_MS 0 would mean "no timeout", so a spent deadline never reaches curl.
  if (deadline.count() <= 0) {
    return Status(ETIMEDOUT, url + ": the deadline passed before the request was sent");
  }
  if (GlobalInitOnce() != CURLE_OK) return Status(EIO, "curl_global_init failed");
  Easy h(curl_easy_init());
  if (!h) return Status(ENOMEM, "curl_easy_init failed");

  // "Expect:" stops curl from waiting for a 100 Continue before sending a large body.
  // Appending to a non-empty list keeps its head, so only the first append can move it.
  Slist list(curl_slist_append(nullptr, "Expect:"));
  if (!list) return Status(ENOMEM, "curl_slist_append failed");
  for (const std::string& header : headers) {
    if (curl_slist_append(list.get(), header.c_str()) == nullptr) {
      return Status(ENOMEM, "curl_slist_append failed");
    }
  }

  Sink sink;
  char errbuf[CURL_ERROR_SIZE] = {0};
  if (!Configure(h.get(), url, list.get(), body, static_cast<long>(deadline.count()), &sink, errbuf)) {
    return Status(EINVAL, url + ": libcurl refused an option: " + errbuf);
  }
  const CURLcode rc = curl_easy_perform(h.get());
  if (rc != CURLE_OK) {
    long os_errno = 0;
    (void)curl_easy_getinfo(h.get(), CURLINFO_OS_ERRNO, &os_errno);
    std::string what = curl_easy_strerror(rc);
    if (errbuf[0] != '\0') what += std::string(" (") + errbuf + ")";
    if (sink.too_big) what = "the response is larger than 1 MiB";
    return Status(ErrnoOf(rc, os_errno, sink.too_big), url + ": " + what);
  }
  HttpResponse response;
  (void)curl_easy_getinfo(h.get(), CURLINFO_RESPONSE_CODE, &response.status);
  response.body = std::move(sink.body);
  return response;
}

}  // namespace

std::unique_ptr<HttpClient> NewCurlHttpClient() { return std::make_unique<CurlHttpClient>(); }

}  // namespace bb::modeselect
