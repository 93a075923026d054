/* layout.h: the by-value kernel parameters shared by host C (src/gpu/ files) and device code (kernels/).
 * Plain C, no vendor header: both compilers must see the same struct layout. */
#ifndef WK_GPU_LAYOUT_H
#define WK_GPU_LAYOUT_H

#include <stdint.h>

#define WK_GPU_MAX_RANK 8

/* A strided view as a kernel reads it: element offset of linear (row-major) index i is
 * sum over d of ((i / prod(shape[d+1..])) % shape[d]) * stride[d].  The host merges dims that can be
 * merged and drops size-1 dims (wk_gpu_layout_of), so a contiguous view arrives as rank 1, stride 1,
 * and a rank-0 view as rank 0. Passed by value: no device allocation per launch. */
typedef struct wk_gpu_layout {
    int64_t shape[WK_GPU_MAX_RANK];
    int64_t stride[WK_GPU_MAX_RANK];
    int32_t rank;
    int32_t contiguous; /* 1 when offset(i) == i for every i */
} wk_gpu_layout;

/* Division by a run-time divisor d (1 <= d <= 2^31) of dividends below 2^31, as a multiply-high and a shift
 * (wk_gpu_divisor_of on the host, wk_div32 in kernels/common.cuh). */
typedef struct wk_gpu_divisor {
    uint32_t m, s;
} wk_gpu_divisor;

/* The device's fault record: a kernel that meets a bad index claims `code` (first writer wins, by an atomic
 * compare-and-swap on it) and the winner then stores the bad index in `value`. Kernels receive its address as
 * the int32_t *fault field of their arguments (the code comes first). The host reads it at the next
 * synchronisation and turns it into WK_ERR_INDEX_OUT_OF_RANGE naming the op and the index. */
typedef struct wk_gpu_fault_rec {
    int32_t code; /* enum wk_gpu_fault */
    int32_t pad;
    int64_t value;
} wk_gpu_fault_rec;

/* The codes. */
enum wk_gpu_fault {
    WK_GPU_FAULT_NONE = 0,
    WK_GPU_FAULT_INDEX_SELECT = 1,
    WK_GPU_FAULT_GATHER = 2,
    WK_GPU_FAULT_SCATTER = 3,
    WK_GPU_FAULT_SCATTER_ADD = 4,
    WK_GPU_FAULT_INDEX_ADD = 5,
    WK_GPU_FAULT_ONE_HOT = 6,
    WK_GPU_FAULT_ATTENTION = 7,  /* a length outside [0, skv] or a block id outside the pool */
    WK_GPU_FAULT_KV_APPEND = 8,  /* a length whose new positions leave the cache, or a block id outside the pool */
    WK_GPU_FAULT_COUNT
};

#endif
