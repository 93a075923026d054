/* tp_bench.c: the tensor-parallel linear layers (wk_tp_linear_column, wk_tp_linear_row) against one GPU's plain
 * matmul, through wick's public API only, in bf16. Cases (x (M, K), W (N, K), out = x W^T):
 *   tp_column_gather  M 8192, K 8192, N 16384: W split by rows, each rank's x W_r^T gathered to (M, N) everywhere
 *   tp_column         the same without the gather (each rank keeps its (M, N / n))
 *   tp_row            M 8192, K 16384, N 8192: x and W split along K, the partial products summed (all_reduce)
 * The baseline is wk_matmul(x, W^T view) of the whole layer on the first device, from this thread. The layer
 * runs with one host thread per rank (wk_comm_init_rank: nothing deferred by a group); each rank does WARMUP
 * calls, waits at a barrier, then ITERS calls, each followed by wk_device_sync of its device and the release of
 * its output; a rank's time is its mean, the case's the slowest rank's; the baseline is timed before the layers
 * and again after them, and its time is the mean of the two. One JSON line per case and rank count
 * (bench/torch_tp.py prints the same for PyTorch and compares the two):
 *   {"impl": "wick", "case": "tp_column_gather", "dtype": "bf16", "m": 8192, "k": 8192, "n": 16384, "ranks": 2,
 *    "time_ms": ..., "tflops": ..., "speedup_vs_1gpu": ...}
 * tflops counts the whole layer's 2 M N K flops; ranks 1 is the baseline.
 *   tp_bench [--backend cuda|rocm|cpu] [--devices N] [--warmup 3] [--iters 10] [--scale 1] [--timeout 300]
 * --scale S divides M, N and K by S (the CPU backend, 2 ranks by default, checks the program at --scale 32). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_barrier under -std=c11 */
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_devices.h"
#include "wick.h"

#define MAX_RANKS 64

typedef enum bench_case { COLUMN_GATHER, COLUMN, ROW, NCASES } bench_case;
static const char *const case_names[NCASES] = {"tp_column_gather", "tp_column", "tp_row"};
static const int64_t case_mkn[NCASES][3] = {{8192, 8192, 16384}, {8192, 8192, 16384}, {8192, 16384, 8192}};

typedef struct options {
    const char *backend;
    int devices; /* 0: all of the backend's */
    int warmup, iters, scale;
    double timeout_s;
} options;

/* The run: its devices, the case now measured, and each rank's thread, status and time. */
typedef struct bench {
    const options *o;
    int n;
    wk_device *dev[MAX_RANKS];
    wk_comm_id id;
    pthread_barrier_t barrier;
    struct rank {
        struct bench *b;
        int r;
        pthread_t thread;
        wk_status status;
        char error[512];
        double secs[NCASES];
    } ranks[MAX_RANKS];
} bench;

static int fail(const char *what, wk_status s, const char *msg)
{
    fprintf(stderr, "tp_bench: %s: %s: %s\n", what, wk_status_string(s), msg);
    return 1;
}

static void case_shape(const options *o, bench_case c, int64_t *m, int64_t *k, int64_t *n)
{
    *m = case_mkn[c][0] / o->scale;
    *k = case_mkn[c][1] / o->scale;
    *n = case_mkn[c][2] / o->scale;
}

/* ---------------------------------------------------------------- options and devices */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.backend = "cuda", .warmup = 3, .iters = 10, .scale = 1, .timeout_s = 300};
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return fprintf(stderr, "tp_bench: %s needs a value\n", a), -1;
        if (strcmp(a, "--backend") == 0)
            o->backend = v;
        else if (strcmp(a, "--devices") == 0)
            o->devices = atoi(v);
        else if (strcmp(a, "--warmup") == 0)
            o->warmup = atoi(v);
        else if (strcmp(a, "--iters") == 0)
            o->iters = atoi(v);
        else if (strcmp(a, "--scale") == 0)
            o->scale = atoi(v);
        else if (strcmp(a, "--timeout") == 0)
            o->timeout_s = atof(v);
        else
            return fprintf(stderr, "tp_bench: unknown option %s\n", a), -1;
    }
    if (o->devices < 0 || o->devices > MAX_RANKS || o->warmup < 0 || o->iters < 1 || o->scale < 1 ||
        8192 % o->scale != 0)
        return fprintf(stderr, "tp_bench: bad --devices, --warmup, --iters or --scale (a divisor of 8192)\n"), -1;
    return 0;
}

