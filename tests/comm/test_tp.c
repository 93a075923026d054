/* test_tp.c: the tensor-parallel linear layers (wick.h: wk_tp_linear_column, wk_tp_linear_row) through the public
 * API. For 1..4 ranks (GPUs: 1..the devices found) and f32, f64, bf16, f16: random x (M, K) and W (N, K) made on
 * the host, each rank given its shard (a contiguous copy, or strided views of full tensors uploaded once per
 * device), and every layer (column without gather, column gathered, row) checked against x W^T computed here in
 * f64, within a bound on the error of K products accumulated (and, for the row layer, of the ranks' partial sums
 * rounded and added). Shapes: small odd ones, empty ones (M, K or N of 0), and on GPUs one large enough for the
 * product to be made in chunks whose collectives overlap the next chunk (rows * other * K >= 2^33 per rank; the
 * rows checked there are a sample that straddles every chunk boundary). Ranks are driven by a thread each
 * (wk_comm_init_rank) and by one thread issuing every rank's call inside one group (wk_comm_init_all; the CPU
 * communicator defers the collectives to the group's end). Then the argument errors: the status, nothing
 * returned, and the communicator still working; on 2+ GPUs, a rank whose peer never calls the gathered layer
 * (WK_ERR_COMM after the timeout). WICK_COMM_BACKEND picks the devices as in test_comm.c: "cpu"
 * (default; every rank on "cpu") or "cuda" / "rocm" (rank r on "<backend>:r"; exit 77 when absent). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "comm/comm_test.h"
#include "wick.h"

#define MAX_RANKS 8
#define CPU_RANKS 4
#define RUN_TIMEOUT_S 120.0 /* bounds every wait: a hang becomes a failure */

/* A check of the status a call gave; the message must name op. */
#define EXPECT(want, op, call)                                                                                  \
    do {                                                                                                        \
        wk_status s_ = (call);                                                                                  \
        CHECK(s_ == (want) && strstr(wk_last_error(), (op)), "%s gave %s, want %s naming %s", #call,            \
              wk_status_string(s_), wk_status_string(want), (op));                                              \
    } while (0)

/* ---------------------------------------------------------------- devices */
static comm_env env;

/* ---------------------------------------------------------------- elements on the host */
static double get_float(wk_dtype dt, const void *buf, int64_t i)
{
    switch (dt) {
    case WK_F16: return wk_f16_to_f32(((const uint16_t *)buf)[i]);
    case WK_BF16: return wk_bf16_to_f32(((const uint16_t *)buf)[i]);
    case WK_F32: return ((const float *)buf)[i];
    default: return ((const double *)buf)[i];
    }
}

/* ---------------------------------------------------------------- problems and their reference */
typedef enum layer { COLUMN, COLUMN_GATHER, ROW } layer;
static const char *const layer_names[] = {"column", "column gathered", "row"};

/* One layer's full operands on the host, and x W^T on the rows checked. */
typedef struct problem {
    wk_dtype dt;
    int64_t m, k, n;   /* x (m, k), W (n, k) */
    void *x, *w, *xt;  /* as dt, row-major; xt is x^T (k, m) */
    int64_t *rows;     /* the rows of the result checked (all of them, or a sample of a large one) */
    int64_t nrows;
    double *want, *mag; /* (nrows, n): x W^T, and the sum of |x_ik w_jk| over k */
} problem;

/* n values of dt in [-1, 1) into buf (and their values, as stored, into vals): drawn with 52 random bits for
 * f64 and 23 for the others, so each is exact in f32 and rounds once to dt. */
static void fill_random(wk_dtype dt, uint64_t seed, void *buf, double *vals, int64_t n)
{
    uint64_t st = seed * 0xd1342543de82ef95ull + 1;
    int bits = dt == WK_F64 ? 52 : 23;
    for (int64_t i = 0; i < n; i++) {
        double u = ldexp((double)(next_rand(&st) >> (64 - bits)), -bits);
        put_float(dt, buf, i, 2.0 * u - 1.0);
        vals[i] = get_float(dt, buf, i);
    }
}

/* The rows checked: all of a small result; of a large one, rows 0 and 127 of every 128 (the chunks of the row
 * layer are M/4 rows, a multiple of 128 here, so both sides of every boundary are read) and the last. */
