/* cmd_generate.c: `wick generate MODEL`: text generation with a Llama-architecture model (models/llama.h) from a
 * text prompt (tokenized by the model's vocabulary, models/tokenizer.h) or prompt token ids, greedy or sampled on
 * the device, B copies of the prompt at once; the new text (or ids) on stdout, tokens per second on stderr. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#ifdef WICK_HAVE_MODELS
#include "llama.h"
#include "tokenizer.h"

typedef struct gen_opts {
    const char *model, *logits_path, *text;
    llama_options lo;
    llama_sampling sampling;
    int32_t *prompt; /* batch x n_prompt: B copies */
    int n_prompt, n_new, batch;
    bool warmup, ids_out, have_ids;
} gen_opts;

/* What one run keeps: the vocabulary (NULL: none), the new tokens (batch x n_new) and how many each has. */
typedef struct gen_run {
    wm_tokenizer *tok;
    bool text; /* text out (else ids) */
    int32_t *out;
    int *count, steps;
    bool first; /* no prompt token shows as text: the continuation opens the text */
} gen_run;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* "1,2,3" into a malloc'd array; false on anything but non-negative integers, or more than 1 << 20 of them. */
static bool parse_ids(const char *s, int32_t **ids, int *n)
{
    int cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    free(*ids);
    *ids = cap <= (1 << 20) ? malloc(sizeof(int32_t) * (size_t)cap) : NULL;
    *n = 0;
    while (*ids && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > INT32_MAX || *n == cap || (*end && *end != ','))
            return false;
        (*ids)[(*n)++] = (int32_t)v;
        s = *end ? end + 1 : end;
    }
    return *n > 0;
}

/* A finite float value of an option. */
static bool parse_float(const char *v, float *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x))
        return false;
    *out = (float)x;
    return true;
}

/* The options taking a number: 1 when argv[*i] was one (-1 on a bad value), 0 when it is another option. */
static int number_option(int argc, char **argv, int *i, gen_opts *o)
{
    static const char *const ints[] = {"-n", "--context", "--batch", "--top-k", "--seed"};
    static const char *const floats[] = {"--temperature", "--top-p", "--min-p"};
    const char *v = NULL;
    uint64_t x;
    for (int k = 0; k < 5; k++) {
        int r = cli_value_option(argc, argv, i, ints[k], &v);
        if (r < 0 || (r > 0 && (!cli_parse_u64(v, &x) || (k < 3 && (x < 1 || x > 1000000)))))
            return -1;
        if (r == 0)
            continue;
        if (k == 0)
            o->n_new = (int)x;
        else if (k == 1)
            o->lo.context = (int)x;
        else if (k == 2)
            o->batch = (int)x;
        else if (k == 3)
            o->sampling.top_k = x > INT64_MAX ? INT64_MAX : (int64_t)x;
        else
            o->sampling.seed = x;
        return 1;
    }
    float *fdst[] = {&o->sampling.temperature, &o->sampling.top_p, &o->sampling.min_p};
    for (int k = 0; k < 3; k++) {
        int r = cli_value_option(argc, argv, i, floats[k], &v);
        if (r != 0)
            return r < 0 || !parse_float(v, fdst[k]) ? -1 : 1;
    }
    return 0;
}

static int parse(int argc, char **argv, gen_opts *o)
{
    o->n_new = 16;
    o->batch = 1;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if ((r = number_option(argc, argv, &i, o)) != 0) {
            if (r < 0)
                return CLI_USAGE;
        } else if ((r = cli_value_option(argc, argv, &i, "--device", &o->lo.device)) != 0 ||
                   (r = cli_value_option(argc, argv, &i, "--logits", &o->logits_path)) != 0 ||
                   (r = cli_value_option(argc, argv, &i, "--prompt", &o->text)) != 0) {
            if (r < 0)
                return CLI_USAGE;
        } else if ((r = cli_value_option(argc, argv, &i, "--dtype", &v)) != 0) {
            if (r < 0 || wk_dtype_from_name(v, &o->lo.dtype) != WK_OK)
                return CLI_USAGE;
        } else if ((r = cli_value_option(argc, argv, &i, "--prompt-ids", &v)) != 0) {
            if (r < 0 || !parse_ids(v, &o->prompt, &o->n_prompt))
                return CLI_USAGE;
            o->have_ids = true;
        } else if (!strcmp(argv[i], "--warmup") || !strcmp(argv[i], "--ids")) {
            *(argv[i][2] == 'w' ? &o->warmup : &o->ids_out) = true;
        } else if (argv[i][0] == '-' || o->model) {
            return CLI_USAGE;
        } else {
            o->model = argv[i];
        }
    }
    o->lo.batch = o->batch;
    return o->model && (o->have_ids != (o->text != NULL)) ? CLI_OK : CLI_USAGE;
}

/* The vocabulary when the prompt is text or the output is; a model without one prints ids (an unsupported or
 * damaged one says so first), unless the prompt is text. */
