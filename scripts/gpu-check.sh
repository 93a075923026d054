#!/usr/bin/env bash
# gpu-check.sh: the whole GPU verification on a machine with an NVIDIA GPU: build (build-gpu, WICK_CUDA=ON),
# ctest, `wick check` on cuda:0, compute-sanitizer memcheck + racecheck, `wick bench`, bench/torch_compare.py,
# then a markdown summary ($OUT/summary.md, printed last). Logs go under ${OUT:-./gpu-out} in 7 files.
#
# Usage: scripts/gpu-check.sh [STEP...]    steps: build test check sanitize bench torch (default: all)
# Every step runs under its own timeout, cut further so that the whole run ends within GPU_CHECK_BUDGET
# seconds (default 530); a failed step does not stop the later ones. Exit status: 0 when every step run
# passed, else 1.
# Environment: DEVICE (cuda:0), BUILD_DIR (build-gpu), PYTHON (/opt/torch/.venv/bin/python3 or python3),
# JOBS (nproc), MEMCHECK_OPS / RACECHECK_OPS / WAVE64_RACE_OPS (comma-separated `wick check` ops; memcheck
# default: all; the last under WICK_GPU_LOGICAL_WARP=64),
# WICK_COMMIT (the commit, where the copy has no .git), CMAKE_ARGS (more configure arguments),
# TORCH_COMPARE_ARGS (more torch_compare.py arguments, e.g. --op softmax,layer_norm or --quick).
set -u
cd "$(dirname "$0")/.." || exit 2

OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
DEVICE=${DEVICE:-cuda:0}
BUILD=${BUILD_DIR:-build-gpu}
JOBS=${JOBS:-$(nproc)}
BUDGET=${GPU_CHECK_BUDGET:-530}
# Ops whose kernels share memory between threads (block reductions, tiled transposes, sorts): what racecheck,
# which only looks at shared memory and is slow, is worth running on.
race_default=contiguous,reduce_sum,reduce_max,argmax,softmax,log_softmax,layer_norm,rms_norm,add_rms_norm,argsort,sort,index_add
RACECHECK_OPS=${RACECHECK_OPS:-$race_default}
WAVE64_RACE_OPS=${WAVE64_RACE_OPS:-reduce_sum,argmax,softmax,layer_norm}
MEMCHECK_OPS=${MEMCHECK_OPS:-}
[ -d /usr/local/cuda/bin ] && PATH=/usr/local/cuda/bin:$PATH
if [ -z "${PYTHON:-}" ]; then
    if [ -x /opt/torch/.venv/bin/python3 ]; then PYTHON=/opt/torch/.venv/bin/python3; else PYTHON=python3; fi
fi
export PYTHONUNBUFFERED=1

ALL_STEPS=(build test check sanitize bench torch)
# Longest each step may take (s), and what is kept back for each step still to come.
declare -A CAP=([build]=240 [test]=150 [check]=90 [sanitize]=240 [bench]=120 [torch]=180)
declare -A FLOOR=([build]=60 [test]=30 [check]=20 [sanitize]=30 [bench]=45 [torch]=60)
declare -A RC=() SECS=() NOTE=()

steps=()
for a in "$@"; do
    case $a in
    build | test | check | sanitize | bench | torch) steps+=("$a") ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "gpu-check.sh: unknown step '$a' (steps: ${ALL_STEPS[*]})" >&2; exit 2 ;;
    esac
