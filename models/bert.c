/* bert.c: bert_embed: the texts tokenized and sorted by length, each batch run through the encoder on the device
 * (fused attention over each text's own tokens, no padding mask tensor), mean pooled over each text's tokens by a
 * product with a (B, 1, S) weight matrix, and normalised to unit length. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bert_internal.h"
#include "scope.h"

/* layer_norm(x w^T + b + residual): the residual added by the product (wk_linear). */
static wk_status linear_add_norm(wm_scope *sc, const wk_tensor *x, const wk_tensor *w, const wk_tensor *b,
                                 const wk_tensor *res, const wk_tensor *ln_w, const wk_tensor *ln_b, double eps,
                                 wk_tensor **out)
{
    const wk_linear_params p = {.bias = b, .residual = res};
    wk_tensor *s = NULL;
    WM_TRACK(sc, &s, wk_linear(x, w, &p, &s));
    WM_TRACK(sc, out, wk_layer_norm(s, ln_w, ln_b, eps, out));
    return WK_OK;
}

/* Self-attention of x (B, S, H): one (H, 3H) product, q, k, v as (B, heads, S, hd) views of it, the fused op over
 * each text's lens[b] keys, and the heads joined back into (B, S, H). */
static wk_status self_attention(wm_scope *sc, const bert_model *m, const bert_layer *L, const wk_tensor *x,
                                const wk_tensor *lens, wk_tensor **out)
{
    int64_t B = wk_tensor_shape(x)[0], S = wk_tensor_shape(x)[1], H = m->hidden, nh = m->heads, hd = H / nh;
    wk_tensor *qkv = NULL, *q = NULL, *k = NULL, *v = NULL, *a = NULL;
    WM_TRY(wm_linear(sc, x, L->qkv_w, L->qkv_b, &qkv));
    const int64_t shape[4] = {B, nh, S, hd}, strides[4] = {S * 3 * H, hd, 3 * H, 1};
    int64_t base = wk_tensor_offset(qkv);
    WM_TRACK(sc, &q, wk_as_strided(qkv, 4, shape, strides, base, &q));
    WM_TRACK(sc, &k, wk_as_strided(qkv, 4, shape, strides, base + H, &k));
    WM_TRACK(sc, &v, wk_as_strided(qkv, 4, shape, strides, base + 2 * H, &v));
    wk_attention_params p = {.seq_lens = lens};
    WM_TRACK(sc, &a, wk_attention(q, k, v, &p, &a, NULL));
    return wm_join_heads(sc, a, out);
}

/* One encoder layer: x (B, S, H) -> *out (B, S, H), a new reference the caller owns. */
static wk_status run_layer(const bert_model *m, const bert_layer *L, const wk_tensor *x, const wk_tensor *lens,
                           wk_tensor **out, char *err, size_t cap)
{
    wm_scope sc = {.err = err, .cap = cap};
    wk_tensor *att = NULL, *x1 = NULL, *up = NULL, *g = NULL, *y = NULL;
    wk_status s = self_attention(&sc, m, L, x, lens, &att);
    if (s == WK_OK)
        s = linear_add_norm(&sc, att, L->attn_out_w, L->attn_out_b, x, L->ln1_w, L->ln1_b, m->eps, &x1);
    if (s == WK_OK)
        s = wm_linear(&sc, x1, L->up_w, L->up_b, &up);
    if (s == WK_OK)
        s = wm_track(&sc, wk_unary(WK_UNARY_GELU_ERF, up, &g), &g);
    if (s == WK_OK)
        s = linear_add_norm(&sc, g, L->down_w, L->down_b, x1, L->ln2_w, L->ln2_b, m->eps, &y);
    if (s == WK_OK)
        wk_tensor_retain(y);
    wm_scope_end(&sc);
    *out = s == WK_OK ? y : NULL;
    return s;
}

