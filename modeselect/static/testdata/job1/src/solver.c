#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NSTEPS 10
#define RECORD 256

void write_record(FILE *fp, const char *rec, size_t n);

int main(int argc, char **argv) {
  int rank, size;
  char path[512], rec[RECORD];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) mkdir("ckpt", 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  snprintf(path, sizeof(path), "ckpt/rank_%05d.dat", rank);
  FILE *fp = fopen(path, "w");  /* fopen("not_code", "a") */
  for (int step = 0; step < NSTEPS; step++) {
    write_record(fp, rec, sizeof rec);
  }
  fclose(fp);
  MPI_Barrier(MPI_COMM_WORLD);
  snprintf(path, sizeof(path), "ckpt/rank_%05d.dat", (rank + 1) % size);
  fp = fopen(path, "r");
  fclose(fp);
  MPI_Finalize();
  return 0;
}
