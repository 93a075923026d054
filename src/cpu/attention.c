/* attention.c: the CPU's fused attention: a tiled online softmax that never holds an Sq x Skv buffer. A work item
 * is (batch, key/value head, a chunk of its query heads, a query tile, a key split): the group's query heads share
 * each key/value tile, converted to f32 once; the splits of a long key range (decode) merge by their lse. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/error.h"
#include "cpu/attention.h"
#include "cpu/vmath.h"

#define ATTN_TK 64       /* keys per tile */
#define ATTN_ROWS 64     /* query rows (heads x queries) per item */
#define ATTN_MIN_SPLIT 4 /* key tiles a split holds at least */
#define ATTN_VEC 16      /* columns a micro-kernel step holds in registers; Dv is padded to it */

typedef struct attn_job {
    const wk_attn *a;
    int64_t B, hq, hkv, group, sq, d, dv, dvp; /* dvp: dv rounded up to ATTN_VEC (acc's row stride, a copied v's) */
    int64_t nh, hchunks, nq, qtiles; /* heads and queries per item; chunks of them */
    int64_t splits, split_len;       /* key splits and the keys each covers (a multiple of ATTN_TK) */
    float *partial;                  /* splits > 1: per (item, split), rows x (dv + 2): acc, m, l */
    atomic_int failed;
} attn_job;

/* One item's rows: row r is query head h0 + r / nq, query i0 + r % nq; seen keys [lo, hi). */
typedef struct attn_rows {
    int64_t b, kvh, h0, i0, n, nq;
    int64_t len; /* the batch's key count */
    int64_t lo[ATTN_ROWS], hi[ATTN_ROWS];
    float slope[ATTN_ROWS];
} attn_rows;

/* Thread scratch: q rows (ATTN_ROWS x d), a transposed key tile (d x ATTN_TK), a value tile (ATTN_TK x dvp: where
 * the values are not read in place, load_kv_tile), the tile's scores (ATTN_ROWS x ATTN_TK), and the running state
 * (acc ATTN_ROWS x dvp, m, l). */
typedef struct attn_scratch {
    float *q, *kt, *v, *s, *acc, *m, *l, *corr, *bias;
} attn_scratch;

static void rows_init(const attn_job *j, int64_t item, attn_rows *r)
{
    const wk_attn *a = j->a;
    int64_t qt = item % j->qtiles, rest = item / j->qtiles;
    int64_t hc = rest % j->hchunks;
    rest /= j->hchunks;
    r->kvh = rest % j->hkv;
    r->b = rest / j->hkv;
    r->h0 = r->kvh * j->group + hc * j->nh;
    r->i0 = qt * j->nq;
    int64_t heads = j->group - hc * j->nh < j->nh ? j->group - hc * j->nh : j->nh;
    r->nq = j->sq - r->i0 < j->nq ? j->sq - r->i0 : j->nq;
    r->n = heads * r->nq;
    r->len = a->seq_lens ? wk_attn_seq_len(a->seq_lens, r->b) : a->skv;
    for (int64_t k = 0; k < r->n; k++) {
        int64_t h = r->h0 + k / r->nq, pos = r->i0 + k % r->nq + r->len - j->sq;
        int64_t lo = a->window_left >= 0 ? pos - a->window_left : 0;
        int64_t hi = a->window_right >= 0 ? pos + a->window_right + 1 : r->len;
        r->lo[k] = lo < 0 ? 0 : lo;
        r->hi[k] = hi > r->len ? r->len : hi;
        r->slope[k] = a->alibi ? *(const float *)((const char *)wk_tensor_data(a->alibi) +
                                                  h * a->alibi->strides[0] * (int64_t)sizeof(float))
                               : 0.0f;
    }
}

/* Element address (bytes) of key/value position `pos` of batch b, head kvh: through the block table when paged. */
static inline const char *kv_row(const wk_attn *a, const wk_tensor *t, int64_t b, int64_t kvh, int64_t pos)
{
    int64_t es = (int64_t)wk_dtype_size(t->dtype), base;
    if (a->block_size > 0) {
        int64_t blk = wk_attn_block_id(a->block_table, b, pos / a->block_size);
        base = blk * t->strides[0] + kvh * t->strides[1] + (pos % a->block_size) * t->strides[2];
    } else {
        base = b * t->strides[0] + kvh * t->strides[1] + pos * t->strides[2];
    }
    return (const char *)wk_tensor_data(t) + base * es;
}

