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
[ $fails -eq 0 ] && echo "cli: all passed" || { echo "cli: FAILED ($fails)"; exit 1; }
