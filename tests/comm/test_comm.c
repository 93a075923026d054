/* test_comm.c: wick's communicators and collectives (wick.h, "communicators and collectives") through the public
 * API: every collective x dtype x op x root x element count (0-d, 0, 1, 7; ~70k with a thinner set of op, root and
 * in-place combinations, run_block) on 1..4 ranks, inputs differing per rank and element, outputs poisoned, driven by a
 * thread per rank (wk_comm_init_rank) and by one thread issuing every rank's calls in one group
 * (wk_comm_init_all), checked against a reference computed here (exact integers that wrap; floats in f64, in rank
 * order, rounded once: wick.h's rule for the CPU communicator); the accessors; every argument error (the status,
 * nothing written, the communicator still working); and on the CPU the failures: a join that times out, a peer
 * that never calls, mismatched collectives, wk_comm_abort of a blocked call. WICK_COMM_BACKEND picks the devices:
 * "cpu" (default; every rank on "cpu") or "cuda" / "rocm" (rank r on "<backend>:r", as many ranks as GPUs; exit 77
 * when the backend or its collective library is absent). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "comm/comm_test.h"
#include "wick.h"
#include "wick_dlpack.h"

#define MAX_RANKS 4
#define RUN_TIMEOUT_S 30.0 /* bounds every wait of the correctness runs: a hang becomes a failure */

/* A check with the status a call gave and the one wanted; `op`, when not NULL, must be named by the message. */
#define EXPECT(want, op, call)                                                                                  \
    do {                                                                                                        \
        wk_status s_ = (call);                                                                                  \
        const char *op_ = (op);                                                                                 \
        CHECK(s_ == (want) && (!op_ || strstr(wk_last_error(), op_)), "%s gave %s, want %s naming %s", #call,   \
              wk_status_string(s_), wk_status_string(want), op_ ? op_ : "-");                                   \
    } while (0)

/* ---------------------------------------------------------------- devices */
static comm_env env;

static void sleep_s(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

/* ---------------------------------------------------------------- elements on the host */
static uint64_t int_mask(wk_dtype dt)
{
    size_t bytes = wk_dtype_size(dt);
    return bytes >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * bytes)) - 1;
}

/* Element i of an integer buffer: its bits, zero-extended. */
static uint64_t get_int(wk_dtype dt, const void *buf, int64_t i)
{
    switch (dt) {
    case WK_U8: return ((const uint8_t *)buf)[i];
    case WK_U32:
    case WK_I32: return ((const uint32_t *)buf)[i];
    default: return ((const uint64_t *)buf)[i];
    }
}

static void put_int(wk_dtype dt, void *buf, int64_t i, uint64_t v)
{
    switch (dt) {
    case WK_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case WK_U32:
    case WK_I32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    default: ((uint64_t *)buf)[i] = v; break;
    }
}

/* The order MIN/MAX compare bits in: signed for i32/i64, unsigned for u8/u32 (which fit int64). */
static int64_t int_key(wk_dtype dt, uint64_t bits)
{
    if (dt == WK_I32)
        return (int32_t)(uint32_t)bits;
    return (int64_t)bits;
}

/* Every f16 and bf16 value, from wk_f16_to_f32 / wk_bf16_to_f32 once: the checks read millions of elements. */
static float f16_values[65536], bf16_values[65536];

static void make_half_tables(void)
{
    for (uint32_t h = 0; h < 65536; h++) {
        f16_values[h] = wk_f16_to_f32((uint16_t)h);
        bf16_values[h] = wk_bf16_to_f32((uint16_t)h);
    }
}

static double get_float(wk_dtype dt, const void *buf, int64_t i)
{
    switch (dt) {
    case WK_F16: return f16_values[((const uint16_t *)buf)[i]];
    case WK_BF16: return bf16_values[((const uint16_t *)buf)[i]];
    case WK_F32: return ((const float *)buf)[i];
    default: return ((const double *)buf)[i];
    }
}

/* v rounded once, to nearest even, to a binary float of p significand bits whose smallest normal is 2^emin,
 * infinite past max: f64 -> f16/bf16 without passing through f32 (which would round twice). */
static double round_bits(double v, int p, int emin, double max)
{
    if (v == 0 || !isfinite(v))
        return v;
    int e;
    frexp(v, &e); /* |v| in [2^(e-1), 2^e): one ulp is 2^(e-p), or 2^(emin-p+1) among the subnormals */
    int ulp_exp = e - p > emin - p + 1 ? e - p : emin - p + 1;
    double r = ldexp(nearbyint(ldexp(v, -ulp_exp)), ulp_exp);
    return fabs(r) > max ? copysign(INFINITY, v) : r;
}

static double round_to(wk_dtype dt, double v)
{
    switch (dt) {
    case WK_F16: return round_bits(v, 11, -14, 65504.0);
    case WK_BF16: return round_bits(v, 8, -126, 0x1.fep127);
    case WK_F32: return (float)v;
    default: return v;
    }
}

/* ---------------------------------------------------------------- inputs */
/* n elements of dt from seed: integers over all their bits (so sums and products wrap); floats in [-4, 4), or of
 * magnitude [0.5, 2) for products (4 ranks stay far from overflow and underflow, even in f16). The floats are
 * drawn with 52 random bits for f64 and 23 for the others, so each is exact in f32 and put_float's conversion
 * (wk_f32_to_f16 / _bf16, the cast to float) rounds it once. */
static void fill_input(wk_dtype dt, bool for_prod, uint64_t seed, void *buf, int64_t n)
{
    uint64_t st = seed * 0xd1342543de82ef95ull + 1;
    if (!wk_dtype_is_float(dt)) {
        for (int64_t i = 0; i < n; i++)
            put_int(dt, buf, i, next_rand(&st));
        return;
    }
    int bits = dt == WK_F64 ? 52 : 23;
    for (int64_t i = 0; i < n; i++) {
        uint64_t b = next_rand(&st);
        double u = (double)(b >> (64 - bits)) * (bits == 52 ? 0x1p-52 : 0x1p-23); /* [0, 1) */
        double v = for_prod ? (1.0 + u) * ((b & 1) ? 0.5 : 1.0) * ((b & 2) ? -1.0 : 1.0) : 8.0 * u - 4.0;
        put_float(dt, buf, i, v);
    }
}

/* Outputs are poisoned before each collective so an element left unwritten fails: 0xAB bytes, NaN for floats. */
static void poison_fill(wk_dtype dt, void *buf, int64_t n)
{
    if (!wk_dtype_is_float(dt)) {
        memset(buf, 0xAB, (size_t)n * wk_dtype_size(dt));
        return;
    }
    for (int64_t i = 0; i < n; i++)
        put_float(dt, buf, i, NAN);
}

/* ---------------------------------------------------------------- the reference */
/* One expected output element: the bits of an integer, or a float's value and how far from it a result may be. */
typedef struct expect {
    uint64_t bits;
    double want, tol;
} expect;

