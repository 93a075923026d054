/* attention.c: case family 'attention': fused attention (MHA/GQA/MQA, causal, windows, bias and masks, ALiBi,
 * soft-capping, padded batches, paged caches, split-KV decode), kv_append and attention_kv, against a plain float64
 * softmax. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention_ref.h"

/* A case: shape[] = B, Hq, Hkv, Sq, Skv, D, Dv (Skv: max_blocks * block when paged); iparam: flags, window left,
 * window right, bias kind, block size; fparam: softcap, scale. */
static void to_spec(const wkt_case *c, attn_spec *s)
{
    *s = (attn_spec){.b = c->shape[0], .hq = c->shape[1], .hkv = c->shape[2], .sq = c->shape[3],
                     .skv = c->shape[4], .d = c->shape[5], .dv = c->shape[6], .flags = c->iparam[0],
                     .wl = c->iparam[1], .wr = c->iparam[2], .bias = c->iparam[3], .block = c->iparam[4],
                     .softcap = c->fparam[0], .scale = c->fparam[1]};
}

/* ---- inputs */

/* q, k, v of spec s: random, in the case's layout (or (B, S, H, D) buffers permuted); paged k/v pools hold
 * max_blocks * B blocks plus two spare ones, and the table is a shuffled permutation. */
static wk_status make_qkv(const wkt_case *c, const attn_spec *s, wk_device *dev, wkt_rng *rng, attn_data *x)
{
    bool bshd = s->flags & ATTN_BSHD;
    int64_t nblocks = s->block ? s->b * (s->skv / s->block) + 2 : 0;
    int64_t kvb = s->block ? nblocks : s->b, kvs = s->block ? s->block : s->skv;
    const int64_t q4[4] = {s->b, s->hq, s->sq, s->d}, k4[4] = {kvb, s->hkv, kvs, s->d},
                  v4[4] = {kvb, s->hkv, kvs, s->dv};
    ATTN_TRY(attn_make(dev, c->dtype, q4, c->layout, bshd, rng, &x->q, &x->qv));
    ATTN_TRY(attn_make(dev, c->dtype, k4, c->layout, bshd, rng, &x->k, &x->kv));
    ATTN_TRY(attn_make(dev, c->dtype, v4, c->layout, bshd, rng, &x->v, &x->vv));
    x->bshd = bshd;
    x->nblocks = nblocks;
    return WK_OK;
}

/* seq_lens in [0, max_len] (batch 0 at max_len, batch 2 at 0) and, when paged, a table that is a shuffled
 * permutation of blocks 1.. (block 0 stays unused: an entry of 0 is a real block too). */
static wk_status make_lens(const attn_spec *s, int64_t max_len, wk_device *dev, wkt_rng *rng, attn_data *x)
{
    int64_t nb = s->block ? s->skv / s->block : 0, one = s->b, two[2] = {s->b, nb};
    x->lens = malloc(sizeof(int64_t) * (size_t)(s->b + 1));
    x->table = malloc(sizeof(int64_t) * (size_t)(s->b * nb + 1));
    double *lv = malloc(sizeof(double) * (size_t)(s->b + 1)), *tv = malloc(sizeof(double) * (size_t)(s->b * nb + 1));
    wk_status st = x->lens && x->table && lv && tv ? WK_OK : attn_oom();
    for (int64_t b = 0; st == WK_OK && b < s->b; b++) {
        x->lens[b] = b == 0 ? max_len : b == 2 ? 0 : wkt_rng_int(rng, 0, max_len);
        lv[b] = (double)x->lens[b];
    }
    for (int64_t i = 0; st == WK_OK && i < s->b * nb; i++)
        x->table[i] = i + 1;
    for (int64_t i = s->b * nb - 1; st == WK_OK && i > 0; i--) {
        int64_t k = wkt_rng_int(rng, 0, i), t = x->table[i];
        x->table[i] = x->table[k];
        x->table[k] = t;
    }
    for (int64_t i = 0; st == WK_OK && i < s->b * nb; i++)
        tv[i] = (double)x->table[i];
    if (st == WK_OK && (s->flags & ATTN_LENS || s->block))
        st = wkt_make_from(dev, WK_I32, 1, &one, WKT_CONTIG, lv, &x->lens_t);
    if (st == WK_OK && s->block)
        st = wkt_make_from(dev, WK_I32, 2, two, WKT_TRANSPOSED, tv, &x->table_t);
    free(lv);
    free(tv);
    return st;
}

