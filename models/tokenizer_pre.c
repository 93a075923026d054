/* tokenizer_pre.c: GPT-2's byte-level alphabet and the BPE pre-tokenizers, the regular expressions of GPT-2
 * ('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+) and of Llama 3
 * ((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)
 * written out as matchers: at each position the first alternative that matches, as a backtracking engine takes it;
 * and llama.cpp's "default", four expressions each splitting the pieces of the one before (matches and the text
 * between them both kept): [\p{P}\$\+<=>\^~\|]+, GPT-2's, \p{N}+, [0-9][0-9][0-9]. */
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "tokenizer_internal.h"

/* GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 for U+0100 onwards. */
static bool printable(int b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174; }

int32_t wm_byte_to_cp(uint8_t b)
{
    if (printable(b))
        return b;
    int k = 0;
    for (int x = 0; x < b; x++)
        k += !printable(x);
    return 256 + k;
}

int wm_cp_to_byte(int32_t cp)
{
    if (cp >= 0 && cp < 256)
        return printable(cp) ? cp : -1;
    if (cp < 256 || cp >= 256 + 68)
        return -1;
    for (int b = 0, k = 0; b < 256; b++)
        if (!printable(b) && k++ == cp - 256)
            return b;
    return -1;
}

/* A text as codepoints (-1 for a byte that is not UTF-8) with each one's byte offset (n + 1 of them). */
typedef struct wm_text {
    int32_t *c;
    size_t *off;
    size_t n;
} wm_text;

static bool is_l(int32_t c)
{
    int k = c < 0 ? 0 : utf8proc_category(c);
    return k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO;
}
static bool is_n(int32_t c)
{
    int k = c < 0 ? 0 : utf8proc_category(c);
    return k >= UTF8PROC_CATEGORY_ND && k <= UTF8PROC_CATEGORY_NO;
}
static bool is_s(int32_t c) { return c >= 0 && wp_is_space(c); }
static bool is_nl(int32_t c) { return c == '\r' || c == '\n'; }
static bool is_other(int32_t c) { return !is_s(c) && !is_l(c) && !is_n(c); }
static bool is_p(int32_t c) /* \p{P} and $+<=>^~| */
{
    int k = c < 0 ? 0 : utf8proc_category(c);
    return (k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO) || (c > 0 && c < 128 && strchr("$+<=>^~|", c));
}

static size_t run(const wm_text *t, size_t i, bool (*pred)(int32_t))
{
    while (i < t->n && pred(t->c[i]))
        i++;
    return i;
}

