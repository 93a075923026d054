/* tokenizer.c: the tokenizer's vocabulary (built by the GGUF and tokenizer.json loaders), loading by path, and the
 * public encode / decode: SentencePiece pieces with their space marks and byte fallback, BPE's byte-level text. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <utf8proc.h>

#include "tokenizer_internal.h"

wk_status wm_tok_alloc(int n, wm_tokenizer **out, char *err, size_t cap)
{
    wm_tokenizer *t = calloc(1, sizeof *t);
    if (t && n > 0) {
        t->text = calloc((size_t)n, sizeof *t->text);
        t->len = calloc((size_t)n, sizeof *t->len);
        t->score = calloc((size_t)n, sizeof *t->score);
        t->type = calloc((size_t)n, sizeof *t->type);
    }
    if (!t || (n > 0 && (!t->text || !t->len || !t->score || !t->type))) {
        if (t)
            t->n = n;
        wm_tokenizer_free(t);
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory for a vocabulary of %d tokens", n);
    }
    t->n = n;
    t->bos = t->eos = t->unk = -1;
    for (int b = 0; b < 256; b++)
        t->byte_id[b] = -1;
    *out = t;
    return WK_OK;
}

wk_status wm_tok_set(wm_tokenizer *t, int i, const char *text, size_t len, int type, float score, char *err,
                     size_t cap)
{
    if (len > UINT32_MAX - 1)
        return wm_fail(err, cap, WK_ERR_FILE, "token %d is %zu bytes long", i, len);
    char *copy = malloc(len + 1);
    if (!copy)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory for token %d", i);
    memcpy(copy, text, len);
    copy[len] = 0;
    free(t->text[i]);
    t->text[i] = copy;
    t->len[i] = (uint32_t)len;
    t->type[i] = (uint8_t)(type >= WM_TT_NORMAL && type <= WM_TT_BYTE ? type : WM_TT_NORMAL);
    t->score[i] = score;
    return WK_OK;
}

wk_status wm_tok_merge(wm_tokenizer *t, const char *key, size_t len, int rank, char *err, size_t cap)
{
    const char *sp = len > 1 ? memchr(key + 1, ' ', len - 1) : NULL; /* llama.cpp: the first space after byte 0 */
    if (!sp || len > UINT32_MAX)
        return wm_fail(err, cap, WK_ERR_FILE, "merge %d (\"%.*s\") is not two tokens joined by a space", rank,
                       (int)(len < 64 ? len : 64), key);
    /* The key: the left part's length (4 bytes), then left and right joined, as wm_merge finds them. */
    uint32_t left = (uint32_t)(sp - key);
    size_t n = len - 1 + 4;
    char *buf = malloc(n);
    if (!buf)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory for merge %d", rank);
    memcpy(buf, &left, 4);
    memcpy(buf + 4, key, left);
    memcpy(buf + 4 + left, sp + 1, len - left - 1);
    int r = wp_vocab_add(&t->merges, buf, n, rank);
    free(buf);
    if (n > t->longest_merge)
        t->longest_merge = n;
    return r ? wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory for merge %d", rank) : WK_OK;
}

/* "<0xNN>": NN's value, or -1. */
static int byte_token(const char *s, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    if (len != 6 || memcmp(s, "<0x", 3) != 0 || s[5] != '>')
        return -1;
    const char *hi = memchr(hex, s[3], 16), *lo = memchr(hex, s[4], 16);
    return hi && lo && s[3] && s[4] ? (int)((hi - hex) * 16 + (lo - hex)) : -1;
}

static bool is_special(const wm_tokenizer *t, int i)
{
    int ty = t->type[i];
    return t->len[i] > 0 && (ty == WM_TT_CONTROL || ty == WM_TT_USER || ty == WM_TT_UNKNOWN);
}

/* The tokens encode finds written in the text, longest first. */
static wk_status specials(wm_tokenizer *t, char *err, size_t cap)
{
    int n = 0;
    for (int i = 0; i < t->n; i++)
        n += is_special(t, i);
    t->special = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    if (!t->special)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory for %d special tokens", n);
    for (int i = 0; i < t->n; i++)
        if (is_special(t, i)) {
            t->special[t->n_special++] = i;
            t->special_first[(unsigned char)t->text[i][0]] = true;
        }
    for (int i = 1; i < n; i++) { /* insertion sort: longest first, then lower id (few tokens, mostly in order) */
        int32_t x = t->special[i];
        int j = i;
        for (; j > 0 && (t->len[t->special[j - 1]] < t->len[x]); j--)
            t->special[j] = t->special[j - 1];
        t->special[j] = x;
    }
    return WK_OK;
}