static int64_t pick_rows(int64_t m, int64_t *rows)
{
    int64_t n = 0;
    for (int64_t i = 0; i < m; i++)
        if (m <= 256 || i % 128 == 0 || i % 128 == 127 || i == m - 1)
            rows[n++] = i;
    return n;
}

static void reference(problem *p, const double *xv, const double *wv)
{
    for (int64_t a = 0; a < p->nrows; a++) {
        const double *xi = xv + p->rows[a] * p->k;
        for (int64_t j = 0; j < p->n; j++) {
            const double *wj = wv + j * p->k;
            double acc = 0, mag = 0;
            for (int64_t q = 0; q < p->k; q++) {
                acc += xi[q] * wj[q];
                mag += fabs(xi[q] * wj[q]);
            }
            p->want[a * p->n + j] = acc;
            p->mag[a * p->n + j] = mag;
        }
    }
}

static void free_problem(problem *p)
{
    free(p->x);
    free(p->w);
    free(p->xt);
    free(p->rows);
    free(p->want);
    free(p->mag);
    memset(p, 0, sizeof *p);
}

static bool make_problem(problem *p, wk_dtype dt, int64_t m, int64_t k, int64_t n, uint64_t seed)
{
    size_t es = wk_dtype_size(dt);
    *p = (problem){.dt = dt, .m = m, .k = k, .n = n};
    double *xv = malloc((size_t)(m * k) * sizeof *xv + 1), *wv = malloc((size_t)(n * k) * sizeof *wv + 1);
    p->x = malloc((size_t)(m * k) * es + 1);
    p->xt = malloc((size_t)(m * k) * es + 1);
    p->w = malloc((size_t)(n * k) * es + 1);
    p->rows = malloc((size_t)m * sizeof *p->rows + 1);
    bool ok = xv && wv && p->x && p->xt && p->w && p->rows;
    if (ok) {
        fill_random(dt, seed, p->x, xv, m * k);
        fill_random(dt, seed + 1, p->w, wv, n * k);
        for (int64_t i = 0; i < m; i++)
            for (int64_t q = 0; q < k; q++)
                memcpy((char *)p->xt + (size_t)(q * m + i) * es, (char *)p->x + (size_t)(i * k + q) * es, es);
        p->nrows = pick_rows(m, p->rows);
        p->want = malloc((size_t)(p->nrows * n) * sizeof *p->want + 1);
        p->mag = malloc((size_t)(p->nrows * n) * sizeof *p->mag + 1);
        ok = p->want && p->mag;
    }
    if (ok)
        reference(p, xv, wv);
    free(xv);
    free(wv);
    CHECK(ok, "out of host memory for a %lld x %lld x %lld problem", (long long)m, (long long)k, (long long)n);
    if (!ok)
        free_problem(p);
    return ok;
}

/* How far a result may be from x W^T (f64) with magnitude mag = sum |x_k w_k|: each rank's product accumulates
 * K terms in f32 (f16/bf16, wick.h) or in dt, within K u mag (u = eps / 2 of the accumulator), and the reference
 * in f64 within K u64 mag: 2 K eps covers both. Then `roundings` roundings to dt, each within eps/2 of a value
 * at most mag: 1 for the column layer, size + 1 for the row layer (each rank's partial, then the sums of the
 * all_reduce: in f64 and rounded once on the CPU, in dt on GPUs), plus a subnormal step each. */
static double tolerance(wk_dtype dt, int64_t k, int roundings, double mag)
{
    double acc_eps = dt == WK_F64 ? dtype_eps(WK_F64) : dtype_eps(WK_F32);
    return (2.0 * (double)k * acc_eps + roundings * dtype_eps(dt)) * mag + roundings * dtype_tiny(dt);
}

/* ---------------------------------------------------------------- worlds: ranks and how they are driven */
/* One run of a layer: the problem, and whether the ranks get strided views of full tensors. */
typedef struct job {
    layer layer;
    bool views;
    const problem *p;
} job;

/* A communicator's ranks (their step: rank_step) and the job they run. */
typedef struct world {
    comm_pool pool;
    wk_tensor *bad; /* group mode: when set, a call with this 1-D x (an argument error) first, inside the group */
    job job;
    wk_tensor *x[MAX_RANKS], *w[MAX_RANKS], *out[MAX_RANKS];
    bool broken;
} world;