done
[ ${#steps[@]} -eq 0 ] && steps=("${ALL_STEPS[@]}")
wanted() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

START=$(date +%s)
# step_timeout STEP [CAP]: its cap (or CAP), cut to what the budget leaves after keeping the floors of the
# steps after it.
step_timeout() {
    local step=$1 cap=${2:-${CAP[$1]}} later=0 after=0 s t
    for s in "${ALL_STEPS[@]}"; do
        if [ $after = 1 ] && wanted "$s"; then later=$((later + FLOOR[$s])); fi
        [ "$s" = "$step" ] && after=1
    done
    t=$((BUDGET - ($(date +%s) - START) - later))
    [ $t -gt "$cap" ] && t=$cap
    [ "$t" -lt 10 ] && t=10
    echo "$t"
}

# run_step STEP LOG COMMAND...: runs COMMAND under the step's timeout (STEP_CAP, where set, for its cap),
# appending to LOG; records rc and time.
run_step() {
    local step=$1 log=$2 t0 rc lim
    shift 2
    lim=$(step_timeout "$step" "${STEP_CAP:-}")
    t0=$(date +%s)
    echo "== $(date +%T) $step: $* (timeout ${lim}s)" | tee -a "$log"
    timeout -k 10 "$lim" "$@" >>"$log" 2>&1
    rc=$?
    SECS[$step]=$(( ${SECS[$step]:-0} + $(date +%s) - t0 ))
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && NOTE[$step]="${NOTE[$step]:-}timed out after ${lim}s. "
    # A step of several commands fails with the first failing one.
    if [ "${RC[$step]:-0}" -eq 0 ]; then RC[$step]=$rc; fi
    echo "== $(date +%T) $step: exit $rc after $(( $(date +%s) - t0 ))s" | tee -a "$log"
    return $rc
}

# ---------------------------------------------------------------- the machine
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
nvcc_version=$(nvcc --version 2>/dev/null | grep -o 'release [^,]*' | head -1)
commit=${WICK_COMMIT:-}
[ -z "$commit" ] && commit=$(git rev-parse --short HEAD 2>/dev/null)
[ -z "$commit" ] && [ -f COMMIT ] && commit=$(head -1 COMMIT)
[ -z "$commit" ] && commit=unknown
dirty=""
if git rev-parse --git-dir >/dev/null 2>&1; then
    dirty=$(git status --porcelain 2>/dev/null | grep -vc '^??')
    [ "$dirty" = 0 ] && dirty=""
fi
torch_version=$("$PYTHON" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null)
echo "GPU: ${gpu:-none found (nvidia-smi failed)}"
echo "nvcc: ${nvcc_version:-not found}; commit: $commit${dirty:+ ($dirty tracked files modified)}"
echo "python: $PYTHON (torch ${torch_version:-not importable}); steps: ${steps[*]}; budget ${BUDGET}s; out: $OUT"

# ---------------------------------------------------------------- steps
BUILD_LOG=$OUT/build.log TEST_LOG=$OUT/test.log SAN_LOG=$OUT/sanitize.log
BENCH_JSON=$OUT/bench.jsonl TORCH_TXT=$OUT/torch.txt TORCH_JSON=$OUT/torch.json
: >"$BUILD_LOG"; : >"$TEST_LOG"; : >"$SAN_LOG"

if wanted build; then
    # shellcheck disable=SC2086
    run_step build "$BUILD_LOG" cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DWICK_CUDA=ON ${CMAKE_ARGS:-} &&
        run_step build "$BUILD_LOG" cmake --build "$BUILD" -j "$JOBS"
    timeout 30 "$BUILD/wick" info >>"$BUILD_LOG" 2>&1
    timeout 30 "$BUILD/wick" devices >>"$BUILD_LOG" 2>&1
fi

if wanted test; then
    run_step test "$TEST_LOG" ctest --test-dir "$BUILD" --output-on-failure -j 8 --timeout 300
fi

if wanted check; then
    run_step check "$TEST_LOG" "$BUILD/wick" check --device "$DEVICE" --quiet
fi

if wanted sanitize; then
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    memcheck_args=()
    [ -n "$MEMCHECK_OPS" ] && memcheck_args=(--op "$MEMCHECK_OPS")
    # A fixed seed: a report can be replayed. Each case prints a line, so a run cut by its timeout shows how
    # far it got.
    STEP_CAP=$((CAP[sanitize] * 2 / 3)) run_step sanitize "$SAN_LOG" "$san" --tool memcheck --print-limit 200 \
        --error-exitcode 86 \
        "$BUILD/wick" check --device "$DEVICE" --seed 1 "${memcheck_args[@]}"
    rest=$((CAP[sanitize] - ${SECS[sanitize]:-0}))
    [ $rest -lt 60 ] && rest=60
    STEP_CAP=$((rest * 2 / 3)) run_step sanitize "$SAN_LOG" "$san" --tool racecheck --racecheck-report hazard \
        --print-limit 200 --error-exitcode 86 "$BUILD/wick" check --device "$DEVICE" --seed 1 --op "$RACECHECK_OPS"
    # The wave64 builds of the width-dependent kernels, whose exchange between the two warps of a logical
    # wavefront goes through shared memory.
    rest=$((CAP[sanitize] - ${SECS[sanitize]:-0}))
    [ $rest -lt 40 ] && rest=40
    STEP_CAP=$rest WICK_GPU_LOGICAL_WARP=64 run_step sanitize "$SAN_LOG" "$san" --tool racecheck \
        --racecheck-report hazard --print-limit 200 --error-exitcode 86 \
        "$BUILD/wick" check --device "$DEVICE" --seed 1 --op "$WAVE64_RACE_OPS"
fi

if wanted bench; then
    : >"$BENCH_JSON"
    lim=$(step_timeout bench)
    t0=$(date +%s)
    echo "== $(date +%T) bench: $BUILD/wick bench --device $DEVICE --json (timeout ${lim}s)"
    timeout -k 10 "$lim" "$BUILD/wick" bench --device "$DEVICE" --json >"$BENCH_JSON" 2>>"$TEST_LOG"
    RC[bench]=$?
    SECS[bench]=$(($(date +%s) - t0))
    [ "${RC[bench]}" -eq 124 ] || [ "${RC[bench]}" -eq 137 ] && NOTE[bench]="timed out after ${lim}s. "
    echo "== $(date +%T) bench: exit ${RC[bench]} after ${SECS[bench]}s"
fi

if wanted torch; then
    : >"$TORCH_TXT"
    rm -f "$TORCH_JSON"
    # shellcheck disable=SC2086
    run_step torch "$TORCH_TXT" "$PYTHON" bench/torch_compare.py --lib "$BUILD/libwick.so" --wick "$BUILD/wick" \
        --device "$DEVICE" --json "$TORCH_JSON" ${TORCH_COMPARE_ARGS:-}
fi

# ---------------------------------------------------------------- summary
# Keeps each log under the 16 MiB a returned file may hold.
for f in "$BUILD_LOG" "$TEST_LOG" "$SAN_LOG" "$BENCH_JSON" "$TORCH_TXT"; do
    if [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 15000000 ]; then
        { head -c 7000000 "$f"; printf '\n[... cut ...]\n'; tail -c 7000000 "$f"; } >"$f.cut" && mv "$f.cut" "$f"
    fi
done

# What each step's log says, in one line.
detail() {
    case $1 in
    build) if [ "${RC[build]}" = 0 ]; then grep -E '^(backends|NVIDIA kernel targets):' "$BUILD_LOG"
           else grep -E ': error|CMake Error|Error [0-9]+' "$BUILD_LOG" | head -3; fi ;;
    test) grep -E 'tests passed|tests failed' "$TEST_LOG" | tail -1
          grep -E '^[[:space:]]*[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess)' "$TEST_LOG" | tr -s ' ' |
              tr '\n' ';' ;;
    check) awk '/check --device/ {on=1} on && /passed, .* failed, .* skipped/ {l=$0} END {print l}' "$TEST_LOG" ;;
    sanitize) [ "${RC[sanitize]}" = 127 ] && echo "compute-sanitizer not found"
              # Per tool: its summaries, the cases' pass count, its exit status.
              awk 'match($0, /--tool [a-z]+/) {tool = substr($0, RSTART + 7, RLENGTH - 7)}
                   /ERROR SUMMARY|RACECHECK SUMMARY|Device not supported|passed, .* failed/ {
                       sub(/^=* */, ""); printf "%s: %s; ", tool, $0 }
                   /^== .* sanitize: exit/ {printf "%s: exit %s; ", tool, $5}' "$SAN_LOG" ;;
    bench) tail -1 "$BENCH_JSON" 2>/dev/null ;;
    torch) grep -E '^[0-9]+ cases: ' "$TORCH_TXT" | tail -1 ;;
    esac
}

