/*
 * Parallel HDF5 output of a 3-D field split in slabs along the first dimension: every rank
 * selects its hyperslab of /fields/density and /fields/temperature and writes it with a
 * collective transfer (H5FD_MPIO_COLLECTIVE) into one shared file; a "step" attribute is
 * attached. The file is then reopened and every rank reads the slab of rank (r + 2) % P
 * back and checks it.
 *
 * usage: h5_fields FILE NZ_PER_RANK
 */
#include <hdf5.h>
#include <libgen.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NY 64
#define NX 128

static int rank, nprocs;

static void fail(const char *what) {
  fprintf(stderr, "h5_fields[%d]: %s failed\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static double density(hsize_t z, hsize_t y, hsize_t x) { return 1.0 + z * 1e-3 + y * 1e-5 + x * 1e-7; }
static double temperature(hsize_t z, hsize_t y, hsize_t x) { return 300.0 + z + y * 0.01 + x * 0.0001; }

static void fill(double *buf, hsize_t z0, hsize_t nz, double (*f)(hsize_t, hsize_t, hsize_t)) {
  for (hsize_t z = 0; z < nz; z++)
    for (hsize_t y = 0; y < NY; y++)
      for (hsize_t x = 0; x < NX; x++) buf[(z * NY + y) * NX + x] = f(z0 + z, y, x);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: h5_fields FILE NZ_PER_RANK\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *file = argv[1];
  hsize_t nz = (hsize_t)atol(argv[2]);

  /* All ranks must reach the output directory (H5Fcreate opens the file collectively). */
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", file);
  int ok = access(dirname(copy), W_OK) == 0, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all_ok) fail("finding the output directory on every rank");

  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
  hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (f < 0) fail("H5Fcreate");
  hid_t grp = H5Gcreate2(f, "/fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

  hsize_t dims[3] = {nz * nprocs, NY, NX}, start[3] = {nz * rank, 0, 0}, count[3] = {nz, NY, NX};
  hid_t filespace = H5Screate_simple(3, dims, NULL);
  hid_t memspace = H5Screate_simple(3, count, NULL);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  double *buf = malloc(nz * NY * NX * sizeof(double));
  const char *names[2] = {"density", "temperature"};
  double (*funcs[2])(hsize_t, hsize_t, hsize_t) = {density, temperature};

  double t0 = MPI_Wtime();
  for (int v = 0; v < 2; v++) {
    hid_t ds = H5Dcreate2(grp, names[v], H5T_NATIVE_DOUBLE, filespace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (ds < 0) fail("H5Dcreate2");
    H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, NULL, count, NULL);
    fill(buf, start[0], nz, funcs[v]);
    if (H5Dwrite(ds, H5T_NATIVE_DOUBLE, memspace, filespace, dxpl, buf) < 0) fail("H5Dwrite");
    H5Dclose(ds);
  }
  int step = 42;
  hid_t scalar = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(grp, "step", H5T_NATIVE_INT, scalar, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, H5T_NATIVE_INT, &step);
  H5Aclose(attr);
  H5Sclose(scalar);
  H5Gclose(grp);
  if (H5Fclose(f) < 0) fail("H5Fclose");
  double t1 = MPI_Wtime();

  /* Read another rank's slab back. */
  f = H5Fopen(file, H5F_ACC_RDONLY, fapl);
  if (f < 0) fail("H5Fopen");
  int other = (rank + 2) % nprocs;
  start[0] = nz * other;
  long bad = 0;
  double *want = malloc(nz * NY * NX * sizeof(double));
  for (int v = 0; v < 2; v++) {
    char path[64];
    snprintf(path, sizeof path, "/fields/%s", names[v]);
    hid_t ds = H5Dopen2(f, path, H5P_DEFAULT);
    if (ds < 0) fail("H5Dopen2");
    hid_t fs = H5Dget_space(ds);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (H5Dread(ds, H5T_NATIVE_DOUBLE, memspace, fs, dxpl, buf) < 0) fail("H5Dread");
    fill(want, start[0], nz, funcs[v]);
    for (hsize_t i = 0; i < nz * NY * NX; i++)
      if (buf[i] != want[i]) bad++;
    H5Sclose(fs);
    H5Dclose(ds);
  }
  H5Fclose(f);
  long all_bad;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  double t2 = MPI_Wtime();
  if (rank == 0)
    printf("h5_fields: %llu x %d x %d doubles x 2 datasets, write %.3f s, read %.3f s, %ld bad\n",
           (unsigned long long)dims[0], NY, NX, t1 - t0, t2 - t1, all_bad);
  free(buf);
  free(want);
  H5Sclose(memspace);
  H5Sclose(filespace);
  H5Pclose(dxpl);
  H5Pclose(fapl);
  MPI_Info_free(&info);
  MPI_Finalize();
  return all_bad ? 1 : 0;
}
