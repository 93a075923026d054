/* llama_load.c: a Llama's weights from a Hugging Face directory (model.safetensors, or shards listed by
 * model.safetensors.index.json) or a GGUF file, by the same table of tensors under either naming, checked against
 * the configuration and fused where one product serves several (q, k, v; gate and up). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "llama_internal.h"
#include "scope.h"

#define MAX_SHARDS 64

/* Where the weights come from: one GGUF file, or safetensors files (one, or shards by an index). */
typedef struct wsrc {
    const wk_gguf *g;
    const char *dir;
    json_t *index; /* weight_map of model.safetensors.index.json, or NULL */
    struct { char *file; wk_safetensors *f; } shard[MAX_SHARDS];
    int nshards;
    llama_model *m;
    char *err;
    size_t cap;
} wsrc;

/* The safetensors file holding `name`, opened once. */
static wk_status shard_of(wsrc *s, const char *name, wk_safetensors **out)
{
    const char *file = "model.safetensors";
    if (s->index && !(file = json_string_value(json_object_get(s->index, name))))
        return wm_fail(s->err, s->cap, WK_ERR_FILE, "%s/model.safetensors.index.json: no %s", s->dir, name);
    for (int i = 0; i < s->nshards; i++)
        if (!strcmp(s->shard[i].file, file)) {
            *out = s->shard[i].f;
            return WK_OK;
        }
    if (s->nshards == MAX_SHARDS || strchr(file, '/'))
        return wm_fail(s->err, s->cap, WK_ERR_UNSUPPORTED, "%s: shard \"%s\" (at most %d, in the directory)",
                       s->dir, file, MAX_SHARDS);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", s->dir, file);
    wk_status st = wk_safetensors_open(path, out);
    if (st != WK_OK)
        return wm_fail(s->err, s->cap, st, "%s", wk_last_error());
    s->shard[s->nshards].file = strdup(file);
    s->shard[s->nshards++].f = *out;
    return WK_OK;
}

/* Tensor `name` in the model's dtype, of shape (d0) (d1 < 0) or (d0, d1); absent and optional: *out NULL. */
static wk_status get(wsrc *s, const char *name, int64_t d0, int64_t d1, bool optional, wk_tensor **out)
{
    *out = NULL;
    wk_status st;
    if (s->g) {
        int64_t i;
        if (wk_gguf_find(s->g, name, &i) != WK_OK)
            return optional ? WK_OK : wm_fail(s->err, s->cap, WK_ERR_FILE, "the GGUF file has no tensor %s", name);
        st = wk_gguf_load_as(s->g, name, s->m->dev, s->m->dtype, out);
    } else {
        wk_safetensors *f = NULL;
        int64_t i;
        if (optional && !s->index && (shard_of(s, name, &f) != WK_OK || wk_safetensors_find(f, name, &i) != WK_OK))
            return WK_OK;
        WM_TRY(shard_of(s, name, &f));
        st = wk_safetensors_load_as(f, name, s->m->dev, s->m->dtype, out);
    }
    if (st != WK_OK)
        return wm_fail(s->err, s->cap, st, "%s: %s", name, wk_last_error());
    const int64_t *sh = wk_tensor_shape(*out);
    int rank = d1 < 0 ? 1 : 2;
    if (wk_tensor_rank(*out) != rank || sh[0] != d0 || (rank == 2 && sh[1] != d1)) {
        wm_fail(s->err, s->cap, WK_ERR_FILE, "%s: shape [%lld%s%lld] where the configuration needs [%lld%s%lld]",
                name, (long long)sh[0], rank == 2 ? ", " : "", rank == 2 ? (long long)sh[1] : 0LL, (long long)d0,
                rank == 2 ? ", " : "", rank == 2 ? (long long)d1 : 0LL);
        wk_tensor_release(*out);
        *out = NULL;
        return WK_ERR_FILE;
    }
    return WK_OK;
}

/* The tensors of one layer under each naming; %d is the layer. */
enum { W_ATTN_NORM, W_Q, W_K, W_V, W_O, W_FFN_NORM, W_GATE, W_UP, W_DOWN, W_QB, W_KB, W_VB, W_COUNT };
static const char *const hf_names[W_COUNT] = {
    "model.layers.%d.input_layernorm.weight", "model.layers.%d.self_attn.q_proj.weight",
    "model.layers.%d.self_attn.k_proj.weight", "model.layers.%d.self_attn.v_proj.weight",
    "model.layers.%d.self_attn.o_proj.weight", "model.layers.%d.post_attention_layernorm.weight",
    "model.layers.%d.mlp.gate_proj.weight", "model.layers.%d.mlp.up_proj.weight",
    "model.layers.%d.mlp.down_proj.weight", "model.layers.%d.self_attn.q_proj.bias",
    "model.layers.%d.self_attn.k_proj.bias", "model.layers.%d.self_attn.v_proj.bias"};
