#!/usr/bin/env bash
# What an operator meets with bbctl on a host where burst buffers run (root, /dev/fuse):
#   - bbctl stop returns only when every daemon has exited and unmounted: a start on the same
#     root right after it works;
#   - every read command works for a user other than the daemons' owner, or fails saying why
#     (never an abort);
#   - without --root, a command talks to the one burst buffer running here, and when none or
#     several run it says so and names them.
# Always stops what it started.
set -uo pipefail
bin=$(cd "${1:?usage: operator.sh BUILD_BIN_DIR}" && pwd)
bbctl=$bin/bbctl
source "$(dirname "$0")/lib.sh"
fails=0
tmp=$(mktemp -d /tmp/bb-operator-XXXXXX)
chmod 755 "$tmp"
lone=
finish() {
  "$bbctl" stop --root "$tmp/a" >/dev/null 2>&1
  [ -n "$lone" ] && kill "$(cat "$tmp/lone/bbd.lock" 2>/dev/null)" 2>/dev/null
  sleep 0.5
  for m in "$tmp"/am/node* "$tmp/lm"; do mountpoint -q "$m" 2>/dev/null && umount -l "$m"; done
  rm -rf "$tmp"
  if [ "$fails" -eq 0 ]; then echo "operator: all passed"; else echo "operator: FAILED ($fails)"; exit 1; fi
}
trap finish EXIT
"$bbctl" emulate status >/dev/null 2>&1 && { echo "operator: an emulated cluster is up; this test needs none"; fails=1; exit 1; }
# as_nobody CMD...: runs bbctl as nobody; prints its exit status and output.
as_nobody() { (cd / && runuser -u nobody -- "$bbctl" "$@" 2>&1; echo "exit $?"); }

# ---- bbctl stop, then start at once ----
"$bbctl" start --nodes 2 --root "$tmp/a" --mount "$tmp/am" --base-port 7420 >/dev/null
for round in 1 2 3; do
  "$bbctl" stop --root "$tmp/a" >/dev/null
  left=$(pgrep -fc -- "--root $tmp/a/node" || true)
  mounted=$(grep -c " $tmp/am/node" /proc/self/mountinfo || true)
  check "round $round: bbctl stop returned with no daemon left ($left) and no mount ($mounted)" \
    test "$left" = 0 -a "$mounted" = 0
  check "round $round: bbctl start on the same root right after it starts" \
    "$bbctl" start --nodes 2 --root "$tmp/a" --mount "$tmp/am" --base-port 7420
done

# ---- another user ----
# has TEXT PATTERN: whether TEXT holds a line matching the extended regular expression.
has() { grep -qE -- "$2" <<<"$1"; }
out=$(as_nobody status --root "$tmp/a")
up_both() { has "$out" 'exit 0' && [ "$(grep -c ' up ' <<<"$out")" = 2 ]; }
check "bbctl status as nobody sees both nodes up ($(echo "$out" | tr '\n' ' '))" up_both
for cmd in "stats --root $tmp/a" "job list --root $tmp/a" "stats" "job list" "stats --prometheus"; do
  # shellcheck disable=SC2086
  out=$(as_nobody $cmd)
  refused() { [ "$(tail -n 1 <<<"$out")" = "exit 1" ] && head -n 1 <<<"$out" | grep -qiE 'permission|owner'; }
  check "bbctl $cmd as nobody fails saying why, without an abort ($(head -n 1 <<<"$out"))" refused
done

# ---- without --root ----
check "with one burst buffer running, bbctl job list talks to it" "$bbctl" job list
mkdir -p "$tmp/lm"
"$bin/bbd" --root "$tmp/lone" --mount "$tmp/lm" >/dev/null && lone=1
out=$("$bbctl" job list 2>&1); rc=$?
names_both() { [ "$rc" != 0 ] && has "$out" "$tmp/a \\(a cluster of 2 nodes" && has "$out" "$tmp/lone \\(one daemon"; }
check "with two running, bbctl job list refuses and names both ($out)" names_both
out=$("$bbctl" stats --json 2>&1); rc=$?
refuses() { [ "$rc" != 0 ] && has "$out" 'name one with --root'; }
check "so does bbctl stats" refuses
check "with --root it talks to the one named" "$bbctl" job list --root "$tmp/lone"
out=$(as_nobody stats --root "$tmp/lone")
refused() { [ "$(tail -n 1 <<<"$out")" = "exit 1" ] && head -n 1 <<<"$out" | grep -qiE 'permission|owner'; }
check "bbctl stats of a lone daemon's root as nobody fails saying why ($(head -n 1 <<<"$out"))" refused
kill "$(cat "$tmp/lone/bbd.lock")"; lone=
for _ in $(seq 100); do mountpoint -q "$tmp/lm" || break; sleep 0.1; done
"$bbctl" stop --root "$tmp/a" >/dev/null
out=$("$bbctl" job list 2>&1); rc=$?
none() { [ "$rc" != 0 ] && has "$out" 'no burst buffer runs on this host'; }
check "with none running, bbctl job list says so ($out)" none
