#include "modeselect/profile/json_fields.h"

#include <algorithm>
#include <cerrno>
#include <limits>
#include <string_view>

namespace bb::modeselect::probe_json {
namespace {

// "NODE:PID": digits, a colon, digits.
bool IsNodePid(const std::string& s) {
  size_t colon = s.find(':');
  auto digits = [](std::string_view d) {
    return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return colon != std::string::npos && digits(std::string_view(s).substr(0, colon)) &&
         digits(std::string_view(s).substr(colon + 1));
}

}  // namespace

std::string Shown(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

void Fields::Fail(const std::string& key, const std::string& what) {
  if (error_.ok()) error_ = Status(EINVAL, (where_.empty() ? "" : where_ + ": ") + key + ": " + what);
}

const json* Fields::Get(const char* key, bool required) {
  auto it = obj_.find(key);
  if (it != obj_.end()) return &*it;
  if (required) Fail(key, "missing");
  return nullptr;
}

uint64_t Fields::Count(const char* key, bool required) {
  const json* v = Get(key, required);
  return v ? CountOf(*v, key) : 0;
}

uint64_t Fields::CountOf(const json& v, const std::string& key) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  Fail(key, "expected a count (an integer >= 0), got " + Shown(v));
  return 0;
}

double Fields::Number(const char* key) {
  const json* v = Get(key);
  if (v && v->is_number()) return v->get<double>();
  if (v) Fail(key, std::string("expected a number, got ") + v->type_name());
  return 0;
}

int64_t Fields::Integer(const char* key) {
  const json* v = Get(key);
  if (v && v->is_number_integer()) return v->get<int64_t>();
  if (v) Fail(key, "expected an integer, got " + Shown(*v));
  return 0;
}

bool Fields::Bool(const char* key) {
  const json* v = Get(key);
  if (v && v->is_boolean()) return v->get<bool>();
  if (v) Fail(key, std::string("expected true or false, got ") + v->type_name());
  return false;
}

std::string Fields::String(const char* key) {
  const json* v = Get(key);
  if (v && v->is_string()) return v->get<std::string>();
  if (v) Fail(key, std::string("expected a string, got ") + v->type_name());
  return "";
}

uint32_t Fields::Node(const json& v, const std::string& key) {
  uint64_t n = CountOf(v, key);
  if (n > std::numeric_limits<uint32_t>::max()) Fail(key, "node id " + std::to_string(n) + " out of range");
  return static_cast<uint32_t>(n);
}

std::optional<uint32_t> Fields::NodeOrNull(const char* key) {
  const json* v = Get(key);
  if (!v || v->is_null()) return std::nullopt;
  return Node(*v, key);
}

std::vector<uint32_t> Fields::Nodes(const char* key) {
  std::vector<uint32_t> out;
  const json& a = Array(key);
  for (size_t i = 0; i < a.size(); ++i) out.push_back(Node(a[i], std::string(key) + "[" + std::to_string(i) + "]"));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Process> Fields::Processes(const char* key) {
  std::vector<Process> out;
  const json& a = Array(key);
  for (size_t i = 0; i < a.size(); ++i) {
    std::string at = std::string(key) + "[" + std::to_string(i) + "]";
    if (!a[i].is_string() || !IsNodePid(a[i].get<std::string>())) {
      Fail(at, "expected \"NODE:PID\", got " + Shown(a[i]));
      continue;
    }
    out.push_back(Process{a[i].get<std::string>(), std::nullopt});
  }
  std::sort(out.begin(), out.end(), [](const Process& x, const Process& y) { return x.name < y.name; });
  return out;
}

SizeBins Fields::Bins(const char* key) {
  SizeBins bins{};
  const json& a = Array(key);
  if (!error_.ok()) return bins;
  if (a.size() != kSizeBinCount) {
    Fail(key, "expected " + std::to_string(kSizeBinCount) + " counts, got " + std::to_string(a.size()));
    return bins;
  }
  for (size_t i = 0; i < kSizeBinCount; ++i) bins[i] = CountOf(a[i], std::string(key) + "[" + std::to_string(i) + "]");
  return bins;
}

IoCounts Fields::Counts() {
  IoCounts io;
  for (const IoCountField& c : kIoCountFields) io.*c.member = Count(c.key);
  io.read_sizes = Bins("read_sizes");
  io.write_sizes = Bins("write_sizes");
  return io;
}

const json& Fields::Typed(const char* key, json::value_t type, const char* what) {
  static const json kEmptyArray = json::array(), kEmptyObject = json::object();
  const json& empty = type == json::value_t::array ? kEmptyArray : kEmptyObject;
  const json* v = Get(key);
  if (v && v->type() == type) return *v;
  if (v) Fail(key, std::string("expected ") + what + ", got " + v->type_name());
  return empty;
}

json CountsJson(const IoCounts& io) {
  json out = json::object();
  for (const IoCountField& c : kIoCountFields) out[c.key] = io.*c.member;
  out["read_sizes"] = io.read_sizes;
  out["write_sizes"] = io.write_sizes;
  return out;
}

}  // namespace bb::modeselect::probe_json