static const char *const gguf_names[W_COUNT] = {
    "blk.%d.attn_norm.weight", "blk.%d.attn_q.weight", "blk.%d.attn_k.weight", "blk.%d.attn_v.weight",
    "blk.%d.attn_output.weight", "blk.%d.ffn_norm.weight", "blk.%d.ffn_gate.weight", "blk.%d.ffn_up.weight",
    "blk.%d.ffn_down.weight", "blk.%d.attn_q.bias", "blk.%d.attn_k.bias", "blk.%d.attn_v.bias"};

/* Loads the n tensors ws (rows[i] x cols, or 1-D when cols < 0) of layer i and stacks them by rows into *out: (out,
 * in) matrices as wk_linear takes them. */
static wk_status stacked(wsrc *s, int i, const int *ws, const int64_t *rows, int n, int64_t cols, wk_tensor **out)
{
    wk_tensor *part[3] = {NULL, NULL, NULL}, *cat = NULL;
    wk_status st = WK_OK;
    for (int k = 0; k < n && st == WK_OK; k++) {
        char name[160];
        snprintf(name, sizeof name, (s->g ? gguf_names : hf_names)[ws[k]], i);
        st = get(s, name, rows[k], cols, false, &part[k]);
    }
    if (st == WK_OK && (st = n > 1 ? wk_cat((const wk_tensor *const *)part, n, 0, &cat) : WK_OK) != WK_OK)
        wm_fail(s->err, s->cap, st, "%s", wk_last_error());
    if (st == WK_OK) {
        *out = n > 1 ? cat : part[0];
        wk_tensor_retain(*out);
    }
    for (int k = 0; k < n; k++)
        wk_tensor_release(part[k]);
    wk_tensor_release(cat);
    return st;
}

/* Whether a GGUF's block-quantized matrices stay quantized on the device (products through wk_matmul_q);
 * WICK_LLAMA_QUANT=0 dequantizes them at load into the model's dtype instead. */
static bool keep_blocks(const wsrc *s)
{
    const char *v = getenv("WICK_LLAMA_QUANT");
    return s->g && (!v || strcmp(v, "0") != 0);
}

/* The n GGUF matrices named (rows[k] x cols) stacked by rows, kept block-quantized: (sum of rows, cols) of their
 * type on the device, for wk_matmul_q. WK_ERR_UNSUPPORTED (nothing made) when one is not quantized or their types
 * differ (a Q4_K_M file mixes types): the caller loads them dequantized. what: the matrix, for messages. */
static wk_status named_blocks(wsrc *s, char (*names)[160], const int64_t *rows, int n, int64_t cols, const char *what,
                              wk_tensor **out)
{
    wk_device *cpu = NULL;
    wk_tensor *part[3] = {NULL, NULL, NULL};
    wk_status st = wk_device_get("cpu", &cpu);
    size_t bytes = 0;
    int64_t total = 0;
    for (int k = 0; k < n && st == WK_OK; k++) {
        st = wk_gguf_load(s->g, names[k], cpu, &part[k]); /* the file's mapping, nothing copied */
        if (st == WK_OK && (!wk_dtype_is_quantized(wk_tensor_dtype(part[k])) ||
                            wk_tensor_dtype(part[k]) != wk_tensor_dtype(part[0]) || wk_tensor_rank(part[k]) != 2 ||
                            wk_tensor_shape(part[k])[0] != rows[k] || wk_tensor_shape(part[k])[1] != cols))
            st = WK_ERR_UNSUPPORTED;
        if (st == WK_OK)
            bytes += wk_tensor_nbytes(part[k]), total += rows[k];
    }
    char *buf = st == WK_OK ? malloc(bytes ? bytes : 1) : NULL;
    if (st == WK_OK && !buf)
        st = WK_ERR_OUT_OF_MEMORY;
    for (size_t k = 0, at = 0; st == WK_OK && (int)k < n; at += wk_tensor_nbytes(part[k]), k++)
        st = wk_tensor_to_host(part[k], buf + at, bytes - at);
    const int64_t shape[2] = {total, cols};
    if (st == WK_OK)
        st = wk_tensor_from_host(s->m->dev, wk_tensor_dtype(part[0]), 2, shape, buf, out);
    free(buf);
    for (int k = 0; k < n; k++)
        wk_tensor_release(part[k]);
    if (st != WK_OK && st != WK_ERR_UNSUPPORTED)
        return wm_fail(s->err, s->cap, st, "%s: %s", what, wk_last_error());
    return st;
}