/* Keys [j0, j0 + n): k transposed into kt[d][c] (row stride ATTN_TK); v's rows returned, *vs floats apart: read in
 * place where they are f32 rows of dvp contiguous values in one array (not paged), else copied into w->v (dvp
 * apart, padded with zeros). f32 keys with unit stride are read in place too; other dtypes go through a row copy. */
static const float *load_kv_tile(const attn_job *j, const attn_rows *r, int64_t j0, int64_t n, attn_scratch *w,
                                 int64_t *vs)
{
    const wk_attn *a = j->a;
    const wk_tensor *k = a->k, *v = a->v;
    int64_t es = (int64_t)wk_dtype_size(k->dtype); /* q, k and v share a dtype */
    bool k_direct = k->dtype == WK_F32 && k->strides[3] == 1;
    float col[256];
    for (int64_t c = 0; c < ATTN_TK; c++) {
        const float *kr = col;
        if (c < n && k_direct)
            kr = (const float *)(const void *)kv_row(a, k, r->b, r->kvh, j0 + c);
        else if (c < n)
            wk_chunk_load(k->dtype, col, kv_row(a, k, r->b, r->kvh, j0 + c), k->strides[3] * es, j->d);
        for (int64_t d = 0; d < j->d; d++)
            w->kt[d * ATTN_TK + c] = c < n ? kr[d] : 0.0f;
    }
    if (v->dtype == WK_F32 && v->strides[3] == 1 && a->block_size == 0 && j->dv == j->dvp) {
        *vs = v->strides[2];
        return (const float *)(const void *)kv_row(a, v, r->b, r->kvh, j0);
    }
    for (int64_t c = 0; c < n; c++) {
        float *vrow = w->v + c * j->dvp;
        wk_chunk_load(v->dtype, vrow, kv_row(a, v, r->b, r->kvh, j0 + c), v->strides[3] * es, j->dv);
        for (int64_t e = j->dv; e < j->dvp; e++)
            vrow[e] = 0.0f;
    }
    *vs = j->dvp;
    return w->v;
}

/* Row k's bias over keys [j0, j0 + n) into w->bias (a u8 mask: 0 where kept, -inf where dropped). */
static void load_bias(const attn_job *j, const attn_rows *r, int64_t k, int64_t j0, int64_t n, attn_scratch *w)
{
    const wk_tensor *t = j->a->bias;
    int64_t h = r->h0 + k / r->nq, i = r->i0 + k % r->nq, es = (int64_t)wk_dtype_size(t->dtype);
    const char *p = (const char *)wk_tensor_data(t) +
                    (r->b * t->strides[0] + h * t->strides[1] + i * t->strides[2] + j0 * t->strides[3]) * es;
    if (t->dtype == WK_U8) {
        for (int64_t c = 0; c < n; c++)
            w->bias[c] = p[c * t->strides[3]] ? 0.0f : -INFINITY;
    } else {
        wk_chunk_load(t->dtype, w->bias, p, t->strides[3] * es, n);
    }
}

/* S (rows x ATTN_TK) = Q (rows x d) Kt (d x ATTN_TK): four rows by ATTN_VEC columns held in registers. */
WK_VEC_CLONES static void tile_scores(const float *restrict q, const float *restrict kt, float *restrict s,
                                      int64_t rows, int64_t d)
{
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
        for (int64_t c0 = 0; c0 < ATTN_TK; c0 += ATTN_VEC) {
            float a0[ATTN_VEC] = {0}, a1[ATTN_VEC] = {0}, a2[ATTN_VEC] = {0}, a3[ATTN_VEC] = {0};
            const float *q0 = q + r * d, *q1 = q0 + d, *q2 = q1 + d, *q3 = q2 + d;
            for (int64_t e = 0; e < d; e++) {
                const float *k = kt + e * ATTN_TK + c0;
                for (int c = 0; c < ATTN_VEC; c++) {
                    a0[c] += q0[e] * k[c];
                    a1[c] += q1[e] * k[c];
                    a2[c] += q2[e] * k[c];
                    a3[c] += q3[e] * k[c];
                }
            }
            for (int c = 0; c < ATTN_VEC; c++) {
                s[r * ATTN_TK + c0 + c] = a0[c];
                s[(r + 1) * ATTN_TK + c0 + c] = a1[c];
                s[(r + 2) * ATTN_TK + c0 + c] = a2[c];
                s[(r + 3) * ATTN_TK + c0 + c] = a3[c];
            }
        }
    for (; r < rows; r++)
        for (int64_t c0 = 0; c0 < ATTN_TK; c0 += ATTN_VEC) {
            float a0[ATTN_VEC] = {0};
            for (int64_t e = 0; e < d; e++)
                for (int c = 0; c < ATTN_VEC; c++)
                    a0[c] += q[r * d + e] * kt[e * ATTN_TK + c0 + c];
            for (int c = 0; c < ATTN_VEC; c++)
                s[r * ATTN_TK + c0 + c] = a0[c];
        }
}

