/* bert_load.c: bert_load: a sentence-transformers directory's configuration (checked: BERT, gelu, mean pooling,
 * normalisation) and its weights, loaded onto the device in the chosen dtype. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bert_internal.h"
#include "scope.h"

/* dir/name parsed as JSON into *out (NULL when optional and absent). */
static wk_status read_json(const char *dir, const char *name, bool optional, json_t **out, char *err, size_t cap)
{
    char path[4096];
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return optional ? WK_OK : wm_fail(err, cap, WK_ERR_IO, "cannot open %s", path);
    *out = json_loadf(f, 0, &je);
    fclose(f);
    if (!*out)
        return wm_fail(err, cap, WK_ERR_FILE, "%s: not JSON (line %d: %s)", path, je.line, je.text);
    return WK_OK;
}

/* An integer field of obj in [lo, hi]. */
static wk_status int_field(json_t *obj, const char *file, const char *key, long lo, long hi, int *out, char *err,
                           size_t cap)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return wm_fail(err, cap, WK_ERR_FILE, "%s: \"%s\" must be an integer in [%ld, %ld]", file, key, lo, hi);
    *out = (int)json_integer_value(v);
    return WK_OK;
}

/* config.json: a BERT with absolute positions and the erf gelu; the sizes the runner needs. */
static wk_status read_config(const char *dir, bert_model *m, char *err, size_t cap)
{
    json_t *c = NULL;
    wk_status s = read_json(dir, "config.json", false, &c, err, cap);
    const char *type = s == WK_OK ? json_string_value(json_object_get(c, "model_type")) : NULL;
    const char *act = s == WK_OK ? json_string_value(json_object_get(c, "hidden_act")) : NULL;
    const char *posk = s == WK_OK ? json_string_value(json_object_get(c, "position_embedding_type")) : NULL;
    if (s == WK_OK && (!type || strcmp(type, "bert") != 0))
        s = wm_fail(err, cap, WK_ERR_UNSUPPORTED, "config.json: model_type \"%s\" is not bert", type ? type : "?");
    if (s == WK_OK && (!act || strcmp(act, "gelu") != 0))
        s = wm_fail(err, cap, WK_ERR_UNSUPPORTED, "config.json: hidden_act \"%s\" (only gelu)", act ? act : "?");
    if (s == WK_OK && posk && strcmp(posk, "absolute") != 0)
        s = wm_fail(err, cap, WK_ERR_UNSUPPORTED, "config.json: position_embedding_type \"%s\"", posk);
    if (s == WK_OK)
        s = int_field(c, "config.json", "hidden_size", 1, 65536, &m->hidden, err, cap);
    if (s == WK_OK)
        s = int_field(c, "config.json", "num_attention_heads", 1, m->hidden, &m->heads, err, cap);
    if (s == WK_OK)
        s = int_field(c, "config.json", "num_hidden_layers", 1, 1024, &m->layers, err, cap);
    if (s == WK_OK)
        s = int_field(c, "config.json", "intermediate_size", 1, 1 << 20, &m->inter, err, cap);
    if (s == WK_OK)
        s = int_field(c, "config.json", "max_position_embeddings", 2, 1 << 20, &m->max_pos, err, cap);
    if (s == WK_OK && (m->hidden % m->heads != 0 || m->hidden / m->heads > 256))
        s = wm_fail(err, cap, WK_ERR_UNSUPPORTED, "config.json: %d heads of hidden size %d", m->heads, m->hidden);
    json_t *eps = s == WK_OK ? json_object_get(c, "layer_norm_eps") : NULL;
    m->eps = json_is_number(eps) ? json_number_value(eps) : 1e-12;
    json_decref(c);
    return s;
}

/* sentence_bert_config.json's max_seq_length, 1_Pooling's mode (mean only) and modules.json's Normalize. */
static wk_status read_st_config(const char *dir, const bert_options *o, bert_model *m, char *err, size_t cap)
{
    json_t *sb = NULL, *pool = NULL, *mods = NULL;
    wk_status s = read_json(dir, "sentence_bert_config.json", false, &sb, err, cap);
    if (s == WK_OK)
        s = int_field(sb, "sentence_bert_config.json", "max_seq_length", 2, m->max_pos, &m->max_tokens, err, cap);
    if (s == WK_OK && o->max_tokens)
        m->max_tokens = o->max_tokens < m->max_pos ? o->max_tokens : m->max_pos;
    if (s == WK_OK)
        s = read_json(dir, "1_Pooling/config.json", false, &pool, err, cap);
    if (s == WK_OK && !json_is_true(json_object_get(pool, "pooling_mode_mean_tokens")))
        s = wm_fail(err, cap, WK_ERR_UNSUPPORTED, "1_Pooling/config.json: only mean pooling is implemented");
    if (s == WK_OK)
        s = read_json(dir, "modules.json", false, &mods, err, cap);
    bool normalize = false;
    for (size_t i = 0; s == WK_OK && i < json_array_size(mods); i++) {
        const char *t = json_string_value(json_object_get(json_array_get(mods, i), "type"));
        normalize |= t && strstr(t, "Normalize") != NULL;
    }
    if (s == WK_OK && !normalize)
        s = wm_fail(err, cap, WK_ERR_UNSUPPORTED, "modules.json: no Normalize module (unnormalised embeddings)");
    json_decref(sb);
    json_decref(pool);
    json_decref(mods);
    return s;
}

