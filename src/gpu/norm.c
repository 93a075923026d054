/* norm.c: the GPU's softmax / log_softmax, rms_norm (alone or after a residual add) and layer_norm slots over the
 * last dim: a group of lanes holds each row in registers, or a block reads a row once per pass (kernels/norm.cu). */
#include <stdint.h>
#include <string.h>

#include "core/numerics.h"
#include "gpu/gpu.h"

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

/* The rows of t (its dims but the last, merged) into *rows; whether each starts 16-byte aligned and is whole vectors
 * of stride 1. */
static bool rows_of(const wk_tensor *t, wk_gpu_layout *rows)
{
    int last = t->rank - 1;
    int64_t es = (int64_t)wk_dtype_size(t->dtype), n = t->shape[last];
    *rows = wk_gpu_layout_make(last, t->shape, t->strides);
    bool vec = t->strides[last] == 1 && n % (16 / es) == 0 && aligned16(wk_tensor_data(t));
    for (int i = 0; i < rows->rank; i++)
        vec = vec && rows->stride[i] * es % 16 == 0;
    return vec;
}

/* The row-shape slot (kernels/norm.h) of NV (a power of two up to 4) slots a lane. */
static int rows_slot(bool vec, int nv) { return (vec ? NM_ROWS_V : NM_ROWS_S) + (nv >= 4 ? 2 : nv >= 2 ? 1 : 0); }

/* layer_norm with w and b held (kernels/norm.h, norm_layer_held) when x's rows are vectors (q->flags NM_VEC) evenly
 * strided (rank <= 1 once merged), w and b vectors or absent, and a row fits NM_HELD_MAX_G lanes of at most 4 slots:
 * a block takes `iters` row groups, enough blocks left for about 16 a multiprocessor (a short tail). Returns false
 * to leave the launch to norm_run. */
static bool layer_held(wk_gpu_dev *d, wk_gpu_norm_args *q, int64_t VW, int dt, wk_status *st)
{
    bool wok = !q->w || (q->flags & NM_WVEC), bok = !q->b || (q->flags & NM_BVEC);
    int64_t units = cdiv(q->n, VW);
    int G = pow2_at_least(cdiv(units, 4), NM_BLOCK);
    int64_t nv = cdiv(units, G);
    if (!(q->flags & NM_VEC) || !wok || !bok || q->rows.rank > 1 || G > NM_HELD_MAX_G || q->n > INT32_MAX / 2)
        return false;
    int lw = wk_gpu_logical_warp(d);
    unsigned threads = G <= lw ? NM_HELD_BLOCK : (unsigned)G;
    int64_t per = G <= lw ? threads / G : 1, groups = cdiv(q->nrows, per);
    int64_t iters = groups / ((int64_t)wk_gpu_sm_count(d) * 16);
    q->iters = (int32_t)(iters < 1 ? 1 : iters > 8 ? 8 : iters);
    if (cdiv(groups, q->iters) > 0x7fffffff)
        return false;
    q->G = G;
    wk_gpu_dim grid = {(unsigned)cdiv(groups, q->iters), 1, 1}, block = {threads, 1, 1};
    int slot = nv > 2 ? 2 : nv > 1 ? 1 : 0; /* NV: the power of two >= nv (3 takes 4, the 4th slot idle) */
    *st = WK_GPU_LAUNCH(d, norm_layer_held, slot, dt, wk_gpu_width_slot(d), grid, block, 0, *q);
    return true;
}

/* add_rms_norm's residual and sum (NULL for the other kinds). */
typedef struct nm_add {
    const wk_tensor *r;
    wk_tensor *sum;
} nm_add;

/* The rows (x's other dims, size-1 dims dropped and neighbours that line up merged) and the vector flags: NM_VEC when
 * every row of x and of out starts 16-byte aligned and is whole vectors long. add_rms_norm: NM_VEC when sum's rows
 * and out's are (the row shape rms_norm takes on sum), NM_XVEC and NM_RVEC when x's and r's are too. */
static void norm_rows(wk_gpu_norm_args *q, const wk_tensor *x, const nm_add *add, int *flags)
{
    bool vec = rows_of(x, &q->rows) && aligned16(q->out);
    if (add) {
        bool xvec = vec, rvec = rows_of(add->r, &q->rrows);
        vec = q->n % (16 / (int64_t)wk_dtype_size(x->dtype)) == 0 && aligned16(q->sum) && aligned16(q->out);
        *flags |= vec && xvec ? NM_XVEC : 0;
        *flags |= vec && rvec ? NM_RVEC : 0;
    }
    if (vec) {
        *flags |= NM_VEC;
        *flags |= q->w && q->ws == 1 && aligned16(q->w) ? NM_WVEC : 0;
        *flags |= q->b && q->bs == 1 && aligned16(q->b) ? NM_BVEC : 0;
    }
}

