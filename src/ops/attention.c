/* attention.c: fused scaled-dot-product attention (contiguous or paged keys and values), the KV-cache append, and the
 * two in one call (wk_attention_kv: the backend's attention_kv slot where it fuses them, else the two ops; the slot
 * is never called under WICK_ATTENTION_KV_FUSED=0, for comparisons): argument checks, the parameters resolved once
 * (scale, causal folded into the window, the bias broadcast). */
#include <math.h>
#include <stdio.h>

#include "core/env.h"
#include "ops/common.h"

#define ATTN_MAX_DIM 256

/* The dtypes attention computes on: f16, bf16, f32. */
static wk_status check_attn_dtype(const char *op, const wk_tensor *t)
{
    if (t->dtype == WK_F16 || t->dtype == WK_BF16 || t->dtype == WK_F32)
        return WK_OK;
    return wk_error(WK_ERR_DTYPE, "%s: dtype %s is not supported (f16, bf16 or f32)", op, wk_dtype_name(t->dtype));
}

/* t is (dims[0], ..., dims[rank-1]) where dims[i] >= 0; dims[i] < 0 means any size. */
static wk_status check_shape(const char *op, const char *name, const wk_tensor *t, int rank, const int64_t *dims,
                             const char *layout)
{
    char b[200];
    bool ok = t->rank == rank;
    for (int i = 0; ok && i < rank; i++)
        ok = dims[i] < 0 || t->shape[i] == dims[i];
    if (!ok)
        return wk_error(WK_ERR_SHAPE, "%s: %s must be %s, got %s", op, name, layout, wk_describe(b, sizeof b, t));
    return WK_OK;
}

/* An optional i32 tensor of the given shape on q's device. */
static wk_status check_i32(const char *op, const char *name, const wk_tensor *t, const wk_tensor *q, int rank,
                           const int64_t *dims, const char *layout)
{
    char b[200];
    if (t == NULL)
        return WK_OK;
    WK_TRY(wk_check_same_device(op, q, t));
    if (t->dtype != WK_I32)
        return wk_error(WK_ERR_DTYPE, "%s: %s must be i32, got %s", op, name, wk_describe(b, sizeof b, t));
    return check_shape(op, name, t, rank, dims, layout);
}

/* The key/value operands: k (B or num_blocks, Hkv, S, D), v the same with Dv; both of q's dtype and device.
 * Fills *hkv, *s (k's dim 2) and *dv. */
static wk_status check_kv(const char *op, const char *kn, const char *vn, const wk_tensor *q, const wk_tensor *k,
                          const wk_tensor *v, bool paged, int64_t *hkv, int64_t *s, int64_t *dv)
{
    char b1[200], b2[200], kr[64], vr[64];
    WK_TRY(wk_check_tensor(op, kn, k));
    WK_TRY(wk_check_tensor(op, vn, v));
    WK_TRY(wk_check_same_device(op, q, k));
    WK_TRY(wk_check_same_device(op, q, v));
    WK_TRY(wk_check_same_dtype(op, q, k));
    WK_TRY(wk_check_same_dtype(op, q, v));
    const char *layout = paged ? "(num_blocks, Hkv, block_size, D)" : "(B, Hkv, Skv, D)";
    snprintf(kr, sizeof kr, "%s %s", kn, layout);
    snprintf(vr, sizeof vr, "%s %s", vn, layout);
    WK_TRY(wk_check_rank(op, kr, k, 4));
    WK_TRY(wk_check_rank(op, vr, v, 4));
    *hkv = k->shape[1];
    *s = k->shape[2];
    *dv = v->shape[3];
    if (v->shape[0] != k->shape[0] || v->shape[1] != *hkv || v->shape[2] != *s || (!paged && k->shape[0] != q->shape[0]))
        return wk_error(WK_ERR_SHAPE, "%s: %s %s and %s %s must be %s (Dv for %s) with B = %lld", op, kn,
                        wk_describe(b1, sizeof b1, k), vn, wk_describe(b2, sizeof b2, v), layout, vn,
                        (long long)q->shape[0]);
    if (*hkv < 1)
        return wk_error(WK_ERR_SHAPE, "%s: %s %s has no heads", op, kn, wk_describe(b1, sizeof b1, k));
    if (paged && *s < 1)
        return wk_error(WK_ERR_SHAPE, "%s: block_size of %s %s must be at least 1", op, kn,
                        wk_describe(b1, sizeof b1, k));
    return WK_OK;
}