static uint64_t int_combine(wk_dtype dt, wk_comm_op op, uint64_t a, uint64_t b)
{
    switch (op) {
    case WK_COMM_SUM: return (a + b) & int_mask(dt);
    case WK_COMM_PROD: return (a * b) & int_mask(dt);
    case WK_COMM_MIN: return int_key(dt, b) < int_key(dt, a) ? b : a;
    default: return int_key(dt, b) > int_key(dt, a) ? b : a; /* MAX; AVG is float-only */
    }
}

/* A float result v: on the CPU exactly v rounded once to dt (wick.h: f64 in rank order, one rounding); on a GPU,
 * which sums in dt in its own order, within the error of n - 1 additions, n scalings (AVG) and a final rounding,
 * each at most half an epsilon of mag (the sum of the terms' magnitudes; |v| for products; 0 for copies, MIN and
 * MAX, which must be exact), plus a subnormal step each. */
static expect float_expect(wk_dtype dt, int n, double v, double mag)
{
    if (env.gpu)
        return (expect){.want = v, .tol = mag > 0 ? (n + 1) * dtype_eps(dt) * mag + n * dtype_tiny(dt) : 0};
    return (expect){.want = mag > 0 ? round_to(dt, v) : v}; /* mag 0: v is an element already */
}

/* Element i reduced over the n ranks' buffers in rank order. */
static expect reduce_ref(wk_dtype dt, wk_comm_op op, int n, void *const *in, int64_t i)
{
    if (!wk_dtype_is_float(dt)) {
        uint64_t acc = get_int(dt, in[0], i);
        for (int r = 1; r < n; r++)
            acc = int_combine(dt, op, acc, get_int(dt, in[r], i));
        return (expect){.bits = acc};
    }
    double acc = get_float(dt, in[0], i), sum_abs = fabs(acc);
    for (int r = 1; r < n; r++) {
        double x = get_float(dt, in[r], i);
        sum_abs += fabs(x);
        if (op == WK_COMM_SUM || op == WK_COMM_AVG)
            acc += x;
        else if (op == WK_COMM_PROD)
            acc *= x;
        else if (op == WK_COMM_MIN)
            acc = x < acc ? x : acc;
        else
            acc = x > acc ? x : acc;
    }
    if (op == WK_COMM_AVG)
        acc /= n, sum_abs /= n;
    double mag = op == WK_COMM_PROD ? fabs(acc) : op == WK_COMM_MIN || op == WK_COMM_MAX ? 0 : sum_abs;
    return float_expect(dt, n, acc, mag);
}

/* Element i of buf, copied: exact everywhere. */
static expect copy_ref(wk_dtype dt, const void *buf, int64_t i)
{
    if (!wk_dtype_is_float(dt))
        return (expect){.bits = get_int(dt, buf, i)};
    return float_expect(dt, 1, get_float(dt, buf, i), 0);
}

/* Counts the elements of got (n of dt) that miss e; the first miss is described in first. */
static int64_t count_wrong(wk_dtype dt, const void *got, const expect *e, int64_t n, char *first, size_t cap)
{
    int64_t wrong = 0;
    bool fl = wk_dtype_is_float(dt);
    for (int64_t i = 0; i < n; i++) {
        double g = fl ? get_float(dt, got, i) : 0;
        bool ok = fl ? fabs(g - e[i].want) <= e[i].tol : get_int(dt, got, i) == e[i].bits; /* NaN fails */
        if (ok || wrong++ > 0)
            continue;
        if (fl)
            snprintf(first, cap, "element %lld is %.17g, want %.17g within %g", (long long)i, g, e[i].want, e[i].tol);
        else
            snprintf(first, cap, "element %lld is 0x%llx, want 0x%llx", (long long)i,
                     (unsigned long long)get_int(dt, got, i), (unsigned long long)e[i].bits);
    }
    return wrong;
}

/* ---------------------------------------------------------------- steps: one collective on every rank */
typedef enum kind { K_ALL_REDUCE, K_ALL_GATHER, K_REDUCE_SCATTER, K_BROADCAST, K_REDUCE, K_SENDRECV } kind;
static const char *const kind_names[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                                         "send/recv ring"};

typedef struct step {
    kind kind;
    wk_dtype dt;
    wk_comm_op op;
    int root;
    bool inplace;     /* out is x (all_reduce; broadcast and reduce on the root) */
    int brank;        /* one rank's block: x of all_gather, out of reduce_scatter, x and out of the others */
    int64_t block[2];
} step;

/* The blocks: 0-d, and 0, 1, 7 and 70017 (3 x 23339, a prime) elements. */
static const struct {
    int rank;
    int64_t block[2];
} blocks[] = {{0, {1, 1}}, {1, {0, 1}}, {1, {1, 1}}, {1, {7, 1}}, {2, {3, 23339}}};
#define NBLOCKS (int)(sizeof blocks / sizeof blocks[0])

/* A communicator's ranks (its step: issue) and the step they run. */
typedef struct world {
    comm_pool pool;
    step st;
    wk_tensor *x[MAX_RANKS], *out[MAX_RANKS]; /* NULL where a rank has none; out == x in place */
    uint64_t seq; /* steps run: seeds the inputs */
    bool broken;
    /* host buffers for the largest step (size x the largest block, of 8-byte elements), reused */
    void *in[MAX_RANKS], *poison, *got;
    expect *e;
} world;

static int64_t numel_of(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    return n;
}

static int x_shape(const world *w, const step *s, int64_t *shape)
{
    memcpy(shape, s->block, sizeof s->block);
    if (s->kind == K_REDUCE_SCATTER)
        shape[0] *= w->pool.size;
    return s->brank;
}

static int out_shape(const world *w, const step *s, int64_t *shape)
{
    memcpy(shape, s->block, sizeof s->block);
    if (s->kind != K_ALL_GATHER)
        return s->brank;
    shape[0] = s->brank == 0 ? w->pool.size : shape[0] * w->pool.size;
    return s->brank == 0 ? 1 : s->brank;
}

static void describe(char *buf, size_t cap, const world *w, const step *s)
{
    bool reduction = s->kind == K_ALL_REDUCE || s->kind == K_REDUCE || s->kind == K_REDUCE_SCATTER;
    char root[16] = "";
    if (s->kind == K_BROADCAST || s->kind == K_REDUCE)
        snprintf(root, sizeof root, " root %d", s->root);
    snprintf(buf, cap, "%d rank(s), %s: %s %s%s%s%s%s, block of %lld (rank %d)", w->pool.size,
             w->pool.threaded ? "threads" : "group", kind_names[s->kind], wk_dtype_name(s->dt), reduction ? " " : "",
             reduction ? wk_comm_op_name(s->op) : "", root, s->inplace ? " in place" : "",
             (long long)numel_of(s->brank, s->block), s->brank);
}