static wk_status call_layer(wk_comm *c, layer l, const wk_tensor *x, const wk_tensor *w, wk_tensor **out)
{
    return l == ROW ? wk_tp_linear_row(c, x, w, out) : wk_tp_linear_column(c, x, w, l == COLUMN_GATHER, out);
}

/* Rank r's call of the job (the pool's step; ctx is the world). Rank 0 first makes the failing call asked for
 * (w->bad, group mode only), so that it stands inside the group. */
static wk_status rank_step(void *ctx, int r)
{
    world *w = ctx;
    if (w->bad && r == 0) {
        wk_tensor *none = NULL;
        EXPECT(WK_ERR_SHAPE, "tp_linear_row", wk_tp_linear_row(w->pool.c[0], w->bad, w->w[0], &none));
        CHECK(none == NULL, "a failed call returned a tensor");
    }
    return call_layer(w->pool.c[r], w->job.layer, w->x[r], w->w[r], &w->out[r]);
}

/* A world of `size` ranks, driven by a thread each or by one thread in a group, its ranks made (broken when that
 * failed). */
static world *open_world(int size, bool threaded)
{
    world *w = calloc(1, sizeof *w);
    if (!w) {
        printf("test_tp: out of memory\n");
        exit(1);
    }
    w->pool = (comm_pool){.name = "test_tp", .size = size, .threaded = threaded, .dev = env.dev,
                          .timeout_s = RUN_TIMEOUT_S, .step = rank_step, .ctx = w};
    bool ok = comm_pool_open(&w->pool);
    if (ok && threaded) {
        for (int r = 0; r < size; r++)
            ok = ok && w->pool.status[r] == WK_OK;
        CHECK(ok, "size %d: init_rank: %s", size, wk_status_string(w->pool.status[0]));
    }
    w->broken = !ok;
    return w;
}

/* Ends the ranks (checking how each ended unless w is broken) and frees w. */
static void close_world(world *w)
{
    comm_pool_close(&w->pool, !w->broken);
    free(w);
}

/* ---------------------------------------------------------------- one job on every rank */
static wk_tensor *upload(wk_device *dev, wk_dtype dt, int64_t d0, int64_t d1, const void *data)
{
    wk_tensor *t = NULL;
    int64_t shape[2] = {d0, d1};
    wk_status s = wk_tensor_from_host(dev, dt, 2, shape, data, &t);
    CHECK(s == WK_OK, "from_host (%lld, %lld) on %s: %s", (long long)d0, (long long)d1, wk_device_name(dev),
          wk_status_string(s));
    return t;
}

/* Columns [c0, c0 + cols) of the row-major (rows, ld) src into dst, contiguous. */
static void copy_cols(const void *src, int64_t rows, int64_t ld, int64_t c0, int64_t cols, size_t es, void *dst)
{
    for (int64_t i = 0; i < rows; i++)
        memcpy((char *)dst + (size_t)(i * cols) * es, (const char *)src + (size_t)(i * ld + c0) * es,
               (size_t)cols * es);
}

/* Rank r's operands as copies of its shard: x (the whole x for the column layer), W's rows or columns. */
static void copied_inputs(world *w, int r)
{
    const problem *p = w->job.p;
    size_t es = wk_dtype_size(p->dt);
    wk_device *dev = env.dev[r];
    if (w->job.layer != ROW) {
        int64_t ns = p->n / w->pool.size;
        w->x[r] = upload(dev, p->dt, p->m, p->k, p->x);
        w->w[r] = upload(dev, p->dt, ns, p->k, (const char *)p->w + (size_t)(r * ns * p->k) * es);
        return;
    }
    int64_t ks = p->k / w->pool.size;
    void *xs = malloc((size_t)(p->m * ks) * es + 1), *ws = malloc((size_t)(p->n * ks) * es + 1);
    CHECK(xs && ws, "out of host memory");
    if (xs && ws) {
        copy_cols(p->x, p->m, p->k, r * ks, ks, es, xs);
        copy_cols(p->w, p->n, p->k, r * ks, ks, es, ws);
        w->x[r] = upload(dev, p->dt, p->m, ks, xs);
        w->w[r] = upload(dev, p->dt, p->n, ks, ws);
    }
    free(xs);
    free(ws);
}

