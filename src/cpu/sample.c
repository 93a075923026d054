/* sample.c: the CPU's sampling slots (wick.h's wk_sample and wk_multinomial): penalties over previous ids, the
 * pick among sorted candidates, multinomial draws; the blocked cumulative sums and draws of core/numerics.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/numerics.h"
#include "cpu/cpu.h"
#include "cpu/iter.h"

/* C[j] for j < n: the blocked cumulative sum of w (numerics.h's WK_CDF_BLOCK). */
static void blocked_cumsum(const double *w, int64_t n, double *C)
{
    double before = 0.0;
    for (int64_t b = 0; b < n; b += WK_CDF_BLOCK) {
        double s = 0.0;
        int64_t end = b + WK_CDF_BLOCK < n ? b + WK_CDF_BLOCK : n;
        for (int64_t j = b; j < end; j++) {
            s += w[j];
            C[j] = before + s;
        }
        before = before + s;
    }
}

/* The first j < n with C[j] > target, else the last j with w[j] > 0 (0 when none). */
static int64_t first_above(const double *w, const double *C, int64_t n, double target)
{
    int64_t last = 0;
    for (int64_t j = 0; j < n; j++) {
        if (C[j] > target)
            return j;
        if (w[j] > 0)
            last = j;
    }
    return last;
}

wk_status wk_cpu_sample_penalize(wk_tensor *z, const wk_tensor *prev, const wk_tensor *params)
{
    int64_t rows = z->shape[0], V = z->shape[1], P = prev->shape[1];
    float *zd = wk_tensor_data(z);
    const double *par = wk_tensor_data(params);
    const void *pd = wk_tensor_data(prev);
    unsigned char *seen = malloc((size_t)V);
    if (!seen)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "sample: cannot allocate %lld bytes of scratch", (long long)V);
    for (int64_t r = 0; r < rows; r++) {
        const double *q = par + r * WK_SAMPLE_NPARAM;
        float rep = (float)q[WK_SP_REP], pres = (float)q[WK_SP_PRES];
        memset(seen, 0, (size_t)V);
        for (int64_t j = 0; j < P; j++) {
            int64_t t = prev->dtype == WK_I64 ? ((const int64_t *)pd)[r * P + j] : ((const int32_t *)pd)[r * P + j];
            if (t < 0 || t >= V || seen[t])
                continue;
            seen[t] = 1;
            float l = zd[r * V + t];
            l = l > 0 ? l / rep : l * rep;
            zd[r * V + t] = l - pres;
        }
    }
    free(seen);
    return WK_OK;
}

/* One row's pick (wick.h's steps 2 to 6) among n candidates c (sorted), w and C scratch of n. */
static int64_t pick_row(const float *c, const int64_t *ids, int64_t n, const double *q, double u, double *w,
                        double *C)
{
    float t = (float)q[WK_SP_TEMP];
    if (isnan(c[0]))
        return -1;
    if (t == 0)
        return ids[0];
    int64_t kr = (int64_t)q[WK_SP_TOPK];
    if (kr <= 0 || kr > n)
        kr = n;
    for (int64_t j = 0; j < kr; j++)
        w[j] = wk_sample_weight(c[j], c[0], t);
    blocked_cumsum(w, kr, C);
    double thr = q[WK_SP_TOPP] * C[kr - 1], min_p = q[WK_SP_MINP];
    int64_t kept = kr;
    for (int64_t j = 0; j < kr; j++)
        if (C[j] >= thr) {
            kept = j + 1;
            break;
        }
    for (int64_t j = 1; j < kept; j++)
        if (w[j] < min_p) {
            kept = j;
            break;
        }
    return ids[first_above(w, C, kept, u * C[kept - 1])];
}

wk_status wk_cpu_sample_pick(const wk_tensor *cand, const wk_tensor *cand_ids, const wk_tensor *params,
                             uint64_t offset, wk_tensor *ids)
{
    int64_t rows = cand->shape[0], n = cand->shape[1];
    const float *c = wk_tensor_data(cand);
    const int64_t *ci = wk_tensor_data(cand_ids);
    const double *par = wk_tensor_data(params);
    int64_t *out = wk_tensor_data(ids);
    double *w = malloc((size_t)n * 2 * sizeof(double));
    if (!w)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "sample: cannot allocate scratch for %lld candidates", (long long)n);
    for (int64_t r = 0; r < rows; r++) {
        const double *q = par + r * WK_SAMPLE_NPARAM;
        uint64_t seed = (uint64_t)q[WK_SP_SEED_LO] | (uint64_t)q[WK_SP_SEED_HI] << 32;
        double u = wk_sample_uniform(seed, offset, (uint64_t)r);
        out[r] = pick_row(c + r * n, ci + r * n, n, q, u, w, w + n);
    }
    free(w);
    return WK_OK;
}

/* One row of multinomial: w (V) the weights (consumed), C scratch (V). */
static void multinomial_row(double *w, double *C, int64_t V, int64_t n, bool replacement, uint64_t seed, int64_t r,
                            int64_t *out)
{
    bool bad = false;
    for (int64_t i = 0; i < V; i++)
        bad |= !(w[i] >= 0) || isinf(w[i]);
    for (int64_t j = 0; j < n; j++) {
        if (j == 0 || !replacement)
            blocked_cumsum(w, V, C);
        if (bad || !(C[V - 1] > 0)) {
            out[j] = -1;
            continue;
        }
        double u = wk_sample_uniform(seed, (uint64_t)j, (uint64_t)r);
        out[j] = first_above(w, C, V, u * C[V - 1]);
        if (!replacement)
            w[out[j]] = 0;
    }
}

wk_status wk_cpu_multinomial(const wk_tensor *probs, int64_t n, bool replacement, uint64_t seed, wk_tensor *out)
{
    int64_t rows = probs->shape[0], V = probs->shape[1];
    double *w = malloc((size_t)V * 2 * sizeof(double));
    if (!w)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "multinomial: cannot allocate scratch for %lld weights", (long long)V);
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t i = 0; i < V; i++)
            w[i] = probs->dtype == WK_F64 ? ((const double *)wk_tensor_data(probs))[r * V + i]
                                          : ((const float *)wk_tensor_data(probs))[r * V + i];
        multinomial_row(w, w + V, V, n, replacement, seed, r, (int64_t *)wk_tensor_data(out) + r * n);
    }
    free(w);
    return WK_OK;
}
