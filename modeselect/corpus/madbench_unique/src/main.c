/*
 * MADbench2-like kernel, one matrix file per process: the S phase writes NBIN matrices,
 * the W phase reads each one back, multiplies it by a constant and writes the result
 * (the "dW" matrices), the C phase reads the dW matrices and checks them. All I/O goes
 * through io_unique.c (pwrite/pread on the process's own file). Unlike MADbench2's
 * IOMODE=SHARED there is no MPI_File_open of a common file and no MPI_File_write_at_all:
 * no process ever touches another one's matrices.
 *
 * usage: madbench_unique DIR NBIN MATRIX_KIB
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_unique.h"

static int rank;

static void check(int rc, const char *what, const matrix_store *s) {
  if (rc == 0) return;
  fprintf(stderr, "madbench_unique[%d]: %s %s: %s\n", rank, what, s->path, strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void compute(double *m, size_t n, int k) {
  for (size_t i = 0; i < n; i++) m[i] = (double)rank * 1e9 + k * 1e6 + (double)i;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: madbench_unique DIR NBIN MATRIX_KIB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int nbin = atoi(argv[2]);
  size_t bytes = (size_t)atol(argv[3]) * 1024, n = bytes / sizeof(double);
  double *m = malloc(bytes);
  matrix_store store;
  check(store_open(&store, argv[1], rank, bytes), "open", &store);

  double t0 = MPI_Wtime();
  for (int k = 0; k < nbin; k++) { /* S */
    compute(m, n, k);
    check(store_write(&store, 0, k, nbin, m), "write S", &store);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  long bad = 0;
  for (int k = 0; k < nbin; k++) { /* W */
    check(store_read(&store, 0, k, nbin, m), "read W", &store);
    for (size_t i = 0; i < n; i++) {
      if (m[i] != (double)rank * 1e9 + k * 1e6 + (double)i) bad++;
      m[i] *= 0.5;
    }
    check(store_write(&store, 1, k, nbin, m), "write dW", &store);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t2 = MPI_Wtime();
  for (int k = 0; k < nbin; k++) { /* C */
    check(store_read(&store, 1, k, nbin, m), "read C", &store);
    for (size_t i = 0; i < n; i++)
      if (m[i] != 0.5 * ((double)rank * 1e9 + k * 1e6 + (double)i)) bad++;
  }
  check(store_close(&store, 1), "close", &store);
  double t3 = MPI_Wtime();

  long all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("madbench_unique: S %.3f s, W %.3f s, C %.3f s, %ld bad values\n", t1 - t0, t2 - t1, t3 - t2, all_bad);
  }
  int ok = all_bad == 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(m);
  MPI_Finalize();
  return ok ? 0 : 1;
}
