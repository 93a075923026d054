/* pool.c: the CPU's max and average pooling over strided NCHW input, one output row per work item; windows
 * are clipped to the input the way PyTorch's CPU kernels clip them (avg's divisor included). */
#include <math.h>

#include "cpu/cpu.h"

typedef struct pool_job {
    const wk_tensor *x;
    wk_tensor *out;
    const wk_pool_params *p;
    int64_t channels, H, W, OH, OW;
} pool_job;

/* A window [lo, hi) along one axis: `full` is its size clipped only to the padded input (avg's divisor
 * with count_include_pad), lo/hi are clipped to the input. Padding <= kernel/2 and ceil mode's rule keep
 * every window non-empty. */
typedef struct window { int64_t lo, hi, full; } window;

static window window_at(int64_t o, int64_t kernel, int64_t stride, int64_t pad, int64_t in)
{
    int64_t lo = o * stride - pad, hi = lo + kernel;
    if (hi > in + pad)
        hi = in + pad;
    window w = {.lo = lo < 0 ? 0 : lo, .hi = hi > in ? in : hi, .full = hi - lo};
    return w;
}

/* NaN test for any compute type: integer types have none. */
#define POOL_ISNAN(v) _Generic((v), float: isnan((float)(v)), double: isnan((double)(v)), default: 0)

/* Shared row walk: sets up `xp` (the (n, c) plane of x), `hw` (this row's window) and loops `ow`. */
#define POOL_ROWS_BEGIN(T)                                                                   \
    const pool_job *j = ctx;                                                                 \
    const wk_pool_params *p = j->p;                                                          \
    const int64_t *st = j->x->strides;                                                       \
    const T *x = wk_tensor_data(j->x);                                                       \
    T *o = (T *)wk_tensor_data(j->out) + begin * j->OW;                                      \
    for (int64_t r = begin; r < end; r++) {                                                  \
        int64_t oh = r % j->OH, nc = r / j->OH;                                              \
        const T *xp = x + (nc / j->channels) * st[0] + (nc % j->channels) * st[1];           \
        window hw = window_at(oh, p->kernel[0], p->stride[0], p->padding[0], j->H);          \
        for (int64_t ow = 0; ow < j->OW; ow++) {                                             \
            window ww = window_at(ow, p->kernel[1], p->stride[1], p->padding[1], j->W);
#define POOL_ROWS_END \
        }             \
    }

/* PyTorch's rule: a NaN replaces the running max and nothing but a later NaN replaces a NaN, so the last
 * NaN of the window wins. The hot loop stays branch-free (maxima of real data are unpredictable) and
 * only flags NaN; a window that held one is walked again to pick it. */
#define POOL_MAX_KERNEL(E, sfx, T, C)                                               \
    static void max_rows_##sfx(void *ctx, int64_t begin, int64_t end)               \
    {                                                                               \
        POOL_ROWS_BEGIN(T)                                                          \
        C m = wk_ld_##sfx(xp + hw.lo * st[2] + ww.lo * st[3]);                      \
        bool nan = false;                                                           \
        for (int64_t ih = hw.lo; ih < hw.hi; ih++)                                  \
            for (int64_t iw = ww.lo; iw < ww.hi; iw++) {                            \
                C v = wk_ld_##sfx(xp + ih * st[2] + iw * st[3]);                    \
                m = v > m ? v : m;                                                  \
                nan |= POOL_ISNAN(v);                                               \
            }                                                                       \
        if (nan)                                                                    \
            for (int64_t ih = hw.lo; ih < hw.hi; ih++)                              \
                for (int64_t iw = ww.lo; iw < ww.hi; iw++) {                        \
                    C v = wk_ld_##sfx(xp + ih * st[2] + iw * st[3]);                \
                    m = POOL_ISNAN(v) ? v : m;                                      \
                }                                                                   \
        wk_st_##sfx(o++, m);                                                        \
        POOL_ROWS_END                                                               \
    }
WK_CPU_DTYPES(POOL_MAX_KERNEL)

/* Sum in the compute type (f32 for f16/bf16), divided by the window size as PyTorch counts it. */
#define POOL_AVG_KERNEL(E, sfx, T, C)                                               \
    static void avg_rows_##sfx(void *ctx, int64_t begin, int64_t end)               \
    {                                                                               \
        POOL_ROWS_BEGIN(T)                                                          \
        C sum = 0;                                                                  \
        for (int64_t ih = hw.lo; ih < hw.hi; ih++)                                  \
            for (int64_t iw = ww.lo; iw < ww.hi; iw++)                              \
                sum += wk_ld_##sfx(xp + ih * st[2] + iw * st[3]);                   \
        int64_t count = p->count_include_pad ? hw.full * ww.full                    \
                                             : (hw.hi - hw.lo) * (ww.hi - ww.lo);   \
        wk_st_##sfx(o++, sum / (C)count);                                           \
        POOL_ROWS_END                                                               \
    }
#define POOL_FLOAT_DTYPES(X)             \
    X(WK_F16, f16, wk_f16_t, float)      \
    X(WK_BF16, bf16, wk_bf16_t, float)   \
    X(WK_F32, f32, float, float)         \
    X(WK_F64, f64, double, double)
POOL_FLOAT_DTYPES(POOL_AVG_KERNEL)

#define POOL_MAX_ENTRY(E, sfx, T, C) [E] = max_rows_##sfx,
#define POOL_AVG_ENTRY(E, sfx, T, C) [E] = avg_rows_##sfx,
static const wk_range_fn max_fns[WK_DTYPE_COUNT] = {WK_CPU_DTYPES(POOL_MAX_ENTRY)};
static const wk_range_fn avg_fns[WK_DTYPE_COUNT] = {POOL_FLOAT_DTYPES(POOL_AVG_ENTRY)};

wk_status wk_cpu_pool2d(wk_reduce_op op, const wk_tensor *x, const wk_pool_params *p, wk_tensor *out)
{
    pool_job j = {.x = x, .out = out, .p = p, .channels = x->shape[1], .H = x->shape[2], .W = x->shape[3],
                  .OH = out->shape[2], .OW = out->shape[3]};
    int64_t rows = out->shape[0] * out->shape[1] * out->shape[2];
    /* a window never covers more than the input */
    int64_t row_work = j.OW * (p->kernel[0] < j.H ? p->kernel[0] : j.H) * (p->kernel[1] < j.W ? p->kernel[1] : j.W);
    wk_range_fn fn = op == WK_REDUCE_MAX ? max_fns[x->dtype] : avg_fns[x->dtype];
    wk_cpu_parallel_for(rows, WK_CPU_GRAIN / row_work + 1, fn, &j);
    return WK_OK;
}
