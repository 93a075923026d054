/* stats.c: the GPU's stats slot (var, std, logsumexp, norms over the last dim): argument packing and launch
 * geometry for kernels/stats.cu, a block of ST_BLOCK threads a row. */
#include <string.h>

#include "core/numerics.h"
#include "gpu/gpu.h"

_Static_assert((int)WK_STATS_VAR == (int)ST_VAR && (int)WK_STATS_NORM_INF == (int)ST_NORM_INF,
               "kernels/stats.h follows wk_stats_op");

wk_status wk_gpu_stats(wk_stats_op op, const wk_tensor *x, double correction, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int last = x->rank - 1;
    int64_t shape[WK_MAX_RANK], stride[WK_MAX_RANK], nrows = wk_numel(last, x->shape);
    memcpy(shape, x->shape, sizeof shape);
    memcpy(stride, x->strides, sizeof stride);
    int r = wk_merge_dims(last, shape, stride);
    wk_gpu_stats_args q = {.x = wk_tensor_data(x), .rows = wk_gpu_layout_make(r, shape, stride),
                           .s = x->strides[last], .n = x->shape[last], .nrows = nrows, .correction = correction,
                           .out = wk_tensor_data(out), .op = (int32_t)op};
    wk_gpu_dim grid = {wk_gpu_blocks(d, nrows * ST_BLOCK, ST_BLOCK), 1, 1}, block = {ST_BLOCK, 1, 1};
    return WK_GPU_LAUNCH(d, stats_row, x->dtype, 0, wk_gpu_width_slot(d), grid, block, 0, q);
}