static wk_status sendrecv_ring(world *w, int r)
{
    int n = w->pool.size;
    wk_status s = wk_comm_group_begin();
    wk_status a = s == WK_OK ? wk_comm_send(w->pool.c[r], w->x[r], (r + 1) % n) : s;
    wk_status b = s == WK_OK ? wk_comm_recv(w->pool.c[r], w->out[r], (r + n - 1) % n) : s;
    wk_status e = s == WK_OK ? wk_comm_group_end() : s;
    return a != WK_OK ? a : b != WK_OK ? b : e;
}

/* Rank r's call of the step (the pool's step; ctx is the world). */
static wk_status issue(void *ctx, int r)
{
    world *w = ctx;
    const step *s = &w->st;
    wk_comm *c = w->pool.c[r];
    switch (s->kind) {
    case K_ALL_REDUCE: return wk_comm_all_reduce(c, w->x[r], s->op, w->out[r]);
    case K_ALL_GATHER: return wk_comm_all_gather(c, w->x[r], w->out[r]);
    case K_REDUCE_SCATTER: return wk_comm_reduce_scatter(c, w->x[r], s->op, w->out[r]);
    case K_BROADCAST: return wk_comm_broadcast(c, w->x[r], s->root, w->out[r]);
    case K_REDUCE: return wk_comm_reduce(c, w->x[r], s->op, s->root, w->out[r]);
    case K_SENDRECV: return sendrecv_ring(w, r);
    }
    return WK_ERR_INTERNAL;
}

static wk_tensor *upload(int r, wk_dtype dt, int rank, const int64_t *shape, const void *data)
{
    wk_tensor *t = NULL;
    wk_status s = wk_tensor_from_host(env.dev[r], dt, rank, shape, data, &t);
    CHECK(s == WK_OK, "from_host on rank %d: %s", r, wk_status_string(s));
    return s == WK_OK ? t : NULL;
}

/* Each rank's x (its input in[r]; none off the root of a broadcast) and out (poisoned; none off the root of a
 * reduce; x itself in place). False when an upload failed. */
static bool make_tensors(world *w, void *const *in, const void *poison)
{
    const step *s = &w->st;
    int64_t xs[2], os[2];
    int xr = x_shape(w, s, xs), orank = out_shape(w, s, os);
    bool ok = true;
    for (int r = 0; r < w->pool.size; r++) {
        bool has_x = s->kind != K_BROADCAST || r == s->root, has_out = s->kind != K_REDUCE || r == s->root;
        w->x[r] = has_x ? upload(r, s->dt, xr, xs, in[r]) : NULL;
        if (s->inplace && has_x && has_out)
            w->out[r] = w->x[r];
        else
            w->out[r] = has_out ? upload(r, s->dt, orank, os, poison) : NULL;
        ok = ok && (w->x[r] || !has_x) && (w->out[r] || !has_out);
    }
    return ok;
}

static void release_tensors(world *w)
{
    for (int r = 0; r < w->pool.size; r++) {
        if (w->out[r] != w->x[r])
            wk_tensor_release(w->out[r]);
        wk_tensor_release(w->x[r]);
        w->x[r] = w->out[r] = NULL;
    }
}

/* Every rank's expected output, concatenated: the reduction of x (reduce_scatter's rank r takes block r), or
 * the inputs of every rank in rank order (all_gather; the ring's rank r takes block r - 1), or the root's x. */
static expect *build_expect(const world *w, void *const *in, int64_t n_in)
{
    const step *s = &w->st;
    bool reduction = s->kind == K_ALL_REDUCE || s->kind == K_REDUCE || s->kind == K_REDUCE_SCATTER;
    bool all = s->kind == K_ALL_GATHER || s->kind == K_SENDRECV;
    int64_t total = all ? n_in * w->pool.size : n_in;
    expect *e = w->e;
    for (int64_t j = 0; j < total; j++) {
        if (reduction)
            e[j] = reduce_ref(s->dt, s->op, w->pool.size, in, j);
        else if (all)
            e[j] = copy_ref(s->dt, in[j / n_in], j % n_in);
        else
            e[j] = copy_ref(s->dt, in[s->root], j);
    }
    return e;
}

static int64_t expect_offset(const world *w, int r, int64_t n_in, int64_t n_out)
{
    if (w->st.kind == K_REDUCE_SCATTER)
        return r * n_out;
    if (w->st.kind == K_SENDRECV)
        return ((r + w->pool.size - 1) % w->pool.size) * n_in;
    return 0;
}

/* Every output against the reference, and every input not written in place unchanged. */
static void check_results(world *w, void *const *in, int64_t n_in, int64_t n_out, const char *what)
{
    size_t es = wk_dtype_size(w->st.dt);
    expect *e = build_expect(w, in, n_in);
    void *got = w->got;
    for (int r = 0; r < w->pool.size; r++) {
        char first[200] = "";
        if (w->out[r]) {
            wk_status s = wk_tensor_to_host(w->out[r], got, (size_t)n_out * es);
            int64_t wrong = s == WK_OK ? count_wrong(w->st.dt, got, e + expect_offset(w, r, n_in, n_out), n_out,
                                                     first, sizeof first)
                                       : n_out;
            CHECK(s == WK_OK && wrong == 0, "%s, rank %d: %lld of %lld elements wrong (%s), to_host %s", what, r,
                  (long long)wrong, (long long)n_out, first, wk_status_string(s));
        }
        if (w->x[r] && w->x[r] != w->out[r]) {
            wk_status s = wk_tensor_to_host(w->x[r], got, (size_t)n_in * es);
            CHECK(s == WK_OK && memcmp(got, in[r], (size_t)n_in * es) == 0, "%s, rank %d: x changed (to_host %s)",
                  what, r, wk_status_string(s));
        }
    }
}

/* Runs w->st on every rank from fresh inputs and checks it. False when a call failed (w is then broken). */
static bool run_step(world *w)
{
    const step *s = &w->st;
    char what[160];
    describe(what, sizeof what, w, s);
    int64_t xs[2], os[2];
    int64_t n_in = numel_of(x_shape(w, s, xs), xs), n_out = numel_of(out_shape(w, s, os), os);
    void *const *in = w->in;
    w->seq++;
    for (int r = 0; r < w->pool.size; r++)
        fill_input(s->dt, s->op == WK_COMM_PROD, w->seq * MAX_RANKS + (uint64_t)r + (w->pool.threaded ? 1u << 30 : 0),
                   in[r], n_in);
    poison_fill(s->dt, w->poison, n_out);
    bool ok = make_tensors(w, in, w->poison);
    if (ok) {
        comm_pool_run(&w->pool);
        for (int r = 0; r < w->pool.size; r++) {
            CHECK(w->pool.status[r] == WK_OK, "%s, rank %d: %s", what, r, wk_status_string(w->pool.status[r]));
            ok = ok && w->pool.status[r] == WK_OK;
        }
    }
    if (ok)
        check_results(w, in, n_in, n_out, what);
    release_tensors(w);
    w->broken = !ok;
    return ok;
}