static wk_status vocabulary(const gen_opts *o, gen_run *g, char *err, size_t cap)
{
    if (o->ids_out && !o->text)
        return WK_OK;
    wk_status s = wm_tokenizer_load(o->model, &g->tok, err, cap);
    if (s == WK_OK || o->text)
        return s;
    if (s != WK_ERR_INVALID_ARGUMENT)
        fprintf(stderr, "wick generate: printing token ids: %s\n", err);
    err[0] = 0;
    return WK_OK;
}

/* The prompt: --prompt-ids, or --prompt tokenized; then copied for every sequence of the batch. */
static wk_status prompt(gen_opts *o, gen_run *g, char *err, size_t cap)
{
    if (o->text) {
        wk_status s = wm_tokenizer_encode(g->tok, o->text, strlen(o->text), wm_tokenizer_adds_bos(g->tok), true,
                                          &o->prompt, &o->n_prompt, err, cap);
        if (s != WK_OK)
            return s;
        if (o->n_prompt == 0)
            return snprintf(err, cap, "--prompt gives no tokens"), WK_ERR_INVALID_ARGUMENT;
    }
    g->first = true;
    for (int i = 0; g->tok && i < o->n_prompt; i++)
        g->first = g->first && !wm_tokenizer_shows(g->tok, o->prompt[i]);
    int32_t *all = realloc(o->prompt, sizeof(int32_t) * (size_t)o->n_prompt * (size_t)o->batch);
    if (!all)
        return snprintf(err, cap, "no memory for %d prompts", o->batch), WK_ERR_OUT_OF_MEMORY;
    for (int b = 1; b < o->batch; b++)
        memcpy(all + (size_t)b * o->n_prompt, all, sizeof(int32_t) * (size_t)o->n_prompt);
    o->prompt = all;
    return WK_OK;
}

/* Step i's tokens, one a sequence: kept (in text, a sequence ends at the vocabulary's EOS), and shown as they come
 * when there is one sequence. Returns whether a sequence goes on. */
static bool record(const gen_opts *o, gen_run *g, const int32_t *tok, int i)
{
    bool live = false;
    for (int b = 0; b < o->batch; b++) {
        if (g->count[b] < i || (g->text && tok[b] == wm_tokenizer_eos(g->tok))) /* ended */
            continue;
        g->out[(size_t)b * o->n_new + g->count[b]++] = tok[b];
        live = true;
        if (o->batch > 1)
            continue;
        if (!g->text) {
            printf("%s%d", i ? "," : "", tok[b]);
        } else {
            char piece[4096];
            size_t k = wm_tokenizer_piece(g->tok, tok[b], g->first, piece, sizeof piece);
            g->first = g->first && !wm_tokenizer_shows(g->tok, tok[b]);
            fwrite(piece, 1, k < sizeof piece ? k : sizeof piece, stdout);
        }
        fflush(stdout);
    }
    return live;
}

/* After the last step: one sequence ends its line; a batch prints each sequence (ids: a line each; text: each
 * after a line "--- sequence b ---"). */
static wk_status finish(const gen_opts *o, gen_run *g, char *err, size_t cap)
{
    for (int b = 0; o->batch > 1 && b < o->batch; b++) {
        const int32_t *ids = g->out + (size_t)b * o->n_new;
        if (!g->text) {
            for (int i = 0; i < g->count[b]; i++)
                printf("%s%d", i ? "," : "", ids[i]);
            printf("\n");
            continue;
        }
        char *text = NULL;
        size_t len = 0;
        int32_t *joined = malloc(sizeof(int32_t) * ((size_t)o->n_prompt + (size_t)o->n_new));
        wk_status s = joined ? WK_OK : WK_ERR_OUT_OF_MEMORY;
        if (s == WK_OK) { /* decoded after the prompt, so that a SentencePiece space stays where the text goes on */
            memcpy(joined, o->prompt, sizeof(int32_t) * (size_t)o->n_prompt);
            memcpy(joined + o->n_prompt, ids, sizeof(int32_t) * (size_t)g->count[b]);
            s = wm_tokenizer_decode(g->tok, joined, o->n_prompt + g->count[b], &text, &len, err, cap);
        }
        free(joined);
        if (s != WK_OK)
            return s;
        char *p = NULL;
        size_t plen = 0;
        s = wm_tokenizer_decode(g->tok, o->prompt, o->n_prompt, &p, &plen, err, cap);
        if (s == WK_OK) {
            printf("--- sequence %d ---\n", b);
            fwrite(text + plen, 1, len - plen, stdout);
            printf("\n");
        }
        free(p);
        free(text);
        if (s != WK_OK)
            return s;
    }
    if (o->batch == 1)
        printf("\n");
    return WK_OK;
}

static wk_status save_logits(const gen_opts *o, int V, const float *logits, char *err, size_t cap)
{
    wk_device *cpu = NULL;
    wk_tensor *t = NULL;
    const int64_t shape[3] = {o->batch, o->n_prompt, V};
    int rank = o->batch > 1 ? 3 : 2;
    wk_status s = wk_device_get("cpu", &cpu);
    if (s == WK_OK && (s = wk_tensor_from_host(cpu, WK_F32, rank, shape + 3 - rank, logits, &t)) == WK_OK)
        s = wk_npy_save(o->logits_path, t);
    if (s != WK_OK)
        snprintf(err, cap, "%s", wk_last_error());
    wk_tensor_release(t);
    return s;
}

