/* norm_channel.c: the CPU's batch_norm (inference) and group_norm slots over x as (N, C, S), any strides; every
 * dtype computed in f64 (group_norm's statistics in two passes: the mean, then the squared deviations). */
#include <math.h>

#include "cpu/cpu.h"

typedef struct chan_ctx {
    wk_dtype dt;
    const char *x, *mean, *var, *w, *b; /* mean, var: batch_norm; w, b may be NULL */
    char *out;
    int64_t C, S, G, es;
    int64_t sn, sc, ss;                 /* x's strides */
    int64_t pm, pv, pw, pb;             /* the parameters' strides */
    double eps;
} chan_ctx;

static double param(const chan_ctx *c, const char *p, int64_t stride, int64_t ch, double none)
{
    return p ? wk_cpu_ld_float(c->dt, p, ch * stride) : none;
}

/* y = (x - center) * scale * w[c] + b[c] over channel ch of sample nb, into out. */
static void normalize_channel(const chan_ctx *c, int64_t nb, int64_t ch, double center, double scale)
{
    const char *x = c->x + (nb * c->sn + ch * c->sc) * c->es;
    int64_t o = (nb * c->C + ch) * c->S;
    double w = param(c, c->w, c->pw, ch, 1), b = param(c, c->b, c->pb, ch, 0);
    for (int64_t i = 0; i < c->S; i++) {
        double y = (wk_cpu_ld_float(c->dt, x, i * c->ss) - center) * scale;
        if (c->w)
            y *= w;
        if (c->b)
            y += b;
        wk_cpu_st_float(c->dt, c->out, o + i, y);
    }
}

/* Items: (sample, channel) pairs. */
static void batch_body(void *ctx, int64_t begin, int64_t end)
{
    const chan_ctx *c = ctx;
    for (int64_t k = begin; k < end; k++) {
        int64_t ch = k % c->C;
        double var = param(c, c->var, c->pv, ch, 0);
        normalize_channel(c, k / c->C, ch, param(c, c->mean, c->pm, ch, 0), 1.0 / sqrt(var + c->eps));
    }
}

/* Items: (sample, group) pairs. */
static void group_body(void *ctx, int64_t begin, int64_t end)
{
    const chan_ctx *c = ctx;
    int64_t cpg = c->C / c->G;
    for (int64_t k = begin; k < end; k++) {
        int64_t nb = k / c->G, c0 = (k % c->G) * cpg;
        double sum = 0, sq = 0, n = (double)(cpg * c->S);
        for (int pass = 0; pass < 2; pass++) {
            double mean = sum / n;
            for (int64_t ch = c0; ch < c0 + cpg; ch++) {
                const char *x = c->x + (nb * c->sn + ch * c->sc) * c->es;
                for (int64_t i = 0; i < c->S; i++) {
                    double v = wk_cpu_ld_float(c->dt, x, i * c->ss);
                    if (pass == 0)
                        sum += v;
                    else
                        sq += (v - mean) * (v - mean);
                }
            }
        }
        double mean = sum / n, scale = 1.0 / sqrt(sq / n + c->eps);
        for (int64_t ch = c0; ch < c0 + cpg; ch++)
            normalize_channel(c, nb, ch, mean, scale);
    }
}

static chan_ctx make_ctx(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, wk_tensor *out)
{
    chan_ctx c = {.dt = x->dtype, .x = wk_tensor_data(x), .out = wk_tensor_data(out), .C = x->shape[1],
                  .S = x->shape[2], .G = 1, .es = (int64_t)wk_dtype_size(x->dtype), .sn = x->strides[0],
                  .sc = x->strides[1], .ss = x->strides[2], .eps = eps};
    if (w) {
        c.w = wk_tensor_data(w);
        c.pw = w->strides[0];
    }
    if (b) {
        c.b = wk_tensor_data(b);
        c.pb = b->strides[0];
    }
    return c;
}

wk_status wk_cpu_batch_norm(const wk_tensor *x, const wk_tensor *mean, const wk_tensor *var, const wk_tensor *w,
                            const wk_tensor *b, double eps, wk_tensor *out)
{
    chan_ctx c = make_ctx(x, w, b, eps, out);
    c.mean = wk_tensor_data(mean);
    c.pm = mean->strides[0];
    c.var = wk_tensor_data(var);
    c.pv = var->strides[0];
    wk_cpu_parallel_for(x->shape[0] * c.C, WK_CPU_GRAIN / c.S + 1, batch_body, &c);
    return WK_OK;
}

wk_status wk_cpu_group_norm(const wk_tensor *x, int64_t groups, const wk_tensor *w, const wk_tensor *b, double eps,
                            wk_tensor *out)
{
    chan_ctx c = make_ctx(x, w, b, eps, out);
    c.G = groups;
    wk_cpu_parallel_for(x->shape[0] * groups, WK_CPU_GRAIN / (c.C / groups * c.S) + 1, group_body, &c);
    return WK_OK;
}
