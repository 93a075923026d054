/* test_wordpiece.c: models/wordpiece.h in C: every error of wp_load and wp_encode (each naming what is wrong), and
 * a handmade tokenizer.json (a 30-token vocab, written by the test) for greedy pieces, [UNK], added tokens, limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "wordpiece.h"

#define TMP_JSON "test_wordpiece_tmp.json"

/* The handmade vocabulary: "unaff" and "##able" against "un" + "##aff" + "##able" (greedy takes the longest
 * first piece), "play" + "##ing", 4-char Greek pieces (chars, not bytes, against max_input_chars_per_word). */
static const char *const vocab_tokens[] = {
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un",   "##aff", "##able", "unaff", "play",
    "##ing", "##in",  "##g",   "hi",    ",",      "!",    "中",    "αβγδ",   "##αβγδ", "a",
    "##a",   "the",   "[",     "]",     "mask",   "cafe", "##s",   "i",      "##̇",    "x",
};
#define VOCAB_N ((int)(sizeof vocab_tokens / sizeof vocab_tokens[0]))
enum { PAD, UNK, CLS, SEP, MASK, UN, AFF, ABLE, UNAFF, PLAY, ING, IN, G, HI, COMMA, BANG, ZHONG, GREEK, GREEK2, A,
       A2, THE, LBR, RBR, MASKW, CAFE, S2, I_, DOT2, X_ };

_Static_assert(PAD == 0 && SEP == 3 && CLS == 2 && MASK == 4, "base_json's ids");

/* The handmade tokenizer.json, without its vocab (added by base_config): [MASK] and [SEP] as added tokens. */
static const char base_json[] =
    "{\"version\": \"1.0\", \"truncation\": null,"
    " \"added_tokens\": ["
    "   {\"id\": 4, \"content\": \"[MASK]\", \"single_word\": false, \"lstrip\": false, \"rstrip\": false,"
    "    \"normalized\": false, \"special\": true},"
    "   {\"id\": 3, \"content\": \"[SEP]\", \"single_word\": false, \"lstrip\": false, \"rstrip\": false,"
    "    \"normalized\": false, \"special\": true}],"
    " \"normalizer\": {\"type\": \"BertNormalizer\", \"clean_text\": true, \"handle_chinese_chars\": true,"
    "   \"strip_accents\": null, \"lowercase\": true},"
    " \"pre_tokenizer\": {\"type\": \"BertPreTokenizer\"},"
    " \"post_processor\": {\"type\": \"TemplateProcessing\","
    "   \"single\": [{\"SpecialToken\": {\"id\": \"[CLS]\", \"type_id\": 0}},"
    "              {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}},"
    "              {\"SpecialToken\": {\"id\": \"[SEP]\", \"type_id\": 0}}],"
    "   \"special_tokens\": {\"[CLS]\": {\"id\": \"[CLS]\", \"ids\": [2], \"tokens\": [\"[CLS]\"]},"
    "                      \"[SEP]\": {\"id\": \"[SEP]\", \"ids\": [3], \"tokens\": [\"[SEP]\"]}}},"
    " \"model\": {\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", \"continuing_subword_prefix\": \"##\","
    "   \"max_input_chars_per_word\": 9},"
    " \"padding\": {\"pad_id\": 0, \"pad_token\": \"[PAD]\"}}";

/* The handmade tokenizer.json as an object that a test may change before writing it. */
static json_t *base_config(void) {
    json_error_t jerr;
    json_t *cfg = json_loads(base_json, 0, &jerr), *vocab = json_object();
    if (!cfg) printf("base_json: %s\n", jerr.text);
    for (int i = 0; i < VOCAB_N; i++) json_object_set_new(vocab, vocab_tokens[i], json_integer(i));
    json_object_set_new(json_object_get(cfg, "model"), "vocab", vocab);
    return cfg;
}

/* Writes cfg (and takes it) to TMP_JSON and loads it. */
static wk_status load_config(json_t *cfg, wp_tokenizer **t, char *err, size_t cap) {
    int bad = !cfg || json_dump_file(cfg, TMP_JSON, JSON_COMPACT) != 0;
    json_decref(cfg);
    if (bad) return WK_ERR_INTERNAL;
    return wp_load(TMP_JSON, t, err, cap);
}

