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
declare -A usage=([bbd]="bbd" [bbctl]="bbctl stats" [bb-controller]="bb-controller"
                  [bb-modeselect]="bb-modeselect" [bb-replay]="bb-replay")
for p in bbd bbctl bb-controller bb-modeselect bb-replay; do
  check "$p --version prints $version" sh -c "'$bin/$p' --version | grep -qx '$version'"
  # shellcheck disable=SC2086
  check "$p --no-such-flag exits 2 naming it, with the usage line" \
    usage_error no-such-flag "${usage[$p]}" "$bin/$p" ${args[$p]} --no-such-flag
done
check "bbctl job start without --name: exit 2, the subcommand's usage" \
  usage_error name "bbctl job start" "$bin/bbctl" job start --mode-file x.yaml
check "bbctl stage in with a bad --threads: exit 2" usage_error threads "bbctl stage in" "$bin/bbctl" stage in a b --threads 0
check "bb-modeselect eval without --corpus: exit 2" usage_error corpus "bb-modeselect eval" "$bin/bb-modeselect" eval
# Help that reads like a Unix tool's: every program's and every bbctl command's --help as
# recorded in test/help/ (regenerate with `cli.sh BIN VERSION --update-help` after a change and
# read the difference), no line past 100 columns, no "see ... below" (help has no below).
golden=$(dirname "$0")/help
update=${3:-}
help_of() {  # help_of NAME PROGRAM ARGS...: the help text, into $golden/NAME.txt when updating
  local name=$1; shift
  local out
  out=$("$@" --help 2>&1)
  if [ "$update" = --update-help ]; then printf '%s\n' "$out" >"$golden/$name.txt"; return 0; fi
  diff <(printf '%s\n' "$out") "$golden/$name.txt" >/dev/null || { diff <(printf '%s\n' "$out") "$golden/$name.txt" | head -8; return 1; }
  python3 -c 'import sys; bad=[l for l in sys.stdin.read().splitlines() if len(l) > 100 or " below" in l]; bad and print("\n".join(bad)[:400]); sys.exit(1 if bad else 0)' <<<"$out"
}
for p in bbd bbctl bb-controller bb-modeselect bb-replay; do
  check "$p --help is as recorded, within 100 columns" help_of "$p" "$bin/$p"
done
for c in "emulate" "job" "stage" "qos" "key" "bb" "job run" "job start" "stats" "start" "emulate up"; do
  # shellcheck disable=SC2086
  check "bbctl $c --help is as recorded, within 100 columns" help_of "bbctl_${c// /_}" "$bin/bbctl" $c
done
check "bbd --help gives each field's kind and default" \
  sh -c "'$bin/bbd' --help | grep -q -- '--chunk-size SIZE .*' && '$bin/bbd' --help | grep -q '(default: 512KiB)'"
unknown_command() {  # unknown_command WORD PROGRAM ARGS...
  local word=$1; shift
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] && grep -q "unknown command '$word' (commands: .*emulate" <<<"$err" || { echo "  exit $rc: $err" | head -3; return 1; }
}
check "bbctl frobnicate names the word and the commands there are" unknown_command frobnicate "$bin/bbctl" frobnicate
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