/* Head dims and the query/key head ratio. */
static wk_status check_heads(const char *op, const wk_tensor *q, const wk_tensor *k, int64_t hkv, int64_t dv)
{
    char b1[200], b2[200];
    int64_t d = q->shape[3];
    if (k->shape[3] != d)
        return wk_error(WK_ERR_SHAPE, "%s: k's head dim %lld differs from q's %lld", op, (long long)k->shape[3],
                        (long long)d);
    if (d < 1 || d > ATTN_MAX_DIM || dv < 1 || dv > ATTN_MAX_DIM)
        return wk_error(WK_ERR_SHAPE, "%s: head dims D = %lld and Dv = %lld must be in [1, %d]", op, (long long)d,
                        (long long)dv, ATTN_MAX_DIM);
    if (q->shape[1] % hkv != 0)
        return wk_error(WK_ERR_SHAPE, "%s: q's %lld heads %s are not a multiple of k's %lld heads %s", op,
                        (long long)q->shape[1], wk_describe(b1, sizeof b1, q), (long long)hkv,
                        wk_describe(b2, sizeof b2, k));
    return WK_OK;
}

/* Scale, soft-cap and window into a; causal folded into window_right. */
static wk_status resolve_scalars(const char *op, const wk_attention_params *p, int64_t d, wk_attn *a)
{
    if (!isfinite(p->scale) || !isfinite(p->softcap) || p->softcap < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: scale %g must be finite and softcap %g finite and >= 0", op,
                        p->scale, p->softcap);
    a->scale = p->scale != 0 ? p->scale : 1.0 / sqrt((double)d);
    a->softcap = p->softcap;
    a->window_left = a->window_right = -1;
    if (p->windowed) {
        if (p->window_left < -1 || p->window_right < -1)
            return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: window sizes (%lld, %lld) must be >= 0, or -1 for unbounded",
                            op, (long long)p->window_left, (long long)p->window_right);
        a->window_left = p->window_left;
        a->window_right = p->window_right;
    }
    if (p->causal && (a->window_right < 0 || a->window_right > 0))
        a->window_right = 0;
    return WK_OK;
}

/* The bias as a (B, Hq, Sq, skv) view; *view is released by the caller. */
static wk_status resolve_bias(const char *op, const wk_tensor *q, const wk_tensor *bias, int64_t skv, wk_tensor **view)
{
    char b[200];
    if (bias == NULL)
        return WK_OK;
    WK_TRY(wk_check_same_device(op, q, bias));
    if (bias->dtype != WK_F32 && bias->dtype != q->dtype && bias->dtype != WK_U8)
        return wk_error(WK_ERR_DTYPE, "%s: bias must be f32, %s (q's dtype) or a u8 mask, got %s", op,
                        wk_dtype_name(q->dtype), wk_describe(b, sizeof b, bias));
    int64_t shape[4] = {q->shape[0], q->shape[1], q->shape[2], skv};
    return wk_broadcast_view(op, bias, 4, shape, view);
}

/* Everything but the tensors' presence: fills a (with *bias_view to release). */
static wk_status check_attention(const char *op, const wk_tensor *q, const wk_tensor *k, const wk_tensor *v,
                                 const wk_attention_params *p, wk_attn *a, int64_t *dv, wk_tensor **bias_view)
{
    char b[200];
    WK_TRY(check_attn_dtype(op, q));
    WK_TRY(wk_check_rank(op, "q (B, Hq, Sq, D)", q, 4));
    bool paged = p->block_table != NULL;
    int64_t hkv, s;
    WK_TRY(check_kv(op, "k", "v", q, k, v, paged, &hkv, &s, dv));
    WK_TRY(check_heads(op, q, k, hkv, *dv));
    int64_t B = q->shape[0], hq = q->shape[1];
    int64_t lens[1] = {B}, table[2] = {B, -1}, slopes[1] = {hq};
    WK_TRY(check_i32(op, "seq_lens", p->seq_lens, q, 1, lens, "(B)"));
    WK_TRY(check_i32(op, "block_table", p->block_table, q, 2, table, "(B, max_blocks)"));
    if (paged && p->seq_lens == NULL)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: a paged cache (block_table) needs seq_lens", op);
    if (p->alibi != NULL) {
        WK_TRY(wk_check_same_device(op, q, p->alibi));
        if (p->alibi->dtype != WK_F32)
            return wk_error(WK_ERR_DTYPE, "%s: alibi slopes must be f32, got %s", op,
                            wk_describe(b, sizeof b, p->alibi));
        WK_TRY(check_shape(op, "alibi", p->alibi, 1, slopes, "(Hq)"));
    }
    *a = (wk_attn){.q = q, .k = k, .v = v, .alibi = p->alibi, .seq_lens = p->seq_lens,
                   .block_table = p->block_table, .block_size = paged ? s : 0};
    a->skv = paged ? wk_mul_sat(p->block_table->shape[1], s) : s;
    WK_TRY(resolve_scalars(op, p, q->shape[3], a));
    WK_TRY(resolve_bias(op, q, p->bias, a->skv, bias_view));
    a->bias = *bias_view;
    return WK_OK;
}