/* Prefill, then up to n_new steps (each sequence's tokens recorded and shown). */
static wk_status run(llama_model *m, const gen_opts *o, gen_run *g, char *err, size_t cap)
{
    int V = llama_vocab(m), B = o->batch;
    size_t nl = o->logits_path ? (size_t)B * (size_t)o->n_prompt * (size_t)V : 0;
    float *logits = nl ? malloc(sizeof(float) * nl) : NULL;
    int32_t *tok = malloc(sizeof(int32_t) * (size_t)B);
    if ((nl && !logits) || !tok) {
        free(logits);
        free(tok);
        return snprintf(err, cap, "out of memory"), WK_ERR_OUT_OF_MEMORY;
    }
    wk_status s = WK_OK;
    if (o->warmup) { /* one untimed prefill, as llama-bench warms up: the vendor libraries' first-call costs */
        s = llama_forward(m, o->prompt, o->n_prompt, false, NULL, tok, err, cap);
        llama_reset(m);
    }
    double t0 = now_s();
    if (s == WK_OK)
        s = llama_forward(m, o->prompt, o->n_prompt, logits != NULL, logits, tok, err, cap);
    double t1 = now_s(), t2 = t1;
    if (s == WK_OK && logits)
        s = save_logits(o, V, logits, err, cap);
    for (int i = 0; s == WK_OK && record(o, g, tok, i) && i + 1 < o->n_new; i++) {
        s = llama_forward(m, tok, 1, false, NULL, tok, err, cap);
        g->steps += s == WK_OK;
        t2 = now_s();
    }
    if (s == WK_OK)
        s = finish(o, g, err, cap);
    if (s == WK_OK)
        fprintf(stderr, "prefill: %d tokens, %.1f tokens/s; decode: %d tokens, %.1f tokens/s\n", B * o->n_prompt,
                B * o->n_prompt / (t1 - t0), B * g->steps, g->steps ? B * g->steps / (t2 - t1) : 0.0);
    free(logits);
    free(tok);
    return s;
}

static wk_status generate(gen_opts *o, gen_run *g, llama_model **m, char *err, size_t cap)
{
    if (o->text && !o->text[0])
        return snprintf(err, cap, "--prompt is empty"), WK_ERR_INVALID_ARGUMENT;
    wk_status s = llama_load(o->model, &o->lo, m, err, cap); /* first: a missing or damaged model says so */
    if (s == WK_OK)
        s = llama_set_sampling(*m, &o->sampling, err, cap);
    if (s == WK_OK)
        s = vocabulary(o, g, err, cap);
    g->text = g->tok && !o->ids_out;
    if (s == WK_OK)
        s = prompt(o, g, err, cap);
    g->out = s == WK_OK ? malloc(sizeof(int32_t) * (size_t)o->batch * (size_t)o->n_new) : NULL;
    g->count = s == WK_OK ? calloc((size_t)o->batch, sizeof(int)) : NULL;
    if (s == WK_OK && (!g->out || !g->count))
        return snprintf(err, cap, "out of memory"), WK_ERR_OUT_OF_MEMORY;
    return s == WK_OK ? run(*m, o, g, err, cap) : s;
}

int cmd_generate(int argc, char **argv)
{
    gen_opts *o = calloc(1, sizeof *o);
    if (!o)
        return CLI_FAILED;
    int rc = parse(argc, argv, o);
    if (rc == CLI_USAGE)
        fprintf(stderr, "usage: wick generate MODEL (--prompt TEXT | --prompt-ids 1,2,3) [-n N] [--device D] "
                        "[--dtype f32|f16|bf16] [--context N]\n"
                        "         [--temperature T] [--top-k K] [--top-p P] [--min-p M] [--seed S] [--batch B] [--ids] "
                        "[--logits FILE.npy] [--warmup]\n"
                        "  MODEL: a Hugging Face directory or a GGUF file. Text in and out where the model has a "
                        "vocabulary (GGUF: SentencePiece\n  'llama', or GPT-2 BPE 'gpt2' with pre-tokenizer llama-bpe, "
                        "gpt-2 or default; tokenizer.json: byte-level BPE),\n  else ids. --temperature 0 (the default) "
                        "is greedy; --batch B runs B copies of the prompt; --ids prints token ids;\n  --warmup: an "
                        "untimed prefill first.\n");
    char err[512] = "";
    llama_model *m = NULL;
    gen_run g = {0};
    if (rc == CLI_OK && generate(o, &g, &m, err, sizeof err) != WK_OK)
        rc = CLI_FAILED;
    if (rc == CLI_FAILED)
        fprintf(stderr, "wick generate: %s\n", err[0] ? err : "out of memory");
    llama_free(m);
    wm_tokenizer_free(g.tok);
    free(g.out);
    free(g.count);
    free(o->prompt);
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
