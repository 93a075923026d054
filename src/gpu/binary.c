/* binary.c: the GPU's two- and three-input element-wise slots (binary, compare, where): kernel names and launch
 * geometry for kernels/binary.cu, whose kernels take (input, its layout)... then (out, n). */
#include <stdint.h>
#include <stdio.h>

#include "gpu/gpu.h"

/* Queues `name` over out with the nin inputs (already broadcast to out's shape). The kernels take their
 * 16-byte vector path when every input is contiguous and every pointer 16-byte aligned (one thread per 16
 * bytes of out), else one thread per element: the grid is sized to match, though any grid is correct. */
static wk_status bn_launch(const char *name, int nin, const wk_tensor *const *in, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t n = wk_numel(out->rank, out->shape);
    if (n == 0)
        return WK_OK;
    wk_gpu_layout l[3];
    void *p[3], *po = wk_tensor_data(out);
    void *args[2 * 3 + 2];
    int k = 0;
    bool vec = ((uintptr_t)po & 15u) == 0;
    for (int i = 0; i < nin; i++) {
        l[i] = wk_gpu_layout_of(in[i]);
        p[i] = wk_tensor_data(in[i]);
        vec = vec && l[i].contiguous && ((uintptr_t)p[i] & 15u) == 0;
        args[k++] = &p[i];
        args[k++] = &l[i];
    }
    args[k++] = &po;
    args[k++] = &n;
    int64_t per = 16 / (int64_t)wk_dtype_size(out->dtype);
    int64_t items = vec ? (n + per - 1) / per : n;
    unsigned threads = 256;
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, items, threads), 1, 1},
                         (wk_gpu_dim){threads, 1, 1}, 0, args);
}

wk_status wk_gpu_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out)
{
    char name[64];
    snprintf(name, sizeof name, "binary_%s_%s", wk_binary_name(op), wk_gpu_sfx(a->dtype));
    const wk_tensor *in[2] = {a, b};
    return bn_launch(name, 2, in, out);
}

wk_status wk_gpu_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out)
{
    char name[64];
    snprintf(name, sizeof name, "compare_%s_%s", wk_compare_name(op), wk_gpu_sfx(a->dtype));
    const wk_tensor *in[2] = {a, b};
    return bn_launch(name, 2, in, out);
}

wk_status wk_gpu_where(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor *out)
{
    char name[64];
    snprintf(name, sizeof name, "where_%s_%s", wk_gpu_sfx(cond->dtype), wk_gpu_sfx(t->dtype));
    const wk_tensor *in[3] = {cond, t, f};
    return bn_launch(name, 3, in, out);
}
