/* bert_internal.h: the loaded BERT model that bert_load.c fills and bert.c runs. */
#ifndef WM_BERT_INTERNAL_H
#define WM_BERT_INTERNAL_H

#include "bert.h"
#include "wordpiece.h"

/* One encoder layer's weights; *_w are the file's (out, in) matrices (wk_linear's orientation), and the query, key
 * and value projections are one (3 hidden, hidden) product. */
typedef struct bert_layer {
    wk_tensor *qkv_w, *qkv_b, *attn_out_w, *attn_out_b, *ln1_w, *ln1_b;
    wk_tensor *up_w, *up_b, *down_w, *down_b, *ln2_w, *ln2_b;
} bert_layer;

struct bert_model {
    wk_device *dev;
    wk_dtype dtype;
    int hidden, heads, layers, inter, max_pos, max_tokens;
    double eps;
    wp_tokenizer *tok;
    wk_tensor *word, *pos, *type, *emb_ln_w, *emb_ln_b;
    bert_layer *layer;
};

#endif
