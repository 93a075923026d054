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

/* One layer's weights; *_w are (out, in) matrices (wk_linear's orientation), of the model's dtype or a GGUF's blocks
 * kept quantized: q, k, v fused into one product, gate and up into another.
 * v_w: NULL, or v's blocks where their type differs from q's and k's (a Q4_K_M file's Q6_K rows; no biases): qkv_w
 * then holds q and k only. */
typedef struct llama_layer {
    wk_tensor *attn_norm, *qkv_w, *v_w, *qkv_b, *o_w, *ffn_norm, *gate_up_w, *down_w;
    wk_tensor *k_cache, *v_cache; /* (batch, kv_heads, context, head_dim) */
} llama_layer;

struct llama_model {
    llama_config cfg;
    wk_device *dev;
    wk_dtype dtype;
    int context, batch, pos;
    wk_tensor *embed, *out_norm, *lm_head; /* (vocab, hidden): a GGUF's blocks or the dtype; lm_head: embed when tied */
    wk_tensor *cos, *sin;                    /* (context, head_dim / 2) rope tables */
    llama_layer *layer;
    struct llama_decoder *decoder; /* the decode step's graph (llama_graph.c), made at the first decode */
    llama_sampling sampling;       /* temperature 0: greedy */
    uint64_t sample_step;          /* the Philox offset of the next draw */
};

/* The positions of one step: the rope rows, and each sequence's length before it (device tensors). */
typedef struct llama_step {
    wk_tensor *cos, *sin, *len_before;
    int n;
    bool greedy; /* next is the argmax whatever the sampling (the decode graph samples after each replay) */
} llama_step;

/* llama_forward.c: the step's ops for ids (B, n) i32 on the model's device: f32 logits (B, rows, vocab: every
 * position when all, else the last) and greedy ids (i64, B) as new references (either may be NULL); their copies to
 * the host. */
wk_status llama_step_run(llama_model *m, const wk_tensor *ids, const llama_step *st, bool all, wk_tensor **logits,
                         wk_tensor **next, char *err, size_t cap);
/* Each sequence's next token drawn from last (B, 1, vocab) by m's sampling at step m->sample_step: i64 (B), a new
 * reference (wk_last_error() says why on failure). */
wk_status llama_sample(const llama_model *m, const wk_tensor *last, wk_tensor **next);
wk_status llama_step_read(const llama_model *m, const wk_tensor *logits, const wk_tensor *next, float *lhost,
                          int32_t *nhost, char *err, size_t cap);
/* llama_graph.c: one token per sequence through the decode graph, captured at the first call. WK_ERR_UNSUPPORTED
 * (nothing done) where the device has no graphs or WICK_LLAMA_GRAPH=0: the caller runs the step eagerly. */
wk_status llama_decode_graph(llama_model *m, const int32_t *ids, float *logits, int32_t *next, char *err, size_t cap);
void llama_decoder_free(llama_model *m);

/* config.json (Hugging Face) or the GGUF metadata into cfg (rope factors computed or read). */
wk_status llama_config_hf(const char *dir, llama_config *cfg, char *err, size_t cap);
wk_status llama_config_gguf(const wk_gguf *g, llama_config *cfg, char *err, size_t cap);
/* The weights of a Hugging Face directory or a GGUF file onto m->dev in m->dtype. */
wk_status llama_weights_hf(const char *dir, llama_model *m, char *err, size_t cap);
wk_status llama_weights_gguf(const wk_gguf *g, const char *path, llama_model *m, char *err, size_t cap);

#endif
