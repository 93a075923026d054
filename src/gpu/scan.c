/* scan.c: the GPU's scan slot (cumsum, cumprod, logcumsumexp): argument packing and launch geometry for
 * kernels/scan.cu: scan_rows (a block a line) when the scanned dim is out's last, else scan_cols (a thread a line). */
#include <string.h>

#include "core/numerics.h"
#include "gpu/gpu.h"

_Static_assert((int)WK_SCAN_SUM == (int)SC_SUM && (int)WK_SCAN_LOGSUMEXP == (int)SC_LSE,
               "kernels/scan.h follows wk_scan_op");

wk_status wk_gpu_scan(wk_scan_op op, const wk_tensor *x, int dim, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t shape[WK_MAX_RANK], stride[WK_MAX_RANK], inner = 1;
    int r = 0;
    for (int k = 0; k < x->rank; k++) {
        if (k == dim)
            continue;
        shape[r] = x->shape[k];
        stride[r++] = x->strides[k];
        if (k > dim)
            inner *= x->shape[k];
    }
    r = wk_merge_dims(r, shape, stride);
    int64_t n = x->shape[dim], nlines = wk_numel(x->rank, x->shape) / n;
    wk_gpu_scan_args q = {.x = wk_tensor_data(x), .lines = wk_gpu_layout_make(r, shape, stride), .s = x->strides[dim],
                          .n = n, .nlines = nlines, .inner = inner, .out = wk_tensor_data(out), .op = (int32_t)op};
    wk_gpu_dim block = {SC_BLOCK, 1, 1};
    if (inner == 1) {
        wk_gpu_dim grid = {wk_gpu_blocks(d, nlines * SC_BLOCK, SC_BLOCK), 1, 1};
        return WK_GPU_LAUNCH(d, scan_rows, x->dtype, 0, 0, grid, block, 0, q);
    }
    wk_gpu_dim grid = {wk_gpu_blocks(d, nlines, SC_BLOCK), 1, 1};
    return WK_GPU_LAUNCH(d, scan_cols, x->dtype, 0, 0, grid, block, 0, q);
}
