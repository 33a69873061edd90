#include "modeselect/static/extract.h"

#include <set>

#include "modeselect/static/job/job_script.h"
#include "modeselect/static/lang/sources.h"
#include "modeselect/static/text.h"

namespace bb::modeselect {

Result<StaticEvidence> ExtractStatic(const std::string& job_script, const ExtractOptions& options) {
  DiskFiles disk;
  return ExtractStatic(job_script, options, disk);
}

Result<StaticEvidence> ExtractStatic(const std::string& job_script, const ExtractOptions& options,
                                     const FileSource& files) {
  Result<std::string> text = files.Read(job_script);
  if (!text) return Status(text.error().code(), "job script " + job_script);
  std::string dir = text::Dirname(job_script);
  JobScript js = ParseJobScript(job_script, *text, files);

  StaticEvidence ev;
  ev.nodes = js.sbatch.nodes;
  ev.ntasks = js.sbatch.ntasks;
  ev.ntasks_per_node = js.sbatch.ntasks_per_node;
  ev.launches = std::move(js.launches);
  ev.findings = std::move(js.findings);
  std::set<std::string> listed;
  for (const std::string& s : js.scripts) {
    if (listed.insert(s).second) ev.files_scanned.push_back(s);
  }
  for (const std::string& u : js.unreadable) ev.files_scanned.push_back(kUnreadablePrefix + u);

  // Traced sources first, then every source under the source folders.
  std::vector<std::string> paths = js.sources;
  std::vector<std::string> dirs = options.source_dirs;
  if (dirs.empty()) dirs.push_back(dir);
  for (const std::string& d : dirs) {
    for (const std::string& p : files.List(d)) {
      if (LangOfPath(p)) paths.push_back(p);
    }
  }
  std::vector<SourceFile> sources;
  std::set<std::string> seen;
  for (const std::string& p : paths) {
    std::string norm = text::NormalizePath(p);
    std::optional<Lang> lang = LangOfPath(norm);
    if (!lang || !seen.insert(norm).second) continue;
    std::string display = text::RelativeTo(norm, text::NormalizePath(dir));
    Result<std::string> src = files.Read(p);
    if (!src) {
      ev.files_scanned.push_back(kUnreadablePrefix + display);
      continue;
    }
    ev.files_scanned.push_back(display);
    sources.push_back(SourceFile{display, *lang, std::move(*src)});
  }
  for (Finding& f : ScanSources(sources)) ev.findings.push_back(std::move(f));
  return ev;
}

}  // namespace bb::modeselect
