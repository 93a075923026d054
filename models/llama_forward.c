/* llama_forward.c: llama_forward: n new tokens of every sequence through the layers (each appends its keys and
 * values to the KV cache and attends causally over the cache), then the final norm, logits and greedy tokens;
 * one token per sequence goes through the replayed decode graph where the device has graphs (llama_graph.c). */
#include <stdlib.h>

#include "llama_internal.h"
#include "scope.h"

/* Self-attention of x (B, n, hidden) through the layer's attention norm and the rope of q's and k's heads (both fused
 * into the product): q, k, v as views of one product (heads of q, then k, then v in each row; v of its own product
 * where the layer has v_w), k and v appended to the cache and the causal fused op over it (wk_attention_kv: one
 * kernel in a GPU's decode step), the heads joined back into (B, n, heads * head_dim). */
static wk_status attend(wm_scope *sc, const llama_model *m, const llama_layer *L, const wk_tensor *x,
                        const llama_step *st, wk_tensor **out)
{
    const llama_config *c = &m->cfg;
    int64_t B = m->batch, n = st->n, D = c->head_dim, hq = c->heads, hkv = c->kv_heads;
    int64_t C = (hq + (L->v_w ? 1 : 2) * hkv) * D, Cv = L->v_w ? hkv * D : C; /* the products' row lengths */
    wk_tensor *qkv = NULL, *vo = NULL, *qk = NULL, *v = NULL, *qr = NULL, *kr = NULL, *a = NULL;
    const wk_linear_params pq = {.norm = L->attn_norm, .eps = c->eps, .bias = L->qkv_b, .rope_cos = st->cos,
                                 .rope_sin = st->sin, .rope_interleaved = c->interleaved_rope,
                                 .rope_cols = (hq + hkv) * D},
                           pv = {.norm = L->attn_norm, .eps = c->eps};
    WM_TRACK(sc, &qkv, wk_linear(x, L->qkv_w, &pq, &qkv));
    if (L->v_w)
        WM_TRACK(sc, &vo, wk_linear(x, L->v_w, &pv, &vo));
    const wk_tensor *vsrc = L->v_w ? vo : qkv;
    const int64_t qks[4] = {B, hq + hkv, n, D}, vs[4] = {B, hkv, n, D}, strides[4] = {n * C, D, C, 1},
                  vstrides[4] = {n * Cv, D, Cv, 1};
    WM_TRACK(sc, &qk, wk_as_strided(qkv, 4, qks, strides, wk_tensor_offset(qkv), &qk));
    WM_TRACK(sc, &v, wk_as_strided(vsrc, 4, vs, vstrides, wk_tensor_offset(vsrc) + (L->v_w ? 0 : (hq + hkv) * D), &v));
    WM_TRACK(sc, &qr, wk_narrow(qk, 1, 0, hq, &qr));
    WM_TRACK(sc, &kr, wk_narrow(qk, 1, hq, hkv, &kr));
    wk_attention_params p = {.causal = true, .seq_lens = st->len_before}; /* the lengths before the step's rows */
    WM_TRACK(sc, &a, wk_attention_kv(qr, L->k_cache, L->v_cache, kr, v, &p, &a, NULL));
    return wm_join_heads(sc, a, out);
}

/* One layer: x (B, n, hidden) -> *out, x after the layer (a new reference the caller owns). Each norm is fused into
 * the products after it and each residual add into the product before it (wk_linear), and the gated unit into the
 * gate/up product, the rope into the q/k/v product: four products and the attention with the cache append a layer. */
static wk_status run_layer(const llama_model *m, const llama_layer *L, const wk_tensor *x, const llama_step *st,
                           wk_tensor **out, char *err, size_t cap)
{
    wm_scope sc = {.err = err, .cap = cap};
    wk_tensor *att = NULL, *x1 = NULL, *g = NULL, *y = NULL;
    const wk_linear_params po = {.residual = x};
    wk_status s = attend(&sc, m, L, x, st, &att);
    if (s == WK_OK)
        s = wm_track(&sc, wk_linear(att, L->o_w, &po, &x1), &x1);
    const wk_linear_params pg = {.norm = L->ffn_norm, .eps = m->cfg.eps, .glu = true, .glu_kind = WK_GLU_SWIGLU},
                           pd = {.residual = x1};
    if (s == WK_OK)
        s = wm_track(&sc, wk_linear(x1, L->gate_up_w, &pg, &g), &g);
    if (s == WK_OK && (s = wm_track(&sc, wk_linear(g, L->down_w, &pd, &y), &y)) == WK_OK)
        wk_tensor_retain(y);
    wm_scope_end(&sc);
    *out = s == WK_OK ? y : NULL;
    return s;
}

