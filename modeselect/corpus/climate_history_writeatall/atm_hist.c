/*
 * History output of a toy atmosphere model.
 *
 * Global grid NLAT x NLON, split into latitude bands (rank r owns rows [r*NLAT/P, ...)).
 * The history file has a 4 KiB header (magic, grid, variable names, hours, written by
 * rank 0) and then one record per output hour; a record holds the full T, U and V fields
 * (float32, latitude-major) one after the other. Every hour each rank advances its band and
 * writes its rows of each field at
 *     HEADER + hour * RECORD + var * FIELD + first_row * NLON * 4
 * with MPI_File_write_at_all, so each write is one strided piece of a shared record.
 *
 * usage: atm_hist FILE HOURS
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NLAT 192
#define NLON 288
#define NVARS 3
#define HEADER_BYTES 4096

static int rank, nprocs;

#define CHECK(call)                                                   \
  do {                                                                \
    int rc_ = (call);                                                 \
    if (rc_ != MPI_SUCCESS) {                                         \
      char msg_[MPI_MAX_ERROR_STRING];                                \
      int len_;                                                       \
      MPI_Error_string(rc_, msg_, &len_);                             \
      fprintf(stderr, "atm_hist[%d]: %s: %s\n", rank, #call, msg_);  \
      MPI_Abort(MPI_COMM_WORLD, 1);                                   \
    }                                                                 \
  } while (0)

/* The analytic fields the post-processing checks against (float32 after rounding). */
static float field(int var, int hour, int lat, int lon) {
  double phi = (lat + 0.5) * M_PI / NLAT - M_PI / 2, lam = lon * 2 * M_PI / NLON;
  switch (var) {
    case 0: return (float)(288.0 - 40.0 * sin(phi) * sin(phi) + 2.0 * cos(lam - hour * M_PI / 12));
    case 1: return (float)(20.0 * cos(phi) + 0.1 * hour);
    default: return (float)(5.0 * sin(2 * lam) * cos(phi) - 0.05 * hour);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: atm_hist FILE HOURS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *file = argv[1];
  int hours = atoi(argv[2]);

  /* Every rank must see the history directory before the collective open. */
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", file);
  int ok = access(dirname(copy), W_OK) == 0, err = errno, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all_ok) {
    if (!ok) fprintf(stderr, "atm_hist[%d]: no history directory for %s: %s\n", rank, file, strerror(err));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  int lat0 = rank * NLAT / nprocs, lat1 = (rank + 1) * NLAT / nprocs, rows = lat1 - lat0;
  const MPI_Offset field_bytes = (MPI_Offset)NLAT * NLON * 4, record = NVARS * field_bytes;
  float *band = malloc((size_t)rows * NLON * sizeof(float));

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "4194304");
  MPI_Info_set(info, "romio_cb_write", "automatic");
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh));
  CHECK(MPI_File_set_size(fh, 0));

  /* Header: rank 0's part of a collective write (the others write nothing). */
  char header[HEADER_BYTES];
  memset(header, 0, sizeof header);
  int32_t dims[4] = {NLAT, NLON, NVARS, hours};
  memcpy(header, "ATMHIST1", 8);
  memcpy(header + 8, dims, sizeof dims);
  snprintf(header + 64, 64, "T U V");
  snprintf(header + 128, 128, "toy atmosphere, hourly means, %d ranks", nprocs);
  CHECK(MPI_File_write_at_all(fh, 0, header, rank == 0 ? HEADER_BYTES : 0, MPI_BYTE, MPI_STATUS_IGNORE));

  double t0 = MPI_Wtime();
  for (int h = 0; h < hours; h++) {
    for (int v = 0; v < NVARS; v++) {
      for (int i = 0; i < rows; i++)
        for (int j = 0; j < NLON; j++) band[(size_t)i * NLON + j] = field(v, h, lat0 + i, j);
      MPI_Offset at = HEADER_BYTES + h * record + v * field_bytes + (MPI_Offset)lat0 * NLON * 4;
      CHECK(MPI_File_write_at_all(fh, at, band, rows * NLON, MPI_FLOAT, MPI_STATUS_IGNORE));
    }
  }
  CHECK(MPI_File_sync(fh));
  CHECK(MPI_File_close(&fh));
  double t1 = MPI_Wtime();
  if (rank == 0)
    printf("atm_hist: %d hours of %d fields %dx%d on %d ranks written in %.3f s (%.1f MiB)\n", hours, NVARS, NLAT,
           NLON, nprocs, t1 - t0, (HEADER_BYTES + hours * record) / 1048576.0);
  MPI_Info_free(&info);
  free(band);
  MPI_Finalize();
  return 0;
}
