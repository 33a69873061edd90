// A small log-structured key-value store, one per task (the task's rank is SLURM_PROCID):
// puts go to a write-ahead log and a memtable; a full memtable is flushed to a sorted L0
// table (written as .tmp, renamed); four L0 tables are compacted with L1 into a new L1
// table and removed; the live set is recorded in MANIFEST (replaced by rename) after every
// change. `load` fills the store; `verify`, a later job step, recovers the store from its
// directory listing and MANIFEST, looks up every key, and removes the store.
//
// usage: kvstore load|verify DB_ROOT KEYS
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Table = std::map<std::string, std::string>;

namespace {

constexpr size_t kMemtableEntries = 400;
constexpr size_t kL0Trigger = 4;
int rank = 0;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "kvstore[%d]: %s\n", rank, what.c_str());
  std::exit(1);
}

std::string Key(long k) {
  char b[32];
  std::snprintf(b, sizeof b, "k%04d-%09ld", rank, k);
  return b;
}
std::string Value(const std::string& key) {
  std::string v(56, ' ');
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<char>('a' + (key[i % key.size()] + i) % 26);
  return v;
}

void WriteTable(const fs::path& path, const Table& t) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    for (const auto& [k, v] : t) out << k << '\t' << v << '\n';
    if (!out) Die("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

Table ReadTable(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Die("cannot open " + path.string());
  Table t;
  std::string line;
  while (std::getline(in, line)) {
    auto tab = line.find('\t');
    if (tab == std::string::npos) Die("bad line in " + path.string());
    t[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return t;
}

struct Store {
  fs::path dir;
  std::vector<std::string> l0;
  std::string l1;
  int next_file = 0;
  Table mem;
  std::ofstream wal;

  std::string NewName(const char* level) {
    char b[32];
    std::snprintf(b, sizeof b, "sst-%06d.%s", next_file++, level);
    return b;
  }
  void WriteManifest() {
    fs::path tmp = dir / "MANIFEST.tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << next_file << '\n' << (l1.empty() ? "-" : l1) << '\n';
      for (const auto& f : l0) out << f << '\n';
    }
    fs::rename(tmp, dir / "MANIFEST");
  }
  void OpenWal() { wal.open(dir / "wal.log", std::ios::trunc); }
  void Put(const std::string& k, const std::string& v) {
    wal << k << '\t' << v << '\n';
    mem[k] = v;
    if (mem.size() >= kMemtableEntries) Flush();
  }
  void Flush() {
    if (mem.empty()) return;
    wal.close();
    std::string name = NewName("l0");
    WriteTable(dir / name, mem);
    l0.push_back(name);
    mem.clear();
    WriteManifest();
    fs::remove(dir / "wal.log");
    OpenWal();
    if (l0.size() >= kL0Trigger) Compact();
  }
  void Compact() {
    Table merged = l1.empty() ? Table{} : ReadTable(dir / l1);
    for (const auto& f : l0) {  // newer tables win
      for (auto& [k, v] : ReadTable(dir / f)) merged[k] = v;
    }
    std::string name = NewName("l1");
    WriteTable(dir / name, merged);
    std::vector<std::string> old = l0;
    if (!l1.empty()) old.push_back(l1);
    l1 = name;
    l0.clear();
    WriteManifest();
    for (const auto& f : old) fs::remove(dir / f);
  }
};

int Load(const fs::path& root, long keys) {
  Store s;
  s.dir = root / ("task" + std::to_string(rank));
  fs::create_directories(s.dir);
  s.OpenWal();
  std::vector<long> order(keys);
  for (long i = 0; i < keys; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(rank + 1));
  for (long k : order) s.Put(Key(k), Value(Key(k)));
  s.Flush();
  std::printf("kvstore[%d]: loaded %ld keys, %d tables written, live: %s + %zu L0\n", rank, keys, s.next_file,
              s.l1.c_str(), s.l0.size());
  return 0;
}

int Verify(const fs::path& root, long keys) {
  fs::path dir = root / ("task" + std::to_string(rank));
  std::ifstream man(dir / "MANIFEST");
  if (!man) Die("no MANIFEST in " + dir.string());
  std::set<std::string> live;
  std::string line, l1;
  std::getline(man, line);
  std::getline(man, l1);
  if (l1 != "-") live.insert(l1);
  std::vector<std::string> l0;
  while (std::getline(man, line)) l0.push_back(line), live.insert(line);
  // recovery: the directory must hold the live tables, the manifest and the log, nothing else
  std::set<std::string> listed;
  for (const auto& e : fs::directory_iterator(dir)) listed.insert(e.path().filename().string());
  for (const auto& f : live) {
    if (!listed.count(f)) Die("table " + f + " of the manifest is missing");
  }
  if (listed.size() != live.size() + 2) Die("stray files in " + dir.string());
  Table all = l1 == "-" ? Table{} : ReadTable(dir / l1);
  for (const auto& f : l0) {
    for (auto& [k, v] : ReadTable(dir / f)) all[k] = v;
  }
  long bad = 0;
  for (long k = 0; k < keys; ++k) {
    auto it = all.find(Key(k));
    bad += it == all.end() || it->second != Value(Key(k));
  }
  if (static_cast<long>(all.size()) != keys || bad) Die(std::to_string(bad) + " keys missing or wrong");
  fs::remove_all(dir);
  std::printf("kvstore[%d]: recovered %zu tables, %ld keys checked\n", rank, live.size(), keys);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) Die("usage: kvstore load|verify DB_ROOT KEYS");
  const char* r = std::getenv("SLURM_PROCID");
  rank = r ? std::atoi(r) : 0;
  std::string cmd = argv[1];
  long keys = std::atol(argv[3]);
  try {
    if (cmd == "load") return Load(argv[2], keys);
    if (cmd == "verify") return Verify(argv[2], keys);
  } catch (const fs::filesystem_error& e) {
    Die(e.what());
  }
  Die("unknown command " + cmd);
}
