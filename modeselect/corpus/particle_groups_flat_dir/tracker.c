/*
 * Lagrangian particle tracker output: every output step each rank writes one small file per
 * particle group it owns (64 particles x 4 doubles) into one flat directory shared by all
 * ranks, named by step and global group id. After each step every rank lists the directory
 * to find the step's groups (all must be there), stats and reads a few groups owned by a
 * rank on another node and checks them, and removes its own groups of the previous step.
 * Rank 0 writes a step index. At the end the ranks remove what is left and rank 0 checks
 * that the directory is empty.
 *
 * usage: tracker DIR STEPS GROUPS_PER_RANK
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PARTICLES 64
#define VALUES (PARTICLES * 4)

static int rank, nranks;
static const char *dir;

static void die(const char *what, const char *path) {
  fprintf(stderr, "tracker[%d]: %s %s: %s\n", rank, what, path, strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void group_path(char *buf, size_t n, int step, int group) {
  snprintf(buf, n, "%s/trk_s%03d_g%05d.dat", dir, step, group);
}

static void fill(double *v, int step, int group) {
  for (int p = 0; p < PARTICLES; ++p) {
    double t = step * 0.1 + p * 0.01;
    v[4 * p + 0] = group + t;
    v[4 * p + 1] = group * 0.5 - t;
    v[4 * p + 2] = p;
    v[4 * p + 3] = step;
  }
}

static void write_group(int step, int group) {
  char path[4096];
  double v[VALUES];
  fill(v, step, group);
  group_path(path, sizeof path, step, group);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("create", path);
  if (write(fd, v, sizeof v) != (ssize_t)sizeof v) die("write", path);
  if (close(fd) != 0) die("close", path);
}

static int check_group(int step, int group) {
  char path[4096];
  double v[VALUES], want[VALUES];
  struct stat st;
  group_path(path, sizeof path, step, group);
  if (stat(path, &st) != 0) die("stat", path);
  if (st.st_size != (off_t)sizeof v) return 1;
  int fd = open(path, O_RDONLY);
  if (fd < 0) die("open", path);
  ssize_t got = read(fd, v, sizeof v);
  close(fd);
  fill(want, step, group);
  return got != (ssize_t)sizeof v || memcmp(v, want, sizeof v) != 0;
}

/* entries of `step` in the directory (and all entries, for the final check) */
static int count_step(int step, int *all) {
  char prefix[32];
  snprintf(prefix, sizeof prefix, "trk_s%03d_", step);
  DIR *d = opendir(dir);
  if (!d) die("opendir", dir);
  int n = 0;
  *all = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    ++*all;
    n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
  }
  closedir(d);
  return n;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: tracker DIR STEPS GROUPS_PER_RANK\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  dir = argv[1];
  int steps = atoi(argv[2]), groups = atoi(argv[3]), all;
  int partner = (rank + nranks / 2) % nranks; /* half the job away: another node */
  long bad = 0, checked = 0;
  char path[4096];
  if (rank == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST) die("mkdir", dir);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; ++s) {
    for (int g = 0; g < groups; ++g) write_group(s, rank * groups + g);
    MPI_Barrier(MPI_COMM_WORLD);
    int n = count_step(s, &all);
    if (n != nranks * groups) {
      fprintf(stderr, "tracker[%d]: step %d lists %d groups, want %d\n", rank, s, n, nranks * groups);
      ++bad;
    }
    for (int g = 0; g < groups; g += groups / 6 > 0 ? groups / 6 : 1, ++checked)
      bad += check_group(s, partner * groups + g);
    if (rank == 0) {
      snprintf(path, sizeof path, "%s/index_s%03d.txt", dir, s);
      FILE *f = fopen(path, "w");
      if (!f) die("fopen", path);
      fprintf(f, "step %d groups %d entries %d\n", s, n, all);
      fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (s > 0) {
      for (int g = 0; g < groups; ++g) {
        group_path(path, sizeof path, s - 1, rank * groups + g);
        if (unlink(path) != 0) die("unlink", path);
      }
    }
  }
  for (int g = 0; g < groups; ++g) {
    group_path(path, sizeof path, steps - 1, rank * groups + g);
    if (unlink(path) != 0) die("unlink", path);
  }
  if (rank == 0) {
    for (int s = 0; s < steps; ++s) {
      snprintf(path, sizeof path, "%s/index_s%03d.txt", dir, s);
      if (unlink(path) != 0) die("unlink", path);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &checked, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    count_step(0, &all);
    if (all != 0) {
      fprintf(stderr, "tracker: %d entries left in %s\n", all, dir);
      ++bad;
    } else if (rmdir(dir) != 0) {
      die("rmdir", dir);
    }
    printf("tracker: %d steps x %d groups, %ld groups of other ranks checked, %ld bad, %.2f s\n", steps,
           nranks * groups, checked, bad, MPI_Wtime() - t0);
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}
