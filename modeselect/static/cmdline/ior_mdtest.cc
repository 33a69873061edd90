// IOR and mdtest command lines, by their real option tables (hpc/ior src/parse_options.c,
// src/mdtest.c, src/option.c): a short option that takes a value takes the rest of its word
// when it is the word's first letter (-t1m), else the next word; flags may be grouped (-vvw).
#include <algorithm>
#include <cstring>

#include "modeselect/static/cmdline/benchmarks.h"
#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

struct Opts {
  std::map<std::string, std::string> values;  // short letter or long name -> last value
  std::map<std::string, int> flags;           // -> times given
};

// Splits argv by a getopt-like table: `with_value` lists the short letters that take a value,
// `long_values` the long names that do (others are flags unless written --name=value).
Opts ParseOpts(std::span<const std::string> a, const char* with_value, std::initializer_list<const char*> long_values) {
  Opts o;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string& w = a[i];
    if (w.size() < 2 || w[0] != '-') continue;
    if (w[1] == '-') {
      size_t eq = w.find('=');
      std::string name = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      bool takes = false;
      for (const char* l : long_values) takes |= name == l;
      if (eq != std::string::npos) {
        o.values[name] = w.substr(eq + 1);
      } else if (takes && i + 1 < a.size()) {
        o.values[name] = a[++i];
      } else {
        ++o.flags[name];
      }
      continue;
    }
    for (size_t k = 1; k < w.size(); ++k) {
      std::string letter(1, w[k]);
      if (std::strchr(with_value, w[k]) == nullptr || w[k] == '\0') {
        ++o.flags[letter];
        continue;
      }
      if (k == 1 && w.size() > 2) {
        o.values[letter] = w.substr(w[2] == '=' ? 3 : 2);
      } else if (i + 1 < a.size()) {
        o.values[letter] = a[++i];
      }
      break;
    }
  }
  return o;
}

void Add(BenchmarkRun* r, const Where& w, const char* fact, double value = 1) {
  r->findings.push_back(Finding{fact, w.file, w.line, w.snippet, value});
}

double Size(const std::string& s, double otherwise) { return text::ParseSize(s).value_or(otherwise); }

// -O blockSize=1m,filePerProc=1: IOR's directives, keys case-insensitive.
void Directives(const std::string& list, Opts* o) {
  static constexpr std::pair<const char*, const char*> kKeys[] = {
      {"api", "a"},          {"testfile", "o"},     {"blocksize", "b"},
      {"transfersize", "t"}, {"segmentcount", "s"}, {"deadlineforstonewalling", "D"},
      {"repetitions", "i"},  {"numtasks", "N"},     {"taskpernodeoffset", "Q"}};
  static constexpr std::pair<const char*, const char*> kFlags[] = {{"fileperproc", "F"},
                                                                   {"reordertasks", "C"},
                                                                   {"reordertasksconstant", "C"},
                                                                   {"reordertasksrandom", "Z"},
                                                                   {"randomoffset", "z"},
                                                                   {"fsync", "e"},
                                                                   {"fsyncperwrite", "Y"},
                                                                   {"writefile", "w"},
                                                                   {"readfile", "r"},
                                                                   {"checkwrite", "W"},
                                                                   {"checkread", "R"},
                                                                   {"keepfile", "k"},
                                                                   {"collective", "c"},
                                                                   {"useo_direct", "posix.odirect"},
                                                                   {"uniquedir", "u"}};
  for (std::string_view d : text::Split(list, ",")) {
    size_t eq = d.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = text::Lower(text::Trim(d.substr(0, eq)));
    std::string value(text::Trim(d.substr(eq + 1)));
    for (const auto& [k, letter] : kKeys) {
      if (key == k) o->values[letter] = value;
    }
    for (const auto& [k, letter] : kFlags) {
      if (key == k) o->flags[letter] = text::ParseInt(value).value_or(0) > 0 ? 1 : -1000;
    }
  }
}

}  // namespace

std::string IorScriptDirectives(std::string_view script) {
  std::string out;
  for (std::string_view line : text::Split(script, "\n")) {
    line = text::Trim(line.substr(0, line.find('#')));
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;  // IOR START, RUN, IOR STOP
    std::string_view key = text::Trim(line.substr(0, eq)), value = text::Trim(line.substr(eq + 1));
    if (key.find_first_of(" \t,") != std::string_view::npos || value.find(',') != std::string_view::npos) continue;
    out += (out.empty() ? "" : ",") + std::string(key) + "=" + std::string(value);
  }
  return out;
}

