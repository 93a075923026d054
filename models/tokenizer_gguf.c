/* tokenizer_gguf.c: the vocabulary of a GGUF file, read as llama.cpp reads it (tokenizer.ggml.model "llama":
 * SentencePiece tokens, scores and token types; "gpt2": byte-level BPE tokens, types and merges, with the
 * pre-tokenizer of tokenizer.ggml.pre), every count and element type checked against the file. */
#include <stdlib.h>
#include <string.h>

#include "tokenizer_internal.h"

#define WM_MAX_TOKENS (1 << 24)

typedef struct gguf_ld {
    const wk_gguf *g;
    const char *path;
    char *err;
    size_t cap;
} gguf_ld;

/* key's array of elem type with n elements (n < 0: any count, given back in *count); *v NULL when absent and
 * optional. */
static wk_status array(const gguf_ld *ld, const char *key, wk_gguf_type elem, bool required, int64_t n,
                       const wk_gguf_value **v, int64_t *count)
{
    wk_gguf_type et;
    uint64_t len;
    *v = NULL;
    if (wk_gguf_metadata_find(ld->g, key, v) != WK_OK) {
        *v = NULL;
        return required ? wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: no %s", ld->path, key) : WK_OK;
    }
    if (wk_gguf_value_array(*v, &et, &len) != WK_OK || et != elem)
        return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: %s is not an array of %s", ld->path, key,
                       elem == WK_GGUF_STRING ? "strings" : elem == WK_GGUF_INT32 ? "int32" : "float32");
    if (len > WM_MAX_TOKENS || (n >= 0 && len != (uint64_t)n))
        return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: %s has %llu elements (want %s%lld)", ld->path, key,
                       (unsigned long long)len, n >= 0 ? "" : "at most ",
                       n >= 0 ? (long long)n : (long long)WM_MAX_TOKENS);
    if (count)
        *count = (int64_t)len;
    return WK_OK;
}

/* Element i of array v as a string, an int or a float. */
static wk_status element(const gguf_ld *ld, const char *key, const wk_gguf_value *v, int64_t i, const char **s,
                         uint64_t *len, int64_t *iv, double *fv)
{
    const wk_gguf_value *e;
    wk_status st = wk_gguf_value_array_get(v, (uint64_t)i, &e);
    if (st == WK_OK)
        st = s ? wk_gguf_value_string(e, s, len) : iv ? wk_gguf_value_int(e, iv) : wk_gguf_value_float(e, fv);
    return st == WK_OK ? WK_OK : wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: %s[%lld]: %s", ld->path, key,
                                         (long long)i, wk_last_error());
}

/* An optional id key: *id unchanged when absent; WK_ERR_FILE outside [0, n). */
static wk_status id_key(const gguf_ld *ld, const char *key, int n, int32_t *id)
{
    const wk_gguf_value *v;
    uint64_t u;
    if (wk_gguf_metadata_find(ld->g, key, &v) != WK_OK)
        return WK_OK;
    if (wk_gguf_value_uint(v, &u) != WK_OK || u >= (uint64_t)n)
        return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: %s is not a token id below %d", ld->path, key, n);
    *id = (int32_t)u;
    return WK_OK;
}

static wk_status bool_key(const gguf_ld *ld, const char *key, bool *b)
{
    const wk_gguf_value *v;
    if (wk_gguf_metadata_find(ld->g, key, &v) != WK_OK)
        return WK_OK;
    if (wk_gguf_value_bool(v, b) != WK_OK)
        return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: %s is not a bool", ld->path, key);
    return WK_OK;
}

/* tokenizer.ggml.model and .pre into the tokenizer's kind, pre-tokenizer and defaults. */
static wk_status kind(const gguf_ld *ld, wm_tokenizer *t, const char *model)
{
    if (!strcmp(model, "llama")) {
        t->kind = WM_TOK_SPM;
        t->name = "SentencePiece";
        t->add_bos = t->add_space_prefix = true;
        return WK_OK;
    }
    if (strcmp(model, "gpt2") != 0)
        return wm_fail(ld->err, ld->cap, WK_ERR_UNSUPPORTED, "%s: tokenizer '%s' is not supported (SentencePiece "
                       "'llama' and GPT-2 BPE 'gpt2' are): use --prompt-ids", ld->path, model);
    const wk_gguf_value *v;
    const char *pre = "default";
    uint64_t len;
    if (wk_gguf_metadata_find(ld->g, "tokenizer.ggml.pre", &v) == WK_OK &&
        wk_gguf_value_string(v, &pre, &len) != WK_OK)
        return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: tokenizer.ggml.pre is not a string", ld->path);
    t->kind = WM_TOK_BPE;
    if (!strcmp(pre, "llama-bpe") || !strcmp(pre, "llama3") || !strcmp(pre, "llama-v3")) {
        t->pre = WM_PRE_LLAMA3;
        t->name = "GPT-2 BPE (llama-bpe)";
        t->ignore_merges = t->add_bos = true;
    } else if (!strcmp(pre, "gpt-2")) {
        t->pre = WM_PRE_GPT2;
        t->name = "GPT-2 BPE (gpt-2)";
    } else if (!strcmp(pre, "default")) {
        t->pre = WM_PRE_DEFAULT;
        t->name = "GPT-2 BPE (default)";
    } else {
        return wm_fail(ld->err, ld->cap, WK_ERR_UNSUPPORTED, "%s: BPE pre-tokenizer '%s' is not supported "
                       "('llama-bpe', 'gpt-2' and 'default' are): use --prompt-ids", ld->path, pre);
    }
    return WK_OK;
}

