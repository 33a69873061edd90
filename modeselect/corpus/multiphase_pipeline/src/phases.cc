#include "phases.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace {

std::runtime_error Error(const std::string& what, const std::string& path) {
  return std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

std::string PartPath(const std::string& dir, int rank) {
  char name[64];
  std::snprintf(name, sizeof name, "/part_%05d.dat", rank);
  return dir + name;
}

uint64_t Word(const Manifest& m, int rank, int64_t i) { return m.seed ^ (static_cast<uint64_t>(rank) << 48) ^ i; }

constexpr size_t kChunk = 1 << 20;

}  // namespace

void WriteManifest(const std::string& run_dir, const Manifest& m) {
  if (mkdir(run_dir.c_str(), 0755) != 0 && errno != EEXIST) throw Error("mkdir", run_dir);
  std::ofstream out(run_dir + "/manifest.txt");
  out << "ranks " << m.ranks << "\nbytes_per_rank " << m.bytes_per_rank << "\nseed " << m.seed << "\n";
  if (!out.flush()) throw Error("write", run_dir + "/manifest.txt");
}

Manifest ReadManifest(const std::string& run_dir) {
  std::ifstream in(run_dir + "/manifest.txt");
  Manifest m;
  std::string key;
  while (in >> key) {
    if (key == "ranks") in >> m.ranks;
    else if (key == "bytes_per_rank") in >> m.bytes_per_rank;
    else if (key == "seed") in >> m.seed;
  }
  if (m.ranks <= 0 || m.bytes_per_rank <= 0) throw Error("no manifest in", run_dir);
  return m;
}

void WritePart(const std::string& run_dir, int rank, const Manifest& m) {
  const std::string path = PartPath(run_dir, rank);
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw Error("open", path);
  std::vector<uint64_t> buf(kChunk / 8);
  for (int64_t at = 0; at < m.bytes_per_rank; at += kChunk) {
    for (size_t k = 0; k < buf.size(); ++k) buf[k] = Word(m, rank, at / 8 + static_cast<int64_t>(k));
    if (write(fd, buf.data(), kChunk) != static_cast<ssize_t>(kChunk)) throw Error("write", path);
  }
  if (fsync(fd) != 0 || close(fd) != 0) throw Error("fsync", path);
}

uint64_t ReadPart(const std::string& run_dir, int rank, const Manifest& m) {
  const std::string path = PartPath(run_dir, rank);
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) throw Error("open", path);
  std::vector<uint64_t> buf(kChunk / 8);
  uint64_t sum = 0;
  for (int64_t at = 0; at < m.bytes_per_rank; at += kChunk) {
    if (read(fd, buf.data(), kChunk) != static_cast<ssize_t>(kChunk)) throw Error("read", path);
    for (size_t k = 0; k < buf.size(); ++k) {
      if (buf[k] != Word(m, rank, at / 8 + static_cast<int64_t>(k))) throw Error("wrong data in", path);
      sum += buf[k] & 0xffff;
    }
  }
  close(fd);
  return sum;
}

void WriteSummary(const std::string& run_dir, const Manifest& m, uint64_t total) {
  std::ofstream out(run_dir + "/summary.txt");
  out << "ranks " << m.ranks << " bytes " << m.bytes_per_rank * m.ranks << " checksum " << total << "\n";
  if (!out.flush()) throw Error("write", run_dir + "/summary.txt");
}
