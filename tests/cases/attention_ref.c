/* attention_ref.c: the attention cases' inputs, their float64 reference (a plain softmax over every key a query
 * sees, written from wick.h's rules) and the family's error paths. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention_ref.h"

wk_status attn_make(wk_device *dev, wk_dtype dt, const int64_t *shape, wkt_layout layout, bool bshd, wkt_rng *rng,
                    wk_tensor **t, double **vals)
{
    if (!bshd)
        return wkt_make(dev, dt, 4, shape, layout, wkt_dist_default(dt), rng, t, vals);
    const int64_t s[4] = {shape[0], shape[2], shape[1], shape[3]};
    wk_tensor *buf = NULL;
    double *bv = NULL;
    ATTN_TRY(wkt_make(dev, dt, 4, s, layout, wkt_dist_default(dt), rng, &buf, &bv));
    int dims[4] = {0, 2, 1, 3};
    wk_status st = wk_permute(buf, dims, t);
    wk_tensor_release(buf);
    *vals = malloc(sizeof(double) * (size_t)(s[0] * s[1] * s[2] * s[3] + 1));
    if (st == WK_OK && *vals == NULL)
        st = attn_oom();
    for (int64_t a = 0; st == WK_OK && a < s[0]; a++)
        for (int64_t b = 0; b < s[1]; b++)
            for (int64_t c = 0; c < s[2]; c++)
                for (int64_t d = 0; d < s[3]; d++)
                    (*vals)[((a * shape[1] + c) * shape[2] + b) * shape[3] + d] = bv[((a * s[1] + b) * s[2] + c) * s[3] + d];
    free(bv);
    return st;
}

void attn_bias_shape(const attn_spec *s, int64_t *shape, int *rank)
{
    switch (s->bias) {
    case ATTN_BIAS_F32: *rank = 4; shape[0] = s->b; shape[1] = s->hq; shape[2] = s->sq; shape[3] = s->skv; break;
    case ATTN_BIAS_DTYPE: *rank = 3; shape[0] = s->hq; shape[1] = 1; shape[2] = s->skv; break;
    case ATTN_BIAS_MASK: *rank = 4; shape[0] = s->b; shape[1] = 1; shape[2] = s->sq; shape[3] = s->skv; break;
    default: *rank = 2; shape[0] = s->sq; shape[1] = s->skv; break;
    }
}

/* Element e of key/value row j of batch b, head g (through the table when paged). */
static double kv_at(const attn_spec *s, const attn_data *x, const double *vals, int64_t dim, int64_t b, int64_t g,
                    int64_t j, int64_t e)
{
    if (s->block) {
        int64_t blk = x->table[b * (s->skv / s->block) + j / s->block];
        return vals[((blk * s->hkv + g) * s->block + j % s->block) * dim + e];
    }
    return vals[((b * s->hkv + g) * s->skv + j) * dim + e];
}

/* The bias at (b, h, i, j), broadcast from its own shape (right-aligned). */
static double bias_at(const attn_data *x, int64_t b, int64_t h, int64_t i, int64_t j)
{
    const int64_t at[4] = {b, h, i, j};
    int64_t idx = 0;
    for (int k = 0; k < x->bias_rank; k++) {
        int64_t n = x->bias_shape[k], c = at[4 - x->bias_rank + k];
        idx = idx * n + (n == 1 ? 0 : c);
    }
    return x->biasv[idx];
}

/* Score of (b, h, i) against key j, or -inf when the key is not seen. */
static double score(const attn_spec *s, const attn_data *x, int64_t b, int64_t h, int64_t i, int64_t j, int64_t len)
{
    int64_t pos = i + len - s->sq, g = h / (s->hq / s->hkv);
    int64_t wl = s->flags & ATTN_WINDOW ? s->wl : -1, wr = s->flags & ATTN_WINDOW ? s->wr : -1;
    if (s->flags & ATTN_CAUSAL && wr != 0)
        wr = 0;
    if ((wl >= 0 && j < pos - wl) || (wr >= 0 && j > pos + wr))
        return -INFINITY;
    double dot = 0, scale = s->scale != 0 ? s->scale : 1.0 / sqrt((double)s->d);
    for (int64_t e = 0; e < s->d; e++)
        dot += x->qv[((b * s->hq + h) * s->sq + i) * s->d + e] * kv_at(s, x, x->kv, s->d, b, g, j, e);
    double v = scale * dot;
    if (s->softcap > 0)
        v = s->softcap * tanh(v / s->softcap);
    if (s->flags & ATTN_ALIBI)
        v -= x->alibiv[h] * fabs((double)(pos - j));
    if (x->bias) {
        double bv = bias_at(x, b, h, i, j);
        v = x->bias_dtype == WK_U8 ? (bv != 0 ? v : -INFINITY) : v + bv;
    }
    return v;
}

void attn_reference(const attn_spec *s, const attn_data *x, double *out, double *lse)
{
    double *sc = malloc(sizeof(double) * (size_t)(s->skv + 1));
    for (int64_t b = 0; sc && b < s->b; b++)
        for (int64_t h = 0; h < s->hq; h++)
            for (int64_t i = 0; i < s->sq; i++) {
                int64_t len = s->flags & ATTN_LENS || s->block ? x->lens[b] : s->skv, g = h / (s->hq / s->hkv);
                int64_t row = (b * s->hq + h) * s->sq + i;
                double m = -INFINITY, sum = 0;
                for (int64_t j = 0; j < len; j++) {
                    sc[j] = score(s, x, b, h, i, j, len);
                    m = sc[j] > m ? sc[j] : m;
                }
                for (int64_t e = 0; e < s->dv; e++)
                    out[row * s->dv + e] = 0;
                lse[row] = -INFINITY;
                if (m == -INFINITY)
                    continue;
                for (int64_t j = 0; j < len; j++) {
                    double p = sc[j] == -INFINITY ? 0 : exp(sc[j] - m);
                    sum += p;
                    for (int64_t e = 0; e < s->dv && p != 0; e++)
                        out[row * s->dv + e] += p * kv_at(s, x, x->vv, s->dv, b, g, j, e);
                }
                for (int64_t e = 0; e < s->dv; e++)
                    out[row * s->dv + e] /= sum;
                lse[row] = m + log(sum);
            }
    free(sc);
}

void attn_append_reference(const attn_spec *s, attn_data *x, const attn_data *nw)
{
    for (int64_t b = 0; b < s->b; b++)
        for (int64_t g = 0; g < s->hkv; g++)
            for (int64_t t = 0; t < s->sq; t++) {
                int64_t pos = x->lens[b] + t, row;
                if (s->block)
                    row = (x->table[b * (s->skv / s->block) + pos / s->block] * s->hkv + g) * s->block + pos % s->block;
                else
                    row = (b * s->hkv + g) * s->skv + pos;
                int64_t src = (b * s->hkv + g) * s->sq + t;
                memcpy(x->kv + row * s->d, nw->kv + src * s->d, sizeof(double) * (size_t)s->d);
                memcpy(x->vv + row * s->dv, nw->vv + src * s->dv, sizeof(double) * (size_t)s->dv);
            }
}

void attn_data_free(attn_data *x)
{
    wk_tensor *ts[] = {x->q, x->k, x->v, x->bias, x->alibi, x->lens_t, x->table_t};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        wk_tensor_release(ts[i]);
    free(x->qv);
    free(x->kv);
    free(x->vv);
    free(x->biasv);
    free(x->alibiv);
    free(x->lens);
    free(x->table);
    memset(x, 0, sizeof *x);
}
