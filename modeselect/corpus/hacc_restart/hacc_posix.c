/*
 * HACC-IO checkpoint and restart through POSIX I/O on one shared file.
 *
 *   hacc_posix write FILE N     every rank writes N particles (9 variables) into FILE
 *   hacc_posix restart FILE     the ranks of this run split ALL particles evenly among
 *                               themselves, whatever the number of ranks that wrote them,
 *                               read their share of every variable and check the values
 *
 * Layout: a 4 KiB header (magic, number of writers, particles of each writer), then each
 * variable's values for all particles in global id order.
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC 0x48414343494f3031ull
#define HEADER 4096
#define NVARS 9
#define MAX_WRITERS 500
static const size_t var_bytes[NVARS] = {4, 4, 4, 4, 4, 4, 4, 8, 2};

static int rank, nranks;

static void die(const char *what, const char *path) {
  fprintf(stderr, "hacc_posix[%d]: %s %s: %s\n", rank, what, path, errno ? strerror(errno) : "");
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The value of variable v of particle id (floats, ids and masks alike, as bytes). */
static void value_of(int v, int64_t id, void *out) {
  uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull + (uint64_t)v * 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  if (v < 7) {
    float f = (float)(h % 65536) / 256.0f;
    memcpy(out, &f, 4);
  } else if (v == 7) {
    memcpy(out, &id, 8);
  } else {
    uint16_t m = (uint16_t)(id & 0xffff);
    memcpy(out, &m, 2);
  }
}

static void fill(int v, int64_t first, int64_t n, char *buf) {
  for (int64_t i = 0; i < n; i++) value_of(v, first + i, buf + i * var_bytes[v]);
}

static void full_pwrite(int fd, const char *buf, size_t len, off_t at, const char *path) {
  while (len > 0) {
    ssize_t n = pwrite(fd, buf, len, at);
    if (n < 0) die("pwrite", path);
    buf += n, len -= (size_t)n, at += n;
  }
}

static void full_pread(int fd, char *buf, size_t len, off_t at, const char *path) {
  while (len > 0) {
    ssize_t n = pread(fd, buf, len, at);
    if (n < 0) die("pread", path);
    if (n == 0) {
      errno = 0;
      die("unexpected end of file in", path);
    }
    buf += n, len -= (size_t)n, at += n;
  }
}

static void write_checkpoint(const char *path, int64_t n) {
  int64_t counts[MAX_WRITERS], before = 0, total = 0;
  MPI_Allgather(&n, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < nranks; r++) {
    if (r < rank) before += counts[r];
    total += counts[r];
  }
  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  if (fd < 0) die("open", path);
  if (rank == 0) {
    char header[HEADER] = {0};
    uint64_t head[2] = {MAGIC, (uint64_t)nranks};
    memcpy(header, head, sizeof head);
    memcpy(header + sizeof head, counts, nranks * sizeof(int64_t));
    full_pwrite(fd, header, HEADER, 0, path);
  }
  off_t var_start = HEADER;
  char *buf = malloc(n * 8);
  for (int v = 0; v < NVARS; v++) {
    fill(v, before, n, buf);
    full_pwrite(fd, buf, n * var_bytes[v], var_start + before * (off_t)var_bytes[v], path);
    var_start += total * (off_t)var_bytes[v];
  }
  free(buf);
  if (fsync(fd) != 0 || close(fd) != 0) die("fsync/close", path);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("hacc_posix: %d writers, %lld particles, %lld bytes\n", nranks, (long long)total, (long long)var_start);
}

static void restart(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) die("open", path);
  char header[HEADER];
  full_pread(fd, header, HEADER, 0, path);
  uint64_t head[2];
  memcpy(head, header, sizeof head);
  if (head[0] != MAGIC || head[1] == 0 || head[1] > MAX_WRITERS) {
    errno = 0;
    die("bad header in", path);
  }
  int64_t counts[MAX_WRITERS], total = 0;
  memcpy(counts, header + sizeof head, head[1] * sizeof(int64_t));
  for (uint64_t w = 0; w < head[1]; w++) total += counts[w];
  /* This run's share of the global particle range. */
  int64_t lo = total * rank / nranks, hi = total * (rank + 1) / nranks, n = hi - lo;
  char *got = malloc(n * 8), *want = malloc(n * 8);
  off_t var_start = HEADER;
  long bad = 0;
  for (int v = 0; v < NVARS; v++) {
    full_pread(fd, got, n * var_bytes[v], var_start + lo * (off_t)var_bytes[v], path);
    fill(v, lo, n, want);
    if (memcmp(got, want, n * var_bytes[v]) != 0) bad++;
    var_start += total * (off_t)var_bytes[v];
  }
  close(fd);
  free(got);
  free(want);
  long all_bad;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (all_bad) {
    if (rank == 0) fprintf(stderr, "hacc_posix: %ld variable ranges differ on restart\n", all_bad);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (rank == 0)
    printf("hacc_posix: restarted %lld particles of %llu writers on %d ranks\n", (long long)total,
           (unsigned long long)head[1], nranks);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc >= 4 && strcmp(argv[1], "write") == 0 && nranks <= MAX_WRITERS) {
    write_checkpoint(argv[2], atoll(argv[3]));
  } else if (argc >= 3 && strcmp(argv[1], "restart") == 0) {
    restart(argv[2]);
  } else {
    if (rank == 0) fprintf(stderr, "usage: hacc_posix write FILE N | restart FILE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}
