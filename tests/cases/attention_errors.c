/* attention_errors.c: the attention family's error paths: every bad argument of wk_attention, wk_kv_append and
 * wk_attention_kv is a
 * clear status naming the op, leaves the outputs unset and the caches unchanged (a bad length or block id too,
 * which a GPU finds on the device and reports at the next synchronisation). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention_ref.h"

/* Up to this many tensors per check run are kept and released at the end. */
#define ERR_KEEP 40

typedef struct err_run {
    wkt_errctx *e;
    wk_tensor *keep[ERR_KEEP];
    int n;
    bool broken;
} err_run;

/* A tensor of (rank, shape) holding vals (NULL: i % 5), kept for release. */
static wk_tensor *mk(err_run *r, wk_dtype dt, int rank, const int64_t *shape, const double *vals)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    double *buf = malloc(sizeof(double) * (size_t)(n + 1));
    wk_tensor *t = NULL;
    for (int64_t i = 0; buf && i < n; i++)
        buf[i] = vals ? vals[i] : (double)(i % 5);
    if (!buf || r->n == ERR_KEEP || wkt_make_from(r->e->dev, dt, rank, shape, WKT_CONTIG, buf, &t) != WK_OK) {
        r->broken = true;
        wk_tensor_release(t);
        t = NULL;
    } else {
        r->keep[r->n++] = t;
    }
    free(buf);
    return t;
}

/* s, or the device's deferred error when s is WK_OK (a GPU checks lengths and block ids on the device). */
static wk_status synced(wkt_errctx *e, wk_status s)
{
    return s != WK_OK ? s : wk_device_sync(e->dev);
}

static void expect_null(wkt_errctx *e, const wk_tensor *o, const char *what)
{
    e->checks++;
    if (o) {
        e->failures++;
        printf("FAIL %s: out-parameter written on failure\n", what);
    }
}

static void expect_same(wkt_errctx *e, const wk_tensor *t, const double *before, const char *what)
{
    double *now = NULL;
    e->checks++;
    if (wkt_read(t, &now) != WK_OK || memcmp(now, before, sizeof(double) * (size_t)wk_tensor_numel(t)) != 0) {
        e->failures++;
        printf("FAIL %s: cache changed by a failing call\n", what);
    }
    free(now);
}

