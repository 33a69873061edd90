// Private to modeselect/profile/: reading the probe profile document (tools/jobs/profile_doc.h)
// strictly — every field the format lists, with its type — and the summary's part of a version 2
// document (summary_json.cc), which the reader (probe_profile.cc) and the writer
// (probe_document.cc) share. The per-file counters' names are kIoCountFields (profile.h).
//
// Thread-safety: a Fields is one thread's.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fs/base/status.h"
#include "modeselect/profile/profile.h"
#include "modeselect/profile/summary.h"

namespace bb::modeselect::probe_json {

using nlohmann::json;

// `j` for a message, cut at 40 characters.
std::string Shown(const json& j);

// The fields of one JSON object, read with their types checked. The first error sticks; later
// reads return zero values, so a caller reads everything and asks status() once. `obj` must
// outlive this.
class Fields {
 public:
  Fields(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  Status status() const { return error_; }
  void Fail(const std::string& key, const std::string& what);

  // The value at `key`, or null (and an error when `required`).
  const json* Get(const char* key, bool required = true);
  uint64_t Count(const char* key, bool required = true);
  uint64_t CountOf(const json& v, const std::string& key);
  double Number(const char* key);
  int64_t Integer(const char* key);
  bool Bool(const char* key);
  std::string String(const char* key);
  const json& Array(const char* key) { return Typed(key, json::value_t::array, "an array"); }
  const json& Object(const char* key) { return Typed(key, json::value_t::object, "an object"); }

  uint32_t Node(const json& v, const std::string& key);
  std::optional<uint32_t> NodeOrNull(const char* key);
  std::vector<uint32_t> Nodes(const char* key);  // sorted
  std::vector<Process> Processes(const char* key);
  SizeBins Bins(const char* key);
  // Every counter of kIoCountFields and the two size histograms.
  IoCounts Counts();

 private:
  const json& Typed(const char* key, json::value_t type, const char* what);

  const json& obj_;
  std::string where_;
  Status error_;
};

// The counters of `io` as the format writes them (kIoCountFields and the size histograms).
json CountsJson(const IoCounts& io);

// A version 2 document's summary: "file_classes", "dir_classes", and the totals' "processes",
// "writer_processes" and "nodes". EINVAL naming the field, as the rest of the reader.
Status ReadSummary(const json& doc, ProfileSummary* s);
// The summary's classes as the document lists them (the totals' part is the writer's).
json FileClassesJson(const ProfileSummary& s);
json DirClassesJson(const ProfileSummary& s);

}  // namespace bb::modeselect::probe_json
