/* wordpiece_internal.h: what the WordPiece tokenizer's files share: the tokenizer struct, the vocabulary hash
 * table, the codepoint buffers and the Unicode steps of BertNormalizer / BertPreTokenizer. Not installed. */
#ifndef WP_INTERNAL_H
#define WP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wordpiece.h"

/* ---- vocabulary: open addressing over a key arena (wordpiece_vocab.c) */
typedef struct wp_slot {
    uint32_t off, len; /* the key: arena[off, off + len) */
    int32_t id;        /* -1: empty slot */
} wp_slot;

typedef struct wp_vocab {
    wp_slot *slots;
    size_t mask;       /* slot count - 1 (a power of two) */
    size_t count;
    char *arena;
    size_t arena_used, arena_cap;
    size_t longest;    /* bytes of the longest key: no longer substring can match */
} wp_vocab;

/* Adds key -> id; an existing key keeps its first id. Returns 0, or -1 when out of memory. */
int wp_vocab_add(wp_vocab *v, const char *key, size_t len, int32_t id);
/* The id of the key a + b (two parts, so that "##" + piece needs no copy), or -1. */
int32_t wp_vocab_find2(const wp_vocab *v, const char *a, size_t alen, const char *b, size_t blen);
void wp_vocab_free(wp_vocab *v);

/* ---- an added token matched on the raw text (normalized: false) */
typedef struct wp_added {
    char *content;
    size_t len;
    int32_t id;
} wp_added;

/* BertNormalizer's switches (strip_accents already resolved from null to lowercase). */
typedef struct wp_norm {
    bool clean_text, chinese_chars, strip_accents, lowercase;
} wp_norm;

struct wp_tokenizer {
    wp_norm norm;
    wp_vocab vocab;
    wp_added *added; /* longest first */
    size_t n_added;
    bool added_first[256]; /* the bytes an added token starts with */
    char *prefix;    /* continuing_subword_prefix ("##") */
    size_t prefix_len;
    size_t max_chars; /* max_input_chars_per_word */
    int32_t unk_id, cls_id, sep_id, pad_id;
};

/* ---- codepoint buffers and the Unicode steps (wordpiece_text.c) */
typedef struct wp_cps {
    int32_t *v;
    size_t n, cap;
} wp_cps;

int wp_cps_reserve(wp_cps *b, size_t n); /* room for n codepoints: 0, or -1 when out of memory */
void wp_cps_free(wp_cps *b);

/* The byte offset of the first invalid UTF-8 sequence of s (an overlong form, a surrogate, a value above
 * U+10FFFF, a bad or missing continuation byte), or len when it is all valid. */
size_t wp_utf8_check(const char *s, size_t len);
/* Appends the codepoints of s, valid UTF-8 (wp_utf8_check), to out: 0, or -1 when out of memory. */
int wp_utf8_decode(const char *s, size_t len, wp_cps *out);
/* Writes c's UTF-8 encoding (1 to 4 bytes) at buf; returns the bytes written. */
size_t wp_utf8_put(int32_t c, char *buf);

/* BertNormalizer over the codepoints in *a (the result left in *a; *b is scratch). 0, or -1 when out of memory. */
int wp_normalize(const wp_norm *norm, wp_cps *a, wp_cps *b);

/* ---- character properties as tokenizers sees them (wordpiece_unicode.c) */
bool wp_is_whitespace(int32_t c);      /* Rust's char::is_whitespace (the White_Space property) */
static inline bool wp_is_space(int32_t c) { /* the same, inline for ASCII */
    return c < 0x80 ? (c >= 0x09 && c <= 0x0D) || c == 0x20 : wp_is_whitespace(c);
}
bool wp_is_punctuation(int32_t c);     /* BertPreTokenizer: ASCII punctuation or a P* category */
bool wp_is_control(int32_t c);         /* clean_text: Cc, Cf, Co, Cs, except \t \n \r */
bool wp_is_chinese(int32_t c);         /* handle_chinese_chars: the CJK ideograph blocks */
bool wp_is_nonspacing_mark(int32_t c); /* strip_accents drops these (Mn) */
int wp_combining_class(int32_t c);     /* NFD's canonical combining class */
int wp_decompose(int32_t c, int32_t out[4]); /* c's canonical decomposition: its length, or -1 */
int wp_lowercase(int32_t c, int32_t out[2]); /* Rust's char::to_lowercase: its length */

/* One word of BertPreTokenizer, as UTF-8: the callback returns 0 to go on, 1 to stop (the ids are full), or a
 * negative value on failure (out of memory). */
typedef int (*wp_word_fn)(void *ctx, const char *word, size_t bytes, size_t chars);
/* Splits normalized codepoints into words (whitespace removed, each punctuation char a word of its own) and
 * calls fn on each in order, through the caller's scratch buffer word (at least 4 * n bytes). Returns fn's
 * first non-zero result, or 0. */
int wp_pretokenize(const int32_t *cps, size_t n, char *word, wp_word_fn fn, void *ctx);

/* The greedy longest-match-first pieces of one word: calls emit for each id in order (unk alone for a word
 * too long or with no match). Returns emit's first non-zero result, or 0. */
typedef int (*wp_id_fn)(void *ctx, int32_t id);
int wp_wordpiece(const wp_tokenizer *t, const char *word, size_t bytes, size_t chars, wp_id_fn emit, void *ctx);

/* Normalizes and pre-tokenizes a text free of added tokens, calling fn on each word (the words test of
 * wp_tool and wp_encode's path). WK_OK, WK_ERR_INVALID_ARGUMENT (invalid UTF-8) or WK_ERR_OUT_OF_MEMORY. */
wk_status wp_text_words(const wp_tokenizer *t, const char *utf8, size_t len, wp_word_fn fn, void *ctx, char *err,
                        size_t cap);

/* Formats a one-line message into err (when err and cap are set) and returns status. */
wk_status wp_fail(char *err, size_t cap, wk_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
