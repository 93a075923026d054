#!/usr/bin/env bash
# gpu-attention.sh: fused attention on a machine with an NVIDIA GPU: build (build-gpu), the attention case table on
# the GPU three ways (the default per-shape choice, WICK_ATTENTION_KERNEL=cudnn: cuDNN's fused attention wherever it
# takes the case, =own: wick's kernels only), the ABI check of the cuDNN declarations, graph capture (test_streams),
# compute-sanitizer memcheck over the cuDNN path, and bench/attention_bench.py against PyTorch's SDPA, by default
# and with wick's own kernels against PyTorch's flash backend. Logs under ${OUT:-./gpu-out}: attention.log,
# attention-summary.md.
#
# Usage: scripts/gpu-attention.sh [STEP...]   steps: build check test sanitize bench (default: all)
# Environment: BUILD_DIR (build-gpu), PYTHON, CMAKE_ARGS (e.g. -DWICK_CUDA_ARCHS=90 -DWICK_HIP=OFF), DEVICE (cuda:0).
set -u
cd "$(dirname "$0")/.." || exit 2
steps=("$@")
source scripts/gpu-steps.sh
wick_steps_init build check test sanitize bench
wick_gpu_run attention "Attention"

if wanted build; then
    wick_gpu_build
fi
if wanted check; then
    step check_default 300 "$BUILD/wick" check --device "$DEVICE" --op attention,kv_append --quiet
    step check_cudnn 300 env WICK_ATTENTION_KERNEL=cudnn "$BUILD/wick" check --device "$DEVICE" --op attention --quiet
    step check_own 300 env WICK_ATTENTION_KERNEL=own "$BUILD/wick" check --device "$DEVICE" --op attention --quiet
fi
if wanted test; then
    step ctest 300 ctest --test-dir "$BUILD" --output-on-failure -R 'test_abi_cuda_libs|attention|test_streams'
fi
if wanted sanitize; then
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    step memcheck_cudnn 400 "$san" --tool memcheck --print-limit 50 --error-exitcode 86 \
        env WICK_ATTENTION_KERNEL=cudnn "$BUILD/wick" check --device "$DEVICE" --op attention --quiet
fi
if wanted bench; then
    step bench_default 300 env LIBWICK="$BUILD/libwick.so" PYTHONPATH=python "$PYTHON" bench/attention_bench.py \
        --device "$DEVICE" --json "$OUT/attention.json"
    step bench_own 300 env WICK_ATTENTION_KERNEL=own LIBWICK="$BUILD/libwick.so" PYTHONPATH=python "$PYTHON" \
        bench/attention_bench.py --device "$DEVICE" --prefill --torch-backend flash --json "$OUT/attention-own.json"
    { echo; echo '```'; grep -E "^(# torch|case|prefill|decode|paged)|TFLOP|TB/s" "$LOG" | head -60; echo '```'; } >>"$SUMMARY"
fi
cat "$SUMMARY"
exit $failed
