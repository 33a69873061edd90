/*
 * Seismic trace gather: the ranks write their traces into one shared file with POSIX pwrite,
 * block-cyclic (block b of rank r at offset (b * nranks + r) * BLOCK), fsync and close; after
 * a barrier every rank reopens the file and reads all blocks of the rank half the job away
 * (another node), then a random sample of any rank's blocks, checking every byte.
 *
 * usage: stripes FILE BLOCKS_PER_RANK BLOCK_KIB
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

static int rank, nranks;

static void die(const char *what, const char *path) {
  fprintf(stderr, "stripes[%d]: %s %s: %s\n", rank, what, path, strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void fill(uint32_t *b, size_t words, int owner, long block) {
  for (size_t i = 0; i < words; ++i) b[i] = (uint32_t)(owner * 2654435761u) ^ (uint32_t)(block * 40503u + i);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: stripes FILE BLOCKS_PER_RANK BLOCK_KIB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *path = argv[1];
  long blocks = atol(argv[2]);
  size_t bsize = (size_t)atol(argv[3]) * 1024, words = bsize / 4;
  uint32_t *buf = malloc(bsize), *want = malloc(bsize);
  double t0 = MPI_Wtime();

  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  if (fd < 0) die("open", path);
  for (long b = 0; b < blocks; ++b) {
    fill(buf, words, rank, b);
    off_t off = (off_t)(b * nranks + rank) * (off_t)bsize;
    if (pwrite(fd, buf, bsize, off) != (ssize_t)bsize) die("pwrite", path);
  }
  if (fsync(fd) != 0 || close(fd) != 0) die("fsync/close", path);
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();

  struct stat st;
  if (stat(path, &st) != 0) die("stat", path);
  long bad = st.st_size != (off_t)(blocks * nranks) * (off_t)bsize;
  fd = open(path, O_RDONLY);
  if (fd < 0) die("open", path);
  int other = (rank + nranks / 2) % nranks;
  for (long b = 0; b < blocks; ++b) {
    off_t off = (off_t)(b * nranks + other) * (off_t)bsize;
    if (pread(fd, buf, bsize, off) != (ssize_t)bsize) die("pread", path);
    fill(want, words, other, b);
    bad += memcmp(buf, want, bsize) != 0;
  }
  srand(rank + 1);
  for (long k = 0; k < blocks; ++k) {
    long g = rand() % (blocks * nranks);
    if (pread(fd, buf, bsize, (off_t)g * (off_t)bsize) != (ssize_t)bsize) die("pread", path);
    fill(want, words, (int)(g % nranks), g / nranks);
    bad += memcmp(buf, want, bsize) != 0;
  }
  close(fd);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("stripes: %d ranks x %ld blocks of %zu KiB; write %.2f s, read %.2f s; %ld bad\n", nranks, blocks,
           bsize / 1024, t1 - t0, MPI_Wtime() - t1, bad);
    if (unlink(path) != 0) die("unlink", path);
  }
  free(buf);
  free(want);
  MPI_Finalize();
  return bad ? 1 : 0;
}