/* Every rank's operands as strided views of x, x^T and W uploaded once per device: the column layer gets x as the
 * transposed view of x^T (strides (1, M)) and W's rows; the row layer narrows x and W along K. */
static void view_inputs(world *w)
{
    const problem *p = w->job.p;
    wk_tensor *full_x[MAX_RANKS] = {0}, *full_w[MAX_RANKS] = {0};
    for (int r = 0; r < w->pool.size; r++) {
        int first = 0; /* the first rank on r's device, whose uploads r shares */
        while (env.dev[first] != env.dev[r])
            first++;
        if (first == r) {
            full_x[r] = w->job.layer == ROW ? upload(env.dev[r], p->dt, p->m, p->k, p->x)
                                            : upload(env.dev[r], p->dt, p->k, p->m, p->xt);
            full_w[r] = upload(env.dev[r], p->dt, p->n, p->k, p->w);
        }
        wk_tensor *fx = full_x[first], *fw = full_w[first];
        wk_status s = fx && fw ? WK_OK : WK_ERR_OUT_OF_MEMORY;
        if (s == WK_OK && w->job.layer == ROW) {
            int64_t ks = p->k / w->pool.size;
            s = wk_narrow(fx, 1, r * ks, ks, &w->x[r]);
            if (s == WK_OK)
                s = wk_narrow(fw, 1, r * ks, ks, &w->w[r]);
        } else if (s == WK_OK) {
            int64_t ns = p->n / w->pool.size;
            s = wk_transpose(fx, 0, 1, &w->x[r]);
            if (s == WK_OK)
                s = wk_narrow(fw, 0, r * ns, ns, &w->w[r]);
        }
        CHECK(s == WK_OK, "views for rank %d: %s", r, wk_status_string(s));
    }
    for (int r = 0; r < w->pool.size; r++) {
        wk_tensor_release(full_x[r]);
        wk_tensor_release(full_w[r]);
    }
}

static void describe(char *buf, size_t cap, const world *w)
{
    const problem *p = w->job.p;
    snprintf(buf, cap, "size %d %s: %s %s, x (%lld, %lld) W (%lld, %lld)%s", w->pool.size,
             w->pool.threaded ? "threads" : "group", layer_names[w->job.layer], wk_dtype_name(p->dt), (long long)p->m,
             (long long)p->k, (long long)p->n, (long long)p->k, w->job.views ? ", strided views" : "");
}

/* Rank r's out: its shape, dtype, device and layout (contiguous; the gathered one the transposed view of an
 * (N, M) buffer), then its values on the rows checked against the reference. */
static void check_output(const world *w, int r, const char *what)
{
    const problem *p = w->job.p;
    const wk_tensor *o = w->out[r];
    layer l = w->job.layer;
    int64_t cols = l == COLUMN ? p->n / w->pool.size : p->n, col0 = l == COLUMN ? r * cols : 0;
    const int64_t *sh = wk_tensor_shape(o), *st = wk_tensor_strides(o);
    bool layout = l == COLUMN_GATHER ? st[0] == 1 && st[1] == p->m : wk_tensor_is_contiguous(o);
    CHECK(wk_tensor_rank(o) == 2 && sh[0] == p->m && sh[1] == cols && wk_tensor_dtype(o) == p->dt &&
              wk_tensor_device(o) == env.dev[r] && layout,
          "%s, rank %d: out is %s (%lld, %lld) strides (%lld, %lld) on %s", what, r,
          wk_dtype_name(wk_tensor_dtype(o)), (long long)sh[0], (long long)sh[1], (long long)st[0],
          (long long)st[1], wk_device_name(wk_tensor_device(o)));
    size_t bytes = (size_t)(p->m * cols) * wk_dtype_size(p->dt);
    void *got = malloc(bytes + 1);
    wk_status s = got ? wk_tensor_to_host(o, got, bytes) : WK_ERR_OUT_OF_MEMORY;
    int64_t wrong = 0;
    char first[200] = "";
    int roundings = l == ROW ? w->pool.size + 1 : 1;
    for (int64_t a = 0; s == WK_OK && a < p->nrows; a++) {
        for (int64_t j = 0; j < cols; j++) {
            double g = get_float(p->dt, got, p->rows[a] * cols + j), want = p->want[a * p->n + col0 + j];
            double tol = tolerance(p->dt, p->k, roundings, p->mag[a * p->n + col0 + j]);
            if (fabs(g - want) <= tol || wrong++ > 0) /* NaN fails */
                continue;
            snprintf(first, sizeof first, "(%lld, %lld) is %.9g, want %.9g within %.3g", (long long)p->rows[a],
                     (long long)j, g, want, tol);
        }
    }
    CHECK(s == WK_OK && wrong == 0, "%s, rank %d: to_host %s, %lld elements wrong, first %s", what, r,
          wk_status_string(s), (long long)wrong, first);
    free(got);
}

