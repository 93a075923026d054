/* tokenizer_merge.c: the merge loop both encoders share, as llama.cpp and sentencepiece / tokenizers run it: the
 * text cut into UTF-8 characters, then the best adjacent pair merged again and again (SentencePiece: the highest
 * score of the joined piece; BPE: the lowest merge rank), the leftmost pair first among equals. */
#include <stdlib.h>
#include <string.h>

#include "tokenizer_internal.h"

typedef struct wm_sym {
    int32_t prev, next;
    uint32_t start, len; /* bytes of the text; len 0: merged away */
} wm_sym;

typedef struct wm_pair {
    double key; /* higher merges first */
    int32_t left, right;
    uint32_t size; /* left.len + right.len when queued: a pair whose symbols changed since is stale */
} wm_pair;

typedef struct wm_heap {
    wm_pair *v;
    size_t n, cap;
} wm_heap;

static bool before(const wm_pair *a, const wm_pair *b)
{
    return a->key > b->key || (a->key == b->key && a->left < b->left);
}

static int heap_push(wm_heap *h, wm_pair p)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        wm_pair *v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return -1;
        h->v = v;
        h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0 && before(&p, &h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = p;
    return 0;
}

static wm_pair heap_pop(wm_heap *h)
{
    wm_pair top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && before(&h->v[c + 1], &h->v[c]))
            c++;
        if (!before(&h->v[c], &last))
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

/* The priority of joining a and b, false when they do not merge. */
static bool pair_key(const wm_tokenizer *t, const char *s, const wm_sym *a, const wm_sym *b, double *key)
{
    if (t->kind == WM_TOK_SPM) {
        int32_t id = wp_vocab_find2(&t->vocab, s + a->start, a->len + b->len, "", 0);
        if (id >= 0)
            *key = t->score[id];
        return id >= 0;
    }
    int32_t rank = wp_vocab_find2(&t->merges, (const char *)&a->len, 4, s + a->start, a->len + b->len);
    if (rank >= 0)
        *key = -(double)rank;
    return rank >= 0;
}

static int try_pair(const wm_tokenizer *t, const char *s, const wm_sym *sym, int32_t l, int32_t r, wm_heap *h)
{
    double key;
    if (l < 0 || r < 0 || !pair_key(t, s, &sym[l], &sym[r], &key))
        return 0;
    return heap_push(h, (wm_pair){.key = key, .left = l, .right = r, .size = sym[l].len + sym[r].len});
}

/* The UTF-8 characters of s as symbols (a byte that starts no character is one of its own). */
static int32_t cut(const char *s, size_t len, wm_sym *sym)
{
    int32_t n = 0;
    for (size_t i = 0; i < len; n++) {
        unsigned char c = (unsigned char)s[i];
        size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        k = k < len - i ? k : len - i;
        sym[n] = (wm_sym){.prev = n - 1, .next = i + k < len ? n + 1 : -1, .start = (uint32_t)i, .len = (uint32_t)k};
        i += k;
    }
    return n;
}

int wm_merge(const wm_tokenizer *t, const char *s, size_t len, wm_piece_fn emit, wm_ids *out)
{
    if (len == 0)
        return 0;
    if (len > UINT32_MAX / 2)
        return -1;
    wm_sym *sym = malloc(len * sizeof *sym);
    wm_heap h = {0};
    int r = sym ? 0 : -1;
    int32_t n = sym ? cut(s, len, sym) : 0;
    for (int32_t i = 0; r == 0 && i + 1 < n; i++)
        r = try_pair(t, s, sym, i, i + 1, &h);
    while (r == 0 && h.n) {
        wm_pair p = heap_pop(&h);
        wm_sym *a = &sym[p.left], *b = &sym[p.right];
        if (a->len == 0 || b->len == 0 || a->len + b->len != p.size || a->next != p.right)
            continue; /* stale: one side merged since */
        a->len += b->len;
        b->len = 0;
        a->next = b->next;
        if (b->next >= 0)
            sym[b->next].prev = p.left;
        r = try_pair(t, s, sym, a->prev, p.left, &h);
        if (r == 0)
            r = try_pair(t, s, sym, p.left, a->next, &h);
    }
    for (int32_t i = 0; r == 0 && i >= 0 && n > 0; i = sym[i].next)
        r = emit(t, s + sym[i].start, sym[i].len, out);
    free(sym);
    free(h.v);
    return r;
}
