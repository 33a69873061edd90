# Helpers shared by the shell tests (sourced after $bbctl and fails=0 are set). Failures are
# counted in $fails; each script's exit trap turns a non-zero count into a failing exit status.

# check "what" command...: runs the command and reports ok or FAIL.
check() {
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}

# on NODE command...: runs the command on emulated node NODE.
on() { local n=$1; shift; "$bbctl" exec --node "$n" -- "$@"; }
