#!/usr/bin/env bash
# Every program's command line: --version prints the version and exits 0; a usage error (an
# unknown flag, a missing required option, a bad value) exits 2 naming what is wrong, with the
# usage line of the command it was given to. No root needed.
set -uo pipefail
bin=${1:?usage: cli.sh BUILD_BIN_DIR VERSION}
version=${2:?usage: cli.sh BUILD_BIN_DIR VERSION}
fails=0
check() {
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
usage_error() {  # usage_error WHAT-TO-FIND USAGE-PREFIX PROGRAM ARGS...
  local find=$1 usage=$2; shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] && grep -q -- "$find" <<<"$err" && grep -q "^Usage: $usage" <<<"$err" ||
    { echo "  exit $rc: $err" | head -4; return 1; }
}
# Each program with what it requires given, so the unknown flag is the error.
declare -A args=([bbd]="--root /nonexistent --mount /nonexistent" [bbctl]="stats" [bb-controller]="--policy x.yaml --key-file x.key"
                 [bb-modeselect]="--job x.sh" [bb-replay]="--dir /nonexistent --rate 1")
declare -A usage=([bbd]="$bin/bbd" [bbctl]="$bin/bbctl stats" [bb-controller]="$bin/bb-controller"
                  [bb-modeselect]="$bin/bb-modeselect" [bb-replay]="$bin/bb-replay")
for p in bbd bbctl bb-controller bb-modeselect bb-replay; do
  check "$p --version prints $version" sh -c "'$bin/$p' --version | grep -qx '$version'"
  # shellcheck disable=SC2086
  check "$p --no-such-flag exits 2 naming it, with the usage line" \
    usage_error no-such-flag "${usage[$p]}" "$bin/$p" ${args[$p]} --no-such-flag
done
check "bbctl job start without --name: exit 2, the subcommand's usage" \
  usage_error name "$bin/bbctl job start" "$bin/bbctl" job start --mode-file x.yaml
check "bbctl stage in with a bad --threads: exit 2" usage_error threads "$bin/bbctl stage in" "$bin/bbctl" stage in a b --threads 0
check "bb-modeselect eval without --corpus: exit 2" usage_error corpus "$bin/bb-modeselect eval" "$bin/bb-modeselect" eval
# A YAML file that asks for unbounded work (nested aliases, deep nesting) given to every program
# that reads YAML is refused at once (within a second), naming the file and the line.
tmp=$(mktemp -d /tmp/bb-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
seeds=$(dirname "$0")/fuzz/corpus/yaml
refused_at_once() {  # refused_at_once FILE PROGRAM ARGS...
  local file=$1 err rc; shift
  err=$(timeout 1 "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "$file:[0-9]*: .*\(nodes\|nest\)" <<<"$err" ||
    { echo "  exit $rc: $err" | head -3; return 1; }
}
for bomb in alias_bomb deep_nesting; do
  f=$tmp/$bomb.yaml
  cp "$seeds/$bomb.yaml" "$f"
  check "bbd --config $bomb.yaml: refused at once with file and line" \
    refused_at_once "$f" "$bin/bbd" --root "$tmp/r" --mount "$tmp/m" --config "$f"
  check "bbctl job start --mode-file $bomb.yaml: refused at once with file and line" \
    refused_at_once "$f" "$bin/bbctl" job start --name j --mode-file "$f"
  check "bb-controller --policy $bomb.yaml: refused at once with file and line" \
    refused_at_once "$f" "$bin/bb-controller" --policy "$f" --key-file "$tmp/k"
done
[ $fails -eq 0 ] && echo "cli: all passed" || { echo "cli: FAILED ($fails)"; exit 1; }
