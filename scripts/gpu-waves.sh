#!/usr/bin/env bash
# gpu-waves.sh: times the grid-stride kernels at several grid sizes (WICK_GPU_GRID_WAVES) to choose the
# default in gpu/launch.c. Run after scripts/gpu-check.sh built build-gpu. Output: ${OUT}/waves.txt.
set -u
OUT=${OUT:-./gpu-out}
for w in 1 2 4 8 32 100000; do
    echo "== waves $w"
    WICK_GPU_GRID_WAVES=$w build-gpu/wick bench --device cuda:0 --op add,exp,cast,where,sum,max,scatter_add,index_add,layer_norm 2>&1 |
        grep -E "^(add|exp|cast|where|sum|max|scatter_add|index_add|layer_norm) "
done | tee "$OUT/waves.txt"