wk_status wm_tok_finish(wm_tokenizer *t, char *err, size_t cap)
{
    WM_TRY(specials(t, err, cap));
    for (int i = 0; i < t->n; i++) {
        if (!t->text[i])
            return wm_fail(err, cap, WK_ERR_FILE, "token %d has no text", i);
        int ty = t->type[i];
        if (t->kind == WM_TOK_SPM && ty == WM_TT_BYTE) {
            int b = byte_token(t->text[i], t->len[i]);
            if (b < 0)
                return wm_fail(err, cap, WK_ERR_FILE, "byte token %d is \"%.16s\", not <0xNN>", i, t->text[i]);
            if (t->byte_id[b] < 0)
                t->byte_id[b] = i;
            continue;
        }
        /* SentencePiece merges only into normal, user-defined and unused pieces (sentencepiece's pieces_). */
        if (t->kind == WM_TOK_SPM && ty != WM_TT_NORMAL && ty != WM_TT_USER && ty != WM_TT_UNUSED)
            continue;
        if (wp_vocab_add(&t->vocab, t->text[i], t->len[i], i))
            return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory for the vocabulary");
    }
    return WK_OK;
}

void wm_tokenizer_free(wm_tokenizer *t)
{
    if (!t)
        return;
    for (int i = 0; t->text && i < t->n; i++)
        free(t->text[i]);
    free(t->text);
    free(t->len);
    free(t->score);
    free(t->type);
    wp_vocab_free(&t->vocab);
    wp_vocab_free(&t->merges);
    free(t->special);
    free(t);
}

int wm_ids_push(wm_ids *ids, int32_t id)
{
    if (ids->n == ids->cap) {
        if (ids->cap > (1 << 28))
            return -1;
        int cap = ids->cap ? 2 * ids->cap : 64;
        int32_t *v = realloc(ids->v, sizeof(int32_t) * (size_t)cap);
        if (!v)
            return -1;
        ids->v = v;
        ids->cap = cap;
    }
    ids->v[ids->n++] = id;
    return 0;
}

wk_status wm_tokenizer_load(const char *path, wm_tokenizer **out, char *err, size_t cap)
{
    struct stat st;
    if (!path || !out)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "wm_tokenizer_load: NULL argument");
    if (stat(path, &st) != 0)
        return wm_fail(err, cap, WK_ERR_IO, "cannot open %s", path);
    wk_status s = S_ISDIR(st.st_mode) ? wm_tokenizer_hf(path, out, err, cap) : wm_tokenizer_gguf(path, out, err, cap);
    if (s != WK_OK && err && cap && !strstr(err, path)) { /* a message of the shared builders: name the file */
        char *msg = strdup(err);
        if (msg)
            wm_fail(err, cap, s, "%s: %s", path, msg);
        free(msg);
    }
    return s;
}

int wm_tokenizer_size(const wm_tokenizer *t) { return t->n; }
int32_t wm_tokenizer_bos(const wm_tokenizer *t) { return t->bos; }
int32_t wm_tokenizer_eos(const wm_tokenizer *t) { return t->eos; }
bool wm_tokenizer_adds_bos(const wm_tokenizer *t) { return t->add_bos && t->bos >= 0; }
const char *wm_tokenizer_kind(const wm_tokenizer *t) { return t->name; }

/* The longest token of the special list written at s (control and unknown ones only when special): its id, its
 * length in *k; -1 when none is. */
static int32_t special_at(const wm_tokenizer *t, const char *s, size_t len, bool special, size_t *k)
{
    if (!t->special_first[(unsigned char)s[0]])
        return -1;
    for (int j = 0; j < t->n_special; j++) {
        int32_t id = t->special[j];
        if (t->len[id] <= len && memcmp(s, t->text[id], t->len[id]) == 0 && (special || t->type[id] == WM_TT_USER)) {
            *k = t->len[id];
            return id;
        }
    }
    return -1;
}

/* The text between special tokens encoded piece by piece, the special tokens as their ids. */
static int encode_parts(const wm_tokenizer *t, const char *text, size_t len, bool special, wm_ids *out)
{
    int (*encode)(const wm_tokenizer *, const char *, size_t, wm_ids *) =
        t->kind == WM_TOK_SPM ? wm_encode_spm : wm_encode_bpe;
    size_t start = 0, k = 0;
    int r = 0;
    for (size_t i = 0; r == 0 && i < len;) {
        int32_t id = special_at(t, text + i, len - i, special, &k);
        if (id < 0) {
            i++;
            continue;
        }
        if (i > start)
            r = encode(t, text + start, i - start, out);
        if (r == 0)
            r = wm_ids_push(out, id);
        i += k;
        start = i;
    }
    return r == 0 && start < len ? encode(t, text + start, len - start, out) : r;
}

