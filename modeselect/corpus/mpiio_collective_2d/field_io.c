/*
 * A 2-D domain-decomposed field written with collective MPI-IO: the global GxG array of
 * doubles is split over a process grid (MPI_Dims_create); every rank describes its block
 * with MPI_Type_create_subarray, sets it as its file view and writes it with
 * MPI_File_write_all, one frame per output step, all frames in one shared file ("write").
 * In the analysis run ("analyze") every rank reads, collectively, the block that rank
 * (r + P/2) % P wrote in the last frame and checks it.
 *
 * usage: field_io write|analyze FILE G FRAMES
 */
#include <libgen.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nprocs;

#define CHECK(call)                                                        \
  do {                                                                     \
    int rc_ = (call);                                                      \
    if (rc_ != MPI_SUCCESS) {                                              \
      char msg_[MPI_MAX_ERROR_STRING];                                     \
      int len_;                                                            \
      MPI_Error_string(rc_, msg_, &len_);                                  \
      fprintf(stderr, "field_io[%d]: %s: %s\n", rank, #call, msg_);       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                        \
    }                                                                      \
  } while (0)

static double value(int frame, long gi, long gj, long g) { return frame * 1.0e7 + gi * (double)g + gj; }

/* The block of grid position (pi, pj): start and extent per dimension. */
static void block_of(int who, const int dims[2], int g, int start[2], int count[2]) {
  int coords[2] = {who / dims[1], who % dims[1]};
  for (int d = 0; d < 2; d++) {
    int base = g / dims[d], extra = g % dims[d];
    start[d] = coords[d] * base + (coords[d] < extra ? coords[d] : extra);
    count[d] = base + (coords[d] < extra ? 1 : 0);
  }
}

/* Every rank must reach the file's directory before a collective open (a rank that cannot
 * leaves the others blocked inside MPI_File_open). */
static void require_dir(const char *file) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", file);
  int ok = access(dirname(copy), W_OK) == 0, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all) {
    if (!ok) fprintf(stderr, "field_io[%d]: the directory of %s is not there\n", rank, file);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* Output: one frame per step, every rank's block through its subarray view. */
static void write_frames(const char *file, int g, int frames, const int dims[2], MPI_Info info) {
  int gsizes[2] = {g, g}, start[2], count[2];
  block_of(rank, dims, g, start, count);
  MPI_Datatype block;
  MPI_Type_create_subarray(2, gsizes, count, start, MPI_ORDER_C, MPI_DOUBLE, &block);
  MPI_Type_commit(&block);
  long n = (long)count[0] * count[1];
  double *buf = malloc(n * sizeof(double));
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh));
  for (int f = 0; f < frames; f++) {
    for (int i = 0; i < count[0]; i++)
      for (int j = 0; j < count[1]; j++) buf[(long)i * count[1] + j] = value(f, start[0] + i, start[1] + j, g);
    MPI_Offset disp = (MPI_Offset)f * g * g * sizeof(double);
    CHECK(MPI_File_set_view(fh, disp, MPI_DOUBLE, block, "native", info));
    CHECK(MPI_File_write_all(fh, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE));
  }
  CHECK(MPI_File_close(&fh));
  MPI_Type_free(&block);
  free(buf);
}

/* Analysis: the block of rank (r + P/2) % P in the last frame; returns the wrong values. */
static long analyze(const char *file, int g, int frames, const int dims[2], MPI_Info info) {
  int gsizes[2] = {g, g}, start[2], count[2];
  block_of((rank + nprocs / 2) % nprocs, dims, g, start, count);
  MPI_Datatype block;
  MPI_Type_create_subarray(2, gsizes, count, start, MPI_ORDER_C, MPI_DOUBLE, &block);
  MPI_Type_commit(&block);
  long n = (long)count[0] * count[1], bad = 0;
  double *in = malloc(n * sizeof(double));
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_RDONLY, info, &fh));
  MPI_Offset last = (MPI_Offset)(frames - 1) * g * g * sizeof(double);
  CHECK(MPI_File_set_view(fh, last, MPI_DOUBLE, block, "native", info));
  CHECK(MPI_File_read_all(fh, in, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE));
  CHECK(MPI_File_close(&fh));
  for (int i = 0; i < count[0]; i++)
    for (int j = 0; j < count[1]; j++)
      if (in[(long)i * count[1] + j] != value(frames - 1, start[0] + i, start[1] + j, g)) bad++;
  MPI_Type_free(&block);
  free(in);
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 5 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "analyze") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: field_io write|analyze FILE G FRAMES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *phase = argv[1], *file = argv[2];
  int g = atoi(argv[3]), frames = atoi(argv[4]);
  int dims[2] = {0, 0};
  MPI_Dims_create(nprocs, 2, dims);
  require_dir(file);

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "4");
  MPI_Info_set(info, "cb_buffer_size", "8388608");
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_Info_set(info, "striping_unit", "1048576");

  double t0 = MPI_Wtime();
  long bad = 0, all_bad = 0;
  if (strcmp(phase, "write") == 0) {
    write_frames(file, g, frames, dims, info);
  } else {
    bad = analyze(file, g, frames, dims, info);
  }
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("field_io %s: %dx%d grid on %dx%d ranks, %d frames, %.3f s, %ld bad\n", phase, g, g, dims[0], dims[1], frames,
           MPI_Wtime() - t0, all_bad);
  MPI_Info_free(&info);
  MPI_Finalize();
  return all_bad ? 1 : 0;
}
