/* tokenizer_hf.c: the vocabulary of a Hugging Face directory: tokenizer.json when it is a byte-level BPE (GPT-2's
 * ByteLevel pre-tokenizer, or Llama 3's Split regex then ByteLevel), its added tokens (special ones are control
 * tokens, skipped in output), BOS from its TemplateProcessing post-processor, EOS from config.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tokenizer_internal.h"

static const char gpt2_regex[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char llama3_regex[] = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
                                   "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

typedef struct hf_ld {
    const char *path;
    char *err;
    size_t cap;
} hf_ld;

static const char *type_of(json_t *o)
{
    const char *s = json_string_value(json_object_get(o, "type"));
    return s ? s : "";
}

/* ByteLevel without a prefix space; use_regex: whether it splits with GPT-2's pattern itself. */
static bool byte_level(json_t *o, bool use_regex)
{
    json_t *re = json_object_get(o, "use_regex");
    return !strcmp(type_of(o), "ByteLevel") && !json_is_true(json_object_get(o, "add_prefix_space")) &&
           (re ? json_is_true(re) : true) == use_regex;
}

static wk_status pre_tokenizer(const hf_ld *ld, json_t *root, wm_tokenizer *t)
{
    json_t *pre = json_object_get(root, "pre_tokenizer"), *list = json_object_get(pre, "pretokenizers");
    if (json_is_object(pre) && byte_level(pre, true)) {
        t->pre = WM_PRE_GPT2;
        t->name = "GPT-2 BPE (gpt-2)";
        return WK_OK;
    }
    if (!strcmp(type_of(pre), "Sequence") && json_array_size(list) == 2 && byte_level(json_array_get(list, 1), false)) {
        json_t *split = json_array_get(list, 0);
        const char *re = json_string_value(json_object_get(json_object_get(split, "pattern"), "Regex"));
        const char *beh = json_string_value(json_object_get(split, "behavior"));
        bool isolated = !strcmp(type_of(split), "Split") && beh && !strcmp(beh, "Isolated") &&
                        !json_is_true(json_object_get(split, "invert"));
        if (isolated && re && (!strcmp(re, llama3_regex) || !strcmp(re, gpt2_regex))) {
            t->pre = !strcmp(re, llama3_regex) ? WM_PRE_LLAMA3 : WM_PRE_GPT2;
            t->name = t->pre == WM_PRE_LLAMA3 ? "GPT-2 BPE (llama-bpe)" : "GPT-2 BPE (gpt-2)";
            return WK_OK;
        }
    }
    return wm_fail(ld->err, ld->cap, WK_ERR_UNSUPPORTED, "%s: this pre_tokenizer is not supported (ByteLevel, or "
                   "Llama 3's or GPT-2's Split then ByteLevel, are): use --prompt-ids", ld->path);
}

/* The vocabulary's size: one past the largest id of model.vocab and added_tokens. */
static wk_status count(const hf_ld *ld, json_t *vocab, json_t *added, int *n)
{
    const char *key;
    json_t *v;
    json_int_t top = -1;
    size_t i;
    json_object_foreach(vocab, key, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= (1 << 24))
            return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: the id of \"%.32s\" is not in [0, 2^24)", ld->path, key);
        top = json_integer_value(v) > top ? json_integer_value(v) : top;
    }
    json_array_foreach(added, i, v) {
        json_t *id = json_object_get(v, "id");
        if (!json_is_integer(id) || json_integer_value(id) < 0 || json_integer_value(id) >= (1 << 24) ||
            !json_is_string(json_object_get(v, "content")))
            return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: added_tokens[%zu] has no id in [0, 2^24) or no content",
                           ld->path, i);
        top = json_integer_value(id) > top ? json_integer_value(id) : top;
    }
    *n = (int)(top + 1);
    return WK_OK;
}

static wk_status fill(const hf_ld *ld, json_t *vocab, json_t *merges, json_t *added, wm_tokenizer *t)
{
    const char *key;
    json_t *v;
    size_t i;
    json_object_foreach(vocab, key, v)
        WM_TRY(wm_tok_set(t, (int)json_integer_value(v), key, strlen(key), WM_TT_NORMAL, 0, ld->err, ld->cap));
    json_array_foreach(added, i, v) {
        json_t *c = json_object_get(v, "content");
        int ty = json_is_true(json_object_get(v, "special")) ? WM_TT_CONTROL : WM_TT_USER;
        WM_TRY(wm_tok_set(t, (int)json_integer_value(json_object_get(v, "id")), json_string_value(c),
                          json_string_length(c), ty, 0, ld->err, ld->cap));
    }
    for (int k = 0; k < t->n; k++)
        if (!t->text[k])
            return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: no token has id %d", ld->path, k);
    json_array_foreach(merges, i, v) {
        char buf[1024];
        int len = -1;
        if (json_is_string(v))
            len = snprintf(buf, sizeof buf, "%s", json_string_value(v));
        else if (json_array_size(v) == 2 && json_is_string(json_array_get(v, 0)) &&
                 json_is_string(json_array_get(v, 1)))
            len = snprintf(buf, sizeof buf, "%s %s", json_string_value(json_array_get(v, 0)),
                           json_string_value(json_array_get(v, 1)));
        if (len < 0 || (size_t)len >= sizeof buf)
            return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: merges[%zu] is not a pair of tokens", ld->path, i);
        WM_TRY(wm_tok_merge(t, buf, (size_t)len, (int)i, ld->err, ld->cap));
    }
    return WK_OK;
}

