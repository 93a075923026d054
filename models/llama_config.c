/* llama_config.c: a Llama's configuration from a Hugging Face config.json or a GGUF file's metadata, checked (the
 * fields this runner implements, sizes that fit together), and the Llama-3 rope scaling as per-frequency factors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "llama_internal.h"
#include "scope.h"

/* The divisors Llama-3 scaling applies to each of the head_dim / 2 rope frequencies (transformers' llama3 rule:
 * long wavelengths divided by factor, short ones kept, a smooth blend between). */
static float *llama3_factors(const llama_config *c, double factor, double low, double high, double orig)
{
    int n = c->head_dim / 2;
    float *f = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; f && i < n; i++) {
        double inv = 1.0 / pow(c->rope_theta, 2.0 * i / c->head_dim), wl = 2 * M_PI / inv;
        if (wl < orig / high)
            f[i] = 1.0f;
        else if (wl > orig / low)
            f[i] = (float)factor;
        else {
            double smooth = (orig / wl - low) / (high - low);
            f[i] = (float)(1.0 / ((1 - smooth) / factor + smooth));
        }
    }
    return f;
}

/* The sizes fit together: heads divide, head_dim even and at most 256. */
static wk_status check_sizes(const llama_config *c, const char *where, char *err, size_t cap)
{
    if (c->vocab < 1 || c->hidden < 1 || c->inter < 1 || c->layers < 1 || c->heads < 1 || c->kv_heads < 1 ||
        c->heads % c->kv_heads != 0 || c->head_dim < 2 || c->head_dim % 2 != 0 || c->head_dim > 256 ||
        c->max_pos < 1 || !(c->eps >= 0) || !(c->rope_theta > 0))
        return wm_fail(err, cap, WK_ERR_UNSUPPORTED,
                       "%s: sizes this runner cannot use (vocab %d, hidden %d, ffn %d, layers %d, heads %d over %d "
                       "key/value heads, head_dim %d, rope_theta %g)", where, c->vocab, c->hidden, c->inter,
                       c->layers, c->heads, c->kv_heads, c->head_dim, c->rope_theta);
    return WK_OK;
}

static int json_int(json_t *o, const char *key, int dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < (1 << 30)
               ? (int)json_integer_value(v) : dflt;
}