/* The n matrices ws of layer i stacked and kept block-quantized (named_blocks). */
static wk_status stacked_blocks(wsrc *s, int i, const int *ws, const int64_t *rows, int n, int64_t cols,
                                wk_tensor **out)
{
    char names[3][160], what[32];
    for (int k = 0; k < n; k++)
        snprintf(names[k], sizeof names[k], gguf_names[ws[k]], i);
    snprintf(what, sizeof what, "layer %d", i);
    return named_blocks(s, names, rows, n, cols, what, out);
}

/* A layer's (out, in) matrix: kept block-quantized where it can be, else in the model's dtype. */
static wk_status matrix(wsrc *s, int i, const int *ws, const int64_t *rows, int n, int64_t cols, wk_tensor **out)
{
    wk_status st = keep_blocks(s) ? stacked_blocks(s, i, ws, rows, n, cols, out) : WK_ERR_UNSUPPORTED;
    return st == WK_ERR_UNSUPPORTED ? stacked(s, i, ws, rows, n, cols, out) : st;
}

/* Layer i's q, k, v: one block-quantized matrix, or (types that differ, no biases) q and k in one and v in its own
 * (v_w), or the three dequantized into one matrix. */
static wk_status qkv_matrices(wsrc *s, int i, llama_layer *L)
{
    const llama_config *c = &s->m->cfg;
    int64_t H = c->hidden, q = (int64_t)c->heads * c->head_dim, kv = (int64_t)c->kv_heads * c->head_dim;
    const int64_t rows[3] = {q, kv, kv};
    const int w_qkv[3] = {W_Q, W_K, W_V};
    wk_status st = keep_blocks(s) ? stacked_blocks(s, i, w_qkv, rows, 3, H, &L->qkv_w) : WK_ERR_UNSUPPORTED;
    if (st == WK_ERR_UNSUPPORTED && keep_blocks(s) && !c->qkv_bias &&
        (st = stacked_blocks(s, i, w_qkv, rows, 2, H, &L->qkv_w)) == WK_OK &&
        (st = stacked_blocks(s, i, w_qkv + 2, rows + 2, 1, H, &L->v_w)) != WK_OK) {
        wk_tensor_release(L->qkv_w); /* v not quantized: all three dequantized below */
        L->qkv_w = NULL;
    }
    return st == WK_ERR_UNSUPPORTED ? stacked(s, i, w_qkv, rows, 3, H, &L->qkv_w) : st;
}

static wk_status load_layer(wsrc *s, int i, llama_layer *L)
{
    const llama_config *c = &s->m->cfg;
    int64_t H = c->hidden, I = c->inter, q = (int64_t)c->heads * c->head_dim, kv = (int64_t)c->kv_heads * c->head_dim;
    const int64_t qkv_rows[3] = {q, kv, kv}, gu_rows[2] = {I, I}, h1[1] = {H};
    const int w_qkvb[3] = {W_QB, W_KB, W_VB}, w_gu[2] = {W_GATE, W_UP};
    const int w_an[1] = {W_ATTN_NORM}, w_fn[1] = {W_FFN_NORM}, w_o[1] = {W_O}, w_dn[1] = {W_DOWN};
    WM_TRY(stacked(s, i, w_an, h1, 1, -1, &L->attn_norm));
    WM_TRY(qkv_matrices(s, i, L));
    if (c->qkv_bias)
        WM_TRY(stacked(s, i, w_qkvb, qkv_rows, 3, -1, &L->qkv_b));
    WM_TRY(matrix(s, i, w_o, h1, 1, q, &L->o_w));
    WM_TRY(stacked(s, i, w_fn, h1, 1, -1, &L->ffn_norm));
    WM_TRY(matrix(s, i, w_gu, gu_rows, 2, H, &L->gate_up_w));
    return matrix(s, i, w_dn, h1, 1, I, &L->down_w);
}