/* The bias of kind s->bias (ATTN_BIAS_*) and ALiBi slopes. */
static wk_status make_extras(const wkt_case *c, const attn_spec *s, wk_device *dev, wkt_rng *rng, attn_data *x)
{
    if (s->bias != ATTN_BIAS_NONE) {
        attn_bias_shape(s, x->bias_shape, &x->bias_rank);
        int64_t n = 1;
        for (int i = 0; i < x->bias_rank; i++)
            n *= x->bias_shape[i];
        wk_dtype dt = s->bias == ATTN_BIAS_MASK ? WK_U8 : s->bias == ATTN_BIAS_DTYPE ? c->dtype : WK_F32;
        x->bias_dtype = dt;
        x->biasv = malloc(sizeof(double) * (size_t)(n + 1));
        if (!x->biasv)
            return attn_oom();
        for (int64_t i = 0; i < n; i++) {
            double u = wkt_rng_uniform(rng, 0, 1);
            x->biasv[i] = dt == WK_U8 ? (u < 0.7) : s->bias == ATTN_BIAS_NEGINF && u < 0.3 ? -INFINITY
                                                                                        : wkt_round_to(dt, 4 * u - 2);
        }
        ATTN_TRY(wkt_make_from(dev, dt, x->bias_rank, x->bias_shape, WKT_CONTIG, x->biasv, &x->bias));
    }
    if (s->flags & ATTN_ALIBI) {
        int64_t hq = s->hq;
        x->alibiv = malloc(sizeof(double) * (size_t)(hq + 1));
        if (!x->alibiv)
            return attn_oom();
        for (int64_t h = 0; h < hq; h++)
            x->alibiv[h] = wkt_round_to(WK_F32, pow(2.0, -8.0 * (double)(h + 1) / (double)hq));
        ATTN_TRY(wkt_make_from(dev, WK_F32, 1, &hq, WKT_CONTIG, x->alibiv, &x->alibi));
    }
    return WK_OK;
}