/* The embeddings of ids (B, S): word + position + token type 0, layer-normalised. */
static wk_status embed_tokens(const bert_model *m, const wk_tensor *ids, wk_tensor **out, char *err, size_t cap)
{
    wm_scope sc = {.err = err, .cap = cap};
    int64_t B = wk_tensor_shape(ids)[0], S = wk_tensor_shape(ids)[1], flat = B * S, shape[3] = {B, S, m->hidden};
    wk_tensor *fids = NULL, *w = NULL, *w3 = NULL, *pos = NULL, *tt = NULL, *e1 = NULL, *e2 = NULL, *e = NULL;
    wk_status s = wm_track(&sc, wk_reshape(ids, 1, &flat, &fids), &fids);
    if (s == WK_OK)
        s = wm_track(&sc, wk_index_select(m->word, 0, fids, &w), &w);
    if (s == WK_OK)
        s = wm_track(&sc, wk_reshape(w, 3, shape, &w3), &w3);
    if (s == WK_OK)
        s = wm_track(&sc, wk_narrow(m->pos, 0, 0, S, &pos), &pos);
    if (s == WK_OK)
        s = wm_track(&sc, wk_narrow(m->type, 0, 0, 1, &tt), &tt);
    if (s == WK_OK)
        s = wm_track(&sc, wk_binary(WK_BINARY_ADD, w3, pos, &e1), &e1);
    if (s == WK_OK)
        s = wm_track(&sc, wk_binary(WK_BINARY_ADD, e1, tt, &e2), &e2);
    if (s == WK_OK)
        s = wm_track(&sc, wk_layer_norm(e2, m->emb_ln_w, m->emb_ln_b, m->eps, &e), &e);
    if (s == WK_OK)
        wk_tensor_retain(e);
    wm_scope_end(&sc);
    *out = s == WK_OK ? e : NULL;
    return s;
}

/* One batch of B texts (their ids padded to S, lengths lens): the pooled and normalised embeddings into out. */
static wk_status run_batch(const bert_model *m, const int32_t *ids, const int32_t *lens, int64_t B, int64_t S,
                           float *out, char *err, size_t cap)
{
    wm_scope sc = {.err = err, .cap = cap};
    int64_t shape[2] = {B, S}, wshape[3] = {B, 1, S}, H = m->hidden;
    float *wts = calloc((size_t)(B * S), sizeof(float));
    if (!wts)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "bert: no memory for a batch of %lld", (long long)B);
    for (int64_t b = 0; b < B; b++)
        for (int64_t j = 0; j < lens[b]; j++)
            wts[b * S + j] = 1.0f / (float)lens[b]; /* mean pooling over the text's own tokens */
    wk_tensor *ids_t = NULL, *lens_t = NULL, *w32 = NULL, *w = NULL, *x = NULL, *pooled = NULL, *p32 = NULL;
    wk_status s = wm_track(&sc, wk_tensor_from_host(m->dev, WK_I32, 2, shape, ids, &ids_t), &ids_t);
    if (s == WK_OK)
        s = wm_track(&sc, wk_tensor_from_host(m->dev, WK_I32, 1, &B, lens, &lens_t), &lens_t);
    if (s == WK_OK)
        s = wm_track(&sc, wk_tensor_from_host(m->dev, WK_F32, 3, wshape, wts, &w32), &w32);
    if (s == WK_OK)
        s = wm_track(&sc, wk_cast(w32, m->dtype, &w), &w);
    free(wts);
    if (s == WK_OK)
        s = embed_tokens(m, ids_t, &x, err, cap);
    for (int i = 0; i < m->layers && s == WK_OK; i++) {
        wk_tensor *y = NULL;
        s = run_layer(m, &m->layer[i], x, lens_t, &y, err, cap);
        wk_tensor_release(x);
        x = y;
    }
    if (s == WK_OK)
        s = wm_track(&sc, wk_matmul(w, x, &pooled), &pooled);
    if (s == WK_OK)
        s = wm_track(&sc, wk_cast(pooled, WK_F32, &p32), &p32);
    if (s == WK_OK && (s = wk_tensor_to_host(p32, out, sizeof(float) * (size_t)(B * H))) != WK_OK)
        wm_fail(err, cap, s, "%s", wk_last_error());
    wk_tensor_release(x);
    wm_scope_end(&sc);
    for (int64_t b = 0; b < B && s == WK_OK; b++) { /* F.normalize: x / max(|x|, 1e-12) */
        double ss = 0;
        for (int64_t e = 0; e < H; e++)
            ss += (double)out[b * H + e] * out[b * H + e];
        double inv = 1.0 / fmax(sqrt(ss), 1e-12);
        for (int64_t e = 0; e < H; e++)
            out[b * H + e] = (float)(out[b * H + e] * inv);
    }
    return s;
}