static void release_tensors(world *w)
{
    for (int r = 0; r < w->pool.size; r++) {
        wk_tensor_release(w->x[r]);
        wk_tensor_release(w->w[r]);
        wk_tensor_release(w->out[r]);
        w->x[r] = w->w[r] = w->out[r] = NULL;
    }
}

/* Runs j on every rank of w and checks every output. False when a call failed (w is then broken). */
static bool run_job(world *w, const job *j)
{
    char what[200];
    w->job = *j;
    describe(what, sizeof what, w);
    if (j->views) {
        view_inputs(w);
    } else {
        for (int r = 0; r < w->pool.size; r++)
            copied_inputs(w, r);
    }
    bool ok = true;
    for (int r = 0; r < w->pool.size; r++)
        ok = ok && w->x[r] && w->w[r];
    if (ok) {
        comm_pool_run(&w->pool);
        for (int r = 0; r < w->pool.size; r++) {
            wk_status s = w->pool.status[r];
            CHECK(s == WK_OK && w->out[r], "%s, rank %d: %s", what, r, wk_status_string(s));
            ok = ok && s == WK_OK && w->out[r];
        }
    }
    for (int r = 0; ok && r < w->pool.size; r++)
        check_output(w, r, what);
    release_tensors(w);
    w->broken = !ok;
    return ok;
}

/* ---------------------------------------------------------------- the cases */
/* Extents per rank: the column layer's x (m, k) and W (size * n, k); the row layer's x (m, size * k) and W (n,
 * size * k). The last is the chunked one (each rank's product 2048 x 1024 x 4096 = 2^33 multiply-adds), GPUs
 * only, at 2 ranks and at the most the machine has (a host reference of it takes about a second). */
static const struct {
    int64_t m, k, n;
    bool chunked;
} shapes[] = {{3, 5, 2, false},  {7, 33, 9, false}, {1, 1, 1, false},       {0, 5, 2, false},
              {3, 0, 2, false},  {3, 5, 0, false},  {2048, 4096, 1024, true}};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])
static const wk_dtype dtypes[] = {WK_F32, WK_F64, WK_BF16, WK_F16};

/* Every layer and input variant of one dtype and shape, on both worlds of one size. */
static void run_shape(world *const *worlds, int size, wk_dtype dt, int si, uint64_t seed)
{
    int64_t m = shapes[si].m, k = shapes[si].k, n = shapes[si].n;
    problem col, row;
    if (!make_problem(&col, dt, m, k, size * n, seed))
        return;
    if (!make_problem(&row, dt, m, size * k, n, seed + 7)) {
        free_problem(&col);
        return;
    }
    for (int l = COLUMN; l <= ROW; l++)
        for (int views = 0; views < 2; views++)
            for (int i = 0; i < 2; i++) {
                job j = {.layer = (layer)l, .views = views, .p = l == ROW ? &row : &col};
                if (!worlds[i]->broken)
                    run_job(worlds[i], &j);
            }
    free_problem(&col);
    free_problem(&row);
}

static void run_size(int size)
{
    int checks0 = checks, failures0 = failures;
    double t0 = comm_now_s();
    world *worlds[2] = {open_world(size, true), open_world(size, false)};
    for (int d = 0; d < 4; d++)
        for (int si = 0; si < NSHAPES; si++) {
            if (shapes[si].chunked && (!env.gpu || (size != 2 && size != env.max_ranks)))
                continue;
            run_shape(worlds, size, dtypes[d], si, (uint64_t)(size * 1000 + d * 100 + si * 10));
        }
    close_world(worlds[0]);
    close_world(worlds[1]);
    printf("layers, %d rank(s), threads and group: %d checks, %d failed (%.1f s)\n", size, checks - checks0,
           failures - failures0, comm_now_s() - t0);
}

