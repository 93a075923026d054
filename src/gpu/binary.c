/* binary.c: the GPU's two- and three-input element-wise slots (binary, compare, where): argument packing and
 * launch geometry for kernels/binary.cu (sets binary, compare, where of kernels/binary.h). */
#include <stdint.h>

#include "gpu/gpu.h"

/* Fills q with out and the nin inputs (already broadcast to out's shape) and sizes the grid. The kernels take
 * their vector path when every input is contiguous and every pointer WK_BINARY_VEC_BYTES-aligned (one thread
 * per WK_BINARY_VEC_BYTES of out), else one thread per element: the grid is sized to match, though any grid is
 * correct. */
static void bn_args(int nin, const wk_tensor *const *in, wk_tensor *out, wk_gpu_binary_args *q, wk_gpu_dim *grid,
                    wk_gpu_dim *block)
{
    const uintptr_t mask = WK_BINARY_VEC_BYTES - 1;
    int64_t n = wk_numel(out->rank, out->shape);
    *q = (wk_gpu_binary_args){.out = wk_tensor_data(out), .n = n};
    bool vec = ((uintptr_t)q->out & mask) == 0;
    for (int i = 0; i < nin; i++) {
        q->lin[i] = wk_gpu_layout_of(in[i]);
        q->in[i] = wk_tensor_data(in[i]);
        vec = vec && q->lin[i].contiguous && ((uintptr_t)q->in[i] & mask) == 0;
    }
    int64_t per = WK_BINARY_VEC_BYTES / (int64_t)wk_dtype_size(out->dtype);
    int64_t items = vec ? (n + per - 1) / per : n;
    unsigned threads = 256;
    *grid = (wk_gpu_dim){wk_gpu_blocks(wk_gpu_dev_of(out), items, threads), 1, 1};
    *block = (wk_gpu_dim){threads, 1, 1};
}

wk_status wk_gpu_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out)
{
    const wk_tensor *in[2] = {a, b};
    wk_gpu_binary_args q;
    wk_gpu_dim grid, block;
    bn_args(2, in, out, &q, &grid, &block);
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), binary, (int)op, a->dtype, 0, grid, block, 0, q);
}

wk_status wk_gpu_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out)
{
    const wk_tensor *in[2] = {a, b};
    wk_gpu_binary_args q;
    wk_gpu_dim grid, block;
    bn_args(2, in, out, &q, &grid, &block);
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), compare, (int)op, a->dtype, 0, grid, block, 0, q);
}

wk_status wk_gpu_where(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor *out)
{
    const wk_tensor *in[3] = {cond, t, f};
    wk_gpu_binary_args q;
    wk_gpu_dim grid, block;
    bn_args(3, in, out, &q, &grid, &block);
    return WK_GPU_LAUNCH(wk_gpu_dev_of(out), where, cond->dtype, t->dtype, 0, grid, block, 0, q);
}
