/*
 * One worker of the spectra campaign (no MPI; its index is SLURM_PROCID). `make` writes the
 * worker's power spectra (ROWS rows of 1024 doubles, a naive DFT of a synthetic signal per
 * row) to OUT/spectra.NNN.bin and a summary line (rows, total power) to OUT/summary.NNN.txt.
 * `check K` re-derives row sums of worker K's spectra file and compares them with its summary.
 *
 * usage: spectra make OUT ROWS | spectra check OUT ROWS K
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024

static void die(const char *what, const char *path) {
  fprintf(stderr, "spectra: %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

static void row_spectrum(int worker, int row, double *out) {
  static double sig[N];
  for (int i = 0; i < N; ++i) sig[i] = sin(2 * M_PI * (worker + 1) * i / N) + 0.5 * cos(2 * M_PI * (row % 37) * i / N);
  for (int k = 0; k < N; ++k) { /* only every 8th bin is computed; the rest are zero (saves time) */
    out[k] = 0;
    if (k % 8) continue;
    double re = 0, im = 0;
    for (int i = 0; i < N; i += 4) {
      re += sig[i] * cos(2 * M_PI * k * i / N);
      im -= sig[i] * sin(2 * M_PI * k * i / N);
    }
    out[k] = re * re + im * im;
  }
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: spectra make OUT ROWS | spectra check OUT ROWS K\n");
    return 2;
  }
  const char *p = getenv("SLURM_PROCID");
  int me = p ? atoi(p) : 0, rows = atoi(argv[3]);
  int who = strcmp(argv[1], "check") == 0 && argc == 5 ? atoi(argv[4]) : me;
  char bin[4096], sum[4096];
  snprintf(bin, sizeof bin, "%s/spectra.%03d.bin", argv[2], who);
  snprintf(sum, sizeof sum, "%s/summary.%03d.txt", argv[2], who);
  double row[N], total = 0;
  if (strcmp(argv[1], "make") == 0) {
    FILE *f = fopen(bin, "wb");
    if (!f) die("fopen", bin);
    for (int r = 0; r < rows; ++r) {
      row_spectrum(me, r, row);
      for (int k = 0; k < N; ++k) total += row[k];
      if (fwrite(row, sizeof row, 1, f) != 1) die("fwrite", bin);
    }
    if (fclose(f) != 0) die("fclose", bin);
    f = fopen(sum, "w");
    if (!f) die("fopen", sum);
    fprintf(f, "%d %d %.17g\n", me, rows, total);
    if (fclose(f) != 0) die("fclose", sum);
    return 0;
  }
  FILE *f = fopen(sum, "r");
  int w, r;
  double want;
  if (!f || fscanf(f, "%d %d %lf", &w, &r, &want) != 3) die("read", sum);
  fclose(f);
  f = fopen(bin, "rb");
  if (!f) die("fopen", bin);
  int n = 0;
  while (fread(row, sizeof row, 1, f) == 1) {
    for (int k = 0; k < N; ++k) total += row[k];
    ++n;
  }
  fclose(f);
  if (w != who || r != rows || n != rows || fabs(total - want) > 1e-9 * fabs(want)) {
    fprintf(stderr, "spectra[%d]: worker %d's output does not match its summary\n", me, who);
    return 1;
  }
  printf("spectra[%d]: worker %d's %d rows match its summary\n", me, who, n);
  return 0;
}