static wk_status tokens(const gguf_ld *ld, wm_tokenizer *t)
{
    const wk_gguf_value *tv, *ty = NULL, *sc = NULL;
    int64_t n = t->n, iv = WM_TT_NORMAL;
    WM_TRY(array(ld, "tokenizer.ggml.tokens", WK_GGUF_STRING, true, n, &tv, NULL));
    WM_TRY(array(ld, "tokenizer.ggml.token_type", WK_GGUF_INT32, false, n, &ty, NULL));
    if (t->kind == WM_TOK_SPM)
        WM_TRY(array(ld, "tokenizer.ggml.scores", WK_GGUF_FLOAT32, false, n, &sc, NULL));
    for (int64_t i = 0; i < n; i++) {
        const char *s;
        uint64_t len;
        double f = 0;
        WM_TRY(element(ld, "tokenizer.ggml.tokens", tv, i, &s, &len, NULL, NULL));
        if (ty)
            WM_TRY(element(ld, "tokenizer.ggml.token_type", ty, i, NULL, NULL, &iv, NULL));
        if (sc)
            WM_TRY(element(ld, "tokenizer.ggml.scores", sc, i, NULL, NULL, NULL, &f));
        if (iv < WM_TT_NORMAL || iv > WM_TT_BYTE)
            return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: token %lld has type %lld (want 1 to 6)", ld->path,
                           (long long)i, (long long)iv);
        WM_TRY(wm_tok_set(t, (int)i, s, len, (int)iv, (float)f, ld->err, ld->cap));
    }
    if (t->kind == WM_TOK_SPM)
        return WK_OK;
    const wk_gguf_value *mv;
    int64_t m;
    WM_TRY(array(ld, "tokenizer.ggml.merges", WK_GGUF_STRING, true, -1, &mv, &m));
    for (int64_t i = 0; i < m; i++) {
        const char *s;
        uint64_t len;
        WM_TRY(element(ld, "tokenizer.ggml.merges", mv, i, &s, &len, NULL, NULL));
        WM_TRY(wm_tok_merge(t, s, len, (int)i, ld->err, ld->cap));
    }
    return WK_OK;
}

static wk_status build(const gguf_ld *ld, const char *model, wm_tokenizer *t)
{
    WM_TRY(kind(ld, t, model));
    WM_TRY(tokens(ld, t));
    if (t->kind == WM_TOK_SPM) { /* llama.cpp's defaults for SentencePiece vocabularies */
        t->unk = t->n > 0 ? 0 : -1;
        t->bos = t->n > 1 ? 1 : -1;
        t->eos = t->n > 2 ? 2 : -1;
    }
    WM_TRY(id_key(ld, "tokenizer.ggml.bos_token_id", t->n, &t->bos));
    WM_TRY(id_key(ld, "tokenizer.ggml.eos_token_id", t->n, &t->eos));
    WM_TRY(id_key(ld, "tokenizer.ggml.unknown_token_id", t->n, &t->unk));
    WM_TRY(bool_key(ld, "tokenizer.ggml.add_bos_token", &t->add_bos));
    WM_TRY(bool_key(ld, "tokenizer.ggml.add_space_prefix", &t->add_space_prefix));
    return wm_tok_finish(t, ld->err, ld->cap);
}

wk_status wm_tokenizer_gguf(const char *path, wm_tokenizer **out, char *err, size_t cap)
{
    wk_gguf *g = NULL;
    wk_status s = wk_gguf_open(path, &g);
    if (s != WK_OK)
        return wm_fail(err, cap, s, "%s", wk_last_error());
    gguf_ld ld = {.g = g, .path = path, .err = err, .cap = cap};
    const wk_gguf_value *v, *tv;
    const char *model = NULL;
    uint64_t len;
    wk_gguf_type et;
    uint64_t n = 0;
    wm_tokenizer *t = NULL;
    if (wk_gguf_metadata_find(g, "tokenizer.ggml.model", &v) != WK_OK)
        s = wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "%s holds no vocabulary (tokenizer.ggml.model): use "
                    "--prompt-ids", path);
    else if (wk_gguf_value_string(v, &model, &len) != WK_OK)
        s = wm_fail(err, cap, WK_ERR_FILE, "%s: tokenizer.ggml.model is not a string", path);
    else if (wk_gguf_metadata_find(g, "tokenizer.ggml.tokens", &tv) != WK_OK ||
             wk_gguf_value_array(tv, &et, &n) != WK_OK || n > WM_MAX_TOKENS)
        s = wm_fail(err, cap, WK_ERR_FILE, "%s: tokenizer.ggml.tokens is missing, not an array or over %d long", path,
                    WM_MAX_TOKENS);
    else if ((s = wm_tok_alloc((int)n, &t, err, cap)) == WK_OK)
        s = build(&ld, model, t);
    wk_gguf_close(g);
    if (s != WK_OK) {
        wm_tokenizer_free(t);
        return s;
    }
    *out = t;
    return WK_OK;
}
