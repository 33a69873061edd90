/*
 * 1-D heat equation, one slab per rank (halos by MPI), with application checkpoints in a
 * directory per rank: DIR/rank_NNNN/state.SSSSSS (header + slab + checksum), the two newest
 * kept. `run` integrates STEPS steps from a start state; `restart` (a later step of the job)
 * finds the newest checkpoint of the rank by listing its directory, checks it, integrates
 * STEPS more steps, writes a final checkpoint, reads it back and removes the directory.
 *
 * usage: heat_ckpt run|restart DIR STEPS EVERY
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NX (1 << 18) /* points per rank: 2 MiB of state */

typedef struct {
  int32_t rank, nranks;
  int64_t step;
  uint64_t checksum;
} header_t;

static int rank, nranks;
static char dir[4096];

static void die(const char *what, const char *path) {
  fprintf(stderr, "heat_ckpt[%d]: %s %s: %s\n", rank, what, path, strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static uint64_t checksum(const double *u) {
  uint64_t h = 1469598103934665603ULL;
  const unsigned char *b = (const unsigned char *)u;
  for (size_t i = 0; i < NX * sizeof(double); i += 8) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

static void step_once(double *u, double *tmp) {
  double left = 0, right = 0;
  int lo = rank > 0 ? rank - 1 : MPI_PROC_NULL, hi = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(&u[0], 1, MPI_DOUBLE, lo, 0, &right, 1, MPI_DOUBLE, hi, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&u[NX - 1], 1, MPI_DOUBLE, hi, 1, &left, 1, MPI_DOUBLE, lo, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < NX; ++i) {
    double l = i > 0 ? u[i - 1] : left, r = i < NX - 1 ? u[i + 1] : right;
    tmp[i] = u[i] + 0.2 * (l - 2 * u[i] + r);
  }
  memcpy(u, tmp, NX * sizeof(double));
}

static void write_ckpt(const double *u, long step) {
  char path[4200];
  header_t h = {rank, nranks, step, checksum(u)};
  snprintf(path, sizeof path, "%s/state.%06ld", dir, step);
  FILE *f = fopen(path, "wb");
  if (!f) die("fopen", path);
  if (fwrite(&h, sizeof h, 1, f) != 1 || fwrite(u, sizeof(double), NX, f) != NX) die("fwrite", path);
  if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0) die("close", path);
}

static long read_ckpt(double *u, long step) {
  char path[4200];
  header_t h;
  snprintf(path, sizeof path, "%s/state.%06ld", dir, step);
  FILE *f = fopen(path, "rb");
  if (!f) die("fopen", path);
  if (fread(&h, sizeof h, 1, f) != 1 || fread(u, sizeof(double), NX, f) != NX) die("fread", path);
  fclose(f);
  if (h.rank != rank || h.nranks != nranks || h.step != step || h.checksum != checksum(u)) {
    fprintf(stderr, "heat_ckpt[%d]: %s is not a valid checkpoint of this rank\n", rank, path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return step;
}

/* the checkpoints of this rank, newest first (at most two) */
static int list_ckpts(long *steps) {
  DIR *d = opendir(dir);
  if (!d) die("opendir", dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    long s;
    if (sscanf(e->d_name, "state.%ld", &s) != 1) continue;
    if (n < 2 || s > steps[1]) {
      if (n < 2) ++n;
      steps[n - 1] = s;
      if (n == 2 && steps[1] > steps[0]) {
        long t = steps[0];
        steps[0] = steps[1];
        steps[1] = t;
      }
    }
  }
  closedir(d);
  return n;
}

static void prune(long keep_from) {
  char path[4400];
  DIR *d = opendir(dir);
  if (!d) die("opendir", dir);
  struct dirent *e;
  while ((e = readdir(d))) {
    long s;
    if (sscanf(e->d_name, "state.%ld", &s) == 1 && s < keep_from) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      if (unlink(path) != 0) die("unlink", path);
    }
  }
  closedir(d);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 5) {
    if (rank == 0) fprintf(stderr, "usage: heat_ckpt run|restart DIR STEPS EVERY\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int restart = strcmp(argv[1], "restart") == 0;
  long steps = atol(argv[3]), every = atol(argv[4]);
  const char *node = getenv("SLURMD_NODENAME");
  snprintf(dir, sizeof dir, "%s/rank_%04d", argv[2], rank);
  double *u = malloc(NX * sizeof(double)), *tmp = malloc(NX * sizeof(double));
  long start = 0;
  char cmd[4200];
  if (!restart) {
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0) die("mkdir -p", dir);
    for (int i = 0; i < NX; ++i) u[i] = sin(M_PI * (rank * NX + i) / (double)(nranks * NX)) + (i % 97 == 0);
  } else {
    long found[2];
    int n = list_ckpts(found);
    if (n == 0) die("no checkpoint in", dir);
    start = read_ckpt(u, found[0]);
  }
  for (long s = start + 1; s <= start + steps; ++s) {
    step_once(u, tmp);
    if (s % every == 0) {
      write_ckpt(u, s);
      prune(s - every);
    }
  }
  long end = start + steps;
  if (restart) { /* the final state, read back and checked, then the run's files go */
    double *back = malloc(NX * sizeof(double));
    if (end % every != 0) write_ckpt(u, end);
    read_ckpt(back, end);
    if (memcmp(back, u, NX * sizeof(double)) != 0) die("final checkpoint differs", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) die("rm -rf", dir);
    free(back);
  }
  double local = 0, total = 0;
  for (int i = 0; i < NX; ++i) local += u[i];
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  printf("heat_ckpt[%d] on %s: %s steps %ld..%ld\n", rank, node ? node : "?", restart ? "restart" : "run", start + 1,
         end);
  if (rank == 0) printf("heat_ckpt: heat content %.6f after step %ld\n", total, end);
  free(u);
  free(tmp);
  MPI_Finalize();
  return 0;
}
