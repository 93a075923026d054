/* wordpiece_load.c: wp_load: reads tokenizer.json with jansson and checks every field the tokenizer uses
 * (normalizer, pre_tokenizer, model, post_processor, added_tokens, padding), naming what is missing or unknown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "wordpiece_internal.h"

/* What a loader needs for its messages: the file's path, the caller's message buffer. */
typedef struct wp_ld {
    const char *path;
    char *err;
    size_t cap;
} wp_ld;

/* obj[key] of JSON type `type` (JSON_TRUE also accepts false); WK_ERR_FILE naming where and key otherwise. */
static wk_status field(const wp_ld *ld, json_t *obj, const char *where, const char *key, json_type type,
                       json_t **out) {
    static const char *names[] = {"an object", "an array", "a string", "an integer", "a number", "a bool",
                                  "a bool", "null"};
    json_t *v = json_object_get(obj, key);
    if (!v) return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: %s has no \"%s\"", ld->path, where, key);
    bool ok = json_typeof(v) == type || (type == JSON_TRUE && json_is_boolean(v));
    if (!ok)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: %s's \"%s\" is not %s", ld->path, where, key,
                       names[type]);
    *out = v;
    return WK_OK;
}

static wk_status bool_field(const wp_ld *ld, json_t *obj, const char *where, const char *key, bool *out) {
    json_t *v;
    wk_status st = field(ld, obj, where, key, JSON_TRUE, &v);
    if (st == WK_OK) *out = json_is_true(v);
    return st;
}

/* root[section] is an object whose "type" is want: WK_ERR_FILE when absent, WK_ERR_UNSUPPORTED for another. */
static wk_status typed_section(const wp_ld *ld, json_t *root, const char *section, const char *want1,
                               const char *want2, json_t **out, const char **type) {
    json_t *sec = json_object_get(root, section), *ty = NULL;
    if (!sec || json_is_null(sec))
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: no \"%s\" (want %s)", ld->path, section, want1);
    if (!json_is_object(sec))
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: \"%s\" is not an object", ld->path, section);
    wk_status st = field(ld, sec, section, "type", JSON_STRING, &ty);
    if (st) return st;
    *type = json_string_value(ty);
    if (strcmp(*type, want1) != 0 && (!want2 || strcmp(*type, want2) != 0))
        return wp_fail(ld->err, ld->cap, WK_ERR_UNSUPPORTED, "%s: %s type \"%s\" is not supported (want %s%s%s)",
                       ld->path, section, *type, want1, want2 ? " or " : "", want2 ? want2 : "");
    *out = sec;
    return WK_OK;
}

static wk_status load_normalizer(const wp_ld *ld, json_t *root, wp_norm *norm) {
    json_t *sec, *strip;
    const char *type;
    wk_status st = typed_section(ld, root, "normalizer", "BertNormalizer", NULL, &sec, &type);
    if (!st) st = bool_field(ld, sec, "normalizer", "clean_text", &norm->clean_text);
    if (!st) st = bool_field(ld, sec, "normalizer", "handle_chinese_chars", &norm->chinese_chars);
    if (!st) st = bool_field(ld, sec, "normalizer", "lowercase", &norm->lowercase);
    if (st) return st;
    strip = json_object_get(sec, "strip_accents");
    if (!strip)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: normalizer has no \"strip_accents\"", ld->path);
    if (!json_is_null(strip) && !json_is_boolean(strip))
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: normalizer's \"strip_accents\" is not a bool or null",
                       ld->path);
    norm->strip_accents = json_is_null(strip) ? norm->lowercase : json_is_true(strip); /* null: as lowercase */
    return WK_OK;
}