BenchmarkRun ParseIorArgs(std::span<const std::string> args, const Where& where) {
  Opts o = ParseOpts(args, "aAbdDfGijJlMNoOQstTUX",
                     {"dataPacketType", "randomPrefill", "random-offset-seed", "mpiio.hintsFileName",
                      "posix.beegfs.NumTargets", "posix.beegfs.ChunkSize", "posix.lustre.stripecount",
                      "posix.lustre.stripesize", "posix.lustre.startost", "posix.lustre.pool"});
  if (o.values.count("O")) Directives(o.values["O"], &o);
  auto flag = [&](const char* f) { return o.flags.count(f) && o.flags[f] > 0; };
  BenchmarkRun r;
  Add(&r, where, "ior.run", where.tasks);
  Add(&r, where, flag("F") ? "ior.file_per_proc" : "ior.shared_file");
  bool write = flag("w") || flag("W"), read = flag("r") || flag("R");
  if (!write && !read) write = read = true;  // IOR's CheckRunSettings
  if (write) Add(&r, where, "ior.write");
  if (read) Add(&r, where, "ior.read");
  if (flag("C") || flag("Z")) Add(&r, where, "ior.reorder");
  // Whose data the read phase (-r, -R) and the write check (-W) read (src/ior.c): -Z draws an
  // offset past -Q nodes, -C shifts by -Q nodes, the write check by two; -Q and -X alone
  // change nothing.
  int q = std::max(1, static_cast<int>(Size(o.values["Q"], 1)));
  if (read && flag("Z")) r.shifts.push_back({RankShift::kIorRandom, q});
  if (read && flag("C") && !flag("Z")) r.shifts.push_back({RankShift::kIorNode, q});
  if (flag("W") && flag("C")) r.shifts.push_back({RankShift::kIorNode, 2});
  if (flag("z")) Add(&r, where, "ior.random");
  if (flag("c") || flag("collective")) Add(&r, where, "ior.collective");
  std::string api = text::Lower(o.values.count("a") ? o.values["a"] : "posix");
  if (api == "mpiio" || api == "hdf5" || api == "ncmpi" || api == "pnetcdf") Add(&r, where, "ior.api_mpiio");
  if (flag("e") || flag("Y")) Add(&r, where, "ior.fsync");
  Add(&r, where, "ior.transfer_size", Size(o.values["t"], 262144));
  Add(&r, where, "ior.block_size", Size(o.values["b"], 1048576));
  Add(&r, where, "ior.segments", Size(o.values["s"], 1));
  if (double d = Size(o.values["D"], 0); d > 0) Add(&r, where, "ior.stonewall", d);
  r.paths.push_back(o.values.count("o") ? o.values["o"] : "testFile");
  r.writes = write;
  r.reads = read && !write;
  return r;
}

BenchmarkRun ParseMdtestArgs(std::span<const std::string> args, const Where& where) {
  Opts o = ParseOpts(args, "abdBefGiIlnNpsVwWxz",
                     {"random-seed", "dataPacketType", "run-cmd-before-phase", "run-cmd-after-phase",
                      "saveRankPerformanceDetails", "savePerOpDataCSV", "allocateBufferOnGPU", "GPUid"});
  auto flag = [&](const char* f) { return o.flags.count(f) > 0; };
  BenchmarkRun r;
  Add(&r, where, "mdtest.run", where.tasks);
  Add(&r, where, flag("u") ? "mdtest.unique_dir" : "mdtest.shared_dir");
  if (flag("F")) Add(&r, where, "mdtest.files_only");
  if (flag("D")) Add(&r, where, "mdtest.dirs_only");
  if (o.values.count("n"))
    Add(&r, where, "mdtest.items", Size(o.values["n"], 0));
  else if (o.values.count("I"))
    Add(&r, where, "mdtest.items", Size(o.values["I"], 0));
  bool phases = flag("C") || flag("T") || flag("E") || flag("r");
  if (double n = Size(o.values["N"], 0); n > 0) {
    Add(&r, where, "mdtest.shift", n);
    // Rank r stats the items of rank r + N, reads those of r + 2N and removes those of r + 3N
    // (src/mdtest.c: stat_name, read_name, rm_name), in the phases that run.
    int stride = static_cast<int>(std::min(n, 1e6));
    if (flag("T") || !phases) r.shifts.push_back({RankShift::kOffset, stride});
    if (flag("E") || !phases) r.shifts.push_back({RankShift::kOffset, 2 * stride});
    if (flag("r") || !phases) r.shifts.push_back({RankShift::kOffset, 3 * stride});
  }
  if (double w = Size(o.values["w"], 0); w > 0) Add(&r, where, "mdtest.write_bytes", w);
  if (double e = Size(o.values["e"], 0); e > 0) Add(&r, where, "mdtest.read_bytes", e);
  if (double z = Size(o.values["z"], 0); z > 0) Add(&r, where, "mdtest.depth", z);
  if (double s = Size(o.values["W"], 0); s > 0) Add(&r, where, "mdtest.stonewall", s);
  std::string dirs = o.values.count("d") ? o.values["d"] : "./out";
  for (std::string_view d : text::Split(dirs, "@")) r.paths.emplace_back(d);
  r.writes = flag("C") || !phases;
  r.reads = (flag("T") || flag("E") || flag("r")) && !flag("C");
  return r;
}

}  // namespace bb::modeselect
