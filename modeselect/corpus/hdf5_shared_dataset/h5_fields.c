/*
 * Parallel HDF5 output of a 3-D field split in slabs along the first dimension.
 *
 *   h5_fields write FILE NZ   every rank selects its hyperslab of /fields/density and
 *                             /fields/temperature and writes it with a collective transfer
 *                             (H5FD_MPIO_COLLECTIVE) into one shared file; rank 0's "step"
 *                             attribute is attached collectively
 *   h5_fields check FILE NZ   the analysis step: every rank reads the slab of rank
 *                             (r + 2) % P of both datasets and checks it
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
static const char *names[2] = {"density", "temperature"};

static void fail(const char *what) {
  fprintf(stderr, "h5_fields[%d]: %s failed\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static double density(hsize_t z, hsize_t y, hsize_t x) { return 1.0 + z * 1e-3 + y * 1e-5 + x * 1e-7; }
static double temperature(hsize_t z, hsize_t y, hsize_t x) { return 300.0 + z + y * 0.01 + x * 0.0001; }
static double (*funcs[2])(hsize_t, hsize_t, hsize_t) = {density, temperature};

static void fill(double *buf, hsize_t z0, hsize_t nz, double (*f)(hsize_t, hsize_t, hsize_t)) {
  for (hsize_t z = 0; z < nz; z++)
    for (hsize_t y = 0; y < NY; y++)
      for (hsize_t x = 0; x < NX; x++) buf[(z * NY + y) * NX + x] = f(z0 + z, y, x);
}

/* All ranks must reach the file's directory: H5Fcreate/H5Fopen open it collectively. */
static void require_dir(const char *file) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", file);
  int ok = access(dirname(copy), W_OK) == 0, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all_ok) fail("finding the output directory on every rank");
}

static void write_fields(const char *file, hsize_t nz, hid_t fapl, hid_t dxpl) {
  hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (f < 0) fail("H5Fcreate");
  hid_t grp = H5Gcreate2(f, "/fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[3] = {nz * nprocs, NY, NX}, start[3] = {nz * rank, 0, 0}, count[3] = {nz, NY, NX};
  hid_t filespace = H5Screate_simple(3, dims, NULL);
  hid_t memspace = H5Screate_simple(3, count, NULL);
  double *buf = malloc(nz * NY * NX * sizeof(double));
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
  free(buf);
  H5Sclose(memspace);
  H5Sclose(filespace);
  if (H5Fclose(f) < 0) fail("H5Fclose");
}

static long check_fields(const char *file, hsize_t nz, hid_t fapl, hid_t dxpl) {
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, fapl);
  if (f < 0) fail("H5Fopen");
  int other = (rank + 2) % nprocs;
  hsize_t start[3] = {nz * other, 0, 0}, count[3] = {nz, NY, NX};
  hid_t memspace = H5Screate_simple(3, count, NULL);
  double *buf = malloc(nz * NY * NX * sizeof(double)), *want = malloc(nz * NY * NX * sizeof(double));
  long bad = 0;
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
  int step = 0;
  hid_t attr = H5Aopen_by_name(f, "/fields", "step", H5P_DEFAULT, H5P_DEFAULT);
  if (attr < 0 || H5Aread(attr, H5T_NATIVE_INT, &step) < 0 || step != 42) bad++;
  if (attr >= 0) H5Aclose(attr);
  free(buf);
  free(want);
  H5Sclose(memspace);
  H5Fclose(f);
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 4 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "check") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: h5_fields write|check FILE NZ_PER_RANK\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *file = argv[2];
  hsize_t nz = (hsize_t)atol(argv[3]);
  require_dir(file);

  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);

  double t0 = MPI_Wtime();
  long bad = 0, all_bad = 0;
  if (strcmp(argv[1], "write") == 0) {
    write_fields(file, nz, fapl, dxpl);
  } else {
    bad = check_fields(file, nz, fapl, dxpl);
  }
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  if (rank == 0)
    printf("h5_fields %s: %llu x %d x %d doubles x 2 datasets in %.3f s, %ld bad\n", argv[1],
           (unsigned long long)(nz * nprocs), NY, NX, t1 - t0, all_bad);
  H5Pclose(dxpl);
  H5Pclose(fapl);
  MPI_Info_free(&info);
  MPI_Finalize();
  return all_bad ? 1 : 0;
}
