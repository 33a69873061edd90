/*
 * Tile filter with node-local scratch.
 *
 * The tasks of one node share a scratch directory SCRATCH/node<SLURM_NODEID>. The node's
 * first task (SLURM_LOCALID 0) unpacks the node's tiles there (here: generates them, each
 * with a small header: magic, node, tile number, payload checksum). After the node's tasks
 * have met, task k of the node filters tiles k, k + tasks_on_node, ... : it reads the tile,
 * checks its header and checksum, applies a 3-point smoothing filter to each row and writes
 * tile_NNNN.flt beside it. When all of the node's tasks are done, the first task reads every
 * filtered tile back, compares it with the filter applied to the tile it unpacked, and
 * removes the node's scratch directory. Ranks talk only within their node (a communicator
 * split by SLURM_NODEID), apart from the final tally.
 *
 * usage: tiles SCRATCH TILES_PER_NODE TILE_KIB
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC 0x54494c45u /* "TILE" */
#define WIDTH 256         /* pixels (uint32) per row */

struct tile_header {
  uint32_t magic, node, tile, rows;
  uint64_t checksum;
};

static int rank, node;

static void die(const char *what, const char *path) {
  fprintf(stderr, "tiles[%d@node%d]: %s %s: %s\n", rank, node, what, path, strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static uint32_t pixel(int nd, int tile, size_t i) {
  uint64_t x = ((uint64_t)nd << 48) ^ ((uint64_t)tile << 32) ^ i;
  x *= 0x9e3779b97f4a7c15ull;
  return (uint32_t)(x >> 40); /* 24-bit pixels, so the filter sums fit */
}

static uint64_t checksum(const uint32_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static void smooth(const uint32_t *in, uint32_t *out, size_t rows) {
  for (size_t r = 0; r < rows; r++) {
    const uint32_t *a = in + r * WIDTH;
    uint32_t *b = out + r * WIDTH;
    for (int c = 0; c < WIDTH; c++) {
      uint32_t left = a[c > 0 ? c - 1 : c], right = a[c < WIDTH - 1 ? c + 1 : c];
      b[c] = (left + 2 * a[c] + right) / 4;
    }
  }
}

static void write_all(const char *path, const void *hdr, size_t hlen, const void *data, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("create", path);
  if (write(fd, hdr, hlen) != (ssize_t)hlen) die("write", path);
  for (size_t done = 0; done < len;) {
    ssize_t n = write(fd, (const char *)data + done, len - done);
    if (n <= 0) die("write", path);
    done += (size_t)n;
  }
  if (close(fd) != 0) die("close", path);
}

static void read_all(const char *path, void *hdr, size_t hlen, void *data, size_t len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) die("open", path);
  if (read(fd, hdr, hlen) != (ssize_t)hlen) die("read header of", path);
  for (size_t done = 0; done < len;) {
    ssize_t n = read(fd, (char *)data + done, len - done);
    if (n < 0) die("read", path);
    if (n == 0) {
      errno = EIO;
      die("short read of", path);
    }
    done += (size_t)n;
  }
  char extra;
  if (read(fd, &extra, 1) != 0) {
    errno = EFBIG;
    die("trailing data in", path);
  }
  close(fd);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: tiles SCRATCH TILES_PER_NODE TILE_KIB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *id = getenv("SLURM_NODEID"), *lid = getenv("SLURM_LOCALID");
  if (id == NULL || lid == NULL) {
    fprintf(stderr, "tiles: run me with srun (SLURM_NODEID/SLURM_LOCALID unset)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  node = atoi(id);
  int local = atoi(lid);
  const char *scratch = argv[1];
  int tiles = atoi(argv[2]);
  size_t rows = (size_t)atoi(argv[3]) * 1024 / (WIDTH * sizeof(uint32_t));
  size_t npix = rows * WIDTH, bytes = npix * sizeof(uint32_t);

  MPI_Comm nodecomm;
  MPI_Comm_split(MPI_COMM_WORLD, node, local, &nodecomm);
  int ntasks_node;
  MPI_Comm_size(nodecomm, &ntasks_node);

  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s/node%d", scratch, node);
  uint32_t *in = malloc(bytes), *out = malloc(bytes), *want = malloc(bytes);
  struct tile_header h;
  double t0 = MPI_Wtime();

  /* Unpack: the node's first task lays out the node's tiles. */
  if (local == 0) {
    if (mkdir(scratch, 0755) != 0 && errno != EEXIST) die("mkdir", scratch);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) die("mkdir", dir);
    for (int t = 0; t < tiles; t++) {
      for (size_t i = 0; i < npix; i++) in[i] = pixel(node, t, i);
      h = (struct tile_header){MAGIC, (uint32_t)node, (uint32_t)t, (uint32_t)rows, checksum(in, npix)};
      snprintf(path, sizeof path, "%s/tile_%04d.raw", dir, t);
      write_all(path, &h, sizeof h, in, bytes);
    }
  }
  MPI_Barrier(nodecomm);

  /* Filter: this task's share of the node's tiles. */
  for (int t = local; t < tiles; t += ntasks_node) {
    snprintf(path, sizeof path, "%s/tile_%04d.raw", dir, t);
    read_all(path, &h, sizeof h, in, bytes);
    if (h.magic != MAGIC || h.node != (uint32_t)node || h.tile != (uint32_t)t || h.rows != rows ||
        h.checksum != checksum(in, npix)) {
      fprintf(stderr, "tiles[%d@node%d]: %s: bad header or checksum\n", rank, node, path);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    smooth(in, out, rows);
    h.checksum = checksum(out, npix);
    snprintf(path, sizeof path, "%s/tile_%04d.flt", dir, t);
    write_all(path, &h, sizeof h, out, bytes);
  }
  MPI_Barrier(nodecomm);

  /* Check and clean up: the node's first task. */
  long bad = 0;
  if (local == 0) {
    for (int t = 0; t < tiles; t++) {
      for (size_t i = 0; i < npix; i++) in[i] = pixel(node, t, i);
      smooth(in, want, rows);
      snprintf(path, sizeof path, "%s/tile_%04d.flt", dir, t);
      read_all(path, &h, sizeof h, out, bytes);
      if (h.tile != (uint32_t)t || memcmp(out, want, bytes) != 0) {
        fprintf(stderr, "tiles[%d@node%d]: %s does not hold the filtered tile\n", rank, node, path);
        bad++;
      }
      if (unlink(path) != 0) die("unlink", path);
      snprintf(path, sizeof path, "%s/tile_%04d.raw", dir, t);
      if (unlink(path) != 0) die("unlink", path);
    }
    if (rmdir(dir) != 0) die("rmdir", dir);
  }
  /* The scratch root goes with the last node directory (every node is past its mkdir). */
  MPI_Barrier(MPI_COMM_WORLD);
  if (local == 0 && rmdir(scratch) != 0 && errno != ENOTEMPTY && errno != EEXIST && errno != ENOENT)
    die("rmdir", scratch);
  long all_bad;
  int size;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    printf("tiles: %d tiles of %zu KiB per node filtered by %d tasks in %.3f s, %ld bad\n", tiles, bytes >> 10,
           size, MPI_Wtime() - t0, all_bad);
  free(in);
  free(out);
  free(want);
  MPI_Comm_free(&nodecomm);
  MPI_Finalize();
  return all_bad != 0 ? 1 : 0;
}
