/*
 * Partner ("buddy") checkpointing: every rank writes its checkpoint, and after a barrier
 * each rank r validates and loads the checkpoint of rank (r+1) % N, so that the state of
 * any one failed rank can be restored by its partner. The partner's copy is checked word
 * by word against the state its owner had.
 *
 * usage: buddy CKPT_DIR MIB
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

static int rank, size;

static void die(const char *what, const char *path) {
  fprintf(stderr, "buddy[%d]: %s %s: %s\n", rank, what, path, strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static uint64_t word(int owner, size_t i) { return ((uint64_t)owner << 40) ^ (i * 2654435761u); }

static void ckpt_path(char *buf, size_t len, const char *dir, int r) {
  snprintf(buf, len, "%s/ckpt_%04d.dat", dir, r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: buddy CKPT_DIR MIB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *dir = argv[1];
  size_t words = (size_t)atol(argv[2]) * 1024 * 1024 / sizeof(uint64_t);
  uint64_t *state = malloc(words * sizeof *state);
  for (size_t i = 0; i < words; i++) state[i] = word(rank, i);

  /* mkdir -p: every rank may be the first */
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) die("mkdir", dir);
  char mine[4096], partner[4096];
  ckpt_path(mine, sizeof mine, dir, rank);
  ckpt_path(partner, sizeof partner, dir, (rank + 1) % size);

  double t0 = MPI_Wtime();
  int fd = open(mine, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("open", mine);
  size_t bytes = words * sizeof *state;
  for (size_t done = 0; done < bytes;) {
    ssize_t n = write(fd, (char *)state + done, bytes - done > (1 << 20) ? (1 << 20) : bytes - done);
    if (n < 0) die("write", mine);
    done += (size_t)n;
  }
  if (fsync(fd) != 0 || close(fd) != 0) die("fsync", mine);
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();

  /* Load the partner's checkpoint. */
  fd = open(partner, O_RDONLY);
  if (fd < 0) die("open partner checkpoint", partner);
  uint64_t *copy = malloc(bytes);
  for (size_t done = 0; done < bytes;) {
    ssize_t n = read(fd, (char *)copy + done, bytes - done);
    if (n <= 0) die("read", partner);
    done += (size_t)n;
  }
  close(fd);
  long bad = 0;
  int buddy = (rank + 1) % size;
  for (size_t i = 0; i < words; i++)
    if (copy[i] != word(buddy, i)) bad++;
  long all_bad;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  double t2 = MPI_Wtime();
  if (rank == 0)
    printf("buddy: %d x %zu MiB written in %.3f s, partners loaded in %.3f s, %ld bad words\n", size,
           bytes >> 20, t1 - t0, t2 - t1, all_bad);
  free(copy);
  free(state);
  MPI_Finalize();
  return all_bad == 0 ? 0 : 1;
}
