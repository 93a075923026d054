#!/usr/bin/env bash
# gpu-sanitize.sh: the GPU sanitizer sweep: compute-sanitizer's four tools over the whole `wick check` case table
# on one device (every kernel wick has, including those later ops add), plus test_gpu (transfers, faults, out of
# memory) under memcheck with its leak check. Run on a machine with an NVIDIA GPU after a build:
#
#   scripts/gpu-sanitize.sh [BUILD_DIR]     (default build-gpu; DEVICE=cuda:0; OUT=./gpu-out)
#
# Writes one log per tool under $OUT and prints a table: cases passed/failed and the tool's error summary. Exit
# status 1 when any tool reports an error or a case fails. The leak check's report is kept apart: wick holds a
# few device allocations for the life of the process (each device's fault record, its small-block cache, the
# upload staging buffers), which the tool lists as leaks at exit; the table shows which allocation sites leaked
# so that anything else stands out.
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${1:-build-gpu}
DEVICE=${DEVICE:-cuda:0}
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
[ -d /usr/local/cuda/bin ] && PATH=/usr/local/cuda/bin:$PATH
CS="compute-sanitizer --print-limit 100 --error-exitcode 86"
WICK=("$BUILD/wick" check --device "$DEVICE" --seed 1 --quiet)
status=0
printf '| tool | exit | cases | errors |\n| --- | --- | --- | --- |\n'
for tool in memcheck racecheck initcheck synccheck; do
    extra=()
    [ "$tool" = racecheck ] && extra=(--racecheck-report hazard)
    log="$OUT/sanitize-$tool.log"
    start=$SECONDS
    timeout "${SAN_TIMEOUT:-900}" $CS --tool "$tool" "${extra[@]}" "${WICK[@]}" >"$log" 2>&1
    rc=$?
    cases=$(grep -E '^[0-9]+ passed' "$log" | tail -1)
    errors=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/=* *//')
    printf '| %s | %d | %s | %s (%ds) |\n' "$tool" "$rc" "${cases:-none}" "${errors:-none}" $((SECONDS - start))
    [ "$rc" -eq 0 ] || status=1
done
log="$OUT/sanitize-leaks.log"
(cd "$BUILD/tests" && $CS --tool memcheck --leak-check full ./test_gpu) >"$log" 2>&1
rc=$?
# A leak is an "error" to the tool, and so is each CUDA_ERROR_OUT_OF_MEMORY that test_gpu provokes on purpose (a
# 1 PiB allocation, tried twice: before and after releasing the block cache): count the other errors apart.
leaks=$(grep -c '^========= Leaked' "$log")
oom=$(grep -c '^========= Program hit CUDA_ERROR_OUT_OF_MEMORY' "$log")
others=$(grep -E '^========= (Invalid|Program hit|Uninitialized|Race|Barrier|Memcpy)' "$log" |
    grep -vc 'CUDA_ERROR_OUT_OF_MEMORY')
printf '| memcheck --leak-check full (test_gpu) | %d | %s | %s leaks, %s provoked out-of-memory, %s other errors |\n' \
    "$rc" "$(grep -E 'checks, [0-9]+ failures' "$log" | tail -1)" "$leaks" "$oom" "$others"
[ "$others" -eq 0 ] || status=1
echo
echo "Leaked allocations by the wick function that made them:"
grep -A12 '^========= Leaked' "$log" | grep -oE 'Host Frame: (wk_[a-z0-9_]+|cuda_[a-z_]+)' | sort | uniq -c | sort -rn
exit $status