/* The step's rope rows and length tensor, held by sc. */
static wk_status make_step(wm_scope *sc, const llama_model *m, int n, llama_step *st)
{
    int32_t *lens = malloc(sizeof(int32_t) * (size_t)m->batch);
    if (!lens)
        return wm_fail(sc->err, sc->cap, WK_ERR_OUT_OF_MEMORY, "no memory for %d lengths", m->batch);
    for (int b = 0; b < m->batch; b++)
        lens[b] = m->pos;
    int64_t B = m->batch;
    st->n = n;
    wk_status s = wm_track(sc, wk_tensor_from_host(m->dev, WK_I32, 1, &B, lens, &st->len_before), &st->len_before);
    free(lens);
    WM_TRY(s);
    WM_TRACK(sc, &st->cos, wk_narrow(m->cos, 0, m->pos, n, &st->cos));
    WM_TRACK(sc, &st->sin, wk_narrow(m->sin, 0, m->pos, n, &st->sin));
    return WK_OK;
}

wk_status llama_sample(const llama_model *m, const wk_tensor *last, wk_tensor **next)
{
    const llama_sampling *s = &m->sampling;
    float top_p = s->top_p > 0 ? s->top_p : 1.0f;
    wk_sample_params p = {.count = 1, .temperature = &s->temperature, .top_k = &s->top_k, .top_p = &top_p,
                          .min_p = &s->min_p, .seed = &s->seed, .offset = m->sample_step};
    wk_tensor *rows = NULL;
    wk_status st = wk_squeeze(last, 1, &rows);
    if (st == WK_OK)
        st = wk_sample(rows, &p, NULL, next);
    wk_tensor_release(rows);
    return st;
}

/* The lm head over x's positions (all, or the last; x: the last layer's output, through the final norm here): f32
 * logits (B, rows, vocab) when `logits` is not NULL, the next ids (i64, B) of the last position when `next` is not
 * NULL (the argmax when greedy or the sampling's temperature is 0, else llama_sample's draw); new references. */
static wk_status head(wm_scope *sc, const llama_model *m, const wk_tensor *x, const llama_step *st, bool all,
                      wk_tensor **logits, wk_tensor **next)
{
    int n = st->n;
    wk_tensor *hn = NULL, *lg = NULL, *l32 = NULL, *last = NULL, *am = NULL;
    const wk_linear_params p = {.norm = m->out_norm, .eps = m->cfg.eps};
    WM_TRACK(sc, &hn, wk_narrow(x, 1, all ? 0 : n - 1, all ? n : 1, &hn));
    WM_TRACK(sc, &lg, wk_linear(hn, m->lm_head, &p, &lg));
    if (logits) {
        WM_TRACK(sc, &l32, wk_cast(lg, WK_F32, &l32));
        wk_tensor_retain(l32);
        *logits = l32;
    }
    if (next) {
        WM_TRACK(sc, &last, wk_narrow(lg, 1, all ? n - 1 : 0, 1, &last));
        if (!st->greedy && m->sampling.temperature > 0)
            WM_TRACK(sc, &am, llama_sample(m, last, &am));
        else
            WM_TRACK(sc, &am, wk_argmax(last, -1, false, &am));
        wk_tensor_retain(am);
        *next = am;
    }
    return WK_OK;
}

