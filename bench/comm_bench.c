/* comm_bench.c: collective bandwidth over the local devices of one backend, through wick's public API only.
 * One process makes every rank (wk_comm_init_all); a thread per rank then runs WARMUP iterations, waits for the
 * others, and times ITERS iterations of its collective, each followed by wk_device_sync (as PyTorch's process
 * per GPU does); a case's time is the slowest rank's. --group drives every rank from one thread instead, an
 * iteration being one group with each rank's collective, then every device synchronised.
 * Cases: all_reduce SUM bf16 in place of 16, 256 and 1024 MiB, all_gather and reduce_scatter (SUM) bf16 of
 * 256 MiB (the size is the full buffer: all_gather's output, reduce_scatter's input, as nccl-tests counts).
 * Prints one JSON line per case (bench/torch_comm.py prints the same for PyTorch and compares the two):
 *   {"impl": "wick", "case": "all_reduce", "dtype": "bf16", "mib": 16, "ranks": 2, "time_us": ...,
 *    "algbw_gbs": ..., "busbw_gbs": ...}
 * algbw = bytes / time (GB/s, 1e9 bytes); busbw = algbw * 2 (n-1)/n for all_reduce, * (n-1)/n for the others.
 *   comm_bench [--backend cuda|rocm|cpu] [--devices N] [--warmup 5] [--iters 20] [--sizes 16,256,1024]
 *              [--other-mib 256] [--timeout 0]   (0: blocking communicators, the fast path; > 0: bounded waits)
 *              [--group]
 * The CPU backend (threads of this process, --devices ranks, 2 by default) is for checking the program. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_devices.h"
#include "wick.h"

#define MAX_RANKS 64
#define MAX_SIZES 16

typedef enum bench_kind { ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER } bench_kind;

typedef struct options {
    const char *backend;
    int devices; /* 0: all of the backend's */
    int warmup, iters;
    int sizes[MAX_SIZES], nsizes; /* all_reduce, MiB */
    int other_mib;                /* all_gather, reduce_scatter */
    double timeout_s;
    bool group; /* one thread, a group an iteration */
} options;

typedef struct bench {
    int n;
    wk_device *dev[MAX_RANKS];
    wk_comm *comm[MAX_RANKS];
    wk_tensor *x[MAX_RANKS], *out[MAX_RANKS];
    bench_kind kind;
} bench;

static int fail(const char *what, wk_status s)
{
    fprintf(stderr, "comm_bench: %s: %s: %s\n", what, wk_status_string(s), wk_last_error());
    return 1;
}

static const char *kind_name(bench_kind k)
{
    return k == ALL_REDUCE ? "all_reduce" : k == ALL_GATHER ? "all_gather" : "reduce_scatter";
}

/* ---------------------------------------------------------------- options */
static int parse_sizes(const char *list, options *o)
{
    o->nsizes = 0;
    for (const char *p = list; *p && o->nsizes < MAX_SIZES;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 1 << 20)
            return -1;
        o->sizes[o->nsizes++] = (int)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return o->nsizes > 0 ? 0 : -1;
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.backend = "cuda", .warmup = 5, .iters = 20, .other_mib = 256, .timeout_s = 0};
    parse_sizes("16,256,1024", o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--group") == 0) {
            o->group = true;
            continue;
        }
        if (!v)
            return fprintf(stderr, "comm_bench: %s needs a value\n", a), -1;
        if (strcmp(a, "--backend") == 0)
            o->backend = v;
        else if (strcmp(a, "--devices") == 0)
            o->devices = atoi(v);
        else if (strcmp(a, "--warmup") == 0)
            o->warmup = atoi(v);
        else if (strcmp(a, "--iters") == 0)
            o->iters = atoi(v);
        else if (strcmp(a, "--other-mib") == 0)
            o->other_mib = atoi(v);
        else if (strcmp(a, "--timeout") == 0)
            o->timeout_s = atof(v);
        else if (strcmp(a, "--sizes") != 0 || parse_sizes(v, o) != 0)
            return fprintf(stderr, "comm_bench: bad option %s %s\n", a, v), -1;
        i++;
    }
    if (o->devices < 0 || o->devices > MAX_RANKS || o->warmup < 0 || o->iters < 1 || o->other_mib < 1)
        return fprintf(stderr, "comm_bench: bad --devices, --warmup, --iters or --other-mib\n"), -1;
    return 0;
}

/* ---------------------------------------------------------------- devices and communicators */
static int open_ranks(const options *o, bench *b)
{
    const char *lib = NULL;
    if (bench_open_devices("comm_bench", o->backend, o->devices, MAX_RANKS, b->dev, &b->n, &lib) != 0)
        return 1;
    wk_status s = wk_comm_init_all(b->dev, b->n, o->timeout_s, b->comm);
    if (s != WK_OK)
        return fail("comm_init_all", s);
    fprintf(stderr, "comm_bench: %d ranks on %s, %s\n", b->n, o->backend, lib);
    return 0;
}

/* ---------------------------------------------------------------- one case */
/* Per rank: x and out of the case's shapes (bf16, zeros); total elements of the full buffer in *elems. */
static int make_buffers(bench *b, size_t mib, int64_t *elems)
{
    int64_t per = (int64_t)(mib << 20) / (int64_t)wk_dtype_size(WK_BF16) / b->n, full = per * b->n;
    for (int r = 0; r < b->n; r++) {
        int64_t xlen = b->kind == ALL_GATHER ? per : full;
        int64_t olen = b->kind == ALL_REDUCE ? 0 : b->kind == ALL_GATHER ? full : per;
        wk_status s = wk_zeros(b->dev[r], WK_BF16, 1, &xlen, &b->x[r]);
        if (s == WK_OK && olen)
            s = wk_zeros(b->dev[r], WK_BF16, 1, &olen, &b->out[r]);
        if (s != WK_OK)
            return fail("buffers", s);
    }
    *elems = full;
    return 0;
}