/* In cfg[section] (cfg itself when section is NULL): key = val (taken), or key deleted when val is NULL.
 * Returns cfg. */
static json_t *edit(json_t *cfg, const char *section, const char *key, json_t *val) {
    json_t *obj = section ? json_object_get(cfg, section) : cfg;
    if (val)
        json_object_set_new(obj, key, val);
    else
        json_object_del(obj, key);
    return cfg;
}

/* Loading cfg fails with status, and the message holds each of want1, want2 (NULL: not checked). */
static void expect_load_error(json_t *cfg, wk_status status, const char *want1, const char *want2, const char *what) {
    char err[512] = "untouched";
    wp_tokenizer *t = (wp_tokenizer *)&err; /* must come back NULL */
    wk_status st = load_config(cfg, &t, err, sizeof err);
    CHECK(st == status, "%s: status %s, want %s (%s)", what, wk_status_string(st), wk_status_string(status), err);
    CHECK(t == NULL, "%s: *out not NULL after a failure", what);
    CHECK(!want1 || strstr(err, want1), "%s: message \"%s\" lacks \"%s\"", what, err, want1);
    CHECK(!want2 || strstr(err, want2), "%s: message \"%s\" lacks \"%s\"", what, err, want2);
    CHECK(strchr(err, '\n') == NULL, "%s: message is not one line", what);
    if (st == WK_OK) wp_free(t);
}

static void test_load_file_errors(void) {
    char err[256];
    wp_tokenizer *t = NULL;
    CHECK(wp_load(NULL, &t, err, sizeof err) == WK_ERR_INVALID_ARGUMENT && strstr(err, "path"), "NULL path: %s", err);
    CHECK(wp_load(TMP_JSON, NULL, err, sizeof err) == WK_ERR_INVALID_ARGUMENT && strstr(err, "out"), "NULL out: %s",
          err);
    wk_status st = wp_load("no/such/dir/tokenizer.json", &t, err, sizeof err);
    CHECK(st == WK_ERR_IO && strstr(err, "no/such/dir/tokenizer.json"), "missing file: %s %s", wk_status_string(st),
          err);
    FILE *f = fopen(TMP_JSON, "wb");
    CHECK(f != NULL, "cannot write %s", TMP_JSON);
    if (f) {
        fputs("{\"model\": {\"type\": \"WordPiece\",", f);
        fclose(f);
    }
    st = wp_load(TMP_JSON, &t, err, sizeof err);
    CHECK(st == WK_ERR_FILE && strstr(err, "not JSON"), "truncated JSON: %s %s", wk_status_string(st), err);
    expect_load_error(json_pack("[i, i]", 1, 2), WK_ERR_FILE, "not an object", NULL, "JSON array");
    expect_load_error(json_object(), WK_ERR_FILE, "normalizer", NULL, "empty object");
    /* A message longer than cap: cut, NUL-terminated. */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    st = wp_load("no/such/dir/tokenizer.json", &t, tiny, sizeof tiny);
    CHECK(st == WK_ERR_IO && tiny[7] == '\0' && strlen(tiny) == 7, "cap 8: \"%.8s\"", tiny);
    CHECK(wp_load("no/such/file", &t, NULL, 0) == WK_ERR_IO, "NULL err, cap 0");
}

