/*
 * Archive scanner (a purge/backup policy engine): the ranks fill a shared project tree of
 * DIRS directories, each rank adding FILES small files to every directory; then every rank
 * scans the whole tree as a policy engine does (lists every directory, stats every entry of
 * its share of the directories, sums sizes per directory), the ranks' sums are compared;
 * then the files older than a cut (by their mtime, set with utimensat) are removed by
 * whichever rank finds them in its share, and the directories are removed by rank 0 once
 * empty.
 *
 * usage: treescan ROOT DIRS FILES
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int rank, nranks;

static void die(const char *what, const char *path) {
  fprintf(stderr, "treescan[%d]: %s %s: %s\n", rank, what, path, strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: treescan ROOT DIRS FILES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *root = argv[1];
  int dirs = atoi(argv[2]), files = atoi(argv[3]);
  char path[4096], name[4352];
  char buf[4096];
  memset(buf, 'x', sizeof buf);
  double t0 = MPI_Wtime();

  /* 1. fill: rank 0 makes the directories, every rank adds its files to every directory */
  if (rank == 0) {
    if (mkdir(root, 0755) != 0 && errno != EEXIST) die("mkdir", root);
    for (int d = 0; d < dirs; ++d) {
      snprintf(path, sizeof path, "%s/proj%02d", root, d);
      if (mkdir(path, 0755) != 0) die("mkdir", path);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  long want_bytes = 0;
  for (int d = 0; d < dirs; ++d) {
    for (int f = 0; f < files; ++f) {
      snprintf(name, sizeof name, "%s/proj%02d/r%03d_f%04d.dat", root, d, rank, f);
      int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
      if (fd < 0) die("create", name);
      size_t len = 64 + (size_t)((rank * 131 + f * 17 + d) % 1024);
      if (write(fd, buf, len) != (ssize_t)len) die("write", name);
      /* half of the files are "old": their mtime goes back a day */
      struct timespec ts[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
      if (f % 2 == 0) {
        ts[1].tv_sec = time(NULL) - 86400;
        ts[1].tv_nsec = 0;
      }
      if (futimens(fd, ts) != 0) die("futimens", name);
      if (close(fd) != 0) die("close", name);
      want_bytes += (long)len;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &want_bytes, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  double t1 = MPI_Wtime();

  /* 2. scan: every rank lists every directory; it stats the entries of its share */
  long entries = 0, bytes = 0, old = 0;
  time_t cut = time(NULL) - 3600;
  for (int d = 0; d < dirs; ++d) {
    snprintf(path, sizeof path, "%s/proj%02d", root, d);
    DIR *dp = opendir(path);
    if (!dp) die("opendir", path);
    struct dirent *e;
    int mine = d % nranks == rank;
    while ((e = readdir(dp))) {
      if (e->d_name[0] == '.') continue;
      ++entries;
      if (!mine) continue;
      struct stat st;
      if (fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) die("stat", e->d_name);
      bytes += st.st_size;
      old += st.st_mtime < cut;
    }
    closedir(dp);
  }
  long total[3] = {entries, bytes, old};
  MPI_Allreduce(MPI_IN_PLACE, total + 1, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long want_entries = (long)dirs * files * nranks;
  int bad = entries != want_entries || total[1] != want_bytes || total[2] != want_entries / 2;
  double t2 = MPI_Wtime();

  /* 3. purge the old files of the rank's share, then every remaining file is removed by its
        owner, and rank 0 removes the (now empty) directories */
  for (int d = rank; d < dirs; d += nranks) {
    snprintf(path, sizeof path, "%s/proj%02d", root, d);
    DIR *dp = opendir(path);
    if (!dp) die("opendir", path);
    struct dirent *e;
    while ((e = readdir(dp))) {
      struct stat st;
      if (e->d_name[0] == '.') continue;
      if (fstatat(dirfd(dp), e->d_name, &st, 0) != 0) die("stat", e->d_name);
      if (st.st_mtime < cut && unlinkat(dirfd(dp), e->d_name, 0) != 0) die("unlink", e->d_name);
    }
    closedir(dp);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int d = 0; d < dirs; ++d) {
    for (int f = 1; f < files; f += 2) {
      snprintf(name, sizeof name, "%s/proj%02d/r%03d_f%04d.dat", root, d, rank, f);
      if (unlink(name) != 0) die("unlink", name);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int d = 0; d < dirs; ++d) {
      snprintf(path, sizeof path, "%s/proj%02d", root, d);
      if (rmdir(path) != 0) die("rmdir", path);
    }
    if (rmdir(root) != 0) die("rmdir", root);
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("treescan: %d dirs x %d files x %d ranks; fill %.2f s, scan %.2f s, purge %.2f s; %s\n", dirs, files,
           nranks, t1 - t0, t2 - t1, MPI_Wtime() - t2, bad ? "MISMATCH" : "sums agree");
  }
  MPI_Finalize();
  return bad;
}
