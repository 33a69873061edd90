/* Out-of-core matrix storage, one file per process (MADbench2's IOMODE=UNIQUE). */
#ifndef IO_UNIQUE_H
#define IO_UNIQUE_H
#include <stddef.h>

typedef struct {
  int fd;
  char path[4096];
  size_t matrix_bytes;
} matrix_store;

/* Opens (creates) this rank's store under dir. Returns 0 or -1 with errno set. */
int store_open(matrix_store *s, const char *dir, int rank, size_t matrix_bytes);
/* Writes/reads matrix k of region 0 (S phase) or 1 (dW phase). */
int store_write(matrix_store *s, int region, int k, int nbin, const double *m);
int store_read(matrix_store *s, int region, int k, int nbin, double *m);
int store_close(matrix_store *s, int unlink_file);

#endif
