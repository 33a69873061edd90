/* A checkpoint/restart kernel: every rank writes its state to a file of its own, then a restart
 * (possibly with another task layout) reads a checkpoint back and checks it.
 *
 *   ckpt write DIR MIB      rank r writes DIR/ckpt.<r> (MIB MiB in 1 MiB blocks), then fsyncs
 *   ckpt restart DIR MIB    rank r reads DIR/ckpt.<r> and checks every block
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1 << 20)

static void fill(char* buf, int rank, int block) {
  for (int i = 0; i < BLOCK; i += 8) {
    uint64_t v = ((uint64_t)rank << 40) ^ ((uint64_t)block << 20) ^ (uint64_t)i;
    memcpy(buf + i, &v, 8);
  }
}

static int checkpoint(const char* path, int rank, int mib, char* buf) {
  int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) return perror(path), 1;
  for (int b = 0; b < mib; ++b) {
    fill(buf, rank, b);
    if (write(fd, buf, BLOCK) != BLOCK) return perror("write"), 1;
  }
  return (fsync(fd) != 0 || close(fd) != 0) ? (perror("fsync"), 1) : 0;
}

static int restart(const char* path, int rank, int mib, char* buf, char* want) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return perror(path), 1;
  for (int b = 0; b < mib; ++b) {
    fill(want, rank, b);
    if (read(fd, buf, BLOCK) != BLOCK || memcmp(buf, want, BLOCK) != 0) {
      fprintf(stderr, "rank %d: block %d of %s is not what was written\n", rank, b, path);
      return 1;
    }
  }
  return close(fd) != 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: ckpt write|restart DIR MIB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int mib = atoi(argv[3]);
  char path[4096];
  snprintf(path, sizeof path, "%s/ckpt.%d", argv[2], rank);
  char* buf = malloc(BLOCK);
  char* want = malloc(BLOCK);
  int bad = strcmp(argv[1], "write") == 0 ? checkpoint(path, rank, mib, buf) : restart(path, rank, mib, buf, want);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d ranks, %d MiB each: %s\n", argv[1], size, mib, any ? "FAILED" : "ok");
  free(buf);
  free(want);
  MPI_Finalize();
  return any;
}
