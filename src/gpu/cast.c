/* cast.c: the GPU's dtype conversion (all 8x8 pairs, src any strided view, dst contiguous) and arange, both with
 * the conversion rules of wk_cast, launched as cast_<src>_<dst> and cast_arange_<dst> (kernels/cast.cu). */
#include "gpu/gpu.h"

#define CAST_THREADS 256

wk_status wk_gpu_cast(const wk_tensor *src, wk_tensor *dst)
{
    wk_gpu_dev *d = wk_gpu_dev_of(dst);
    int64_t n = wk_numel(dst->rank, dst->shape);
    wk_gpu_cast_args q = {
        .dst = wk_tensor_data(dst), .src = wk_tensor_data(src), .src_layout = wk_gpu_layout_of(src), .n = n,
    };
    size_t ss = wk_dtype_size(src->dtype), ds = wk_dtype_size(dst->dtype);
    /* contiguous sources go WK_CAST_VEC_BYTES of the narrower side per thread and step */
    int64_t items = q.src_layout.contiguous ? n / (int64_t)(WK_CAST_VEC_BYTES / (ss < ds ? ss : ds)) + 1 : n;
    wk_gpu_dim grid = {wk_gpu_blocks(d, items, CAST_THREADS), 1, 1}, block = {CAST_THREADS, 1, 1};
    return WK_GPU_LAUNCH(d, cast, src->dtype, dst->dtype, 0, grid, block, 0, q);
}

wk_status wk_gpu_arange(wk_tensor *dst, double start, double step)
{
    wk_gpu_dev *d = wk_gpu_dev_of(dst);
    int64_t n = wk_numel(dst->rank, dst->shape);
    wk_gpu_cast_args q = {.dst = wk_tensor_data(dst), .n = n, .start = start, .step = step};
    int64_t items = n / (int64_t)(WK_CAST_VEC_BYTES / wk_dtype_size(dst->dtype)) + 1;
    wk_gpu_dim grid = {wk_gpu_blocks(d, items, CAST_THREADS), 1, 1}, block = {CAST_THREADS, 1, 1};
    return WK_GPU_LAUNCH(d, cast_arange, dst->dtype, 0, 0, grid, block, 0, q);
}