static void free_buffers(bench *b)
{
    for (int r = 0; r < b->n; r++) {
        wk_tensor_release(b->x[r]);
        wk_tensor_release(b->out[r]);
        b->x[r] = b->out[r] = NULL;
    }
}

static wk_status collective(bench *b, int r)
{
    if (b->kind == ALL_REDUCE)
        return wk_comm_all_reduce(b->comm[r], b->x[r], WK_COMM_SUM, b->x[r]);
    if (b->kind == ALL_GATHER)
        return wk_comm_all_gather(b->comm[r], b->x[r], b->out[r]);
    return wk_comm_reduce_scatter(b->comm[r], b->x[r], WK_COMM_SUM, b->out[r]);
}

/* --group: one iteration is a group with every rank's collective, then every device synchronised. */
static wk_status iterate(bench *b)
{
    wk_status s = wk_comm_group_begin(), first;
    if (s != WK_OK)
        return s;
    for (int r = 0; s == WK_OK && r < b->n; r++)
        s = collective(b, r);
    first = s;
    s = wk_comm_group_end();
    first = first != WK_OK ? first : s;
    for (int r = 0; first == WK_OK && r < b->n; r++)
        first = wk_device_sync(b->dev[r]);
    return first;
}

/* A thread per rank: warm-up, a barrier, the timed loop; every rank reaches the barrier even after a failure. */
typedef struct rank_job {
    bench *b;
    const options *o;
    pthread_barrier_t *barrier;
    int r;
    double secs;
    wk_status s;
} rank_job;

static void *rank_main(void *arg)
{
    rank_job *j = arg;
    j->s = WK_OK;
    for (int it = 0; j->s == WK_OK && it < j->o->warmup; it++)
        if ((j->s = collective(j->b, j->r)) == WK_OK)
            j->s = wk_device_sync(j->b->dev[j->r]);
    pthread_barrier_wait(j->barrier);
    double t0 = bench_now();
    for (int it = 0; j->s == WK_OK && it < j->o->iters; it++)
        if ((j->s = collective(j->b, j->r)) == WK_OK)
            j->s = wk_device_sync(j->b->dev[j->r]);
    j->secs = (bench_now() - t0) / j->o->iters;
    return NULL;
}

/* The slowest rank's time per iteration, or -1 with *s on failure. */
static double time_threads(bench *b, const options *o, wk_status *s)
{
    pthread_barrier_t barrier;
    pthread_t th[MAX_RANKS];
    rank_job job[MAX_RANKS];
    pthread_barrier_init(&barrier, NULL, (unsigned)b->n);
    for (int r = 0; r < b->n; r++) {
        job[r] = (rank_job){.b = b, .o = o, .barrier = &barrier, .r = r};
        pthread_create(&th[r], NULL, rank_main, &job[r]);
    }
    double secs = 0;
    for (int r = 0; r < b->n; r++) {
        pthread_join(th[r], NULL);
        secs = job[r].secs > secs ? job[r].secs : secs;
        *s = *s == WK_OK ? job[r].s : *s;
    }
    pthread_barrier_destroy(&barrier);
    return secs;
}

static double time_group(bench *b, const options *o, wk_status *s)
{
    for (int it = 0; *s == WK_OK && it < o->warmup; it++)
        *s = iterate(b);
    double t0 = bench_now();
    for (int it = 0; *s == WK_OK && it < o->iters; it++)
        *s = iterate(b);
    return (bench_now() - t0) / o->iters;
}

static int run_case(bench *b, const options *o, bench_kind kind, int mib)
{
    int64_t elems = 0;
    b->kind = kind;
    int rc = make_buffers(b, (size_t)mib, &elems);
    wk_status s = WK_OK;
    double secs = rc ? 0 : o->group ? time_group(b, o, &s) : time_threads(b, o, &s);
    free_buffers(b);
    if (rc != 0 || s != WK_OK)
        return rc ? rc : fail(kind_name(kind), s);
    double bytes = (double)elems * (double)wk_dtype_size(WK_BF16), n = b->n;
    double algbw = bytes / secs * 1e-9, factor = kind == ALL_REDUCE ? 2 * (n - 1) / n : (n - 1) / n;
    printf("{\"impl\": \"wick\", \"case\": \"%s\", \"dtype\": \"bf16\", \"mib\": %d, \"ranks\": %d, "
           "\"time_us\": %.1f, \"algbw_gbs\": %.2f, \"busbw_gbs\": %.2f}\n",
           kind_name(kind), mib, b->n, secs * 1e6, algbw, algbw * factor);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o) != 0)
        return 2;
    bench b = {0};
    int rc = open_ranks(&o, &b);
    for (int i = 0; rc == 0 && i < o.nsizes; i++)
        rc = run_case(&b, &o, ALL_REDUCE, o.sizes[i]);
    if (rc == 0)
        rc = run_case(&b, &o, ALL_GATHER, o.other_mib);
    if (rc == 0)
        rc = run_case(&b, &o, REDUCE_SCATTER, o.other_mib);
    for (int r = 0; r < b.n; r++) {
        wk_status s = wk_comm_destroy(b.comm[r]);
        if (s != WK_OK && rc == 0)
            rc = fail("comm_destroy", s);
    }
    return rc;
}
