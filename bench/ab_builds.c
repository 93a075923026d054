/* ab_builds.c: two builds of libwick in one process, the same quantized mat-vec alternated between them call by call,
 * for a CPU change measured on a shared host whose speed drifts by tens of percent between runs (a comparison of two
 * processes run one after the other mixes that drift into the ratio; here both builds see the same moments).
 *
 *   ab_builds OLD.so NEW.so [TYPE [N [K [XDTYPE [CALLS]]]]]     (q4_0 4096 4096 f32 400: issue 13's CPU case)
 *
 * Each library is opened with RTLD_LOCAL (its own copy of libwick's symbols; libraries both load, such as libgomp,
 * load once), makes its own w (N, K) of TYPE quantized from
 * the same uniform values and x (1, K), and times wk_matmul_q on the CPU; the two alternate, the first of each pair
 * swapping every call. Prints each build's best, 10th percentile and median, and new / old of each. Exit status 1 when
 * a library or a call fails. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_devices.h" /* bench_now */
#include "wick.h"

typedef struct build {
    const char *path;
    void *dl;
    wk_status (*device_get)(const char *, wk_device **);
    wk_status (*rand_uniform)(wk_device *, wk_dtype, int, const int64_t *, uint64_t, double, double, wk_tensor **);
    wk_status (*quantize)(const wk_tensor *, wk_dtype, wk_tensor **);
    wk_status (*matmul_q)(const wk_tensor *, const wk_tensor *, wk_tensor **);
    void (*release)(wk_tensor *);
    const char *(*last_error)(void);
    wk_tensor *x, *w;
    double *t;
} build;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int fail(const build *b, const char *what)
{
    fprintf(stderr, "ab_builds: %s: %s: %s\n", b->path, what, b->last_error());
    return 1;
}

/* dlsym's answer copied into a function pointer (memcpy: ISO C has no cast between object and function pointers). */
static bool sym(build *b, const char *name, void *fn, size_t size)
{
    void *p = dlsym(b->dl, name);
    if (!p) {
        fprintf(stderr, "ab_builds: %s: no symbol %s\n", b->path, name);
        return false;
    }
    memcpy(fn, &p, size);
    return true;
}

/* Opens b->path and makes its inputs: 0, or 1 with a message. */
static int open_build(build *b, wk_dtype qt, int64_t n, int64_t k, wk_dtype xt)
{
    if (!(b->dl = dlopen(b->path, RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "ab_builds: %s\n", dlerror());
        return 1;
    }
    if (!sym(b, "wk_device_get", &b->device_get, sizeof b->device_get) ||
        !sym(b, "wk_rand_uniform", &b->rand_uniform, sizeof b->rand_uniform) ||
        !sym(b, "wk_quantize", &b->quantize, sizeof b->quantize) ||
        !sym(b, "wk_matmul_q", &b->matmul_q, sizeof b->matmul_q) ||
        !sym(b, "wk_tensor_release", &b->release, sizeof b->release) ||
        !sym(b, "wk_last_error", &b->last_error, sizeof b->last_error))
        return 1;
    wk_device *cpu = NULL;
    wk_tensor *wf = NULL;
    const int64_t ws[2] = {n, k}, xs[2] = {1, k};
    if (b->device_get("cpu", &cpu) != WK_OK || b->rand_uniform(cpu, WK_F32, 2, ws, 1, -1, 1, &wf) != WK_OK)
        return fail(b, "inputs");
    wk_status s = b->quantize(wf, qt, &b->w);
    if (s != WK_OK) {
        fail(b, "wk_quantize");
        b->release(wf);
        return 1;
    }
    b->release(wf);
    if (b->rand_uniform(cpu, xt, 2, xs, 2, -1, 1, &b->x) != WK_OK)
        return fail(b, "inputs");
    return 0;
}

/* argv[i] as a count in [1, max], or def when absent; -1 when it is not one. */
static long long count_arg(int argc, char **argv, int i, long long def, long long max)
{
    if (argc <= i)
        return def;
    char *end = NULL;
    long long v = strtoll(argv[i], &end, 10);
    return end != argv[i] && *end == 0 && v >= 1 && v <= max ? v : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 8) {
        fprintf(stderr, "usage: ab_builds OLD.so NEW.so [TYPE [N [K [XDTYPE [CALLS]]]]]\n");
        return 2;
    }
    const char *type = argc > 3 ? argv[3] : "q4_0", *xname = argc > 6 ? argv[6] : "f32";
    long long n = count_arg(argc, argv, 4, 4096, (long long)1 << 40), k = count_arg(argc, argv, 5, 4096, 1 << 30);
    long long calls = count_arg(argc, argv, 7, 400, 1 << 24);
    static const struct { const char *name; wk_dtype dt; } types[] = {
        {"q4_0", WK_Q4_0}, {"q8_0", WK_Q8_0}, {"q4_k", WK_Q4_K}, {"q6_k", WK_Q6_K}, {"f32", WK_F32},
        {"f16", WK_F16},   {"bf16", WK_BF16}};
    wk_dtype qt = WK_Q4_0, xt = WK_F32;
    bool qok = false, xok = false;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (i < 4 && strcmp(type, types[i].name) == 0)
            qt = types[i].dt, qok = true;
        if (i >= 4 && strcmp(xname, types[i].name) == 0)
            xt = types[i].dt, xok = true;
    }
    if (!qok || !xok || n < 1 || k < 1 || calls < 10) {
        fprintf(stderr, "ab_builds: TYPE q4_0|q8_0|q4_k|q6_k, XDTYPE f32|f16|bf16, N and K counts, CALLS >= 10\n");
        return 2;
    }
    build b[2] = {{.path = argv[1]}, {.path = argv[2]}};
    for (int i = 0; i < 2; i++) {
        if (open_build(&b[i], qt, (int64_t)n, (int64_t)k, xt))
            return 1;
        if (!(b[i].t = malloc(sizeof(double) * (size_t)calls))) {
            fprintf(stderr, "ab_builds: no memory for %lld times\n", calls);
            return 1;
        }
    }
    for (long long c = 0; c < calls; c++)
        for (int j = 0; j < 2; j++) {
            build *u = &b[(c & 1) ? 1 - j : j];
            wk_tensor *o = NULL;
            double t0 = bench_now();
            wk_status s = u->matmul_q(u->x, u->w, &o);
            u->t[c] = bench_now() - t0;
            if (s != WK_OK)
                return fail(u, "wk_matmul_q"); /* (the message before any other call) */
            u->release(o);
        }
    double st[2][3];
    for (int i = 0; i < 2; i++) {
        qsort(b[i].t, (size_t)calls, sizeof(double), by_value);
        st[i][0] = b[i].t[0] * 1e3, st[i][1] = b[i].t[(calls - 1) / 10] * 1e3, st[i][2] = b[i].t[(calls - 1) / 2] * 1e3;
        printf("%s: best %.3f ms, p10 %.3f, median %.3f\n", b[i].path, st[i][0], st[i][1], st[i][2]);
    }
    printf("new / old (%s %lldx%lld, x %s, %lld calls each): best %.3f, p10 %.3f, median %.3f\n", type, n, k, xname,
           calls, st[1][0] / st[0][0], st[1][1] / st[0][1], st[1][2] / st[0][2]);
    for (int i = 0; i < 2; i++) {
        b[i].release(b[i].x);
        b[i].release(b[i].w);
        free(b[i].t);
    }
    return 0;
}
