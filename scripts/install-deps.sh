#!/usr/bin/env bash
# Installs what tilec needs to build and test, from Debian's packages only:
# LLVM/MLIR 22 (static libraries included), lit/FileCheck, CMake, Ninja, a C++
# compiler, lld, GoogleTest, ccache, and pytest for the Python package's
# tests. Safe to run repeatedly: it installs nothing when everything is
# already there.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libzstd-dev
  cmake ninja-build g++ lld-22 libgtest-dev ccache python3 python3-pytest
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
