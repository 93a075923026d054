/* wordpiece.h: BERT's WordPiece tokenizer, read from a HuggingFace tokenizer.json (BertNormalizer,
 * BertPreTokenizer, WordPiece, TemplateProcessing or BertProcessing), giving the ids `tokenizers` gives. */
#ifndef WP_WORDPIECE_H
#define WP_WORDPIECE_H

#include <stddef.h>
#include <stdint.h>

#include "wick.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A loaded tokenizer: immutable after wp_load, so any number of threads may encode with one at once. */
typedef struct wp_tokenizer wp_tokenizer;

/* Reads tokenizer.json. Every function here returns a wk_status and, on failure, writes a one-line message into
 * err (cap bytes, truncated, always NUL-terminated; err may be NULL when cap is 0):
 *   WK_ERR_INVALID_ARGUMENT  a NULL argument, invalid UTF-8 in the text, max_tokens < 2
 *   WK_ERR_IO                the file cannot be opened or read
 *   WK_ERR_FILE              not JSON, or a field missing or of the wrong JSON type (the message names it)
 *   WK_ERR_UNSUPPORTED       a normalizer, pre-tokenizer, model, post-processor or added token this tokenizer
 *                            does not implement (the message names it)
 *   WK_ERR_OUT_OF_MEMORY     an allocation failed; nothing leaked
 * tokenizer.json's own "truncation" and "padding" are ignored: the caller picks max_tokens and pads. */
wk_status wp_load(const char *tokenizer_json_path, wp_tokenizer **out, char *err, size_t cap);
void wp_free(wp_tokenizer *t); /* NULL is fine */

/* The ids of one text (len bytes of UTF-8, NUL bytes allowed): [CLS] pieces [SEP], the pieces truncated so that
 * the whole is at most max_tokens (>= 2) ids, [CLS] and [SEP] always kept. ids holds max_tokens entries; *n
 * gets the count. Special tokens written in the text ("[MASK]") become their own id, as in `tokenizers`. */
wk_status wp_encode(const wp_tokenizer *t, const char *utf8, size_t len, int max_tokens, int32_t *ids, int *n,
                    char *err, size_t cap);

/* The padding id: tokenizer.json's padding.pad_id when it has one, else the vocabulary's "[PAD]". */
int32_t wp_pad_id(const wp_tokenizer *t);

#ifdef __cplusplus
}
#endif

#endif