static int open_devices(const options *o, bench *b)
{
    const char *lib = NULL;
    if (bench_open_devices("tp_bench", o->backend, o->devices, MAX_RANKS, b->dev, &b->n, &lib) != 0)
        return 1;
    wk_status s = wk_comm_id_new(b->dev[0], &b->id);
    if (s != WK_OK)
        return fail("comm_id_new", s, wk_last_error());
    fprintf(stderr, "tp_bench: %d ranks on %s, %s\n", b->n, o->backend, lib);
    return 0;
}

/* ---------------------------------------------------------------- timing */
/* x of shape xs and w of shape ws, bf16 normal numbers on dev (w scaled by 0.01: the products stay small). */
static wk_status make_operands(wk_device *dev, const int64_t *xs, const int64_t *ws, uint64_t seed, wk_tensor **x,
                               wk_tensor **w)
{
    wk_status s = wk_rand_normal(dev, WK_BF16, 2, xs, seed, 0.0, 1.0, x);
    if (s == WK_OK)
        s = wk_rand_normal(dev, WK_BF16, 2, ws, seed + 1, 0.0, 0.01, w);
    return s;
}

/* One call: the layer on c, or (c NULL) wk_matmul(x, w); then the device synchronised and the output released. */
static wk_status iterate(wk_comm *c, bench_case bc, wk_device *dev, const wk_tensor *x, const wk_tensor *w)
{
    wk_tensor *out = NULL;
    wk_status s;
    if (!c)
        s = wk_matmul(x, w, &out);
    else if (bc == ROW)
        s = wk_tp_linear_row(c, x, w, &out);
    else
        s = wk_tp_linear_column(c, x, w, bc == COLUMN_GATHER, &out);
    if (s == WK_OK)
        s = wk_device_sync(dev);
    wk_tensor_release(out);
    return s;
}

/* WARMUP calls, the barrier (when given), then the mean seconds of ITERS calls. */
static wk_status timed(const options *o, wk_comm *c, bench_case bc, wk_device *dev, const wk_tensor *x,
                       const wk_tensor *w, pthread_barrier_t *barrier, double *secs)
{
    wk_status s = WK_OK;
    for (int it = 0; s == WK_OK && it < o->warmup; it++)
        s = iterate(c, bc, dev, x, w);
    if (barrier)
        pthread_barrier_wait(barrier);
    double t0 = bench_now();
    for (int it = 0; s == WK_OK && it < o->iters; it++)
        s = iterate(c, bc, dev, x, w);
    *secs = (bench_now() - t0) / o->iters;
    return s;
}

/* The whole layer on one device through wk_matmul(x, W^T view). */
static int baseline(const options *o, wk_device *dev, bench_case bc, double *secs)
{
    int64_t m, k, n;
    case_shape(o, bc, &m, &k, &n);
    int64_t xs[2] = {m, k}, ws[2] = {n, k};
    wk_tensor *x = NULL, *w = NULL, *wt = NULL;
    wk_status s = make_operands(dev, xs, ws, 1, &x, &w);
    if (s == WK_OK)
        s = wk_transpose(w, 0, 1, &wt);
    if (s == WK_OK)
        s = timed(o, NULL, bc, dev, x, wt, NULL, secs);
    wk_tensor_release(x);
    wk_tensor_release(w);
    wk_tensor_release(wt);
    return s == WK_OK ? 0 : fail(case_names[bc], s, wk_last_error());
}

/* Rank r's part of one case: its operands (x whole for the column layers, else its K columns; W's rows or K
 * columns), timed between the ranks' barriers. A failed rank still meets every barrier. */