wk_status llama_step_run(llama_model *m, const wk_tensor *ids, const llama_step *st, bool all, wk_tensor **logits,
                         wk_tensor **next, char *err, size_t cap)
{
    wm_scope sc = {.err = err, .cap = cap};
    int n = st->n;
    int64_t flat = (int64_t)m->batch * n, x3[3] = {m->batch, n, m->cfg.hidden};
    wk_tensor *fl = NULL, *e = NULL, *x = NULL;
    wk_status s = wm_track(&sc, wk_reshape(ids, 1, &flat, &fl), &fl);
    if (s == WK_OK) /* a GGUF's table may be kept block-quantized (llama_load.c) */
        s = wm_track(&sc, wk_dtype_is_quantized(wk_tensor_dtype(m->embed)) ? wk_index_select_dequant(m->embed, fl,
                     m->dtype, &e) : wk_index_select(m->embed, 0, fl, &e), &e);
    if (s == WK_OK && (s = wk_reshape(e, 3, x3, &x)) != WK_OK)
        wm_fail(err, cap, s, "%s", wk_last_error());
    for (int i = 0; i < m->cfg.layers && s == WK_OK; i++) {
        wk_tensor *y = NULL;
        s = run_layer(m, &m->layer[i], x, st, &y, err, cap);
        wk_tensor_release(x);
        x = y;
    }
    if (s == WK_OK && (s = wm_track(&sc, WK_OK, &x)) == WK_OK)
        s = head(&sc, m, x, st, all, logits, next);
    else
        wk_tensor_release(x);
    wm_scope_end(&sc);
    return s;
}

/* The step's results to the host: logits (rows x vocab per sequence) and the greedy tokens. */
wk_status llama_step_read(const llama_model *m, const wk_tensor *logits, const wk_tensor *next, float *lhost,
                          int32_t *nhost, char *err, size_t cap)
{
    if (lhost && wk_tensor_to_host(logits, lhost, wk_tensor_nbytes(logits)) != WK_OK)
        return wm_fail(err, cap, WK_ERR_BACKEND, "logits: %s", wk_last_error());
    if (!nhost)
        return WK_OK;
    int64_t *ids = malloc(sizeof(int64_t) * (size_t)m->batch);
    wk_status s = ids ? wk_tensor_to_host(next, ids, sizeof(int64_t) * (size_t)m->batch) : WK_ERR_OUT_OF_MEMORY;
    for (int b = 0; s == WK_OK && b < m->batch; b++)
        nhost[b] = (int32_t)ids[b];
    free(ids);
    return s == WK_OK ? WK_OK : wm_fail(err, cap, s, "greedy tokens: %s", wk_last_error());
}

wk_status llama_forward(llama_model *m, const int32_t *ids, int n, bool all_positions, float *logits, int32_t *next,
                        char *err, size_t cap)
{
    if (!m || !ids || n < 1)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "llama_forward: NULL model or ids, or n < 1");
    if (n > m->context - m->pos)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "llama_forward: %d tokens after %d do not fit a context of %d",
                       n, m->pos, m->context);
    for (int i = 0; i < n * m->batch; i++)
        if (ids[i] < 0 || ids[i] >= m->cfg.vocab)
            return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "llama_forward: token id %d outside the vocabulary of %d",
                           ids[i], m->cfg.vocab);
    wk_status s = WK_ERR_UNSUPPORTED;
    bool sampled = next && m->sampling.temperature > 0;
    if (n == 1 && (s = llama_decode_graph(m, ids, logits, next, err, cap)) != WK_ERR_UNSUPPORTED) {
        if (s == WK_OK) {
            m->pos += n;
            m->sample_step += sampled;
        }
        return s;
    }
    wm_scope sc = {.err = err, .cap = cap};
    llama_step st = {0};
    int64_t shape[2] = {m->batch, n};
    wk_tensor *idt = NULL, *lt = NULL, *nt = NULL;
    s = make_step(&sc, m, n, &st);
    if (s == WK_OK)
        s = wm_track(&sc, wk_tensor_from_host(m->dev, WK_I32, 2, shape, ids, &idt), &idt);
    if (s == WK_OK)
        s = llama_step_run(m, idt, &st, all_positions, logits ? &lt : NULL, next ? &nt : NULL, err, cap);
    if (s == WK_OK && (logits || next))
        s = llama_step_read(m, lt, nt, logits, next, err, cap);
    else if (s == WK_OK && (s = wk_stream_sync(wk_stream_current(m->dev))) != WK_OK) /* in order with the decode graph */
        wm_fail(err, cap, s, "%s", wk_last_error());
    wk_tensor_release(lt);
    wk_tensor_release(nt);
    wm_scope_end(&sc);
    if (s == WK_OK) {
        m->pos += n;
        m->sample_step += sampled;
    }
    return s;
}
