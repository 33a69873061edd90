/*
 * The small metadata traffic around a HACC-IO run: every rank keeps a tiny index file of its
 * blocks, rank 0 rewrites a small step header every step, and every rank re-reads the header
 * and checks its neighbour's index at every step (as the in-situ analysis does), so the run
 * is bound by the latency of open/stat/close rather than by bandwidth. At the end rank 0 reads
 * every index and merges them.
 *
 * usage: hacc_meta DIR STEPS
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INDEX_BYTES 256

static int rank, nranks;

static void fail(const char *what, const char *path) {
  fprintf(stderr, "hacc_meta[%d]: %s %s: %s\n", rank, what, path, errno ? strerror(errno) : "bad content");
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void index_name(char *out, size_t len, const char *dir, int r) { snprintf(out, len, "%s/rank.%05d.idx", dir, r); }

static void write_small(const char *path, const char *buf, size_t len, int sync) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("open", path);
  if (write(fd, buf, len) != (ssize_t)len) fail("write", path);
  if (sync && fsync(fd) != 0) fail("fsync", path);
  if (close(fd) != 0) fail("close", path);
}

static void read_small(const char *path, char *buf, size_t len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) fail("open", path);
  ssize_t n = read(fd, buf, len);
  if (n != (ssize_t)len) {
    errno = 0;
    fail("short read of", path);
  }
  close(fd);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: hacc_meta DIR STEPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *dir = argv[1];
  int steps = atoi(argv[2]);
  if (rank == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST) fail("mkdir", dir);
  MPI_Barrier(MPI_COMM_WORLD);

  char mine[4096], header[4096], neighbour[4096];
  index_name(mine, sizeof mine, dir, rank);
  index_name(neighbour, sizeof neighbour, dir, (rank + 1) % nranks);
  snprintf(header, sizeof header, "%s/current.hdr", dir);

  char idx[INDEX_BYTES];
  memset(idx, ' ', sizeof idx);
  int n = snprintf(idx, sizeof idx, "rank %d of %d blocks 9 first %lld\n", rank, nranks, (long long)rank * 100000);
  idx[n] = ' ';
  idx[INDEX_BYTES - 1] = '\n';
  write_small(mine, idx, sizeof idx, 0);
  MPI_Barrier(MPI_COMM_WORLD);

  double t0 = MPI_Wtime();
  for (int step = 0; step < steps; step++) {
    char hdr[64], got[64];
    memset(hdr, 0, sizeof hdr);
    snprintf(hdr, sizeof hdr, "step %06d ranks %d", step, nranks);
    if (rank == 0) write_small(header, hdr, sizeof hdr, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    read_small(header, got, sizeof got);
    if (memcmp(got, hdr, sizeof hdr) != 0) {
      errno = 0;
      fail("stale step header", header);
    }
    struct stat st;
    if (stat(neighbour, &st) != 0) fail("stat", neighbour);
    if (st.st_size != INDEX_BYTES) {
      errno = 0;
      fail("wrong size of", neighbour);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double t1 = MPI_Wtime();

  if (rank == 0) {
    char merged_name[4096], path[4096], buf[INDEX_BYTES];
    snprintf(merged_name, sizeof merged_name, "%s/index.all", dir);
    FILE *merged = fopen(merged_name, "w");
    if (!merged) fail("fopen", merged_name);
    for (int r = 0; r < nranks; r++) {
      index_name(path, sizeof path, dir, r);
      read_small(path, buf, sizeof buf);
      int got_rank = -1;
      if (sscanf(buf, "rank %d", &got_rank) != 1 || got_rank != r) {
        errno = 0;
        fail("unexpected index in", path);
      }
      fwrite(buf, 1, sizeof buf, merged);
    }
    if (fclose(merged) != 0) fail("fclose", merged_name);
    printf("hacc_meta: %d steps, %.2f ms per step, %d indexes merged\n", steps, (t1 - t0) * 1e3 / steps, nranks);
  }
  MPI_Finalize();
  return 0;
}
