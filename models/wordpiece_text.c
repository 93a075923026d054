/* wordpiece_text.c: the text side of the WordPiece tokenizer: strict UTF-8, BertNormalizer's steps (clean text,
 * CJK spacing, accent stripping, lowercase) and BertPreTokenizer's split, over wordpiece_unicode.c's properties. */
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "wordpiece_internal.h"

int wp_cps_reserve(wp_cps *b, size_t n) {
    if (n <= b->cap) return 0;
    if (n > SIZE_MAX / sizeof *b->v) return -1;
    int32_t *v = realloc(b->v, n * sizeof *v);
    if (!v) return -1;
    b->v = v;
    b->cap = n;
    return 0;
}

void wp_cps_free(wp_cps *b) {
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;
}

/* The length of the sequence that starts with lead byte c (0: not a lead byte), and the smallest value a
 * sequence of that length may encode (an overlong form below it is invalid). */
static size_t utf8_seq_len(unsigned char c, int32_t *min) {
    if (c < 0x80) return *min = 0, 1;
    if (c >= 0xC2 && c <= 0xDF) return *min = 0x80, 2;
    if (c >= 0xE0 && c <= 0xEF) return *min = 0x800, 3;
    if (c >= 0xF0 && c <= 0xF4) return *min = 0x10000, 4;
    return 0;
}

/* Decodes one sequence at s (len bytes left) into *cp; returns its length, or 0 when it is invalid. */
static size_t utf8_next(const unsigned char *s, size_t len, int32_t *cp) {
    int32_t min;
    size_t n = utf8_seq_len(s[0], &min);
    if (n == 0 || n > len) return 0;
    int32_t c = n == 1 ? s[0] : s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    *cp = c;
    return n;
}

size_t wp_utf8_check(const char *s, size_t len) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    int32_t c;
    while (i < len) {
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = utf8_next(u + i, len - i, &c);
        if (n == 0) return i;
        i += n;
    }
    return len;
}

int wp_utf8_decode(const char *s, size_t len, wp_cps *out) {
    const unsigned char *u = (const unsigned char *)s;
    if (wp_cps_reserve(out, out->n + len)) return -1; /* at most one codepoint a byte */
    for (size_t i = 0; i < len;) {
        int32_t c = u[i];
        size_t n = c < 0x80 ? 1 : utf8_next(u + i, len - i, &c);
        if (n == 0) return -1; /* not reached: the caller checked */
        out->v[out->n++] = c;
        i += n;
    }
    return 0;
}

size_t wp_utf8_put(int32_t c, char *buf) {
    return (size_t)utf8proc_encode_char(c, (utf8proc_uint8_t *)buf);
}

/* clean_text (drop U+0000, U+FFFD and controls; whitespace becomes ' ') and handle_chinese_chars (a space
 * either side of each CJK ideograph), in one pass from in to out. */
static int clean_and_space(const wp_norm *norm, const wp_cps *in, wp_cps *out) {
    out->n = 0;
    if (in->n > SIZE_MAX / 3 || wp_cps_reserve(out, 3 * in->n)) return -1;
    int32_t *o = out->v;
    for (size_t i = 0; i < in->n; i++) {
        int32_t c = in->v[i];
        if (norm->clean_text && c < 0x80) { /* the common case, inline */
            /* \v and \f are controls before they are whitespace: dropped, like the other Cc */
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) continue;
            if (c < 0x20) c = ' '; /* \t \n \r */
        } else if (norm->clean_text) {
            if (c == 0xFFFD || wp_is_control(c)) continue;
            if (wp_is_whitespace(c)) c = ' ';
        }
        if (norm->chinese_chars && wp_is_chinese(c)) {
            *o++ = ' ';
            *o++ = c;
            c = ' ';
        }
        *o++ = c;
    }
    out->n = (size_t)(o - out->v);
    return 0;
}

/* One run of combining marks (all of class > 0) stably sorted by class: insertion sort when short, else a
 * counting sort over the 256 classes, so that no text costs more than linear time. 0, or -1 out of memory. */
