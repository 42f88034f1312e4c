#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the whole test suite through
# ctest: the lit/FileCheck tests, the GoogleTest unit tests and the no-crash
# mutation tests of the front end and of tile-opt. Tests labelled `gpu` skip themselves, with a
# message, where no GPU driver is present.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
./scripts/build.sh
build_dir="${TILEC_BUILD_DIR:-build}"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" "$@"
