#include "tools/modeselect/inputs.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "modeselect/profile/profile.h"
#include "modeselect/profile/signals.h"
#include "modeselect/static/extract.h"
#include "tools/config/yaml.h"

namespace bb::selector {
namespace {

namespace fsys = std::filesystem;
using modeselect::EvalCase;
using modeselect::Signal;
using modeselect::StaticEvidence;

std::string ExeDir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  return fsys::path(std::string(buf, static_cast<size_t>(n))).parent_path().string();
}

// The label of `entry` (the oracle's labels file) and the modes that count as right.
Result<std::pair<int, std::vector<int>>> LabelOf(const std::string& name, const nlohmann::json& entry,
                                                 const std::string& source) {
  auto mode_ok = [](const nlohmann::json& m) {
    return m.is_number_integer() && m.get<int>() >= 1 && m.get<int>() <= 4;
  };
  if (!entry.is_object() || !entry.contains("label") || !mode_ok(entry["label"])) {
    return Status(EINVAL, source + ": job '" + name + "' has no label that is a mode 1..4");
  }
  int label = entry["label"].get<int>();
  std::vector<int> accepted = {label};
  for (const nlohmann::json& t : entry.value("ties", nlohmann::json::array())) {
    if (!mode_ok(t)) return Status(EINVAL, source + ": job '" + name + "' has a tie that is not a mode 1..4");
    if (std::find(accepted.begin(), accepted.end(), t.get<int>()) == accepted.end()) accepted.push_back(t.get<int>());
  }
  return std::make_pair(label, accepted);
}

// What the oracle measured for `c` (its labels entry): the per-mode medians as costs (lower is
// better) and the modes it disqualified. A mode without a median stays unmeasured.
void ReadMeasurements(const nlohmann::json& entry, EvalCase* c) {
  const bool higher_is_better = entry.value("figure", nlohmann::json::object()).value("higher_is_better", false);
  const nlohmann::json medians = entry.value("medians", nlohmann::json::object());
  const nlohmann::json disqualified = entry.value("disqualified", nlohmann::json::object());
  for (int m = 1; m <= 4; ++m) {
    const std::string k = std::to_string(m);
    c->broke[m - 1] = disqualified.contains(k);
    if (!medians.contains(k) || !medians[k].is_number()) continue;
    const double v = medians[k].get<double>();
    if (v > 0) c->cost[m - 1] = higher_is_better ? 1 / v : v;
  }
}

Result<nlohmann::json> ReadJson(const std::string& path, const std::string& what) {
  BB_ASSIGN_OR_RETURN(std::string text, config::ReadTextFile(path, what));
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status(EINVAL, what + " " + path + " is not JSON");
  return j;
}

}  // namespace

std::string KnowledgeBaseDir(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("BB_MODESELECT_KB"); env != nullptr && *env != '\0') return env;
  for (const std::string& dir : KnowledgeBaseSearchPath()) {
    if (fsys::exists(dir + "/rules.yaml")) return dir;
  }
  return "";
}

Result<std::string> FindKnowledgeBase(const std::string& flag) {
  std::string dir = KnowledgeBaseDir(flag);
  if (!dir.empty()) return dir;
  std::string looked;
  for (const std::string& d : KnowledgeBaseSearchPath()) looked += (looked.empty() ? "" : ", ") + d;
  return Status(ENOENT, "no knowledge base: none of " + looked +
                            " holds rules.yaml (give --kb DIR or BB_MODESELECT_KB; the package installs one)");
}

std::vector<std::string> KnowledgeBaseSearchPath() {
  const std::string exe = ExeDir();
  return {"/etc/bbfs/modeselect", fsys::path(exe + "/../share/bbfs/modeselect").lexically_normal().string(),
          std::string(BB_SOURCE_DIR) + "/configs/modeselect"};
}

Result<StaticEvidence> ReadStatic(const std::string& job, const std::vector<std::string>& sources) {
  if (!fsys::is_regular_file(job)) return Status(ENOENT, "cannot read the job script " + job);
  for (const std::string& dir : sources) {
    if (!fsys::is_directory(dir)) return Status(ENOENT, "cannot read the source folder " + dir);
  }
  // Absolute paths: the script's folder is $SLURM_SUBMIT_DIR, which a `cd` may name.
  modeselect::ExtractOptions o;
  for (const std::string& dir : sources) o.source_dirs.push_back(fsys::absolute(dir).lexically_normal().string());
  return modeselect::ExtractStatic(fsys::absolute(job).lexically_normal().string(), o);
}

