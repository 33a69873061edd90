#!/usr/bin/env bash
# Installs the Debian 12 packages the burst buffer needs, by use:
#   install-deps.sh --runtime   what the installed programs need on a compute node (the .deb's
#                               dependencies): FUSE, LevelDB, UCX and the libraries they link
#   install-deps.sh --build     what building it and its package needs
#   install-deps.sh             building and every test (Slurm, munge, MPI, fio, the corpus's
#                               compilers): what tools/test.sh and CI install
#   --bench (with any)          also what the benchmark scripts need for charts and profiles
# Idempotent; run as root (or with sudo available).
set -euo pipefail

runtime=(
  fuse3 libfuse3-3 libleveldb1d libsnappy1v5 libucx0 libyaml-cpp0.7 libfmt9 libspdlog1.10
  libcurl4 libxxhash0 libsodium23
)
build=(
  build-essential cmake pkg-config git
  libfuse3-dev fuse3
  libleveldb-dev libsnappy-dev
  libucx-dev ucx-utils
  libboost-dev libboost-system-dev
  libyaml-cpp-dev libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev
  libcurl4-openssl-dev libxxhash-dev  # the LLM reasoner; staging checksums
  libsodium-dev  # the cluster key: HMAC challenge-response between daemons, bbctl and the controller
  catch2
  help2man dpkg-dev file  # man pages from --help; the .deb (cpack) and its shared-library dependencies
)
test=(
  fio iproute2 procps psmisc util-linux tar diffutils python3 clang-format gdb
  python3-yaml python3-matplotlib  # the bench harness, its charts and their tests
  python3-prometheus-client  # test/metrics.sh parses the metrics with it
  slurm-wlm munge  # real Slurm on the emulated cluster (bbctl emulate up --slurm, test/slurm_jobs.sh)
  openmpi-bin libopenmpi-dev gfortran
  libhdf5-openmpi-dev python3-numpy python3-mpi4py  # the mode-selection corpus's HDF5 and Python jobs
)
packages=("${build[@]}" "${test[@]}")
bench=0
for arg in "$@"; do
  case $arg in
    --runtime) packages=("${runtime[@]}") ;;
    --build) packages=("${build[@]}") ;;
    --bench) bench=1 ;;
    *) echo "install-deps: unknown argument '$arg' (--runtime, --build, --bench)" >&2; exit 2 ;;
  esac
done
if [ $bench = 1 ]; then
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
