/* bert.h: sentence embeddings with a BERT encoder, as sentence-transformers computes them (Transformer, mean
 * Pooling over the attention mask, Normalize), built on wick's public API only. Reads a sentence-transformers
 * model directory: config.json, model.safetensors, tokenizer.json, sentence_bert_config.json, modules.json and
 * 1_Pooling/config.json. */
#ifndef WM_BERT_H
#define WM_BERT_H

#include <stddef.h>

#include "wick.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bert_model bert_model;

typedef struct bert_options {
    const char *device; /* "cpu", "cuda:0", ...; NULL: "cpu" */
    wk_dtype dtype;     /* WK_F32, WK_F16 or WK_BF16: the weights and activations (f32 statistics inside ops) */
    int max_tokens;     /* 0: sentence_bert_config.json's max_seq_length (sentence-transformers' truncation) */
} bert_options;

/* Every function returns a wk_status and on failure writes a one-line message into err (cap bytes):
 * WK_ERR_IO / WK_ERR_FILE for a missing or damaged file (named), WK_ERR_UNSUPPORTED for a model this runner does
 * not implement (not BERT, an activation other than gelu, pooling other than mean), and wick's own statuses. */
wk_status bert_load(const char *dir, const bert_options *o, bert_model **out, char *err, size_t cap);
void bert_free(bert_model *m); /* NULL is fine */
int bert_dim(const bert_model *m);        /* the embedding's size (hidden_size) */
int bert_max_tokens(const bert_model *m); /* tokens per text after truncation, [CLS] and [SEP] included */

/* Embeds n texts of UTF-8 (text i is lens[i] bytes, NUL bytes allowed; lens NULL: NUL-terminated) into out
 * (n x bert_dim floats, each row of unit L2 norm, as sentence-transformers' Normalize gives), batch texts at a time
 * (sorted by length first, as encode does). */
wk_status bert_embed(const bert_model *m, const char *const *texts, const size_t *lens, int n, int batch, float *out,
                     char *err, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
