#!/usr/bin/env bash
# gpu-streams.sh: streams, events, copies and graphs on a machine with an NVIDIA GPU: build (build-gpu), the stream
# tests (tests/streams: ordering, events, async copies, 100 graph replays against eager, capture errors, graph
# memory, 70 split decode attentions captured against eager), the whole parity table on the GPU (every op now
# queues on the thread's current stream), compute-sanitizer memcheck over the stream tests, and
# bench/torch_streams.py (wick's host cost per op, per op in a replayed graph and copy bandwidth, next to PyTorch's).
# Logs under ${OUT:-./gpu-out}: streams.log, streams-summary.md.
#
# Usage: scripts/gpu-streams.sh [STEP...]   steps: build test check sanitize bench (default: all)
# Environment: BUILD_DIR (build-gpu), PYTHON, CMAKE_ARGS (e.g. -DWICK_CUDA_ARCHS=90 -DWICK_HIP=OFF), DEVICE (cuda:0).
set -u
cd "$(dirname "$0")/.." || exit 2
steps=("$@")
source scripts/gpu-steps.sh
wick_steps_init build test check sanitize bench
wick_gpu_run streams "Streams and graphs"

if wanted build; then
    wick_gpu_build
fi
if wanted test; then
    step test_streams 300 "$BUILD/tests/test_streams" "$DEVICE"
    grep -E "replays|without the wait|checks" "$LOG" | tail -5 | sed 's/^/    /' >>"$SUMMARY"
    step ctest_gpu 300 ctest --test-dir "$BUILD" --output-on-failure -R 'test_gpu$|test_parity_gpu_conv|dlpack|threads'
fi
if wanted check; then
    step check 200 "$BUILD/wick" check --device "$DEVICE" --quiet
fi
if wanted sanitize; then
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    step memcheck_streams 300 "$san" --tool memcheck --print-limit 50 --error-exitcode 86 \
        env WICK_STREAMS_QUICK=1 WICK_STREAMS_NO_GRAPH_ATTENTION=1 "$BUILD/tests/test_streams" "$DEVICE"
fi
if wanted bench; then
    step torch_streams 200 "$PYTHON" bench/torch_streams.py --wick "$BUILD/stream_bench" --device "$DEVICE" \
        --json "$OUT/streams.json"
    { echo; echo '```'; sed -n '/^case /,/^ratio/p' "$LOG"; echo '```'; } >>"$SUMMARY"
fi
cat "$SUMMARY"
exit $failed
