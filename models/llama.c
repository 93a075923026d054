/* llama.c: loading a Llama (a Hugging Face directory or a GGUF file), its KV cache and rope tables, and the
 * forward pass: every layer one fused q/k/v product with the rope, kv_append into the cache, the fused causal
 * attention over the cache, one fused gate/up product with SwiGLU; logits and greedy tokens at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "llama_internal.h"
#include "scope.h"

/* cos and sin of position p times each frequency (theta^(-2i/D), divided by the rope factors), computed in f32 as
 * transformers computes them, stored (context, head_dim / 2) in the model's dtype. */
static wk_status rope_tables(llama_model *m, char *err, size_t cap)
{
    const llama_config *c = &m->cfg;
    int half = c->head_dim / 2;
    float *cs = malloc(sizeof(float) * (size_t)m->context * (size_t)half);
    float *sn = malloc(sizeof(float) * (size_t)m->context * (size_t)half);
    wk_status s = cs && sn ? WK_OK : wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory for rope tables");
    for (int i = 0; s == WK_OK && i < half; i++) {
        float inv = 1.0f / powf((float)c->rope_theta, (float)(2 * i) / (float)c->head_dim);
        if (c->rope_factors)
            inv /= c->rope_factors[i];
        for (int p = 0; p < m->context; p++) {
            float a = (float)p * inv;
            cs[(size_t)p * half + i] = cosf(a);
            sn[(size_t)p * half + i] = sinf(a);
        }
    }
    const int64_t shape[2] = {m->context, half};
    wk_tensor *c32 = NULL, *s32 = NULL;
    if (s == WK_OK && ((s = wk_tensor_from_host(m->dev, WK_F32, 2, shape, cs, &c32)) != WK_OK ||
                       (s = wk_tensor_from_host(m->dev, WK_F32, 2, shape, sn, &s32)) != WK_OK ||
                       (s = wk_cast(c32, m->dtype, &m->cos)) != WK_OK || (s = wk_cast(s32, m->dtype, &m->sin)) != WK_OK))
        wm_fail(err, cap, s, "rope tables: %s", wk_last_error());
    wk_tensor_release(c32);
    wk_tensor_release(s32);
    free(cs);
    free(sn);
    return s;
}

static wk_status alloc_caches(llama_model *m, char *err, size_t cap)
{
    const llama_config *c = &m->cfg;
    const int64_t shape[4] = {m->batch, c->kv_heads, m->context, c->head_dim};
    for (int i = 0; i < c->layers; i++) {
        wk_status s = wk_tensor_empty(m->dev, m->dtype, 4, shape, &m->layer[i].k_cache);
        if (s == WK_OK)
            s = wk_tensor_empty(m->dev, m->dtype, 4, shape, &m->layer[i].v_cache);
        if (s != WK_OK)
            return wm_fail(err, cap, s, "KV cache for %d positions of %d sequence(s): %s", m->context, m->batch,
                           wk_last_error());
    }
    return WK_OK;
}

/* The configuration and weights of path: a directory (Hugging Face) or a GGUF file. */
static wk_status load_source(const char *path, llama_model *m, char *err, size_t cap)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return wm_fail(err, cap, WK_ERR_IO, "cannot open %s", path);
    if (S_ISDIR(st.st_mode)) {
        WM_TRY(llama_config_hf(path, &m->cfg, err, cap));
        return llama_weights_hf(path, m, err, cap);
    }
    wk_gguf *g = NULL;
    wk_status s = wk_gguf_open(path, &g);
    if (s != WK_OK)
        return wm_fail(err, cap, s, "%s", wk_last_error());
    s = llama_config_gguf(g, &m->cfg, err, cap);
    if (s == WK_OK)
        s = llama_weights_gguf(g, path, m, err, cap);
    wk_gguf_close(g);
    return s;
}

wk_status llama_load(const char *path, const llama_options *o, llama_model **out, char *err, size_t cap)
{
    static const llama_options defaults = {0};
    o = o ? o : &defaults;
    wk_dtype dt = o->dtype ? o->dtype : WK_F32;
    if (!path || !out)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "llama_load: NULL argument");
    if ((dt != WK_F32 && dt != WK_F16 && dt != WK_BF16) || o->context < 0 || o->batch < 0)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "llama_load: dtype %s, context %d, batch %d",
                       wk_dtype_name(dt), o->context, o->batch);
    llama_model *m = calloc(1, sizeof *m);
    if (!m)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "llama_load: no memory");
    m->dtype = dt;
    m->batch = o->batch ? o->batch : 1;
    wk_status s = wk_device_get(o->device ? o->device : "cpu", &m->dev);
    if (s != WK_OK)
        wm_fail(err, cap, s, "%s", wk_last_error());
    if (s == WK_OK)
        s = load_source(path, m, err, cap);
    m->context = o->context ? o->context : (m->cfg.max_pos < 4096 ? m->cfg.max_pos : 4096);
    if (s == WK_OK)
        s = rope_tables(m, err, cap);
    if (s == WK_OK)
        s = alloc_caches(m, err, cap);
    if (s != WK_OK) {
        llama_free(m);
        return s;
    }
    *out = m;
    return WK_OK;
}

void llama_free(llama_model *m)
{
    if (!m)
        return;
    llama_decoder_free(m);
    for (int i = 0; m->layer && i < m->cfg.layers; i++) {
        llama_layer *L = &m->layer[i];
        wk_tensor *ts[] = {L->attn_norm, L->qkv_w, L->v_w, L->qkv_b, L->o_w, L->ffn_norm, L->gate_up_w, L->down_w,
                           L->k_cache, L->v_cache};
        for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++)
            wk_tensor_release(ts[k]);
    }
    free(m->layer);
    wk_tensor_release(m->embed);
    wk_tensor_release(m->out_norm);
    wk_tensor_release(m->lm_head);
    wk_tensor_release(m->cos);
    wk_tensor_release(m->sin);
    free(m->cfg.rope_factors);
    free(m);
}

int llama_vocab(const llama_model *m) { return m->cfg.vocab; }
int llama_context(const llama_model *m) { return m->context; }
int llama_position(const llama_model *m) { return m->pos; }
void llama_reset(llama_model *m)
{
    m->pos = 0;
    m->sample_step = 0;
}

wk_status llama_set_sampling(llama_model *m, const llama_sampling *s, char *err, size_t cap)
{
    if (!m || !s)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "llama_set_sampling: NULL argument");
    if (!(s->temperature >= 0) || s->temperature > 1e30f)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "sampling: temperature %g is not a finite number >= 0",
                       (double)s->temperature);
    if (s->top_k < 0)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "sampling: top-k %lld is negative", (long long)s->top_k);
    if (!(s->top_p >= 0 && s->top_p <= 1))
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "sampling: top-p %g is outside [0, 1]", (double)s->top_p);
    if (!(s->min_p >= 0 && s->min_p <= 1))
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "sampling: min-p %g is outside [0, 1]", (double)s->min_p);
    m->sampling = *s;
    return WK_OK;
}
