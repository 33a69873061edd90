// Mail delivery into shared Maildir folders (the alert spool of a monitoring system): every
// rank delivers MSGS messages round-robin into the mailboxes box00..boxNN (one per rank), each
// the Maildir way: written into tmp/ under a unique name, then renamed into new/. After a
// barrier, every rank drains its own mailbox: lists new/, reads each message, checks it, and
// renames it into cur/ with the ":2,S" (seen) flag; then it lists cur/ and counts, and
// expunges (unlinks) every message. The mailbox directories are removed by their readers.
//
// usage: maildir ROOT MSGS
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

int rank = 0, nranks = 1;

fs::path Box(const fs::path& root, int b) {
  char name[16];
  std::snprintf(name, sizeof name, "box%02d", b);
  return root / name;
}

std::string Body(int from, int seq) {
  std::ostringstream o;
  o << "From: rank" << from << "\nSubject: alert " << seq << "\n\n";
  for (int i = 0; i < 12; ++i) o << "sensor " << (seq * 7 + i) % 101 << " over threshold at step " << seq << "\n";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 3) {
    if (rank == 0) std::fprintf(stderr, "usage: maildir ROOT MSGS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  fs::path root = argv[1];
  int msgs = std::atoi(argv[2]);
  long bad = 0, read_count = 0;
  try {
    fs::path mine = Box(root, rank);
    for (const char* sub : {"tmp", "new", "cur"}) fs::create_directories(mine / sub);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < msgs; ++i) {
      fs::path box = Box(root, (rank + i) % nranks);
      std::string unique = std::to_string(1700000000 + i) + ".R" + std::to_string(rank) + "P" +
                           std::to_string(getpid()) + ".node" + std::to_string(i);
      {
        std::ofstream out(box / "tmp" / unique, std::ios::trunc);
        out << Body(rank, i);
        if (!out) throw std::runtime_error("cannot write " + (box / "tmp" / unique).string());
      }
      fs::rename(box / "tmp" / unique, box / "new" / unique);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    for (const auto& e : fs::directory_iterator(mine / "new")) {
      std::string name = e.path().filename().string();
      int from = -1, seq = -1;
      auto r = name.find(".R"), p = name.find('P', r), node = name.find(".node");
      if (r == std::string::npos || p == std::string::npos || node == std::string::npos) {
        ++bad;
        continue;
      }
      from = std::stoi(name.substr(r + 2, p - r - 2));
      seq = std::stoi(name.substr(node + 5));
      std::ifstream in(e.path());
      std::stringstream body;
      body << in.rdbuf();
      bad += body.str() != Body(from, seq);
      fs::rename(e.path(), mine / "cur" / (name + ":2,S"));
      ++read_count;
    }
    long in_cur = 0;
    for (const auto& e : fs::directory_iterator(mine / "cur")) {
      ++in_cur;
      fs::remove(e.path());
    }
    bad += in_cur != read_count || read_count != msgs;  // msgs arrive in every box: nranks x msgs/nranks
    bad += !fs::is_empty(mine / "tmp") || !fs::is_empty(mine / "new");
    for (const char* sub : {"tmp", "new", "cur"}) fs::remove(mine / sub);
    fs::remove(mine);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      std::printf("maildir: %d ranks delivered %d messages each in %.2f s, drained in %.2f s\n", nranks, msgs,
                  t1 - t0, MPI_Wtime() - t1);
      fs::remove(root);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "maildir[%d]: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("maildir: %ld bad\n", bad);
  MPI_Finalize();
  return bad ? 1 : 0;
}