static double json_num(json_t *o, const char *key, double dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* rope_theta and the scaling: transformers < 5 writes rope_theta and rope_scaling, 5 writes rope_parameters. */
static wk_status hf_rope(json_t *c, llama_config *cfg, char *err, size_t cap)
{
    json_t *rp = json_object_get(c, "rope_parameters"), *rs = json_object_get(c, "rope_scaling");
    json_t *scale = json_is_object(rp) ? rp : rs;
    cfg->rope_theta = json_num(c, "rope_theta", json_num(rp, "rope_theta", 10000.0));
    const char *type = json_string_value(json_object_get(scale, "rope_type"));
    if (!type)
        type = json_string_value(json_object_get(scale, "type"));
    if (!json_is_object(scale) || !type || !strcmp(type, "default"))
        return WK_OK;
    if (strcmp(type, "llama3") != 0)
        return wm_fail(err, cap, WK_ERR_UNSUPPORTED, "config.json: rope scaling \"%s\" (only llama3)", type);
    cfg->rope_factors = llama3_factors(cfg, json_num(scale, "factor", 8), json_num(scale, "low_freq_factor", 1),
                                       json_num(scale, "high_freq_factor", 4),
                                       json_num(scale, "original_max_position_embeddings", 8192));
    return cfg->rope_factors ? WK_OK : wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory for rope factors");
}

wk_status llama_config_hf(const char *dir, llama_config *cfg, char *err, size_t cap)
{
    char path[4096];
    json_error_t je;
    snprintf(path, sizeof path, "%s/config.json", dir);
    json_t *c = json_load_file(path, 0, &je);
    if (!c)
        return wm_fail(err, cap, WK_ERR_FILE, "%s: %s", path, je.text);
    const char *type = json_string_value(json_object_get(c, "model_type"));
    const char *act = json_string_value(json_object_get(c, "hidden_act"));
    wk_status s = WK_OK;
    if (!type || (strcmp(type, "llama") && strcmp(type, "mistral") && strcmp(type, "qwen2")))
        s = wm_fail(err, cap, WK_ERR_UNSUPPORTED, "%s: model_type \"%s\" (llama, mistral or qwen2)", path,
                    type ? type : "?");
    else if (act && strcmp(act, "silu"))
        s = wm_fail(err, cap, WK_ERR_UNSUPPORTED, "%s: hidden_act \"%s\" (only silu)", path, act);
    *cfg = (llama_config){.vocab = json_int(c, "vocab_size", 0), .hidden = json_int(c, "hidden_size", 0),
                          .inter = json_int(c, "intermediate_size", 0), .layers = json_int(c, "num_hidden_layers", 0),
                          .heads = json_int(c, "num_attention_heads", 0), .max_pos = json_int(c, "max_position_embeddings", 4096),
                          .eps = json_num(c, "rms_norm_eps", 1e-6), .tied = json_is_true(json_object_get(c, "tie_word_embeddings")),
                          .qkv_bias = type && !strcmp(type, "qwen2")};
    cfg->kv_heads = json_int(c, "num_key_value_heads", cfg->heads);
    cfg->head_dim = json_int(c, "head_dim", cfg->heads ? cfg->hidden / cfg->heads : 0);
    if (s == WK_OK)
        s = hf_rope(c, cfg, err, cap);
    if (s == WK_OK)
        s = check_sizes(cfg, path, err, cap);
    json_decref(c);
    return s;
}

/* An unsigned GGUF key, or dflt when absent (< 0: required). */
static wk_status gguf_uint(const wk_gguf *g, const char *key, long dflt, int *out, char *err, size_t cap)
{
    const wk_gguf_value *v;
    uint64_t u;
    if (wk_gguf_metadata_find(g, key, &v) != WK_OK) {
        if (dflt < 0)
            return wm_fail(err, cap, WK_ERR_FILE, "GGUF metadata lacks %s", key);
        *out = (int)dflt;
        return WK_OK;
    }
    if (wk_gguf_value_uint(v, &u) != WK_OK || u >= (1u << 30))
        return wm_fail(err, cap, WK_ERR_FILE, "GGUF metadata %s is not a count", key);
    *out = (int)u;
    return WK_OK;
}

static double gguf_float(const wk_gguf *g, const char *key, double dflt)
{
    const wk_gguf_value *v;
    double d;
    return wk_gguf_metadata_find(g, key, &v) == WK_OK && wk_gguf_value_float(v, &d) == WK_OK ? d : dflt;
}

wk_status llama_config_gguf(const wk_gguf *g, llama_config *cfg, char *err, size_t cap)
{
    const wk_gguf_value *v;
    const char *arch = NULL;
    uint64_t len;
    if (wk_gguf_metadata_find(g, "general.architecture", &v) != WK_OK || wk_gguf_value_string(v, &arch, &len) != WK_OK ||
        strcmp(arch, "llama") != 0)
        return wm_fail(err, cap, WK_ERR_UNSUPPORTED, "GGUF general.architecture \"%s\" (only llama)", arch ? arch : "?");
    *cfg = (llama_config){.interleaved_rope = true, .tied = wk_gguf_find(g, "output.weight", &(int64_t){0}) != WK_OK};
    WM_TRY(gguf_uint(g, "llama.block_count", -1, &cfg->layers, err, cap));
    WM_TRY(gguf_uint(g, "llama.embedding_length", -1, &cfg->hidden, err, cap));
    WM_TRY(gguf_uint(g, "llama.feed_forward_length", -1, &cfg->inter, err, cap));
    WM_TRY(gguf_uint(g, "llama.attention.head_count", -1, &cfg->heads, err, cap));
    WM_TRY(gguf_uint(g, "llama.attention.head_count_kv", cfg->heads, &cfg->kv_heads, err, cap));
    WM_TRY(gguf_uint(g, "llama.rope.dimension_count", cfg->heads ? cfg->hidden / cfg->heads : 0, &cfg->head_dim,
                     err, cap));
    WM_TRY(gguf_uint(g, "llama.context_length", 4096, &cfg->max_pos, err, cap));
    WM_TRY(gguf_uint(g, "llama.vocab_size", 0, &cfg->vocab, err, cap));
    int64_t embd;
    wk_gguf_tensor_info ti;
    if (cfg->vocab == 0 && wk_gguf_find(g, "token_embd.weight", &embd) == WK_OK &&
        wk_gguf_tensor_info_get(g, embd, &ti) == WK_OK && ti.rank == 2)
        cfg->vocab = (int)ti.shape[0];
    cfg->rope_theta = gguf_float(g, "llama.rope.freq_base", 10000.0);
    cfg->eps = gguf_float(g, "llama.attention.layer_norm_rms_epsilon", 1e-5);
    return check_sizes(cfg, "GGUF metadata", err, cap);
}