static void run_attention(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    attn_spec s;
    to_spec(c, &s);
    attn_data x = {0};
    wk_tensor *o = NULL, *lse = NULL;
    double *got = NULL, *got_lse = NULL, *want = NULL, *want_lse = NULL;
    int64_t n = s.b * s.hq * s.sq * s.dv, nl = s.b * s.hq * s.sq;
    if (wkt_failed(make_qkv(c, &s, dev, rng, &x), r, "make q, k, v") ||
        wkt_failed(make_lens(&s, s.skv, dev, rng, &x), r, "make lengths") ||
        wkt_failed(make_extras(c, &s, dev, rng, &x), r, "make bias"))
        goto done;
    wk_attention_params p = {.scale = s.scale, .softcap = s.softcap, .causal = s.flags & ATTN_CAUSAL,
                             .windowed = s.flags & ATTN_WINDOW, .window_left = s.wl, .window_right = s.wr,
                             .bias = x.bias, .alibi = x.alibi, .seq_lens = x.lens_t, .block_table = x.table_t};
    bool want_lse_out = s.flags & ATTN_LSE;
    if (wkt_failed(wk_attention(x.q, x.k, x.v, &p, &o, want_lse_out ? &lse : NULL), r, "attention"))
        goto done;
    const int64_t oshape[4] = {s.b, s.hq, s.sq, s.dv};
    if (wk_tensor_dtype(o) != c->dtype || wk_tensor_rank(o) != 4 || memcmp(wk_tensor_shape(o), oshape, sizeof oshape) ||
        (lse && (wk_tensor_dtype(lse) != WK_F32 || wk_tensor_rank(lse) != 3 ||
                 memcmp(wk_tensor_shape(lse), oshape, 3 * sizeof(int64_t))))) {
        wkt_fail(r, "result has the wrong dtype or shape");
        goto done;
    }
    want = malloc(sizeof(double) * (size_t)(n + 1));
    want_lse = malloc(sizeof(double) * (size_t)(nl + 1));
    if (!want || !want_lse) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    attn_reference(&s, &x, want, want_lse);
    for (int64_t i = 0; i < n; i++)
        want[i] = wkt_round_to(c->dtype, want[i]);
    if (wkt_failed(wkt_read(o, &got), r, "read out") || (lse && wkt_failed(wkt_read(lse, &got_lse), r, "read lse")))
        goto done;
    wkt_compare(c->dtype, got, want, n, wkt_tol(c->dtype, WKT_TOL_MATMUL), false, r);
    if (lse) {
        for (int64_t i = 0; i < nl; i++)
            want_lse[i] = wkt_round_to(WK_F32, want_lse[i]);
        wkt_compare(WK_F32, got_lse, want_lse, nl, c->dtype == WK_F32 ? 1e-5 : wkt_tol(c->dtype, WKT_TOL_MATMUL),
                    false, r);
    }
done:
    attn_data_free(&x);
    free(got);
    free(got_lse);
    free(want);
    free(want_lse);
    wk_tensor_release(o);
    wk_tensor_release(lse);
}

/* kv_append: new rows land at seq_lens[b] + t of a random cache (contiguous or paged); the rest is untouched. */
static void run_append(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    attn_spec s;
    to_spec(c, &s);
    attn_data x = {0}, nw = {0};
    attn_spec ns = s; /* the new rows: (B, Hkv, Sq, D) */
    ns.skv = s.sq;
    ns.block = 0;
    double *gk = NULL, *gv = NULL;
    if (wkt_failed(make_qkv(c, &s, dev, rng, &x), r, "make caches") ||
        wkt_failed(make_qkv(c, &ns, dev, rng, &nw), r, "make new rows"))
        goto done;
    attn_spec ls = s;
    ls.flags |= ATTN_LENS;
    if (wkt_failed(make_lens(&ls, s.skv - s.sq, dev, rng, &x), r, "make lengths")) /* room for Sq new rows */
        goto done;
    if (wkt_failed(wk_kv_append(x.k, x.v, nw.k, nw.v, x.lens_t, x.table_t), r, "kv_append") ||
        wkt_failed(wkt_read(x.k, &gk), r, "read k_cache") || wkt_failed(wkt_read(x.v, &gv), r, "read v_cache"))
        goto done;
    attn_append_reference(&s, &x, &nw);
    wkt_compare(c->dtype, gk, x.kv, wk_tensor_numel(x.k), 0, true, r);
    wkt_compare(c->dtype, gv, x.vv, wk_tensor_numel(x.v), 0, true, r);
done:
    free(gk);
    free(gv);
    attn_data_free(&x);
    attn_data_free(&nw);
}

/* attention_kv: Sq new rows appended at seq_lens[b] (room left for them) and attended with the cache: the caches
 * against kv_append's reference bit for bit, the output against the float64 attention over the updated cache with
 * lengths seq_lens + Sq. */