/* kind: NM_SOFTMAX, NM_RMS, NM_LAYER or NM_ADD_RMS (add: its residual and sum); w, b may be NULL (softmax: both). */
static wk_status norm_run(int kind, const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, int flags,
                          const nm_add *add, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int last = x->rank - 1;
    int64_t n = x->shape[last], nrows = wk_numel(last, x->shape);
    int64_t es = (int64_t)wk_dtype_size(x->dtype), VW = 16 / es;
    wk_gpu_norm_args q = {
        .x = wk_tensor_data(x), .s = x->strides[last], .n = n, .nrows = nrows, .w = w ? wk_tensor_data(w) : NULL,
        .ws = w ? w->strides[0] : 0, .b = b ? wk_tensor_data(b) : NULL, .bs = b ? b->strides[0] : 0, .eps = eps,
        .out = wk_tensor_data(out), .r = add ? wk_tensor_data(add->r) : NULL, .rs = add ? add->r->strides[last] : 0,
        .sum = add ? wk_tensor_data(add->sum) : NULL,
    };
    norm_rows(&q, x, add, &flags);
    bool vec = flags & NM_VEC;

    /* G lanes a row, NV 16-byte slots a lane: the fewest lanes that hold the row in at most nvmax slots each
     * (16 f32, 8 f64 or 32 f16/bf16 values); longer rows: a 1024-thread block each, reading the row once per
     * pass. f16/bf16 norms take at most 2 slots: on the H100, 4 took bf16 softmax 32768x4096 from 0.28 to
     * 0.20 ms but made layer_norm 2% slower (bench/results/gpu-h100-2026-11-21-wave64.md); rms_norm follows
     * layer_norm, unmeasured. */
    int nvmax = es == 2 && kind != NM_SOFTMAX ? 2 : 4; /* add_rms: as rms (the same row shapes) */
    int64_t units = cdiv(n, VW);
    int G = pow2_at_least(cdiv(units, nvmax), NM_BLOCK);
    int64_t nv = cdiv(units, G);
    unsigned threads;
    int shape_slot;
    if (nv > nvmax) {
        G = NM_BLOCK;
        threads = NM_BLOCK;
        shape_slot = NM_ROWS_LONG;
    } else {
        threads = G <= wk_gpu_logical_warp(d) ? 256 : (unsigned)G;
        shape_slot = rows_slot(vec, pow2_at_least(nv, nvmax));
    }
    q.G = G;
    q.flags = flags;
    int dt = x->dtype, wd = wk_gpu_width_slot(d);
    wk_status st = WK_OK;
    if (kind == NM_LAYER && layer_held(d, &q, VW, dt, &st))
        return st;
    wk_gpu_dim grid = {wk_gpu_blocks(d, nrows * G, threads), 1, 1}, block = {threads, 1, 1};
    if (kind == NM_SOFTMAX)
        return WK_GPU_LAUNCH(d, norm_softmax, shape_slot, dt, wd, grid, block, 0, q);
    if (kind == NM_RMS)
        return WK_GPU_LAUNCH(d, norm_rms, shape_slot, dt, wd, grid, block, 0, q);
    if (kind == NM_ADD_RMS)
        return WK_GPU_LAUNCH(d, norm_add_rms, shape_slot, dt, wd, grid, block, 0, q);
    return WK_GPU_LAUNCH(d, norm_layer, shape_slot, dt, wd, grid, block, 0, q);
}

wk_status wk_gpu_softmax(const wk_tensor *x, wk_softmax_kind kind, wk_tensor *out)
{
    return norm_run(NM_SOFTMAX, x, NULL, NULL, 0.0, kind == WK_LOG_SOFTMAX ? NM_LOG : 0, NULL, out);
}

wk_status wk_gpu_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor *out)
{
    return norm_run(NM_RMS, x, w, NULL, eps, 0, NULL, out);
}

wk_status wk_gpu_add_rms_norm(const wk_tensor *x, const wk_tensor *r, const wk_tensor *w, double eps, wk_tensor *sum,
                              wk_tensor *out)
{
    nm_add add = {.r = r, .sum = sum};
    return norm_run(NM_ADD_RMS, x, w, NULL, eps, 0, &add, out);
}

wk_status wk_gpu_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, wk_tensor *out)
{
    return norm_run(NM_LAYER, x, w, b, eps, 0, NULL, out);
}

static wk_gpu_norm_chan_args chan_args(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps,
                                       wk_tensor *out)
{
    return (wk_gpu_norm_chan_args){
        .x = wk_tensor_data(x), .sn = x->strides[0], .sc = x->strides[1], .ss = x->strides[2],
        .w = w ? wk_tensor_data(w) : NULL, .pw = w ? w->strides[0] : 0, .b = b ? wk_tensor_data(b) : NULL,
        .pb = b ? b->strides[0] : 0, .N = x->shape[0], .C = x->shape[1], .S = x->shape[2], .G = 1, .eps = eps,
        .out = wk_tensor_data(out)};
}

wk_status wk_gpu_batch_norm(const wk_tensor *x, const wk_tensor *mean, const wk_tensor *var, const wk_tensor *w,
                            const wk_tensor *b, double eps, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    wk_gpu_norm_chan_args q = chan_args(x, w, b, eps, out);
    q.mean = wk_tensor_data(mean);
    q.pm = mean->strides[0];
    q.var = wk_tensor_data(var);
    q.pv = var->strides[0];
    wk_gpu_dim grid = {wk_gpu_blocks(d, q.N * q.C * q.S, 256), 1, 1}, block = {256, 1, 1};
    return WK_GPU_LAUNCH(d, norm_batch, x->dtype, 0, 0, grid, block, 0, q);
}

wk_status wk_gpu_group_norm(const wk_tensor *x, int64_t groups, const wk_tensor *w, const wk_tensor *b, double eps,
                            wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    wk_gpu_norm_chan_args q = chan_args(x, w, b, eps, out);
    q.G = groups;
    wk_gpu_dim grid = {wk_gpu_blocks(d, q.N * groups * NM_CHAN_BLOCK, NM_CHAN_BLOCK), 1, 1};
    wk_gpu_dim block = {NM_CHAN_BLOCK, 1, 1};
    return WK_GPU_LAUNCH(d, norm_group, x->dtype, 0, wk_gpu_width_slot(d), grid, block, 0, q);
}