Result<std::optional<std::vector<Signal>>> ReadProfileSignals(const std::string& profile, const std::string& darshan) {
  if (profile.empty() && darshan.empty()) return std::optional<std::vector<Signal>>();
  const std::string& path = profile.empty() ? darshan : profile;
  // A version 2 probe profile stays under a MiB at any size of run, but a version 1 document
  // lists every file (29 MB for 32,000 files) and darshan-parser --base text is larger still.
  constexpr size_t kMaxProfileBytes = size_t{256} << 20;
  BB_ASSIGN_OR_RETURN(std::string text,
                      config::ReadTextFile(path, profile.empty() ? "Darshan log" : "probe profile", kMaxProfileBytes));
  auto parsed = profile.empty() ? modeselect::ParseDarshanText(text, path) : modeselect::ParseProbeProfile(text, path);
  if (!parsed) return parsed.error();
  return std::optional<std::vector<Signal>>(modeselect::ProfileSignals(*parsed));
}

Result<std::vector<EvalCase>> ReadCorpus(const std::string& corpus, const std::string& labels, const Clock& clock) {
  if (!fsys::is_directory(corpus)) return Status(ENOENT, "cannot read the corpus folder " + corpus);
  std::string labels_path = labels.empty() ? corpus + "/oracle/labels.json" : labels;
  BB_ASSIGN_OR_RETURN(nlohmann::json doc, ReadJson(labels_path, "labels file"));
  if (!doc.contains("jobs") || !doc["jobs"].is_object()) return Status(EINVAL, labels_path + ": no 'jobs' object");
  std::string profiles = fsys::path(labels_path).parent_path().string();
  std::vector<std::string> folders;
  for (const auto& e : fsys::directory_iterator(corpus)) {
    if (e.is_directory() && fsys::exists(e.path() / "job.sh")) folders.push_back(e.path().string());
  }
  std::sort(folders.begin(), folders.end());
  std::vector<EvalCase> cases;
  for (const std::string& folder : folders) {
    std::string name = fsys::path(folder).filename().string();
    if (!doc["jobs"].contains(name)) {
      std::fprintf(stderr, "bb-modeselect: %s has no label in %s: left out\n", name.c_str(), labels_path.c_str());
      continue;
    }
    BB_ASSIGN_OR_RETURN(auto label, LabelOf(name, doc["jobs"][name], labels_path));
    EvalCase c;
    c.name = name;
    c.label = label.first;
    c.accepted = label.second;
    ReadMeasurements(doc["jobs"][name], &c);
    int64_t start = clock.MonotonicNs();
    BB_ASSIGN_OR_RETURN(c.statics, ReadStatic(folder + "/job.sh", {}));
    std::string profile = profiles + "/" + name + ".profile.json";
    if (fsys::exists(profile)) {
      BB_ASSIGN_OR_RETURN(c.profile, ReadProfileSignals(profile, ""));
    }
    c.nodes = static_cast<uint32_t>(std::max(0, c.statics->nodes));
    c.gather_ms = static_cast<double>(clock.MonotonicNs() - start) / 1e6;
    cases.push_back(std::move(c));
  }
  return cases;
}

Result<std::string> CorpusSource(const std::string& corpus, const std::string& labels, size_t n) {
  const std::string labels_path = labels.empty() ? corpus + "/oracle/labels.json" : labels;
  BB_ASSIGN_OR_RETURN(nlohmann::json doc, ReadJson(labels_path, "labels file"));
  std::string where = fsys::absolute(corpus).lexically_normal().string();
  const std::string rel =
      fsys::path(where).lexically_relative(fsys::absolute(BB_SOURCE_DIR).lexically_normal()).string();
  if (!rel.empty() && rel.rfind("..", 0) != 0) where = rel;
  while (!where.empty() && where.back() == '/') where.pop_back();
  return std::to_string(n) + " jobs of " + where + ", labels of " +
         doc.value("generated", std::string("an unknown date"));
}

}  // namespace bb::selector