static bool run_one(world *w, const step *base, kind k, int root, bool inplace)
{
    w->st = *base;
    w->st.kind = k;
    w->st.root = root;
    w->st.inplace = inplace;
    return run_step(w);
}

/* Every collective over one dtype and block: each reduction with every op (AVG for floats only), all_reduce out of
 * place and in place, reduce to every root (in place on the root for alternate op/root pairs); broadcast from
 * every root, out of place and in place; all_gather; the send/recv ring. The ~70k block, which costs most, runs
 * a thinner set (the time limit of a 2-core CI machine under ASan): every op out of place, in place with SUM,
 * reduce to one root per op (rotating), broadcast from every root in place on alternate roots, and
 * reduce_scatter to blocks of 1 x 23339 (x of size x 23339 elements, ~70k on 3 ranks). False once w is broken. */
static bool run_block(world *w, wk_dtype dt, int b)
{
    step s = {.dt = dt, .brank = blocks[b].rank, .block = {blocks[b].block[0], blocks[b].block[1]}};
    int nops = wk_dtype_is_float(dt) ? WK_COMM_OP_COUNT : WK_COMM_AVG;
    bool ok = true, big = numel_of(s.brank, s.block) > 1000;
    for (int op = 0; ok && op < nops; op++) {
        s.op = (wk_comm_op)op;
        for (int inplace = 0; ok && inplace < (big && op != WK_COMM_SUM ? 1 : 2); inplace++)
            ok = run_one(w, &s, K_ALL_REDUCE, 0, inplace);
        if (ok && s.brank > 0) { /* reduce_scatter's out has a dim 0; the big one's x is size x 23339 */
            step rs = s;
            rs.block[0] = big ? 1 : rs.block[0];
            ok = run_one(w, &rs, K_REDUCE_SCATTER, 0, false);
        }
        for (int root = big ? op % w->pool.size : 0; ok && root < (big ? op % w->pool.size + 1 : w->pool.size); root++)
            ok = run_one(w, &s, K_REDUCE, root, (op + root) % 2 == 1);
    }
    s.op = WK_COMM_SUM;
    for (int root = 0; ok && root < w->pool.size; root++)
        for (int inplace = big ? root % 2 : 0; ok && inplace < (big ? root % 2 + 1 : 2); inplace++)
            ok = run_one(w, &s, K_BROADCAST, root, inplace);
    if (ok)
        ok = run_one(w, &s, K_ALL_GATHER, 0, false);
    if (ok)
        ok = run_one(w, &s, K_SENDRECV, 0, false);
    return ok;
}

/* ---------------------------------------------------------------- a world per size and drive mode */
static void check_accessors(const world *w)
{
    const comm_pool *p = &w->pool;
    for (int r = 0; r < p->size; r++) {
        wk_comm *c = p->c[r];
        CHECK(wk_comm_rank(c) == r && wk_comm_size(c) == p->size && wk_comm_device(c) == env.dev[r],
              "size %d rank %d: accessors give rank %d, size %d, device %s", p->size, r, wk_comm_rank(c),
              wk_comm_size(c), wk_comm_device(c) ? wk_device_name(wk_comm_device(c)) : "NULL");
    }
}

/* A world of `size` ranks, driven by a thread each or by one thread in groups, with host buffers for the
 * largest step; its ranks are not made yet. */
static world *new_world(int size, bool threaded)
{
    int64_t most = 0;
    for (int b = 0; b < NBLOCKS; b++)
        most = numel_of(blocks[b].rank, blocks[b].block) > most ? numel_of(blocks[b].rank, blocks[b].block) : most;
    size_t n = (size_t)(most * size);
    world *w = calloc(1, sizeof *w);
    bool ok = w && (w->poison = malloc(n * 8)) && (w->got = malloc(n * 8)) && (w->e = malloc(n * sizeof *w->e));
    for (int r = 0; ok && r < size; r++)
        ok = (w->in[r] = malloc(n * 8)) != NULL;
    if (!ok) {
        printf("test_comm: out of memory\n");
        exit(1);
    }
    w->pool = (comm_pool){.name = "test_comm", .size = size, .threaded = threaded, .dev = env.dev,
                          .timeout_s = RUN_TIMEOUT_S, .step = issue, .ctx = w};
    return w;
}

static void free_world(world *w)
{
    for (int r = 0; r < MAX_RANKS; r++)
        free(w->in[r]);
    free(w->poison);
    free(w->got);
    free(w->e);
    free(w);
}

/* Case group 1 (and 2's accessors) for one size and drive mode. */
static void run_world(int size, bool threaded)
{
    world *w = new_world(size, threaded);
    int checks0 = checks, failures0 = failures;
    double t0 = comm_now_s();
    bool ok = comm_pool_open(&w->pool), opened = ok;
    for (int r = 0; opened && threaded && r < size; r++) {
        CHECK(w->pool.status[r] == WK_OK && w->pool.c[r], "size %d: init_rank %d: %s", size, r,
              wk_status_string(w->pool.status[r]));
        ok = ok && w->pool.status[r] == WK_OK;
    }
    w->broken = !ok;
    if (ok)
        check_accessors(w);
    for (int dt = 0; ok && dt < WK_DTYPE_COUNT; dt++)
        for (int b = 0; ok && b < NBLOCKS; b++)
            ok = run_block(w, (wk_dtype)dt, b);
    comm_pool_close(&w->pool, !w->broken);
    printf("collectives, %d rank(s), %s: %d checks, %d failed (%.1f s)\n", size,
           threaded ? "a thread per rank" : "one thread, groups", checks - checks0, failures - failures0,
           comm_now_s() - t0);
    free_world(w);
}

/* ---------------------------------------------------------------- argument errors */
/* A tensor with known contents, checked unchanged at the end of its case. */
typedef struct held {
    wk_tensor *t;
    void *host;
    size_t bytes;
} held;

static wk_tensor *hold(held *h, wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, uint64_t seed)
{
    int64_t n = numel_of(rank, shape);
    h->bytes = (size_t)n * wk_dtype_size(dt);
    h->host = malloc(h->bytes + 1);
    h->t = NULL;
    if (h->host)
        fill_input(dt, false, seed, h->host, n);
    wk_status s = h->host ? wk_tensor_from_host(dev, dt, rank, shape, h->host, &h->t) : WK_ERR_OUT_OF_MEMORY;
    CHECK(s == WK_OK, "from_host: %s", wk_status_string(s));
    return h->t;
}