/* acc (rows x dvp) = acc * corr (per row) + P (rows x ATTN_TK) V (n x dvp, rows vs apart) over the tile's n keys. */
WK_VEC_CLONES static void tile_pv(const float *restrict p, const float *restrict v, int64_t vs,
                                  const float *restrict corr, float *restrict acc, int64_t rows, int64_t n, int64_t dvp)
{
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
        for (int64_t e0 = 0; e0 < dvp; e0 += ATTN_VEC) {
            float *o0 = acc + r * dvp + e0, *o1 = o0 + dvp, *o2 = o1 + dvp, *o3 = o2 + dvp;
            float a0[ATTN_VEC], a1[ATTN_VEC], a2[ATTN_VEC], a3[ATTN_VEC];
            for (int e = 0; e < ATTN_VEC; e++) {
                a0[e] = o0[e] * corr[r];
                a1[e] = o1[e] * corr[r + 1];
                a2[e] = o2[e] * corr[r + 2];
                a3[e] = o3[e] * corr[r + 3];
            }
            const float *p0 = p + r * ATTN_TK, *p1 = p0 + ATTN_TK, *p2 = p1 + ATTN_TK, *p3 = p2 + ATTN_TK;
            for (int64_t c = 0; c < n; c++) {
                const float *vr = v + c * vs + e0;
                for (int e = 0; e < ATTN_VEC; e++) {
                    a0[e] += p0[c] * vr[e];
                    a1[e] += p1[c] * vr[e];
                    a2[e] += p2[c] * vr[e];
                    a3[e] += p3[c] * vr[e];
                }
            }
            for (int e = 0; e < ATTN_VEC; e++) {
                o0[e] = a0[e];
                o1[e] = a1[e];
                o2[e] = a2[e];
                o3[e] = a3[e];
            }
        }
    for (; r < rows; r++) {
        for (int64_t e = 0; e < dvp; e++)
            acc[r * dvp + e] *= corr[r];
        for (int64_t c = 0; c < n; c++)
            for (int64_t e = 0; e < dvp; e++)
                acc[r * dvp + e] += p[r * ATTN_TK + c] * v[c * vs + e];
    }
}

/* Row k's scores over keys [j0, j0 + n) (w->s row k, scaled dot products): soft-cap, ALiBi, bias. */
static void score_extras(const attn_job *j, const attn_rows *r, int64_t k, int64_t j0, int64_t n, attn_scratch *w)
{
    const wk_attn *a = j->a;
    float *s = w->s + k * ATTN_TK;
    if (a->softcap > 0) {
        float cap = (float)a->softcap, inv = 1.0f / cap;
        for (int64_t c = 0; c < n; c++)
            s[c] = cap * wk_vtanhf(s[c] * inv);
    }
    if (a->alibi) {
        float pos = (float)(r->i0 + k % r->nq + r->len - j->sq), slope = r->slope[k];
        for (int64_t c = 0; c < n; c++)
            s[c] -= slope * fabsf(pos - (float)(j0 + c));
    }
    if (a->bias) {
        load_bias(j, r, k, j0, n, w);
        for (int64_t c = 0; c < n; c++)
            s[c] += w->bias[c];
    }
}

