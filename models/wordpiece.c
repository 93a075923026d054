/* wordpiece.c: wp_encode (added tokens split off the raw text, the rest normalized, pre-tokenized and cut into
 * WordPiece ids between [CLS] and [SEP], truncated), wp_free, wp_pad_id and the shared error formatting. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wordpiece_internal.h"

wk_status wp_fail(char *err, size_t cap, wk_status status, const char *fmt, ...) {
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return status;
}

void wp_free(wp_tokenizer *t) {
    if (!t) return;
    wp_vocab_free(&t->vocab);
    for (size_t i = 0; i < t->n_added; i++) free(t->added[i].content);
    free(t->added);
    free(t->prefix);
    free(t);
}

int32_t wp_pad_id(const wp_tokenizer *t) {
    return t ? t->pad_id : 0;
}

wk_status wp_text_words(const wp_tokenizer *t, const char *utf8, size_t len, wp_word_fn fn, void *ctx, char *err,
                        size_t cap) {
    size_t bad = wp_utf8_check(utf8, len);
    if (bad < len) return wp_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "invalid UTF-8 at byte %zu of the text", bad);
    wp_cps a = {0}, b = {0};
    char *word = NULL;
    int r = wp_utf8_decode(utf8, len, &a) || wp_normalize(&t->norm, &a, &b) ? -1 : 0;
    if (r == 0) {
        word = a.n < SIZE_MAX / 4 ? malloc(4 * a.n + 1) : NULL; /* a word's UTF-8: at most 4 bytes a char */
        r = word ? wp_pretokenize(a.v, a.n, word, fn, ctx) : -1;
    }
    free(word);
    wp_cps_free(&a);
    wp_cps_free(&b);
    return r < 0 ? wp_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "out of memory tokenizing %zu bytes", len) : WK_OK;
}

/* The ids being written: ids[0, n) so far, room for at most limit (the [SEP] slot kept apart). */
typedef struct wp_out {
    const wp_tokenizer *t;
    int32_t *ids;
    int n, limit;
} wp_out;

static int put_id(void *ctx, int32_t id) {
    wp_out *o = ctx;
    if (o->n >= o->limit) return 1;
    o->ids[o->n++] = id;
    return o->n >= o->limit ? 1 : 0;
}

static int put_word(void *ctx, const char *word, size_t bytes, size_t chars) {
    wp_out *o = ctx;
    return wp_wordpiece(o->t, word, bytes, chars, put_id, o);
}

/* Feeds text[0, len), free of added tokens, to the ids in pieces of about 4 KiB cut after an ASCII space (a word
 * boundary that normalization never moves), so that a long text is read no further than its ids need. */
static wk_status encode_text(const char *s, size_t len, wp_out *o, char *err, size_t cap) {
    enum { CHUNK = 4096 };
    while (len > 0 && o->n < o->limit) {
        const char *space = len > CHUNK ? memchr(s + CHUNK, ' ', len - CHUNK) : NULL;
        size_t cut = space ? (size_t)(space - s) + 1 : len;
        wk_status st = wp_text_words(o->t, s, cut, put_word, o, err, cap);
        if (st) return st;
        s += cut;
        len -= cut;
    }
    return WK_OK;
}

/* The leftmost added token in s[0, len) (the longest of those starting there): its index, its offset in *at;
 * -1 when none occurs. */
static int next_added(const wp_tokenizer *t, const char *s, size_t len, size_t *at) {
    for (size_t i = 0; i < len; i++) {
        if (!t->added_first[(unsigned char)s[i]]) continue;
        for (size_t k = 0; k < t->n_added; k++) { /* longest first */
            const wp_added *a = &t->added[k];
            if (a->content[0] == s[i] && a->len <= len - i && memcmp(s + i, a->content, a->len) == 0) {
                *at = i;
                return (int)k;
            }
        }
    }
    return -1;
}

wk_status wp_encode(const wp_tokenizer *t, const char *utf8, size_t len, int max_tokens, int32_t *ids, int *n,
                    char *err, size_t cap) {
    if (err && cap) err[0] = '\0';
    if (!t || !ids || !n || (!utf8 && len > 0))
        return wp_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "wp_encode: NULL %s",
                       !t ? "tokenizer" : !ids ? "ids" : !n ? "n" : "text");
    if (max_tokens < 2)
        return wp_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "wp_encode: max_tokens %d < 2 ([CLS] and [SEP])",
                       max_tokens);
    size_t bad = wp_utf8_check(utf8, len);
    if (bad < len) return wp_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "invalid UTF-8 at byte %zu of the text", bad);
    *n = 0;
    ids[0] = t->cls_id;
    wp_out o = {.t = t, .ids = ids, .n = 1, .limit = max_tokens - 1};
    size_t pos = 0;
    while (pos < len && o.n < o.limit) {
        size_t at = len - pos;
        int k = next_added(t, utf8 + pos, len - pos, &at);
        wk_status st = encode_text(utf8 + pos, at, &o, err, cap);
        if (st) return st;
        if (k < 0) break;
        put_id(&o, t->added[k].id);
        pos += at + t->added[k].len;
    }
    ids[o.n++] = t->sep_id;
    *n = o.n;
    return WK_OK;
}