static void check_held(held *hs, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        void *got = malloc(hs[i].bytes + 1);
        wk_status s = got && hs[i].t ? wk_tensor_to_host(hs[i].t, got, hs[i].bytes) : WK_ERR_OUT_OF_MEMORY;
        CHECK(s == WK_OK && memcmp(got, hs[i].host, hs[i].bytes) == 0, "%s: tensor %d was written by a failed call",
              what, i);
        free(got);
        free(hs[i].host);
        wk_tensor_release(hs[i].t);
    }
}

/* NULL communicators and tensors. */
static void errors_null(wk_comm *c, wk_device *dev)
{
    held h[2];
    int64_t n = wk_comm_size(c) * 6;
    wk_tensor *x = hold(&h[0], dev, WK_F32, 1, &n, 1), *out = hold(&h[1], dev, WK_F32, 1, &n, 2);
    const wk_comm_op SUM = WK_COMM_SUM;
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_reduce", wk_comm_all_reduce(NULL, x, SUM, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_reduce", wk_comm_all_reduce(c, NULL, SUM, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_reduce", wk_comm_all_reduce(c, x, SUM, NULL));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_gather", wk_comm_all_gather(NULL, x, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_gather", wk_comm_all_gather(c, NULL, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "reduce_scatter", wk_comm_reduce_scatter(c, x, SUM, NULL));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "broadcast", wk_comm_broadcast(NULL, x, 0, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "broadcast", wk_comm_broadcast(c, NULL, 0, out)); /* rank 0 is the root */
    EXPECT(WK_ERR_INVALID_ARGUMENT, "broadcast", wk_comm_broadcast(c, x, 0, NULL));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "reduce", wk_comm_reduce(c, NULL, SUM, 0, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "reduce", wk_comm_reduce(c, x, SUM, 0, NULL)); /* out is needed on the root */
    EXPECT(WK_ERR_INVALID_ARGUMENT, "send", wk_comm_send(NULL, x, 0));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "send", wk_comm_send(c, NULL, 0));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "recv", wk_comm_recv(c, NULL, 0));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_wait(NULL));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_abort(NULL));
    EXPECT(WK_OK, NULL, wk_comm_destroy(NULL));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_id_new(NULL, &(wk_comm_id){{0}}));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_id_new(dev, NULL));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_library(dev, NULL));
    check_held(h, 2, "NULL arguments");
}

/* Strided views, wrong shapes, dtypes that differ, AVG on integers, an unknown op. */
static void errors_layout(wk_comm *c, wk_device *dev)
{
    held h[8];
    int size = wk_comm_size(c);
    int64_t m23[2] = {2, 3}, m32[2] = {3, 2}, n6 = 6, n5 = 5, nbig = size * 6, nbad = size * 6 + 1, n7 = 7;
    wk_tensor *m = hold(&h[0], dev, WK_F32, 2, m23, 1), *o32 = hold(&h[1], dev, WK_F32, 2, m32, 2);
    wk_tensor *x = hold(&h[2], dev, WK_F32, 1, &n6, 3), *o5 = hold(&h[3], dev, WK_F32, 1, &n5, 4);
    wk_tensor *obad = hold(&h[4], dev, WK_F32, 1, &nbad, 5), *o64 = hold(&h[5], dev, WK_F64, 1, &n6, 6);
    wk_tensor *xi = hold(&h[6], dev, WK_I32, 1, &n6, 7), *xbig = hold(&h[7], dev, WK_F32, 1, &nbig, 8);
    wk_tensor *mt = NULL, *o0 = NULL, *x0 = NULL, *o7 = NULL;
    CHECK(wk_transpose(m, 0, 1, &mt) == WK_OK && !wk_tensor_is_contiguous(mt), "a transposed view");
    CHECK(wk_zeros(dev, WK_F32, 0, NULL, &o0) == WK_OK && wk_zeros(dev, WK_F32, 0, NULL, &x0) == WK_OK &&
              wk_zeros(dev, WK_F32, 1, &n7, &o7) == WK_OK, "zeros");
    const wk_comm_op SUM = WK_COMM_SUM, AVG = WK_COMM_AVG;
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_reduce", wk_comm_all_reduce(c, mt, SUM, o32));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_reduce", wk_comm_all_reduce(c, o32, SUM, mt));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "send", wk_comm_send(c, mt, 0));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "recv", wk_comm_recv(c, mt, 0));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "broadcast", wk_comm_broadcast(c, mt, 0, o32));
    EXPECT(WK_ERR_SHAPE, "all_reduce", wk_comm_all_reduce(c, x, SUM, o5));
    EXPECT(WK_ERR_SHAPE, "all_reduce", wk_comm_all_reduce(c, m, SUM, o32)); /* same numel, other shape */
    EXPECT(WK_ERR_SHAPE, "all_gather", wk_comm_all_gather(c, x, obad));
    EXPECT(WK_ERR_SHAPE, "all_gather", wk_comm_all_gather(c, x0, o7)); /* a 0-d x gathers to (size) */
    EXPECT(WK_ERR_SHAPE, "reduce_scatter", wk_comm_reduce_scatter(c, xbig, SUM, o7));
    EXPECT(WK_ERR_SHAPE, "reduce_scatter", wk_comm_reduce_scatter(c, xbig, SUM, o0));
    EXPECT(WK_ERR_SHAPE, "broadcast", wk_comm_broadcast(c, x, 0, o5));
    EXPECT(WK_ERR_SHAPE, "reduce", wk_comm_reduce(c, x, SUM, 0, o5));
    EXPECT(WK_ERR_DTYPE, "all_reduce", wk_comm_all_reduce(c, x, SUM, o64));
    EXPECT(WK_ERR_DTYPE, "broadcast", wk_comm_broadcast(c, x, 0, o64));
    EXPECT(WK_ERR_DTYPE, "reduce", wk_comm_reduce(c, x, SUM, 0, o64));
    EXPECT(WK_ERR_DTYPE, "all_gather", wk_comm_all_gather(c, xi, xbig)); /* out has the right shape */
    EXPECT(WK_ERR_DTYPE, "all_reduce", wk_comm_all_reduce(c, xi, AVG, xi));
    EXPECT(WK_ERR_DTYPE, "reduce", wk_comm_reduce(c, xi, AVG, 0, xi));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_reduce", wk_comm_all_reduce(c, x, (wk_comm_op)WK_COMM_OP_COUNT, x));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "reduce", wk_comm_reduce(c, x, (wk_comm_op)-1, 0, x));
    wk_tensor *const drop[] = {mt, o0, x0, o7};
    for (int i = 0; i < 4; i++)
        wk_tensor_release(drop[i]);
    check_held(h, 8, "layout, shape and dtype errors");
}

/* A read-only tensor sharing t's memory: t exported, flagged read-only, imported back. */
static wk_tensor *read_only_view(const wk_tensor *t)
{
    struct DLManagedTensorVersioned *m = NULL;
    wk_tensor *ro = NULL;
    if (wk_to_dlpack(t, -1, &m) != WK_OK)
        return NULL;
    m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
    if (wk_from_dlpack(m, 0, &ro) != WK_OK) {
        m->deleter(m);
        return NULL;
    }
    return ro;
}

