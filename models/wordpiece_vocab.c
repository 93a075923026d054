/* wordpiece_vocab.c: the vocabulary (an open-addressing hash table over one key arena, FNV-1a) and the WordPiece
 * model itself: greedy longest-match-first pieces, "##" on all but the first, [UNK] for a word without a match. */
#include <stdlib.h>
#include <string.h>

#include "wordpiece_internal.h"

static uint64_t fnv1a(uint64_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

#define FNV_SEED 0xcbf29ce484222325ULL

static int vocab_grow(wp_vocab *v) {
    size_t cap = v->slots ? 2 * (v->mask + 1) : 1024;
    wp_slot *slots = malloc(cap * sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < cap; i++) slots[i].id = -1;
    for (size_t i = 0; v->slots && i <= v->mask; i++) {
        if (v->slots[i].id < 0) continue;
        size_t j = fnv1a(FNV_SEED, v->arena + v->slots[i].off, v->slots[i].len) & (cap - 1);
        while (slots[j].id >= 0) j = (j + 1) & (cap - 1);
        slots[j] = v->slots[i];
    }
    free(v->slots);
    v->slots = slots;
    v->mask = cap - 1;
    return 0;
}

/* Copies the key into the arena; its offset in *off. */
static int arena_put(wp_vocab *v, const char *key, size_t len, uint32_t *off) {
    if (len > UINT32_MAX - v->arena_used) return -1;
    if (v->arena_used + len > v->arena_cap) {
        size_t cap = v->arena_cap ? v->arena_cap : 4096;
        while (cap < v->arena_used + len) cap *= 2;
        char *arena = realloc(v->arena, cap);
        if (!arena) return -1;
        v->arena = arena;
        v->arena_cap = cap;
    }
    memcpy(v->arena + v->arena_used, key, len);
    *off = (uint32_t)v->arena_used;
    v->arena_used += len;
    return 0;
}

int wp_vocab_add(wp_vocab *v, const char *key, size_t len, int32_t id) {
    if (!v->slots || 2 * (v->count + 1) > v->mask + 1) /* load factor at most 1/2 */
        if (vocab_grow(v)) return -1;
    if (wp_vocab_find2(v, key, len, "", 0) >= 0) return 0;
    size_t j = fnv1a(FNV_SEED, key, len) & v->mask;
    while (v->slots[j].id >= 0) j = (j + 1) & v->mask;
    uint32_t off;
    if (arena_put(v, key, len, &off)) return -1;
    v->slots[j] = (wp_slot){.off = off, .len = (uint32_t)len, .id = id};
    v->count++;
    if (len > v->longest) v->longest = len;
    return 0;
}

int32_t wp_vocab_find2(const wp_vocab *v, const char *a, size_t alen, const char *b, size_t blen) {
    if (!v->slots || alen + blen > v->longest) return -1;
    size_t j = fnv1a(fnv1a(FNV_SEED, a, alen), b, blen) & v->mask;
    for (; v->slots[j].id >= 0; j = (j + 1) & v->mask) {
        const wp_slot *s = &v->slots[j];
        const char *key = v->arena + s->off;
        if (s->len == alen + blen && memcmp(key, a, alen) == 0 && memcmp(key + alen, b, blen) == 0) return s->id;
    }
    return -1;
}

void wp_vocab_free(wp_vocab *v) {
    free(v->slots);
    free(v->arena);
    memset(v, 0, sizeof *v);
}

/* The length of the UTF-8 character that ends just before word + end. */
static size_t last_char_len(const char *word, size_t end) {
    size_t k = 1;
    while (k < end && ((unsigned char)word[end - k] & 0xC0) == 0x80) k++;
    return k;
}

/* The longest vocabulary piece of word at start (bytes), "##"-prefixed unless start is 0: its id in *id and its
 * end in *end; -1 when there is none. */
static int longest_piece(const wp_tokenizer *t, const char *word, size_t bytes, size_t start, int32_t *id,
                         size_t *end) {
    const char *prefix = start > 0 ? t->prefix : "";
    size_t plen = start > 0 ? t->prefix_len : 0;
    size_t e = bytes;
    /* No key is longer than vocab.longest: start from the longest candidate that can match, on a char edge. */
    while (e > start && plen + (e - start) > t->vocab.longest) e -= last_char_len(word, e);
    for (; e > start; e -= last_char_len(word, e)) {
        int32_t found = wp_vocab_find2(&t->vocab, prefix, plen, word + start, e - start);
        if (found >= 0) {
            *id = found;
            *end = e;
            return 0;
        }
    }
    return -1;
}

int wp_wordpiece(const wp_tokenizer *t, const char *word, size_t bytes, size_t chars, wp_id_fn emit, void *ctx) {
    if (chars > t->max_chars) return emit(ctx, t->unk_id);
    /* A word either becomes all its pieces or one [UNK]: find them all before emitting any. The pieces are at
     * most one per char; a word that long is at most max_chars chars, so a small array usually holds them. */
    int32_t small[128], *pieces = chars <= 128 ? small : malloc(chars * sizeof *pieces);
    if (!pieces) return -1;
    size_t count = 0, start = 0;
    while (start < bytes) {
        size_t end;
        if (longest_piece(t, word, bytes, start, &pieces[count], &end)) break;
        count++;
        start = end;
    }
    int r = 0;
    if (start < bytes) {
        r = emit(ctx, t->unk_id);
    } else {
        for (size_t i = 0; i < count && r == 0; i++) r = emit(ctx, pieces[i]);
    }
    if (pieces != small) free(pieces);
    return r;
}
