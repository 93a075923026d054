#!/usr/bin/env bash
# test_install.sh: `cmake --install` into a temporary prefix, then tests/test_install/consumer.c built
# outside the tree through pkg-config (shared, and fully static with --static) and through
# find_package(wick) (wick::wick and wick::wick_static), each one run.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR WORK_DIR CC [SANITIZE_FLAGS]
set -euo pipefail
build=$1 src=$2 work=$3 cc=$4 flags=${5:-}
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

pc=$(find "$prefix" -name wick.pc)
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH=$(dirname "$pc")
echo "installed: $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"
[ "$(pkg-config --variable=prefix wick)" = "$prefix" ] || { echo "wick.pc prefix is not $prefix"; exit 1; }
[ "$(pkg-config --modversion wick)" = "$(grep -o 'VERSION_STRING "[^"]*' "$src/include/wick.h" | cut -d'"' -f2)" ]

cd "$work"
# shellcheck disable=SC2046,SC2086  # pkg-config output and the flags are meant to be split
$cc $flags "$src/tests/test_install/consumer.c" $(pkg-config --cflags --libs wick) -Wl,-rpath,"$libdir" \
    -o consumer_pc
./consumer_pc
# (ldd's output is captured first: grep -q closing the pipe early would fail the pipeline under pipefail)
deps=$(ldd ./consumer_pc)
[[ $deps == *"$libdir/libwick.so"* ]] || { echo "consumer_pc does not use the installed libwick.so"; exit 1; }

if [ -z "$flags" ]; then # sanitizers cannot link fully static
    # shellcheck disable=SC2046
    $cc "$src/tests/test_install/consumer.c" $(pkg-config --static --cflags --libs wick) -static \
        -o consumer_pc_static 2>static-link.log || { cat static-link.log; exit 1; }
    ./consumer_pc_static
fi

cmake -S "$src/tests/test_install" -B cmake-consumer -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_BUILD_TYPE=Release >cmake-consumer.log
cmake --build cmake-consumer >>cmake-consumer.log
./cmake-consumer/consumer_shared
./cmake-consumer/consumer_static
deps=$(ldd ./cmake-consumer/consumer_static)
if [[ $deps == *libwick* ]]; then
    echo "consumer_static links libwick.so"
    exit 1
fi
echo "install: pkg-config and find_package(wick) consumers OK"
