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

typedef struct attn_job {
    const wk_attn *a;
    int64_t B, hq, hkv, group, sq, d, dv;
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

/* Thread scratch: q rows, a transposed key tile, a value tile, scores, and the running state. */
typedef struct attn_scratch {
    float *q, *kt, *v, *s, *acc, *m, *l, *bias;
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
static const char *kv_row(const wk_attn *a, const wk_tensor *t, int64_t b, int64_t kvh, int64_t pos)
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

/* Keys [j0, j0 + n): k transposed into kt[d][c] (row stride ATTN_TK), v into v[c][e]. */
static void load_kv_tile(const attn_job *j, const attn_rows *r, int64_t j0, int64_t n, attn_scratch *w)
{
    const wk_attn *a = j->a;
    int64_t kes = (int64_t)wk_dtype_size(a->k->dtype);
    float col[256];
    for (int64_t c = 0; c < n; c++) {
        wk_chunk_load(a->k->dtype, col, kv_row(a, a->k, r->b, r->kvh, j0 + c), a->k->strides[3] * kes, j->d);
        for (int64_t d = 0; d < j->d; d++)
            w->kt[d * ATTN_TK + c] = col[d];
        wk_chunk_load(a->v->dtype, w->v + c * j->dv, kv_row(a, a->v, r->b, r->kvh, j0 + c),
                      a->v->strides[3] * kes, j->dv);
    }
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

/* Scores of row k over keys [j0, j0 + n) into w->s: scaled dot products, soft-cap, ALiBi, bias, then -inf outside
 * the row's seen keys. */
static void score_row(const attn_job *j, const attn_rows *r, int64_t k, int64_t j0, int64_t n, attn_scratch *w)
{
    const wk_attn *a = j->a;
    float *s = w->s;
    const float *q = w->q + k * j->d;
    for (int64_t c = 0; c < n; c++)
        s[c] = 0.0f;
    for (int64_t d = 0; d < j->d; d++) {
        float qd = q[d];
        const float *kt = w->kt + d * ATTN_TK;
        for (int64_t c = 0; c < n; c++)
            s[c] += qd * kt[c];
    }
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
    for (int64_t c = 0; c < n; c++)
        if (j0 + c < r->lo[k] || j0 + c >= r->hi[k])
            s[c] = -INFINITY;
}

/* The online-softmax step of row k with this tile's scores. */
static void update_row(const attn_job *j, int64_t k, int64_t n, attn_scratch *w)
{
    float *s = w->s, *acc = w->acc + k * j->dv, mt = -INFINITY;
    for (int64_t c = 0; c < n; c++)
        mt = s[c] > mt ? s[c] : mt;
    float m_new = w->m[k] > mt ? w->m[k] : mt;
    if (m_new == -INFINITY)
        return; /* nothing seen yet */
    float corr = expf(w->m[k] - m_new), sum = 0.0f; /* m = -inf: 0 */
    w->m[k] = m_new;
    for (int64_t e = 0; e < j->dv; e++)
        acc[e] *= corr;
    for (int64_t c = 0; c < n; c++) {
        float p = wk_vsel(s[c] == -INFINITY, 0.0f, wk_vexpf(s[c] - m_new)); /* a dropped key weighs exactly 0 */
        s[c] = p;
        sum += p;
    }
    w->l[k] = w->l[k] * corr + sum;
    for (int64_t c = 0; c < n; c++) {
        float p = s[c];
        const float *v = w->v + c * j->dv;
        if (p != 0.0f)
            for (int64_t e = 0; e < j->dv; e++)
                acc[e] += p * v[e];
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
        float *acc = w->acc + k * j->dv, l = w->l[k], inv = l > 0 ? 1.0f / l : 0.0f;
        for (int64_t e = 0; e < j->dv; e++)
            acc[e] *= inv;
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
    for (int64_t e = 0; e < r.n * j->dv; e++)
        w->acc[e] = 0.0f;
    if (lo < hi)
        load_q(j, &r, w);
    for (int64_t j0 = lo; j0 < hi; j0 += ATTN_TK) {
        int64_t n = hi - j0 < ATTN_TK ? hi - j0 : ATTN_TK;
        load_kv_tile(j, &r, j0, n, w);
        for (int64_t k = 0; k < r.n; k++) {
            if (r.hi[k] <= j0 || r.lo[k] >= j0 + n)
                continue;
            score_row(j, &r, k, j0, n, w);
            update_row(j, k, n, w);
        }
    }
    if (j->splits == 1) {
        store_rows(j, &r, w);
        return;
    }
    float *part = j->partial + (item * j->splits + split) * ATTN_ROWS * (j->dv + 2);
    for (int64_t k = 0; k < r.n; k++) {
        float *p = part + k * (j->dv + 2);
        for (int64_t e = 0; e < j->dv; e++)
            p[e] = w->acc[k * j->dv + e];
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
    free(w->bias);
}

static bool alloc_scratch(const attn_job *j, attn_scratch *w)
{
    *w = (attn_scratch){
        .q = malloc(sizeof(float) * ATTN_ROWS * (size_t)j->d), .kt = malloc(sizeof(float) * ATTN_TK * (size_t)j->d),
        .v = malloc(sizeof(float) * ATTN_TK * (size_t)j->dv), .s = malloc(sizeof(float) * ATTN_TK),
        .acc = malloc(sizeof(float) * ATTN_ROWS * (size_t)j->dv), .m = malloc(sizeof(float) * ATTN_ROWS),
        .l = malloc(sizeof(float) * ATTN_ROWS), .bias = malloc(sizeof(float) * ATTN_TK)};
    if (w->q && w->kt && w->v && w->s && w->acc && w->m && w->l && w->bias)
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
    attn_scratch w = {.acc = malloc(sizeof(float) * ATTN_ROWS * (size_t)j->dv),
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
            float m = -INFINITY, l = 0.0f, *acc = w.acc + k * j->dv;
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