static void run_attention_kv(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    attn_spec s, ns, ls;
    to_spec(c, &s);
    ns = s, ls = s;
    ns.skv = s.sq, ns.block = 0; /* the new rows: (B, Hkv, Sq, D) */
    ls.flags |= ATTN_LENS;
    attn_data x = {0}, nw = {0};
    wk_tensor *o = NULL;
    double *gk = NULL, *gv = NULL, *got = NULL, *want = NULL, *want_lse = NULL;
    int64_t n = s.b * s.hq * s.sq * s.dv;
    if (wkt_failed(make_qkv(c, &s, dev, rng, &x), r, "make q and the caches") ||
        wkt_failed(make_qkv(c, &ns, dev, rng, &nw), r, "make new rows") ||
        wkt_failed(make_lens(&ls, s.skv - s.sq, dev, rng, &x), r, "make lengths"))
        goto done;
    wk_attention_params p = {.scale = s.scale, .causal = s.flags & ATTN_CAUSAL, .windowed = s.flags & ATTN_WINDOW,
                             .window_left = s.wl, .window_right = s.wr, .seq_lens = x.lens_t,
                             .block_table = x.table_t};
    if (wkt_failed(wk_attention_kv(x.q, x.k, x.v, nw.k, nw.v, &p, &o, NULL), r, "attention_kv") ||
        wkt_failed(wkt_read(x.k, &gk), r, "read k_cache") || wkt_failed(wkt_read(x.v, &gv), r, "read v_cache") ||
        wkt_failed(wkt_read(o, &got), r, "read out"))
        goto done;
    attn_append_reference(&s, &x, &nw);
    wkt_compare(c->dtype, gk, x.kv, wk_tensor_numel(x.k), 0, true, r);
    wkt_compare(c->dtype, gv, x.vv, wk_tensor_numel(x.v), 0, true, r);
    want = malloc(sizeof(double) * (size_t)(n + 1));
    want_lse = malloc(sizeof(double) * (size_t)(s.b * s.hq * s.sq + 1));
    if (!want || !want_lse) {
        wkt_fail(r, "out of host memory");
        goto done;
    }
    for (int64_t b = 0; b < s.b; b++)
        x.lens[b] += s.sq;
    attn_reference(&ls, &x, want, want_lse);
    for (int64_t i = 0; i < n; i++)
        want[i] = wkt_round_to(c->dtype, want[i]);
    wkt_compare(c->dtype, got, want, n, wkt_tol(c->dtype, WKT_TOL_MATMUL), false, r);
done:
    free(gk), free(gv), free(got), free(want), free(want_lse);
    attn_data_free(&x);
    attn_data_free(&nw);
    wk_tensor_release(o);
}

static void add(wkt_list *l, const char *op, wk_dtype dt, wkt_layout layout, attn_spec s)
{
    wkt_case c;
    memset(&c, 0, sizeof c);
    c.family = "attention";
    snprintf(c.op, sizeof c.op, "%s", op);
    c.dtype = dt;
    c.layout = layout;
    c.rank = 7;
    const int64_t shape[7] = {s.b, s.hq, s.hkv, s.sq, s.skv, s.d, s.dv};
    memcpy(c.shape, shape, sizeof shape);
    c.iparam[0] = s.flags;
    c.iparam[1] = (int)s.wl;
    c.iparam[2] = (int)s.wr;
    c.iparam[3] = s.bias;
    c.iparam[4] = (int)s.block;
    c.fparam[0] = s.softcap;
    c.fparam[1] = s.scale;
    c.run = strcmp(op, "kv_append") == 0 ? run_append : strcmp(op, "attention_kv") == 0 ? run_attention_kv
                                                                                       : run_attention;
    wkt_add(l, &c);
}

