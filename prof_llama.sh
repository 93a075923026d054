#!/bin/bash
export PATH=/usr/local/cuda/bin:$PATH
PY=/opt/torch/.venv/bin/python3
for f in .jansson/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DWICK_CUDA=ON -DWICK_CUDA_ARCHS=90 -DWICK_HIP=OFF > $OUT/build.log 2>&1
timeout 200 cmake --build build-gpu -j16 >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo built
timeout 60 build-gpu/wick check --device cuda:0 --op attention --quiet > $OUT/check.txt 2>&1; echo "check rc $?"; tail -3 $OUT/check.txt
WICK_ATTENTION_KERNEL=mma timeout 60 build-gpu/wick check --device cuda:0 --op attention --quiet > $OUT/check_mma.txt 2>&1; echo "mma rc $?"; tail -1 $OUT/check_mma.txt
LIBWICK=build-gpu/libwick.so PYTHONPATH=python timeout 120 $PY bench/attention_bench.py --quick > $OUT/bench.txt 2>&1; echo "bench rc $?"; tail -9 $OUT/bench.txt
WICK_ATTENTION_KERNEL=mma LIBWICK=build-gpu/libwick.so PYTHONPATH=python timeout 100 $PY bench/attention_bench.py --quick > $OUT/bench_mma.txt 2>&1; tail -8 $OUT/bench_mma.txt
timeout 90 compute-sanitizer --tool memcheck --print-limit 10 build-gpu/wick check --device cuda:0 --op attention --quiet > $OUT/memcheck.txt 2>&1; echo "memcheck rc $?"; tail -2 $OUT/memcheck.txt