/* Roots and peers out of range, outputs overlapping inputs, a read-only output, reduce_scatter's AVG on ints. */
static void errors_ranks_overlap(wk_comm *c, wk_device *dev)
{
    held h[3];
    int size = wk_comm_size(c);
    int64_t n12 = 12, nall = size * 6;
    wk_tensor *base = hold(&h[0], dev, WK_F32, 1, &n12, 1), *all = hold(&h[1], dev, WK_F32, 1, &nall, 2);
    wk_tensor *xi = hold(&h[2], dev, WK_I32, 1, &nall, 3);
    wk_tensor *a = NULL, *b = NULL, *part = NULL, *oi = NULL, *ro = read_only_view(base);
    CHECK(wk_narrow(base, 0, 0, 6, &a) == WK_OK && wk_narrow(base, 0, 3, 6, &b) == WK_OK &&
              wk_narrow(all, 0, 0, 6, &part) == WK_OK && wk_zeros(dev, WK_I32, 1, &(int64_t){6}, &oi) == WK_OK,
          "views");
    CHECK(ro && wk_tensor_is_read_only(ro), "a read-only import");
    const wk_comm_op SUM = WK_COMM_SUM;
    EXPECT(WK_ERR_INVALID_ARGUMENT, "broadcast", wk_comm_broadcast(c, a, size, b));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "broadcast", wk_comm_broadcast(c, a, -1, b));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "reduce", wk_comm_reduce(c, a, SUM, size, NULL));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "reduce", wk_comm_reduce(c, a, SUM, -1, NULL));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "send", wk_comm_send(c, a, size));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "send", wk_comm_send(c, a, -1));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "recv", wk_comm_recv(c, b, size));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "recv", wk_comm_recv(c, b, -1));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_reduce", wk_comm_all_reduce(c, a, SUM, b)); /* half overlapping */
    EXPECT(WK_ERR_INVALID_ARGUMENT, "broadcast", wk_comm_broadcast(c, a, 0, b));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "reduce", wk_comm_reduce(c, a, SUM, 0, b));
    EXPECT(WK_ERR_INVALID_ARGUMENT, "all_gather", wk_comm_all_gather(c, part, all)); /* x inside out */
    EXPECT(WK_ERR_INVALID_ARGUMENT, "reduce_scatter", wk_comm_reduce_scatter(c, all, SUM, part));
    EXPECT(WK_ERR_DTYPE, "reduce_scatter", wk_comm_reduce_scatter(c, xi, WK_COMM_AVG, oi));
    if (ro) {
        wk_tensor *ro6 = NULL, *ro_all = NULL; /* base's [6, 12), and base's first size * 6 (size <= 2) */
        CHECK(wk_narrow(ro, 0, 6, 6, &ro6) == WK_OK && wk_narrow(ro, 0, 0, nall, &ro_all) == WK_OK,
              "narrows of the read-only import");
        EXPECT(WK_ERR_INVALID_ARGUMENT, "all_reduce", wk_comm_all_reduce(c, a, SUM, ro6));
        EXPECT(WK_ERR_INVALID_ARGUMENT, "recv", wk_comm_recv(c, ro6, 0));
        EXPECT(WK_ERR_INVALID_ARGUMENT, "broadcast", wk_comm_broadcast(c, a, 0, ro6));
        EXPECT(WK_ERR_INVALID_ARGUMENT, "all_gather", wk_comm_all_gather(c, part, ro_all));
        wk_tensor_release(ro6);
        wk_tensor_release(ro_all);
    }
    wk_tensor *const drop[] = {a, b, part, oi, ro};
    for (int i = 0; i < 5; i++)
        wk_tensor_release(drop[i]);
    check_held(h, 3, "rank, overlap and read-only errors");
}

/* A tensor on a device that is not the rank's: the CPU for a GPU rank, a GPU (or the next GPU) otherwise. */
static void errors_device(wk_comm *c, wk_device *dev)
{
    wk_device *other = NULL;
    if (env.gpu && env.max_ranks > 1)
        other = env.dev[1];
    else if (env.gpu)
        wk_device_get("cpu", &other);
    else if (wk_device_get("gpu:0", &other) != WK_OK)
        other = NULL;
    if (!other) {
        printf("  skipped: a tensor on another device (no device besides cpu in this build or machine)\n");
        return;
    }
    held h[2];
    int64_t n = 6;
    wk_tensor *x = hold(&h[0], dev, WK_F32, 1, &n, 1), *ox = hold(&h[1], other, WK_F32, 1, &n, 2);
    EXPECT(WK_ERR_DEVICE, "all_reduce", wk_comm_all_reduce(c, x, WK_COMM_SUM, ox));
    EXPECT(WK_ERR_DEVICE, "all_reduce", wk_comm_all_reduce(c, ox, WK_COMM_SUM, x));
    EXPECT(WK_ERR_DEVICE, "send", wk_comm_send(c, ox, 0));
    EXPECT(WK_ERR_DEVICE, "recv", wk_comm_recv(c, ox, 0));
    check_held(h, 2, "device errors");
}

/* Making communicators: bad ranks and sizes, timeouts, groups; none is made and *out is left alone. */
static void errors_init(void)
{
    wk_comm_id id;
    wk_comm *sentinel = (wk_comm *)&id, *out[2] = {sentinel, sentinel};
    wk_device *dev = env.dev[0];
    CHECK(wk_comm_id_new(dev, &id) == WK_OK, "comm_id_new");
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_rank(dev, 2, &id, 2, 1.0, &out[0]));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_rank(dev, 2, &id, -1, 1.0, &out[0]));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_rank(dev, 0, &id, 0, 1.0, &out[0]));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_rank(dev, 1, NULL, 0, 1.0, &out[0]));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_rank(NULL, 1, &id, 0, 1.0, &out[0]));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_rank(dev, 1, &id, 0, -1.0, &out[0]));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_rank(dev, 1, &id, 0, NAN, &out[0]));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_rank(dev, 1, &id, 0, INFINITY, &out[0]));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_all(env.dev, 1, -0.5, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_all(env.dev, 1, NAN, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_all(env.dev, 0, 1.0, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_all(NULL, 1, 1.0, out));
    if (env.gpu) { /* a GPU serves one rank */
        wk_device *twice[2] = {dev, dev};
        EXPECT(WK_ERR_DEVICE, NULL, wk_comm_init_all(twice, 2, 1.0, out));
    }
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_group_end()); /* no group begun */
    EXPECT(WK_OK, NULL, wk_comm_group_begin());
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_all(env.dev, 1, 1.0, out));
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_init_rank(dev, 1, &id, 0, 1.0, &out[0]));
    EXPECT(WK_OK, NULL, wk_comm_group_end()); /* an empty group */
    EXPECT(WK_ERR_INVALID_ARGUMENT, NULL, wk_comm_group_end());
    CHECK(out[0] == sentinel && out[1] == sentinel, "a failed init wrote its out");
}