static int sort_marks(int32_t *v, size_t n) {
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            int32_t c = v[i];
            int cc = wp_combining_class(c);
            size_t j = i;
            for (; j > 0 && wp_combining_class(v[j - 1]) > cc; j--) v[j] = v[j - 1];
            v[j] = c;
        }
        return 0;
    }
    int32_t *sorted = malloc(n * sizeof *sorted);
    if (!sorted) return -1;
    size_t start[257] = {0};
    for (size_t i = 0; i < n; i++) start[wp_combining_class(v[i]) + 1]++;
    for (int k = 1; k <= 256; k++) start[k] += start[k - 1];
    for (size_t i = 0; i < n; i++) sorted[start[wp_combining_class(v[i])]++] = v[i];
    memcpy(v, sorted, n * sizeof *v);
    free(sorted);
    return 0;
}

/* NFD's canonical ordering: each run of combining marks sorted by class. 0, or -1 when out of memory. */
static int canonical_order(int32_t *v, size_t n) {
    for (size_t i = 0; i < n;) {
        size_t end = i;
        while (end < n && wp_combining_class(v[end]) > 0) end++;
        if (end > i + 1 && sort_marks(v + i, end - i)) return -1;
        i = end > i ? end : i + 1;
    }
    return 0;
}

/* strip_accents: NFD, then every nonspacing mark (Mn) dropped. */
static int strip_accents(const wp_cps *in, wp_cps *out) {
    out->n = 0;
    if (in->n > SIZE_MAX / 4 || wp_cps_reserve(out, 4 * in->n)) return -1;
    bool marks = false; /* only a codepoint from U+0300 on can have a combining class */
    for (size_t i = 0; i < in->n; i++) {
        int k = wp_decompose(in->v[i], out->v + out->n);
        if (k < 0) return -1;
        for (int j = 0; j < k; j++) marks |= out->v[out->n + (size_t)j] >= 0x300;
        out->n += (size_t)k;
    }
    if (marks && canonical_order(out->v, out->n)) return -1;
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++)
        if (!wp_is_nonspacing_mark(out->v[i])) out->v[kept++] = out->v[i];
    out->n = kept;
    return 0;
}

/* lowercase: Rust's char::to_lowercase of each char. */
static int lowercase(const wp_cps *in, wp_cps *out) {
    out->n = 0;
    if (in->n > SIZE_MAX / 2 || wp_cps_reserve(out, 2 * in->n)) return -1;
    for (size_t i = 0; i < in->n; i++) out->n += (size_t)wp_lowercase(in->v[i], out->v + out->n);
    return 0;
}

static void swap_cps(wp_cps *a, wp_cps *b) {
    wp_cps t = *a;
    *a = *b;
    *b = t;
}

int wp_normalize(const wp_norm *norm, wp_cps *a, wp_cps *b) {
    if (norm->clean_text || norm->chinese_chars) {
        if (clean_and_space(norm, a, b)) return -1;
        swap_cps(a, b);
    }
    if (norm->strip_accents) {
        if (strip_accents(a, b)) return -1;
        swap_cps(a, b);
    }
    if (norm->lowercase) {
        if (lowercase(a, b)) return -1;
        swap_cps(a, b);
    }
    return 0;
}

int wp_pretokenize(const int32_t *cps, size_t n, char *word, wp_word_fn fn, void *ctx) {
    size_t bytes = 0, chars = 0;
    for (size_t i = 0; i <= n; i++) {
        bool end = i == n, space = !end && wp_is_space(cps[i]);
        bool punct = !end && !space && wp_is_punctuation(cps[i]);
        if (!end && !space && !punct && cps[i] < 0x80) { /* the common case: an ASCII letter or digit */
            word[bytes++] = (char)cps[i];
            chars++;
            continue;
        }
        if ((end || space || punct) && chars > 0) {
            int r = fn(ctx, word, bytes, chars);
            if (r) return r;
            bytes = chars = 0;
        }
        if (end || space) continue;
        bytes += wp_utf8_put(cps[i], word + bytes);
        chars++;
        if (punct) {
            int r = fn(ctx, word, bytes, chars);
            if (r) return r;
            bytes = chars = 0;
        }
    }
    return 0;
}
