// Error-body shapes, as the servers' sources write them:
//   - llama.cpp server: format_error_response() builds {"code", "message", "type"} (type
//     "invalid_request_error", "not_found_error", "server_error", "unavailable_error", ...) and
//     res_error() wraps it as {"error": {...}} with the HTTP status taken from "code"
//     (ggml-org/llama.cpp, tools/server/utils.hpp and server.cpp).
//   - vLLM: protocol.py's ErrorResponse is {"error": {"message", "type", "param", "code"}}
//     (ErrorInfo, vllm-project/vllm vllm/entrypoints/openai/protocol.py, 2025); older releases
//     sent it flat, {"object": "error", "message", "type", "param", "code"} (logged as
//     "object='error' message='The model ... does not exist.' type='NotFoundError' code=404",
//     vllm-project/vllm#16361). Routes that FastAPI answers itself give {"detail": "Not Found"}
//     or {"detail": "Method Not Allowed"} (vllm-project/vllm#7463); request validation gives
//     {"detail": [{"loc": [...], "msg": "...", "type": "..."}]}.
//   - Ollama: the native API answers {"error": "model 'x' not found"} (server/routes.go,
//     gin.H{"error": ...}); its /v1 layer answers {"error": {"message", "type", "param": null,
//     "code": null}} with type "invalid_request_error", "not_found_error" or "api_error"
//     (ollama/ollama openai/openai.go, NewError).

#include "modeselect/reason/llm_reply.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "modeselect/reason/prompt.h"

namespace bb::modeselect {
namespace {

using nlohmann::json;

constexpr size_t kMessageBytes = 300;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// `s` trimmed, on one line, at most `max` bytes.
std::string Quote(std::string_view s, size_t max = kMessageBytes) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s.substr(0, max));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (s.size() > max) out += "...";
  return out;
}

std::string TextOf(const json& j) { return j.is_string() ? j.get<std::string>() : Dump(j); }

// "message (type t, code c)" from an OpenAI-style error object.
std::string FromErrorObject(const json& e) {
  std::string out = e.contains("message") ? TextOf(e["message"]) : Dump(e);
  std::string extra;
  for (const char* key : {"type", "code"}) {
    if (e.contains(key) && !e[key].is_null()) {
      extra += std::string(extra.empty() ? "" : ", ") + key + " " + TextOf(e[key]);
    }
  }
  return extra.empty() ? out : out + " (" + extra + ")";
}

// FastAPI's detail: a string, or a list of {loc, msg, type}.
std::string FromDetail(const json& d) {
  if (!d.is_array()) return TextOf(d);
  std::string out;
  for (const json& item : d) {
    if (!out.empty()) out += "; ";
    if (!item.is_object()) {
      out += TextOf(item);
      continue;
    }
    if (item.contains("loc") && item["loc"].is_array()) {
      std::string loc;
      for (const json& part : item["loc"]) loc += (loc.empty() ? "" : ".") + TextOf(part);
      out += loc + ": ";
    }
    out += item.contains("msg") ? TextOf(item["msg"]) : Dump(item);
  }
  return out;
}

int ErrnoOfStatus(long status) {
  if (status == 429 || status == 503) return EAGAIN;
  if (status == 401 || status == 403) return EACCES;
  if (status == 404) return ENOENT;
  if (status == 501) return ENOTSUP;
  if (status >= 400 && status < 500) return EINVAL;
  if (status >= 500) return EIO;
  return EPROTO;  // 1xx, 3xx (redirects are not followed), nonsense
}

Status SchemaError(const std::string& path, const std::string& what) {
  return Status(EBADMSG, "the answer breaks the schema: " + path + ": " + what);
}

bool IsInteger(const json& v) {
  if (v.is_number_integer()) return true;
  return v.is_number_float() && std::isfinite(v.get<double>()) && v.get<double>() == std::floor(v.get<double>());
}

bool HasType(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "integer") return IsInteger(v);
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  return false;
}

Status Validate(const json& schema, const json& v, const std::string& path);

Status ValidateObject(const json& schema, const json& v, const std::string& path) {
  const std::string prefix = path.empty() ? "" : path + ".";
  const json& props = schema.contains("properties") ? schema["properties"] : json::object();
  if (schema.contains("required")) {
    for (const json& key : schema["required"]) {
      if (!v.contains(key.get<std::string>())) {
        return SchemaError(prefix + key.get<std::string>(), "missing");
      }
    }
  }
  for (const auto& [key, value] : v.items()) {
    if (!props.contains(key)) {
      if (schema.value("additionalProperties", true) == false) {
        return SchemaError(prefix + key, "not a key of the schema");
      }
      continue;
    }
    BB_RETURN_IF_ERROR(Validate(props[key], value, prefix + key));
  }
  return Status::Ok();
}