/* The online-softmax step of every row with this tile's scores s (rows x ATTN_TK, n valid): keys outside a row's
 * [lo, hi) are dropped, and each row's scores become its weights (0 past n and for dropped keys: exactly 0, so a
 * dropped key's value never reaches the sum); corr[r] is what acc's row must be scaled by first. */
WK_VEC_CLONES static void tile_softmax(float *restrict s, float *restrict m, float *restrict l, float *restrict corr,
                                       const int64_t *lo, const int64_t *hi, int64_t j0, int64_t rows, int64_t n)
{
    for (int64_t r = 0; r < rows; r++) {
        float *sr = s + r * ATTN_TK, mx[ATTN_VEC], sm[ATTN_VEC], mt = -INFINITY, sum = 0.0f;
        int64_t a = lo[r] - j0, b = (hi[r] < j0 + n ? hi[r] : j0 + n) - j0;
        for (int c = 0; c < ATTN_VEC; c++) /* lane-wise maxima and sums, so the loops vectorise */
            mx[c] = -INFINITY;
        for (int64_t c0 = 0; c0 < ATTN_TK; c0 += ATTN_VEC)
            for (int c = 0; c < ATTN_VEC; c++) {
                float v = wk_vsel(c0 + c >= a && c0 + c < b, sr[c0 + c], -INFINITY);
                sr[c0 + c] = v;
                mx[c] = wk_vsel(v > mx[c], v, mx[c]);
            }
        for (int c = 0; c < ATTN_VEC; c++)
            mt = mx[c] > mt ? mx[c] : mt;
        float m_new = m[r] > mt ? m[r] : mt;
        if (m_new == -INFINITY) { /* nothing seen yet */
            for (int64_t c = 0; c < ATTN_TK; c++)
                sr[c] = 0.0f;
            corr[r] = 1.0f;
            continue;
        }
        for (int c = 0; c < ATTN_VEC; c++)
            sm[c] = 0.0f;
        for (int64_t c0 = 0; c0 < ATTN_TK; c0 += ATTN_VEC)
            for (int c = 0; c < ATTN_VEC; c++) {
                float v = sr[c0 + c], p = wk_vsel(v == -INFINITY, 0.0f, wk_vexpf(v - m_new));
                sr[c0 + c] = p;
                sm[c] += p;
            }
        for (int c = 0; c < ATTN_VEC; c++)
            sum += sm[c];
        corr[r] = m[r] == -INFINITY ? 0.0f : expf(m[r] - m_new);
        l[r] = l[r] * corr[r] + sum;
        m[r] = m_new;
    }
}

/* The item's query rows, scaled, into w->q. */
static void load_q(const attn_job *j, const attn_rows *r, attn_scratch *w)
{
    const wk_tensor *q = j->a->q;
    int64_t es = (int64_t)wk_dtype_size(q->dtype);
    for (int64_t k = 0; k < r->n; k++) {
        int64_t h = r->h0 + k / r->nq, i = r->i0 + k % r->nq;
        const char *p = (const char *)wk_tensor_data(q) + (r->b * q->strides[0] + h * q->strides[1] +
                                                           i * q->strides[2]) * es;
        float *dst = w->q + k * j->d;
        wk_chunk_load(q->dtype, dst, p, q->strides[3] * es, j->d);
        for (int64_t d = 0; d < j->d; d++)
            dst[d] *= (float)j->a->scale;
    }
}

/* The final rows: out = acc / l and lse = m + log(l), or 0 and -inf for a row that saw no key. */
static void store_rows(const attn_job *j, const attn_rows *r, attn_scratch *w)
{
    const wk_attn *a = j->a;
    int64_t es = (int64_t)wk_dtype_size(a->out->dtype);
    for (int64_t k = 0; k < r->n; k++) {
        int64_t row = (r->b * j->hq + r->h0 + k / r->nq) * j->sq + r->i0 + k % r->nq;
        float *acc = w->acc + k * j->dvp, l = w->l[k], inv = l > 0 ? 1.0f / l : 0.0f;
        for (int64_t e = 0; e < j->dv; e++)
            acc[e] = l > 0 ? acc[e] * inv : 0.0f; /* 0 * a NaN value still gives 0 */
        wk_chunk_store(a->out->dtype, (char *)wk_tensor_data(a->out) + row * j->dv * es, es, acc, j->dv);
        if (a->lse)
            ((float *)wk_tensor_data(a->lse))[row] = l > 0 ? w->m[k] + logf(l) : -INFINITY;
    }
}

