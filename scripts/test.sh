#!/usr/bin/env bash
# test.sh: installs missing Debian packages and (scripts/py-env.sh) the PyPI packages of the interop tests
# into .venv/, builds wick with its tests, and runs the ctest suite.
# BUILD_DIR (default build), BUILD_TYPE (default Release) and WICK_CMAKE_ARGS (e.g. -DWICK_SANITIZE=ON)
# choose the build; ctest's output is also kept in $BUILD_DIR/ctest.log.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh

build_dir=${BUILD_DIR:-build}
read -r -a cmake_args <<<"${WICK_CMAKE_ARGS:-}"

wick_install_packages
# The interop tests' Python packages (numpy, safetensors, gguf, ml_dtypes) in .venv/, before configuring.
scripts/py-env.sh
wick_build "$build_dir" "${BUILD_TYPE:-Release}" "${cmake_args[@]}"
cd "$build_dir"
ctest --output-on-failure --timeout 1500 2>&1 | tee ctest.log