static wk_status load_vocab(const wp_ld *ld, json_t *vocab, wp_tokenizer *t) {
    const char *key;
    json_t *val;
    json_object_foreach(vocab, key, val) {
        json_int_t id = json_is_integer(val) ? json_integer_value(val) : -1;
        if (id < 0 || id > INT32_MAX)
            return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: model's vocab id of \"%s\" is not an integer in [0, %d]",
                           ld->path, key, INT32_MAX);
        if (wp_vocab_add(&t->vocab, key, strlen(key), (int32_t)id))
            return wp_fail(ld->err, ld->cap, WK_ERR_OUT_OF_MEMORY, "%s: out of memory for the vocab", ld->path);
    }
    return WK_OK;
}

/* The id of token in the vocabulary; WK_ERR_FILE naming it and what it is (role) when it is absent. */
static wk_status vocab_id(const wp_ld *ld, const wp_tokenizer *t, const char *token, const char *role, int32_t *id) {
    *id = wp_vocab_find2(&t->vocab, token, strlen(token), "", 0);
    if (*id < 0)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: the %s \"%s\" is not in the model's vocab", ld->path,
                       role, token);
    return WK_OK;
}

static wk_status load_model(const wp_ld *ld, json_t *root, wp_tokenizer *t) {
    json_t *sec = NULL, *vocab = NULL, *unk = NULL, *prefix = NULL, *max = NULL;
    const char *type;
    wk_status st = typed_section(ld, root, "model", "WordPiece", NULL, &sec, &type);
    if (!st) st = field(ld, sec, "model", "vocab", JSON_OBJECT, &vocab);
    if (!st) st = field(ld, sec, "model", "unk_token", JSON_STRING, &unk);
    if (!st) st = field(ld, sec, "model", "continuing_subword_prefix", JSON_STRING, &prefix);
    if (!st) st = field(ld, sec, "model", "max_input_chars_per_word", JSON_INTEGER, &max);
    if (st) return st;
    if (json_integer_value(max) < 0)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: model's max_input_chars_per_word is negative", ld->path);
    t->max_chars = (size_t)json_integer_value(max);
    t->prefix_len = json_string_length(prefix);
    t->prefix = malloc(t->prefix_len + 1);
    if (!t->prefix) return wp_fail(ld->err, ld->cap, WK_ERR_OUT_OF_MEMORY, "%s: out of memory", ld->path);
    memcpy(t->prefix, json_string_value(prefix), t->prefix_len + 1);
    st = load_vocab(ld, vocab, t);
    return st ? st : vocab_id(ld, t, json_string_value(unk), "unk_token", &t->unk_id);
}

/* TemplateProcessing's "single" must be [SpecialToken X, Sequence A, SpecialToken Y]: X's and Y's one id. */
static wk_status template_special(const wp_ld *ld, json_t *sec, json_t *item, const char **name, int32_t *id) {
    json_t *special = json_object_get(item, "SpecialToken");
    json_t *tok_id = json_object_get(special, "id");
    json_t *entry = json_object_get(json_object_get(sec, "special_tokens"), json_string_value(tok_id));
    json_t *ids = json_object_get(entry, "ids");
    if (!json_is_string(tok_id) || !json_is_array(ids) || json_array_size(ids) != 1 ||
        !json_is_integer(json_array_get(ids, 0)))
        return wp_fail(ld->err, ld->cap, WK_ERR_UNSUPPORTED,
                       "%s: post_processor's single template is not [special, $A, special] with one id each",
                       ld->path);
    json_int_t v = json_integer_value(json_array_get(ids, 0));
    if (v < 0 || v > INT32_MAX)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: post_processor's special id %lld is out of range",
                       ld->path, (long long)v);
    *name = json_string_value(tok_id);
    *id = (int32_t)v;
    return WK_OK;
}

