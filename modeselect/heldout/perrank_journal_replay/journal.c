/*
 * Transaction journal of a replicated state machine, one per task: `log` appends RECORDS
 * fixed-size records (sequence number, account, amount, checksum) to JOURNAL_DIR/<node>.<local
 * id>.jnl, opened with O_APPEND, with fdatasync every 16 records (a group commit), and keeps
 * the resulting balances in <node>.<local id>.snap (replaced by rename every 256 records).
 * `replay`, a later step with the same placement, reads the journal from the start,
 * verifies every record, recomputes the balances, compares them with the snapshot and
 * removes both files.
 *
 * usage: journal log|replay JOURNAL_DIR RECORDS
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ACCOUNTS 64

typedef struct {
  uint64_t seq;
  uint32_t account;
  int32_t amount;
  uint64_t check;
  char memo[40];
} record_t;

static char jpath[4096], spath[4096];

static void die(const char *what, const char *path) {
  fprintf(stderr, "journal %s: %s %s: %s\n", jpath, what, path, strerror(errno));
  exit(1);
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  return x ^ (x >> 33);
}

static void make_record(record_t *r, uint64_t seq, uint64_t seed) {
  memset(r, 0, sizeof *r);
  r->seq = seq;
  r->account = (uint32_t)(mix(seed + seq) % ACCOUNTS);
  r->amount = (int32_t)(mix(seed ^ seq) % 2001) - 1000;
  snprintf(r->memo, sizeof r->memo, "txn %llu", (unsigned long long)seq);
  r->check = mix(r->seq * 31 + r->account * 7 + (uint64_t)(int64_t)r->amount);
}

static void save_snapshot(const int64_t *bal, uint64_t seq) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", spath);
  FILE *f = fopen(tmp, "w");
  if (!f) die("fopen", tmp);
  fprintf(f, "%llu\n", (unsigned long long)seq);
  for (int a = 0; a < ACCOUNTS; ++a) fprintf(f, "%lld\n", (long long)bal[a]);
  if (fclose(f) != 0) die("fclose", tmp);
  if (rename(tmp, spath) != 0) die("rename", tmp);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: journal log|replay JOURNAL_DIR RECORDS\n");
    return 2;
  }
  const char *node = getenv("SLURMD_NODENAME"), *local = getenv("SLURM_LOCALID");
  const char *procid = getenv("SLURM_PROCID");
  uint64_t seed = procid ? (uint64_t)atoi(procid) * 7919 : 1, n = strtoull(argv[3], NULL, 10);
  snprintf(jpath, sizeof jpath, "%s/%s.%s.jnl", argv[2], node ? node : "node", local ? local : "0");
  snprintf(spath, sizeof spath, "%s/%s.%s.snap", argv[2], node ? node : "node", local ? local : "0");
  int64_t bal[ACCOUNTS] = {0};
  record_t r, want;
  if (strcmp(argv[1], "log") == 0) {
    if (mkdir(argv[2], 0755) != 0 && errno != EEXIST) die("mkdir", argv[2]);
    int fd = open(jpath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (fd < 0) die("open", jpath);
    for (uint64_t s = 1; s <= n; ++s) {
      make_record(&r, s, seed);
      if (write(fd, &r, sizeof r) != (ssize_t)sizeof r) die("write", jpath);
      bal[r.account] += r.amount;
      if (s % 16 == 0 && fdatasync(fd) != 0) die("fdatasync", jpath);
      if (s % 256 == 0 || s == n) save_snapshot(bal, s);
    }
    if (close(fd) != 0) die("close", jpath);
    printf("journal: %s: %llu records logged\n", jpath, (unsigned long long)n);
    return 0;
  }
  int fd = open(jpath, O_RDONLY);
  if (fd < 0) die("open", jpath);
  uint64_t s = 0, bad = 0;
  while (read(fd, &r, sizeof r) == (ssize_t)sizeof r) {
    make_record(&want, ++s, seed);
    bad += memcmp(&r, &want, sizeof r) != 0;
    bal[r.account] += r.amount;
  }
  close(fd);
  FILE *f = fopen(spath, "r");
  if (!f) die("fopen", spath);
  unsigned long long snap_seq = 0;
  long long v;
  bad += fscanf(f, "%llu", &snap_seq) != 1 || snap_seq != n;
  for (int a = 0; a < ACCOUNTS; ++a) bad += fscanf(f, "%lld", &v) != 1 || v != bal[a];
  fclose(f);
  if (unlink(jpath) != 0) die("unlink", jpath);
  if (unlink(spath) != 0) die("unlink", spath);
  if (s != n || bad) {
    fprintf(stderr, "journal: %s: %llu of %llu records, %llu bad\n", jpath, (unsigned long long)s,
            (unsigned long long)n, (unsigned long long)bad);
    return 1;
  }
  printf("journal: %s: %llu records replayed, balances match the snapshot\n", jpath, (unsigned long long)s);
  return 0;
}
