#include <stdio.h>

// Appends one record: called once per step from solver.c.
void write_record(FILE *fp, const char *rec, size_t n) {
  fwrite(rec, 1, n, fp);
}
