#!/usr/bin/env bash
# gpu-llama.sh: wick's Llama generator against llama.cpp's llama-bench on the same GPU and the same GGUF files (the
# model-level anchor of issue 18). The kit ../shared/anchors/llama-bench must be copied to .anchors/llama-bench
# (ignored) and carried; its CUDA build takes ~5 minutes, so the steps split across calls on one warm machine:
#   scripts/gpu-llama.sh anchor-build          (llama.cpp built in /tmp/llama-kit-build-sm90)
#   scripts/gpu-llama.sh anchor wick           (the random-weight Llama-3.2-1B-shaped GGUFs, llama-bench, then wick)
#   scripts/gpu-llama.sh profile               (no llama.cpp build: the F16 GGUF, wick's decode rate, and each kernel
#                                               of three eager decode steps timed by ncu at the GPU's own clocks;
#                                               PROFILE_QUANT=Q4_0 adds that file, made by the kit's CPU-only
#                                               llama-quantize)
# wick: `wick generate FILE --warmup` with a 512-token prompt and 128 new tokens, batch 1, on cuda:0, for each file
# it can read (F16 today; the quantized ones once issue 13's matmul lands), in f16 and bf16.
# Environment: OUT (./gpu-out), BUILD_DIR (build-gpu; built by gpu-check.sh or here), CMAKE_ARGS.
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=${BUILD_DIR:-build-gpu}
WORK=/tmp/wick-llama-kit
steps=("$@")
source scripts/gpu-steps.sh
wick_steps_init anchor-build anchor wick
[ -d .anchors/llama-bench ] || { echo "gpu-llama.sh: copy ../shared/anchors/llama-bench to .anchors/ first" >&2; exit 2; }

if wanted anchor-build; then
    ONLY_BUILD=1 bash .anchors/llama-bench/run.sh "$OUT/llama" >"$OUT/anchor-build.txt" 2>&1 || exit 1
fi
if wanted anchor; then
    KEEP_WORK=1 WORK_DIR=$WORK bash .anchors/llama-bench/run.sh "$OUT/llama" >"$OUT/anchor.txt" 2>&1 || exit 1
    sed -n '/summary/,/step timings/p' "$OUT/anchor.txt"
fi
if wanted wick; then
    if [ ! -x "$BUILD/wick" ]; then
        cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DWICK_CUDA=ON ${CMAKE_ARGS:-} >"$OUT/build.log" 2>&1 &&
            cmake --build "$BUILD" -j "$(nproc)" --target wick wick_cli >>"$OUT/build.log" 2>&1 || exit 1
    fi
    prompt=$(seq 300 811 | paste -sd, -)
    for f in "$WORK"/model-*.gguf; do
        for dt in f16 bf16; do
            printf '%s %s: ' "$(basename "$f")" "$dt"
            timeout 200 "$BUILD/wick" generate "$f" --prompt-ids "$prompt" -n 128 --ids --device cuda:0 --dtype $dt --warmup \
                2>&1 >/dev/null | tail -1
        done
        # the same decode without the replayed graph (models/llama_graph.c), for the comparison
        printf '%s f16, WICK_LLAMA_GRAPH=0: ' "$(basename "$f")"
        WICK_LLAMA_GRAPH=0 timeout 200 "$BUILD/wick" generate "$f" --prompt-ids "$prompt" -n 128 --ids --device cuda:0 \
            --dtype f16 --warmup 2>&1 >/dev/null | tail -1
        # the linear layers' steps as separate ops instead of the fused kernels (ops/linear.c)
        printf '%s f16, WICK_LINEAR_FUSED=0: ' "$(basename "$f")"
        WICK_LINEAR_FUSED=0 timeout 200 "$BUILD/wick" generate "$f" --prompt-ids "$prompt" -n 128 --ids \
            --device cuda:0 --dtype f16 --warmup 2>&1 >/dev/null | tail -1
        case $f in *F16*) continue ;; esac
        # the one-row products with x unrounded (the vec kernel instead of the dot kernel: gpu/matmul_q.c)
        printf '%s f16, WICK_GPU_MATMUL_Q=f32: ' "$(basename "$f")"
        WICK_GPU_MATMUL_Q=f32 timeout 200 "$BUILD/wick" generate "$f" --prompt-ids "$prompt" -n 128 --ids --device cuda:0 \
            --dtype f16 --warmup 2>&1 >/dev/null | tail -1
    done
fi
if wanted profile; then
    [ -x "$BUILD/wick" ] || { echo "gpu-llama.sh profile: build $BUILD first" >&2; exit 1; }
    mkdir -p "$WORK"
    [ -f "$WORK/model-F16.gguf" ] || ${PYTHON:-python3} .anchors/llama-bench/make_gguf.py "$WORK/model-F16.gguf" >"$OUT/make_gguf.log" 2>&1 || exit 1
    files=("$WORK/model-F16.gguf")
    if [ -n "${PROFILE_QUANT:-}" ]; then # e.g. Q4_0: the kit's CPU-only build of llama-quantize (a minute), then the file
        q=${TMPDIR:-/tmp}/llama-kit-build-cpu
        [ -x $q/bin/llama-quantize ] || CPU_ONLY=1 ONLY_BUILD=1 BUILD_DIR=$q bash .anchors/llama-bench/run.sh \
            "$OUT/llama-cpu" >"$OUT/quantize-build.log" 2>&1 || exit 1
        f="$WORK/model-$PROFILE_QUANT.gguf"
        [ -f "$f" ] || $q/bin/llama-quantize "$WORK/model-F16.gguf" "$f" "$PROFILE_QUANT" >"$OUT/quantize.log" 2>&1 || exit 1
        files+=("$f")
    fi
    prompt=$(seq 300 811 | paste -sd, -)
    for f in "${files[@]}"; do
        name=$(basename "$f" .gguf)
        for env in WICK_LLAMA_GRAPH=1 WICK_LLAMA_GRAPH=0 WICK_GPU_OVERLAP=0 "WICK_GPU_OVERLAP=0 WICK_LLAMA_GRAPH=0"; do
            printf '%s bf16, %s: ' "$name" "$env"
            env $env timeout 200 "$BUILD/wick" generate "$f" --prompt-ids "$prompt" -n 128 --ids \
                --device cuda:0 --dtype bf16 --warmup 2>&1 >/dev/null | tail -1
        done
        # every kernel of the prefill and three eager decode steps, at the GPU's clocks with warm caches (one CSV row each)
        WICK_LLAMA_GRAPH=0 timeout 400 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
            "$BUILD/wick" generate "$f" --prompt-ids "$prompt" -n 4 --ids --device cuda:0 --dtype bf16 \
            >"$OUT/profile-$name.csv" 2>"$OUT/profile-$name.err"
        echo "ncu rc $?: $(grep -c gpu__time_duration "$OUT/profile-$name.csv") kernels in $OUT/profile-$name.csv"
    done
fi