typedef struct loader {
    wk_safetensors *f;
    const char *path;
    bert_model *m;
    char *err;
    size_t cap;
} loader;

/* Tensor `name` of shape (d0) or (d0, d1) (d1 < 0: rank 1; d0 < 0: any rows), in the model's dtype. */
static wk_status load(loader *l, const char *name, int64_t d0, int64_t d1, wk_tensor **out)
{
    wk_status s = wk_safetensors_load_as(l->f, name, l->m->dev, l->m->dtype, out);
    if (s != WK_OK)
        return wm_fail(l->err, l->cap, s, "%s: %s", l->path, wk_last_error());
    int rank = d1 < 0 ? 1 : 2;
    const int64_t *sh = wk_tensor_shape(*out);
    if (wk_tensor_rank(*out) != rank || (d0 >= 0 && sh[0] != d0) || (rank == 2 && sh[1] != d1)) {
        char want[64];
        if (rank == 1)
            snprintf(want, sizeof want, "(%lld)", (long long)d0);
        else if (d0 < 0)
            snprintf(want, sizeof want, "(rows, %lld)", (long long)d1);
        else
            snprintf(want, sizeof want, "(%lld, %lld)", (long long)d0, (long long)d1);
        wm_fail(l->err, l->cap, WK_ERR_FILE, "%s: %s has the wrong shape: %d dims, [%lld, %lld], config.json wants %s",
                  l->path, name, wk_tensor_rank(*out), (long long)sh[0],
                  (long long)(wk_tensor_rank(*out) > 1 ? sh[1] : 1), want);
        wk_tensor_release(*out);
        *out = NULL;
        return WK_ERR_FILE;
    }
    return WK_OK;
}

/* Matrices (rows_i, cols), or vectors (cols < 0), stacked by rows: (out, in) weights as wk_linear takes them. */
static wk_status load_rows(loader *l, const char *const *names, int n, const int64_t *rows, int64_t cols,
                           wk_tensor **out)
{
    wk_tensor *parts[3] = {NULL, NULL, NULL}, *cat = NULL;
    wk_status s = WK_OK;
    for (int i = 0; i < n && s == WK_OK; i++)
        s = load(l, names[i], rows[i], cols, &parts[i]);
    if (s == WK_OK && n > 1 && (s = wk_cat((const wk_tensor *const *)parts, n, 0, &cat)) != WK_OK)
        wm_fail(l->err, l->cap, s, "%s: %s", l->path, wk_last_error());
    if (s == WK_OK) {
        *out = n > 1 ? cat : parts[0];
        wk_tensor_retain(*out);
    }
    for (int i = 0; i < n; i++)
        wk_tensor_release(parts[i]);
    wk_tensor_release(cat);
    return s;
}

static wk_status load_layer(loader *l, int i, bert_layer *L)
{
    char n[12][160];
    static const char *const suffix[12] = {
        "attention.self.query.weight", "attention.self.key.weight", "attention.self.value.weight",
        "attention.self.query.bias", "attention.self.key.bias", "attention.self.value.bias",
        "attention.output.dense.weight", "attention.output.dense.bias", "intermediate.dense.weight",
        "intermediate.dense.bias", "output.dense.weight", "output.dense.bias"};
    for (int k = 0; k < 12; k++)
        snprintf(n[k], sizeof n[k], "encoder.layer.%d.%s", i, suffix[k]);
    const char *qkv[3] = {n[0], n[1], n[2]}, *qkv_b[3] = {n[3], n[4], n[5]};
    const char *ao[1] = {n[6]}, *ao_b[1] = {n[7]}, *up[1] = {n[8]}, *up_b[1] = {n[9]}, *dn[1] = {n[10]},
               *dn_b[1] = {n[11]};
    int64_t H = l->m->hidden, I = l->m->inter, h3[3] = {H, H, H}, h1[1] = {H}, i1[1] = {I};
    char ln[4][160];
    snprintf(ln[0], sizeof ln[0], "encoder.layer.%d.attention.output.LayerNorm.weight", i);
    snprintf(ln[1], sizeof ln[1], "encoder.layer.%d.attention.output.LayerNorm.bias", i);
    snprintf(ln[2], sizeof ln[2], "encoder.layer.%d.output.LayerNorm.weight", i);
    snprintf(ln[3], sizeof ln[3], "encoder.layer.%d.output.LayerNorm.bias", i);
    WM_TRY(load_rows(l, qkv, 3, h3, H, &L->qkv_w));
    WM_TRY(load_rows(l, qkv_b, 3, h3, -1, &L->qkv_b));
    WM_TRY(load_rows(l, ao, 1, h1, H, &L->attn_out_w));
    WM_TRY(load(l, ao_b[0], H, -1, &L->attn_out_b));
    WM_TRY(load_rows(l, up, 1, i1, H, &L->up_w));
    WM_TRY(load(l, up_b[0], I, -1, &L->up_b));
    WM_TRY(load_rows(l, dn, 1, h1, I, &L->down_w));
    WM_TRY(load(l, dn_b[0], H, -1, &L->down_b));
    WM_TRY(load(l, ln[0], H, -1, &L->ln1_w));
    WM_TRY(load(l, ln[1], H, -1, &L->ln1_b));
    WM_TRY(load(l, ln[2], H, -1, &L->ln2_w));
    return load(l, ln[3], H, -1, &L->ln2_b);
}

