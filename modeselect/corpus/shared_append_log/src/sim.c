/*
 * A time-stepping code that reports progress in one shared event log: every step each rank
 * appends a fixed-width line (step, rank, residual) to events.log with O_APPEND, the ranks
 * taking turns so the lines stay in rank order. At the end rank 0 reads the log and checks
 * that every (step, rank) line is there exactly once and in order.
 *
 * usage: sim LOGFILE STEPS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog.h"

int main(int argc, char **argv) {
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: sim LOGFILE STEPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *log = argv[1];
  int steps = atoi(argv[2]);
  double residual = 1.0;
  char line[128];
  for (int step = 0; step < steps; step++) {
    residual *= 0.9 + 0.001 * rank;
    snprintf(line, sizeof line, "step %05d rank %04d residual %.9e\n", step, rank, residual);
    if (eventlog_ordered(log, line, rank, nranks) != 0) {
      if (rank == 0) fprintf(stderr, "sim: appending to %s failed at step %d\n", log, step);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);

  int ok = 1;
  if (rank == 0) {
    FILE *f = fopen(log, "r");
    if (!f) {
      perror(log);
      ok = 0;
    }
    int s, r, n = 0;
    while (ok && fgets(line, sizeof line, f)) {
      if (sscanf(line, "step %d rank %d", &s, &r) != 2 || s != n / nranks || r != n % nranks) {
        fprintf(stderr, "sim: line %d of %s is unexpected: %s", n + 1, log, line);
        ok = 0;
      }
      n++;
    }
    if (f) fclose(f);
    if (ok && n != steps * nranks) {
      fprintf(stderr, "sim: %s has %d lines, expected %d\n", log, n, steps * nranks);
      ok = 0;
    }
    if (ok) printf("sim: %d lines from %d ranks, all in order\n", n, nranks);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}
