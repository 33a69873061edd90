// fio command lines and INI job files.
#include <cstring>

#include "modeselect/static/cmdline/benchmarks.h"
#include "modeselect/static/finding_set.h"
#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

// Where an option was set: its file and line (the command line for command-line options).
struct Setting {
  std::string value;
  std::string file;
  int line = 0;
  std::string snippet;
};
using Section = std::map<std::string, Setting>;

struct Job {
  std::string name;
  Setting header;  // where the job is defined
  Section opts;    // [global] and the job's own, the job's winning
};

// fio options that never take a value on the command line.
constexpr const char* kFioFlags[] = {
    "time_based", "group_reporting", "thread", "minimal",   "readonly", "parse-only",        "showcmd",   "randrepeat",
    "end_fsync",  "create_only",     "unlink", "stonewall", "exitall",  "allow_file_create", "overwrite", "disk_util"};
// Command-line options about fio itself, not a job.
constexpr const char* kFioProgram[] = {
    "output",        "output-format", "section",       "eta",         "eta-newline",   "status-interval",
    "client",        "server",        "debug",         "max-jobs",    "alloc-size",    "aux-path",
    "trigger",       "bandwidth-log", "idle-prof",     "inflate-log", "terse-version", "append-terse",
    "cpuclock-test", "crctest",       "warnings-fatal"};

bool InList(std::string_view w, std::span<const char* const> list) {
  for (const char* s : list) {
    if (w == s) return true;
  }
  return false;
}

std::string Expand(std::string_view v, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '$' && i + 1 < v.size() && v[i + 1] == '{') {
      size_t e = v.find('}', i + 2);
      if (e != std::string_view::npos) {
        auto it = vars.find(std::string(v.substr(i + 2, e - i - 2)));
        if (it != vars.end()) {
          out += it->second;
          i = e;
          continue;
        }
      }
    }
    out.push_back(v[i]);
  }
  return out;
}

void ParseJobFile(const FioJobFile& f, const std::map<std::string, std::string>& vars, Section* global,
                  std::vector<Job>* jobs) {
  text::LineIndex lines(f.text);
  Section* cur = nullptr;
  for (int n = 1; n <= lines.Count(); ++n) {
    std::string_view l = text::Trim(lines.Line(n));
    if (l.empty() || l[0] == ';' || l[0] == '#') continue;
    int line = f.first_line + n - 1;
    if (l[0] == '[') {
      std::string name(text::Trim(l.substr(1, l.find(']') == std::string_view::npos ? l.size() - 1 : l.find(']') - 1)));
      if (name == "global") {
        cur = global;
      } else {
        jobs->push_back(Job{name, Setting{"", f.path, line, std::string(l)}, *global});
        cur = &jobs->back().opts;
      }
      continue;
    }
    if (!cur) cur = global;
    size_t eq = l.find('=');
    std::string key = text::Lower(text::Trim(l.substr(0, eq)));
    std::string value = eq == std::string_view::npos ? "1" : Expand(text::Trim(l.substr(eq + 1)), vars);
    (*cur)[key] = Setting{value, f.path, line, std::string(l)};
  }
}

void CommandLine(std::span<const std::string> args, const Where& w, const std::map<std::string, std::string>& vars,
                 Section* global, std::vector<Job>* jobs, std::vector<std::string>* files) {
  Section* cur = global;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      if (!a.empty() && a[0] != '-') files->push_back(a);
      continue;
    }
    size_t eq = a.find('=');
    std::string key = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (InList(key, kFioFlags) || i + 1 >= args.size() || args[i + 1].rfind("-", 0) == 0) {
      value = "1";
    } else {
      value = args[++i];
    }
    if (InList(key, kFioProgram)) continue;
    value = Expand(value, vars);
    if (key == "name") {
      jobs->push_back(Job{value, Setting{"", w.file, w.line, w.snippet}, *global});
      cur = &jobs->back().opts;
      continue;
    }
    (*cur)[key] = Setting{value, w.file, w.line, w.snippet};
  }
}

void Add(BenchmarkRun* r, const Setting& where, const char* fact, double value = 1) {
  r->findings.push_back(Finding{fact, where.file, where.line, text::Snippet(where.snippet), value});
}