/* One item: the rows' state over the keys of split `split`, stored as a final result or a partial one. */
static void run_item(const attn_job *j, int64_t item, int64_t split, attn_scratch *w)
{
    attn_rows r;
    rows_init(j, item, &r);
    int64_t lo = INT64_MAX, hi = 0;
    for (int64_t k = 0; k < r.n; k++)
        if (r.lo[k] < r.hi[k]) {
            lo = r.lo[k] < lo ? r.lo[k] : lo;
            hi = r.hi[k] > hi ? r.hi[k] : hi;
        }
    int64_t s0 = split * j->split_len, s1 = s0 + j->split_len;
    lo = lo > s0 ? lo : s0;
    hi = hi < s1 ? hi : s1;
    for (int64_t k = 0; k < r.n; k++) {
        w->m[k] = -INFINITY;
        w->l[k] = 0.0f;
    }
    for (int64_t e = 0; e < r.n * j->dvp; e++)
        w->acc[e] = 0.0f;
    if (lo < hi)
        load_q(j, &r, w);
    bool extras = j->a->softcap > 0 || j->a->alibi || j->a->bias;
    for (int64_t j0 = lo; j0 < hi; j0 += ATTN_TK) {
        int64_t n = hi - j0 < ATTN_TK ? hi - j0 : ATTN_TK;
        int64_t vs;
        const float *v = load_kv_tile(j, &r, j0, n, w, &vs);
        tile_scores(w->q, w->kt, w->s, r.n, j->d);
        for (int64_t k = 0; extras && k < r.n; k++)
            score_extras(j, &r, k, j0, n, w);
        tile_softmax(w->s, w->m, w->l, w->corr, r.lo, r.hi, j0, r.n, n);
        tile_pv(w->s, v, vs, w->corr, w->acc, r.n, n, j->dvp);
    }
    if (j->splits == 1) {
        store_rows(j, &r, w);
        return;
    }
    float *part = j->partial + (item * j->splits + split) * ATTN_ROWS * (j->dv + 2);
    for (int64_t k = 0; k < r.n; k++) {
        float *p = part + k * (j->dv + 2);
        for (int64_t e = 0; e < j->dv; e++)
            p[e] = w->acc[k * j->dvp + e];
        p[j->dv] = w->m[k];
        p[j->dv + 1] = w->l[k];
    }
}

static void free_scratch(attn_scratch *w)
{
    free(w->q);
    free(w->kt);
    free(w->v);
    free(w->s);
    free(w->acc);
    free(w->m);
    free(w->l);
    free(w->corr);
    free(w->bias);
}

static bool alloc_scratch(const attn_job *j, attn_scratch *w)
{
    *w = (attn_scratch){
        .q = malloc(sizeof(float) * ATTN_ROWS * (size_t)j->d), .kt = malloc(sizeof(float) * ATTN_TK * (size_t)j->d),
        .v = malloc(sizeof(float) * ATTN_TK * (size_t)j->dvp), .s = malloc(sizeof(float) * ATTN_ROWS * ATTN_TK),
        .acc = malloc(sizeof(float) * ATTN_ROWS * (size_t)j->dvp), .m = malloc(sizeof(float) * ATTN_ROWS),
        .l = malloc(sizeof(float) * ATTN_ROWS), .corr = malloc(sizeof(float) * ATTN_ROWS),
        .bias = malloc(sizeof(float) * ATTN_TK)};
    if (w->q && w->kt && w->v && w->s && w->acc && w->m && w->l && w->corr && w->bias)
        return true;
    free_scratch(w);
    return false;
}

/* Work items [begin, end) of (item, split) pairs. */
static void run_items(void *ctx, int64_t begin, int64_t end)
{
    attn_job *j = ctx;
    attn_scratch w;
    if (!alloc_scratch(j, &w)) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t t = begin; t < end; t++)
        run_item(j, t / j->splits, t % j->splits, &w);
    free_scratch(&w);
}

