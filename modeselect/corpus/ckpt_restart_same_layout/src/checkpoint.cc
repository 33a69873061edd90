#include "checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace {
constexpr uint64_t kMagic = 0x434b5054ull;  // "CKPT"

std::string FileFor(const std::string& dir, int64_t step) {
  std::string digits = std::to_string(step);
  return dir + "/ckpt_" + std::string(8 - std::min<size_t>(8, digits.size()), '0') + digits + ".bin";
}

std::vector<fs::path> Checkpoints(const std::string& dir) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("ckpt_", 0) == 0 && e.path().extension() == ".bin") found.push_back(e.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}
}  // namespace

CheckpointDir::CheckpointDir(const std::string& root, int rank, int keep)
    : dir_(root + "/rank_" + std::to_string(rank)), keep_(keep) {
  fs::create_directories(dir_);
}

void CheckpointDir::Save(const State& s) {
  const std::string final_name = FileFor(dir_, s.step);
  const std::string tmp = final_name + ".part";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    uint64_t n = s.field.size();
    out.write(reinterpret_cast<const char*>(&kMagic), sizeof kMagic);
    out.write(reinterpret_cast<const char*>(&s.step), sizeof s.step);
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(reinterpret_cast<const char*>(s.field.data()), static_cast<std::streamsize>(n * sizeof(double)));
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  fs::rename(tmp, final_name);
  auto all = Checkpoints(dir_);
  for (size_t i = 0; i + keep_ < all.size(); ++i) fs::remove(all[i]);
}

// Only this rank's own directory is read: a restart never does
// std::ifstream(root + "/rank_" + std::to_string(rank + 1) + ...) of a neighbour.
std::optional<State> CheckpointDir::LoadLatest() const {
  if (!fs::exists(dir_)) return std::nullopt;
  auto all = Checkpoints(dir_);
  if (all.empty()) return std::nullopt;
  std::ifstream in(all.back(), std::ios::binary);
  uint64_t magic = 0, n = 0;
  State s;
  in.read(reinterpret_cast<char*>(&magic), sizeof magic);
  in.read(reinterpret_cast<char*>(&s.step), sizeof s.step);
  in.read(reinterpret_cast<char*>(&n), sizeof n);
  if (!in || magic != kMagic) throw std::runtime_error("bad checkpoint " + all.back().string());
  s.field.resize(n);
  in.read(reinterpret_cast<char*>(s.field.data()), static_cast<std::streamsize>(n * sizeof(double)));
  if (!in) throw std::runtime_error("short checkpoint " + all.back().string());
  return s;
}