typedef struct tokenized {
    int32_t *ids; /* n x max_tokens */
    int *len;
    int *order;   /* texts by length, longest first (sentence-transformers' order) */
} tokenized;

/* A text's length and index, sorted longest first and then by index (sentence-transformers' order). */
typedef struct ranked {
    int len, idx;
} ranked;

static int by_length(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    return x->len != y->len ? y->len - x->len : x->idx - y->idx;
}

static wk_status tokenize_all(const bert_model *m, const char *const *texts, const size_t *lens, int n,
                              tokenized *t, char *err, size_t cap)
{
    int T = m->max_tokens;
    t->ids = malloc(sizeof(int32_t) * (size_t)n * (size_t)T);
    t->len = malloc(sizeof(int) * (size_t)n);
    t->order = malloc(sizeof(int) * (size_t)n);
    if (!t->ids || !t->len || !t->order)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "bert: no memory to tokenize %d texts", n);
    for (int i = 0; i < n; i++) {
        if (!texts[i])
            return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "bert_embed: text %d is NULL", i);
        size_t len = lens ? lens[i] : strlen(texts[i]);
        WM_TRY(wp_encode(m->tok, texts[i], len, T, t->ids + (size_t)i * (size_t)T, &t->len[i], err, cap));
    }
    ranked *r = malloc(sizeof(ranked) * (size_t)n + 1);
    if (!r)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "bert: no memory to sort %d texts", n);
    for (int i = 0; i < n; i++)
        r[i] = (ranked){t->len[i], i};
    qsort(r, (size_t)n, sizeof(ranked), by_length);
    for (int i = 0; i < n; i++)
        t->order[i] = r[i].idx;
    free(r);
    return WK_OK;
}

wk_status bert_embed(const bert_model *m, const char *const *texts, const size_t *lens, int n, int batch, float *out,
                     char *err, size_t cap)
{
    if (!m || (n > 0 && (!texts || !out)) || n < 0 || batch < 1)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "bert_embed: NULL argument, n < 0 or batch < 1");
    int T = m->max_tokens, H = m->hidden;
    tokenized t = {0};
    wk_status s = tokenize_all(m, texts, lens, n, &t, err, cap);
    int32_t *ids = s == WK_OK ? malloc(sizeof(int32_t) * (size_t)batch * (size_t)T) : NULL;
    int32_t *blens = s == WK_OK ? malloc(sizeof(int32_t) * (size_t)batch) : NULL;
    float *emb = s == WK_OK ? malloc(sizeof(float) * (size_t)batch * (size_t)H) : NULL;
    if (s == WK_OK && (!ids || !blens || !emb))
        s = wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "bert: no memory for a batch of %d", batch);
    for (int first = 0; first < n && s == WK_OK; first += batch) {
        int B = n - first < batch ? n - first : batch, S = t.len[t.order[first]]; /* longest first */
        for (int b = 0; b < B; b++) {
            int i = t.order[first + b];
            blens[b] = t.len[i];
            for (int j = 0; j < S; j++)
                ids[b * S + j] = j < t.len[i] ? t.ids[(size_t)i * (size_t)T + j] : wp_pad_id(m->tok);
        }
        s = run_batch(m, ids, blens, B, S, emb, err, cap);
        for (int b = 0; b < B && s == WK_OK; b++)
            memcpy(out + (size_t)t.order[first + b] * (size_t)H, emb + (size_t)b * (size_t)H, sizeof(float) * (size_t)H);
    }
    free(ids);
    free(blens);
    free(emb);
    free(t.ids);
    free(t.len);
    free(t.order);
    return s;
}
