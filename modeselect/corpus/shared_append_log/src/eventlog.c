#include "eventlog.h"

#include <fcntl.h>
#include <mpi.h>
#include <string.h>
#include <unistd.h>

/* The log is opened with O_APPEND for every record and closed at once, so that a line is
 * never split and no rank keeps a stale end of file. */
int eventlog_append(const char *path, const char *line) {
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return -1;
  size_t len = strlen(line);
  ssize_t n = write(fd, line, len);
  int rc = (n == (ssize_t)len) ? 0 : -1;
  if (close(fd) != 0) rc = -1;
  return rc;
}

/* A token goes round the ranks: each one appends when it holds it. */
int eventlog_ordered(const char *path, const char *line, int rank, int nranks) {
  int token = 0, rc;
  if (rank > 0) MPI_Recv(&token, 1, MPI_INT, rank - 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  rc = eventlog_append(path, line);
  token |= rc != 0;
  if (rank + 1 < nranks) MPI_Send(&token, 1, MPI_INT, rank + 1, 77, MPI_COMM_WORLD);
  MPI_Bcast(&token, 1, MPI_INT, nranks - 1, MPI_COMM_WORLD);
  return token ? -1 : 0;
}
