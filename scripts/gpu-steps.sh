# gpu-steps.sh: sourced by the GPU machine's scripts (gpu-comm.sh, gpu-models.sh): the steps the caller asked for,
# and a step runner that logs each command into $LOG and notes pass/fail and its time in $SUMMARY's table.
# Before sourcing: set steps=(...) to the requested steps (or empty for the script's defaults, given as arguments).

# wick_steps_init DEFAULT...: the requested steps, or these defaults.
wick_steps_init() {
    [ ${#steps[@]} -eq 0 ] && steps=("$@")
    failed=0
}

# wanted STEP: whether STEP was asked for.
wanted() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

# step NAME TIMEOUT COMMAND...: runs COMMAND into the log, notes pass/fail in the summary.
step() {
    local name=$1 lim=$2 t0 rc
    shift 2
    t0=$(date +%s)
    echo "== $(date +%T) $name: $*" >>"$LOG"
    timeout -k 10 "$lim" "$@" >>"$LOG" 2>&1
    rc=$?
    echo "| $name | $([ $rc -eq 0 ] && echo pass || echo "FAIL (rc $rc)") | $(($(date +%s) - t0)) s |" >>"$SUMMARY"
    [ $rc -eq 0 ] || failed=1
    return $rc
}

# wick_gpu_run NAME TITLE: what the GPU machine's scripts set up first: OUT (made, absolute), BUILD, DEVICE, the CUDA
# tools on PATH, PYTHON (the machine's PyTorch venv when it has one), LOG=$OUT/NAME.log, and SUMMARY=$OUT/NAME-summary.md
# begun with "# TITLE on <GPU>", the commit and the steps table's header.
wick_gpu_run() {
    OUT=${OUT:-./gpu-out}
    mkdir -p "$OUT"
    OUT=$(cd "$OUT" && pwd)
    BUILD=${BUILD_DIR:-build-gpu}
    DEVICE=${DEVICE:-cuda:0}
    LOG=$OUT/$1.log
    SUMMARY=$OUT/$1-summary.md
    [ -d /usr/local/cuda/bin ] && PATH=/usr/local/cuda/bin:$PATH
    if [ -z "${PYTHON:-}" ]; then
        if [ -x /opt/torch/.venv/bin/python3 ]; then PYTHON=/opt/torch/.venv/bin/python3; else PYTHON=python3; fi
    fi
    export PYTHONUNBUFFERED=1
    {
        echo "# $2 on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
        echo
        echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo "${WICK_COMMIT:-?}"), $(date -u +%F)"
        echo
        echo "| step | result | time |"
        echo "|---|---|---|"
    } >"$SUMMARY"
}

# wick_gpu_build: the Release build with the CUDA kernels in $BUILD (CMAKE_ARGS added), as two steps.
wick_gpu_build() {
    step configure 120 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DWICK_CUDA=ON ${CMAKE_ARGS:-}
    step build 420 cmake --build "$BUILD" -j "$(nproc)"
}