/* 's 't 're 've 'm 'll 'd at i (fold: either case): its length, or 0. */
static size_t contraction(const wm_text *t, size_t i, bool fold)
{
    if (t->c[i] != '\'' || i + 1 >= t->n)
        return 0;
    int32_t a = t->c[i + 1], b = i + 2 < t->n ? t->c[i + 2] : 0;
    if (fold) {
        a = a >= 'A' && a <= 'Z' ? a + 32 : a;
        b = b >= 'A' && b <= 'Z' ? b + 32 : b;
    }
    if (a == 's' || a == 't' || a == 'm' || a == 'd')
        return 2;
    return (a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l') ? 3 : 0;
}

/* \s+(?!\S)|\s+ at i, a whitespace character: up to the run's end e, less its last character when a non-space
 * follows it and the run is longer than one. */
static size_t spaces(const wm_text *t, size_t i, size_t e) { return e < t->n && e - i >= 2 ? e - 1 : e; }

static size_t match_gpt2(const wm_text *t, size_t i)
{
    size_t k = contraction(t, i, false);
    if (k)
        return i + k;
    bool sp = t->c[i] == ' ' && i + 1 < t->n;
    bool (*classes[3])(int32_t) = {is_l, is_n, is_other};
    for (int j = 0; j < 3; j++) {
        if (sp && classes[j](t->c[i + 1]))
            return run(t, i + 1, classes[j]);
        if (classes[j](t->c[i]))
            return run(t, i, classes[j]);
    }
    return spaces(t, i, run(t, i, is_s));
}

static size_t match_llama3(const wm_text *t, size_t i)
{
    size_t k = contraction(t, i, true);
    if (k)
        return i + k;
    int32_t c = t->c[i];
    if (!is_nl(c) && !is_l(c) && !is_n(c) && i + 1 < t->n && is_l(t->c[i + 1]))
        return run(t, i + 1, is_l);
    if (is_l(c))
        return run(t, i, is_l);
    if (is_n(c)) {
        size_t e = run(t, i, is_n);
        return e - i > 3 ? i + 3 : e;
    }
    size_t j = c == ' ' && i + 1 < t->n && is_other(t->c[i + 1]) ? i + 1 : i;
    if (is_other(t->c[j]))
        return run(t, run(t, j, is_other), is_nl);
    size_t e = run(t, i, is_s);
    for (size_t p = e; p > i; p--) /* \s*[\r\n]+: up to the run's last line break */
        if (is_nl(t->c[p - 1]))
            return p;
    return spaces(t, i, e);
}

/* llama.cpp's "default": a punctuation run, a digit run, three ASCII digits (i when none starts at i). */
static size_t match_punct(const wm_text *t, size_t i) { return run(t, i, is_p); }
static size_t match_digits(const wm_text *t, size_t i) { return run(t, i, is_n); }
static size_t match_three(const wm_text *t, size_t i)
{
    for (size_t k = 0; k < 3; k++)
        if (i + k >= t->n || t->c[i + k] < '0' || t->c[i + k] > '9')
            return i;
    return i + 3;
}

typedef size_t (*wm_matcher)(const wm_text *t, size_t i);

typedef struct wm_split {
    const char *text;
    wm_word_fn fn;
    void *ctx;
} wm_split;

/* Codepoints [s, e) of t split by m[0] (each match and each stretch between matches a piece), each piece split by
 * the matchers after it; the last ones go to fn. */
static int split(const wm_split *sp, const wm_matcher *m, int nm, const wm_text *t, size_t s, size_t e)
{
    if (nm == 0)
        return sp->fn(sp->ctx, sp->text + t->off[s], t->off[e] - t->off[s]);
    const wm_text sub = {.c = t->c + s, .off = t->off + s, .n = e - s};
    size_t gap = 0;
    int r = 0;
    for (size_t i = 0; r == 0 && i < sub.n;) {
        size_t k = m[0](&sub, i);
        if (k == i) {
            i++;
            continue;
        }
        if (gap < i)
            r = split(sp, m + 1, nm - 1, &sub, gap, i);
        if (r == 0)
            r = split(sp, m + 1, nm - 1, &sub, i, k);
        i = gap = k;
    }
    return r == 0 && gap < sub.n ? split(sp, m + 1, nm - 1, &sub, gap, sub.n) : r;
}

static int decode(const char *s, size_t len, wm_text *t)
{
    t->c = malloc((len + 1) * sizeof *t->c);
    t->off = malloc((len + 1) * sizeof *t->off);
    if (!t->c || !t->off)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < len; n++) {
        int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &cp);
        t->c[n] = k > 0 ? cp : -1;
        t->off[n] = i;
        i += k > 0 ? (size_t)k : 1;
    }
    t->off[n] = len;
    t->n = n;
    return 0;
}

int wm_pretokenize(wm_pre_kind pre, const char *text, size_t len, wm_word_fn fn, void *ctx)
{
    if (pre == WM_PRE_NONE)
        return fn(ctx, text, len);
    static const wm_matcher gpt2[] = {match_gpt2}, llama3[] = {match_llama3},
                            dflt[] = {match_punct, match_gpt2, match_digits, match_three};
    const wm_matcher *m = pre == WM_PRE_LLAMA3 ? llama3 : pre == WM_PRE_DEFAULT ? dflt : gpt2;
    wm_split sp = {.text = text, .fn = fn, .ctx = ctx};
    wm_text t = {0};
    int r = decode(text, len, &t);
    if (r == 0 && t.n)
        r = split(&sp, m, pre == WM_PRE_DEFAULT ? 4 : 1, &t, 0, t.n);
    free(t.c);
    free(t.off);
    return r;
}