static void test_section_errors(void) {
    json_t *c;
    expect_load_error(edit(base_config(), NULL, "normalizer", NULL), WK_ERR_FILE, "\"normalizer\"", "BertNormalizer",
                      "no normalizer");
    expect_load_error(edit(base_config(), "normalizer", "type", json_string("Lowercase")), WK_ERR_UNSUPPORTED,
                      "\"Lowercase\"", "BertNormalizer", "normalizer type");
    expect_load_error(edit(base_config(), "normalizer", "clean_text", NULL), WK_ERR_FILE, "\"clean_text\"", NULL,
                      "no clean_text");
    expect_load_error(edit(base_config(), "normalizer", "lowercase", json_string("yes")), WK_ERR_FILE,
                      "\"lowercase\"", "not a bool", "lowercase a string");
    expect_load_error(edit(base_config(), "normalizer", "strip_accents", NULL), WK_ERR_FILE, "\"strip_accents\"", NULL,
                      "no strip_accents");
    expect_load_error(edit(base_config(), "normalizer", "strip_accents", json_integer(1)), WK_ERR_FILE,
                      "\"strip_accents\"", "bool or null", "strip_accents an integer");
    expect_load_error(edit(base_config(), NULL, "pre_tokenizer", json_null()), WK_ERR_FILE, "\"pre_tokenizer\"", NULL,
                      "null pre_tokenizer");
    expect_load_error(edit(base_config(), "pre_tokenizer", "type", json_string("Whitespace")), WK_ERR_UNSUPPORTED,
                      "\"Whitespace\"", "BertPreTokenizer", "pre_tokenizer type");
    expect_load_error(edit(base_config(), "pre_tokenizer", "type", NULL), WK_ERR_FILE, "\"type\"", NULL,
                      "pre_tokenizer without type");
    expect_load_error(edit(base_config(), NULL, "model", NULL), WK_ERR_FILE, "\"model\"", NULL, "no model");
    expect_load_error(edit(base_config(), "model", "type", json_string("BPE")), WK_ERR_UNSUPPORTED, "\"BPE\"",
                      "WordPiece", "model type");
    expect_load_error(edit(base_config(), "model", "vocab", NULL), WK_ERR_FILE, "\"vocab\"", NULL, "no vocab");
    expect_load_error(edit(base_config(), "model", "vocab", json_array()), WK_ERR_FILE, "\"vocab\"", "not an object",
                      "vocab an array");
    expect_load_error(edit(base_config(), "model", "unk_token", NULL), WK_ERR_FILE, "\"unk_token\"", NULL, "no unk");
    expect_load_error(edit(base_config(), "model", "continuing_subword_prefix", NULL), WK_ERR_FILE,
                      "\"continuing_subword_prefix\"", NULL, "no prefix");
    expect_load_error(edit(base_config(), "model", "max_input_chars_per_word", NULL), WK_ERR_FILE,
                      "\"max_input_chars_per_word\"", NULL, "no max chars");
    expect_load_error(edit(base_config(), "model", "max_input_chars_per_word", json_integer(-1)), WK_ERR_FILE,
                      "max_input_chars_per_word", "negative", "negative max chars");
    c = base_config();
    json_object_set_new(json_object_get(json_object_get(c, "model"), "vocab"), "bad", json_integer(-3));
    expect_load_error(c, WK_ERR_FILE, "\"bad\"", NULL, "negative vocab id");
    c = base_config();
    json_object_set_new(json_object_get(json_object_get(c, "model"), "vocab"), "bad", json_string("7"));
    expect_load_error(c, WK_ERR_FILE, "\"bad\"", NULL, "string vocab id");
}

/* The vocabulary without token: the load fails naming it. */
static void expect_missing_token(const char *token, const char *role) {
    json_t *c = base_config();
    json_object_del(json_object_get(json_object_get(c, "model"), "vocab"), token);
    if (strcmp(token, "[PAD]") == 0) json_object_del(c, "padding");
    expect_load_error(c, WK_ERR_FILE, token, role, token);
}

static void test_special_errors(void) {
    expect_missing_token("[UNK]", "unk_token");
    expect_missing_token("[CLS]", "post_processor");
    expect_missing_token("[SEP]", "post_processor");
    expect_missing_token("[PAD]", "padding");
    expect_load_error(edit(base_config(), NULL, "post_processor", NULL), WK_ERR_FILE, "\"post_processor\"", NULL,
                      "no post_processor");
    expect_load_error(edit(base_config(), "post_processor", "type", json_string("RobertaProcessing")),
                      WK_ERR_UNSUPPORTED, "\"RobertaProcessing\"", "BertProcessing", "post_processor type");
    json_t *c = base_config();
    json_array_append_new(json_object_get(json_object_get(c, "post_processor"), "single"), json_object());
    expect_load_error(c, WK_ERR_UNSUPPORTED, "single template", NULL, "4-item template");
    c = base_config();
    json_object_del(json_object_get(json_object_get(c, "post_processor"), "special_tokens"), "[SEP]");
    expect_load_error(c, WK_ERR_UNSUPPORTED, "single template", NULL, "template token without ids");
    c = edit(base_config(), "post_processor", "type", json_string("BertProcessing"));
    expect_load_error(c, WK_ERR_FILE, "\"cls\"", NULL, "BertProcessing without cls");
    const char *flags[] = {"normalized", "lstrip", "rstrip", "single_word"};
    for (int i = 0; i < 4; i++) {
        c = base_config();
        json_object_set_new(json_array_get(json_object_get(c, "added_tokens"), 1), flags[i], json_true());
        expect_load_error(c, WK_ERR_UNSUPPORTED, "\"[SEP]\"", flags[i], flags[i]);
    }
    c = base_config();
    json_object_del(json_array_get(json_object_get(c, "added_tokens"), 0), "content");
    expect_load_error(c, WK_ERR_FILE, "\"content\"", NULL, "added token without content");
    expect_load_error(edit(base_config(), NULL, "added_tokens", json_string("x")), WK_ERR_FILE, "added_tokens", NULL,
                      "added_tokens a string");
    expect_load_error(edit(base_config(), "padding", "pad_id", json_string("0")), WK_ERR_FILE, "pad_id", NULL,
                      "pad_id a string");
}

