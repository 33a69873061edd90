#!/usr/bin/env bash
# Installs the Debian 12 packages that building, testing and running the burst buffer need.
# With --bench, also what the benchmark scripts need for their charts and profiles. Idempotent; run as
# root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libfuse3-dev fuse3
  libleveldb-dev libsnappy-dev
  libucx-dev ucx-utils
  libboost-dev libboost-system-dev
  libyaml-cpp-dev libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev
  libcurl4-openssl-dev libxxhash-dev  # the LLM reasoner; staging checksums
  libsodium-dev  # the cluster key: HMAC challenge-response between daemons, bbctl and the controller
  catch2
  fio iproute2 procps psmisc util-linux tar diffutils python3 clang-format gdb
  python3-yaml python3-matplotlib  # the bench harness and its tests (test/bench_harness.sh)
  python3-prometheus-client  # test/metrics.sh parses the metrics with it
  slurm-wlm munge  # real Slurm on the emulated cluster (bbctl emulate up --slurm, test/slurm_jobs.sh)
  openmpi-bin libopenmpi-dev gfortran
  libhdf5-openmpi-dev python3-numpy python3-mpi4py  # the mode-selection corpus's HDF5 and Python jobs
)
if [ "${1:-}" = "--bench" ]; then
  packages+=(python3-matplotlib linux-perf)
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: needs root or sudo" >&2; exit 1; }
  as_root=(sudo)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
