/* cmd_generate.c: `wick generate MODEL`: greedy text generation with a Llama-architecture model (models/llama.h)
 * from prompt token ids; the new ids on stdout, prefill and decode tokens per second on stderr. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#ifdef WICK_HAVE_MODELS
#include "llama.h"

typedef struct gen_opts {
    const char *model, *logits_path;
    llama_options lo;
    int32_t prompt[4096];
    int n_prompt, n_new;
    bool warmup;
} gen_opts;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* "1,2,3" into ids; false on anything but non-negative integers, or more than cap of them. */
static bool parse_ids(const char *s, int32_t *ids, int cap, int *n)
{
    *n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > INT32_MAX || *n == cap || (*end && *end != ','))
            return false;
        ids[(*n)++] = (int32_t)v;
        s = *end ? end + 1 : end;
    }
    return *n > 0;
}

static int parse(int argc, char **argv, gen_opts *o)
{
    o->n_new = 16;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        uint64_t x;
        if ((r = cli_value_option(argc, argv, &i, "--device", &o->lo.device)) != 0 ||
            (r = cli_value_option(argc, argv, &i, "--logits", &o->logits_path)) != 0) {
            if (r < 0)
                return CLI_USAGE;
        } else if ((r = cli_value_option(argc, argv, &i, "--dtype", &v)) != 0) {
            if (r < 0 || wk_dtype_from_name(v, &o->lo.dtype) != WK_OK)
                return CLI_USAGE;
        } else if ((r = cli_value_option(argc, argv, &i, "--prompt-ids", &v)) != 0) {
            if (r < 0 || !parse_ids(v, o->prompt, 4096, &o->n_prompt))
                return CLI_USAGE;
        } else if ((r = cli_value_option(argc, argv, &i, "-n", &v)) != 0) {
            if (r < 0 || !cli_parse_u64(v, &x) || x < 1 || x > 1000000)
                return CLI_USAGE;
            o->n_new = (int)x;
        } else if ((r = cli_value_option(argc, argv, &i, "--context", &v)) != 0) {
            if (r < 0 || !cli_parse_u64(v, &x) || x < 1 || x > 1000000)
                return CLI_USAGE;
            o->lo.context = (int)x;
        } else if (!strcmp(argv[i], "--warmup")) {
            o->warmup = true;
        } else if (argv[i][0] == '-' || o->model) {
            return CLI_USAGE;
        } else {
            o->model = argv[i];
        }
    }
    return o->model && o->n_prompt > 0 ? CLI_OK : CLI_USAGE;
}

/* Prefill, then n_new greedy steps; the ids are printed as they come. */
static wk_status run(llama_model *m, const gen_opts *o, char *err, size_t cap)
{
    int V = llama_vocab(m);
    float *logits = o->logits_path ? malloc(sizeof(float) * (size_t)o->n_prompt * (size_t)V) : NULL;
    if (o->logits_path && !logits)
        return WK_ERR_OUT_OF_MEMORY;
    int32_t tok;
    if (o->warmup) { /* one untimed prefill, as llama-bench warms up: the vendor libraries' first-call costs */
        wk_status w = llama_forward(m, o->prompt, o->n_prompt, false, NULL, &tok, err, cap);
        llama_reset(m);
        if (w != WK_OK) {
            free(logits);
            return w;
        }
    }
    double t0 = now_s();
    wk_status s = llama_forward(m, o->prompt, o->n_prompt, logits != NULL, logits, &tok, err, cap);
    double t1 = now_s(), t2 = t1;
    if (s == WK_OK && logits) {
        wk_device *cpu = NULL;
        wk_tensor *t = NULL;
        const int64_t shape[2] = {o->n_prompt, V};
        if ((s = wk_device_get("cpu", &cpu)) != WK_OK || (s = wk_tensor_from_host(cpu, WK_F32, 2, shape, logits, &t)) != WK_OK ||
            (s = wk_npy_save(o->logits_path, t)) != WK_OK)
            snprintf(err, cap, "%s", wk_last_error());
        wk_tensor_release(t);
    }
    for (int i = 0; s == WK_OK && i < o->n_new; i++) {
        printf("%s%d", i ? "," : "", tok);
        if (i + 1 < o->n_new)
            s = llama_forward(m, &tok, 1, false, NULL, &tok, err, cap);
        t2 = now_s();
    }
    printf("\n");
    if (s == WK_OK)
        fprintf(stderr, "prefill: %d tokens, %.1f tokens/s; decode: %d tokens, %.1f tokens/s\n", o->n_prompt,
                o->n_prompt / (t1 - t0), o->n_new > 1 ? o->n_new - 1 : 0,
                o->n_new > 1 ? (o->n_new - 1) / (t2 - t1) : 0.0);
    free(logits);
    return s;
}

int cmd_generate(int argc, char **argv)
{
    gen_opts *o = calloc(1, sizeof *o);
    if (!o)
        return CLI_FAILED;
    int rc = parse(argc, argv, o);
    if (rc == CLI_USAGE)
        fprintf(stderr, "usage: wick generate MODEL --prompt-ids 1,2,3 [-n N] [--device D] [--dtype f32|f16|bf16] "
                        "[--context N] [--logits FILE.npy] [--warmup]\n  (greedy; --warmup: an untimed prefill first; MODEL: a Hugging Face directory or a GGUF file)\n");
    char err[512] = "";
    llama_model *m = NULL;
    if (rc == CLI_OK && (llama_load(o->model, &o->lo, &m, err, sizeof err) != WK_OK || run(m, o, err, sizeof err) != WK_OK))
        rc = CLI_FAILED;
    if (rc == CLI_FAILED)
        fprintf(stderr, "wick generate: %s\n", err[0] ? err : "out of memory");
    llama_free(m);
    free(o);
    return rc;
}
#else
int cmd_generate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "wick generate: this build has no models/ (it needs libutf8proc: Debian's libutf8proc-dev)\n");
    return CLI_FAILED;
}
#endif
