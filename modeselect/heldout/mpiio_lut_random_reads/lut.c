/*
 * Opacity table lookups in a radiation code: rank 0 computes the table (RECORDS records of
 * 4 KiB) and writes it with MPI_File_write_at into one file that all ranks opened; then every
 * rank reads LOOKUPS random records with MPI_File_read_at (independent I/O, data sieving off)
 * and checks each one; rank 0 deletes the file.
 *
 * usage: lut FILE RECORDS LOOKUPS
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC 4096
#define WORDS (REC / 8)

static void fill(uint64_t *r, uint64_t id) {
  for (int i = 0; i < WORDS; ++i) r[i] = id * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
}

int main(int argc, char **argv) {
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: lut FILE RECORDS LOOKUPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long records = atol(argv[2]), lookups = atol(argv[3]);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_ds_read", "disable");
  MPI_Info_set(info, "romio_ds_write", "disable");
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) != MPI_SUCCESS) {
    fprintf(stderr, "lut[%d]: cannot open %s\n", rank, argv[1]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double t0 = MPI_Wtime();
  const long chunk = 256; /* records per write */
  uint64_t *buf = malloc(chunk * REC), want[WORDS];
  if (rank == 0) {
    for (long r0 = 0; r0 < records; r0 += chunk) {
      long n = records - r0 < chunk ? records - r0 : chunk;
      for (long k = 0; k < n; ++k) fill(buf + k * WORDS, (uint64_t)(r0 + k));
      MPI_File_write_at(fh, (MPI_Offset)r0 * REC, buf, (int)(n * REC), MPI_BYTE, MPI_STATUS_IGNORE);
    }
  }
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  double t1 = MPI_Wtime();
  long bad = 0;
  srand(12345 + rank);
  for (long k = 0; k < lookups; ++k) {
    long id = ((long)rand() * 31 + rand()) % records;
    MPI_File_read_at(fh, (MPI_Offset)id * REC, buf, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    fill(want, (uint64_t)id);
    bad += memcmp(buf, want, REC) != 0;
  }
  MPI_File_close(&fh);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("lut: %ld records written in %.2f s; %d ranks x %ld lookups in %.2f s; %ld bad\n", records, t1 - t0,
           nranks, lookups, MPI_Wtime() - t1, bad);
    MPI_File_delete(argv[1], MPI_INFO_NULL);
  }
  MPI_Info_free(&info);
  free(buf);
  MPI_Finalize();
  return bad ? 1 : 0;
}
