/* tokenizer.h: the text side of `wick generate`: the vocabulary of a GGUF file (tokenizer.ggml.*: SentencePiece
 * "llama" with scores, token types and <0xNN> byte fallback; GPT-2 byte-level BPE "gpt2" with merges and the
 * pre-tokenizer tokenizer.ggml.pre names: llama-bpe (Llama 3's), gpt-2, or default (llama.cpp's, also when absent))
 * or of a Hugging Face directory (tokenizer.json, byte-level BPE with GPT-2's or Llama 3's pre-tokenizer), giving
 * the ids llama.cpp and `tokenizers` give. Decoding follows `tokenizers` and `sentencepiece` (llama.cpp's differs:
 * it keeps the space after a leading BOS and, for BPE, removes spaces before punctuation). */
#ifndef WM_TOKENIZER_H
#define WM_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wick.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Immutable after loading: any number of threads may encode and decode with one at once. */
typedef struct wm_tokenizer wm_tokenizer;

/* The vocabulary of path (a GGUF file, or a directory holding tokenizer.json). Every function here returns a
 * wk_status and on failure writes a one-line message into err (cap bytes):
 *   WK_ERR_INVALID_ARGUMENT  a NULL argument, or the file holds no vocabulary (no tokenizer.ggml.model, no
 *                            tokenizer.json): the caller may fall back to token ids
 *   WK_ERR_UNSUPPORTED       a vocabulary this tokenizer does not implement (named; "use --prompt-ids")
 *   WK_ERR_IO / WK_ERR_FILE  a file that cannot be read, or a damaged vocabulary (named)
 *   WK_ERR_OUT_OF_MEMORY     an allocation failed; nothing leaked */
wk_status wm_tokenizer_load(const char *path, wm_tokenizer **out, char *err, size_t cap);
void wm_tokenizer_free(wm_tokenizer *t); /* NULL is fine */

int wm_tokenizer_size(const wm_tokenizer *t);
int32_t wm_tokenizer_bos(const wm_tokenizer *t); /* -1 when there is none */
int32_t wm_tokenizer_eos(const wm_tokenizer *t); /* -1 when there is none */
bool wm_tokenizer_adds_bos(const wm_tokenizer *t);
const char *wm_tokenizer_kind(const wm_tokenizer *t); /* "SentencePiece", "GPT-2 BPE (llama-bpe)", ... */

/* The ids of len bytes of text (the BOS id first when add_bos): a malloc'd array the caller frees, its length in
 * *n. The texts of user-defined tokens in the text become their ids, and with special those of control and unknown
 * tokens too ("<|begin_of_text|>", "<s>"), as llama.cpp's parse_special and tokenizers' added tokens do (the
 * longest at the leftmost place); the text between them is encoded piece by piece. */
wk_status wm_tokenizer_encode(const wm_tokenizer *t, const char *text, size_t len, bool add_bos, bool special,
                              int32_t **ids, int *n, char *err, size_t cap);
/* Whether token id shows in text: not a control token (BOS, EOS), and inside the vocabulary. */
bool wm_tokenizer_shows(const wm_tokenizer *t, int32_t id);
/* The bytes of token id as it reads in running text: byte-fallback and byte-level tokens as their bytes, tokens
 * that do not show as nothing. first: no token that shows came before it (SentencePiece drops the space it
 * prefixed). Writes at most cap bytes to buf and returns the piece's length (which may exceed cap). */
size_t wm_tokenizer_piece(const wm_tokenizer *t, int32_t id, bool first, char *buf, size_t cap);
/* The text of n ids (the pieces joined, a NUL added): a malloc'd string the caller frees, its length in *len. */
wk_status wm_tokenizer_decode(const wm_tokenizer *t, const int32_t *ids, int n, char **text, size_t *len, char *err,
                              size_t cap);

#ifdef __cplusplus
}
#endif

#endif
