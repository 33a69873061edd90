/*
 * MADbench2-like out-of-core matrix I/O with collective MPI-IO on shared files.
 *
 * NBIN matrices are distributed by row blocks, block-cyclically: rank r owns row blocks
 * r, r+P, r+2P, ... of every matrix, so each rank's part of a matrix is a strided file view
 * and every write_all/read_all interleaves all ranks' pieces.
 *   S phase: build and write the NBIN matrices (collective writes) into FILE
 *   W phase: read each matrix back (collective reads), scale it and write it to FILE.w
 *   C phase: read FILE.w back and check every value
 *
 * usage: madbench_coll FILE NBIN LOCAL_KIB
 */
#include <libgen.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROWBLOCK 1024 /* doubles per row block (8 KiB) */

static int rank, nranks;

static void check(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(rc, msg, &len);
  fprintf(stderr, "madbench_coll[%d]: %s: %s\n", rank, what, msg);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A collective open on a file some rank cannot reach leaves the others waiting in it: every
 * rank first checks that it sees the output directory. */
static void require_dir(const char *file) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", file);
  const char *dir = dirname(copy);
  int seen = access(dir, W_OK) == 0, all = 0;
  MPI_Allreduce(&seen, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!seen) fprintf(stderr, "madbench_coll[%d]: no directory %s\n", rank, dir);
  if (!all) MPI_Abort(MPI_COMM_WORLD, 2);
}

static double element(int matrix, long global_index) { return matrix * 1.0e6 + (double)global_index * 0.5; }

/* The global index of local element i: block b = i / ROWBLOCK is global row block b*P + rank. */
static long global_of(long i) { return ((i / ROWBLOCK) * nranks + rank) * (long)ROWBLOCK + i % ROWBLOCK; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: madbench_coll FILE NBIN LOCAL_KIB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *file = argv[1];
  int nbin = atoi(argv[2]);
  long local = atol(argv[3]) * 1024 / sizeof(double); /* doubles per rank and matrix */
  int blocks = (int)(local / ROWBLOCK);
  MPI_Offset matrix_bytes = (MPI_Offset)local * nranks * sizeof(double);
  char wfile[4096];
  snprintf(wfile, sizeof wfile, "%s.w", file);

  require_dir(file);
  MPI_Datatype rows;
  MPI_Type_vector(blocks, ROWBLOCK, ROWBLOCK * nranks, MPI_DOUBLE, &rows);
  MPI_Type_commit(&rows);

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_Info_set(info, "cb_buffer_size", "4194304");
  MPI_Info_set(info, "cb_nodes", "4");

  double *a = malloc(local * sizeof(double));
  MPI_File fh, wh;
  double t0 = MPI_Wtime();

  /* S: build and write every matrix. */
  check(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh), "open S");
  for (int k = 0; k < nbin; k++) {
    for (long i = 0; i < local; i++) a[i] = element(k, global_of(i));
    MPI_Offset disp = k * matrix_bytes + (MPI_Offset)rank * ROWBLOCK * sizeof(double);
    check(MPI_File_set_view(fh, disp, MPI_DOUBLE, rows, "native", info), "set_view S");
    check(MPI_File_write_all(fh, a, (int)local, MPI_DOUBLE, MPI_STATUS_IGNORE), "write_all S");
  }
  /* Another rank (an aggregator on another node) may read what this one wrote: sync,
   * barrier, sync, as MPI-IO's consistency rules ask in non-atomic mode. */
  check(MPI_File_sync(fh), "sync S");
  MPI_Barrier(MPI_COMM_WORLD);
  check(MPI_File_sync(fh), "sync S");
  double t1 = MPI_Wtime();

  /* W: read each matrix back, check it, scale it and write it to the second file. */
  check(MPI_File_open(MPI_COMM_WORLD, wfile, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &wh), "open W");
  long bad = 0;
  for (int k = 0; k < nbin; k++) {
    MPI_Offset disp = k * matrix_bytes + (MPI_Offset)rank * ROWBLOCK * sizeof(double);
    check(MPI_File_set_view(fh, disp, MPI_DOUBLE, rows, "native", info), "set_view W");
    check(MPI_File_read_all(fh, a, (int)local, MPI_DOUBLE, MPI_STATUS_IGNORE), "read_all W");
    for (long i = 0; i < local; i++) {
      if (a[i] != element(k, global_of(i))) bad++;
      a[i] *= 2.0;
    }
    check(MPI_File_set_view(wh, disp, MPI_DOUBLE, rows, "native", info), "set_view dW");
    check(MPI_File_write_all(wh, a, (int)local, MPI_DOUBLE, MPI_STATUS_IGNORE), "write_all dW");
  }
  MPI_Offset size_s = 0;
  check(MPI_File_get_size(fh, &size_s), "get_size");
  check(MPI_File_close(&fh), "close S");
  check(MPI_File_sync(wh), "sync dW");
  MPI_Barrier(MPI_COMM_WORLD);
  check(MPI_File_sync(wh), "sync dW");
  double t2 = MPI_Wtime();

  /* C: read the scaled matrices and check them. */
  for (int k = 0; k < nbin; k++) {
    MPI_Offset disp = k * matrix_bytes + (MPI_Offset)rank * ROWBLOCK * sizeof(double);
    check(MPI_File_set_view(wh, disp, MPI_DOUBLE, rows, "native", info), "set_view C");
    check(MPI_File_read_all(wh, a, (int)local, MPI_DOUBLE, MPI_STATUS_IGNORE), "read_all C");
    for (long i = 0; i < local; i++)
      if (a[i] != 2.0 * element(k, global_of(i))) bad++;
  }
  check(MPI_File_close(&wh), "close W");
  double t3 = MPI_Wtime();

  long all_bad = 0;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all_bad) fprintf(stderr, "madbench_coll: %ld values differ\n", all_bad);
    if (size_s != nbin * matrix_bytes)
      fprintf(stderr, "madbench_coll: %s has %lld bytes, expected %lld\n", file, (long long)size_s,
              (long long)(nbin * matrix_bytes));
    printf("madbench_coll: %d matrices of %.1f MiB; S %.3f s, W %.3f s, C %.3f s\n", nbin,
           matrix_bytes / 1048576.0, t1 - t0, t2 - t1, t3 - t2);
  }
  int ok = all_bad == 0 && size_s == nbin * matrix_bytes;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(a);
  MPI_Info_free(&info);
  MPI_Type_free(&rows);
  MPI_Finalize();
  return ok ? 0 : 1;
}
