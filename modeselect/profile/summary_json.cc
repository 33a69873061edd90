// The summary's part of a version 2 probe profile document (tools/jobs/profile_doc.h), both
// ways: one table of the sums' keys serves the reader and the writer.

#include <cerrno>
#include <limits>

#include "modeselect/profile/json_fields.h"

namespace bb::modeselect::probe_json {
namespace {

template <typename Sums, typename T>
struct SumField {
  const char* key;
  T Sums::*member;
};

constexpr SumField<FileSums, uint64_t> kFileSumCounts[] = {
    {"files", &FileSums::files},
    {"written", &FileSums::written},
    {"read", &FileSums::read},
    {"writers", &FileSums::writers},
    {"writer_nodes", &FileSums::writer_nodes},
    {"cross_node", &FileSums::cross_node},
    {"multi_node", &FileSums::multi_node},
    {"cross_rank", &FileSums::cross_rank},
};
constexpr SumField<FileSums, double> kFileSumBytes[] = {
    {"node_shared_bytes", &FileSums::node_shared_bytes},
    {"remote_bytes_read", &FileSums::remote_bytes_read},
    {"cross_rank_bytes_read", &FileSums::cross_rank_bytes_read},
    {"shared_bytes_read", &FileSums::shared_bytes_read},
};
constexpr SumField<DirSums, uint64_t> kDirSumCounts[] = {
    {"dirs", &DirSums::dirs},
    {"creates", &DirSums::creates},
    {"unlinks", &DirSums::unlinks},
    {"lookups", &DirSums::lookups},
    {"readdirs", &DirSums::readdirs},
    {"file_opens", &DirSums::file_opens},
    {"file_stats", &DirSums::file_stats},
    {"cross_node", &DirSums::cross_node},
    {"common_parent", &DirSums::common_parent},
    {"contended", &DirSums::contended},
    {"contended_ops", &DirSums::contended_ops},
    {"max_entry_nodes", &DirSums::max_entry_nodes},
};

constexpr const char* kFileMade[] = {"before", "writer", "other", "mixed"};
constexpr const char* kDirMade[] = {"before", "maker", "other", "mixed"};
constexpr const char* kAccess[] = {"none", "sequential", "random", "append", "mixed"};

template <size_t N>
std::string OneOf(Fields* f, const char* key, const char* const (&allowed)[N]) {
  std::string v = f->String(key);
  for (const char* a : allowed) {
    if (v == a) return v;
  }
  if (f->status().ok()) f->Fail(key, "unknown value \"" + v + "\"");
  return v;
}

uint32_t Small(Fields* f, const char* key) {
  uint64_t n = f->Count(key);
  if (n > std::numeric_limits<uint32_t>::max()) f->Fail(key, "out of range");
  return static_cast<uint32_t>(n);
}

// An integer in [lo, hi] or null (-1).
int ClassOrNull(Fields* f, const char* key, int lo, int hi) {
  const json* v = f->Get(key);
  if (!v || v->is_null()) return -1;
  uint64_t n = f->CountOf(*v, key);
  if (static_cast<int64_t>(n) < lo || n > static_cast<uint64_t>(hi)) {
    f->Fail(key, "expected null or " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  return static_cast<int>(n);
}

double Bytes(Fields* f, const char* key) {
  double v = f->Number(key);
  if (v < 0) f->Fail(key, "negative");
  return v;
}

Status ReadFilePattern(const json& entry, const std::string& where, FilePattern* p) {
  Fields top(entry, where);
  Fields f(top.Object("pattern"), where + ": pattern");
  BB_RETURN_IF_ERROR(top.status());
  p->made = OneOf(&f, "made", kFileMade);
  for (auto [key, into] : {std::pair{"writer_nodes", &p->writer_nodes}, std::pair{"reader_nodes", &p->reader_nodes},
                           std::pair{"remote_reader_nodes", &p->remote_reader_nodes}, std::pair{"nodes", &p->nodes},
                           std::pair{"writers", &p->writers}, std::pair{"readers", &p->readers}}) {
    *into = Small(&f, key);
  }
  p->size_class = ClassOrNull(&f, "size_class", 0, static_cast<int>(kSizeBinCount) - 1);
  p->access = OneOf(&f, "access", kAccess);
  p->coarse = f.Bool("coarse");
  return f.status();
}

Result<FileClass> ReadFileClass(const json& entry, const std::string& where) {
  if (!entry.is_object()) return Status(EINVAL, where + ": expected an object");
  FileClass c;
  BB_RETURN_IF_ERROR(ReadFilePattern(entry, where, &c.pattern));
  Fields f(entry, where);
  for (const auto& s : kFileSumCounts) c.sums.*s.member = f.Count(s.key);
  for (const auto& s : kFileSumBytes) c.sums.*s.member = Bytes(&f, s.key);
  Fields counts(f.Object("counts"), where + ": counts");
  BB_RETURN_IF_ERROR(f.status());
  c.sums.io = counts.Counts();
  BB_RETURN_IF_ERROR(counts.status());
  c.example = f.String("example");
  BB_RETURN_IF_ERROR(f.status());
  return c;
}

Result<DirClass> ReadDirClass(const json& entry, const std::string& where) {
  if (!entry.is_object()) return Status(EINVAL, where + ": expected an object");
  DirClass c;
  Fields top(entry, where);
  Fields p(top.Object("pattern"), where + ": pattern");
  BB_RETURN_IF_ERROR(top.status());
  c.pattern.made = OneOf(&p, "made", kDirMade);
  c.pattern.entry_nodes = Small(&p, "entry_nodes");
  c.pattern.listed_elsewhere = p.Bool("listed_elsewhere");
  c.pattern.creates_class = ClassOrNull(&p, "creates_class", 0, 64);
  c.pattern.coarse = p.Bool("coarse");
  BB_RETURN_IF_ERROR(p.status());
  for (const auto& s : kDirSumCounts) c.sums.*s.member = top.Count(s.key);
  c.example = top.String("example");
  BB_RETURN_IF_ERROR(top.status());
  return c;
}

json Nullable(int n) { return n < 0 ? json(nullptr) : json(n); }

}  // namespace

Status ReadSummary(const json& doc, ProfileSummary* s) {
  Fields top(doc, "");
  Fields totals(top.Object("totals"), "totals");
  const json& files = top.Array("file_classes");
  const json& dirs = top.Array("dir_classes");
  BB_RETURN_IF_ERROR(top.status());
  s->processes = totals.Count("processes");
  s->writer_processes = totals.Count("writer_processes");
  s->nodes = totals.Nodes("nodes");
  BB_RETURN_IF_ERROR(totals.status());
  for (size_t i = 0; i < files.size(); ++i) {
    BB_ASSIGN_OR_RETURN(FileClass c, ReadFileClass(files[i], "file_classes[" + std::to_string(i) + "]"));
    s->files.push_back(std::move(c));
  }
  for (size_t i = 0; i < dirs.size(); ++i) {
    BB_ASSIGN_OR_RETURN(DirClass c, ReadDirClass(dirs[i], "dir_classes[" + std::to_string(i) + "]"));
    s->dirs.push_back(std::move(c));
  }
  return Status::Ok();
}

json FileClassesJson(const ProfileSummary& s) {
  json out = json::array();
  for (const FileClass& c : s.files) {
    const FilePattern& p = c.pattern;
    json j = {{"pattern",
               {{"made", p.made},
                {"writer_nodes", p.writer_nodes},
                {"reader_nodes", p.reader_nodes},
                {"remote_reader_nodes", p.remote_reader_nodes},
                {"nodes", p.nodes},
                {"writers", p.writers},
                {"readers", p.readers},
                {"size_class", Nullable(p.size_class)},
                {"access", p.access},
                {"coarse", p.coarse}}}};
    for (const auto& f : kFileSumCounts) j[f.key] = c.sums.*f.member;
    for (const auto& f : kFileSumBytes) j[f.key] = c.sums.*f.member;
    j["counts"] = CountsJson(c.sums.io);
    j["example"] = c.example;
    out.push_back(std::move(j));
  }
  return out;
}

json DirClassesJson(const ProfileSummary& s) {
  json out = json::array();
  for (const DirClass& c : s.dirs) {
    const DirPattern& p = c.pattern;
    json j = {{"pattern",
               {{"made", p.made},
                {"entry_nodes", p.entry_nodes},
                {"listed_elsewhere", p.listed_elsewhere},
                {"creates_class", Nullable(p.creates_class)},
                {"coarse", p.coarse}}}};
    for (const auto& f : kDirSumCounts) j[f.key] = c.sums.*f.member;
    j["example"] = c.example;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace bb::modeselect::probe_json
