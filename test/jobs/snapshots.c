/*
 * A simulation writes snapshots, an analysis step reads them on other nodes: in `write` mode
 * every rank writes FILES snapshot files of SIZE bytes each (content a function of rank, file
 * and offset) with fwrite in 1 MiB pieces, and fclose; in `read` mode (a later step) rank r
 * reads rank (r + SHIFT) mod N's files back with fread and checks every byte.
 *
 * usage: snapshots write|read DIR FILES SIZE [SHIFT]
 * Exit 0 and "snapshots: ok ..." when every byte is right; 1 and the first fault otherwise.
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char byte_at(int rank, int file, long off) {
  unsigned x = (unsigned)(off / 8) * 2654435761u ^ (unsigned)rank * 97u ^ (unsigned)file * 7919u;
  return (unsigned char)((x >> (8 * (off % 4))) ^ (unsigned)(off % 8));
}

int main(int argc, char **argv) {
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 5 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: snapshots write|read DIR FILES SIZE [SHIFT]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int writing = strcmp(argv[1], "write") == 0;
  const char *dir = argv[2];
  int files = atoi(argv[3]);
  long size = atol(argv[4]);
  int shift = argc > 5 ? atoi(argv[5]) : 0;
  int owner = writing ? rank : (rank + shift) % nranks;
  enum { kPiece = 1 << 20 };
  unsigned char *buf = malloc(kPiece), *want = malloc(kPiece);
  int bad = 0;
  for (int f = 0; f < files && !bad; f++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/snap.r%04d.f%02d", dir, owner, f);
    FILE *fp = fopen(path, writing ? "w" : "r");
    if (!fp) {
      fprintf(stderr, "rank %d: fopen(%s): %s\n", rank, path, strerror(errno));
      bad = 1;
      break;
    }
    for (long off = 0; off < size && !bad; off += kPiece) {
      size_t n = (size_t)(size - off < kPiece ? size - off : kPiece);
      for (size_t k = 0; k < n; k++) want[k] = byte_at(owner, f, off + (long)k);
      if (writing) {
        if (fwrite(want, 1, n, fp) != n) {
          fprintf(stderr, "rank %d: fwrite(%s) at %ld: %s\n", rank, path, off, strerror(errno));
          bad = 1;
        }
      } else if (fread(buf, 1, n, fp) != n || memcmp(buf, want, n) != 0) {
        fprintf(stderr, "rank %d: %s differs at or after byte %ld (%s)\n", rank, path, off,
                ferror(fp) ? strerror(errno) : "wrong bytes or short");
        bad = 1;
      }
    }
    if (fclose(fp) != 0) {
      fprintf(stderr, "rank %d: fclose(%s): %s\n", rank, path, strerror(errno));
      bad = 1;
    }
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any) {
    printf("snapshots: ok, %s %d files of %ld bytes on each of %d ranks\n", writing ? "wrote" : "read back", files,
           size, nranks);
  }
  free(buf);
  free(want);
  MPI_Finalize();
  return any;
}