wk_status wm_tokenizer_encode(const wm_tokenizer *t, const char *text, size_t len, bool add_bos, bool special,
                              int32_t **ids, int *n, char *err, size_t cap)
{
    if (!t || (!text && len) || !ids || !n)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "wm_tokenizer_encode: NULL argument");
    wm_ids out = {0};
    int r = add_bos && t->bos >= 0 ? wm_ids_push(&out, t->bos) : 0;
    if (r == 0 && len)
        r = encode_parts(t, text, len, special, &out);
    if (r != 0) {
        free(out.v);
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory to tokenize %zu bytes", len);
    }
    if (!out.v && (out.v = malloc(sizeof(int32_t))) == NULL)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory to tokenize");
    *ids = out.v;
    *n = out.n;
    return WK_OK;
}

/* Appends len bytes of s at buf[*w] (as far as cap allows); *w counts them all. */
static void put(char *buf, size_t cap, size_t *w, const char *s, size_t len)
{
    if (*w < cap)
        memcpy(buf + *w, s, len < cap - *w ? len : cap - *w);
    *w += len;
}

/* SentencePiece: "\xe2\x96\x81" (U+2581) is a space; the text's first piece loses the space the encoder added. */
static size_t piece_spm(const wm_tokenizer *t, int32_t id, bool first, char *buf, size_t cap)
{
    size_t w = 0;
    if (t->type[id] == WM_TT_BYTE) {
        char b = (char)byte_token(t->text[id], t->len[id]);
        put(buf, cap, &w, &b, 1);
        return w;
    }
    if (t->type[id] == WM_TT_UNKNOWN) {
        put(buf, cap, &w, " \xe2\x81\x87 ", 5); /* sentencepiece's surface of <unk> */
        return w;
    }
    const char *s = t->text[id], *end = s + t->len[id];
    if (first && t->add_space_prefix && end - s >= 3 && memcmp(s, "\xe2\x96\x81", 3) == 0)
        s += 3;
    while (s < end) {
        const char *mark = end - s >= 3 ? memchr(s, '\xe2', (size_t)(end - s)) : NULL;
        if (mark && end - mark >= 3 && memcmp(mark, "\xe2\x96\x81", 3) == 0) {
            put(buf, cap, &w, s, (size_t)(mark - s));
            put(buf, cap, &w, " ", 1);
            s = mark + 3;
        } else {
            size_t k = mark ? (size_t)(mark - s) + 1 : (size_t)(end - s);
            put(buf, cap, &w, s, k);
            s += k;
        }
    }
    return w;
}

/* Byte-level BPE: each character of the token's text stands for one byte; any other character is itself. */
static size_t piece_bpe(const wm_tokenizer *t, int32_t id, char *buf, size_t cap)
{
    size_t w = 0;
    const char *s = t->text[id];
    size_t len = t->len[id], i = 0;
    while (i < len) {
        int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &cp);
        if (k <= 0) { /* not UTF-8: the byte itself */
            put(buf, cap, &w, s + i, 1);
            i++;
            continue;
        }
        int b = wm_cp_to_byte(cp);
        char c = (char)b;
        if (b >= 0)
            put(buf, cap, &w, &c, 1);
        else
            put(buf, cap, &w, s + i, (size_t)k);
        i += (size_t)k;
    }
    return w;
}

bool wm_tokenizer_shows(const wm_tokenizer *t, int32_t id)
{
    return t && id >= 0 && id < t->n && t->type[id] != WM_TT_CONTROL;
}

size_t wm_tokenizer_piece(const wm_tokenizer *t, int32_t id, bool first, char *buf, size_t cap)
{
    if (!wm_tokenizer_shows(t, id))
        return 0;
    return t->kind == WM_TOK_SPM ? piece_spm(t, id, first, buf, cap) : piece_bpe(t, id, buf, cap);
}

wk_status wm_tokenizer_decode(const wm_tokenizer *t, const int32_t *ids, int n, char **text, size_t *len, char *err,
                              size_t cap)
{
    if (!t || (!ids && n) || n < 0 || !text || !len)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "wm_tokenizer_decode: NULL argument or n < 0");
    size_t total = 0, room = 64;
    char *s = malloc(room);
    bool first = true; /* no token shown yet (control tokens show nothing) */
    for (int i = 0; s && i < n; first = first && !wm_tokenizer_shows(t, ids[i]), i++) {
        size_t k = wm_tokenizer_piece(t, ids[i], first, s + total, room - total - 1);
        if (total + k + 1 > room) {
            while (room < total + k + 1)
                room *= 2;
            char *g = realloc(s, room);
            if (!g) {
                free(s);
                s = NULL;
                break;
            }
            s = g;
            k = wm_tokenizer_piece(t, ids[i], first, s + total, room - total - 1);
        }
        total += k;
    }
    if (!s)
        return wm_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "no memory to decode %d tokens", n);
    s[total] = 0;
    *text = s;
    *len = total;
    return WK_OK;
}