/* wk_attention's argument errors on q (1, 4, 3, 8), k and v (1, 2, 5, 8). */
static void attention_args(err_run *r)
{
    wkt_errctx *e = r->e;
    const int64_t qs[4] = {1, 4, 3, 8}, ks[4] = {1, 2, 5, 8}, q3s[4] = {1, 3, 3, 8}, kd[4] = {1, 2, 5, 9},
                  vs5[4] = {1, 2, 4, 8}, kb[4] = {2, 2, 5, 8}, big[4] = {1, 2, 5, 300}, qbig[4] = {1, 4, 3, 300},
                  rank3[3] = {4, 3, 8}, bad_bias[2] = {2, 5}, hq = 4, h3 = 3, one = 1, two = 2;
    wk_tensor *q = mk(r, WK_F32, 4, qs, NULL), *k = mk(r, WK_F32, 4, ks, NULL), *v = mk(r, WK_F32, 4, ks, NULL);
    wk_tensor *qi = mk(r, WK_I32, 4, qs, NULL), *kh = mk(r, WK_F16, 4, ks, NULL), *q64 = mk(r, WK_F64, 4, qs, NULL);
    wk_tensor *k64 = mk(r, WK_F64, 4, ks, NULL), *q3 = mk(r, WK_F32, 3, rank3, NULL), *qh3 = mk(r, WK_F32, 4, q3s, NULL);
    wk_tensor *kdd = mk(r, WK_F32, 4, kd, NULL), *v4 = mk(r, WK_F32, 4, vs5, NULL), *kbb = mk(r, WK_F32, 4, kb, NULL);
    wk_tensor *kbig = mk(r, WK_F32, 4, big, NULL), *qbg = mk(r, WK_F32, 4, qbig, NULL);
    wk_tensor *bb = mk(r, WK_F32, 2, bad_bias, NULL), *bi = mk(r, WK_I32, 1, &one, NULL);
    wk_tensor *a64 = mk(r, WK_F64, 1, &hq, NULL), *a3 = mk(r, WK_F32, 1, &h3, NULL);
    wk_tensor *l64 = mk(r, WK_I64, 1, &one, NULL), *l2 = mk(r, WK_I32, 1, &two, NULL);
    const int64_t ts[2] = {1, 2};
    wk_tensor *table = mk(r, WK_I32, 2, ts, NULL), *o = NULL;
    if (r->broken)
        return;
    WKT_EXPECT(e, wk_attention(q, k, v, NULL, &o, NULL), WK_OK, NULL);
    wk_tensor_release(o);
    o = NULL;
    WKT_EXPECT(e, wk_attention(NULL, k, v, NULL, &o, NULL), WK_ERR_INVALID_ARGUMENT, "attention");
    WKT_EXPECT(e, wk_attention(q, NULL, v, NULL, &o, NULL), WK_ERR_INVALID_ARGUMENT, "attention");
    WKT_EXPECT(e, wk_attention(q, k, NULL, NULL, &o, NULL), WK_ERR_INVALID_ARGUMENT, "attention");
    WKT_EXPECT(e, wk_attention(q, k, v, NULL, NULL, NULL), WK_ERR_INVALID_ARGUMENT, "attention");
    WKT_EXPECT(e, wk_attention(qi, k, v, NULL, &o, NULL), WK_ERR_DTYPE, "attention");   /* int q */
    WKT_EXPECT(e, wk_attention(q, kh, v, NULL, &o, NULL), WK_ERR_DTYPE, "attention");   /* mixed dtypes */
    WKT_EXPECT(e, wk_attention(q64, k64, k64, NULL, &o, NULL), WK_ERR_DTYPE, "attention"); /* f64 */
    WKT_EXPECT(e, wk_attention(q3, k, v, NULL, &o, NULL), WK_ERR_SHAPE, "attention");   /* rank 3 */
    WKT_EXPECT(e, wk_attention(qh3, k, v, NULL, &o, NULL), WK_ERR_SHAPE, "attention");  /* 3 heads over 2 */
    WKT_EXPECT(e, wk_attention(q, kdd, v, NULL, &o, NULL), WK_ERR_SHAPE, "attention");  /* k's D differs */
    WKT_EXPECT(e, wk_attention(q, k, v4, NULL, &o, NULL), WK_ERR_SHAPE, "attention");   /* v's Skv differs */
    WKT_EXPECT(e, wk_attention(q, kbb, kbb, NULL, &o, NULL), WK_ERR_SHAPE, "attention"); /* k's B differs */
    WKT_EXPECT(e, wk_attention(qbg, kbig, kbig, NULL, &o, NULL), WK_ERR_SHAPE, "attention"); /* D > 256 */
    wk_attention_params p = {.bias = bb};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_SHAPE, "attention");      /* bias (2, 5) */
    p = (wk_attention_params){.bias = bi};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_DTYPE, "attention");      /* i32 bias */
    p = (wk_attention_params){.alibi = a64};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_DTYPE, "attention");
    p = (wk_attention_params){.alibi = a3};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_SHAPE, "attention");
    p = (wk_attention_params){.seq_lens = l64};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_DTYPE, "attention");
    p = (wk_attention_params){.seq_lens = l2};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_SHAPE, "attention");
    p = (wk_attention_params){.block_table = table};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_INVALID_ARGUMENT, "attention"); /* no seq_lens */
    p = (wk_attention_params){.windowed = true, .window_left = -2};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_INVALID_ARGUMENT, "attention");
    p = (wk_attention_params){.softcap = -1};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_INVALID_ARGUMENT, "attention");
    p = (wk_attention_params){.scale = NAN};
    WKT_EXPECT(e, wk_attention(q, k, v, &p, &o, NULL), WK_ERR_INVALID_ARGUMENT, "attention");
    expect_null(e, o, "attention argument errors");
}

