// The LLM reasoner's reply: a chat-completions response turned into a Decision, or into an
// error that carries the server's own words and the HTTP status.
//
// A good reply is HTTP 2xx with choices[0].message.content holding the decision as JSON text
// (see DecisionSchema() in modeselect/reason/prompt.h). Tolerated: whitespace around it, a
// ```json fence, prose around the one JSON object, content given as an array of text parts,
// and an empty content with the answer in reasoning_content (some servers split thinking
// models' output so). Everything else is checked against the schema itself — every required
// key, each type and range, no unknown keys — and a violation names the key.
//
// Error bodies are read in the shapes real servers send (cited in llm_reply.cc):
//   {"error": {"message", "type", "param", "code"}}   OpenAI, vLLM >= 0.10, llama.cpp, Ollama /v1
//   {"error": "..."}                                   Ollama's native API, proxies
//   {"object": "error", "message", "type", "code"}     vLLM before the nested form
//   {"detail": "..." | [{"loc", "msg", "type"}]}        FastAPI (vLLM's routes, validation)
//   anything else, JSON or not                          quoted, cut to a few hundred bytes
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "fs/base/status.h"
#include "modeselect/decision.h"

namespace bb::modeselect {

// The decision in a chat-completions reply (selected_by "llm", elapsed_ms 0), or:
//   HTTP status not 2xx: EAGAIN for 429 and 503, EACCES for 401/403, ENOENT for 404, EINVAL
//     for other 4xx, ENOTSUP for 501, EPROTO for a 1xx/3xx, EIO for other 5xx — the message
//     "HTTP <status>: <the server's message>";
//   EPROTO: a 2xx body that is not JSON (truncated, HTML) or has no choices[0].message, or an
//     error object in a 2xx body;
//   EMSGSIZE: finish_reason "length" (the answer was cut at max_tokens);
//   EBADMSG: content that is empty, not JSON, or breaks the schema (the message names the key).
Result<Decision> ParseChatReply(long http_status, std::string_view body);

// The server's message in an error body of any shape above, at most ~300 bytes; "(empty body)"
// for an empty one.
std::string ServerErrorMessage(std::string_view body);

}  // namespace bb::modeselect
