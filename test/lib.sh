# Helpers shared by the shell tests (sourced after $bbctl and fails=0 are set). Failures are
# counted in $fails; each script's exit trap turns a non-zero count into a failing exit status.

# check "what" command...: runs the command and reports ok or FAIL.
check() {
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}

# on NODE command...: runs the command on emulated node NODE.
on() { local n=$1; shift; "$bbctl" exec --node "$n" -- "$@"; }

# cluster_test NAME: the scratch folder of a test on the emulated cluster ($tmp, with $root and
# $mnt for the cluster) and its exit trap: `cleanup_first` when the script defines one, the
# cluster down, the folder removed, then "NAME: all passed", or "NAME: FAILED" and a failing
# exit when the script failed or any check did.
cluster_test() {
  test_name=$1
  tmp=$(mktemp -d "/tmp/bb-$1-XXXXXX")
  root=$tmp/root
  mnt=$tmp/mnt
  fails=0
  trap cluster_test_finish EXIT
}
cluster_test_finish() {
  local rc=$?
  if declare -F cleanup_first >/dev/null; then cleanup_first || true; fi
  "$bbctl" emulate down >/dev/null 2>&1 || true
  rm -rf "$tmp"
  if [ $rc -eq 0 ] && [ "$fails" -eq 0 ]; then echo "$test_name: all passed"; else echo "$test_name: FAILED"; exit 1; fi
}
