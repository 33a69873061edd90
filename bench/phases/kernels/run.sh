#!/bin/bash
# Job script of the kernel workloads: `run.sh KERNEL ARGS...` runs bench/phases/kernels/kernels on
# every task with the workspace as its folder; rank 0 prints the BB_RESULT lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel=$1; shift
srun "$here/kernels" "$kernel" "$BB_MOUNT" "$@"
