/* cast.c: the GPU's dtype conversion (all 8x8 pairs, src any strided view, dst contiguous) and arange, both with
 * the conversion rules of wk_cast, launched as cast_<src>_<dst> and cast_arange_<dst> (kernels/cast.cu). */
#include <stdio.h>

#include "gpu/gpu.h"

#define CAST_THREADS 256

wk_status wk_gpu_cast(const wk_tensor *src, wk_tensor *dst)
{
    wk_gpu_dev *d = wk_gpu_dev_of(dst);
    int64_t n = wk_numel(dst->rank, dst->shape);
    if (n == 0)
        return WK_OK;
    wk_gpu_layout l = wk_gpu_layout_of(src);
    const void *ps = wk_tensor_data(src);
    void *pd = wk_tensor_data(dst);
    size_t ss = wk_dtype_size(src->dtype), ds = wk_dtype_size(dst->dtype);
    /* contiguous sources go 16 bytes of the narrower side per thread and step */
    int64_t items = l.contiguous ? n / (int64_t)(16 / (ss < ds ? ss : ds)) + 1 : n;
    char name[32];
    snprintf(name, sizeof name, "cast_%s_%s", wk_gpu_sfx(src->dtype), wk_gpu_sfx(dst->dtype));
    void *args[] = {&pd, &ps, &l, &n};
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, items, CAST_THREADS), 1, 1},
                         (wk_gpu_dim){CAST_THREADS, 1, 1}, 0, args);
}

wk_status wk_gpu_arange(wk_tensor *dst, double start, double step)
{
    wk_gpu_dev *d = wk_gpu_dev_of(dst);
    int64_t n = wk_numel(dst->rank, dst->shape);
    if (n == 0)
        return WK_OK;
    void *p = wk_tensor_data(dst);
    int64_t items = n / (int64_t)(16 / wk_dtype_size(dst->dtype)) + 1;
    char name[32];
    snprintf(name, sizeof name, "cast_arange_%s", wk_gpu_sfx(dst->dtype));
    void *args[] = {&p, &n, &start, &step};
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, items, CAST_THREADS), 1, 1},
                         (wk_gpu_dim){CAST_THREADS, 1, 1}, 0, args);
}