/* After the errors, in a group on one thread: an argument error inside the group breaks nothing, and an all_reduce
 * of every rank gives the sum. */
static void check_still_works(wk_comm *const *c, int size)
{
    int64_t n = 5;
    held h[MAX_RANKS];
    wk_tensor *out[MAX_RANKS] = {0}, *bad = NULL;
    void *in[MAX_RANKS];
    for (int r = 0; r < size; r++) {
        hold(&h[r], env.dev[r], WK_I64, 1, &n, 100 + (uint64_t)r);
        in[r] = h[r].host;
        CHECK(wk_full(env.dev[r], WK_I64, 1, &n, -1.0, &out[r]) == WK_OK, "full");
    }
    CHECK(wk_zeros(env.dev[0], WK_I64, 1, &(int64_t){4}, &bad) == WK_OK, "zeros");
    EXPECT(WK_OK, NULL, wk_comm_group_begin());
    EXPECT(WK_ERR_SHAPE, "all_reduce", wk_comm_all_reduce(c[0], h[0].t, WK_COMM_SUM, bad));
    for (int r = 0; r < size; r++)
        EXPECT(WK_OK, NULL, wk_comm_all_reduce(c[r], h[r].t, WK_COMM_SUM, out[r]));
    EXPECT(WK_OK, NULL, wk_comm_group_end());
    for (int r = 0; r < size; r++) {
        int64_t got[5] = {0};
        bool ok = wk_tensor_to_host(out[r], got, sizeof got) == WK_OK;
        for (int64_t i = 0; ok && i < n; i++)
            ok = (uint64_t)got[i] == reduce_ref(WK_I64, WK_COMM_SUM, size, in, i).bits;
        CHECK(ok, "rank %d: the all_reduce after the argument errors is wrong", r);
        wk_tensor_release(out[r]);
    }
    wk_tensor_release(bad);
    check_held(h, size, "the all_reduce after the errors");
}

/* Case groups 2 and 3: accessors, argument errors, and a communicator that works after them. */
static void run_errors(void)
{
    int checks0 = checks, failures0 = failures;
    int size = env.max_ranks < 2 ? env.max_ranks : 2;
    wk_comm *c[2] = {0};
    const char *lib = NULL;
    wk_status s = wk_comm_library(env.dev[0], &lib);
    CHECK(s == WK_OK && lib && (env.gpu ? strstr(lib, "CCL") != NULL : strcmp(lib, "threads") == 0),
          "comm_library on %s: %s, '%s'", wk_device_name(env.dev[0]), wk_status_string(s), lib ? lib : "NULL");
    CHECK(strcmp(wk_comm_op_name(WK_COMM_SUM), "sum") == 0 && strcmp(wk_comm_op_name(WK_COMM_AVG), "avg") == 0,
          "comm_op_name");
    s = wk_comm_init_all(env.dev, size, RUN_TIMEOUT_S, c);
    CHECK(s == WK_OK, "init_all of %d: %s", size, wk_status_string(s));
    if (s == WK_OK) {
        errors_null(c[0], env.dev[0]);
        errors_layout(c[0], env.dev[0]);
        errors_ranks_overlap(c[0], env.dev[0]);
        errors_device(c[0], env.dev[0]);
        check_still_works(c, size);
        for (int r = 0; r < size; r++)
            EXPECT(WK_OK, NULL, wk_comm_destroy(c[r]));
    }
    errors_init();
    printf("accessors and argument errors, %d rank(s): %d checks, %d failed\n", size, checks - checks0,
           failures - failures0);
}

/* ---------------------------------------------------------------- failures (CPU only) */
/* One rank's call on its own thread. */
typedef struct caller {
    wk_comm *c;
    int rank, variant;
    wk_tensor *x, *out;
    wk_status status;
    char msg[512];
    atomic_bool done;
} caller;

/* The mismatches: rank 0 and rank 1 call collectives that differ in one way; words the message must hold. */
static const struct {
    const char *name, *word0, *word1;
} mismatches[] = {{"element count", "10", "11"}, {"dtype", "f32", "f64"},         {"op", "sum", "max"},
                  {"collective", "all_reduce", "broadcast"}, {"root", "root", "root"}, {"send/recv count", "10", "11"}};
#define NMISMATCHES (int)(sizeof mismatches / sizeof mismatches[0])

static void *mismatch_main(void *arg)
{
    caller *k = arg;
    int r = k->rank;
    switch (k->variant) {
    case 0:
    case 1: k->status = wk_comm_all_reduce(k->c, k->x, WK_COMM_SUM, k->out); break;
    case 2: k->status = wk_comm_all_reduce(k->c, k->x, r ? WK_COMM_MAX : WK_COMM_SUM, k->out); break;
    case 3:
        k->status = r ? wk_comm_broadcast(k->c, k->x, 0, k->out) : wk_comm_all_reduce(k->c, k->x, WK_COMM_SUM, k->out);
        break;
    case 4: k->status = wk_comm_broadcast(k->c, k->x, r, k->out); break;
    default: k->status = r ? wk_comm_recv(k->c, k->out, 0) : wk_comm_send(k->c, k->x, 1); break;
    }
    snprintf(k->msg, sizeof k->msg, "%s", wk_last_error());
    atomic_store(&k->done, true);
    return NULL;
}

/* (c): each mismatch on a fresh communicator of 2 (timeout 5 s): WK_ERR_COMM on both ranks, found at once. */
static void fail_mismatches(wk_device *cpu)
{
    for (int v = 0; v < NMISMATCHES; v++) {
        wk_comm *c[2] = {0};
        caller k[2];
        pthread_t th[2];
        wk_device *devs[2] = {cpu, cpu};
        if (wk_comm_init_all(devs, 2, 5.0, c) != WK_OK) {
            CHECK(false, "init_all for the %s mismatch", mismatches[v].name);
            continue;
        }
        for (int r = 0; r < 2; r++) {
            int64_t n = v == 0 || v == 5 ? 10 + r : 10;
            wk_dtype dt = v == 1 && r ? WK_F64 : WK_F32;
            k[r] = (caller){.c = c[r], .rank = r, .variant = v};
            wk_ones(cpu, dt, 1, &n, &k[r].x);
            wk_zeros(cpu, dt, 1, &n, &k[r].out);
        }
        double t0 = comm_now_s();
        for (int r = 0; r < 2; r++)
            pthread_create(&th[r], NULL, mismatch_main, &k[r]);
        for (int r = 0; r < 2; r++)
            pthread_join(th[r], NULL);
        double took = comm_now_s() - t0;
        for (int r = 0; r < 2; r++) {
            CHECK(k[r].status == WK_ERR_COMM && strstr(k[r].msg, mismatches[v].word0) &&
                      strstr(k[r].msg, mismatches[v].word1) && took < 4.0,
                  "%s mismatch, rank %d: %s after %.2f s, '%s' (want WK_ERR_COMM naming %s and %s)",
                  mismatches[v].name, r, wk_status_string(k[r].status), took, k[r].msg, mismatches[v].word0,
                  mismatches[v].word1);
            wk_tensor_release(k[r].x);
            wk_tensor_release(k[r].out);
        }
        for (int r = 0; r < 2; r++)
            wk_comm_destroy(c[r]);
    }
}