static wk_status load_template(const wp_ld *ld, json_t *sec, const char **cls, const char **sep, wp_tokenizer *t) {
    json_t *single = NULL, *seq = NULL;
    wk_status st = field(ld, sec, "post_processor", "single", JSON_ARRAY, &single);
    if (st) return st;
    seq = json_object_get(json_object_get(json_array_get(single, 1), "Sequence"), "id");
    if (json_array_size(single) != 3 || !json_is_string(seq) || strcmp(json_string_value(seq), "A") != 0)
        return wp_fail(ld->err, ld->cap, WK_ERR_UNSUPPORTED,
                       "%s: post_processor's single template is not [special, $A, special]", ld->path);
    st = template_special(ld, sec, json_array_get(single, 0), cls, &t->cls_id);
    return st ? st : template_special(ld, sec, json_array_get(single, 2), sep, &t->sep_id);
}

/* BertProcessing's "cls" or "sep": [token, id]. */
static wk_status bert_pair(const wp_ld *ld, json_t *sec, const char *key, const char **name, int32_t *id) {
    json_t *pair = NULL;
    wk_status st = field(ld, sec, "post_processor", key, JSON_ARRAY, &pair);
    if (st) return st;
    json_t *tok = json_array_get(pair, 0), *v = json_array_get(pair, 1);
    if (json_array_size(pair) != 2 || !json_is_string(tok) || !json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > INT32_MAX)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: post_processor's \"%s\" is not [token, id]", ld->path,
                       key);
    *name = json_string_value(tok);
    *id = (int32_t)json_integer_value(v);
    return WK_OK;
}

static wk_status load_post(const wp_ld *ld, json_t *root, wp_tokenizer *t) {
    json_t *sec;
    const char *type, *cls = NULL, *sep = NULL;
    int32_t in_vocab;
    wk_status st = typed_section(ld, root, "post_processor", "TemplateProcessing", "BertProcessing", &sec, &type);
    if (st) return st;
    if (strcmp(type, "BertProcessing") == 0) {
        st = bert_pair(ld, sec, "cls", &cls, &t->cls_id);
        if (!st) st = bert_pair(ld, sec, "sep", &sep, &t->sep_id);
    } else {
        st = load_template(ld, sec, &cls, &sep, t);
    }
    if (!st) st = vocab_id(ld, t, cls, "post_processor's first token", &in_vocab);
    return st ? st : vocab_id(ld, t, sep, "post_processor's last token", &in_vocab);
}

static int longest_first(const void *a, const void *b) {
    size_t la = ((const wp_added *)a)->len, lb = ((const wp_added *)b)->len;
    return la < lb ? 1 : la > lb ? -1 : 0;
}

/* One added token: matched on the raw text, so only normalized: false without lstrip/rstrip/single_word. */
static wk_status load_added_one(const wp_ld *ld, json_t *tok, wp_added *out) {
    json_t *content = NULL, *id = NULL;
    bool normalized = false, lstrip = false, rstrip = false, single = false;
    wk_status st = field(ld, tok, "an added token", "content", JSON_STRING, &content);
    if (!st) st = field(ld, tok, "an added token", "id", JSON_INTEGER, &id);
    if (!st) st = bool_field(ld, tok, "an added token", "normalized", &normalized);
    if (!st && json_object_get(tok, "lstrip")) st = bool_field(ld, tok, "an added token", "lstrip", &lstrip);
    if (!st && json_object_get(tok, "rstrip")) st = bool_field(ld, tok, "an added token", "rstrip", &rstrip);
    if (!st && json_object_get(tok, "single_word"))
        st = bool_field(ld, tok, "an added token", "single_word", &single);
    if (st) return st;
    const char *text = json_string_value(content);
    const char *flag = normalized ? "normalized" : lstrip ? "lstrip" : rstrip ? "rstrip" : NULL;
    if (single) flag = "single_word";
    if (flag)
        return wp_fail(ld->err, ld->cap, WK_ERR_UNSUPPORTED,
                       "%s: added token \"%s\" has %s true, which is not supported (only raw-text matches)", ld->path,
                       text, flag);
    if (json_string_length(content) == 0)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: an added token is empty", ld->path);
    if (json_integer_value(id) < 0 || json_integer_value(id) > INT32_MAX)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: added token \"%s\" has an id out of range", ld->path, text);
    out->len = json_string_length(content);
    out->content = malloc(out->len + 1);
    if (!out->content) return wp_fail(ld->err, ld->cap, WK_ERR_OUT_OF_MEMORY, "%s: out of memory", ld->path);
    memcpy(out->content, text, out->len + 1);
    out->id = (int32_t)json_integer_value(id);
    return WK_OK;
}

