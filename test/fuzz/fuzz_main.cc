// The fuzz driver for builds without libFuzzer (g++): runs every seed of the target's corpus,
// then mutates seeds (bit flips, byte changes, inserts, deletes, splices, truncation) for
// BB_FUZZ_SECONDS (default 5) and runs each mutant. A crash or a sanitizer report fails the
// run; it exits 0 otherwise, saying how many inputs it ran. With clang, the same targets link
// libFuzzer instead (cmake -DBB_FUZZ=ON, test/fuzz/README.md).
//   fuzz_<target> CORPUS_DIR [SECONDS]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string Mutate(std::string s, const std::vector<std::string>& seeds, std::mt19937_64& rng) {
  int rounds = 1 + static_cast<int>(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    size_t at = s.empty() ? 0 : rng() % s.size();
    switch (rng() % 7) {
      case 0:
        if (!s.empty()) s[at] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 1:
        if (!s.empty()) s[at] = static_cast<char>(rng());
        break;
      case 2:
        s.insert(at, 1 + rng() % 8, static_cast<char>(rng()));
        break;
      case 3:
        if (!s.empty()) s.erase(at, 1 + rng() % std::min<size_t>(16, s.size() - at));
        break;
      case 4: {  // a piece of another seed
        const std::string& o = seeds[rng() % seeds.size()];
        if (!o.empty()) {
          size_t from = rng() % o.size();
          s.insert(at, o.substr(from, 1 + rng() % 32));
        }
        break;
      }
      case 5:
        s.resize(at);
        break;
      default: {  // an interesting value
        static const uint32_t kValues[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fffffff, 0xffffffff, 4096, 65536};
        uint32_t v = kValues[rng() % std::size(kValues)];
        s.insert(at, reinterpret_cast<const char*>(&v), 1 + rng() % 4);
      }
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [SECONDS]\n", argv[0]);
    return 2;
  }
  double seconds =
      argc > 2 ? std::atof(argv[2]) : (std::getenv("BB_FUZZ_SECONDS") ? std::atof(std::getenv("BB_FUZZ_SECONDS")) : 5);
  std::vector<std::string> seeds;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(argv[1], ec)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    seeds.push_back(ss.str());
  }
  if (seeds.empty()) seeds.push_back("");
  uint64_t runs = 0;
  for (const std::string& s : seeds) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    ++runs;
  }
  std::mt19937_64 rng(0xbbf5);
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    std::string m = Mutate(seeds[rng() % seeds.size()], seeds, rng);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(m.data()), m.size());
    ++runs;
  }
  std::printf("%s: %llu inputs (%zu seeds), nothing found\n", argv[0], static_cast<unsigned long long>(runs),
              seeds.size());
  return 0;
}
