/* unary.c: the GPU's one-input element-wise slots (unary, affine, powf, elu, clamp): kernel names and launch
 * geometry for kernels/unary.cu, whose kernels take (x, layout of x, out, n[, scalar, scalar]). */
#include <stdint.h>
#include <stdio.h>

#include "gpu/gpu.h"

/* Queues `name` over out. p0/p1 point at the op's scalars (NULL when it has none). The kernels take their
 * 16-byte vector path when x is contiguous and both pointers are 16-byte aligned (one thread per 16 bytes of
 * out), else one thread per element: the grid is sized to match, though any grid is correct. */
static wk_status un_launch(const char *name, const wk_tensor *x, wk_tensor *out, void *p0, void *p1)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t n = wk_numel(out->rank, out->shape);
    if (n == 0)
        return WK_OK;
    wk_gpu_layout lx = wk_gpu_layout_of(x);
    void *px = wk_tensor_data(x), *po = wk_tensor_data(out);
    int64_t items = n;
    if (lx.contiguous && ((uintptr_t)px & 15u) == 0 && ((uintptr_t)po & 15u) == 0) {
        int64_t per = 16 / (int64_t)wk_dtype_size(out->dtype);
        items = (n + per - 1) / per;
    }
    unsigned threads = 256;
    void *args[] = {&px, &lx, &po, &n, p0, p1};
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, items, threads), 1, 1},
                         (wk_gpu_dim){threads, 1, 1}, 0, args);
}

wk_status wk_gpu_unary(wk_unary_op op, const wk_tensor *x, wk_tensor *out)
{
    char name[64];
    snprintf(name, sizeof name, "unary_%s_%s", wk_unary_name(op), wk_gpu_sfx(x->dtype));
    return un_launch(name, x, out, NULL, NULL);
}

/* mul/add (lo/hi) are in x's arithmetic form, and the kernel declares that type (uint8_t for u8, float for
 * f16/bf16/f32, ...): every member of a wk_scalar starts at its first byte, so the launch copies exactly the
 * member the kernel reads. */
wk_status wk_gpu_affine(const wk_tensor *x, wk_scalar mul, wk_scalar add, wk_tensor *out)
{
    char name[64];
    snprintf(name, sizeof name, "affine_%s", wk_gpu_sfx(x->dtype));
    return un_launch(name, x, out, &mul, &add);
}

wk_status wk_gpu_clamp(const wk_tensor *x, wk_scalar lo, wk_scalar hi, wk_tensor *out)
{
    char name[64];
    snprintf(name, sizeof name, "clamp_%s", wk_gpu_sfx(x->dtype));
    return un_launch(name, x, out, &lo, &hi);
}

/* The exponent and alpha go as double; the kernel converts them to its compute type. */
wk_status wk_gpu_powf(const wk_tensor *x, double e, wk_tensor *out)
{
    char name[64];
    snprintf(name, sizeof name, "powf_%s", wk_gpu_sfx(x->dtype));
    return un_launch(name, x, out, &e, NULL);
}

wk_status wk_gpu_elu(const wk_tensor *x, double alpha, wk_tensor *out)
{
    char name[64];
    snprintf(name, sizeof name, "elu_%s", wk_gpu_sfx(x->dtype));
    return un_launch(name, x, out, &alpha, NULL);
}