SUMMARY=$OUT/summary.md
overall=0
{
    echo "# wick GPU check, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "- GPU: ${gpu:-none found}"
    echo "- nvcc: ${nvcc_version:-not found}; python: $PYTHON (torch ${torch_version:-not importable})"
    echo "- commit: $commit${dirty:+ ($dirty tracked files modified)}; device: $DEVICE; build: $BUILD"
    echo "- total: $(($(date +%s) - START))s of a ${BUDGET}s budget"
    echo
    echo "| step | exit | seconds | result |"
    echo "| --- | --- | --- | --- |"
    for s in "${ALL_STEPS[@]}"; do
        wanted "$s" || continue
        rc=${RC[$s]:-not run}
        [ "$rc" != 0 ] && overall=1
        echo "| $s | $rc | ${SECS[$s]:-0} | ${NOTE[$s]:-}$(detail "$s" | tr '\n|' '; ' | cut -c1-400) |"
    done
    echo
    if wanted sanitize; then
        echo "Sanitizers: memcheck over \`wick check --device $DEVICE\` (${MEMCHECK_OPS:-every op}), racecheck over"
        echo "the ops $RACECHECK_OPS, and under WICK_GPU_LOGICAL_WARP=64 over $WAVE64_RACE_OPS. Error lines:"
        echo
        echo '```'
        grep -E '^========= (Invalid|Error|Race|Program hit|Warning|.*hazard)' "$SAN_LOG" | sort | uniq -c |
            sort -rn | head -20
        echo '```'
        echo
    fi
    if wanted bench && [ -s "$BENCH_JSON" ]; then
        echo "## wick bench --device $DEVICE"
        echo
        "$PYTHON" - "$BENCH_JSON" <<'EOF'
import json, sys
print("| op | variant | shape | median ms | rate | of peak |")
print("| --- | --- | --- | --- | --- | --- |")
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("record") == "peak":
        rate = "%.1f %s" % (r["rate"], r["unit"]) if r.get("status") == "ok" else r.get("status")
        print("| peak %s | %s | | | %s | |" % (r["kind"], r["what"], rate))
    elif r.get("record") == "case":
        if r.get("status") != "ok":
            print("| %s | %s | %s | %s | | |" % (r["op"], r["variant"], r["shape"], r.get("status")))
            continue
        if "us_per_op" in r:
            rate = "%.3f us/op" % r["us_per_op"]
        elif "gflop_per_s" in r:
            g = r["gflop_per_s"]
            rate = "%.1f TFLOP/s" % (g / 1e3) if g >= 1e3 else "%.1f GFLOP/s" % g
        else:
            rate = "%.0f GB/s" % r["gb_per_s"]
        frac = "%.0f%% %s" % (100 * r["fraction"], r["fraction_of"]) if r.get("fraction") is not None else "-"
        print("| %s | %s | %s | %.4g | %s | %s |" % (r["op"], r["variant"], r["shape"], r["median_ms"], rate, frac))
    elif r.get("record") == "summary":
        print("\n%d timed, %d failed" % (r["timed"], r["failed"]))
EOF
        echo
    fi
    if wanted torch && [ -s "$TORCH_TXT" ]; then
        echo "## bench/torch_compare.py (ratio = torch time / wick time; > 1: wick faster)"
        echo
        echo '```'
        grep -v '^== ' "$TORCH_TXT" | cut -c1-200 | tail -80
        echo '```'
    fi
} >"$SUMMARY"
echo
cat "$SUMMARY"
exit $overall