/* The outputs for the checked job a (dv: v's head dim), then the attention slot, or with a->k_new the attention_kv
 * slot (present, and out not empty: the caller's to see); *out and *lse (lse may be NULL) new, or nothing on
 * failure. */
static wk_status run_slot(const char *op, wk_attn *a, int64_t dv, wk_tensor **out, wk_tensor **lse)
{
    const wk_tensor *q = a->q;
    wk_tensor *o = NULL, *l = NULL;
    int64_t shape[4] = {q->shape[0], q->shape[1], q->shape[2], dv};
    wk_status s = wk_alloc_output(op, wk_dev(q), q->dtype, 4, shape, &o);
    if (s == WK_OK && lse != NULL)
        s = wk_alloc_output(op, wk_dev(q), WK_F32, 3, shape, &l);
    a->out = o;
    a->lse = l;
    if (s == WK_OK)
        s = a->k_new ? wk_be(q)->attention_kv(a) : WK_SLOT(o, attention, a);
    if (s != WK_OK) {
        wk_tensor_release(o);
        wk_tensor_release(l);
        return s;
    }
    *out = o;
    if (lse != NULL)
        *lse = l;
    return WK_OK;
}

wk_status wk_attention(const wk_tensor *q, const wk_tensor *k, const wk_tensor *v, const wk_attention_params *p,
                       wk_tensor **out, wk_tensor **lse)
{
    const char *op = "attention";
    static const wk_attention_params defaults = {0};
    WK_TRY(wk_check_tensor(op, "q", q));
    WK_TRY(wk_check_out(op, out));
    wk_attn a;
    int64_t dv = 0;
    wk_tensor *bias = NULL;
    wk_status s = check_attention(op, q, k, v, p ? p : &defaults, &a, &dv, &bias);
    if (s == WK_OK)
        s = WK_CHECK_SLOT(op, q, attention);
    if (s == WK_OK)
        s = run_slot(op, &a, dv, out, lse);
    wk_tensor_release(bias);
    return s;
}

/* kv_append's operands: caches writable, one dtype, shapes as wk_kv_write says, nothing shared. */
static wk_status check_kv_append(const char *op, const wk_kv_write *w, bool paged)
{
    int64_t hkv, cap, dv, hkv_new, snew, dv_new;
    WK_TRY(check_attn_dtype(op, w->k));
    WK_TRY(wk_check_rank(op, "k (B, Hkv, Snew, D)", w->k, 4));
    WK_TRY(check_kv(op, "k_cache", "v_cache", w->k, w->k_cache, w->v_cache, paged, &hkv, &cap, &dv));
    WK_TRY(check_kv(op, "k", "v", w->k, w->k, w->v, false, &hkv_new, &snew, &dv_new));
    int64_t cache_dims[4] = {-1, hkv_new, -1, w->k->shape[3]};
    WK_TRY(check_shape(op, "k_cache", w->k_cache, 4, cache_dims, "(., Hkv, ., D) of k"));
    if (dv != dv_new)
        return wk_error(WK_ERR_SHAPE, "%s: v_cache's head dim %lld differs from v's %lld", op, (long long)dv,
                        (long long)dv_new);
    int64_t B = w->k->shape[0], lens[1] = {B}, table[2] = {B, -1};
    if (w->seq_lens == NULL)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: seq_lens is required", op);
    WK_TRY(check_i32(op, "seq_lens", w->seq_lens, w->k, 1, lens, "(B)"));
    WK_TRY(check_i32(op, "block_table", w->block_table, w->k, 2, table, "(B, max_blocks)"));
    WK_TRY(wk_check_writable(op, w->k_cache));
    WK_TRY(wk_check_writable(op, w->v_cache));
    const struct { const char *name; const wk_tensor *t; } reads[] = {
        {"v_cache", w->v_cache}, {"k", w->k}, {"v", w->v}, {"seq_lens", w->seq_lens},
        {"block_table", w->block_table}};
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        WK_TRY(wk_check_no_alias(op, "k_cache", w->k_cache, reads[i].name, reads[i].t));
        if (i > 0)
            WK_TRY(wk_check_no_alias(op, "v_cache", w->v_cache, reads[i].name, reads[i].t));
    }
    return WK_OK;
}