// The subset of JSON Schema that DecisionSchema() uses: type, enum, minimum, maximum,
// properties, required, additionalProperties: false, items.
Status Validate(const json& schema, const json& v, const std::string& path) {
  const std::string where = path.empty() ? "the answer" : path;
  if (schema.contains("type")) {
    const std::string type = schema["type"].get<std::string>();
    if (!HasType(v, type)) return SchemaError(where, "expected " + type + ", got " + Dump(v));
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const json& allowed : schema["enum"]) found = found || allowed == v;
    if (!found) return SchemaError(where, Dump(v) + " is not one of " + Dump(schema["enum"]));
  }
  if (v.is_number()) {
    const double x = v.get<double>();
    if (!std::isfinite(x)) return SchemaError(where, "not a finite number");
    if (schema.contains("minimum") && x < schema["minimum"].get<double>()) {
      return SchemaError(where, Dump(v) + " is below " + Dump(schema["minimum"]));
    }
    if (schema.contains("maximum") && x > schema["maximum"].get<double>()) {
      return SchemaError(where, Dump(v) + " is above " + Dump(schema["maximum"]));
    }
  }
  if (v.is_object()) return ValidateObject(schema, v, path);
  if (v.is_array() && schema.contains("items")) {
    for (size_t i = 0; i < v.size(); ++i) {
      BB_RETURN_IF_ERROR(Validate(schema["items"], v[i], where + "[" + std::to_string(i) + "]"));
    }
  }
  return Status::Ok();
}

// The message's text: content (a string, or an array of {type: "text", text} parts), or
// reasoning_content / reasoning when content is empty.
std::string MessageText(const json& message) {
  for (const char* key : {"content", "reasoning_content", "reasoning"}) {
    if (!message.contains(key)) continue;
    const json& c = message[key];
    std::string text;
    if (c.is_string()) text = c.get<std::string>();
    if (c.is_array()) {
      for (const json& part : c) {
        if (part.is_object() && part.contains("text") && part["text"].is_string()) {
          text += part["text"].get<std::string>();
        }
      }
    }
    if (!Quote(text).empty()) return text;
  }
  return "";
}

// The one JSON object in `text`: fences and prose around it removed.
std::string_view Unwrap(std::string_view text) {
  const size_t open = text.find('{');
  const size_t close = text.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return text;
  }
  return text.substr(open, close - open + 1);
}

Decision ToDecision(const json& a) {
  Decision d;
  d.mode = static_cast<int>(a["selected_mode"].get<double>());
  d.confidence = a["confidence"].get<double>();
  d.io_topology = a["io_topology"].get<std::string>();
  d.primary_reason = a["primary_reason"].get<std::string>();
  d.risk_analysis = a["risk_analysis"].get<std::vector<std::string>>();
  for (const json& e : a["evidence"]) {
    d.evidence.push_back(
        {e["file"].get<std::string>(), static_cast<int>(e["line"].get<double>()), e["finding"].get<std::string>()});
  }
  for (int m = 1; m <= 4; ++m) d.scores[m - 1] = a["scores"][std::to_string(m)].get<double>();
  d.selected_by = "llm";
  return d;
}

Result<Decision> ParseAnswer(const std::string& text) {
  const std::string_view inner = Unwrap(text);
  if (Quote(inner).empty()) return Status(EBADMSG, "the answer is empty");
  const json answer = json::parse(inner, nullptr, /*allow_exceptions=*/false);
  if (answer.is_discarded()) return Status(EBADMSG, "the answer is not JSON: " + Quote(inner, 120));
  static const json schema = DecisionSchema();
  BB_RETURN_IF_ERROR(Validate(schema, answer, ""));
  return ToDecision(answer);
}

Result<Decision> ParseOk(long http_status, std::string_view body) {
  const json reply = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (reply.is_discarded() || !reply.is_object()) {
    return Status(
        EPROTO, "HTTP " + std::to_string(http_status) + " with a body that is not a JSON object: " + Quote(body, 120));
  }
  if (reply.contains("error") && !reply.contains("choices")) {
    return Status(EPROTO, "HTTP " + std::to_string(http_status) + " carries an error: " + ServerErrorMessage(body));
  }
  if (!reply.contains("choices") || !reply["choices"].is_array()) {
    return Status(EPROTO, "the reply has no choices");
  }
  if (reply["choices"].empty()) return Status(EPROTO, "the reply's choices are empty");
  const json& choice = reply["choices"][0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) {
    return Status(EPROTO, "the reply's choices[0] has no message");
  }
  if (choice.value("finish_reason", json()) == "length") {
    return Status(EMSGSIZE, "the answer was cut at max_tokens (finish_reason \"length\")");
  }
  return ParseAnswer(MessageText(choice["message"]));
}

}  // namespace

std::string ServerErrorMessage(std::string_view body) {
  if (Quote(body).empty()) return "(empty body)";
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Quote(body);
  if (j.contains("error")) {
    return Quote(j["error"].is_object() ? FromErrorObject(j["error"]) : TextOf(j["error"]));
  }
  if (j.contains("detail")) return Quote(FromDetail(j["detail"]));
  if (j.contains("message")) return Quote(FromErrorObject(j));
  return Quote(Dump(j));
}

Result<Decision> ParseChatReply(long http_status, std::string_view body) {
  if (http_status < 200 || http_status > 299) {
    return Status(ErrnoOfStatus(http_status), "HTTP " + std::to_string(http_status) + ": " + ServerErrorMessage(body));
  }
  try {
    return ParseOk(http_status, body);
  } catch (const json::exception& e) {  // a type the checks above let through
    return Status(EPROTO, std::string("the reply could not be read: ") + e.what());
  }
}

}  // namespace bb::modeselect
