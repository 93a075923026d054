/* stats.c: the CPU's stats slot: var, std, logsumexp and the 1-, 2- and inf-norms over the last dim, one row at a
 * time, every dtype computed in f64 (two passes for var and logsumexp). */
#include <math.h>

#include "cpu/cpu.h"
#include "cpu/rowwise.h"

typedef struct stats_ctx {
    wk_stats_op op;
    wk_dtype dt;
    const char *x;
    char *out;
    wk_rows outer;
    int64_t es, n, s;
    double correction;
} stats_ctx;

/* The statistic of row x (n >= 1 elements at stride s). */
static double row_stat(const stats_ctx *c, const char *x)
{
    int64_t n = c->n, s = c->s;
    double acc = 0, m = -INFINITY;
#define X(i) wk_cpu_ld_float(c->dt, x, (i) * s)
    switch (c->op) {
    case WK_STATS_VAR:
    case WK_STATS_STD: {
        for (int64_t i = 0; i < n; i++)
            acc += X(i);
        double mean = acc / (double)n, ss = 0;
        for (int64_t i = 0; i < n; i++)
            ss += (X(i) - mean) * (X(i) - mean);
        double div = (double)n - c->correction, var = ss / (div > 0 ? div : 0);
        return c->op == WK_STATS_STD ? sqrt(var) : var;
    }
    case WK_STATS_LOGSUMEXP:
        for (int64_t i = 0; i < n; i++) {
            double v = X(i);
            if (isnan(v))
                return v;
            m = v > m ? v : m;
        }
        if (isinf(m))
            return m;
        for (int64_t i = 0; i < n; i++)
            acc += exp(X(i) - m);
        return m + log(acc);
    case WK_STATS_NORM1:
        for (int64_t i = 0; i < n; i++)
            acc += fabs(X(i));
        return acc;
    case WK_STATS_NORM2:
        for (int64_t i = 0; i < n; i++)
            acc += X(i) * X(i);
        return sqrt(acc);
    default:
        for (int64_t i = 0; i < n; i++) {
            double v = fabs(X(i));
            if (isnan(v))
                return v;
            acc = v > acc ? v : acc;
        }
        return acc;
    }
#undef X
}

static void stats_body(void *ctx, int64_t begin, int64_t end)
{
    const stats_ctx *c = ctx;
    wk_rows_iter it;
    wk_rows_seek(&c->outer, begin, &it);
    for (int64_t o = begin; o < end; o++, wk_rows_advance(&c->outer, &it, 1))
        wk_cpu_st_float(c->dt, c->out, o, row_stat(c, c->x + it.off * c->es));
}

wk_status wk_cpu_stats(wk_stats_op op, const wk_tensor *x, double correction, wk_tensor *out)
{
    int last = x->rank - 1;
    stats_ctx c = {.op = op, .dt = x->dtype, .x = wk_tensor_data(x), .out = wk_tensor_data(out),
                   .es = (int64_t)wk_dtype_size(x->dtype), .n = x->shape[last], .s = x->strides[last],
                   .correction = correction};
    wk_rows_init(&c.outer, x, last);
    wk_cpu_parallel_for(wk_numel(last, x->shape), WK_CPU_GRAIN / c.n + 1, stats_body, &c);
    return WK_OK;
}
