#!/usr/bin/env bash
# Configures and builds into build/ (programs in build/bin, tests in build/tests).
# BB_SANITIZE=1 builds with ASan/UBSan into build-asan/ instead.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build
flags=()
if [ "${BB_SANITIZE:-0}" = 1 ]; then dir=build-asan; flags+=(-DBB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug); fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
