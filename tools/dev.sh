#!/usr/bin/env bash
# dcsim developer entry point: installs what is missing (Debian 12 packages), builds, runs or tests.
#
#   tools/dev.sh run [dcsim run options]  set up, build, run scenarios/default.json (summary on stdout)
#   tools/dev.sh test                     set up, build, run the test suite, then the unit tests under
#                                         AddressSanitizer + UndefinedBehaviorSanitizer, then the loader
#                                         fuzzer for DCSIM_FUZZ_SECONDS (default 60; tools/fuzz)
#   tools/dev.sh build                    set up and build only
#
# Package installation needs root (or sudo). Builds go to build/ (Release), build-asan/ and build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake g++ make pkg-config libsimgrid-dev libboost-graph-dev nlohmann-json3-dev catch2 libfmt-dev
          libcli11-dev help2man zlib1g-dev libzstd-dev)
# Only for the tests: the report is checked in headless chromium, the notebook runs under jupyter
# nbconvert (pandas, matplotlib, ipykernel), scenarios are validated against `dcsim schema` by jsonschema.
# The loader fuzzer (tools/fuzz) is built with clang's libFuzzer. tools/slurm-sweep is tested on a one-node
# Slurm cluster (tools/slurm-local): its daemons, munge, and sbatch/squeue/scontrol from slurm-client. The
# .deb is checked by lintian (tools/package-deb). Compressed outputs (--compress) are decoded by Debian's gzip
# and zstd tools and read by pandas, which needs python3-zstandard for .zst files.
TEST_PACKAGES=(chromium jupyter-nbconvert python3-ipykernel python3-pandas python3-matplotlib python3-jsonschema
               clang libclang-rt-14-dev slurmctld slurmd slurm-client munge lintian zstd python3-zstandard)
JOBS=$(nproc 2>/dev/null || echo 2)

say() { printf '== %s\n' "$*" >&2; }

install_missing() { # install_missing [PACKAGE...] (default: PACKAGES)
  local missing=() wanted=("$@")
  [ ${#wanted[@]} -eq 0 ] && wanted=("${PACKAGES[@]}")
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "need root to install: ${missing[*]}" >&2; exit 2; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() { # build DIR [cmake args...]  (TARGET=name builds one target)
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS" ${TARGET:+--target "$TARGET"}
}

cmd=${1:-run}
[ $# -gt 0 ] && shift
case "$cmd" in
  build)
    install_missing
    build build
    ;;
  run)
    install_missing
    build build
    say "running scenarios/default.json"
    ./build/tools/dcsim run scenarios/default.json --force "$@"
    ;;
  test)
    install_missing "${PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    build build
    say "test suite"
    (cd build && ctest -j "$JOBS" --output-on-failure --timeout 900)
    say "unit tests under AddressSanitizer + UndefinedBehaviorSanitizer"
    TARGET=dcsim_unit_tests build build-asan -DDCSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
    # SimGrid keeps process-lifetime allocations (its engine is never torn down): leak checks are off.
    (cd build-asan && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
       ctest -j "$JOBS" --output-on-failure --timeout 900 -R '^unit:')
    # (catch_discover_tests drops the space of the "unit: " prefix from most names: '^unit: ' matched 5
    # of the 108 unit tests; '^unit:' runs them all, ~40 s under the sanitizers.)
    say "fuzzing the scenario loader for ${DCSIM_FUZZ_SECONDS:-60} s (libFuzzer + ASan + UBSan)"
    tools/fuzz "${DCSIM_FUZZ_SECONDS:-60}"
    ;;
  *)
    echo "usage: tools/dev.sh run|test|build" >&2
    exit 2
    ;;
esac