static wk_status rank_case(bench *b, struct rank *rk, wk_comm *c, bench_case bc, wk_status s)
{
    int64_t m, k, n;
    case_shape(b->o, bc, &m, &k, &n);
    int64_t xs[2] = {m, bc == ROW ? k / b->n : k}, ws[2] = {bc == ROW ? n : n / b->n, bc == ROW ? k / b->n : k};
    wk_tensor *x = NULL, *w = NULL;
    if (s == WK_OK)
        s = make_operands(b->dev[rk->r], xs, ws, 10 + (uint64_t)rk->r, &x, &w);
    if (s == WK_OK) {
        s = timed(b->o, c, bc, b->dev[rk->r], x, w, &b->barrier, &rk->secs[bc]);
    } else {
        pthread_barrier_wait(&b->barrier);
    }
    pthread_barrier_wait(&b->barrier);
    wk_tensor_release(x);
    wk_tensor_release(w);
    return s;
}

static void *rank_main(void *arg)
{
    struct rank *rk = arg;
    bench *b = rk->b;
    wk_comm *c = NULL;
    wk_status s = wk_comm_init_rank(b->dev[rk->r], b->n, &b->id, rk->r, b->o->timeout_s, &c);
    for (int bc = 0; bc < NCASES; bc++)
        s = rank_case(b, rk, c, (bench_case)bc, s);
    if (s != WK_OK)
        snprintf(rk->error, sizeof rk->error, "%s", wk_last_error());
    wk_status d = wk_comm_destroy(c);
    rk->status = s != WK_OK ? s : d;
    return NULL;
}

static void print_line(const options *o, bench_case bc, const char *layer, int ranks, double secs, double base)
{
    int64_t m, k, n;
    case_shape(o, bc, &m, &k, &n);
    double flops = 2.0 * (double)m * (double)k * (double)n;
    printf("{\"impl\": \"wick\", \"case\": \"%s\", \"layer\": \"%s\", \"dtype\": \"bf16\", \"m\": %lld, \"k\": %lld, "
           "\"n\": %lld, \"ranks\": %d, \"time_ms\": %.3f, \"tflops\": %.2f, \"speedup_vs_1gpu\": %.3f}\n",
           case_names[bc], layer, (long long)m, (long long)k, (long long)n, ranks, secs * 1e3, flops / secs * 1e-12,
           base / secs);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o) != 0)
        return 2;
    bench *b = calloc(1, sizeof *b);
    if (!b)
        return fprintf(stderr, "tp_bench: out of memory\n"), 1;
    b->o = &o;
    int rc = open_devices(&o, b);
    double base[NCASES] = {0}, again[NCASES] = {0};
    for (int bc = 0; rc == 0 && bc < NCASES; bc++)
        rc = baseline(&o, b->dev[0], (bench_case)bc, &base[bc]);
    if (rc == 0) {
        pthread_barrier_init(&b->barrier, NULL, (unsigned)b->n);
        for (int r = 0; r < b->n; r++) {
            b->ranks[r] = (struct rank){.b = b, .r = r};
            if (pthread_create(&b->ranks[r].thread, NULL, rank_main, &b->ranks[r]) != 0)
                return fprintf(stderr, "tp_bench: could not start a thread\n"), 1;
        }
        for (int r = 0; r < b->n; r++) {
            pthread_join(b->ranks[r].thread, NULL);
            if (b->ranks[r].status != WK_OK && rc == 0)
                rc = fail("rank", b->ranks[r].status, b->ranks[r].error);
        }
        pthread_barrier_destroy(&b->barrier);
    }
    /* The baseline again, after the layers: the GPU's clocks fall as it warms (a first run came out up to 15%
     * faster than a later one of the same shape on an H100), so the one-GPU time is the mean of both. */
    for (int bc = 0; rc == 0 && bc < NCASES; bc++) {
        rc = baseline(&o, b->dev[0], (bench_case)bc, &again[bc]);
        base[bc] = 0.5 * (base[bc] + again[bc]);
    }
    for (int bc = 0; rc == 0 && bc < NCASES; bc++) {
        double slowest = 0;
        for (int r = 0; r < b->n; r++)
            slowest = b->ranks[r].secs[bc] > slowest ? b->ranks[r].secs[bc] : slowest;
        print_line(&o, (bench_case)bc, "matmul", 1, base[bc], base[bc]);
        print_line(&o, (bench_case)bc, "tp", b->n, slowest, base[bc]);
    }
    free(b);
    return rc;
}