/* Lengths and block ids that live on the device: q (2, 2, 1, 8); pools of 3 blocks of 4; table (2, 2). */
static void attention_data(err_run *r)
{
    wkt_errctx *e = r->e;
    const int64_t qs[4] = {2, 2, 1, 8}, ks[4] = {2, 2, 5, 8}, pool[4] = {3, 2, 4, 8}, ts[2] = {2, 2}, nb = 2;
    const double long_lens[2] = {6, 1}, neg_lens[2] = {1, -1}, ok_lens[2] = {8, 3}, past[2] = {9, 1};
    const double bad_ids[4] = {0, 3, 1, 2}, neg_ids[4] = {0, 1, -1, 2}, unused_bad[4] = {0, 1, 2, 7};
    wk_tensor *q = mk(r, WK_F32, 4, qs, NULL), *k = mk(r, WK_F32, 4, ks, NULL), *pk = mk(r, WK_F32, 4, pool, NULL);
    wk_tensor *ll = mk(r, WK_I32, 1, &nb, long_lens), *ln = mk(r, WK_I32, 1, &nb, neg_lens);
    wk_tensor *lok = mk(r, WK_I32, 1, &nb, ok_lens), *lpast = mk(r, WK_I32, 1, &nb, past);
    wk_tensor *tb = mk(r, WK_I32, 2, ts, bad_ids), *tn = mk(r, WK_I32, 2, ts, neg_ids);
    wk_tensor *tu = mk(r, WK_I32, 2, ts, unused_bad), *o = NULL;
    if (r->broken)
        return;
    wk_attention_params p = {.seq_lens = ll};
    WKT_EXPECT(e, synced(e, wk_attention(q, k, k, &p, &o, NULL)), WK_ERR_INDEX_OUT_OF_RANGE, "attention");
    wk_tensor_release(o);
    o = NULL;
    p.seq_lens = ln;
    WKT_EXPECT(e, synced(e, wk_attention(q, k, k, &p, &o, NULL)), WK_ERR_INDEX_OUT_OF_RANGE, "attention");
    wk_tensor_release(o);
    o = NULL;
    p = (wk_attention_params){.seq_lens = lok, .block_table = tb};
    WKT_EXPECT(e, synced(e, wk_attention(q, pk, pk, &p, &o, NULL)), WK_ERR_INDEX_OUT_OF_RANGE, "attention");
    wk_tensor_release(o);
    o = NULL;
    p.block_table = tn;
    WKT_EXPECT(e, synced(e, wk_attention(q, pk, pk, &p, &o, NULL)), WK_ERR_INDEX_OUT_OF_RANGE, "attention");
    wk_tensor_release(o);
    o = NULL;
    p = (wk_attention_params){.seq_lens = lpast, .block_table = tu};
    WKT_EXPECT(e, synced(e, wk_attention(q, pk, pk, &p, &o, NULL)), WK_ERR_INDEX_OUT_OF_RANGE, "attention");
    wk_tensor_release(o);
    o = NULL;
    /* an id past a row's length is never read: batch 1 has 3 keys, all in its first block */
    p = (wk_attention_params){.seq_lens = lok, .block_table = tu};
    WKT_EXPECT(e, synced(e, wk_attention(q, pk, pk, &p, &o, NULL)), WK_OK, NULL);
    wk_tensor_release(o);
}