static wk_status load_weights(const char *dir, bert_model *m, char *err, size_t cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    loader l = {.path = path, .m = m, .err = err, .cap = cap};
    wk_status s = wk_safetensors_open(path, &l.f);
    if (s != WK_OK)
        return wm_fail(err, cap, s, "%s", wk_last_error());
    int64_t H = m->hidden;
    m->layer = calloc((size_t)m->layers, sizeof *m->layer);
    if (!m->layer)
        s = wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory for %d layers", m->layers);
    if (s == WK_OK)
        s = load(&l, "embeddings.word_embeddings.weight", -1, H, &m->word);
    if (s == WK_OK)
        s = load(&l, "embeddings.position_embeddings.weight", m->max_pos, H, &m->pos);
    if (s == WK_OK)
        s = load(&l, "embeddings.token_type_embeddings.weight", -1, H, &m->type);
    if (s == WK_OK)
        s = load(&l, "embeddings.LayerNorm.weight", H, -1, &m->emb_ln_w);
    if (s == WK_OK)
        s = load(&l, "embeddings.LayerNorm.bias", H, -1, &m->emb_ln_b);
    for (int i = 0; i < m->layers && s == WK_OK; i++)
        s = load_layer(&l, i, &m->layer[i]);
    wk_safetensors_close(l.f);
    return s;
}

wk_status bert_load(const char *dir, const bert_options *o, bert_model **out, char *err, size_t cap)
{
    static const bert_options defaults = {.device = "cpu", .dtype = WK_F32};
    o = o ? o : &defaults;
    if (!dir || !out)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "bert_load: NULL argument");
    if (o->dtype != WK_F32 && o->dtype != WK_F16 && o->dtype != WK_BF16)
        return wm_fail(err, cap, WK_ERR_DTYPE, "bert_load: dtype %s (f32, f16 or bf16)", wk_dtype_name(o->dtype));
    bert_model *m = calloc(1, sizeof *m);
    if (!m)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "bert_load: no memory");
    m->dtype = o->dtype;
    char tok[4096];
    snprintf(tok, sizeof tok, "%s/tokenizer.json", dir);
    wk_status s = wk_device_get(o->device ? o->device : "cpu", &m->dev);
    if (s != WK_OK)
        wm_fail(err, cap, s, "%s", wk_last_error());
    if (s == WK_OK)
        s = read_config(dir, m, err, cap);
    if (s == WK_OK)
        s = read_st_config(dir, o, m, err, cap);
    if (s == WK_OK)
        s = wp_load(tok, &m->tok, err, cap);
    if (s == WK_OK)
        s = load_weights(dir, m, err, cap);
    if (s != WK_OK) {
        bert_free(m);
        return s;
    }
    *out = m;
    return WK_OK;
}

void bert_free(bert_model *m)
{
    if (!m)
        return;
    for (int i = 0; m->layer && i < m->layers; i++) {
        bert_layer *L = &m->layer[i];
        wk_tensor *ts[] = {L->qkv_w, L->qkv_b, L->attn_out_w, L->attn_out_b, L->ln1_w, L->ln1_b,
                           L->up_w,  L->up_b,  L->down_w,     L->down_b,     L->ln2_w, L->ln2_b};
        for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++)
            wk_tensor_release(ts[k]);
    }
    free(m->layer);
    wk_tensor_release(m->word);
    wk_tensor_release(m->pos);
    wk_tensor_release(m->type);
    wk_tensor_release(m->emb_ln_w);
    wk_tensor_release(m->emb_ln_b);
    wp_free(m->tok);
    free(m);
}

int bert_dim(const bert_model *m) { return m->hidden; }
int bert_max_tokens(const bert_model *m) { return m->max_tokens; }
