#!/usr/bin/env bash
# Single-node benchmark: the backing directory itself, libfuse's passthrough_ll (the FUSE
# ceiling) and bbfs, side by side in one run on the same backing directory, with fio.
#
#   bench/phases/fio_single_node.sh [RESULT.md]       (root; default bench/results/single_node_fio.md)
#
# Workloads (2 fio jobs each): sequential write and read, 1 MiB blocks; random 4 KiB write and
# read; file create, stat and delete (fio's filecreate/filestat/filedelete engines, 5,000 files
# per job). Each figure is the median of REPEAT runs (default 3). passthrough_ll is built from
# the example source that Debian's libfuse3-dev ships. Environment: SIZE (per job, default
# 1G), RUNTIME (seconds for random I/O, default 10), BACKING (default /var/tmp/bb-bench).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bench/results/single_node_fio.md}
repeat=${REPEAT:-3}
size=${SIZE:-1G}
runtime=${RUNTIME:-10}
files=${FILES:-5000}
backing=${BACKING:-/var/tmp/bb-bench}
bbd=${BBD:-$PWD/build/bin/bbd}
[ -x "$bbd" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is missing: tools/install-deps.sh" >&2; exit 1; }

# passthrough_ll from the Debian package's examples.
pt_src=$(dpkg -L libfuse3-dev | grep '/passthrough_ll.c' | head -1)
[ -n "$pt_src" ] || { echo "libfuse3-dev does not ship passthrough_ll.c" >&2; exit 1; }
pt_bin=$PWD/build/bench/passthrough_ll
mkdir -p "$(dirname "$pt_bin")"
if [ ! -x "$pt_bin" ] || [ "$pt_src" -nt "$pt_bin" ]; then
  src=$pt_src
  if [[ $pt_src == *.gz ]]; then src=$PWD/build/bench/passthrough_ll.c; zcat "$pt_src" > "$src"; fi
  gcc -O2 -Wall -o "$pt_bin" "$src" $(pkg-config --cflags --libs fuse3)
fi

rm -rf "$backing"
mkdir -p "$backing/raw" "$backing/pt-src" "$backing/pt-mnt" "$backing/bb-root" "$backing/bb-mnt"
cleanup() {
  [ -f "$backing/bb-root/bbd.lock" ] && kill -TERM "$(cat "$backing/bb-root/bbd.lock")" 2>/dev/null || true
  sleep 0.5
  for m in "$backing/pt-mnt" "$backing/bb-mnt"; do
    grep -q " $m " /proc/self/mountinfo && umount -l "$m"
  done
  rm -rf "$backing"
}
trap cleanup EXIT

"$pt_bin" -o source="$backing/pt-src" -o allow_other "$backing/pt-mnt"
"$bbd" --root "$backing/bb-root" --mount "$backing/bb-mnt" >/dev/null

declare -A dirs=([backing]="$backing/raw" [passthrough_ll]="$backing/pt-mnt" [bbfs]="$backing/bb-mnt")
targets=(backing passthrough_ll bbfs)
csv=$(mktemp)
echo "workload,target,run,value" > "$csv"

# fio JSON -> the figure: bandwidth (MiB/s) for sequential jobs, IOPS otherwise.
figure() {
  python3 -c '
import json, sys
kind = sys.argv[1]
j = json.load(sys.stdin)["jobs"][0]
side = j["write"] if j["write"]["total_ios"] > 0 else j["read"]
print(round(side["bw_bytes"] / 2**20, 1) if kind == "bw" else round(side["iops"], 0))
' "$1"
}

runfio() {  # workload kind dir fio-args...
  local w=$1 kind=$2 dir=$3; shift 3
  sync; echo 3 > /proc/sys/vm/drop_caches
  fio --directory="$dir" --numjobs=2 --group_reporting --output-format=json "$@" | figure "$kind"
}

for run in $(seq "$repeat"); do
  for t in "${targets[@]}"; do
    d=${dirs[$t]}
    echo "run $run: $t" >&2
    v=$(runfio seq-write bw "$d" --name=seq --rw=write --bs=1M --size="$size" --ioengine=psync --end_fsync=1)
    echo "seq-write-1M,$t,$run,$v" >> "$csv"
    v=$(runfio seq-read bw "$d" --name=seq --rw=read --bs=1M --size="$size" --ioengine=psync)
    echo "seq-read-1M,$t,$run,$v" >> "$csv"
    v=$(runfio rand-write iops "$d" --name=rnd --rw=randwrite --bs=4k --size="$size" --ioengine=psync \
          --time_based --runtime="$runtime")
    echo "rand-write-4k,$t,$run,$v" >> "$csv"
    v=$(runfio rand-read iops "$d" --name=rnd --rw=randread --bs=4k --size="$size" --ioengine=psync \
          --time_based --runtime="$runtime")
    echo "rand-read-4k,$t,$run,$v" >> "$csv"
    rm -f "$d"/seq.* "$d"/rnd.*
    common=(--name=md --filesize=4k --nrfiles="$files" --openfiles=1)
    v=$(runfio create iops "$d" "${common[@]}" --ioengine=filecreate --fallocate=none --create_on_open=1)
    echo "file-create,$t,$run,$v" >> "$csv"
    v=$(runfio stat iops "$d" "${common[@]}" --ioengine=filestat)
    echo "file-stat,$t,$run,$v" >> "$csv"
    v=$(runfio delete iops "$d" "${common[@]}" --ioengine=filedelete)
    echo "file-delete,$t,$run,$v" >> "$csv"
    rm -rf "${d:?}"/*
  done
done

python3 - "$csv" "$out" "$repeat" "$size" "$runtime" "$files" <<'PY'
import csv, statistics, sys, datetime, platform, subprocess
path, out, repeat, size, runtime, files = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
vals = {}
for r in rows:
    vals.setdefault((r["workload"], r["target"]), []).append(float(r["value"]))
med = {k: statistics.median(v) for k, v in vals.items()}
order = ["seq-write-1M", "seq-read-1M", "rand-write-4k", "rand-read-4k", "file-create", "file-stat", "file-delete"]
target = {"seq-write-1M": 0.9, "seq-read-1M": 0.9}
unit = lambda w: "MiB/s" if w.startswith("seq") else "IOPS"
kernel = platform.release()
fiov = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
with open(out, "w") as f:
    f.write("# Single node: backing directory vs passthrough_ll vs bbfs (fio)\n\n")
    f.write(f"Recorded {datetime.date.today()} on {platform.node() and 'a'} 2-core Debian 12 machine, kernel {kernel}, {fiov}.\n")
    f.write(f"Command: `bench/phases/fio_single_node.sh` (REPEAT={repeat}, SIZE={size} per job, RUNTIME={runtime}s, FILES={files} per job), as root.\n")
    f.write("2 fio jobs per workload, psync engine, page cache dropped before each job; median of the runs.\n")
    f.write("Backing directory on the machine's disk; passthrough_ll built from Debian libfuse3-dev's example, default options (multithreaded, cache=normal, 1 s timeouts); bbfs with its defaults (1 s cache timeout, 512 KiB chunks).\n\n")
    f.write("| workload | unit | backing | passthrough_ll | bbfs | bbfs / passthrough_ll | target | met |\n|---|---|---|---|---|---|---|---|\n")
    for w in order:
        b, p, s = med.get((w, "backing")), med.get((w, "passthrough_ll")), med.get((w, "bbfs"))
        ratio = s / p if p else float("nan")
        t = target.get(w, 0.8)
        f.write(f"| {w} | {unit(w)} | {b:.0f} | {p:.0f} | {s:.0f} | {ratio:.2f} | ≥ {t} | {'yes' if ratio >= t else 'no'} |\n")
    f.write("\nAll runs (value per run):\n\n| workload | target | runs |\n|---|---|---|\n")
    for w in order:
        for t in ["backing", "passthrough_ll", "bbfs"]:
            f.write(f"| {w} | {t} | {', '.join(f'{v:.0f}' for v in vals.get((w, t), []))} |\n")
print(open(out).read())
PY
rm -f "$csv"
