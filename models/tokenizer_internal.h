/* tokenizer_internal.h: what the tokenizer's files share: the vocabulary (tokenizer.c builds it from a GGUF file,
 * tokenizer_hf.c from tokenizer.json), the merge loop both encoders run (tokenizer_merge.c), GPT-2's byte-level
 * alphabet and the pre-tokenizers' splits (tokenizer_pre.c). Not installed. */
#ifndef WM_TOKENIZER_INTERNAL_H
#define WM_TOKENIZER_INTERNAL_H

#include "scope.h"
#include "tokenizer.h"
#include "wordpiece_internal.h"

typedef enum wm_tok_kind { WM_TOK_SPM = 1, WM_TOK_BPE = 2 } wm_tok_kind;
/* GPT-2's pattern; Llama 3's; llama.cpp's "default": punctuation runs, then GPT-2's pattern, digit runs, 3 digits. */
typedef enum wm_pre_kind { WM_PRE_NONE = 0, WM_PRE_GPT2 = 1, WM_PRE_LLAMA3 = 2, WM_PRE_DEFAULT = 3 } wm_pre_kind;
/* llama.cpp's token types (tokenizer.ggml.token_type). */
enum { WM_TT_NORMAL = 1, WM_TT_UNKNOWN = 2, WM_TT_CONTROL = 3, WM_TT_USER = 4, WM_TT_UNUSED = 5, WM_TT_BYTE = 6 };

struct wm_tokenizer {
    wm_tok_kind kind;
    wm_pre_kind pre;
    const char *name;        /* what wm_tokenizer_kind says */
    int n;                   /* tokens */
    char **text;             /* each token's text (NUL-terminated copies) */
    uint32_t *len;
    float *score;            /* SentencePiece: merge priority (higher first) */
    uint8_t *type;           /* WM_TT_* */
    wp_vocab vocab;          /* text -> id: SentencePiece's mergeable pieces (normal, user, unused), or all of BPE's */
    wp_vocab merges;         /* BPE: "left right" -> rank */
    size_t longest_merge;    /* bytes of the longest merge key */
    int32_t bos, eos, unk;   /* -1: none */
    bool add_bos, add_space_prefix, ignore_merges;
    int32_t byte_id[256];    /* SentencePiece: the id of <0xNN> (-1: none) */
    int32_t *special;        /* the control, user-defined and unknown tokens with text, longest first */
    int n_special;
    bool special_first[256]; /* the bytes one of them starts with */
};

/* ---- building (tokenizer.c) */
/* A tokenizer of n tokens with every array allocated and zeroed. */
wk_status wm_tok_alloc(int n, wm_tokenizer **out, char *err, size_t cap);
/* Token i's text (copied), type and score. */
wk_status wm_tok_set(wm_tokenizer *t, int i, const char *text, size_t len, int type, float score, char *err,
                     size_t cap);
/* Merge `rank`: key is "left right" as tokenizer.ggml.merges writes it. */
wk_status wm_tok_merge(wm_tokenizer *t, const char *key, size_t len, int rank, char *err, size_t cap);
/* After every token is set: the text -> id table and the byte-fallback ids. */
wk_status wm_tok_finish(wm_tokenizer *t, char *err, size_t cap);

/* ---- a growing id list */
typedef struct wm_ids {
    int32_t *v;
    int n, cap;
} wm_ids;
int wm_ids_push(wm_ids *ids, int32_t id); /* 0, or -1 when out of memory */

/* ---- the merge loop (tokenizer_merge.c): SentencePiece's by score, BPE's by rank, each leftmost first on ties */
/* s (len bytes) cut into UTF-8 characters, then merged pairwise by t's rule until no pair merges; emit gets each
 * final piece's bytes in order. Returns 0, -1 when out of memory, or emit's first non-zero result. */
typedef int (*wm_piece_fn)(const wm_tokenizer *t, const char *piece, size_t len, wm_ids *out);
int wm_merge(const wm_tokenizer *t, const char *s, size_t len, wm_piece_fn emit, wm_ids *out);

/* ---- GPT-2's byte-level alphabet and the pre-tokenizers (tokenizer_pre.c) */
int32_t wm_byte_to_cp(uint8_t b);  /* the codepoint standing for byte b */
int wm_cp_to_byte(int32_t cp);     /* the byte cp stands for, or -1 */
/* The words of text (len bytes) under pre-tokenizer pre, in order: fn gets each word's bytes. Returns 0, or fn's
 * first non-zero result. */
typedef int (*wm_word_fn)(void *ctx, const char *word, size_t len);
int wm_pretokenize(wm_pre_kind pre, const char *text, size_t len, wm_word_fn fn, void *ctx);

/* ---- encoders (tokenizer_encode.c) */
int wm_encode_spm(const wm_tokenizer *t, const char *text, size_t len, wm_ids *out);
int wm_encode_bpe(const wm_tokenizer *t, const char *text, size_t len, wm_ids *out);

/* ---- loaders */
wk_status wm_tokenizer_gguf(const char *path, wm_tokenizer **out, char *err, size_t cap);
wk_status wm_tokenizer_hf(const char *dir, wm_tokenizer **out, char *err, size_t cap);

#endif
