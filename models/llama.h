/* llama.h: a Llama-architecture text generator (Llama 2/3, Mistral, Qwen2 share it) on wick's public API only:
 * a Hugging Face directory (config.json + model.safetensors, f32/f16/bf16) or a GGUF file (F32/F16/BF16 weights);
 * GQA, RoPE with rope_theta and Llama-3 rope scaling, SwiGLU, RMSNorm, tied or untied embeddings; a KV cache
 * preallocated for the context, batched prefill, then one token at a time through the fused attention op. */
#ifndef WM_LLAMA_H
#define WM_LLAMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wick.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct llama_model llama_model;

typedef struct llama_options {
    const char *device; /* NULL: "cpu" */
    wk_dtype dtype;     /* weights, activations and the KV cache: WK_F32, WK_F16 or WK_BF16 (0 means f32) */
    int context;        /* KV cache positions per sequence; 0: the model's, at most 4096 */
    int batch;          /* sequences run together (each its own prompt of the same length); 0: 1 */
} llama_options;

/* Every function returns a wk_status and on failure writes a one-line message into err (cap bytes): WK_ERR_IO /
 * WK_ERR_FILE for a missing or damaged file, WK_ERR_UNSUPPORTED for a model or field this runner does not
 * implement (named), WK_ERR_OUT_OF_MEMORY when the weights or the KV cache do not fit. */
wk_status llama_load(const char *path, const llama_options *o, llama_model **out, char *err, size_t cap);
void llama_free(llama_model *m); /* NULL is fine */
int llama_vocab(const llama_model *m);
int llama_context(const llama_model *m);
int llama_position(const llama_model *m); /* tokens in the cache (the same for every sequence) */
/* Empties the KV cache and restarts the sampling steps at 0. */
void llama_reset(llama_model *m);

/* How llama_forward picks each sequence's next token: wk_sample's rules (wick.h) over the last position's logits,
 * on the device. All zero (the default) is greedy. Step k since llama_load or llama_reset draws with Philox offset
 * k and row b with counter (k, b): the same seed and inputs give the same tokens, and the sequences of a batch draw
 * apart. */
typedef struct llama_sampling {
    float temperature; /* >= 0; 0: greedy (the largest logit, the lowest id on ties) */
    int64_t top_k;     /* >= 0; 0: every token */
    float top_p;       /* in [0, 1]; 0 or 1: off */
    float min_p;       /* in [0, 1]; 0: off */
    uint64_t seed;
} llama_sampling;
/* WK_ERR_INVALID_ARGUMENT naming the value outside its range (nothing changed). */
wk_status llama_set_sampling(llama_model *m, const llama_sampling *s, char *err, size_t cap);

/* Appends n tokens of every sequence (ids: batch x n) to the cache. logits (may be NULL) gets f32 logits: of
 * every position (batch x n x vocab) when all_positions, else of the last (batch x vocab). next (may be NULL)
 * gets each sequence's next token (llama_set_sampling's choice over its last position's logits, on the device;
 * greedy unless set). */
wk_status llama_forward(llama_model *m, const int32_t *ids, int n, bool all_positions, float *logits, int32_t *next,
                        char *err, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
