/* tok_tool.c: the C side of tests/models/test_tokenizer.py (models/tokenizer.h). `tok_tool MODEL info` prints the
 * vocabulary's kind, size, BOS, EOS and whether BOS is added; `encode` reads one JSON string a line and prints its
 * ids (comma-separated, BOS as the vocabulary says; `encode-special` also parses control tokens); `decode` reads
 * comma-separated ids a line and prints the text's bytes in hex. A failure prints its message to stderr, exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tokenizer.h"

static int encode_line(const wm_tokenizer *t, const char *line, bool special, char *err, size_t cap)
{
    json_error_t je;
    json_t *j = json_loads(line, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!json_is_string(j)) {
        json_decref(j);
        snprintf(err, cap, "not a JSON string: %s", line);
        return 1;
    }
    int32_t *ids = NULL;
    int n = 0;
    wk_status s = wm_tokenizer_encode(t, json_string_value(j), json_string_length(j), wm_tokenizer_adds_bos(t),
                                      special, &ids, &n, err, cap);
    json_decref(j);
    for (int i = 0; s == WK_OK && i < n; i++)
        printf(i ? ",%d" : "%d", ids[i]);
    printf("\n");
    free(ids);
    return s != WK_OK;
}

static int decode_line(const wm_tokenizer *t, char *line, char *err, size_t cap)
{
    int32_t *ids = malloc(sizeof(int32_t) * (strlen(line) / 2 + 1));
    int n = 0;
    for (char *p = line, *end; ids && *p && *p != '\n'; p = *end == ',' ? end + 1 : end) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        ids[n++] = (int32_t)v;
    }
    char *text = NULL;
    size_t len = 0;
    wk_status s = ids ? wm_tokenizer_decode(t, ids, n, &text, &len, err, cap) : WK_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; s == WK_OK && i < len; i++)
        printf("%02x", (unsigned char)text[i]);
    printf("\n");
    free(ids);
    free(text);
    return s != WK_OK;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "info") && strcmp(argv[2], "encode") && strcmp(argv[2], "encode-special") &&
                      strcmp(argv[2], "decode"))) {
        fprintf(stderr, "usage: tok_tool MODEL info|encode|encode-special|decode < lines\n");
        return 2;
    }
    char err[512] = "";
    wm_tokenizer *t = NULL;
    int rc = wm_tokenizer_load(argv[1], &t, err, sizeof err) != WK_OK;
    if (!rc && !strcmp(argv[2], "info"))
        printf("%s|%d|%d|%d|%d\n", wm_tokenizer_kind(t), wm_tokenizer_size(t), wm_tokenizer_bos(t), wm_tokenizer_eos(t),
               wm_tokenizer_adds_bos(t));
    size_t cap = 1 << 20;
    char *line = rc || !strcmp(argv[2], "info") ? NULL : malloc(cap);
    while (line && !rc && fgets(line, (int)cap, stdin))
        rc = argv[2][0] == 'e' ? encode_line(t, line, !strcmp(argv[2], "encode-special"), err, sizeof err)
                               : decode_line(t, line, err, sizeof err);
    free(line);
    wm_tokenizer_free(t);
    if (rc)
        fprintf(stderr, "tok_tool: %s\n", err);
    return rc;
}
