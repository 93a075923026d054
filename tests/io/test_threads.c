/* test_threads.c: wick.h's thread-safety contract under stress. N threads (8 by default, WICK_THREADS_N) start
 * behind a barrier and race the first wk_device_get of one device (WICK_THREADS_DEVICE, default "cpu"; the GPU
 * run uses "cuda:0"), then each creates tensors from host data with its own seed, makes views (transpose,
 * narrow, broadcast), shares a tensor with its neighbour through a global array (the creator retains it for the
 * neighbour, the neighbour views it, uses it and releases that reference, the creator drops its own: the
 * refcounts on the shared storage race), runs a mix of ops (binary, unary, reduce, softmax, matmul small and
 * large enough for OpenBLAS to thread, index_select, cast, cat, contiguous), triggers an error with a shape of
 * its own and checks that wk_last_error() names that shape after every other thread has failed too. Each output
 * is hashed; the main thread then runs the same work single-threaded and every hash must be bit-identical.
 * Built with -fsanitize=thread by scripts/tsan.sh, which fails on any report. Exit 77 only when the device is
 * absent from this build or machine. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

#define MAX_THREADS 64
#define MAX_RESULTS 40
#define ROUNDS 3
#define COLS 16
#define KDIM 12

/* ---------------------------------------------------------------- per-thread record */
typedef struct record {
    uint64_t hash[MAX_RESULTS];
    int nres;
    int checks, failures;
    char log[1024];
} record;

static void note(record *r, bool ok, const char *fmt, ...)
{
    r->checks++;
    if (ok)
        return;
    r->failures++;
    size_t n = strlen(r->log);
    if (n + 2 >= sizeof r->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->log + n, sizeof r->log - n, fmt, ap);
    va_end(ap);
    n = strlen(r->log);
    snprintf(r->log + n, sizeof r->log - n, " (last error: %s)\n", wk_last_error());
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Hashes t's dtype, shape and bytes into the next result slot and releases t. A NULL t (its op failed) is a
 * failure already noted; it still takes a slot so later slots line up between runs. */
static void keep(record *r, const char *what, wk_tensor *t)
{
    uint64_t h = 1469598103934665603ull;
    if (t) {
        size_t bytes = (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t));
        void *buf = malloc(bytes ? bytes : 1);
        int dt = (int)wk_tensor_dtype(t), rank = wk_tensor_rank(t);
        h = fnv(h, &dt, sizeof dt);
        h = fnv(h, wk_tensor_shape(t), (size_t)rank * sizeof(int64_t));
        wk_status s = buf ? wk_tensor_to_host(t, buf, bytes) : WK_ERR_OUT_OF_MEMORY;
        note(r, s == WK_OK, "%s: to_host failed: %s", what, wk_status_string(s));
        if (s == WK_OK)
            h = fnv(h, buf, bytes);
        free(buf);
        wk_tensor_release(t);
    }
    if (r->nres < MAX_RESULTS)
        r->hash[r->nres++] = h;
}

/* The result of an op producing one tensor (written to *o): noted, and NULL when it failed. */
static wk_tensor *got(record *r, const char *what, wk_status s, wk_tensor **o)
{
    note(r, s == WK_OK && *o, "%s: %s", what, wk_status_string(s));
    return s == WK_OK ? *o : NULL;
}
#define OP(r, what, call) got(r, what, (call), &o_)

/* ---------------------------------------------------------------- the shared state */
static int nthreads = 8;
static const char *device_name = "cpu";
static pthread_barrier_t barrier;
static bool threaded;
static _Atomic(wk_tensor *) shared[MAX_THREADS]; /* shared[i]: made by thread i, one reference for i+1 */

static void sync_point(void)
{
    if (threaded)
        pthread_barrier_wait(&barrier);
}

