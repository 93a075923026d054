/* wp_tool.c: the C side of tests/models/test_wordpiece.py. Reads texts from stdin, one JSON string a line, and
 * prints one JSON line per text: its ids (wp_encode), or with --words its normalized, pre-tokenized words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "wordpiece.h"
#include "wordpiece_internal.h"

static int usage(void) {
    fprintf(stderr, "usage: wp_tool TOKENIZER_JSON MAX_TOKENS < texts\n"
                    "       wp_tool --words TOKENIZER_JSON < texts\n"
                    "texts: one JSON string a line; prints a JSON array a line, or {\"error\": ...}\n");
    return 2;
}

static void print_error(const char *status, const char *msg) {
    json_t *o = json_pack("{s:s, s:s}", "error", status, "message", msg);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    printf("%s\n", s ? s : "{\"error\": \"out of memory\"}");
    free(s);
    json_decref(o);
}

static int print_ids(const wp_tokenizer *t, const char *text, size_t len, int max_tokens, int32_t *ids) {
    char err[256];
    int n = 0;
    wk_status st = wp_encode(t, text, len, max_tokens, ids, &n, err, sizeof err);
    if (st) {
        print_error(wk_status_string(st), err);
        return 0;
    }
    putchar('[');
    for (int i = 0; i < n; i++) printf(i ? ",%d" : "%d", (int)ids[i]);
    printf("]\n");
    return 0;
}

static int add_word(void *ctx, const char *word, size_t bytes, size_t chars) {
    (void)chars;
    return json_array_append_new(ctx, json_stringn(word, bytes)) ? -1 : 0;
}

static int print_words(const wp_tokenizer *t, const char *text, size_t len) {
    char err[256];
    json_t *arr = json_array();
    if (!arr) return -1;
    wk_status st = wp_text_words(t, text, len, add_word, arr, err, sizeof err);
    char *s = st ? NULL : json_dumps(arr, JSON_COMPACT | JSON_ENSURE_ASCII);
    if (st)
        print_error(wk_status_string(st), err);
    else
        printf("%s\n", s ? s : "[\"out of memory\"]");
    free(s);
    json_decref(arr);
    return 0;
}

/* Each stdin line, decoded from JSON, through print_ids (max_tokens > 0) or print_words. */
static int run(const wp_tokenizer *t, int max_tokens) {
    int32_t *ids = max_tokens > 0 ? malloc((size_t)max_tokens * sizeof *ids) : NULL;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int rc = 0;
    while (rc == 0 && (got = getline(&line, &cap, stdin)) > 0) {
        json_error_t jerr;
        json_t *s = json_loadb(line, (size_t)got, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        if (!json_is_string(s)) {
            fprintf(stderr, "wp_tool: a line is not a JSON string: %s\n", jerr.text);
            rc = 1;
        } else if (max_tokens > 0) {
            rc = ids ? print_ids(t, json_string_value(s), json_string_length(s), max_tokens, ids) : 1;
        } else {
            rc = print_words(t, json_string_value(s), json_string_length(s));
        }
        json_decref(s);
    }
    free(line);
    free(ids);
    return rc;
}

int main(int argc, char **argv) {
    bool words = argc == 3 && strcmp(argv[1], "--words") == 0;
    if (argc != 3) return usage();
    char *end = NULL;
    long max_tokens = words ? 0 : strtol(argv[2], &end, 10);
    if (!words && (*end != '\0' || max_tokens < 1 || max_tokens > 1 << 20)) return usage();
    char err[512];
    wp_tokenizer *t = NULL;
    wk_status st = wp_load(argv[words ? 2 : 1], &t, err, sizeof err);
    if (st) {
        fprintf(stderr, "wp_tool: %s: %s\n", wk_status_string(st), err);
        return 1;
    }
    int rc = run(t, (int)max_tokens);
    wp_free(t);
    return rc;
}
