/* cmd_embed.c: `wick embed MODEL_DIR`: sentence embeddings of the lines of stdin or files with a
 * sentence-transformers BERT model (models/bert.h), written as JSON lines or an .npy file. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef WICK_HAVE_MODELS
#include "bert.h"

typedef struct lines {
    char **text;
    size_t *len; /* bytes of each line (a line may hold NUL bytes) */
    int n, cap;
} lines;

static void lines_free(lines *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->text[i]);
    free(l->text);
    free(l->len);
}

/* Appends every line of f (without its "\n" or "\r\n"). */
static bool read_lines(FILE *f, lines *l)
{
    char *buf = NULL;
    size_t cap = 0;
    ssize_t got;
    while ((got = getline(&buf, &cap, f)) >= 0) {
        while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
            buf[--got] = '\0';
        if (l->n == l->cap) {
            int nc = l->cap ? 2 * l->cap : 64;
            char **t = realloc(l->text, sizeof(char *) * (size_t)nc);
            if (t)
                l->text = t;
            size_t *n = t ? realloc(l->len, sizeof(size_t) * (size_t)nc) : NULL;
            if (!n)
                break;
            l->len = n;
            l->cap = nc;
        }
        if (!(l->text[l->n] = malloc((size_t)got + 1)))
            break;
        memcpy(l->text[l->n], buf, (size_t)got + 1);
        l->len[l->n++] = (size_t)got;
    }
    bool ok = !ferror(f) && feof(f);
    free(buf);
    return ok;
}

typedef struct embed_opts {
    const char *dir, *output;
    bert_options model;
    int batch;
} embed_opts;

/* A count in [1, 1000000]. */
static bool parse_count(const char *v, int *out)
{
    uint64_t x;
    if (!cli_parse_u64(v, &x) || x < 1 || x > 1000000)
        return false;
    *out = (int)x;
    return true;
}

static int parse(int argc, char **argv, embed_opts *o, lines *in)
{
    *o = (embed_opts){.model = {.device = "cpu", .dtype = WK_F32}, .batch = 32};
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if ((r = cli_value_option(argc, argv, &i, "--device", &o->model.device)) != 0 ||
            (r = cli_value_option(argc, argv, &i, "--output", &o->output)) != 0) {
            if (r < 0)
                return CLI_USAGE;
        } else if ((r = cli_value_option(argc, argv, &i, "--dtype", &v)) != 0) {
            if (r < 0 || wk_dtype_from_name(v, &o->model.dtype) != WK_OK)
                return CLI_USAGE;
        } else if ((r = cli_value_option(argc, argv, &i, "--batch", &v)) != 0) {
            if (r < 0 || !parse_count(v, &o->batch))
                return CLI_USAGE;
        } else if ((r = cli_value_option(argc, argv, &i, "--max-tokens", &v)) != 0) {
            if (r < 0 || !parse_count(v, &o->model.max_tokens) || o->model.max_tokens < 2)
                return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return CLI_USAGE;
        } else if (!o->dir) {
            o->dir = argv[i];
        } else {
            FILE *f = fopen(argv[i], "rb");
            bool ok = f && read_lines(f, in);
            if (f)
                fclose(f);
            if (!ok) {
                fprintf(stderr, "wick embed: cannot read %s\n", argv[i]);
                return CLI_FAILED;
            }
        }
    }
    return o->dir ? CLI_OK : CLI_USAGE;
}

static int write_output(const embed_opts *o, const float *emb, int n, int dim)
{
    if (o->output) {
        wk_device *cpu = NULL;
        wk_tensor *t = NULL;
        const int64_t shape[2] = {n, dim};
        if (wk_device_get("cpu", &cpu) != WK_OK || wk_tensor_from_host(cpu, WK_F32, 2, shape, emb, &t) != WK_OK ||
            wk_npy_save(o->output, t) != WK_OK) {
            fprintf(stderr, "wick embed: %s\n", wk_last_error());
            wk_tensor_release(t);
            return CLI_FAILED;
        }
        wk_tensor_release(t);
        return CLI_OK;
    }
    for (int i = 0; i < n; i++) {
        printf("{\"index\": %d, \"embedding\": [", i);
        for (int e = 0; e < dim; e++)
            printf("%s%.9g", e ? ", " : "", emb[(size_t)i * (size_t)dim + e]);
        printf("]}\n");
    }
    return fflush(stdout) == 0 ? CLI_OK : CLI_FAILED;
}

int cmd_embed(int argc, char **argv)
{
    embed_opts o;
    lines in = {0};
    int rc = parse(argc, argv, &o, &in);
    if (rc == CLI_USAGE)
        fprintf(stderr, "usage: wick embed MODEL_DIR [--device D] [--dtype f32|f16|bf16] [--batch N] "
                        "[--max-tokens N] [--output FILE.npy] [FILE...]\n");
    if (rc == CLI_OK && in.n == 0 && !read_lines(stdin, &in)) {
        fprintf(stderr, "wick embed: cannot read stdin\n");
        rc = CLI_FAILED;
    }
    char err[512] = "";
    bert_model *m = NULL;
    float *emb = NULL;
    if (rc == CLI_OK && bert_load(o.dir, &o.model, &m, err, sizeof err) != WK_OK)
        rc = CLI_FAILED;
    if (rc == CLI_OK && !(emb = malloc(sizeof(float) * (size_t)bert_dim(m) * (size_t)in.n + 1))) {
        snprintf(err, sizeof err, "no memory for %d embeddings", in.n);
        rc = CLI_FAILED;
    }
    if (rc == CLI_OK && bert_embed(m, (const char *const *)in.text, in.len, in.n, o.batch, emb, err, sizeof err) != WK_OK)
        rc = CLI_FAILED;
    if (rc == CLI_OK)
        rc = write_output(&o, emb, in.n, bert_dim(m));
    else if (err[0])
        fprintf(stderr, "wick embed: %s\n", err);
    free(emb);
    bert_free(m);
    lines_free(&in);
    return rc;
}
#else
int cmd_embed(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "wick embed: this build has no models/ (it needs libutf8proc: Debian's libutf8proc-dev)\n");
    return CLI_FAILED;
}
#endif