typedef struct worker {
    int tid;
    wk_device *dev;
    wk_status get_status;
    record rec;
    /* kept between phases */
    wk_tensor *a, *own_shared;
    wk_status err_status;
} worker;

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static wk_tensor *random_f32(worker *w, uint64_t *seed, int64_t rows, int64_t cols)
{
    wk_tensor *o_ = NULL;
    int64_t shape[2] = {rows, cols};
    float *v = malloc((size_t)(rows * cols) * sizeof *v);
    if (!v)
        return NULL;
    for (int64_t i = 0; i < rows * cols; i++)
        v[i] = (float)((double)(next_rand(seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    wk_tensor *t = OP(&w->rec, "from_host", wk_tensor_from_host(w->dev, WK_F32, 2, shape, v, &o_));
    free(v);
    return t;
}

static int64_t rows_of(int tid) { return 8 + tid; }

/* Phase 1: the tensor this thread shares, published with one extra reference for the neighbour. */
static void phase_create(worker *w)
{
    uint64_t seed = 1000 + (uint64_t)w->tid;
    w->own_shared = random_f32(w, &seed, rows_of(w->tid) + 3, COLS);
    wk_tensor_retain(w->own_shared); /* the neighbour's reference, released by the neighbour */
    atomic_store(&shared[w->tid], w->own_shared);
}

/* Checks on the host that out = a + row (broadcast) exactly. */
static void check_add(worker *w, wk_tensor *a, wk_tensor *row, wk_tensor *out)
{
    int64_t n = wk_tensor_numel(a);
    float *x = malloc((size_t)n * 4), *y = malloc(COLS * 4), *z = malloc((size_t)n * 4);
    bool ok = x && y && z && wk_tensor_to_host(a, x, (size_t)n * 4) == WK_OK &&
              wk_tensor_to_host(row, y, COLS * 4) == WK_OK && wk_tensor_to_host(out, z, (size_t)n * 4) == WK_OK;
    for (int64_t i = 0; ok && i < n; i++)
        ok = z[i] == x[i] + y[i % COLS];
    note(&w->rec, ok, "thread %d: add of a broadcast row is not a + row", w->tid);
    free(x);
    free(y);
    free(z);
}

/* Views and ops on this thread's own tensors. */
static void own_ops(worker *w, uint64_t *seed)
{
    wk_tensor *o_ = NULL;
    record *r = &w->rec;
    int64_t rows = rows_of(w->tid), bshape[2] = {rows, COLS}, ishape[1] = {5};
    wk_tensor *a = w->a = random_f32(w, seed, rows, COLS), *b = random_f32(w, seed, COLS, KDIM);
    wk_tensor *row = random_f32(w, seed, 1, COLS);
    if (!a || !b || !row) {
        wk_tensor_release(b);
        wk_tensor_release(row);
        return;
    }
    int64_t idv[5];
    for (int i = 0; i < 5; i++)
        idv[i] = (int64_t)(next_rand(seed) % (uint64_t)rows);
    wk_tensor *ids = OP(r, "ids", wk_tensor_from_host(w->dev, WK_I64, 1, ishape, idv, &o_));
    wk_tensor *at = OP(r, "transpose", wk_transpose(a, 0, 1, &o_));
    wk_tensor *mid = OP(r, "narrow", wk_narrow(a, 0, 1, rows - 2, &o_));
    wk_tensor *bc = OP(r, "broadcast", wk_broadcast_to(row, 2, bshape, &o_));
    wk_tensor *sum = OP(r, "add", wk_binary(WK_BINARY_ADD, a, bc, &o_));
    if (sum)
        check_add(w, a, row, sum);
    keep(r, "add", sum);
    keep(r, "mul", OP(r, "mul", wk_binary(WK_BINARY_MUL, at, at, &o_)));
    keep(r, "contiguous", OP(r, "contiguous", wk_contiguous(at, &o_)));
    keep(r, "tanh", OP(r, "tanh", wk_unary(WK_UNARY_TANH, mid, &o_)));
    keep(r, "exp", OP(r, "exp", wk_unary(WK_UNARY_EXP, at, &o_)));
    int d0 = 0, d1 = 1;
    keep(r, "sum", OP(r, "sum", wk_reduce(WK_REDUCE_SUM, at, &d0, 1, false, &o_)));
    keep(r, "max", OP(r, "max", wk_reduce(WK_REDUCE_MAX, mid, &d1, 1, true, &o_)));
    keep(r, "softmax", OP(r, "softmax", wk_softmax_last_dim(a, &o_)));
    keep(r, "matmul", OP(r, "matmul", wk_matmul(a, b, &o_)));
    keep(r, "matmul_view", OP(r, "matmul_view", wk_matmul(mid, b, &o_)));
    keep(r, "index_select", OP(r, "index_select", wk_index_select(a, 0, ids, &o_)));
    wk_tensor *h = OP(r, "cast_f16", wk_cast(a, WK_F16, &o_));
    wk_tensor *bh = OP(r, "cast_b_f16", wk_cast(b, WK_F16, &o_));
    keep(r, "matmul_f16", OP(r, "matmul_f16", wk_matmul(h, bh, &o_)));
    keep(r, "cast_f16", h);
    keep(r, "cast_bf16", OP(r, "cast_bf16", wk_cast(at, WK_BF16, &o_)));
    keep(r, "cast_i32", OP(r, "cast_i32", wk_cast(a, WK_I32, &o_)));
    const wk_tensor *parts[3] = {a, mid, bc};
    keep(r, "cat", OP(r, "cat", wk_cat(parts, 3, 0, &o_)));
    wk_tensor *big_a = random_f32(w, seed, 96 + w->tid, 160), *big_b = random_f32(w, seed, 160, 128);
    keep(r, "matmul_big", OP(r, "matmul_big", wk_matmul(big_a, big_b, &o_)));
    wk_tensor *const drop[] = {b, row, ids, at, mid, bc, bh, big_a, big_b};
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
        wk_tensor_release(drop[i]);
}

/* The neighbour's tensor: views of it, ops reading it, then the reference it was given is released. */
static void shared_ops(worker *w)
{
    wk_tensor *o_ = NULL;
    record *r = &w->rec;
    int other = (w->tid + 1) % nthreads;
    wk_tensor *s = atomic_load(&shared[other]);
    note(r, s != NULL, "thread %d: shared[%d] is NULL", w->tid, other);
    if (!s || !w->a)
        return;
    int64_t srows = rows_of(other) + 3;
    note(r, wk_tensor_rank(s) == 2 && wk_tensor_shape(s)[0] == srows && wk_tensor_shape(s)[1] == COLS,
         "thread %d: shared tensor of thread %d has the wrong shape", w->tid, other);
    wk_tensor *st = OP(r, "shared transpose", wk_transpose(s, 0, 1, &o_));
    wk_tensor *sn = OP(r, "shared narrow", wk_narrow(s, 0, 2, srows - 3, &o_));
    wk_tensor_release(s); /* the views keep the storage alive; the creator may release its handle any time */
    keep(r, "shared matmul", OP(r, "shared matmul", wk_matmul(w->a, st, &o_)));
    keep(r, "shared sub", OP(r, "shared sub", wk_binary(WK_BINARY_SUB, sn, sn, &o_)));
    keep(r, "shared sigmoid", OP(r, "shared sigmoid", wk_unary(WK_UNARY_SIGMOID, st, &o_)));
    int d = -1;
    keep(r, "shared mean", OP(r, "shared mean", wk_reduce(WK_REDUCE_MEAN, sn, &d, 1, false, &o_)));
    wk_tensor_release(sn);
    keep(r, "shared contiguous", OP(r, "shared contiguous", wk_contiguous(st, &o_)));
    wk_tensor_release(st);
}

/* An error with a shape only this thread uses: a matmul of (2, 100+tid) by (200+tid, 3). */
static void phase_fail(worker *w)
{
    wk_tensor *o_ = NULL;
    int64_t sa[2] = {2, 100 + w->tid}, sb[2] = {200 + w->tid, 3};
    wk_tensor *a = OP(&w->rec, "zeros a", wk_zeros(w->dev, WK_F32, 2, sa, &o_));
    wk_tensor *b = OP(&w->rec, "zeros b", wk_zeros(w->dev, WK_F32, 2, sb, &o_));
    wk_tensor *o = NULL;
    w->err_status = a && b ? wk_matmul(a, b, &o) : WK_ERR_INTERNAL;
    note(&w->rec, w->err_status == WK_ERR_SHAPE && !o, "thread %d: mismatched matmul gave %s", w->tid,
         wk_status_string(w->err_status));
    wk_tensor_release(a);
    wk_tensor_release(b);
}

/* After every thread has failed: this thread's message still names its own shapes. */
static void phase_check_error(worker *w)
{
    char want_a[32], want_b[32];
    snprintf(want_a, sizeof want_a, "[2, %d]", 100 + w->tid);
    snprintf(want_b, sizeof want_b, "[%d, 3]", 200 + w->tid);
    const char *msg = wk_last_error();
    note(&w->rec, strstr(msg, "matmul") && strstr(msg, want_a) && strstr(msg, want_b),
         "thread %d: wk_last_error() is '%s', not this thread's %s x %s", w->tid, msg, want_a, want_b);
}

static void *thread_main(void *arg)
{
    worker *w = arg;
    sync_point();
    w->get_status = wk_device_get(device_name, &w->dev);
    bool ok = w->get_status == WK_OK;
    if (ok)
        phase_create(w);
    sync_point();
    uint64_t seed = (uint64_t)w->tid * 7919 + 1;
    if (ok) {
        wk_tensor_release(w->own_shared); /* races the neighbour's views and release of its reference */
        own_ops(w, &seed);
        shared_ops(w);
        phase_fail(w);
    }
    sync_point();
    if (ok) {
        phase_check_error(w);
        wk_tensor_release(w->a);
        wk_status s = wk_device_sync(w->dev);
        note(&w->rec, s == WK_OK, "thread %d: device_sync: %s", w->tid, wk_status_string(s));
    }
    return NULL;
}

/* The same phases, one thread after another, on the main thread. */
static void run_serial(worker *ws)
{
    threaded = false;
    for (int i = 0; i < nthreads; i++) {
        ws[i].get_status = wk_device_get(device_name, &ws[i].dev);
        phase_create(&ws[i]);
    }
    for (int i = 0; i < nthreads; i++) {
        uint64_t seed = (uint64_t)ws[i].tid * 7919 + 1;
        wk_tensor_release(ws[i].own_shared);
        own_ops(&ws[i], &seed);
        shared_ops(&ws[i]);
        phase_fail(&ws[i]);
        phase_check_error(&ws[i]);
    }
    for (int i = 0; i < nthreads; i++)
        wk_tensor_release(ws[i].a);
}

static int run_threaded(worker *ws)
{
    pthread_t th[MAX_THREADS];
    threaded = true;
    pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
    int started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&th[started], NULL, thread_main, &ws[started]) != 0)
            break;
    if (started < nthreads) { /* the barrier would never open: a harness failure */
        fprintf(stderr, "test_threads: could only start %d of %d threads\n", started, nthreads);
        exit(1);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    return started;
}

static worker *new_workers(void)
{
    worker *ws = calloc((size_t)nthreads, sizeof *ws);
    if (!ws) {
        fprintf(stderr, "test_threads: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < nthreads; i++)
        ws[i].tid = i;
    for (int i = 0; i < MAX_THREADS; i++)
        atomic_store(&shared[i], NULL);
    return ws;
}

int main(void)
{
    const char *n = getenv("WICK_THREADS_N"), *d = getenv("WICK_THREADS_DEVICE");
    if (n && *n)
        nthreads = atoi(n);
    if (nthreads < 2 || nthreads > MAX_THREADS) {
        fprintf(stderr, "test_threads: WICK_THREADS_N=%s outside 2..%d\n", n, MAX_THREADS);
        return 1;
    }
    if (d && *d)
        device_name = d;
    int checks = 0, failures = 0;
    for (int round = 0; round < ROUNDS; round++) {
        worker *par = new_workers();
        run_threaded(par);
        int absent = 0;
        for (int i = 0; i < nthreads; i++)
            absent += par[i].get_status == WK_ERR_DEVICE;
        if (round == 0 && absent == nthreads) {
            wk_device *probe = NULL;
            if (wk_device_get(device_name, &probe) == WK_ERR_DEVICE) {
                printf("test_threads: SKIP: %s is absent: %s\n", device_name, wk_last_error());
                free(par);
                return 77;
            }
        }
        worker *ser = new_workers();
        run_serial(ser);
        for (int i = 0; i < nthreads; i++) {
            record *p = &par[i].rec, *s = &ser[i].rec;
            checks += p->checks + s->checks + 3;
            failures += p->failures + s->failures;
            if (p->failures || s->failures)
                printf("round %d thread %d:\n%s%s", round, i, p->log, s->log);
            bool got = par[i].get_status == WK_OK && par[i].dev == par[0].dev;
            failures += !got;
            if (!got)
                printf("FAIL round %d thread %d: wk_device_get(%s) gave %s, device %p (thread 0: %p)\n", round, i,
                       device_name, wk_status_string(par[i].get_status), (void *)par[i].dev, (void *)par[0].dev);
            bool same_n = p->nres == s->nres && p->nres > 20;
            failures += !same_n;
            if (!same_n)
                printf("FAIL round %d thread %d: %d results threaded, %d serial\n", round, i, p->nres, s->nres);
            int diff = 0;
            for (int k = 0; k < p->nres && k < s->nres; k++)
                if (p->hash[k] != s->hash[k]) {
                    printf("FAIL round %d thread %d: result %d differs from the single-threaded run\n", round, i, k);
                    diff++;
                }
            failures += diff > 0;
        }
        free(par);
        free(ser);
    }
    printf("test_threads on %s, %d threads x %d rounds: %d passed, %d failed\n", device_name, nthreads, ROUNDS,
           checks - failures, failures);
    return failures ? 1 : 0;
}
