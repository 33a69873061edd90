/*
 * Simulation step of a simulate-then-analyse job: every rank computes its part of a field
 * and writes it to OUTDIR/field_<rank>.bin (a small header, then the doubles), with its own
 * partial sums in OUTDIR/stats_<rank>.txt. The analysis (analyze.py) runs afterwards.
 *
 * usage: sim OUTDIR NVALUES
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: sim OUTDIR NVALUES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *outdir = argv[1];
  long n = atol(argv[2]);
  if (mkdir(outdir, 0755) != 0 && errno != EEXIST) {
    perror(outdir);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double *u = malloc(n * sizeof(double)), sum = 0, sumsq = 0;
  for (long i = 0; i < n; i++) {
    double x = (double)(rank * n + i) / (double)(size * n);
    u[i] = sin(6.283185307179586 * x) + 0.25 * rank;
    sum += u[i];
    sumsq += u[i] * u[i];
  }

  char path[4096];
  snprintf(path, sizeof path, "%s/field_%05d.bin", outdir, rank);
  FILE *f = fopen(path, "wb");
  int32_t header[4] = {0x46494c44, rank, size, (int32_t)n};
  int ok = f && fwrite(header, sizeof header, 1, f) == 1 && fwrite(u, sizeof(double), n, f) == (size_t)n;
  if (f && fclose(f) != 0) ok = 0;
  snprintf(path, sizeof path, "%s/stats_%05d.txt", outdir, rank);
  f = fopen(path, "w");
  ok = ok && f && fprintf(f, "rank %d n %ld sum %.17g sumsq %.17g\n", rank, n, sum, sumsq) > 0;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok) {
    fprintf(stderr, "sim[%d]: cannot write %s: %s\n", rank, path, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  free(u);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("sim: %d ranks wrote %ld values each to %s\n", size, n, outdir);
  MPI_Finalize();
  return 0;
}
