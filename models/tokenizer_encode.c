/* tokenizer_encode.c: the two encoders. SentencePiece (llama.cpp's "llama" vocabularies, sentencepiece's BPE
 * model): spaces become U+2581, one is prefixed, pieces merge by score, a piece outside the vocabulary falls back
 * to its <0xNN> bytes. GPT-2 BPE: the pre-tokenizer's words, each byte as its byte-level character, merged by
 * rank (a whole word in the vocabulary taken as it is where the vocabulary ignores merges, as Llama 3's does). */
#include <stdlib.h>
#include <string.h>

#include "tokenizer_internal.h"

static int emit_spm(const wm_tokenizer *t, const char *piece, size_t len, wm_ids *out)
{
    int32_t id = wp_vocab_find2(&t->vocab, piece, len, "", 0);
    if (id >= 0)
        return wm_ids_push(out, id);
    bool bytes = true;
    for (size_t i = 0; i < len; i++)
        bytes = bytes && t->byte_id[(unsigned char)piece[i]] >= 0;
    if (!bytes) /* no byte fallback: the piece is unknown (skipped when the vocabulary has no <unk>) */
        return t->unk >= 0 ? wm_ids_push(out, t->unk) : 0;
    int r = 0;
    for (size_t i = 0; r == 0 && i < len; i++)
        r = wm_ids_push(out, t->byte_id[(unsigned char)piece[i]]);
    return r;
}

int wm_encode_spm(const wm_tokenizer *t, const char *text, size_t len, wm_ids *out)
{
    size_t spaces = 0;
    for (size_t i = 0; i < len; i++)
        spaces += text[i] == ' ';
    if (len > SIZE_MAX / 4)
        return -1;
    char *s = malloc(len + 2 * spaces + 3), *w = s;
    if (!s)
        return -1;
    if (t->add_space_prefix) {
        memcpy(w, "\xe2\x96\x81", 3);
        w += 3;
    }
    for (size_t i = 0; i < len; i++) {
        if (text[i] == ' ') {
            memcpy(w, "\xe2\x96\x81", 3);
            w += 3;
        } else {
            *w++ = text[i];
        }
    }
    int r = wm_merge(t, s, (size_t)(w - s), emit_spm, out);
    free(s);
    return r;
}

/* A piece with no token of its own (possible only when the vocabulary lacks a merge's result): its characters'
 * tokens, those missing skipped, as llama.cpp does. */
static int emit_bpe(const wm_tokenizer *t, const char *piece, size_t len, wm_ids *out)
{
    int32_t id = wp_vocab_find2(&t->vocab, piece, len, "", 0);
    if (id >= 0)
        return wm_ids_push(out, id);
    int r = 0;
    for (size_t i = 0; r == 0 && i < len;) {
        size_t k = 1;
        while (i + k < len && ((unsigned char)piece[i + k] & 0xC0) == 0x80)
            k++;
        id = wp_vocab_find2(&t->vocab, piece + i, k, "", 0);
        r = id >= 0 ? wm_ids_push(out, id) : 0;
        i += k;
    }
    return r;
}

typedef struct bpe_ctx {
    const wm_tokenizer *t;
    wm_ids *out;
    char *buf; /* 2 bytes a byte of the text: the byte-level characters are U+0021 .. U+0143 */
} bpe_ctx;

static int bpe_word(void *ctx, const char *word, size_t len)
{
    bpe_ctx *c = ctx;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += wp_utf8_put(wm_byte_to_cp((uint8_t)word[i]), c->buf + n);
    int32_t id = c->t->ignore_merges ? wp_vocab_find2(&c->t->vocab, c->buf, n, "", 0) : -1;
    if (id >= 0)
        return wm_ids_push(c->out, id);
    return wm_merge(c->t, c->buf, n, emit_bpe, c->out);
}

int wm_encode_bpe(const wm_tokenizer *t, const char *text, size_t len, wm_ids *out)
{
    if (len > SIZE_MAX / 4)
        return -1;
    bpe_ctx c = {.t = t, .out = out, .buf = malloc(2 * len + 4)};
    if (!c.buf)
        return -1;
    int r = wm_pretokenize(t->pre, text, len, bpe_word, &c);
    free(c.buf);
    return r;
}
