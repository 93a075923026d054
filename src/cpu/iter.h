/* iter.h: the CPU's strided loop: walks up to WK_ITER_MAX_OPS same-shaped views in row-major order of
 * the shape, merging dims that are contiguous for every operand, and splits the work across threads. */
#ifndef WK_CPU_ITER_H
#define WK_CPU_ITER_H

#include <stddef.h>
#include <stdint.h>

#include "core/tensor.h"

#define WK_ITER_MAX_OPS 4

/* Called on a run of n elements: operand k's element j is at ptrs[k] + j*strides[k] (strides in bytes).
 * Runs are as long as the merged innermost dim allows, so contiguous operands arrive with
 * strides[k] == element size and the callee can take a vectorised path. */
typedef void (*wk_iter_fn)(void *ctx, int64_t n, char *const *ptrs, const int64_t *strides);

/* Operands: tensors all of `shape` (out first, by convention). Work below `grain` elements stays on one
 * thread. fn must be safe to call concurrently on disjoint runs. */
void wk_cpu_foreach(int rank, const int64_t *shape, int nops, const wk_tensor *const *ops, int64_t grain,
                    wk_iter_fn fn, void *ctx);

/* The operands' dims with size-1 dims dropped and each dim merged into the next where every operand is
 * contiguous across the pair (rank >= 1; a lone dim of size 1 when all were dropped). Strides in bytes. */
typedef struct wk_cpu_dims {
    int rank;
    int64_t shape[WK_MAX_RANK];
    int64_t strides[WK_ITER_MAX_OPS][WK_MAX_RANK];
} wk_cpu_dims;
void wk_cpu_merge_dims(int rank, const int64_t *shape, int nops, const wk_tensor *const *ops, wk_cpu_dims *out);

/* Runs body(ctx, begin, end) over [0, n) split into contiguous chunks across threads; chunks hold at
 * least `grain` items. */
typedef void (*wk_range_fn)(void *ctx, int64_t begin, int64_t end);
void wk_cpu_parallel_for(int64_t n, int64_t grain, wk_range_fn body, void *ctx);

/* Number of threads the CPU backend uses (OMP_NUM_THREADS / cores). */
int wk_cpu_threads(void);

/* Default grain: below this many elements an element-wise op runs on one thread. */
#define WK_CPU_GRAIN 32768

#endif
