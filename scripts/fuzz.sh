#!/usr/bin/env bash
# fuzz.sh [TARGET [SECONDS]]: builds the libFuzzer targets (fuzz/fuzz_*.c) with clang, ASan and UBSan into
# build-fuzz/, and runs each (or only TARGET: dlpack, gguf, npy, ops, safetensors, tokenizer) for SECONDS (default
# $FUZZ_SECONDS, else 60) on a scratch copy of its seed corpus (fuzz/corpus/<target>/). A crash fails the
# script; libFuzzer writes the input to fuzz/crashes/<target>/, to be fixed and kept as a regression (every
# build replays that directory: ctest fuzz_replay_<target>). Each run's last statistics (executions, coverage,
# corpus size) are printed and kept in build-fuzz/fuzz_<target>.log. Installs clang if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
wick_install_packages clang
only=${1:-}
seconds=${2:-${FUZZ_SECONDS:-60}}
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DWICK_CUDA=OFF -DWICK_HIP=OFF -DWICK_OPENMP=OFF \
    -DWICK_FUZZ=ON -DWICK_BUILD_TOOLS=OFF -DWICK_BUILD_EXAMPLES=OFF \
    -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -g" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    >build-fuzz.log 2>&1 || { cat build-fuzz.log; exit 1; }
formats=()
for src in fuzz/fuzz_*.c; do
    f=$(basename "$src" .c)
    [ -z "$only" ] || [ "${f#fuzz_}" = "$only" ] && formats+=("${f#fuzz_}")
done
if [ ${#formats[@]} -eq 0 ]; then
    echo "fuzz.sh: no target '$only' (fuzz/fuzz_<target>.c)" >&2
    exit 2
fi
targets=("${formats[@]/#/fuzz_}")
cmake --build build-fuzz --target "${targets[@]}" -j "$(nproc)" >>build-fuzz.log 2>&1 || { tail -50 build-fuzz.log; exit 1; }
status=0
for f in "${formats[@]}"; do
    scratch=$(mktemp -d)
    cp -r "fuzz/corpus/$f/." "$scratch/" 2>/dev/null || true
    mkdir -p "fuzz/crashes/$f"
    echo "== fuzz_$f: ${seconds}s"
    if ! ASAN_OPTIONS=detect_leaks=1 build-fuzz/fuzz/fuzz_"$f" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="fuzz/crashes/$f/" -print_final_stats=1 "$scratch" 2>"build-fuzz/fuzz_$f.log"; then
        tail -40 "build-fuzz/fuzz_$f.log"
        status=1
    else
        grep -E "^#[0-9]+.*(DONE|pulse)" "build-fuzz/fuzz_$f.log" | tail -1
        grep -E "stat::number_of_executed_units|Done" "build-fuzz/fuzz_$f.log" | tail -2
    fi
    rm -rf "$scratch"
done
exit $status