/* (a) a join that times out; (b) a collective a peer never calls: WK_ERR_COMM at the timeout, then at once. */
static void fail_timeouts(wk_device *cpu)
{
    wk_comm_id id;
    wk_comm *sentinel = (wk_comm *)&id, *alone = sentinel, *c[2] = {0};
    CHECK(wk_comm_id_new(cpu, &id) == WK_OK, "comm_id_new");
    double t0 = comm_now_s();
    wk_status s = wk_comm_init_rank(cpu, 2, &id, 0, 0.3, &alone);
    double took = comm_now_s() - t0;
    CHECK(s == WK_ERR_COMM && alone == sentinel && took >= 0.25 && took < 5.0,
          "a join of 1 of 2 ranks with a 0.3 s timeout: %s after %.2f s", wk_status_string(s), took);
    wk_device *devs[2] = {cpu, cpu};
    if (wk_comm_init_all(devs, 2, 0.3, c) != WK_OK) {
        CHECK(false, "init_all of 2 with a 0.3 s timeout");
        return;
    }
    int64_t n = 10;
    wk_tensor *x = NULL, *out = NULL;
    CHECK(wk_ones(cpu, WK_F32, 1, &n, &x) == WK_OK && wk_zeros(cpu, WK_F32, 1, &n, &out) == WK_OK, "tensors");
    t0 = comm_now_s();
    s = wk_comm_all_reduce(c[0], x, WK_COMM_SUM, out);
    took = comm_now_s() - t0;
    CHECK(s == WK_ERR_COMM && took >= 0.25 && took < 5.0, "all_reduce without rank 1: %s after %.2f s",
          wk_status_string(s), took);
    t0 = comm_now_s();
    s = wk_comm_all_reduce(c[0], x, WK_COMM_SUM, out);
    took = comm_now_s() - t0;
    CHECK(s == WK_ERR_COMM && took < 0.25, "all_reduce on the broken communicator: %s after %.2f s",
          wk_status_string(s), took);
    EXPECT(WK_ERR_COMM, NULL, wk_comm_wait(c[0]));
    EXPECT(WK_ERR_COMM, NULL, wk_comm_all_reduce(c[1], x, WK_COMM_SUM, out)); /* broken too, or its own timeout */
    t0 = comm_now_s();
    for (int r = 0; r < 2; r++)
        wk_comm_destroy(c[r]);
    took = comm_now_s() - t0;
    CHECK(took < 1.0, "destroying the broken communicator took %.2f s", took);
    wk_tensor_release(x);
    wk_tensor_release(out);
}

static void *blocked_main(void *arg)
{
    caller *k = arg;
    k->status = wk_comm_all_reduce(k->c, k->x, WK_COMM_SUM, k->out);
    atomic_store(&k->done, true);
    return NULL;
}

/* (d): rank 0 blocked in an all_reduce (no timeout) that rank 1 never joins; wk_comm_abort from this thread ends
 * it with WK_ERR_COMM promptly, and the communicator stays broken. */
static void fail_abort(wk_device *cpu)
{
    wk_comm *c[2] = {0};
    wk_device *devs[2] = {cpu, cpu};
    if (wk_comm_init_all(devs, 2, 0, c) != WK_OK) {
        CHECK(false, "init_all of 2 without a timeout");
        return;
    }
    int64_t n = 10;
    caller k = {.c = c[0]};
    atomic_init(&k.done, false);
    CHECK(wk_ones(cpu, WK_F32, 1, &n, &k.x) == WK_OK && wk_zeros(cpu, WK_F32, 1, &n, &k.out) == WK_OK, "tensors");
    pthread_t th;
    pthread_create(&th, NULL, blocked_main, &k);
    sleep_s(0.2);
    CHECK(!atomic_load(&k.done), "the all_reduce without rank 1 returned %s before the abort",
          wk_status_string(k.status));
    double t0 = comm_now_s();
    EXPECT(WK_OK, NULL, wk_comm_abort(c[0]));
    while (!atomic_load(&k.done) && comm_now_s() - t0 < 5.0)
        sleep_s(0.001);
    double took = comm_now_s() - t0;
    if (!atomic_load(&k.done)) {
        printf("FAIL %s:%d: the blocked all_reduce did not return within 5 s of wk_comm_abort\n", __FILE__, __LINE__);
        exit(1); /* the thread cannot be joined */
    }
    pthread_join(th, NULL);
    CHECK(k.status == WK_ERR_COMM && took < 1.0, "the aborted all_reduce gave %s after %.2f s",
          wk_status_string(k.status), took);
    EXPECT(WK_ERR_COMM, NULL, wk_comm_all_reduce(c[0], k.x, WK_COMM_SUM, k.out));
    for (int r = 0; r < 2; r++)
        wk_comm_destroy(c[r]);
    wk_tensor_release(k.x);
    wk_tensor_release(k.out);
}

/* Case group 4, CPU only (a GPU library cannot find a mismatch); (e): every communicator is destroyed (ASan's leak
 * check at exit). */
static void run_failures(void)
{
    if (env.gpu) {
        printf("failures: skipped on %s (timeouts, mismatches and aborts are tested on the CPU communicator)\n",
               env.backend);
        return;
    }
    int checks0 = checks, failures0 = failures;
    double t0 = comm_now_s();
    fail_timeouts(env.dev[0]);
    fail_mismatches(env.dev[0]);
    fail_abort(env.dev[0]);
    printf("failures (timeouts, mismatches, abort): %d checks, %d failed (%.1f s)\n", checks - checks0,
           failures - failures0, comm_now_s() - t0);
}

int main(void)
{
    int rc = comm_env_setup(&env, "test_comm", MAX_RANKS, MAX_RANKS);
    if (rc != 0)
        return rc;
    make_half_tables();
    for (int size = 1; size <= MAX_RANKS; size++) {
        if (size > env.max_ranks) {
            printf("collectives, %d ranks: skipped (%s has %d device(s))\n", size, env.backend, env.max_ranks);
            continue;
        }
        run_world(size, true);
        run_world(size, false);
    }
    run_errors();
    run_failures();
    printf("test_comm on %s: %d passed, %d failed\n", env.backend, checks - failures, failures);
    return failures ? 1 : 0;
}
