/* scan.c: the CPU's scan slot: cumsum, cumprod and logcumsumexp along one dim, line by line. Accumulators as
 * PyTorch's CPU kernels: f32 for f16/bf16, f64 for f32/f64, i64 (wrapping) for integers. */
#include <math.h>

#include "cpu/cpu.h"
#include "cpu/rowwise.h"

typedef struct scan_ctx {
    wk_scan_op op;
    wk_dtype dt;
    const char *x;
    char *out;
    wk_rows lines;    /* x's dims but the scanned one, merged: where each line starts */
    int64_t es, n, s;    /* element size, line length, x's stride along it */
    int64_t inner;    /* out's elements after the scanned dim: line L at (L / inner) * n * inner + L % inner */
} scan_ctx;

/* PyTorch's log-add-exp step (its _log_add_exp_helper): equal infinities stay as they are, NaN spreads. */
static double log_add_exp(double x, double y)
{
    double lo = isnan(y) ? y : y < x ? y : x, hi = isnan(y) ? y : x < y ? y : x; /* a NaN y must win either way */
    if (lo != hi || isfinite(lo))
        return hi + log1p(exp(lo - hi));
    return x;
}

static float log_add_expf(float x, float y)
{
    float lo = isnan(y) ? y : y < x ? y : x, hi = isnan(y) ? y : x < y ? y : x;
    if (lo != hi || isfinite(lo))
        return hi + log1pf(expf(lo - hi));
    return x;
}

static void int_line(const scan_ctx *c, const char *x, int64_t *y)
{
    uint64_t acc = c->op == WK_SCAN_SUM ? 0 : 1;
    for (int64_t k = 0; k < c->n; k++) {
        uint64_t v = (uint64_t)wk_cpu_load_index(c->dt, x, k * c->s);
        acc = c->op == WK_SCAN_SUM ? acc + v : acc * v;
        y[k * c->inner] = (int64_t)acc;
    }
}

/* f16/bf16: an f32 accumulator, each output rounded once. */
static void half_line(const scan_ctx *c, const char *x, char *y)
{
    float acc = c->op == WK_SCAN_SUM ? 0.0f : c->op == WK_SCAN_PROD ? 1.0f : -INFINITY;
    for (int64_t k = 0; k < c->n; k++) {
        float v = (float)wk_cpu_ld_float(c->dt, x, k * c->s);
        acc = c->op == WK_SCAN_SUM ? acc + v : c->op == WK_SCAN_PROD ? acc * v : log_add_expf(v, acc);
        wk_cpu_st_float(c->dt, y, k * c->inner, acc);
    }
}

static void wide_line(const scan_ctx *c, const char *x, char *y)
{
    double acc = c->op == WK_SCAN_SUM ? 0.0 : c->op == WK_SCAN_PROD ? 1.0 : -INFINITY;
    for (int64_t k = 0; k < c->n; k++) {
        double v = wk_cpu_ld_float(c->dt, x, k * c->s);
        acc = c->op == WK_SCAN_SUM ? acc + v : c->op == WK_SCAN_PROD ? acc * v : log_add_exp(v, acc);
        wk_cpu_st_float(c->dt, y, k * c->inner, acc);
    }
}

static void scan_body(void *ctx, int64_t begin, int64_t end)
{
    const scan_ctx *c = ctx;
    int64_t oes = wk_dtype_is_float(c->dt) ? c->es : 8;
    wk_rows_iter it;
    wk_rows_seek(&c->lines, begin, &it);
    for (int64_t L = begin; L < end; L++, wk_rows_advance(&c->lines, &it, 1)) {
        const char *x = c->x + it.off * c->es;
        char *y = c->out + ((L / c->inner) * c->n * c->inner + L % c->inner) * oes;
        if (!wk_dtype_is_float(c->dt))
            int_line(c, x, (int64_t *)(void *)y);
        else if (c->dt == WK_F16 || c->dt == WK_BF16)
            half_line(c, x, y);
        else
            wide_line(c, x, y);
    }
}

wk_status wk_cpu_scan(wk_scan_op op, const wk_tensor *x, int dim, wk_tensor *out)
{
    scan_ctx c = {.op = op, .dt = x->dtype, .x = wk_tensor_data(x), .out = wk_tensor_data(out),
                  .es = (int64_t)wk_dtype_size(x->dtype), .n = x->shape[dim], .s = x->strides[dim], .inner = 1};
    int r = 0;
    for (int d = 0; d < x->rank; d++) {
        if (d == dim)
            continue;
        c.lines.shape[r] = x->shape[d];
        c.lines.stride[r++] = x->strides[d];
        if (d > dim)
            c.inner *= x->shape[d];
    }
    c.lines.rank = wk_merge_dims(r, c.lines.shape, c.lines.stride);
    wk_cpu_parallel_for(wk_numel(x->rank, x->shape) / c.n, WK_CPU_GRAIN / c.n + 1, scan_body, &c);
    return WK_OK;
}
