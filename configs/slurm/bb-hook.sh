#!/bin/sh
# The burst buffer's Slurm hooks: installed as bb-prolog, bb-epilog and bb-task-prolog (copies or
# links of this file); which step it runs follows from its name. The package installs them in
# /usr/libexec/bbfs/. Settings come from $BB_SLURM_ENV, else bb-slurm.env beside it, else
# /etc/bbfs/bb-slurm.env: see bb-slurm.env.example. slurm.conf:
#   Prolog=/usr/libexec/bbfs/bb-prolog
#   Epilog=/usr/libexec/bbfs/bb-epilog
#   TaskProlog=/usr/libexec/bbfs/bb-task-prolog
#   PrologFlags=Alloc        # the prolog runs on every node at allocation, before the script
# Jobs without #BB pay nothing with job_submit.lua's mark (BB_SUBMIT_MARK=on), else one call to
# Slurm per node, in the prolog (their script).
PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin${PATH:+:$PATH}
export PATH
here=$(dirname "$0")
env_file=${BB_SLURM_ENV:-$here/bb-slurm.env}
[ -r "$env_file" ] || env_file=/etc/bbfs/bb-slurm.env
[ -r "$env_file" ] && . "$env_file"
case $(basename "$0") in
  bb-prolog) step=prolog ;;
  bb-epilog) step=epilog ;;
  bb-task-prolog) step=task-env ;;
  *) echo "bb-hook.sh: install me as bb-prolog, bb-epilog or bb-task-prolog (not $(basename "$0"))" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086 # BB_BBD_ARGS is a list of flags
# Installed by the package in <prefix>/libexec/bbfs/, its programs are in <prefix>/bin.
if [ -z "${BB_BIN:-}" ]; then
  if [ -x "$here/../../bin/bbctl" ]; then BB_BIN=$here/../../bin; else BB_BIN=/usr/local/bin; fi
fi
exec "$BB_BIN/bbctl" bb "$step" --state-dir "${BB_STATE_DIR:-/var/lib/bb}" \
  --local-dir "${BB_LOCAL_DIR:-/tmp}" --mount-dir "${BB_MOUNT_DIR:-/tmp}" --port "${BB_PORT:-0}" \
  --deadline "${BB_DEADLINE:-120}" --stage-limit "${BB_STAGE_LIMIT:-auto}" \
  --stage-rate "${BB_STAGE_RATE:-100MiB}" --submit-mark "${BB_SUBMIT_MARK:-off}" -- ${BB_BBD_ARGS:-}