static wk_status load_added(const wp_ld *ld, json_t *root, wp_tokenizer *t) {
    json_t *arr = json_object_get(root, "added_tokens");
    if (!arr || json_is_null(arr)) return WK_OK;
    if (!json_is_array(arr))
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: \"added_tokens\" is not an array", ld->path);
    size_t n = json_array_size(arr);
    t->added = calloc(n ? n : 1, sizeof *t->added);
    if (!t->added) return wp_fail(ld->err, ld->cap, WK_ERR_OUT_OF_MEMORY, "%s: out of memory", ld->path);
    for (size_t i = 0; i < n; i++) {
        json_t *tok = json_array_get(arr, i);
        if (!json_is_object(tok))
            return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: added_tokens[%zu] is not an object", ld->path, i);
        wk_status st = load_added_one(ld, tok, &t->added[i]);
        if (st) return st;
        t->added_first[(unsigned char)t->added[i].content[0]] = true;
        t->n_added++;
    }
    qsort(t->added, t->n_added, sizeof *t->added, longest_first);
    return WK_OK;
}

/* padding.pad_id when tokenizer.json has padding, else the vocabulary's "[PAD]". */
static wk_status load_pad(const wp_ld *ld, json_t *root, wp_tokenizer *t) {
    json_t *pad = json_object_get(json_object_get(root, "padding"), "pad_id");
    if (!pad) return vocab_id(ld, t, "[PAD]", "padding token", &t->pad_id);
    if (!json_is_integer(pad) || json_integer_value(pad) < 0 || json_integer_value(pad) > INT32_MAX)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: padding's \"pad_id\" is not an id", ld->path);
    t->pad_id = (int32_t)json_integer_value(pad);
    return WK_OK;
}

static wk_status load_root(const wp_ld *ld, json_t **root) {
    FILE *f = fopen(ld->path, "rb");
    if (!f) return wp_fail(ld->err, ld->cap, WK_ERR_IO, "%s: cannot open: %s", ld->path, strerror(errno));
    json_error_t jerr;
    *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    fclose(f);
    if (!*root)
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: not JSON: line %d: %s", ld->path, jerr.line, jerr.text);
    if (!json_is_object(*root))
        return wp_fail(ld->err, ld->cap, WK_ERR_FILE, "%s: the JSON is not an object", ld->path);
    return WK_OK;
}

wk_status wp_load(const char *path, wp_tokenizer **out, char *err, size_t cap) {
    if (err && cap) err[0] = '\0';
    if (!path || !out) return wp_fail(err, cap, WK_ERR_INVALID_ARGUMENT, "wp_load: NULL %s", path ? "out" : "path");
    *out = NULL;
    wp_ld ld = {.path = path, .err = err, .cap = cap};
    json_t *root = NULL;
    wp_tokenizer *t = calloc(1, sizeof *t);
    if (!t) return wp_fail(err, cap, WK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    wk_status st = load_root(&ld, &root);
    if (!st) st = load_normalizer(&ld, root, &t->norm);
    const char *type;
    json_t *sec;
    if (!st) st = typed_section(&ld, root, "pre_tokenizer", "BertPreTokenizer", NULL, &sec, &type);
    if (!st) st = load_model(&ld, root, t);
    if (!st) st = load_post(&ld, root, t);
    if (!st) st = load_added(&ld, root, t);
    if (!st) st = load_pad(&ld, root, t);
    json_decref(root);
    if (st) {
        wp_free(t);
        return st;
    }
    *out = t;
    return WK_OK;
}
