// The probe profile document (tools/jobs/profile_doc.h, version 1) read strictly: every field
// the format lists, with its type. The first problem found is the one reported.
//
// The producer (tools/jobs/profile_doc.cc, MergeProfiles) writes the totals' file sums only
// when there is a file and the directory sums only when there is a directory, so those keys are
// required exactly then.

#include <algorithm>
#include <cerrno>
#include <limits>
#include <nlohmann/json.hpp>

#include "modeselect/profile/profile.h"

namespace bb::modeselect {
namespace {

using nlohmann::json;

constexpr int kProbeVersion = 1;

struct CountField {
  const char* key;
  uint64_t IoCounts::*member;
};
// The per-file counters of the format; the totals carry the same sums but max_offset.
constexpr CountField kFileCounts[] = {
    {"opens", &IoCounts::opens},
    {"reads", &IoCounts::reads},
    {"writes", &IoCounts::writes},
    {"bytes_read", &IoCounts::bytes_read},
    {"bytes_written", &IoCounts::bytes_written},
    {"seq_reads", &IoCounts::seq_reads},
    {"consec_reads", &IoCounts::consec_reads},
    {"seq_writes", &IoCounts::seq_writes},
    {"consec_writes", &IoCounts::consec_writes},
    {"seeks", &IoCounts::seeks},
    {"stats", &IoCounts::stats},
    {"fsyncs", &IoCounts::fsyncs},
    {"truncates", &IoCounts::truncates},
    {"renames", &IoCounts::renames},
    {"unlinks", &IoCounts::unlinks},
    {"append_writes", &IoCounts::append_writes},
    {"max_offset", &IoCounts::max_offset},
};

std::string Shown(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

// The fields of one JSON object, read with their types checked. The first error sticks; later
// reads return zero values, so a caller reads everything and asks status() once.
class Fields {
 public:
  Fields(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  Status status() const { return error_; }
  void Fail(const std::string& key, const std::string& what) {
    if (error_.ok()) error_ = Status(EINVAL, (where_.empty() ? "" : where_ + ": ") + key + ": " + what);
  }

  // The value at `key`, or null (and an error when `required`).
  const json* Get(const char* key, bool required = true) {
    auto it = obj_.find(key);
    if (it != obj_.end()) return &*it;
    if (required) Fail(key, "missing");
    return nullptr;
  }
  uint64_t Count(const char* key, bool required = true) {
    const json* v = Get(key, required);
    return v ? CountOf(*v, key) : 0;
  }
  uint64_t CountOf(const json& v, const std::string& key) {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    Fail(key, "expected a count (an integer >= 0), got " + Shown(v));
    return 0;
  }
  double Number(const char* key) {
    const json* v = Get(key);
    if (v && v->is_number()) return v->get<double>();
    if (v) Fail(key, std::string("expected a number, got ") + v->type_name());
    return 0;
  }
  int64_t Integer(const char* key) {
    const json* v = Get(key);
    if (v && v->is_number_integer()) return v->get<int64_t>();
    if (v) Fail(key, "expected an integer, got " + Shown(*v));
    return 0;
  }
  std::string String(const char* key) {
    const json* v = Get(key);
    if (v && v->is_string()) return v->get<std::string>();
    if (v) Fail(key, std::string("expected a string, got ") + v->type_name());
    return "";
  }
  const json& Array(const char* key) { return Typed(key, json::value_t::array, "an array"); }
  const json& Object(const char* key) { return Typed(key, json::value_t::object, "an object"); }

  uint32_t Node(const json& v, const std::string& key) {
    uint64_t n = CountOf(v, key);
    if (n > std::numeric_limits<uint32_t>::max()) Fail(key, "node id " + std::to_string(n) + " out of range");
    return static_cast<uint32_t>(n);
  }
  std::optional<uint32_t> NodeOrNull(const char* key) {
    const json* v = Get(key);
    if (!v || v->is_null()) return std::nullopt;
    return Node(*v, key);
  }
  std::vector<uint32_t> Nodes(const char* key) {
    std::vector<uint32_t> out;
    const json& a = Array(key);
    for (size_t i = 0; i < a.size(); ++i) out.push_back(Node(a[i], std::string(key) + "[" + std::to_string(i) + "]"));
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<Process> Processes(const char* key);
  SizeBins Bins(const char* key);

 private:
  const json& Typed(const char* key, json::value_t type, const char* what) {
    static const json kEmptyArray = json::array(), kEmptyObject = json::object();
    const json& empty = type == json::value_t::array ? kEmptyArray : kEmptyObject;
    const json* v = Get(key);
    if (v && v->type() == type) return *v;
    if (v) Fail(key, std::string("expected ") + what + ", got " + v->type_name());
    return empty;
  }

  const json& obj_;
  std::string where_;
  Status error_;
};

// "NODE:PID": digits, a colon, digits.
bool IsNodePid(const std::string& s) {
  size_t colon = s.find(':');
  auto digits = [](std::string_view d) {
    return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return colon != std::string::npos && digits(std::string_view(s).substr(0, colon)) &&
         digits(std::string_view(s).substr(colon + 1));
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

Status ReadJob(const json& doc, ProfileJob* job) {
  Fields top(doc, "");
  Fields f(top.Object("job"), "job");
  BB_RETURN_IF_ERROR(top.status());
  job->name = f.String("name");
  job->mode = static_cast<int>(f.Integer("mode"));
  if (f.status().ok() && (job->mode < 1 || job->mode > 4))
    f.Fail("mode", "expected 1 to 4, got " + std::to_string(job->mode));
  for (auto [key, into] : {std::pair{"nodes", &job->nodes}, std::pair{"tasks", &job->tasks},
                           std::pair{"tasks_per_node", &job->tasks_per_node}}) {
    uint64_t n = f.Count(key);
    if (n > std::numeric_limits<uint32_t>::max()) f.Fail(key, "out of range");
    *into = static_cast<uint32_t>(n);
  }
  double wall = f.Number("wall_seconds");
  if (wall < 0) f.Fail("wall_seconds", "negative");
  job->wall_seconds = wall;
  job->exit_status = static_cast<int>(f.Integer("exit_status"));
  job->script = f.String("script");
  return f.status();
}

Status ReadTotals(const json& doc, size_t files, size_t dirs, ProfileTotals* t) {
  Fields top(doc, "");
  Fields f(top.Object("totals"), "totals");
  BB_RETURN_IF_ERROR(top.status());
  t->files = f.Count("files");
  t->dirs = f.Count("dirs");
  for (const CountField& c : kFileCounts) {
    std::string_view key = c.key;
    if (key == "max_offset") continue;
    bool dir_sum = key == "unlinks";  // the directories count unlinks
    t->io.*c.member = f.Count(c.key, dir_sum ? dirs > 0 : files > 0);
  }
  t->creates = f.Count("creates", dirs > 0);
  t->lookups = f.Count("lookups", dirs > 0);
  t->readdirs = f.Count("readdirs", dirs > 0);
  t->meta_ops = f.Count("meta_ops");
  t->data_ops = f.Count("data_ops");
  return f.status();
}

Status ReadTimeline(const json& doc, Timeline* tl, double* start_unix) {
  Fields top(doc, "");
  Fields f(top.Object("timeline"), "timeline");
  BB_RETURN_IF_ERROR(top.status());
  tl->bucket_seconds = f.Number("bucket_seconds");
  if (f.status().ok() && !(tl->bucket_seconds > 0)) f.Fail("bucket_seconds", "must be > 0");
  *start_unix = f.Number("start_unix");
  const json& buckets = f.Array("buckets");
  BB_RETURN_IF_ERROR(f.status());
  for (size_t i = 0; i < buckets.size(); ++i) {
    std::string where = "timeline.buckets[" + std::to_string(i) + "]";
    if (!buckets[i].is_object()) return Status(EINVAL, where + ": expected an object");
    Fields b(buckets[i], where);
    TimeBucket tb;
    tb.t = static_cast<int64_t>(b.Count("t"));
    tb.meta_ops = b.Count("meta_ops");
    tb.data_ops = b.Count("data_ops");
    tb.bytes_read = b.Count("bytes_read");
    tb.bytes_written = b.Count("bytes_written");
    BB_RETURN_IF_ERROR(b.status());
    tl->buckets.push_back(tb);
  }
  std::stable_sort(tl->buckets.begin(), tl->buckets.end(),
                   [](const TimeBucket& x, const TimeBucket& y) { return x.t < y.t; });
  return Status::Ok();
}

// "files[3] \"/ckpt/r3\"": where an entry of a list is, with its path when it has one.
std::string EntryName(const char* list, size_t i, const json& entry) {
  std::string where = std::string(list) + "[" + std::to_string(i) + "]";
  auto it = entry.is_object() ? entry.find("path") : entry.end();
  if (entry.is_object() && it != entry.end() && it->is_string()) where += " \"" + it->get<std::string>() + "\"";
  return where;
}

Result<FileRecord> ReadFile(const json& entry, const std::string& where) {
  if (!entry.is_object()) return Status(EINVAL, where + ": expected an object");
  Fields f(entry, where);
  FileRecord r;
  r.path = f.String("path");
  for (const CountField& c : kFileCounts) r.io.*c.member = f.Count(c.key);
  r.io.read_sizes = f.Bins("read_sizes");
  r.io.write_sizes = f.Bins("write_sizes");
  r.first_unix = f.Number("first_unix");
  r.last_unix = f.Number("last_unix");
  r.created_on = f.NodeOrNull("created_on");
  r.opened_on = f.Nodes("opened_on");
  r.writer_nodes = f.Nodes("writer_nodes");
  r.reader_nodes = f.Nodes("reader_nodes");
  r.stat_nodes = f.Nodes("stat_nodes");
  r.writers = f.Processes("writers");
  r.readers = f.Processes("readers");
  BB_RETURN_IF_ERROR(f.status());
  return r;
}

Result<DirRecord> ReadDir(const json& entry, const std::string& where) {
  if (!entry.is_object()) return Status(EINVAL, where + ": expected an object");
  Fields f(entry, where);
  DirRecord d;
  d.path = f.String("path");
  d.creates = f.Count("creates");
  d.unlinks = f.Count("unlinks");
  d.lookups = f.Count("lookups");
  d.readdirs = f.Count("readdirs");
  d.created_on = f.NodeOrNull("created_on");
  d.entry_nodes = f.Nodes("entry_nodes");
  d.lookup_nodes = f.Nodes("lookup_nodes");
  d.readdir_nodes = f.Nodes("readdir_nodes");
  BB_RETURN_IF_ERROR(f.status());
  return d;
}

Status ReadVersion(const json& doc) {
  Fields top(doc, "");
  const json* v = top.Get("version");
  BB_RETURN_IF_ERROR(top.status());
  if (!v->is_number_integer()) return Status(EINVAL, "version: expected an integer, got " + Shown(*v));
  if (v->get<int64_t>() != kProbeVersion) {
    return Status(EINVAL, "version: " + Shown(*v) + " is not supported (this reader knows version " +
                              std::to_string(kProbeVersion) + ")");
  }
  return Status::Ok();
}

Status ReadDocument(const json& doc, Profile* p) {
  if (!doc.is_object()) return Status(EINVAL, std::string("expected a JSON object, got ") + doc.type_name());
  BB_RETURN_IF_ERROR(ReadVersion(doc));
  BB_RETURN_IF_ERROR(ReadJob(doc, &p->job));
  Fields top(doc, "");
  const json& files = top.Array("files");
  const json& dirs = top.Array("dirs");
  BB_RETURN_IF_ERROR(top.status());
  BB_RETURN_IF_ERROR(ReadTotals(doc, files.size(), dirs.size(), &p->totals));
  BB_RETURN_IF_ERROR(ReadTimeline(doc, &p->timeline, &p->job.start_unix));
  for (size_t i = 0; i < files.size(); ++i) {
    BB_ASSIGN_OR_RETURN(FileRecord r, ReadFile(files[i], EntryName("files", i, files[i])));
    for (size_t b = 0; b < kSizeBinCount; ++b) {
      p->totals.io.read_sizes[b] += r.io.read_sizes[b];
      p->totals.io.write_sizes[b] += r.io.write_sizes[b];
    }
    p->totals.io.max_offset = std::max(p->totals.io.max_offset, r.io.max_offset);
    p->files.push_back(std::move(r));
  }
  for (size_t i = 0; i < dirs.size(); ++i) {
    BB_ASSIGN_OR_RETURN(DirRecord d, ReadDir(dirs[i], EntryName("dirs", i, dirs[i])));
    p->dirs.push_back(std::move(d));
  }
  return Status::Ok();
}

}  // namespace

const char* ProfileSourceName(ProfileSource s) {
  switch (s) {
    case ProfileSource::kProbe:
      return "probe";
    case ProfileSource::kDarshanBase:
      return "darshan --base";
    case ProfileSource::kDarshanTotal:
      return "darshan --total";
  }
  return "?";
}

Result<Profile> ParseProbeProfile(std::string_view json_text, const std::string& source) {
  Profile p;
  p.source = ProfileSource::kProbe;
  p.origin = source;
  p.has_files = p.has_nodes = p.has_namespace = p.has_timeline = true;
  try {
    json doc = json::parse(json_text);
    Status s = ReadDocument(doc, &p);
    if (!s.ok()) return s.Annotate(source);
  } catch (const json::exception& e) {
    return Status(EINVAL, source + ": not JSON: " + e.what());
  } catch (const std::exception& e) {
    return Status(EINVAL, source + ": " + e.what());
  }
  return p;
}

}  // namespace bb::modeselect