// Block size, job and file counts, size, time, syncs, O_DIRECT, metadata engines, paths.
void SizeFacts(const Job& j, BenchmarkRun* r) {
  auto get = [&](std::initializer_list<const char*> keys) -> const Setting* {
    for (const char* k : keys) {
      auto it = j.opts.find(k);
      if (it != j.opts.end()) return &it->second;
    }
    return nullptr;
  };
  auto at = [&](const Setting* s) -> const Setting& { return s ? *s : j.header; };
  const Setting* engine = get({"ioengine"});
  std::string eng = engine ? text::Lower(engine->value) : "";
  const Setting* bs = get({"bs", "blocksize"});
  std::string bsv = bs ? bs->value.substr(0, bs->value.find(',')) : "4k";
  Add(r, at(bs), "fio.block_size", text::ParseSize(bsv).value_or(4096));
  const Setting* nj = get({"numjobs"});
  Add(r, at(nj), "fio.numjobs", nj ? static_cast<double>(text::ParseInt(nj->value).value_or(1)) : 1);
  const Setting* nf = get({"nrfiles"});
  Add(r, at(nf), "fio.nrfiles", nf ? static_cast<double>(text::ParseInt(nf->value).value_or(1)) : 1);
  if (const Setting* sz = get({"size", "filesize"}); sz && text::ParseSize(sz->value))
    Add(r, *sz, "fio.size", *text::ParseSize(sz->value));
  if (const Setting* tb = get({"time_based"}); tb && tb->value != "0") {
    const Setting* rt = get({"runtime", "timeout"});
    Add(r, at(tb), "fio.time_based", rt ? text::ParseSeconds(rt->value).value_or(0) : 0);
  }
  for (const char* key : {"fsync", "fdatasync", "end_fsync", "fsync_on_close"}) {
    const Setting* s = get({key});
    long long n = s ? text::ParseInt(s->value).value_or(1) : 0;
    if (n > 0) Add(r, *s, "fio.fsync", static_cast<double>(n));
  }
  if (const Setting* d = get({"direct"}); d && d->value != "0") Add(r, *d, "fio.direct");
  if (const Setting* e = engine) {
    if (eng == "filecreate" || eng == "filestat" || eng == "filedelete" || eng == "dircreate" || eng == "dirstat" ||
        eng == "dirdelete") {
      Add(r, *e, "fio.filecreate");
      r->writes |= eng == "filecreate" || eng == "dircreate";
      r->reads |= eng == "filestat" || eng == "dirstat" || eng == "filedelete";
    }
  }
  for (const char* key : {"directory", "filename"}) {
    if (const Setting* s = get({key})) {
      for (std::string_view p : text::Split(s->value, ":")) r->paths.emplace_back(p);
    }
  }
}

void JobFacts(const Job& j, BenchmarkRun* r) {
  auto get = [&](std::initializer_list<const char*> keys) -> const Setting* {
    for (const char* k : keys) {
      auto it = j.opts.find(k);
      if (it != j.opts.end()) return &it->second;
    }
    return nullptr;
  };
  auto at = [&](const Setting* s) -> const Setting& { return s ? *s : j.header; };
  const Setting* rw = get({"rw", "readwrite"});
  std::string mode = rw ? text::Lower(rw->value.substr(0, rw->value.find(':'))) : "read";
  const char* fact = mode == "write"                                             ? "fio.seq_write"
                     : mode == "read"                                            ? "fio.seq_read"
                     : mode == "randwrite"                                       ? "fio.rand_write"
                     : mode == "randread"                                        ? "fio.rand_read"
                     : (mode == "rw" || mode == "readwrite" || mode == "randrw") ? "fio.mixed"
                     : mode == "trimwrite"                                       ? "fio.seq_write"
                                                                                 : nullptr;
  const Setting* engine = get({"ioengine"});
  std::string eng = engine ? text::Lower(engine->value) : "";
  bool meta = eng.find("file") == 0 || eng.find("dir") == 0;  // filecreate, dirstat ...
  if (fact && (rw || !meta)) Add(r, at(rw), fact);
  if (rw || !meta) {
    r->writes |= mode.find("write") != std::string::npos || mode == "rw" || mode == "randrw";
    r->reads |= mode.find("read") != std::string::npos || mode == "rw" || mode == "randrw";
  }
  const Setting* fname = get({"filename"});
  const Setting* format = get({"filename_format"});
  bool format_per_job = format && (format->value.find("$jobnum") != std::string::npos ||
                                   format->value.find("$jobname") != std::string::npos);
  bool per_job = !fname && (!format || format_per_job);
  Add(r, at(fname ? fname : format), per_job ? "fio.file_per_job" : "fio.shared_file");
  SizeFacts(j, r);
}

}  // namespace

BenchmarkRun ParseFioArgs(std::span<const std::string> args, std::span<const FioJobFile> job_files, const Where& where,
                          const std::map<std::string, std::string>& vars) {
  Section global;
  std::vector<Job> jobs;
  std::vector<std::string> named;
  CommandLine(args, where, vars, &global, &jobs, &named);
  for (const FioJobFile& f : job_files) ParseJobFile(f, vars, &global, &jobs);
  BenchmarkRun r;
  r.findings.push_back(
      Finding{"fio.run", where.file, where.line, text::Snippet(where.snippet), static_cast<double>(jobs.size())});
  for (const Job& j : jobs) JobFacts(j, &r);
  FindingSet merged;  // jobs that inherit one [global] line share its finding
  for (const Finding& f : r.findings) merged.Add(f.fact, f.file, f.line, f.snippet, f.value, Merge::kMax);
  r.findings = std::move(merged).Take();
  return r;
}

}  // namespace bb::modeselect
