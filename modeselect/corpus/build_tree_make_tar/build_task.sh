#!/bin/bash
# build_task.sh BUILD_ROOT MODULES SOURCES: one task's build in BUILD_ROOT/task<rank>.
#   checkout: src/modNN/fileK.c and a generated Makefile
#   build:    obj/modNN/fileK.o for every source, lib/libmodNN.a per module, app from the libs
#   check:    make -q (nothing left to do), every file there, app's size the sum of the libs'
set -euo pipefail
root=$1/task${SLURM_PROCID:?} modules=$2 sources=$3

mkdir -p "$root"
cd "$root"
{
  echo "# generated: module libraries and the app"
  echo "app:"
  echo "obj/%.o: src/%.c"
  printf '\t@mkdir -p $(dir $@)\n\t@tr a-z A-Z < $< > $@\n'
} > Makefile
libs=()
for ((m = 0; m < modules; m++)); do
  mod=$(printf mod%02d $m)
  mkdir -p "src/$mod"
  objs=()
  for ((k = 0; k < sources; k++)); do
    {
      printf '/* %s/file%d.c: part of task %s */\n' "$mod" "$k" "$SLURM_PROCID"
      for ((l = 0; l < 12; l++)); do
        printf 'int %s_f%d_%d(int x) { return x * %d + %d; }\n' "$mod" "$k" "$l" $((m + 1)) $((k * 12 + l))
      done
    } > "src/$mod/file$k.c"
    objs+=("obj/$mod/file$k.o")
  done
  printf 'lib/lib%s.a: %s\n\t@mkdir -p lib\n\t@cat $^ > $@\n' "$mod" "${objs[*]}" >> Makefile
  libs+=("lib/lib$mod.a")
done
printf 'app: %s\n\t@cat $^ > $@\n' "${libs[*]}" >> Makefile

make -s -j2 app
if ! make -q app; then
  echo "build_task[$SLURM_PROCID]: make still finds work after the build" >&2
  make -n app >&2 || true
  exit 1
fi

nsrc=$(find src -name '*.c' | wc -l) nobj=$(find obj -name '*.o' | wc -l) nlib=$(find lib -name '*.a' | wc -l)
if [ "$nsrc" -ne $((modules * sources)) ] || [ "$nobj" -ne "$nsrc" ] || [ "$nlib" -ne "$modules" ]; then
  echo "build_task[$SLURM_PROCID]: $nsrc sources, $nobj objects, $nlib libraries" >&2
  exit 1
fi
libbytes=$(stat -c %s lib/*.a | awk '{s += $1} END {print s}')
if [ "$(stat -c %s app)" -ne "$libbytes" ]; then
  echo "build_task[$SLURM_PROCID]: app has $(stat -c %s app) bytes, its libraries $libbytes" >&2
  exit 1
fi
cksum < app > app.cksum
echo "task $SLURM_PROCID: $nobj objects, $nlib libraries, app of $libbytes bytes"
