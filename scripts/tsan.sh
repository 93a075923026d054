#!/usr/bin/env bash
# tsan.sh: wick's thread-safety contract (include/wick.h) under ThreadSanitizer, and the CPU communicator (whose
# ranks are threads: test_comm, test_tp). Builds test_threads
# (tests/io/test_threads.c: 8 threads racing a device's first use, sharing tensors, running ops and reading their
# own errors, checked bit for bit against a single-threaded run) with -fsanitize=thread into build-tsan/ (or
# $BUILD_DIR), runs it on each device of WICK_THREADS_DEVICES (default "cpu"), and fails on a test failure or on
# any TSan report.
#
# The build has no OpenMP (-DWICK_OPENMP=OFF): libgomp is not built with TSan, so TSan cannot see the barriers
# that order the work of its threads and reports races that are not there. The CPU kernels then run on the
# calling thread, which is what this test is about: several application threads calling wick at once.
# OpenBLAS (matmul) is not instrumented either, and keeps its own threads (the test's largest matmul is big
# enough for it to use them): they only touch the matrices wick hands it between the call and its return and
# never call back into instrumented code, so TSan sees none of their accesses and reports nothing false
# (checked with the OpenMP and pthreads builds of OpenBLAS 0.3.21: no reports, results bit-identical).
# The CPU kernels' AVX clones (ifunc) are left out under TSan (src/cpu/vmath.h, cast.c): the loader runs their
# resolvers before TSan's runtime is set up, and GCC instruments them, which crashed the program at load.
# The GPU backends are off by default: their work happens on the device, where TSan sees nothing. A CUDA build
# (BUILD_DIR=..., CMAKE_ARGS=-DWICK_CUDA=ON, WICK_THREADS_DEVICES="cpu cuda:0") is not clean today: libcuda,
# cuBLAS and cuBLASLt are not instrumented, and TSan reports races inside them (their internal state, on the
# first matmul from several threads) and a mutex unlocked at exit by libcublas; none in wick's own code.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BUILD_DIR:-build-tsan}
mkdir -p "$dir"
log="$dir/tsan-build.log"
# shellcheck disable=SC2086 # CMAKE_ARGS is a list of arguments
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWICK_CUDA=OFF -DWICK_HIP=OFF -DWICK_OPENMP=OFF \
    -DWICK_SANITIZE=OFF -DWICK_BUILD_TOOLS=OFF -DWICK_BUILD_EXAMPLES=OFF \
    -DCMAKE_C_FLAGS="-fsanitize=thread -g" -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
    -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread ${CMAKE_ARGS:-} >"$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build "$dir" --target test_threads test_comm test_tp -j "${JOBS:-$(nproc)}" >>"$log" 2>&1 || { tail -50 "$log"; exit 1; }
status=0
for device in ${WICK_THREADS_DEVICES:-cpu}; do
    report="$PWD/$dir/tsan-report-${device//[^a-z0-9]/_}" # TSAN_OPTIONS splits on ':'
    rm -f "$report".*
    echo "== test_threads on $device under ThreadSanitizer"
    rc=0
    WICK_THREADS_DEVICE=$device TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 exitcode=66 log_path=$report" \
        "$dir/tests/test_threads" || rc=$?
    if compgen -G "$report.*" >/dev/null; then
        cat "$report".*
        echo "tsan.sh: ThreadSanitizer reported on $device (reports above, kept in $report.*)" >&2
        status=1
    elif [ "$rc" -eq 77 ] && [ "$device" != cpu ]; then
        echo "tsan.sh: $device is absent here: skipped, not passed"
    elif [ "$rc" -ne 0 ]; then
        echo "tsan.sh: test_threads failed on $device (exit $rc)" >&2
        status=1
    fi
done
# The CPU communicator: its ranks are threads (test_comm: every collective, timeouts, aborts; test_tp: the
# tensor-parallel layers, a thread per rank and one thread in groups).
for t in test_comm test_tp; do
    report="$PWD/$dir/tsan-report-$t"
    rm -f "$report".*
    echo "== $t on the CPU communicator under ThreadSanitizer"
    rc=0
    WICK_COMM_BACKEND=cpu TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 exitcode=66 log_path=$report" \
        "$dir/tests/$t" >"$dir/$t.log" 2>&1 || rc=$?
    tail -1 "$dir/$t.log"
    if compgen -G "$report.*" >/dev/null; then
        cat "$report".*
        echo "tsan.sh: ThreadSanitizer reported on $t (reports above, kept in $report.*)" >&2
        status=1
    elif [ "$rc" -ne 0 ]; then
        echo "tsan.sh: $t failed (exit $rc; log $dir/$t.log)" >&2
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "tsan.sh: no ThreadSanitizer reports"
exit "$status"
