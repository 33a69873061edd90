#!/bin/bash
# gen_sources.sh TREE UNITS: writes a C code base of UNITS translation units, a common header
# and a main program into TREE/src, and the value the program must print into TREE/expected.
set -euo pipefail
tree=$1 units=$2
mkdir -p "$tree/src"
{
  echo "#pragma once"
  echo "#define SCALE 3"
  for ((u = 0; u < units; u++)); do printf 'long unit_%03d(long x);\n' $u; done
} > "$tree/src/common.h"
for ((u = 0; u < units; u++)); do
  cat > "$tree/src/unit_$(printf %03d $u).c" <<EOC
#include "common.h"
static long table[16] = {$(seq -s, $u $((u + 15)))};
long unit_$(printf %03d $u)(long x) {
  long s = 0;
  for (int i = 0; i < 16; ++i) s += table[i] * SCALE + x;
  return s;
}
EOC
done
{
  echo '#include <stdio.h>'
  echo '#include "common.h"'
  echo 'int main(void) {'
  echo '  long total = 0;'
  for ((u = 0; u < units; u++)); do printf '  total += unit_%03d(%d);\n' $u $u; done
  echo '  printf("%ld\n", total);'
  echo '  return 0;'
  echo '}'
} > "$tree/src/main.c"
# sum over u of sum_{i<16} ((u + i) * 3 + u)
awk -v n=$units 'BEGIN {t = 0; for (u = 0; u < n; u++) for (i = 0; i < 16; i++) t += (u + i) * 3 + u; print t}' \
  > "$tree/expected"