/* Encodes text (NUL-terminated unless len is given) and compares with want (n ids). */
static void expect_ids(const wp_tokenizer *t, const char *text, size_t len, int max_tokens, const int32_t *want,
                       int n, const char *what) {
    int32_t ids[512];
    int got = -1;
    char err[256] = "";
    wk_status st = wp_encode(t, text, len, max_tokens, ids, &got, err, sizeof err);
    CHECK(st == WK_OK, "%s: %s %s", what, wk_status_string(st), err);
    if (st != WK_OK) return;
    int same = got == n;
    for (int i = 0; same && i < n; i++) same = ids[i] == want[i];
    CHECK(same, "%s: got %d ids, want %d", what, got, n);
    if (!same)
        for (int i = 0; i < got && i < 64; i++) printf("  [%d] got %d want %d\n", i, ids[i], i < n ? want[i] : -1);
}

#define IDS(...) ((const int32_t[]){__VA_ARGS__}), (int)(sizeof((const int32_t[]){__VA_ARGS__}) / sizeof(int32_t))
#define EXPECT(t, text, max, what, ...) expect_ids(t, text, strlen(text), max, IDS(__VA_ARGS__), what)

static void test_pieces(const wp_tokenizer *t) {
    EXPECT(t, "", 16, "empty text", CLS, SEP);
    EXPECT(t, " \t\n ", 16, "whitespace only", CLS, SEP);
    EXPECT(t, "unaffable", 16, "greedy: unaff ##able, not un ##aff ##able", CLS, UNAFF, ABLE, SEP);
    EXPECT(t, "playing", 16, "play ##ing", CLS, PLAY, ING, SEP);
    EXPECT(t, "plaything", 16, "a word with no full match is one [UNK]", CLS, UNK, SEP);
    EXPECT(t, "unplay", 16, "un then no ##play: [UNK], not un [UNK]", CLS, UNK, SEP);
    EXPECT(t, "Hi, PLAYING!", 16, "lowercase and punctuation", CLS, HI, COMMA, PLAY, ING, BANG, SEP);
    EXPECT(t, "hi,,!hi", 16, "each punctuation char a word", CLS, HI, COMMA, COMMA, BANG, HI, SEP);
    EXPECT(t, "play中play", 16, "CJK ideograph split off", CLS, PLAY, ZHONG, PLAY, SEP);
    EXPECT(t, "Café Cafés", 16, "accents stripped", CLS, CAFE, CAFE, S2, SEP);
    EXPECT(t, "cafe\xcc\x81", 16, "combining acute stripped", CLS, CAFE, SEP);
    EXPECT(t, "pl\x07""ay\xe2\x80\x8bing", 16, "control and format chars dropped", CLS, PLAY, ING, SEP);
    EXPECT(t, "hi\xc2\xa0hi\xe3\x80\x80hi", 16, "NBSP and ideographic space split", CLS, HI, HI, HI, SEP);
    expect_ids(t, "pl\0aying", 8, 16, IDS(CLS, PLAY, ING, SEP), "NUL dropped");
    EXPECT(t, "playinggg", 16, "9 chars: pieces", CLS, PLAY, ING, G, G, SEP);
    EXPECT(t, "playingggg", 16, "10 chars > max_input_chars_per_word: [UNK]", CLS, UNK, SEP);
    EXPECT(t, "αβγδαβγδ", 16, "8 chars of 2 bytes: pieces", CLS, GREEK, GREEK2, SEP);
    EXPECT(t, "αβγδαβγδαβγδ", 16, "12 chars: [UNK]", CLS, UNK, SEP);
    EXPECT(t, "the [MASK] hi[SEP]hi", 16, "added tokens matched in the raw text", CLS, THE, MASK, HI, SEP, HI, SEP);
    EXPECT(t, "[mask] [MASK", 16, "not an added token: lowercase, unclosed", CLS, LBR, MASKW, RBR, LBR, MASKW, SEP);
    EXPECT(t, "İ", 16, "U+0130: NFD then lowercase", CLS, I_, SEP);
    EXPECT(t, "xyz", 16, "unknown word", CLS, UNK, SEP);
}