/* ---------------------------------------------------------------- argument errors */
/* A tensor on a device that is not rank 0's: rank 1's GPU, the CPU for a lone GPU, a GPU for the CPU (NULL when
 * the build or machine has none). */
static wk_device *other_device(void)
{
    wk_device *other = NULL;
    if (env.gpu && env.max_ranks > 1)
        return env.dev[1];
    if (wk_device_get(env.gpu ? "cpu" : "gpu:0", &other) != WK_OK)
        return NULL;
    return other;
}

static wk_tensor *zeros(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wk_tensor **keep)
{
    CHECK(wk_zeros(dev, dt, rank, shape, keep) == WK_OK, "zeros on %s", wk_device_name(dev));
    return *keep;
}

/* Every argument error of one layer on rank 0 of c: the status naming the op, and *out left alone. */
static void errors_of(wk_comm *c, layer l, wk_tensor *const *t, wk_device *other)
{
    const char *op = l == ROW ? "tp_linear_row" : "tp_linear_column";
    wk_tensor *x = t[0], *w = t[1], *w_k4 = t[2], *xi = t[3], *wi = t[4], *w64 = t[5], *x3 = t[6], *w1 = t[7];
    wk_tensor *sentinel = t[0], *out = sentinel;
    EXPECT(WK_ERR_INVALID_ARGUMENT, op, call_layer(NULL, l, x, w, &out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, op, call_layer(c, l, x, w, NULL));
    EXPECT(WK_ERR_INVALID_ARGUMENT, op, call_layer(c, l, NULL, w, &out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, op, call_layer(c, l, x, NULL, &out));
    EXPECT(WK_ERR_SHAPE, op, call_layer(c, l, x, w_k4, &out));  /* K 5 against 4 */
    EXPECT(WK_ERR_DTYPE, op, call_layer(c, l, xi, wi, &out));   /* i32: float dtypes only */
    EXPECT(WK_ERR_DTYPE, op, call_layer(c, l, x, w64, &out));   /* f32 against f64 */
    EXPECT(WK_ERR_SHAPE, op, call_layer(c, l, x3, w, &out));    /* 3-D x */
    EXPECT(WK_ERR_SHAPE, op, call_layer(c, l, x, w1, &out));    /* 1-D w */
    if (other) {
        wk_tensor *ox = NULL, *ow = NULL;
        zeros(other, WK_F32, 2, wk_tensor_shape(x), &ox);
        zeros(other, WK_F32, 2, wk_tensor_shape(w), &ow);
        EXPECT(WK_ERR_DEVICE, op, call_layer(c, l, ox, w, &out));
        EXPECT(WK_ERR_DEVICE, op, call_layer(c, l, x, ow, &out));
        wk_tensor_release(ox);
        wk_tensor_release(ow);
    }
    CHECK(out == sentinel, "%s: a failed call wrote out", op);
}

/* The errors of every layer on a communicator of min(2, devices) ranks, then a row layer of every rank in one
 * group that also holds a failing call: the errors broke nothing. */
static void run_errors(void)
{
    int checks0 = checks, failures0 = failures;
    int size = env.max_ranks < 2 ? env.max_ranks : 2;
    world *w = open_world(size, false);
    wk_device *dev = env.dev[0], *other = other_device();
    if (!other)
        printf("  skipped: a tensor on another device (no device besides %s here)\n", env.backend);
    int64_t s35[2] = {3, 5}, s25[2] = {2, 5}, s24[2] = {2, 4}, s135[3] = {1, 3, 5}, s5 = 5;
    wk_tensor *t[8] = {0};
    zeros(dev, WK_F32, 2, s35, &t[0]);
    zeros(dev, WK_F32, 2, s25, &t[1]);
    zeros(dev, WK_F32, 2, s24, &t[2]);
    zeros(dev, WK_I32, 2, s35, &t[3]);
    zeros(dev, WK_I32, 2, s25, &t[4]);
    zeros(dev, WK_F64, 2, s25, &t[5]);
    zeros(dev, WK_F32, 3, s135, &t[6]);
    zeros(dev, WK_F32, 1, &s5, &t[7]);
    for (int l = COLUMN; !w->broken && l <= ROW; l++)
        errors_of(w->pool.c[0], (layer)l, t, other);
    problem p;
    if (!w->broken && make_problem(&p, WK_F32, 3, 5 * size, 4, 99)) {
        w->bad = t[7];
        job j = {.layer = ROW, .p = &p};
        run_job(w, &j);
        free_problem(&p);
    }
    for (int i = 0; i < 8; i++)
        wk_tensor_release(t[i]);
    close_world(w);
    printf("argument errors, %d rank(s): %d checks, %d failed\n", size, checks - checks0, failures - failures0);
}

/* ---------------------------------------------------------------- a rank that does not come */
typedef struct absent {
    comm_pool *pool;
    wk_tensor *x[2], *w[2], *out[2];
    char why[400]; /* rank 0's message (wk_last_error is per thread) */
} absent;

/* Rank 0 calls the gathered layer; rank 1 never does. */
static wk_status absent_step(void *ctx, int r)
{
    absent *a = ctx;
    if (r != 0)
        return WK_OK;
    wk_status s = wk_tp_linear_column(a->pool->c[0], a->x[0], a->w[0], true, &a->out[0]);
    snprintf(a->why, sizeof a->why, "%s", wk_last_error());
    return s;
}

/* GPUs, two ranks on their own threads with a 1 s timeout: the gathered layer's ranks meet on the host before the
 * copy engines exchange blocks (every rank in this process), so rank 0 waits for rank 1, which never calls:
 * WK_ERR_COMM naming the timeout, no tensor, and the communicator broken afterwards. (Through the library alone
 * the call would return at once, its exchange left queued on the device.) */
static void run_absent_peer(void)
{
    const char *peer_copy = getenv("WICK_TP_PEER_COPY");
    if (!env.gpu || env.max_ranks < 2 || (peer_copy && strcmp(peer_copy, "0") == 0))
        return;
    int checks0 = checks, failures0 = failures;
    absent a = {0};
    world *w = calloc(1, sizeof *w);
    if (!w)
        return;
    w->pool = (comm_pool){.name = "test_tp", .size = 2, .threaded = true, .dev = env.dev, .timeout_s = 1.0,
                          .step = absent_step, .ctx = &a};
    a.pool = &w->pool;
    bool ok = comm_pool_open(&w->pool) && w->pool.status[0] == WK_OK && w->pool.status[1] == WK_OK;
    CHECK(ok, "absent peer: init_rank");
    int64_t xs[2] = {8, 16}, ws[2] = {4, 16};
    for (int r = 0; ok && r < 2; r++)
        ok = zeros(env.dev[r], WK_F32, 2, xs, &a.x[r]) && zeros(env.dev[r], WK_F32, 2, ws, &a.w[r]);
    if (ok) {
        comm_pool_run(&w->pool);
        CHECK(w->pool.status[0] == WK_ERR_COMM && strstr(a.why, "timed out"),
              "absent peer: rank 0 gave %s (%s), want WK_ERR_COMM naming the timeout",
              wk_status_string(w->pool.status[0]), a.why);
        CHECK(a.out[0] == NULL, "absent peer: a failed call returned a tensor");
        wk_tensor *again = NULL;
        EXPECT(WK_ERR_COMM, "broken", wk_tp_linear_column(w->pool.c[0], a.x[0], a.w[0], true, &again));
    }
    for (int r = 0; r < 2; r++) {
        wk_tensor_release(a.x[r]);
        wk_tensor_release(a.w[r]);
        wk_tensor_release(a.out[r]);
    }
    w->broken = true; /* its ranks end as they can */
    close_world(w);
    printf("a peer that does not come: %d checks, %d failed\n", checks - checks0, failures - failures0);
}

int main(void)
{
    int rc = comm_env_setup(&env, "test_tp", CPU_RANKS, MAX_RANKS);
    if (rc != 0)
        return rc;
    for (int size = 1; size <= env.max_ranks; size++)
        run_size(size);
    run_errors();
    run_absent_peer();
    printf("test_tp on %s: %d passed, %d failed\n", env.backend, checks - failures, failures);
    return failures ? 1 : 0;
}