/* kv_append: k, v (2, 2, 3, 8) into a cache (2, 2, 5, 8) or a pool of 3 blocks of 4 with table (2, 2). */
static void append_errors(err_run *r)
{
    wkt_errctx *e = r->e;
    const int64_t ns[4] = {2, 2, 3, 8}, cs[4] = {2, 2, 5, 8}, pool[4] = {3, 2, 4, 8}, ts[2] = {2, 2}, nb = 2,
                  heads[4] = {2, 1, 3, 8};
    const double lens_ok[2] = {2, 0}, lens_full[2] = {3, 0}, lens_neg[2] = {0, -1}, ids_bad[4] = {0, 1, 3, 2};
    wk_tensor *k = mk(r, WK_F32, 4, ns, NULL), *kc = mk(r, WK_F32, 4, cs, NULL), *vc = mk(r, WK_F32, 4, cs, NULL);
    wk_tensor *kh = mk(r, WK_F16, 4, cs, NULL), *k1 = mk(r, WK_F32, 4, heads, NULL);
    wk_tensor *pk = mk(r, WK_F32, 4, pool, NULL), *pv = mk(r, WK_F32, 4, pool, NULL);
    wk_tensor *lok = mk(r, WK_I32, 1, &nb, lens_ok), *lfull = mk(r, WK_I32, 1, &nb, lens_full);
    wk_tensor *lneg = mk(r, WK_I32, 1, &nb, lens_neg), *tbad = mk(r, WK_I32, 2, ts, ids_bad);
    double *before_k = NULL, *before_p = NULL;
    if (r->broken || wkt_read(kc, &before_k) != WK_OK || wkt_read(pk, &before_p) != WK_OK) {
        free(before_k);
        r->broken = true;
        return;
    }
    WKT_EXPECT(e, wk_kv_append(NULL, vc, k, k, lok, NULL), WK_ERR_INVALID_ARGUMENT, "kv_append");
    WKT_EXPECT(e, wk_kv_append(kc, vc, k, k, NULL, NULL), WK_ERR_INVALID_ARGUMENT, "kv_append"); /* no lengths */
    WKT_EXPECT(e, wk_kv_append(kh, vc, k, k, lok, NULL), WK_ERR_DTYPE, "kv_append");
    WKT_EXPECT(e, wk_kv_append(kc, vc, k1, k1, lok, NULL), WK_ERR_SHAPE, "kv_append");         /* heads differ */
    wk_tensor *in_cache = NULL; /* new rows that are part of v_cache */
    if (wk_narrow(vc, 2, 0, 3, &in_cache) == WK_OK) {
        WKT_EXPECT(e, wk_kv_append(kc, vc, k, in_cache, lok, NULL), WK_ERR_INVALID_ARGUMENT, "kv_append");
        wk_tensor_release(in_cache);
    }
    WKT_EXPECT(e, wk_kv_append(kc, kc, k, k, lok, NULL), WK_ERR_INVALID_ARGUMENT, "kv_append"); /* one cache twice */
    WKT_EXPECT(e, synced(e, wk_kv_append(kc, vc, k, k, lfull, NULL)), WK_ERR_INDEX_OUT_OF_RANGE, "kv_append");
    expect_same(e, kc, before_k, "kv_append past the cache");
    WKT_EXPECT(e, synced(e, wk_kv_append(kc, vc, k, k, lneg, NULL)), WK_ERR_INDEX_OUT_OF_RANGE, "kv_append");
    expect_same(e, kc, before_k, "kv_append at a negative length");
    WKT_EXPECT(e, synced(e, wk_kv_append(pk, pv, k, k, lok, tbad)), WK_ERR_INDEX_OUT_OF_RANGE, "kv_append");
    expect_same(e, pk, before_p, "kv_append through a bad block id");
    free(before_k);
    free(before_p);
}

/* A failing wk_attention_kv call: the status (after a sync, for what a GPU finds on the device), no output kept. */
static wk_status kv_call(wkt_errctx *e, const wk_tensor *q, wk_tensor *kc, wk_tensor *vc, const wk_tensor *k,
                         const wk_attention_params *p)
{
    wk_tensor *o = NULL;
    wk_status s = synced(e, wk_attention_kv(q, kc, vc, k, k, p, &o, NULL));
    if (s != WK_OK)
        expect_null(e, s == WK_ERR_INDEX_OUT_OF_RANGE ? NULL : o, "attention_kv");
    wk_tensor_release(o);
    return s;
}

/* attention_kv: q (2, 2, 3, 8) and new rows (2, 2, 3, 8) for caches (2, 2, 5, 8); and a length past the cache in the
 * shape of the fused decode kernel (bf16, D 64, one query: one launch on NVIDIA GPUs), which writes nothing. */