static void test_truncation(const wp_tokenizer *t) {
    EXPECT(t, "play play play play", 6, "all fit", CLS, PLAY, PLAY, PLAY, PLAY, SEP);
    EXPECT(t, "play play play play", 5, "cut to 3 pieces", CLS, PLAY, PLAY, PLAY, SEP);
    EXPECT(t, "playing playing", 4, "cut inside a word", CLS, PLAY, ING, SEP);
    EXPECT(t, "playing", 2, "max_tokens 2", CLS, SEP);
    EXPECT(t, "the [MASK] [MASK]", 4, "cut at an added token", CLS, THE, MASK, SEP);
    /* A long text: chunked reading stops early and still gives the right first pieces. */
    size_t n = 20000;
    char *text = malloc(5 * n + 1);
    CHECK(text != NULL, "malloc");
    if (!text) return;
    for (size_t i = 0; i < n; i++) memcpy(text + 5 * i, i % 2 ? "hi,  " : "play ", 5);
    text[5 * n] = '\0';
    EXPECT(t, text, 7, "long text", CLS, PLAY, HI, COMMA, PLAY, HI, SEP);
    int32_t ids[512];
    int got = 0;
    wk_status st = wp_encode(t, text, 5 * n, 512, ids, &got, NULL, 0);
    CHECK(st == WK_OK && got == 512 && ids[511] == SEP && ids[510] == COMMA, "long text at 512: %d ids", got);
    free(text);
}

/* Texts built to be slow: 200000 combining marks in one run (canonical ordering) and 100000 '[' (the added-token
 * scan) must take linear time. */
static void test_long_runs(const wp_tokenizer *t) {
    size_t n = 100000;
    char *text = malloc(4 * n + 2);
    CHECK(text != NULL, "malloc");
    if (!text) return;
    text[0] = 'a';
    for (size_t i = 0; i < n; i++) memcpy(text + 1 + 4 * i, "\xcc\x81\xcc\x96", 4); /* U+0301 (230), U+0316 (220) */
    text[4 * n + 1] = '\0';
    EXPECT(t, text, 8, "a + 200000 marks", CLS, A, SEP);
    memset(text, '[', n);
    text[n] = '\0';
    EXPECT(t, text, 4, "100000 '['", CLS, LBR, LBR, SEP);
    free(text);
}

static void test_encode_errors(const wp_tokenizer *t) {
    int32_t ids[8];
    int n = 0;
    char err[256];
    CHECK(wp_encode(NULL, "a", 1, 8, ids, &n, err, sizeof err) == WK_ERR_INVALID_ARGUMENT && strstr(err, "tokenizer"),
          "NULL tokenizer: %s", err);
    CHECK(wp_encode(t, "a", 1, 8, NULL, &n, err, sizeof err) == WK_ERR_INVALID_ARGUMENT && strstr(err, "ids"),
          "NULL ids: %s", err);
    CHECK(wp_encode(t, "a", 1, 8, ids, NULL, err, sizeof err) == WK_ERR_INVALID_ARGUMENT, "NULL n: %s", err);
    CHECK(wp_encode(t, NULL, 1, 8, ids, &n, err, sizeof err) == WK_ERR_INVALID_ARGUMENT && strstr(err, "text"),
          "NULL text: %s", err);
    CHECK(wp_encode(t, NULL, 0, 8, ids, &n, err, sizeof err) == WK_OK && n == 2, "NULL empty text: %s", err);
    const int bad_max[] = {1, 0, -5};
    for (int i = 0; i < 3; i++)
        CHECK(wp_encode(t, "a", 1, bad_max[i], ids, &n, err, sizeof err) == WK_ERR_INVALID_ARGUMENT &&
                  strstr(err, "max_tokens"),
              "max_tokens %d: %s", bad_max[i], err);
    static const struct {
        const char *bytes;
        size_t at; /* the offset the message names */
    } bad[] = {
        {"ab\x80", 2},            {"\xc0\xaf", 0},     {"a\xe0\x80\xaf", 1},  {"\xed\xa0\x80", 0},
        {"\xf4\x90\x80\x80", 0},  {"hi\xe2\x82", 2},   {"\xf5\x80\x80\x80", 0}, {"\xff", 0},
        {"ok [MASK]\xc3(", 9},    {"\xc3", 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "byte %zu", bad[i].at);
        wk_status st = wp_encode(t, bad[i].bytes, strlen(bad[i].bytes), 8, ids, &n, err, sizeof err);
        CHECK(st == WK_ERR_INVALID_ARGUMENT && strstr(err, "UTF-8") && strstr(err, want), "invalid UTF-8 #%zu: %s %s",
              i, wk_status_string(st), err);
    }
    CHECK(wp_pad_id(t) == PAD && wp_pad_id(NULL) == 0, "pad id %d", wp_pad_id(t));
}