wk_status wk_kv_append(wk_tensor *k_cache, wk_tensor *v_cache, const wk_tensor *k, const wk_tensor *v,
                       const wk_tensor *seq_lens, const wk_tensor *block_table)
{
    const char *op = "kv_append";
    WK_TRY(wk_check_tensor(op, "k_cache", k_cache));
    WK_TRY(wk_check_tensor(op, "v_cache", v_cache));
    WK_TRY(wk_check_tensor(op, "k", k));
    wk_kv_write w = {.k_cache = k_cache, .v_cache = v_cache, .k = k, .v = v, .seq_lens = seq_lens,
                     .block_table = block_table};
    bool paged = block_table != NULL;
    WK_TRY(check_kv_append(op, &w, paged));
    w.block_size = paged ? k_cache->shape[2] : 0;
    w.capacity = paged ? wk_mul_sat(block_table->shape[1], w.block_size) : k_cache->shape[2];
    WK_TRY(WK_CHECK_SLOT(op, k, kv_append));
    if (wk_empty(k) && wk_empty(v))
        return WK_OK;
    return wk_be(k)->kv_append(&w);
}

/* The new keys' lengths: seq_lens + sq, a new (B) i32. */
static wk_status lens_after(const wk_tensor *seq_lens, int64_t sq, wk_tensor **out)
{
    wk_tensor *n = NULL;
    wk_status s = wk_full(wk_dev(seq_lens), WK_I32, 0, NULL, (double)sq, &n);
    if (s == WK_OK)
        s = wk_binary(WK_BINARY_ADD, seq_lens, n, out);
    wk_tensor_release(n);
    return s;
}

wk_status wk_attention_kv(const wk_tensor *q, wk_tensor *k_cache, wk_tensor *v_cache, const wk_tensor *k_new,
                          const wk_tensor *v_new, const wk_attention_params *p, wk_tensor **out, wk_tensor **lse)
{
    const char *op = "attention_kv";
    static const wk_attention_params defaults = {0};
    p = p ? p : &defaults;
    WK_TRY(wk_check_tensor(op, "q", q));
    WK_TRY(wk_check_tensor(op, "k_cache", k_cache));
    WK_TRY(wk_check_tensor(op, "v_cache", v_cache));
    WK_TRY(wk_check_tensor(op, "k_new", k_new));
    WK_TRY(wk_check_out(op, out));
    wk_kv_write w = {.k_cache = k_cache, .v_cache = v_cache, .k = k_new, .v = v_new, .seq_lens = p->seq_lens,
                     .block_table = p->block_table};
    WK_TRY(check_kv_append(op, &w, p->block_table != NULL));
    if (k_new->shape[0] != q->shape[0] || k_new->shape[2] != q->shape[2])
        return wk_error(WK_ERR_SHAPE, "%s: k_new (B, Hkv, Sq, D) must have q's B %lld and Sq %lld", op,
                        (long long)q->shape[0], (long long)q->shape[2]);
    WK_TRY(wk_check_no_alias(op, "k_cache", k_cache, "q", q));
    WK_TRY(wk_check_no_alias(op, "v_cache", v_cache, "q", q));
    wk_attn a;
    int64_t dv = 0;
    wk_tensor *bias = NULL, *lens = NULL;
    wk_status s = check_attention(op, q, k_cache, v_cache, p, &a, &dv, &bias); /* all before anything is written */
    static atomic_int fused;
    if (s == WK_OK && wk_be(q)->attention_kv && wk_tensor_numel(q) > 0 && dv > 0 &&
        wk_env_on("WICK_ATTENTION_KV_FUSED", &fused)) {
        a.k_new = k_new;
        a.v_new = v_new;
        s = run_slot(op, &a, dv, out, lse);
        if (s == WK_ERR_UNSUPPORTED)
            s = WK_OK; /* the backend does not fuse this call: the two ops below */
        else {
            wk_tensor_release(bias);
            return s;
        }
    }
    wk_tensor_release(bias);
    WK_TRY(s);
    WK_TRY(WK_CHECK_SLOT(op, q, attention));
    WK_TRY(lens_after(p->seq_lens, q->shape[2], &lens)); /* made before the caches are written */
    wk_attention_params after = *p;
    after.seq_lens = lens;
    s = wk_kv_append(k_cache, v_cache, k_new, v_new, p->seq_lens, p->block_table);
    if (s == WK_OK)
        s = wk_attention(q, k_cache, v_cache, &after, out, lse);
    wk_tensor_release(lens);
    return s;
}