static void attention_kv_errors(err_run *r)
{
    wkt_errctx *e = r->e;
    const int64_t qs[4] = {2, 2, 3, 8}, n2[4] = {2, 2, 2, 8}, cs[4] = {2, 2, 5, 8}, nb = 2, one = 1;
    const int64_t bq[4] = {1, 4, 1, 64}, bn[4] = {1, 2, 1, 64}, bc[4] = {1, 2, 8, 64};
    const double lens_ok[2] = {2, 0}, lens_full[2] = {3, 0}, eight = 8, seven = 7;
    wk_tensor *q = mk(r, WK_F32, 4, qs, NULL), *k = mk(r, WK_F32, 4, qs, NULL), *k2 = mk(r, WK_F32, 4, n2, NULL);
    wk_tensor *kc = mk(r, WK_F32, 4, cs, NULL), *vc = mk(r, WK_F32, 4, cs, NULL);
    wk_tensor *lok = mk(r, WK_I32, 1, &nb, lens_ok), *lfull = mk(r, WK_I32, 1, &nb, lens_full);
    wk_tensor *qb = mk(r, WK_BF16, 4, bq, NULL), *kb = mk(r, WK_BF16, 4, bn, NULL);
    wk_tensor *kcb = mk(r, WK_BF16, 4, bc, NULL), *vcb = mk(r, WK_BF16, 4, bc, NULL);
    wk_tensor *l8 = mk(r, WK_I32, 1, &one, &eight), *l7 = mk(r, WK_I32, 1, &one, &seven);
    double *before = NULL, *before_b = NULL;
    if (r->broken || wkt_read(kc, &before) != WK_OK || wkt_read(kcb, &before_b) != WK_OK) {
        free(before);
        r->broken = true;
        return;
    }
    const wk_attention_params none = {.causal = true}, ok = {.causal = true, .seq_lens = lok},
                              full = {.causal = true, .seq_lens = lfull}, b8 = {.causal = true, .seq_lens = l8},
                              b7 = {.causal = true, .seq_lens = l7};
    WKT_EXPECT(e, kv_call(e, q, kc, vc, k, &none), WK_ERR_INVALID_ARGUMENT, "attention_kv"); /* no lengths */
    WKT_EXPECT(e, kv_call(e, q, kc, vc, k2, &ok), WK_ERR_SHAPE, "attention_kv");   /* 2 new rows for 3 queries */
    WKT_EXPECT(e, kv_call(e, q, kc, kc, k, &ok), WK_ERR_INVALID_ARGUMENT, "attention_kv"); /* one cache twice */
    wk_tensor *in_cache = NULL; /* q that is part of k_cache */
    if (wk_narrow(kc, 2, 0, 3, &in_cache) == WK_OK) {
        WKT_EXPECT(e, kv_call(e, in_cache, kc, vc, k, &ok), WK_ERR_INVALID_ARGUMENT, "attention_kv");
        wk_tensor_release(in_cache);
    }
    /* found on the device (a GPU) by the append step, whose message names it */
    WKT_EXPECT(e, kv_call(e, q, kc, vc, k, &full), WK_ERR_INDEX_OUT_OF_RANGE, "kv_append");
    expect_same(e, kc, before, "attention_kv past the cache");
    WKT_EXPECT(e, kv_call(e, qb, kcb, vcb, kb, &b8), WK_ERR_INDEX_OUT_OF_RANGE, "kv_append");
    expect_same(e, kcb, before_b, "attention_kv (the decode kernel's shape) past the cache");
    WKT_EXPECT(e, kv_call(e, qb, kcb, vcb, kb, &b7), WK_OK, "attention_kv"); /* the last position: fine */
    free(before);
    free(before_b);
}

void attn_errors(wkt_errctx *e)
{
    void (*const parts[])(err_run *) = {attention_args, attention_data, append_errors, attention_kv_errors};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        err_run r = {.e = e};
        parts[i](&r);
        if (r.broken) {
            e->checks++;
            e->failures++;
            printf("FAIL attention errors: cannot make inputs: %s\n", wk_last_error());
        }
        for (int k = 0; k < r.n; k++)
            wk_tensor_release(r.keep[k]);
    }
}
