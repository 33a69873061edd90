// A 1-D solver with N-N checkpoints that can restart on any number of ranks.
//
// Checkpoint of step S: CKPT/step_SSSSSS/piece_PPPPP.ckpt per rank (a header with the piece's
// place in the global array and a checksum, then the values), ckpt.meta written by rank 0 once
// all pieces are in, and CKPT/LATEST naming the step directory (replaced by rename).
// Restart: every rank reads LATEST and the meta file, lists the step directory and requires
// every piece to be there, reads the pieces that cover its part of the global array (with 8
// pieces and 4 ranks, two each), checks them, advances the state and checkpoints again.
//
// usage: solver run CKPT STEPS | solver restart CKPT MORE_STEPS
#include <mpi.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int64_t kGlobal = 1 << 21;  // doubles in the global state (16 MiB)
constexpr uint64_t kMagic = 0x54504b4331444e31;  // "1DNC1KPT"
int rank = 0, size = 1;

struct PieceHeader {
  uint64_t magic;
  int64_t step, piece, pieces, start, count;
  uint64_t checksum;
};

[[noreturn]] void Fail(const std::string& msg) {
  std::fprintf(stderr, "solver[%d]: %s\n", rank, msg.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

// The state after `step` steps (the solver's update has this closed form).
double State(int64_t i, int64_t step) { return std::sin(1.0e-5 * static_cast<double>(i) + 0.1 * step) * (1 + step); }

uint64_t Checksum(const std::vector<double>& v) {
  uint64_t h = 1469598103934665603ull, w;
  for (double d : v) {
    std::memcpy(&w, &d, sizeof w);
    h = (h ^ w) * 1099511628211ull;
  }
  return h;
}

std::string StepDir(const std::string& ckpt, int64_t step) {
  char name[32];
  std::snprintf(name, sizeof name, "step_%06lld", static_cast<long long>(step));
  return ckpt + "/" + name;
}

std::string PiecePath(const std::string& dir, int64_t piece) {
  char name[32];
  std::snprintf(name, sizeof name, "piece_%05lld.ckpt", static_cast<long long>(piece));
  return dir + "/" + name;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail("cannot open " + path + ": " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path + ".tmp", std::ios::trunc);
  out << text;
  if (!out.flush()) Fail("cannot write " + path + ".tmp");
  out.close();
  std::error_code ec;
  fs::rename(path + ".tmp", path, ec);
  if (ec) Fail("cannot rename " + path + ".tmp: " + ec.message());
}

// This rank's piece of a checkpoint, then (rank 0, after everyone) the meta file and LATEST.
void Checkpoint(const std::string& ckpt, int64_t step, int64_t start, const std::vector<double>& u) {
  const std::string dir = StepDir(ckpt, step);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) Fail("cannot make " + dir + ": " + ec.message());
  PieceHeader h{kMagic, step, rank, size, start, static_cast<int64_t>(u.size()), Checksum(u)};
  {
    std::ofstream out(PiecePath(dir, rank), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(u.data()), static_cast<std::streamsize>(u.size() * sizeof(double)));
    if (!out.flush()) Fail("cannot write " + PiecePath(dir, rank));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    WriteText(dir + "/ckpt.meta", "pieces " + std::to_string(size) + "\nglobal " + std::to_string(kGlobal) +
                                      "\nstep " + std::to_string(step) + "\n");
    WriteText(ckpt + "/LATEST", fs::path(dir).filename().string() + "\n");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

std::vector<double> Advance(int64_t start, int64_t count, int64_t step) {
  std::vector<double> u(count);
  for (int64_t i = 0; i < count; ++i) u[i] = State(start + i, step);
  return u;
}

void Run(const std::string& ckpt, int64_t steps) {
  const int64_t count = kGlobal / size, start = rank * count;
  std::vector<double> u = Advance(start, count, steps);
  Checkpoint(ckpt, steps, start, u);
  if (rank == 0) std::printf("solver: %lld steps on %d ranks, checkpoint of %d pieces\n", (long long)steps, size, size);
}

void Restart(const std::string& ckpt, int64_t more) {
  std::string latest = ReadText(ckpt + "/LATEST");
  latest.erase(latest.find_last_not_of("\n ") + 1);
  const std::string dir = ckpt + "/" + latest;
  std::istringstream meta(ReadText(dir + "/ckpt.meta"));
  std::string key;
  int64_t pieces = 0, global = 0, step = 0;
  meta >> key >> pieces >> key >> global >> key >> step;
  if (pieces < 1 || global != kGlobal || pieces % size != 0) Fail(dir + "/ckpt.meta: cannot restart from it");

  int64_t found = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    found += name.rfind("piece_", 0) == 0 && name.size() > 5 && name.substr(name.size() - 5) == ".ckpt";
  }
  if (found != pieces) Fail(dir + ": " + std::to_string(found) + " pieces listed, the meta file says " +
                             std::to_string(pieces));

  const int64_t per = pieces / size, count = kGlobal / size, start = rank * count;
  std::vector<double> u;
  u.reserve(count);
  for (int64_t p = rank * per; p < (rank + 1) * per; ++p) {
    const std::string path = PiecePath(dir, p);
    std::ifstream in(path, std::ios::binary);
    if (!in) Fail("cannot open " + path + ": " + std::strerror(errno));
    PieceHeader h{};
    in.read(reinterpret_cast<char*>(&h), sizeof h);
    if (!in || h.magic != kMagic || h.piece != p || h.pieces != pieces || h.step != step ||
        h.start != start + static_cast<int64_t>(u.size())) {
      Fail(path + ": not piece " + std::to_string(p) + " of step " + std::to_string(step));
    }
    std::vector<double> v(h.count);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
    if (in.gcount() != static_cast<std::streamsize>(v.size() * sizeof(double)) || Checksum(v) != h.checksum) {
      Fail(path + ": short or corrupt piece");
    }
    for (int64_t i = 0; i < h.count; ++i) {
      if (v[i] != State(h.start + i, step)) Fail(path + ": wrong value at " + std::to_string(h.start + i));
    }
    u.insert(u.end(), v.begin(), v.end());
  }
  if (static_cast<int64_t>(u.size()) != count) Fail("the pieces read do not cover this rank's part");

  u = Advance(start, count, step + more);
  Checkpoint(ckpt, step + more, start, u);
  // The checkpoint restarted from is superseded by the new one (every rank is past reading it).
  if (rank == 0) fs::remove_all(dir);
  if (rank == 0)
    std::printf("solver: restarted from %s (%lld pieces) on %d ranks, %lld more steps, checkpoint of %d pieces\n",
                latest.c_str(), (long long)pieces, size, (long long)more, size);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4 || (std::strcmp(argv[1], "run") != 0 && std::strcmp(argv[1], "restart") != 0)) {
    if (rank == 0) std::fprintf(stderr, "usage: solver run CKPT STEPS | solver restart CKPT MORE_STEPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (kGlobal % size != 0) Fail("the rank count must divide the global size");
  try {
    if (std::strcmp(argv[1], "run") == 0) {
      Run(argv[2], std::atoll(argv[3]));
    } else {
      Restart(argv[2], std::atoll(argv[3]));
    }
  } catch (const std::exception& e) {
    Fail(e.what());
  }
  MPI_Finalize();
  return 0;
}
