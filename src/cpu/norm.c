/* norm.c: the CPU's softmax / log_softmax, rms_norm and layer_norm slots, one row (the last dim) at a
 * time. Element math in f32 (f64 for f64); row statistics accumulate in f64 so long rows stay exact. */
#include <math.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/rowwise.h"

typedef struct norm_ctx norm_ctx;
typedef void (*norm_row_fn)(const norm_ctx *c, const char *x, char *y);

struct norm_ctx {
    norm_row_fn row;
    const char *x, *w, *b; /* w, b: element 0, or NULL */
    char *out;
    wk_rows outer;         /* x's dims but the last, merged */
    int64_t es, n, s;      /* element size, row length, x's stride along the row */
    int64_t ws, bs;        /* strides of w and b */
    double eps;
    bool log;
};

/* X(suffix, storage_type, compute_type, exp, keep_exp): keep_exp when out can hold exp(x - max)
 * without rounding (then softmax reads it back instead of computing exp twice). */
#define NORM_DTYPES(X)                 \
    X(f16, wk_f16_t, float, expf, 0)   \
    X(bf16, wk_bf16_t, float, expf, 0) \
    X(f32, float, float, expf, 1)      \
    X(f64, double, double, exp, 1)

#define DEF_NORM(sfx, T, C, EXP, keep_exp)                                                    \
    /* sums of (x_i - center) and of its square; four lanes break the chain of f64 adds */    \
    static void row_stats_##sfx(const T *x, int64_t n, int64_t s, double center, double *sum, \
                                double *sumsq)                                                \
    {                                                                                         \
        double s1[4] = {0, 0, 0, 0}, s2[4] = {0, 0, 0, 0};                                    \
        int64_t i = 0;                                                                        \
        for (; i + 4 <= n; i += 4)                                                            \
            for (int l = 0; l < 4; l++) {                                                     \
                double d = (double)wk_ld_##sfx(x + (i + l) * s) - center;                     \
                s1[l] += d;                                                                   \
                s2[l] += d * d;                                                               \
            }                                                                                 \
        for (; i < n; i++) {                                                                  \
            double d = (double)wk_ld_##sfx(x + i * s) - center;                               \
            s1[0] += d;                                                                       \
            s2[0] += d * d;                                                                   \
        }                                                                                     \
        *sum = (s1[0] + s1[1]) + (s1[2] + s1[3]);                                             \
        *sumsq = (s2[0] + s2[1]) + (s2[2] + s2[3]);                                           \
    }                                                                                         \
    static void softmax_row_##sfx(const norm_ctx *c, const char *xb, char *yb)                \
    {                                                                                         \
        const T *x = (const T *)xb;                                                           \
        T *y = (T *)yb;                                                                       \
        int64_t n = c->n, s = c->s;                                                           \
        C max = -INFINITY; /* a NaN is skipped here and spreads through exp below */          \
        for (int64_t i = 0; i < n; i++) {                                                     \
            C v = wk_ld_##sfx(x + i * s);                                                     \
            max = v > max ? v : max;                                                          \
        }                                                                                     \
        double sum = 0;                                                                       \
        for (int64_t i = 0; i < n; i++) {                                                     \
            C e = EXP(wk_ld_##sfx(x + i * s) - max);                                          \
            sum += e;                                                                         \
            if (keep_exp && !c->log)                                                          \
                wk_st_##sfx(y + i, e);                                                        \
        }                                                                                     \
        if (c->log) {                                                                         \
            C lsum = (C)log(sum);                                                             \
            for (int64_t i = 0; i < n; i++)                                                   \
                wk_st_##sfx(y + i, wk_ld_##sfx(x + i * s) - max - lsum);                      \
            return;                                                                           \
        }                                                                                     \
        C inv = (C)(1.0 / sum);                                                               \
        for (int64_t i = 0; i < n; i++) {                                                     \
            C e = keep_exp ? wk_ld_##sfx(y + i) : EXP(wk_ld_##sfx(x + i * s) - max);          \
            wk_st_##sfx(y + i, e * inv);                                                      \
        }                                                                                     \
    }                                                                                         \
    static void rms_norm_row_##sfx(const norm_ctx *c, const char *xb, char *yb)               \
    {                                                                                         \
        const T *x = (const T *)xb, *w = (const T *)c->w;                                     \
        T *y = (T *)yb;                                                                       \
        int64_t n = c->n, s = c->s;                                                           \
        double sum, ss;                                                                       \
        row_stats_##sfx(x, n, s, 0, &sum, &ss);                                               \
        C scale = (C)(1.0 / sqrt(ss / (double)n + c->eps));                                   \
        for (int64_t i = 0; i < n; i++)                                                       \
            wk_st_##sfx(y + i, wk_ld_##sfx(x + i * s) * scale * wk_ld_##sfx(w + i * c->ws));  \
    }                                                                                         \
    static void layer_norm_row_##sfx(const norm_ctx *c, const char *xb, char *yb)             \
    {                                                                                         \
        const T *x = (const T *)xb, *w = (const T *)c->w, *b = (const T *)c->b;               \
        T *y = (T *)yb;                                                                       \
        int64_t n = c->n, s = c->s;                                                           \
        double sum, var;                                                                      \
        row_stats_##sfx(x, n, s, 0, &sum, &var);                                              \
        double mean = sum / (double)n;                                                        \
        row_stats_##sfx(x, n, s, mean, &sum, &var); /* two passes: no cancellation */         \
        C rstd = (C)(1.0 / sqrt(var / (double)n + c->eps)), m = (C)mean;                      \
        for (int64_t i = 0; i < n; i++) {                                                     \
            C v = (wk_ld_##sfx(x + i * s) - m) * rstd;                                        \
            if (w)                                                                            \
                v *= wk_ld_##sfx(w + i * c->ws);                                              \
            if (b)                                                                            \
                v += wk_ld_##sfx(b + i * c->bs);                                              \
            wk_st_##sfx(y + i, v);                                                            \
        }                                                                                     \
    }

NORM_DTYPES(DEF_NORM)

typedef struct norm_kernels { norm_row_fn softmax, rms_norm, layer_norm; } norm_kernels;
#define NORM_ENTRY(sfx, T, C, EXP, keep_exp) {softmax_row_##sfx, rms_norm_row_##sfx, layer_norm_row_##sfx},
static const norm_kernels norm_table[4] = {NORM_DTYPES(NORM_ENTRY)}; /* f16, bf16, f32, f64 */

static const norm_kernels *kernels_for(wk_dtype dt)
{
    return &norm_table[dt == WK_F16 ? 0 : dt == WK_BF16 ? 1 : dt == WK_F32 ? 2 : 3];
}

static void norm_body(void *ctx, int64_t begin, int64_t end)
{
    const norm_ctx *c = ctx;
    wk_rows_iter it;
    wk_rows_seek(&c->outer, begin, &it);
    for (int64_t o = begin; o < end; o++, wk_rows_advance(&c->outer, &it, 1))
        c->row(c, c->x + it.off * c->es, c->out + o * c->n * c->es);
}

/* Runs c->row over every row of x (rank >= 1) into the contiguous out. */
static wk_status run_rows(norm_ctx *c, const wk_tensor *x, wk_tensor *out)
{
    int last = x->rank - 1;
    c->x = wk_tensor_data(x);
    c->out = wk_tensor_data(out);
    c->es = (int64_t)wk_dtype_size(x->dtype);
    c->n = x->shape[last];
    c->s = x->strides[last];
    wk_rows_init(&c->outer, x, last);
    int64_t rows = wk_numel(last, x->shape);
    if (c->n > 0)
        wk_cpu_parallel_for(rows, WK_CPU_GRAIN / c->n + 1, norm_body, c);
    return WK_OK;
}

wk_status wk_cpu_softmax(const wk_tensor *x, bool log, wk_tensor *out)
{
    norm_ctx c = {.row = kernels_for(x->dtype)->softmax, .log = log};
    return run_rows(&c, x, out);
}

wk_status wk_cpu_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor *out)
{
    norm_ctx c = {.row = kernels_for(x->dtype)->rms_norm, .w = wk_tensor_data(w), .ws = w->strides[0], .eps = eps};
    return run_rows(&c, x, out);
}

wk_status wk_cpu_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, wk_tensor *out)
{
    norm_ctx c = {.row = kernels_for(x->dtype)->layer_norm, .eps = eps};
    if (w) {
        c.w = wk_tensor_data(w);
        c.ws = w->strides[0];
    }
    if (b) {
        c.b = wk_tensor_data(b);
        c.bs = b->strides[0];
    }
    return run_rows(&c, x, out);
}
