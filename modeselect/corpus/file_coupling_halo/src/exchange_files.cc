#include "exchange_files.h"

#include <mpi.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace coupler {
namespace {

struct StripHeader {
  int32_t rank, step, side, count;
};

[[noreturn]] void Fail(const std::string& msg) {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  std::fprintf(stderr, "coupler[%d]: %s\n", me, msg.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

void Put(const std::string& run, int step, int rank, Side side, const std::vector<double>& v) {
  const std::string path = StripPath(run, step, rank, side), tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) Fail("cannot create " + tmp + ": " + std::strerror(errno));
    StripHeader h{rank, step, static_cast<int32_t>(side), static_cast<int32_t>(v.size())};
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
    if (!out.flush()) Fail("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) Fail("cannot rename " + tmp + ": " + ec.message());
}

}  // namespace

std::string StripPath(const std::string& run, int step, int rank, Side side) {
  char name[64];
  std::snprintf(name, sizeof name, "step_%04d/strip_r%04d_%s.bin", step, rank, side == Side::kLeft ? "left" : "right");
  return run + "/" + name;
}

void PutStrips(const std::string& run, int step, int rank, const std::vector<double>& left,
               const std::vector<double>& right) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(StripPath(run, step, rank, Side::kLeft)).parent_path(), ec);
  if (ec) Fail("cannot make the directory of step " + std::to_string(step) + ": " + ec.message());
  Put(run, step, rank, Side::kLeft, left);
  Put(run, step, rank, Side::kRight, right);
}

void GetStrip(const std::string& run, int step, int from, Side side, std::vector<double>& out) {
  const std::string path = StripPath(run, step, from, side);
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail("cannot open " + path + ": " + std::strerror(errno));
  StripHeader h{};
  in.read(reinterpret_cast<char*>(&h), sizeof h);
  if (!in || h.rank != from || h.step != step || h.side != static_cast<int32_t>(side) ||
      h.count != static_cast<int32_t>(out.size())) {
    Fail(path + ": not the strip of rank " + std::to_string(from) + " at step " + std::to_string(step));
  }
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(double)));
  if (in.gcount() != static_cast<std::streamsize>(out.size() * sizeof(double))) Fail(path + ": short strip");
  if (in.peek() != std::char_traits<char>::eof()) Fail(path + ": longer than its header says");
}

void DropStrips(const std::string& run, int step, int rank) {
  for (Side s : {Side::kLeft, Side::kRight}) {
    std::error_code ec;
    if (!std::filesystem::remove(StripPath(run, step, rank, s), ec)) {
      Fail("cannot remove " + StripPath(run, step, rank, s) + ": " + (ec ? ec.message() : "not there"));
    }
  }
}

}  // namespace coupler