/* Merges the splits of items [begin, end): the rows' partial results weighed by exp(m - max m). */
static void merge_items(void *ctx, int64_t begin, int64_t end)
{
    attn_job *j = ctx;
    attn_scratch w = {.acc = malloc(sizeof(float) * ATTN_ROWS * (size_t)j->dvp),
                      .m = malloc(sizeof(float) * ATTN_ROWS), .l = malloc(sizeof(float) * ATTN_ROWS)};
    if (!w.acc || !w.m || !w.l) {
        atomic_store(&j->failed, 1);
        free_scratch(&w);
        return;
    }
    for (int64_t item = begin; item < end; item++) {
        attn_rows r;
        rows_init(j, item, &r);
        for (int64_t k = 0; k < r.n; k++) {
            const float *part = j->partial + (item * j->splits * ATTN_ROWS + k) * (j->dv + 2);
            int64_t step = ATTN_ROWS * (j->dv + 2);
            float m = -INFINITY, l = 0.0f, *acc = w.acc + k * j->dvp;
            for (int64_t s = 0; s < j->splits; s++)
                m = part[s * step + j->dv] > m ? part[s * step + j->dv] : m;
            for (int64_t e = 0; e < j->dv; e++)
                acc[e] = 0.0f;
            for (int64_t s = 0; s < j->splits && m != -INFINITY; s++) {
                const float *p = part + s * step;
                float f = p[j->dv] == -INFINITY ? 0.0f : expf(p[j->dv] - m);
                l += p[j->dv + 1] * f;
                for (int64_t e = 0; e < j->dv; e++)
                    acc[e] += p[e] * f;
            }
            w.m[k] = m;
            w.l[k] = l;
        }
        store_rows(j, &r, &w);
    }
    free_scratch(&w);
}

/* Items and splits: enough work for every thread, splitting the keys only when the items alone are too few. */
static void plan(attn_job *j)
{
    const wk_attn *a = j->a;
    j->B = a->q->shape[0];
    j->hq = a->q->shape[1];
    j->sq = a->q->shape[2];
    j->d = a->q->shape[3];
    j->dv = a->v->shape[3];
    j->dvp = (j->dv + ATTN_VEC - 1) / ATTN_VEC * ATTN_VEC;
    j->hkv = a->k->shape[1];
    j->group = j->hq / j->hkv;
    j->nh = j->group < ATTN_ROWS ? j->group : ATTN_ROWS;
    j->hchunks = (j->group + j->nh - 1) / j->nh;
    j->nq = ATTN_ROWS / j->nh;
    j->qtiles = (j->sq + j->nq - 1) / j->nq;
    int64_t items = j->B * j->hkv * j->hchunks * j->qtiles, threads = wk_cpu_threads();
    int64_t tiles = (a->skv + ATTN_TK - 1) / ATTN_TK;
    j->splits = 1;
    if (items < threads && tiles >= 2 * ATTN_MIN_SPLIT) {
        int64_t want = (2 * threads + items - 1) / items, most = tiles / ATTN_MIN_SPLIT;
        j->splits = want < most ? want : most;
    }
    j->split_len = (tiles + j->splits - 1) / j->splits * ATTN_TK;
    if (j->splits == 1)
        j->split_len = a->skv > 0 ? a->skv : 1;
}

wk_status wk_cpu_attention(const wk_attn *a)
{
    WK_TRY(wk_cpu_attn_check_cache("attention", a->seq_lens, a->block_table, a->q->shape[0], a->k->shape[0],
                                   a->block_size, a->skv, 0));
    attn_job j = {.a = a};
    plan(&j);
    int64_t items = j.B * j.hkv * j.hchunks * j.qtiles;
    if (j.splits > 1) {
        j.partial = malloc(sizeof(float) * (size_t)(items * j.splits * ATTN_ROWS * (j.dv + 2)));
        if (j.partial == NULL)
            return wk_error(WK_ERR_OUT_OF_MEMORY, "attention: no memory for %lld partial results",
                            (long long)(items * j.splits));
    }
    wk_cpu_parallel_for(items * j.splits, 1, run_items, &j);
    if (j.splits > 1 && !atomic_load(&j.failed))
        wk_cpu_parallel_for(items, 1, merge_items, &j);
    free(j.partial);
    if (atomic_load(&j.failed))
        return wk_error(WK_ERR_OUT_OF_MEMORY, "attention: no memory for a thread's tiles");
    return WK_OK;
}