/* The same vocabulary through other settings: BertProcessing, no padding section, another prefix, long words. */
static void test_variants(void) {
    char err[256];
    wp_tokenizer *t = NULL;
    json_t *c = edit(base_config(), NULL, "post_processor",
                     json_pack("{s:s, s:[s, i], s:[s, i]}", "type", "BertProcessing", "sep", "[SEP]", SEP, "cls",
                               "[CLS]", CLS));
    edit(c, NULL, "padding", NULL);
    CHECK(load_config(c, &t, err, sizeof err) == WK_OK, "BertProcessing: %s", err);
    if (t) {
        EXPECT(t, "unaffable", 8, "BertProcessing", CLS, UNAFF, ABLE, SEP);
        CHECK(wp_pad_id(t) == PAD, "pad id from the vocab: %d", wp_pad_id(t));
        wp_free(t);
    }
    t = NULL;
    CHECK(load_config(edit(base_config(), "model", "continuing_subword_prefix", json_string("@@")), &t, err,
                      sizeof err) == WK_OK, "prefix @@: %s", err);
    if (t) {
        EXPECT(t, "playing play", 8, "no @@ pieces: [UNK]", CLS, UNK, PLAY, SEP);
        wp_free(t);
    }
    t = NULL;
    c = edit(base_config(), "model", "max_input_chars_per_word", json_integer(1000));
    edit(c, "normalizer", "strip_accents", json_false());
    CHECK(load_config(c, &t, err, sizeof err) == WK_OK, "long words: %s", err);
    if (t) {
        char word[301];
        memset(word, 'a', 300);
        word[300] = '\0';
        int32_t want[302];
        want[0] = CLS;
        want[1] = A;
        for (int i = 2; i < 301; i++) want[i] = A2;
        want[301] = SEP;
        expect_ids(t, word, 300, 302, want, 302, "a word of 300 pieces");
        want[299] = SEP;
        expect_ids(t, word, 300, 300, want, 300, "a word of 300 pieces cut to 298");
        EXPECT(t, "İ", 8, "U+0130 lowercased alone: i + U+0307", CLS, I_, DOT2, SEP);
        EXPECT(t, "Cafés", 8, "accents kept: no match", CLS, UNK, SEP);
        EXPECT(t, "αβγδαβγδαβγδ", 8, "12 chars under a limit of 1000", CLS, GREEK, GREEK2, GREEK2, SEP);
        wp_free(t);
    }
}

int main(void) {
    test_load_file_errors();
    test_section_errors();
    test_special_errors();
    char err[256];
    wp_tokenizer *t = NULL;
    wk_status st = load_config(base_config(), &t, err, sizeof err);
    CHECK(st == WK_OK && t != NULL, "handmade tokenizer: %s %s", wk_status_string(st), err);
    if (t) {
        test_pieces(t);
        test_truncation(t);
        test_long_runs(t);
        test_encode_errors(t);
        wp_free(t);
    }
    test_variants();
    wp_free(NULL);
    remove(TMP_JSON);
    printf("test_wordpiece: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
