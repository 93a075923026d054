#!/usr/bin/env bash
# gpu-comm.sh: the communicators' verification on a machine with NVIDIA GPUs (one or several): build
# (build-gpu), the collective tests on CUDA (every collective, one process driving every GPU, and one process a
# GPU with a peer that dies), the tensor-parallel tests and example, the bandwidth and tensor-parallel benchmarks
# side by side with PyTorch + NCCL, and compute-sanitizer memcheck over the two-rank tests (API errors that
# NCCL gets and handles itself, e.g. peer access already enabled, are not reported). Logs under
# ${OUT:-./gpu-out}: comm.log (everything), comm-summary.md (the tables).
#
# Usage: scripts/gpu-comm.sh [STEP...]   steps: build test bench sanitize (default: all)
# Environment: BUILD_DIR (build-gpu), PYTHON (/opt/torch/.venv/bin/python3 or python3), CMAKE_ARGS (more
# configure arguments, e.g. -DWICK_CUDA_ARCHS=90 -DWICK_HIP=OFF), WICK_NCCL_LIBRARY (else found below).
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=${BUILD_DIR:-build-gpu}
LOG=$OUT/comm.log
SUMMARY=$OUT/comm-summary.md
[ -d /usr/local/cuda/bin ] && PATH=/usr/local/cuda/bin:$PATH
if [ -z "${PYTHON:-}" ]; then
    if [ -x /opt/torch/.venv/bin/python3 ]; then PYTHON=/opt/torch/.venv/bin/python3; else PYTHON=python3; fi
fi
# NVLink multicast stays off on shared hosts (the device kit's rule), in every program started from here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1

steps=("$@")
source scripts/gpu-steps.sh
wick_steps_init build test bench sanitize

# Where the loader cannot find libnccl.so.2, use the toolkit's or PyTorch's copy.
if [ -z "${WICK_NCCL_LIBRARY:-}" ] && ! ldconfig -p | grep -q 'libnccl\.so\.2'; then
    for c in /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2 \
        $("$PYTHON" -c 'import os, nvidia.nccl as n; print(os.path.join(list(n.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null); do
        if [ -e "$c" ]; then export WICK_NCCL_LIBRARY=$c; break; fi
    done
fi

{
    echo "# Communicators on $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
    echo
    echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo "${WICK_COMMIT:-?}"), $(date -u +%F), NCCL library: ${WICK_NCCL_LIBRARY:-found by the loader}"
    echo
    echo "| step | result | time |"
    echo "|---|---|---|"
} >"$SUMMARY"
nvidia-smi topo -m >>"$LOG" 2>&1

if wanted build; then
    step configure 120 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DWICK_CUDA=ON ${CMAKE_ARGS:-}
    step build 300 cmake --build "$BUILD" -j "$(nproc)"
fi
if wanted test; then
    step devices 60 "$BUILD/wick" devices
    step ctest 400 ctest --test-dir "$BUILD" --output-on-failure -R 'comm|tp|nccl'
    step example_tp_mlp_cuda 120 "$BUILD/example_tp_mlp" cuda
fi
if wanted bench; then
    step comm_bench 200 sh -c "'$BUILD/comm_bench' >'$OUT/comm-wick.jsonl'"
    step comm_bench_timeout 200 sh -c "'$BUILD/comm_bench' --timeout 300 >'$OUT/comm-wick-timeout.jsonl'"
    step torch_comm 300 sh -c "'$PYTHON' bench/torch_comm.py >'$OUT/comm-torch.jsonl'"
    if [ -x "$BUILD/tp_bench" ]; then
        step tp_bench 300 sh -c "'$BUILD/tp_bench' --iters 20 >'$OUT/tp-wick.jsonl'"
        # Per chunk count (the copy engines' gather of ranks on their own threads), then the exchange through the
        # library (one chunk, and 4 on its side stream): what the copy engines and the chunks gain.
        step tp_bench_chunks 400 sh -c "{ for c in 1 2 4 8; do echo chunks \$c; WICK_TP_CHUNKS=\$c '$BUILD/tp_bench' --iters 20; done; for c in 1 4; do echo library chunks \$c; WICK_TP_PEER_COPY=0 WICK_TP_CHUNKS=\$c '$BUILD/tp_bench' --iters 20; done; } >'$OUT/tp-chunks.txt' 2>&1"
        step torch_tp 300 sh -c "'$PYTHON' bench/torch_tp.py >'$OUT/tp-torch.jsonl'"
    fi
    {
        echo
        echo "Communicators without a timeout (blocking, the fast path):"
        echo
        "$PYTHON" bench/torch_comm.py --compare "$OUT/comm-wick.jsonl" "$OUT/comm-torch.jsonl"
        echo
        echo "With a timeout of 300 s (non-blocking, every wait bounded):"
        echo
        "$PYTHON" bench/torch_comm.py --compare "$OUT/comm-wick-timeout.jsonl" "$OUT/comm-torch.jsonl"
        echo
        [ -f "$OUT/tp-wick.jsonl" ] && "$PYTHON" bench/torch_tp.py --compare "$OUT/tp-wick.jsonl" "$OUT/tp-torch.jsonl"
    } >>"$SUMMARY" 2>>"$LOG"
fi
if wanted sanitize; then
    for t in test_comm test_tp; do
        [ -x "$BUILD/tests/$t" ] || continue
        step "memcheck $t (cuda)" 240 env WICK_COMM_BACKEND=cuda WICK_TP_CHUNKS=4 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
            --target-processes all "$BUILD/tests/$t"
    done
fi
cat "$SUMMARY"
exit $failed
