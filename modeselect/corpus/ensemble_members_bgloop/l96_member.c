/*
 * One member of a Lorenz-96 ensemble (K = 4096 variables, F = 8, RK4, dt = 0.005).
 *
 * The member makes its run directory, perturbs the initial state by its member number,
 * and integrates STEPS steps. Every 25 steps it writes history/h_<step>.bin (the state), at
 * the end restart.bin (written as restart.bin.tmp and renamed) and a one-line summary.
 * Before it exits it reads every history file and the restart file back and compares them
 * with what it held at the time (a copy of each history state is kept in memory).
 *
 * usage: l96_member RUN_DIR MEMBER STEPS
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define K 4096
#define FORCING 8.0
#define DT 0.005
#define HIST_EVERY 25

static int member;

static void die(const char *what, const char *path) {
  fprintf(stderr, "l96[%d]: %s %s: %s\n", member, what, path, strerror(errno));
  exit(1);
}

static void mkdirs(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) die("mkdir", buf);
    *p = '/';
  }
  if (mkdir(buf, 0755) != 0 && errno != EEXIST) die("mkdir", buf);
}

static void tendency(const double *x, double *dx) {
  for (int i = 0; i < K; i++) {
    int ip1 = (i + 1) % K, im1 = (i + K - 1) % K, im2 = (i + K - 2) % K;
    dx[i] = (x[ip1] - x[im2]) * x[im1] - x[i] + FORCING;
  }
}

static void rk4(double *x) {
  static double k1[K], k2[K], k3[K], k4[K], t[K];
  tendency(x, k1);
  for (int i = 0; i < K; i++) t[i] = x[i] + 0.5 * DT * k1[i];
  tendency(t, k2);
  for (int i = 0; i < K; i++) t[i] = x[i] + 0.5 * DT * k2[i];
  tendency(t, k3);
  for (int i = 0; i < K; i++) t[i] = x[i] + DT * k3[i];
  tendency(t, k4);
  for (int i = 0; i < K; i++) x[i] += DT / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

static void save(const char *path, const double *x) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("create", path);
  if (write(fd, x, K * sizeof *x) != (ssize_t)(K * sizeof *x)) die("write", path);
  if (close(fd) != 0) die("close", path);
}

static int same_as(const char *path, const double *x) {
  static double y[K];
  int fd = open(path, O_RDONLY);
  if (fd < 0) die("open", path);
  ssize_t n = read(fd, y, sizeof y);
  char extra;
  ssize_t more = read(fd, &extra, 1);
  close(fd);
  return n == (ssize_t)sizeof y && more == 0 && memcmp(x, y, sizeof y) == 0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: l96_member RUN_DIR MEMBER STEPS\n");
    return 2;
  }
  const char *dir = argv[1];
  member = atoi(argv[2]);
  int steps = atoi(argv[3]);
  char path[4200], tmp[4200];
  snprintf(path, sizeof path, "%s/history", dir);
  mkdirs(path);

  double *x = malloc(K * sizeof *x);
  int nhist = steps / HIST_EVERY;
  double *kept = malloc((size_t)nhist * K * sizeof *kept);
  for (int i = 0; i < K; i++) x[i] = FORCING;
  x[member % K] += 0.01 * (member + 1); /* the member's perturbation */

  for (int s = 1; s <= steps; s++) {
    rk4(x);
    if (s % HIST_EVERY == 0) {
      snprintf(path, sizeof path, "%s/history/h_%05d.bin", dir, s);
      save(path, x);
      memcpy(kept + (size_t)(s / HIST_EVERY - 1) * K, x, K * sizeof *x);
    }
  }
  snprintf(tmp, sizeof tmp, "%s/restart.bin.tmp", dir);
  snprintf(path, sizeof path, "%s/restart.bin", dir);
  save(tmp, x);
  if (rename(tmp, path) != 0) die("rename", tmp);

  double mean = 0, var = 0;
  for (int i = 0; i < K; i++) mean += x[i];
  mean /= K;
  for (int i = 0; i < K; i++) var += (x[i] - mean) * (x[i] - mean);
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  FILE *f = fopen(path, "w");
  if (f == NULL) die("create", path);
  fprintf(f, "member %d steps %d mean %.6f std %.6f\n", member, steps, mean, sqrt(var / K));
  if (fclose(f) != 0) die("close", path);

  /* Verify what the member wrote. */
  int bad = 0;
  for (int h = 1; h <= nhist; h++) {
    snprintf(path, sizeof path, "%s/history/h_%05d.bin", dir, h * HIST_EVERY);
    if (!same_as(path, kept + (size_t)(h - 1) * K)) {
      fprintf(stderr, "l96[%d]: %s differs from the state written\n", member, path);
      bad++;
    }
  }
  snprintf(path, sizeof path, "%s/restart.bin", dir);
  if (!same_as(path, x)) {
    fprintf(stderr, "l96[%d]: %s differs from the final state\n", member, path);
    bad++;
  }
  if (access(tmp, F_OK) == 0) {
    fprintf(stderr, "l96[%d]: %s is still there after the rename\n", member, tmp);
    bad++;
  }
  printf("member %d: %d steps, %d history files, mean %.4f std %.4f, %s\n", member, steps, nhist, mean,
         sqrt(var / K), bad ? "BAD OUTPUT" : "output checked");
  free(kept);
  free(x);
  return bad ? 1 : 0;
}
