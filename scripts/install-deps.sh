#!/usr/bin/env bash
# Installs every Debian package chipless needs, only when something is missing.
# Idempotent and quick when all is present; uses sudo only when not root.
set -euo pipefail

PACKAGES=(
  # build
  build-essential cmake ninja-build ccache pkg-config git
  # make test SAN=1 and the libFuzzer harnesses: clang 19 with its sanitizer runtimes
  clang-19 libclang-rt-19-dev
  # simulation
  libsystemc-dev
  # compiler (MLIR/LLVM 19: FileCheck and lit come with llvm-19-tools)
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  # support libraries
  libboost-dev libspdlog-dev libfmt-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # python and pytorch entry points
  python3 python3-dev pybind11-dev python3-numpy python3-pytest python3-torch libtorch-dev
  python3-torchvision
  # chipless study and conformance: YAML, plots, Dask clusters; pandas and junitparser read
  # the tables and JUnit files in the tests as their users' tools would
  python3-yaml python3-matplotlib python3-distributed python3-pandas python3-junitparser
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