static void cases(wkt_list *l)
{
    static const wk_dtype dts[] = {WK_F16, WK_BF16, WK_F32};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        wk_dtype dt = dts[k];
        for (wkt_layout lay = 0; lay < WKT_LAYOUT_COUNT; lay++)
            if (lay != WKT_BROADCAST)
                add(l, "attention", dt, lay, (attn_spec){2, 4, 2, 9, 13, 32, 32, .flags = ATTN_LSE});
        add(l, "attention", dt, WKT_CONTIG, (attn_spec){2, 8, 2, 37, 100, 64, 64, .flags = ATTN_CAUSAL | ATTN_LSE});
        add(l, "attention", dt, WKT_CONTIG, (attn_spec){1, 4, 4, 16, 16, 128, 128, .flags = ATTN_BSHD | ATTN_CAUSAL});
        add(l, "attention", dt, WKT_CONTIG,
            (attn_spec){3, 8, 1, 5, 64, 64, 64, .flags = ATTN_LENS | ATTN_LSE, .block = 16});
        add(l, "attention", dt, WKT_CONTIG, (attn_spec){1, 32, 8, 1, 3000, 128, 128, .flags = ATTN_LSE});
    }
    /* head dims, Dv != D, odd key counts */
    static const int64_t dims[] = {32, 64, 80, 96, 128, 192, 256};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        add(l, "attention", WK_F32, WKT_CONTIG, (attn_spec){1, 2, 1, 7, 33, dims[i], dims[(i + 3) % 7],
                                                            .flags = ATTN_CAUSAL | ATTN_LSE});
    static const int64_t skvs[] = {1, 7, 1000};
    for (size_t i = 0; i < 3; i++)
        add(l, "attention", WK_BF16, WKT_TRANSPOSED, (attn_spec){2, 4, 4, 3, skvs[i], 64, 48, .flags = ATTN_LSE});
    /* GQA ratios 1, 4, 8, 32 */
    static const int64_t ratios[] = {1, 4, 8, 32};
    for (size_t i = 0; i < 4; i++)
        add(l, "attention", WK_F16, WKT_CONTIG, (attn_spec){1, 32, 32 / ratios[i], 20, 70, 64, 64,
                                                            .flags = ATTN_CAUSAL | ATTN_BSHD});
    /* causal with Sq > Skv (the first rows see nothing), windows, bias kinds, ALiBi, soft-cap, scale */
    add(l, "attention", WK_F32, WKT_CONTIG, (attn_spec){2, 2, 2, 20, 12, 32, 32, .flags = ATTN_CAUSAL | ATTN_LSE});
    add(l, "attention", WK_F32, WKT_CONTIG,
        (attn_spec){2, 4, 2, 50, 90, 32, 32, .flags = ATTN_WINDOW | ATTN_LSE, .wl = 8, .wr = 3});
    add(l, "attention", WK_BF16, WKT_OFFSET,
        (attn_spec){1, 4, 1, 70, 70, 64, 64, .flags = ATTN_WINDOW | ATTN_CAUSAL, .wl = 16, .wr = -1});
    add(l, "attention", WK_F16, WKT_CONTIG,
        (attn_spec){2, 2, 2, 9, 130, 32, 32, .flags = ATTN_WINDOW, .wl = -1, .wr = 0});
    for (int bias = ATTN_BIAS_F32; bias <= ATTN_BIAS_NEGINF; bias++) {
        add(l, "attention", WK_F32, WKT_CONTIG, (attn_spec){2, 4, 2, 11, 77, 32, 32, .flags = ATTN_LSE, .bias = bias});
        add(l, "attention", WK_BF16, WKT_PERMUTED,
            (attn_spec){2, 4, 4, 11, 77, 64, 64, .flags = ATTN_CAUSAL | ATTN_LSE, .bias = bias});
    }
    add(l, "attention", WK_F32, WKT_CONTIG, (attn_spec){2, 8, 2, 17, 90, 64, 64, .flags = ATTN_ALIBI | ATTN_CAUSAL});
    add(l, "attention", WK_F16, WKT_CONTIG, (attn_spec){2, 4, 4, 17, 90, 64, 64, .flags = ATTN_LSE, .softcap = 5.0});
    add(l, "attention", WK_F32, WKT_CONTIG,
        (attn_spec){1, 4, 2, 13, 40, 32, 32, .flags = ATTN_LSE | ATTN_ALIBI, .softcap = 2.0, .scale = 0.3});
    /* padded batches, decode with long caches (split keys), paged caches */
    add(l, "attention", WK_F32, WKT_CONTIG,
        (attn_spec){4, 4, 2, 6, 200, 64, 64, .flags = ATTN_LENS | ATTN_CAUSAL | ATTN_LSE});
    add(l, "attention", WK_F32, WKT_CONTIG, (attn_spec){1, 8, 2, 1, 65536, 64, 64, .flags = ATTN_LSE});
    add(l, "attention", WK_BF16, WKT_CONTIG,
        (attn_spec){2, 8, 2, 4, 4096, 128, 128, .flags = ATTN_LENS | ATTN_CAUSAL | ATTN_LSE});
    add(l, "attention", WK_F16, WKT_CONTIG,
        (attn_spec){4, 8, 2, 1, 1024, 128, 128, .flags = ATTN_BSHD | ATTN_LSE, .block = 16});
    add(l, "attention", WK_F32, WKT_TRANSPOSED,
        (attn_spec){3, 4, 4, 7, 96, 32, 32, .flags = ATTN_CAUSAL | ATTN_ALIBI | ATTN_LSE, .block = 32,
                    .bias = ATTN_BIAS_MASK});
    /* the tensor-core kernels' shapes (f16/bf16, D 64 or 128; GPU: both paths, WICK_ATTENTION_KERNEL=scalar):
     * prefill over several query and key tiles, Sq > Skv, windows, strided q, paged; decode with GQA groups up
     * to 32 (two chunks), a few queries, windows, paged caches and split keys */
    add(l, "attention", WK_BF16, WKT_CONTIG,
        (attn_spec){2, 4, 2, 150, 300, 128, 128, .flags = ATTN_CAUSAL | ATTN_LENS | ATTN_LSE});
    add(l, "attention", WK_F16, WKT_CONTIG,
        (attn_spec){1, 4, 1, 130, 200, 64, 64, .flags = ATTN_WINDOW | ATTN_LSE, .wl = 40, .wr = 5});
    add(l, "attention", WK_F16, WKT_CONTIG, (attn_spec){1, 2, 2, 100, 70, 64, 64, .flags = ATTN_CAUSAL | ATTN_LSE});
    add(l, "attention", WK_BF16, WKT_CONTIG,
        (attn_spec){2, 8, 2, 80, 80, 128, 128, .flags = ATTN_BSHD | ATTN_CAUSAL | ATTN_LSE});
    add(l, "attention", WK_F16, WKT_CONTIG,
        (attn_spec){2, 4, 2, 40, 256, 64, 64, .flags = ATTN_LENS | ATTN_CAUSAL | ATTN_LSE, .block = 16});
    add(l, "attention", WK_BF16, WKT_CONTIG,
        (attn_spec){2, 16, 2, 3, 2048, 128, 128, .flags = ATTN_LENS | ATTN_CAUSAL | ATTN_LSE, .block = 32});
    add(l, "attention", WK_F16, WKT_CONTIG,
        (attn_spec){2, 8, 2, 97, 336, 128, 128, .flags = ATTN_WINDOW | ATTN_LENS | ATTN_LSE, .wl = 100, .wr = 7,
                    .block = 16});
    add(l, "attention", WK_F16, WKT_CONTIG, (attn_spec){1, 32, 1, 1, 5000, 64, 64, .flags = ATTN_LSE});
    add(l, "attention", WK_BF16, WKT_CONTIG,
        (attn_spec){2, 8, 2, 2, 3000, 64, 64, .flags = ATTN_WINDOW | ATTN_LSE, .wl = 500, .wr = 0});
    /* cuDNN's fused attention (GPU; WICK_ATTENTION_KERNEL=cudnn runs these on it): f16/bf16 prefill without bias,
     * lengths or windows but causal, Skv >= Sq: square and bottom-right causal, GQA, odd sizes, D 96 and 256, lse
     * or none, BSHD views */
    add(l, "attention", WK_F16, WKT_CONTIG, (attn_spec){2, 4, 4, 64, 64, 64, 64, .flags = ATTN_CAUSAL});
    add(l, "attention", WK_BF16, WKT_CONTIG,
        (attn_spec){1, 8, 2, 96, 160, 128, 128, .flags = ATTN_CAUSAL | ATTN_LSE});
    add(l, "attention", WK_F16, WKT_CONTIG, (attn_spec){2, 4, 2, 33, 47, 96, 96, .flags = ATTN_LSE, .scale = 0.2});
    add(l, "attention", WK_BF16, WKT_CONTIG, (attn_spec){1, 4, 4, 40, 40, 256, 256, .flags = ATTN_CAUSAL});
    add(l, "attention", WK_F16, WKT_CONTIG,
        (attn_spec){2, 8, 1, 129, 257, 64, 64, .flags = ATTN_BSHD | ATTN_CAUSAL | ATTN_LSE});
    /* kv_append: Sq new rows into a cache of Skv positions */
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        add(l, "kv_append", dts[k], WKT_CONTIG, (attn_spec){3, 2, 2, 4, 40, 32, 16, .flags = 0});
        add(l, "kv_append", dts[k], WKT_TRANSPOSED, (attn_spec){3, 2, 2, 1, 64, 64, 64, .block = 16});
        add(l, "kv_append", dts[k], WKT_CONTIG, (attn_spec){2, 4, 4, 9, 48, 32, 32, .flags = ATTN_BSHD, .block = 8});
    }
    /* attention_kv: the decode step's append and attention (f16/bf16, D 64/128, up to 16 queries, a contiguous
     * cache: one kernel on NVIDIA GPUs, the new rows in a split past the first; the rest as the two ops) */
    add(l, "attention_kv", WK_BF16, WKT_CONTIG, (attn_spec){3, 8, 2, 1, 200, 64, 64, .flags = ATTN_CAUSAL});
    add(l, "attention_kv", WK_F16, WKT_CONTIG, (attn_spec){2, 4, 4, 3, 130, 128, 128, .flags = ATTN_CAUSAL});
    add(l, "attention_kv", WK_BF16, WKT_CONTIG, (attn_spec){2, 16, 4, 1, 4096, 64, 64, .flags = ATTN_CAUSAL});
    add(l, "attention_kv", WK_F16, WKT_CONTIG,
        (attn_spec){2, 8, 2, 1, 300, 64, 64, .flags = ATTN_CAUSAL | ATTN_BSHD});
    add(l, "attention_kv", WK_F16, WKT_CONTIG,
        (attn_spec){2, 4, 2, 1, 100, 64, 64, .flags = ATTN_CAUSAL | ATTN_WINDOW, .wl = 10, .wr = 0});
    add(l, "attention_kv", WK_F32, WKT_CONTIG, (attn_spec){2, 4, 2, 2, 40, 32, 16, .flags = ATTN_CAUSAL});
    add(l, "attention_kv", WK_F16, WKT_CONTIG, (attn_spec){3, 4, 2, 1, 64, 64, 64, .flags = ATTN_CAUSAL, .block = 16});
    add(l, "attention_kv", WK_BF16, WKT_CONTIG, (attn_spec){1, 4, 4, 20, 64, 64, 64, .flags = ATTN_CAUSAL});
    /* queries past one tile of the decode kernel's rows (Sq times the group over 16) */
    add(l, "attention_kv", WK_BF16, WKT_CONTIG, (attn_spec){1, 8, 2, 5, 64, 64, 64, .flags = ATTN_CAUSAL});
    add(l, "attention_kv", WK_F16, WKT_CONTIG, (attn_spec){2, 16, 1, 3, 80, 64, 64, .flags = ATTN_CAUSAL});
}

const wkt_family wkt_family_attention = {.name = "attention", .cases = cases, .errors = attn_errors};
