/* embed_bench.c: sentences per second of models/bert.h (`wick embed`'s runner) on one device: N texts that each
 * fill exactly T tokens, embedded B at a time, best of several runs after a warm-up (bench/torch_embed.py times
 * sentence-transformers on the same texts).
 *   embed_bench MODEL_DIR [--device cpu] [--dtype f32] [--batch 256] [--tokens 128] [--texts 256] [--iters 5]
 * prints one JSON line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bert.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Text i: a numbered sentence repeated past any token budget (truncation makes every text T tokens). */
static char *make_text(int i)
{
    static const char base[] = " the quick brown fox jumps over the lazy dog";
    size_t cap = 64 + 40 * sizeof base;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    int n = snprintf(t, cap, "sentence %d:", i);
    for (int r = 0; r < 40; r++)
        n += snprintf(t + n, cap - (size_t)n, "%s", base);
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: embed_bench MODEL_DIR [--device D] [--dtype f32|f16|bf16] [--batch N] [--tokens T] "
                        "[--texts N] [--iters N]\n");
        return 2;
    }
    bert_options o = {.device = "cpu", .dtype = WK_F32, .max_tokens = 128};
    int batch = 256, ntexts = 256, iters = 5;
    for (int i = 2; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--device")) o.device = v;
        else if (!strcmp(a, "--dtype") && wk_dtype_from_name(v, &o.dtype) == WK_OK) continue;
        else if (!strcmp(a, "--batch")) batch = atoi(v);
        else if (!strcmp(a, "--tokens")) o.max_tokens = atoi(v);
        else if (!strcmp(a, "--texts")) ntexts = atoi(v);
        else if (!strcmp(a, "--iters")) iters = atoi(v);
        else return 2;
    }
    char err[512];
    bert_model *m = NULL;
    if (bert_load(argv[1], &o, &m, err, sizeof err) != WK_OK) {
        fprintf(stderr, "embed_bench: %s\n", err);
        return 1;
    }
    char **texts = calloc((size_t)ntexts, sizeof *texts);
    float *out = malloc(sizeof(float) * (size_t)ntexts * (size_t)bert_dim(m));
    for (int i = 0; texts && i < ntexts; i++)
        texts[i] = make_text(i);
    double best = 1e30;
    int rc = 0;
    for (int it = 0; it <= iters && out && texts; it++) { /* the first run warms up */
        double t0 = now_s();
        if (bert_embed(m, (const char *const *)texts, NULL, ntexts, batch, out, err, sizeof err) != WK_OK) {
            fprintf(stderr, "embed_bench: %s\n", err);
            rc = 1;
            break;
        }
        double t = now_s() - t0;
        best = it > 0 && t < best ? t : best;
    }
    if (rc == 0)
        printf("{\"impl\": \"wick\", \"device\": \"%s\", \"dtype\": \"%s\", \"batch\": %d, \"tokens\": %d, "
               "\"texts\": %d, \"seconds\": %.4f, \"sentences_per_s\": %.1f}\n",
               o.device, wk_dtype_name(o.dtype), batch, o.max_tokens, ntexts, best, ntexts / best);
    for (int i = 0; texts && i < ntexts; i++)
        free(texts[i]);
    free(texts);
    free(out);
    bert_free(m);
    return rc;
}
