/*
 * Many ranks append records to one shared log, as a job's event log or a shared trace is
 * written: rank 0 creates the log with a header line, then every rank opens it with O_APPEND
 * and appends RECORDS records of 100-300 bytes (lengths from a fixed sequence per rank),
 * calling fdatasync every SYNC_EVERY records. Then rank 0 reads the log back and checks that it
 * is the header followed by every (rank, record) exactly once, each record whole (its length and
 * checksum), and nothing else.
 *
 * With `reopen`, each record is appended by its own open, write and close (as a logging
 * library that keeps no descriptor does), and SYNC_EVERY counts records between fdatasyncs.
 *
 * usage: shared_append LOG RECORDS SYNC_EVERY [reopen]
 * Exit 0 and "shared_append: ok ..." when the log is right; 1 and the first fault otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER "# shared log: rank record length payload checksum\n"

/* The length of record i of `rank`: 100..300 bytes with its newline. */
static int record_length(int rank, int i) {
  unsigned x = (unsigned)rank * 2654435761u ^ (unsigned)i * 40503u;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return 100 + (int)(x % 201);
}

static unsigned checksum(const char *s, size_t n) {
  unsigned h = 2166136261u;
  for (size_t k = 0; k < n; k++) h = (h ^ (unsigned char)s[k]) * 16777619u;
  return h;
}

/* "r<rank> i<i> <payload of letters> c<checksum of what is before>\n", exactly `len` bytes. */
static void make_record(char *out, int rank, int i, int len) {
  int head = snprintf(out, 64, "r%06d i%07d ", rank, i);
  int tail = 11; /* "c%08x\n" + the blank before it */
  for (int k = head; k < len - tail; k++) out[k] = (char)('a' + (rank + i + k) % 26);
  out[len - tail] = ' ';
  snprintf(out + len - tail + 1, 11, "c%08x", checksum(out, (size_t)(len - tail)));
  out[len - 1] = '\n';
}

static int fail(const char *what, long where) {
  fprintf(stderr, "shared_append: %s (at %ld)\n", what, where);
  return 1;
}

/* Rank 0: the log must be HEADER followed by every record of every rank exactly once. */
static int verify(const char *path, int nranks, int records) {
  FILE *f = fopen(path, "r");
  if (!f) return fail(strerror(errno), 0);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  long lineno = 0;
  int bad = 0;
  char *seen = calloc((size_t)nranks * (size_t)records, 1);
  long count = 0;
  while (!bad && (n = getline(&line, &cap, f)) > 0) {
    lineno++;
    if (lineno == 1) {
      if (strcmp(line, HEADER) != 0) bad = fail("the header is not the first line", lineno);
      continue;
    }
    int rank, i;
    unsigned sum;
    if (sscanf(line, "r%d i%d", &rank, &i) != 2 || rank < 0 || rank >= nranks || i < 0 || i >= records) {
      bad = fail("a line that is no record (a torn or mixed record)", lineno);
    } else if (n != record_length(rank, i)) {
      bad = fail("a record of the wrong length (torn, or two mixed)", lineno);
    } else if (sscanf(line + n - 10, "c%8x", &sum) != 1 || sum != checksum(line, (size_t)n - 11)) {
      bad = fail("a record whose checksum is wrong", lineno);
    } else if (seen[(size_t)rank * records + i]++) {
      bad = fail("a record given twice", lineno);
    } else {
      count++;
    }
  }
  if (!bad && count != (long)nranks * records) {
    fprintf(stderr, "shared_append: %ld of %ld records in the log\n", count, (long)nranks * records);
    bad = 1;
  }
  free(seen);
  free(line);
  fclose(f);
  if (!bad) printf("shared_append: ok, %ld records from %d ranks, each whole and once\n", count, nranks);
  return bad;
}

int main(int argc, char **argv) {
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 4 && !(argc == 5 && strcmp(argv[4], "reopen") == 0)) {
    if (rank == 0) fprintf(stderr, "usage: shared_append LOG RECORDS SYNC_EVERY [reopen]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *path = argv[1];
  int records = atoi(argv[2]), sync_every = atoi(argv[3]), reopen = argc == 5;
  if (rank == 0) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, HEADER, strlen(HEADER)) != (ssize_t)strlen(HEADER) || close(fd) != 0) {
      perror(path);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int fd = -1;
  char rec[512];
  for (int i = 0; i < records; i++) {
    if (fd < 0 && (fd = open(path, O_WRONLY | O_APPEND)) < 0) {
      fprintf(stderr, "rank %d: open %s: %s\n", rank, path, strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int len = record_length(rank, i);
    make_record(rec, rank, i, len);
    ssize_t w = write(fd, rec, (size_t)len);
    if (w != len) {
      fprintf(stderr, "rank %d: write() of record %d: %s\n", rank, i, w < 0 ? strerror(errno) : "short write");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (sync_every > 0 && (i + 1) % sync_every == 0 && fdatasync(fd) != 0) {
      fprintf(stderr, "rank %d: fdatasync() after record %d: %s\n", rank, i, strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if ((reopen || i + 1 == records) && close(fd) != 0) {
      fprintf(stderr, "rank %d: close() after record %d: %s\n", rank, i, strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (reopen || i + 1 == records) fd = -1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int rc = rank == 0 ? verify(path, nranks, records) : 0;
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
