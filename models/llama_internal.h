/* llama_internal.h: the loaded Llama model that llama_load.c and llama_config.c fill and llama.c runs. */
#ifndef WM_LLAMA_INTERNAL_H
#define WM_LLAMA_INTERNAL_H

#include "llama.h"

typedef struct llama_config {
    int vocab, hidden, inter, layers, heads, kv_heads, head_dim, max_pos;
    double eps, rope_theta;
    bool tied;
    bool interleaved_rope;   /* GGUF: llama.cpp's converter permuted Q and K rows for rope on adjacent pairs */
    bool qkv_bias;           /* Qwen2's q, k, v projections have biases */
    float *rope_factors;     /* head_dim / 2 divisors of the frequencies (Llama-3 scaling), or NULL */
} llama_config;

/* One layer's weights; *_t are (in, out) views of (out, in) matrices: q, k, v fused into one product, gate and
 * up into another. */
typedef struct llama_layer {
    wk_tensor *attn_norm, *qkv_t, *qkv_b, *o_t, *ffn_norm, *gate_up_t, *down_t;
    wk_tensor *k_cache, *v_cache; /* (batch, kv_heads, context, head_dim) */
} llama_layer;

struct llama_model {
    llama_config cfg;
    wk_device *dev;
    wk_dtype dtype;
    int context, batch, pos;
    wk_tensor *embed, *out_norm, *lm_head_t; /* lm_head_t: the (hidden, vocab) view (of embed when tied) */
    wk_tensor *cos, *sin;                    /* (context, head_dim / 2) rope tables */
    llama_layer *layer;
};

/* config.json (Hugging Face) or the GGUF metadata into cfg (rope factors computed or read). */
wk_status llama_config_hf(const char *dir, llama_config *cfg, char *err, size_t cap);
wk_status llama_config_gguf(const wk_gguf *g, llama_config *cfg, char *err, size_t cap);
/* The weights of a Hugging Face directory or a GGUF file onto m->dev in m->dtype. */
wk_status llama_weights_hf(const char *dir, llama_model *m, char *err, size_t cap);
wk_status llama_weights_gguf(const wk_gguf *g, const char *path, llama_model *m, char *err, size_t cap);

#endif
