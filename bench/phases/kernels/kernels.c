/* I/O kernels shaped like the paper's production codes (Table I), small enough for the emulated
 * cluster. Each is an MPI program; rank 0 prints one BB_RESULT line per timed phase (bytes or
 * operations of all ranks / the time between barriers around the phase, closes included).
 *
 *   kernels hacc DIR PARTICLES      HACC-IO: N-1 checkpoint (9 arrays per rank: 7 floats, an
 *                                   int64 id, a uint16 mask = 38 bytes a particle, each rank's
 *                                   arrays one after another), restart read of another node's
 *                                   block, then small metadata operations on the file
 *   kernels mad DIR BYTES NBIN MODE MADbench2: S (write NBIN matrices), W (read each, write it
 *                                   back), C (read all); MODE shared = one file, written through
 *                                   one aggregator per node (two-phase collective buffering);
 *                                   unique = a file per rank; perbin = a file per rank and bin
 *   kernels s3d DIR BYTES RECORDS   S3D-IO: N-N checkpoint (4 fields per rank file), restart
 *                                   read of another node's file, RECORDS small appends with
 *                                   fsync (latency) */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rank, nranks, tpn, node;

static void die(const char* what, const char* path) {
  fprintf(stderr, "rank %d: %s %s: ", rank, what, path);
  perror("");
  MPI_Abort(MPI_COMM_WORLD, 1);
}
static int open_or_die(const char* path, int flags) {
  int fd = open(path, flags, 0644);
  if (fd < 0) die("open", path);
  return fd;
}
static void pwrite_all(int fd, const char* buf, size_t n, off_t off, const char* path) {
  while (n > 0) {
    ssize_t k = pwrite(fd, buf, n, off);
    if (k <= 0) die("write", path);
    buf += k, n -= (size_t)k, off += k;
  }
}
static void pread_all(int fd, char* buf, size_t n, off_t off, const char* path) {
  while (n > 0) {
    ssize_t k = pread(fd, buf, n, off);
    if (k <= 0) die("read", path);
    buf += k, n -= (size_t)k, off += k;
  }
}
static double t_start(void) { MPI_Barrier(MPI_COMM_WORLD); return MPI_Wtime(); }
/* Ends a phase: reports amount (summed over ranks) per second as METRIC. */
static void t_end(double t0, double amount, const char* metric, double scale) {
  double total = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double s = MPI_Wtime() - t0;
  MPI_Reduce(&amount, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("BB_RESULT metric=%s value=%.3f higher_is_better=1\n", metric, total / scale / s);
  fflush(stdout);
}
static int peer(void) { return (rank + tpn) % nranks; } /* the same local rank on the next node */
static char* filled(size_t n, int seed) {
  char* b = malloc(n);
  for (size_t i = 0; i < n; ++i) b[i] = (char)(i * 131 + seed);
  return b;
}

static void hacc(const char* dir, long particles) {
  static const int kSizes[9] = {4, 4, 4, 4, 4, 4, 4, 8, 2};
  size_t block = 38 * (size_t)particles;
  char path[4096];
  snprintf(path, sizeof path, "%s/hacc.ckpt", dir);
  char* buf = filled(block, rank);
  double t0 = t_start();
  int fd = open_or_die(path, O_CREAT | O_WRONLY);
  off_t off = (off_t)rank * block;
  for (int v = 0; v < 9; ++v) pwrite_all(fd, buf, kSizes[v] * (size_t)particles, off, path), off += kSizes[v] * particles;
  if (close(fd) != 0) die("close", path);
  t_end(t0, block, "checkpoint_write_mib_s", 1 << 20);
  t0 = t_start();
  fd = open_or_die(path, O_RDONLY);
  off = (off_t)peer() * block;
  for (int v = 0; v < 9; ++v) pread_all(fd, buf, kSizes[v] * (size_t)particles, off, path), off += kSizes[v] * particles;
  close(fd);
  t_end(t0, block, "restart_read_mib_s", 1 << 20);
  t0 = t_start();
  struct stat st;
  char header[64];
  for (int i = 0; i < 200; ++i) {
    if (stat(path, &st) != 0) die("stat", path);
    fd = open_or_die(path, O_RDONLY);
    pread_all(fd, header, sizeof header, (off_t)peer() * block, path);
    close(fd);
  }
  t_end(t0, 200 * 3, "small_meta_ops_s", 1);
  free(buf);
}

static void mad_path(char* path, size_t n, const char* dir, const char* mode, int r, int bin) {
  if (!strcmp(mode, "shared")) snprintf(path, n, "%s/mad.shared", dir);
  else if (!strcmp(mode, "unique")) snprintf(path, n, "%s/mad.%d", dir, r);
  else snprintf(path, n, "%s/mad.%d.%d", dir, r, bin);
}

/* shared mode: the ranks of a node hand their part of a matrix to the node's first rank, which
 * writes the node's parts as one contiguous piece (two-phase collective buffering). */
static void mad_write(MPI_Comm node_comm, const char* dir, const char* mode, int bin, char* buf, size_t bytes) {
  char path[4096];
  mad_path(path, sizeof path, dir, mode, rank, bin);
  if (strcmp(mode, "shared") != 0) {
    int fd = open_or_die(path, O_CREAT | O_WRONLY);
    pwrite_all(fd, buf, bytes, strcmp(mode, "unique") ? 0 : (off_t)bin * bytes, path);
    if (close(fd) != 0) die("close", path);
    return;
  }
  int lrank, lsize;
  MPI_Comm_rank(node_comm, &lrank);
  MPI_Comm_size(node_comm, &lsize);
  char* agg = lrank == 0 ? malloc(bytes * lsize) : NULL;
  MPI_Gather(buf, (int)bytes, MPI_BYTE, agg, (int)bytes, MPI_BYTE, 0, node_comm);
  if (lrank == 0) {
    int fd = open_or_die(path, O_CREAT | O_WRONLY);
    pwrite_all(fd, agg, bytes * lsize, ((off_t)bin * nranks + (off_t)node * lsize) * bytes, path);
    if (close(fd) != 0) die("close", path);
    free(agg);
  }
}
static void mad_read(const char* dir, const char* mode, int bin, char* buf, size_t bytes) {
  char path[4096];
  mad_path(path, sizeof path, dir, mode, rank, bin);
  int fd = open_or_die(path, O_RDONLY);
  off_t off = !strcmp(mode, "shared") ? ((off_t)bin * nranks + rank) * bytes : !strcmp(mode, "unique") ? (off_t)bin * bytes : 0;
  pread_all(fd, buf, bytes, off, path);
  close(fd);
}
static void mad(const char* dir, size_t bytes, int nbin, const char* mode) {
  MPI_Comm node_comm;
  MPI_Comm_split(MPI_COMM_WORLD, node, rank, &node_comm);
  char* buf = filled(bytes, rank);
  double t0 = t_start();
  for (int b = 0; b < nbin; ++b) mad_write(node_comm, dir, mode, b, buf, bytes);
  t_end(t0, (double)bytes * nbin, "S_write_mib_s", 1 << 20);
  t0 = t_start();
  for (int b = 0; b < nbin; ++b) mad_read(dir, mode, b, buf, bytes), mad_write(node_comm, dir, mode, b, buf, bytes);
  t_end(t0, 2.0 * bytes * nbin, "W_readwrite_mib_s", 1 << 20);
  t0 = t_start();
  for (int b = 0; b < nbin; ++b) mad_read(dir, mode, b, buf, bytes);
  t_end(t0, (double)bytes * nbin, "C_read_mib_s", 1 << 20);
  free(buf);
  MPI_Comm_free(&node_comm);
}

static void s3d(const char* dir, size_t bytes, int records) {
  char path[4096], other[4096], log[4096];
  snprintf(path, sizeof path, "%s/s3d.field.%d", dir, rank);
  snprintf(other, sizeof other, "%s/s3d.field.%d", dir, peer());
  snprintf(log, sizeof log, "%s/s3d.log.%d", dir, rank);
  size_t field = bytes / 4;
  char* buf = filled(field, rank);
  double t0 = t_start();
  int fd = open_or_die(path, O_CREAT | O_WRONLY | O_TRUNC);
  for (int f = 0; f < 4; ++f) pwrite_all(fd, buf, field, (off_t)f * field, path);
  if (close(fd) != 0) die("close", path);
  t_end(t0, 4.0 * field, "checkpoint_write_mib_s", 1 << 20);
  t0 = t_start();
  fd = open_or_die(other, O_RDONLY);
  for (int f = 0; f < 4; ++f) pread_all(fd, buf, field, (off_t)f * field, other);
  close(fd);
  t_end(t0, 4.0 * field, "restart_read_mib_s", 1 << 20);
  t0 = t_start();
  fd = open_or_die(log, O_CREAT | O_WRONLY | O_APPEND);
  for (int i = 0; i < records; ++i) {
    if (write(fd, buf, 512) != 512 || fsync(fd) != 0) die("append", log);
  }
  close(fd);
  t_end(t0, records, "small_append_fsync_ops_s", 1);
  free(buf);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char* t = getenv("SLURM_NTASKS_PER_NODE");
  const char* n = getenv("SLURM_NODEID");
  tpn = t ? atoi(t) : 1;
  node = n ? atoi(n) : 0;
  if (argc >= 4 && !strcmp(argv[1], "hacc")) hacc(argv[2], atol(argv[3]));
  else if (argc >= 6 && !strcmp(argv[1], "mad")) mad(argv[2], strtoul(argv[3], NULL, 10), atoi(argv[4]), argv[5]);
  else if (argc >= 5 && !strcmp(argv[1], "s3d")) s3d(argv[2], strtoul(argv[3], NULL, 10), atoi(argv[4]));
  else {
    if (rank == 0) fprintf(stderr, "usage: kernels hacc DIR PARTICLES | mad DIR BYTES NBIN shared|unique|perbin | s3d DIR BYTES RECORDS\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Finalize();
  return 0;
}
