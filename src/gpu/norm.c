/* norm.c: the GPU's softmax / log_softmax, rms_norm and layer_norm slots over the last dim: a group of lanes
 * holds each row in registers, or a block reads a row once per pass when it is too long (kernels/norm.cu). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/numerics.h"
#include "gpu/gpu.h"

/* kernels/norm.cu's flags */
enum { NM_VEC = 1, NM_WVEC = 2, NM_BVEC = 4, NM_LOG = 8 };

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The smallest power of two >= v, at most cap (a power of two). */
static int pow2_at_least(int64_t v, int cap)
{
    int p = 1;
    while (p < cap && p < v)
        p *= 2;
    return p;
}

static bool aligned16(const void *p) { return (uintptr_t)p % 16 == 0; }

/* kind: "softmax", "rms" or "layer"; w, b may be NULL (softmax: both). */
static wk_status norm_run(const char *kind, const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps,
                          int flags, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int last = x->rank - 1;
    int64_t n = x->shape[last], s = x->strides[last], nrows = wk_numel(last, x->shape);
    if (n == 0 || nrows == 0)
        return WK_OK;
    int64_t es = (int64_t)wk_dtype_size(x->dtype), VW = 16 / es;
    void *px = wk_tensor_data(x), *po = wk_tensor_data(out);
    void *pw = w ? wk_tensor_data(w) : NULL, *pb = b ? wk_tensor_data(b) : NULL;
    int64_t ws = w ? w->strides[0] : 0, bs = b ? b->strides[0] : 0;

    /* the rows: x's other dims, size-1 dims dropped and neighbours that line up merged */
    int64_t shape[WK_MAX_RANK], stride[WK_MAX_RANK];
    memcpy(shape, x->shape, sizeof shape);
    memcpy(stride, x->strides, sizeof stride);
    int r = wk_merge_dims(last, shape, stride);
    wk_gpu_layout rows = wk_gpu_layout_make(r, shape, stride);

    /* 16-byte vectors when every row of x and of out starts 16-byte aligned and is whole vectors long */
    bool vec = s == 1 && n % VW == 0 && aligned16(px) && aligned16(po);
    for (int i = 0; i < r; i++)
        vec = vec && stride[i] * es % 16 == 0;
    if (vec) {
        flags |= NM_VEC;
        flags |= w && ws == 1 && aligned16(pw) ? NM_WVEC : 0;
        flags |= b && bs == 1 && aligned16(pb) ? NM_BVEC : 0;
    }

    /* G lanes a row, NV 16-byte slots a lane: the fewest lanes that hold the row in at most nvmax slots each
     * (16 f32, 8 f64 or 32 f16/bf16 values); longer rows: a 1024-thread block each, reading the row once per
     * pass. f16/bf16 norms take at most 2 slots: on the H100, 4 took bf16 softmax 32768x4096 from 0.28 to
     * 0.20 ms but made layer_norm 2% slower (bench/results/gpu-h100-2026-11-21-wave64.md); rms_norm follows
     * layer_norm, unmeasured. */
    int nvmax = es == 2 && strcmp(kind, "softmax") != 0 ? 2 : 4;
    int64_t units = cdiv(n, VW);
    int G = pow2_at_least(cdiv(units, nvmax), 1024);
    int64_t nv = cdiv(units, G);
    unsigned threads;
    char name[64];
    const char *sfx = wk_gpu_sfx(x->dtype);
    if (nv > nvmax) {
        G = 1024;
        threads = 1024;
        snprintf(name, sizeof name, "norm_%s_long_%s%s", kind, sfx, wk_gpu_width_sfx(d));
    } else {
        threads = G <= wk_gpu_logical_warp(d) ? 256 : (unsigned)G;
        snprintf(name, sizeof name, "norm_%s_%c%d_%s%s", kind, vec ? 'v' : 's', pow2_at_least(nv, nvmax), sfx,
                 wk_gpu_width_sfx(d));
    }
    void *args[] = {&px, &rows, &s, &n, &nrows, &pw, &ws, &pb, &bs, &eps, &po, &G, &flags};
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, nrows * G, threads), 1, 1},
                         (wk_gpu_dim){threads, 1, 1}, 0, args);
}

wk_status wk_gpu_softmax(const wk_tensor *x, bool log, wk_tensor *out)
{
    return norm_run("softmax", x, NULL, NULL, 0.0, log ? NM_LOG : 0, out);
}

wk_status wk_gpu_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor *out)
{
    return norm_run("rms", x, w, NULL, eps, 0, out);
}

wk_status wk_gpu_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, wk_tensor *out)
{
    return norm_run("layer", x, w, b, eps, 0, out);
}