/* BOS: the special token TemplateProcessing puts before a single text (in a Sequence of processors too). */
static void bos(json_t *post, wm_tokenizer *t)
{
    json_t *procs = json_object_get(post, "processors"), *p;
    size_t i;
    if (json_is_array(procs)) {
        json_array_foreach(procs, i, p)
            bos(p, t);
        return;
    }
    if (strcmp(type_of(post), "TemplateProcessing") != 0)
        return;
    json_t *first = json_array_get(json_object_get(post, "single"), 0);
    const char *name = json_string_value(json_object_get(json_object_get(first, "SpecialToken"), "id"));
    json_t *ids = json_object_get(json_object_get(json_object_get(post, "special_tokens"), name ? name : ""), "ids");
    json_t *id = json_array_get(ids, 0);
    if (json_is_integer(id) && json_integer_value(id) >= 0 && json_integer_value(id) < t->n) {
        t->bos = (int32_t)json_integer_value(id);
        t->add_bos = true;
    }
}

/* EOS: config.json's eos_token_id (the first of a list). */
static void eos(const char *dir, wm_tokenizer *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    json_t *cfg = json_load_file(path, 0, NULL), *e = json_object_get(cfg, "eos_token_id");
    e = json_is_array(e) ? json_array_get(e, 0) : e;
    if (json_is_integer(e) && json_integer_value(e) >= 0 && json_integer_value(e) < t->n)
        t->eos = (int32_t)json_integer_value(e);
    json_decref(cfg);
}

static wk_status build(const hf_ld *ld, json_t *root, wm_tokenizer **out)
{
    json_t *model = json_object_get(root, "model"), *vocab = json_object_get(model, "vocab");
    json_t *merges = json_object_get(model, "merges"), *added = json_object_get(root, "added_tokens");
    json_t *norm = json_object_get(root, "normalizer");
    if (strcmp(type_of(model), "BPE") != 0 || json_is_true(json_object_get(model, "byte_fallback")) ||
        (norm && !json_is_null(norm)))
        return wm_fail(ld->err, ld->cap, WK_ERR_UNSUPPORTED, "%s: only byte-level BPE tokenizers are supported (this "
                       "is a %s model%s): use --prompt-ids", ld->path, type_of(model)[0] ? type_of(model) : "unknown",
                       norm && !json_is_null(norm) ? " with a normalizer" : "");
    if (!json_is_object(vocab) || !json_is_array(merges) || (added && !json_is_array(added)))
        return wm_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: model.vocab, model.merges or added_tokens is missing or "
                       "of the wrong type", ld->path);
    int n = 0;
    WM_TRY(count(ld, vocab, added, &n));
    wm_tokenizer *t;
    WM_TRY(wm_tok_alloc(n, &t, ld->err, ld->cap));
    t->kind = WM_TOK_BPE;
    t->ignore_merges = json_is_true(json_object_get(model, "ignore_merges"));
    wk_status s = pre_tokenizer(ld, root, t);
    if (s == WK_OK)
        s = fill(ld, vocab, merges, added, t);
    if (s == WK_OK)
        s = wm_tok_finish(t, ld->err, ld->cap);
    if (s != WK_OK) {
        wm_tokenizer_free(t);
        return s;
    }
    bos(json_object_get(root, "post_processor"), t);
    *out = t;
    return WK_OK;
}

wk_status wm_tokenizer_hf(const char *dir, wm_tokenizer **out, char *err, size_t cap)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/tokenizer.json", dir) >= (int)sizeof path)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "%s: path too long", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return wm_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "%s has no tokenizer.json: use --prompt-ids", dir);
    fclose(f);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return wm_fail(err, cap, WK_ERR_FILE, "%s: line %d: %s", path, je.line, je.text);
    hf_ld ld = {.path = path, .err = err, .cap = cap};
    wk_status s = json_is_object(root) ? build(&ld, root, out)
                                       : wm_fail(err, cap, WK_ERR_FILE, "%s is not a JSON object", path);
    json_decref(root);
    if (s == WK_OK)
        eos(dir, *out);
    return s;
}
