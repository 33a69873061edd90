/* All file I/O of the kernel lives here; main.c only computes. */
#include "io_unique.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int store_open(matrix_store *s, const char *dir, int rank, size_t matrix_bytes) {
  sprintf(s->path, "%s/madbench_%04d.mat", dir, rank);
  s->matrix_bytes = matrix_bytes;
  s->fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  return s->fd < 0 ? -1 : 0;
}

static off_t offset_of(const matrix_store *s, int region, int k, int nbin) {
  return ((off_t)region * nbin + k) * (off_t)s->matrix_bytes;
}

int store_write(matrix_store *s, int region, int k, int nbin, const double *m) {
  const char *p = (const char *)m;
  size_t left = s->matrix_bytes;
  off_t at = offset_of(s, region, k, nbin);
  while (left > 0) {
    ssize_t n = pwrite(s->fd, p, left, at);
    if (n < 0) return -1;
    p += n, left -= (size_t)n, at += n;
  }
  return 0;
}

int store_read(matrix_store *s, int region, int k, int nbin, double *m) {
  char *p = (char *)m;
  size_t left = s->matrix_bytes;
  off_t at = offset_of(s, region, k, nbin);
  while (left > 0) {
    ssize_t n = pread(s->fd, p, left, at);
    if (n < 0) return -1;
    if (n == 0) {
      errno = EIO;
      return -1;
    }
    p += n, left -= (size_t)n, at += n;
  }
  return 0;
}

int store_close(matrix_store *s, int unlink_file) {
  int rc = fsync(s->fd);
  if (close(s->fd) != 0) rc = -1;
  if (unlink_file && unlink(s->path) != 0) rc = -1;
  return rc;
}