/* Embeddings, final norm, output projection (the embeddings' view when tied), and every layer. */
static wk_status load_all(wsrc *s)
{
    llama_model *m = s->m;
    const llama_config *c = &m->cfg;
    bool gg = s->g != NULL;
    /* the embeddings: a GGUF's blocks kept as they are (rows dequantized as they are looked up: a quarter to an eighth
     * of the f32 table), else the table in the model's dtype */
    char embed_name[1][160] = {"token_embd.weight"}, head_name[1][160] = {"output.weight"};
    int64_t vocab = c->vocab;
    wk_status st = keep_blocks(s) ? named_blocks(s, embed_name, &vocab, 1, c->hidden, "token_embd", &m->embed)
                                  : WK_ERR_UNSUPPORTED;
    if (st != WK_OK && st != WK_ERR_UNSUPPORTED)
        return st;
    if (st == WK_ERR_UNSUPPORTED)
        WM_TRY(get(s, gg ? "token_embd.weight" : "model.embed_tokens.weight", c->vocab, c->hidden, false, &m->embed));
    WM_TRY(get(s, gg ? "output_norm.weight" : "model.norm.weight", c->hidden, -1, false, &m->out_norm));
    /* the output projection: a GGUF's blocks kept as they are (the embeddings' when tied: their rows are the vocabulary's
     * (out, in) rows), else that matrix in the model's dtype */
    if (c->tied && wk_dtype_is_quantized(wk_tensor_dtype(m->embed))) {
        m->lm_head = m->embed;
        wk_tensor_retain(m->embed);
        st = WK_OK;
    } else {
        if (c->tied)
            snprintf(head_name[0], sizeof head_name[0], "token_embd.weight");
        st = keep_blocks(s) ? named_blocks(s, head_name, &vocab, 1, c->hidden, "output", &m->lm_head)
                            : WK_ERR_UNSUPPORTED;
    }
    if (st != WK_OK && st != WK_ERR_UNSUPPORTED)
        return st;
    if (st == WK_ERR_UNSUPPORTED) {
        wk_tensor *head = NULL;
        if (!c->tied)
            WM_TRY(get(s, gg ? "output.weight" : "lm_head.weight", c->vocab, c->hidden, c->tied, &head));
        m->lm_head = head ? head : m->embed;
        if (!head)
            wk_tensor_retain(m->embed);
    }
    m->layer = calloc((size_t)c->layers, sizeof *m->layer);
    if (!m->layer)
        return wm_fail(s->err, s->cap, WK_ERR_OUT_OF_MEMORY, "no memory for %d layers", c->layers);
    for (int i = 0; i < c->layers; i++)
        WM_TRY(load_layer(s, i, &m->layer[i]));
    return WK_OK;
}

static void close_src(wsrc *s)
{
    for (int i = 0; i < s->nshards; i++) {
        wk_safetensors_close(s->shard[i].f);
        free(s->shard[i].file);
    }
    json_decref(s->index);
}

wk_status llama_weights_hf(const char *dir, llama_model *m, char *err, size_t cap)
{
    wsrc s = {.dir = dir, .m = m, .err = err, .cap = cap};
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    FILE *f = fopen(path, "rb");
    if (f) {
        json_error_t je;
        json_t *idx = json_loadf(f, 0, &je);
        fclose(f);
        s.index = json_incref(json_object_get(idx, "weight_map"));
        json_decref(idx);
        if (!json_is_object(s.index)) {
            json_decref(s.index);
            return wm_fail(err, cap, WK_ERR_FILE, "%s: no weight_map", path);
        }
    }
    wk_status st = load_all(&s);
    close_src(&s);
    return st;
}

/* rope_freqs.weight, when the file has one, as the rope factors (llama.cpp's converter writes Llama-3 scaling so). */
static wk_status gguf_rope_factors(wsrc *s)
{
    llama_config *c = &s->m->cfg;
    int64_t i;
    wk_device *cpu = NULL;
    wk_tensor *t = NULL;
    if (wk_gguf_find(s->g, "rope_freqs.weight", &i) != WK_OK)
        return WK_OK;
    size_t n = (size_t)c->head_dim / 2;
    c->rope_factors = malloc(sizeof(float) * n);
    wk_status st = c->rope_factors ? wk_device_get("cpu", &cpu) : WK_ERR_OUT_OF_MEMORY;
    if (st == WK_OK)
        st = wk_gguf_load_as(s->g, "rope_freqs.weight", cpu, WK_F32, &t);
    if (st == WK_OK && (wk_tensor_rank(t) != 1 || (size_t)wk_tensor_shape(t)[0] != n))
        st = WK_ERR_FILE;
    if (st == WK_OK)
        st = wk_tensor_to_host(t, c->rope_factors, sizeof(float) * n);
    wk_tensor_release(t);
    return st == WK_OK ? WK_OK : wm_fail(s->err, s->cap, st, "rope_freqs.weight: not %zu f32 factors", n);
}

wk_status llama_weights_gguf(const wk_gguf *g, const char *path, llama_model *m, char *err, size_t cap)
{
    wsrc s = {.g = g, .dir = path, .m = m, .err = err, .cap = cap};
    WM_TRY(gguf_rope_factors(&s));
    return load_all(&s);
}
