/*
 * External merge sort of one task's records, with its temporary files where TMPDIR says (as
 * sort(1) and most tools do): the task makes TMPDIR if it is not there, a private directory
 * in it with mkdtemp, writes the input there, sorts it in runs of RUN records (a run file
 * each), merges the runs into the output, checks that the output is sorted and holds the
 * input's records (count and checksum), and removes everything it made.
 *
 * usage: extsort RECORDS RUN      (TMPDIR must be set; the seed is SLURM_PROCID)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  uint64_t key, payload;
} rec_t;

static int task;

static void die(const char *what, const char *path) {
  fprintf(stderr, "extsort[%d]: %s %s: %s\n", task, what, path, strerror(errno));
  exit(1);
}

static int cmp(const void *a, const void *b) {
  uint64_t x = ((const rec_t *)a)->key, y = ((const rec_t *)b)->key;
  return x < y ? -1 : x > y;
}

static uint64_t next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static FILE *open_or_die(const char *path, const char *mode) {
  FILE *f = fopen(path, mode);
  if (!f) die("fopen", path);
  return f;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: extsort RECORDS RUN\n");
    return 2;
  }
  const char *p = getenv("SLURM_PROCID"), *tmpdir = getenv("TMPDIR");
  task = p ? atoi(p) : 0;
  if (!tmpdir) tmpdir = "/tmp";
  long n = atol(argv[1]), run = atol(argv[2]);
  if (n < 1 || run < 1 || run > (1L << 26)) {
    fprintf(stderr, "extsort: RECORDS and RUN must be positive (RUN at most 2^26)\n");
    return 2;
  }
  long nruns = (n + run - 1) / run;
  if (mkdir(tmpdir, 0700) != 0 && errno != EEXIST) die("mkdir", tmpdir);
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s/extsort.XXXXXX", tmpdir);
  if (!mkdtemp(dir)) die("mkdtemp", dir);

  /* the input, and its checksum */
  uint64_t seed = 1000003ULL * (task + 1), sum_in = 0;
  rec_t *buf = malloc((size_t)run * sizeof(rec_t));
  snprintf(path, sizeof path, "%s/input.bin", dir);
  FILE *in = open_or_die(path, "wb");
  for (long i = 0; i < n; ++i) {
    rec_t r = {next(&seed), (uint64_t)i};
    sum_in += r.key ^ r.payload;
    if (fwrite(&r, sizeof r, 1, in) != 1) die("fwrite", path);
  }
  if (fclose(in) != 0) die("fclose", path);

  /* runs */
  in = open_or_die(path, "rb");
  for (long k = 0; k < nruns; ++k) {
    size_t got = fread(buf, sizeof(rec_t), run, in);
    qsort(buf, got, sizeof(rec_t), cmp);
    snprintf(path, sizeof path, "%s/run.%04ld", dir, k);
    FILE *out = open_or_die(path, "wb");
    if (fwrite(buf, sizeof(rec_t), got, out) != got) die("fwrite", path);
    if (fclose(out) != 0) die("fclose", path);
  }
  fclose(in);
  snprintf(path, sizeof path, "%s/input.bin", dir);
  if (unlink(path) != 0) die("unlink", path);

  /* k-way merge (linear scan over the run heads: nruns is small) */
  FILE **runs = calloc((size_t)nruns, sizeof(FILE *));
  rec_t *head = calloc((size_t)nruns, sizeof(rec_t));
  int *live = calloc((size_t)nruns, sizeof(int));
  for (long k = 0; k < nruns; ++k) {
    snprintf(path, sizeof path, "%s/run.%04ld", dir, k);
    runs[k] = open_or_die(path, "rb");
    live[k] = fread(&head[k], sizeof(rec_t), 1, runs[k]) == 1;
  }
  snprintf(path, sizeof path, "%s/sorted.bin", dir);
  FILE *out = open_or_die(path, "wb");
  for (;;) {
    long best = -1;
    for (long k = 0; k < nruns; ++k) {
      if (live[k] && (best < 0 || head[k].key < head[best].key)) best = k;
    }
    if (best < 0) break;
    if (fwrite(&head[best], sizeof(rec_t), 1, out) != 1) die("fwrite", path);
    live[best] = fread(&head[best], sizeof(rec_t), 1, runs[best]) == 1;
  }
  if (fclose(out) != 0) die("fclose", path);
  for (long k = 0; k < nruns; ++k) {
    fclose(runs[k]);
    snprintf(path, sizeof path, "%s/run.%04ld", dir, k);
    if (unlink(path) != 0) die("unlink", path);
  }

  /* check the output */
  snprintf(path, sizeof path, "%s/sorted.bin", dir);
  in = open_or_die(path, "rb");
  uint64_t sum_out = 0, prev = 0;
  long count = 0, disorder = 0;
  rec_t r;
  while (fread(&r, sizeof r, 1, in) == 1) {
    disorder += count > 0 && r.key < prev;
    prev = r.key;
    sum_out += r.key ^ r.payload;
    ++count;
  }
  fclose(in);
  if (unlink(path) != 0) die("unlink", path);
  if (rmdir(dir) != 0) die("rmdir", dir);
  if (count != n || sum_out != sum_in || disorder) {
    fprintf(stderr, "extsort[%d]: %ld of %ld records, %ld out of order, checksum %s\n", task, count, n, disorder,
            sum_out == sum_in ? "ok" : "wrong");
    return 1;
  }
  printf("extsort[%d]: %ld records sorted through %ld runs\n", task, n, nruns);
  return 0;
}
