// The probe profile document (tools/jobs/profile_doc.h, versions 1 and 2) read strictly: every
// field the format lists, with its type. The first problem found is the one reported.
//
// The producer (tools/jobs/profile_doc.cc, MergeProfiles) writes the totals' file sums only
// when there is a file and the directory sums only when there is a directory, so those keys are
// required exactly then.

#include <algorithm>
#include <cerrno>
#include <limits>
#include <nlohmann/json.hpp>

#include "modeselect/profile/json_fields.h"
#include "modeselect/profile/profile.h"
#include "modeselect/profile/summary.h"

namespace bb::modeselect {
namespace {

using nlohmann::json;
using probe_json::Fields;
using probe_json::Shown;

constexpr int kOldestVersion = 1, kNewestVersion = 2;

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
  for (const IoCountField& c : kIoCountFields) {
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

Result<FileRecord> ReadFile(const json& entry, const std::string& where, int version) {
  if (!entry.is_object()) return Status(EINVAL, where + ": expected an object");
  Fields f(entry, where);
  FileRecord r;
  r.path = f.String("path");
  r.io = f.Counts();
  r.first_unix = f.Number("first_unix");
  r.last_unix = f.Number("last_unix");
  r.created_on = f.NodeOrNull("created_on");
  r.opened_on = f.Nodes("opened_on");
  r.writer_nodes = f.Nodes("writer_nodes");
  r.reader_nodes = f.Nodes("reader_nodes");
  r.stat_nodes = f.Nodes("stat_nodes");
  r.writers = f.Processes("writers");
  r.readers = f.Processes("readers");
  if (version >= 2) r.remote_bytes_read = f.Count("remote_bytes_read");
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

Result<int> ReadVersion(const json& doc) {
  Fields top(doc, "");
  const json* v = top.Get("version");
  BB_RETURN_IF_ERROR(top.status());
  if (!v->is_number_integer()) return Status(EINVAL, "version: expected an integer, got " + Shown(*v));
  if (v->get<int64_t>() < kOldestVersion || v->get<int64_t>() > kNewestVersion) {
    return Status(EINVAL, "version: " + Shown(*v) + " is not supported (this reader knows versions " +
                              std::to_string(kOldestVersion) + " to " + std::to_string(kNewestVersion) + ")");
  }
  return static_cast<int>(v->get<int64_t>());
}

Status ReadDocument(const json& doc, Profile* p) {
  if (!doc.is_object()) return Status(EINVAL, std::string("expected a JSON object, got ") + doc.type_name());
  BB_ASSIGN_OR_RETURN(int version, ReadVersion(doc));
  BB_RETURN_IF_ERROR(ReadJob(doc, &p->job));
  Fields top(doc, "");
  const json& files = top.Array("files");
  const json& dirs = top.Array("dirs");
  BB_RETURN_IF_ERROR(top.status());
  BB_RETURN_IF_ERROR(ReadTotals(doc, files.size(), dirs.size(), &p->totals));
  BB_RETURN_IF_ERROR(ReadTimeline(doc, &p->timeline, &p->job.start_unix));
  for (size_t i = 0; i < files.size(); ++i) {
    BB_ASSIGN_OR_RETURN(FileRecord r, ReadFile(files[i], EntryName("files", i, files[i]), version));
    p->files.push_back(std::move(r));
  }
  for (size_t i = 0; i < dirs.size(); ++i) {
    BB_ASSIGN_OR_RETURN(DirRecord d, ReadDir(dirs[i], EntryName("dirs", i, dirs[i])));
    p->dirs.push_back(std::move(d));
  }
  if (version >= 2) {
    auto summary = std::make_shared<ProfileSummary>();
    BB_RETURN_IF_ERROR(probe_json::ReadSummary(doc, summary.get()));
    p->summary = std::move(summary);
  }
  // The totals' size histograms and largest offset: of every file.
  IoCounts all = p->summary ? p->summary->FileTotals().io : IoCounts{};
  if (!p->summary) {
    for (const FileRecord& r : p->files) {
      for (size_t b = 0; b < kSizeBinCount; ++b) {
        all.read_sizes[b] += r.io.read_sizes[b];
        all.write_sizes[b] += r.io.write_sizes[b];
      }
      all.max_offset = std::max(all.max_offset, r.io.max_offset);
    }
  }
  p->totals.io.read_sizes = all.read_sizes;
  p->totals.io.write_sizes = all.write_sizes;
  p->totals.io.max_offset = all.max_offset;
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
