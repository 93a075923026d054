/* index.c: the CPU's index_select / gather (threaded over the output) and scatter / scatter_add / index_add
 * (threaded over the non-indexed dims, so no two threads write one element). Every index is range checked
 * before it is used, and before any write of an in-place op. */
#include <stdatomic.h>
#include <string.h>

#include "core/error.h"
#include "cpu/cpu.h"

/* Index dtypes in enum order (WK_U8 = 0 .. WK_I64 = 3): X(suffix, C type). */
#define INDEX_TYPES(X) X(u8, uint8_t) X(u32, uint32_t) X(i32, int32_t) X(i64, int64_t)

/* A handle-less view of t's storage with another shape and strides, for the iterator only. */
static void stack_view(wk_tensor *v, const wk_tensor *t, int rank, const int64_t *shape, const int64_t *strides)
{
    memset(v, 0, sizeof *v);
    v->storage = t->storage;
    v->dtype = t->dtype;
    v->offset = t->offset;
    v->rank = rank;
    memcpy(v->shape, shape, (size_t)rank * sizeof *shape);
    memcpy(v->strides, strides, (size_t)rank * sizeof *strides);
}

/* The first out-of-range index a (possibly threaded) pass met; `size` is the valid bound. */
typedef struct range_check {
    int64_t size;
    atomic_int bad;
    int64_t value;
} range_check;

static bool in_range(range_check *c, int64_t v)
{
    if ((uint64_t)v < (uint64_t)c->size) /* negative values wrap above every size */
        return true;
    int expected = 0;
    if (atomic_compare_exchange_strong(&c->bad, &expected, 1))
        c->value = v;
    return false;
}

static wk_status range_error(const char *op, const range_check *c, int dim)
{
    return wk_error(WK_ERR_INDEX_OUT_OF_RANGE, "%s: index %lld out of range [0, %lld) for dim %d", op,
                    (long long)c->value, (long long)c->size, dim);
}

/* ---------------------------------------------------------------- range pass */

#define CHECK_KERNEL(isfx, IT)                                                              \
    static void check_run_##isfx(void *ctx, int64_t n, char *const *p, const int64_t *s)    \
    {                                                                                       \
        const char *ids = p[0];                                                             \
        const int64_t step = s[0];                                                          \
        for (int64_t k = 0; k < n; k++)                                                     \
            if (!in_range(ctx, (int64_t)(*(const IT *)(ids + k * step))))                   \
                return;                                                                     \
    }
INDEX_TYPES(CHECK_KERNEL)
#define CHECK_ENTRY(isfx, IT) check_run_##isfx,
static const wk_iter_fn check_fns[4] = {INDEX_TYPES(CHECK_ENTRY)};

/* Checks every index of ids against size; reports under op's name. */
static wk_status check_ids(const char *op, const wk_tensor *ids, int64_t size, int dim)
{
    range_check c = {.size = size, .value = 0};
    atomic_init(&c.bad, 0);
    const wk_tensor *ops[1] = {ids};
    wk_cpu_foreach(ids->rank, ids->shape, 1, ops, WK_CPU_GRAIN, check_fns[ids->dtype], &c);
    return atomic_load(&c.bad) ? range_error(op, &c, dim) : WK_OK;
}

/* ---------------------------------------------------------------- index_select and gather
 * Both walk the output with three operands: out, x viewed with stride 0 along dim, and ids viewed at the
 * output's shape. out = x[.. + idx * dim stride]. One kernel per element size and index type. */
typedef struct gather_ctx {
    range_check check;
    int64_t dim_bytes; /* x's stride along dim, in bytes */
} gather_ctx;

/* Operands are copied to locals first: the stores go through char pointers, which would otherwise make
 * the compiler reload them for every element. */
#define GATHER_KERNEL(ES, isfx, IT)                                                         \
    static void gather_run_##ES##_##isfx(void *ctx, int64_t n, char *const *p, const int64_t *s) \
    {                                                                                       \
        gather_ctx *g = ctx;                                                                \
        char *out = p[0];                                                                   \
        const char *x = p[1], *ids = p[2];                                                  \
        const int64_t so = s[0], sx = s[1], si = s[2], db = g->dim_bytes;                   \
        const uint64_t size = (uint64_t)g->check.size;                                      \
        if (si == 0) { /* one index for the whole run (index_select's inner dims) */        \
            int64_t v = (int64_t)(*(const IT *)ids);                                        \
            if ((uint64_t)v >= size) {                                                      \
                in_range(&g->check, v);                                                     \
                return;                                                                     \
            }                                                                               \
            x += v * db;                                                                    \
            if (so == ES && sx == ES) {                                                     \
                memcpy(out, x, (size_t)n * ES);                                             \
                return;                                                                     \
            }                                                                               \
            for (int64_t k = 0; k < n; k++)                                                 \
                memcpy(out + k * so, x + k * sx, ES);                                       \
            return;                                                                         \
        }                                                                                   \
        for (int64_t k = 0; k < n; k++) {                                                   \
            int64_t v = (int64_t)(*(const IT *)(ids + k * si));                             \
            if ((uint64_t)v >= size) {                                                      \
                in_range(&g->check, v);                                                     \
                return;                                                                     \
            }                                                                               \
            memcpy(out + k * so, x + k * sx + v * db, ES);                                  \
        }                                                                                   \
    }
#define GATHER_FOR_SIZE(ES)                                       \
    GATHER_KERNEL(ES, u8, uint8_t) GATHER_KERNEL(ES, u32, uint32_t) \
    GATHER_KERNEL(ES, i32, int32_t) GATHER_KERNEL(ES, i64, int64_t)
GATHER_FOR_SIZE(1)
GATHER_FOR_SIZE(2)
GATHER_FOR_SIZE(4)
GATHER_FOR_SIZE(8)
#define GATHER_ROW(ES) {gather_run_##ES##_u8, gather_run_##ES##_u32, gather_run_##ES##_i32, gather_run_##ES##_i64}
static const wk_iter_fn gather_fns[4][4] = {GATHER_ROW(1), GATHER_ROW(2), GATHER_ROW(4), GATHER_ROW(8)};

static int size_slot(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

/* out (contiguous) = x[.., ids_view[i], ..] over out's shape; ids_view is ids at out's shape. */
static wk_status gather_walk(const char *op, const wk_tensor *x, int dim, const wk_tensor *ids_view, wk_tensor *out)
{
    int64_t xst[WK_MAX_RANK];
    memcpy(xst, x->strides, sizeof xst);
    xst[dim] = 0;
    wk_tensor xv;
    stack_view(&xv, x, out->rank, out->shape, xst);
    gather_ctx g = {.check = {.size = x->shape[dim], .value = 0},
                    .dim_bytes = x->strides[dim] * (int64_t)wk_dtype_size(x->dtype)};
    atomic_init(&g.check.bad, 0);
    const wk_tensor *ops[3] = {out, &xv, ids_view};
    wk_iter_fn fn = gather_fns[size_slot(wk_dtype_size(x->dtype))][ids_view->dtype];
    wk_cpu_foreach(out->rank, out->shape, 3, ops, WK_CPU_GRAIN, fn, &g);
    return atomic_load(&g.check.bad) ? range_error(op, &g.check, dim) : WK_OK;
}

/* ids (1-D) seen at out's shape: stride 0 everywhere but dim. */
static void ids_along(wk_tensor *v, const wk_tensor *ids, int rank, const int64_t *shape, int dim)
{
    int64_t st[WK_MAX_RANK] = {0};
    st[dim] = ids->strides[0];
    stack_view(v, ids, rank, shape, st);
}

wk_status wk_cpu_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out)
{
    /* checked up front too, so an empty output still rejects a bad index */
    WK_TRY(check_ids("index_select", ids, x->shape[dim], dim));
    wk_tensor iv;
    ids_along(&iv, ids, out->rank, out->shape, dim);
    return gather_walk("index_select", x, dim, &iv, out);
}

wk_status wk_cpu_gather(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out)
{
    return gather_walk("gather", x, dim, ids, out);
}

/* ---------------------------------------------------------------- scatter, scatter_add, index_add
 * Rows are the coordinates off dim; all writes of one row go to one row of x, so rows are split across
 * threads and each row walks dim in increasing order (the last write in row-major order wins for set).
 * Work goes in batches: offsets for up to BATCH (row, k) pairs, then the indices, then the writes, so
 * each inner loop is tight whatever the layout. */
#define BATCH 256
#define ROW_TILE 64

/* target[i] = xoff[i] + ids[ioff[i]] * xd: the element of x that pair i writes. */
typedef void resolve_fn(const void *ids, const int64_t *ioff, const int64_t *xoff, int64_t xd, int64_t n,
                        int64_t *target);
/* x[target[i]] = or += src[soff[i]], in order. */
typedef void combine_fn(void *x, const void *src, const int64_t *target, const int64_t *soff, int64_t n);

typedef struct scatter_job {
    const wk_tensor *x, *ids, *src;
    int orank; /* number of dims off dim */
    int64_t oshape[WK_MAX_RANK];
    int64_t ost[3][WK_MAX_RANK]; /* per operand (x, ids, src) strides of the off-dim dims, in elements */
    int64_t K, xd, id, sd;       /* length along dim and the three strides along it */
    resolve_fn *resolve;
    combine_fn *combine;
} scatter_job;

#define RESOLVE_KERNEL(isfx, IT)                                                            \
    static void resolve_##isfx(const void *ids, const int64_t *ioff, const int64_t *xoff, int64_t xd, int64_t n, \
                               int64_t *target)                                             \
    {                                                                                       \
        const IT *p = ids;                                                                  \
        for (int64_t i = 0; i < n; i++)                                                     \
            target[i] = xoff[i] + (int64_t)p[ioff[i]] * xd;                                 \
    }
INDEX_TYPES(RESOLVE_KERNEL)
#define RESOLVE_ENTRY(isfx, IT) resolve_##isfx,

/* Wrapping integer adds (through unsigned, no signed overflow); floats add in their compute type. */
static inline uint8_t add_u8(uint8_t a, uint8_t b) { return (uint8_t)(a + b); }
static inline uint32_t add_u32(uint32_t a, uint32_t b) { return a + b; }
static inline int32_t add_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int64_t add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline float add_f16(float a, float b) { return a + b; }
static inline float add_bf16(float a, float b) { return a + b; }
static inline float add_f32(float a, float b) { return a + b; }
static inline double add_f64(double a, double b) { return a + b; }

#define COMBINE_KERNELS(E, sfx, T, C)                                                       \
    static void set_##sfx(void *x, const void *src, const int64_t *target, const int64_t *soff, int64_t n) \
    {                                                                                       \
        T *xp = x;                                                                          \
        const T *sp = src;                                                                  \
        for (int64_t i = 0; i < n; i++)                                                     \
            xp[target[i]] = sp[soff[i]];                                                    \
    }                                                                                       \
    static void add_into_##sfx(void *x, const void *src, const int64_t *target, const int64_t *soff, int64_t n) \
    {                                                                                       \
        T *xp = x;                                                                          \
        const T *sp = src;                                                                  \
        for (int64_t i = 0; i < n; i++)                                                     \
            wk_st_##sfx(xp + target[i], add_##sfx(wk_ld_##sfx(xp + target[i]), wk_ld_##sfx(sp + soff[i]))); \
    }
WK_CPU_DTYPES(COMBINE_KERNELS)
#define SET_ENTRY(E, sfx, T, C) [E] = set_##sfx,
#define ADD_ENTRY(E, sfx, T, C) [E] = add_into_##sfx,

/* Offsets of row `r` (x, ids, src) from its off-dim multi-index. */
static void row_offsets(const scatter_job *j, int64_t r, int64_t *off)
{
    off[0] = off[1] = off[2] = 0;
    for (int d = j->orank - 1; d >= 0; d--) {
        int64_t i = r % j->oshape[d];
        r /= j->oshape[d];
        for (int k = 0; k < 3; k++)
            off[k] += i * j->ost[k][d];
    }
}

static void scatter_rows(void *ctx, int64_t begin, int64_t end)
{
    const scatter_job *j = ctx;
    void *x = wk_tensor_data(j->x);
    const void *ids = wk_tensor_data(j->ids), *src = wk_tensor_data(j->src);
    int64_t rx[ROW_TILE], ri[ROW_TILE], rs[ROW_TILE];
    int64_t xoff[BATCH], ioff[BATCH], soff[BATCH], target[BATCH];
    int64_t n = 0;
    for (int64_t t0 = begin; t0 < end; t0 += ROW_TILE) {
        int64_t rows = end - t0 < ROW_TILE ? end - t0 : ROW_TILE;
        for (int64_t r = 0; r < rows; r++) {
            int64_t off[3];
            row_offsets(j, t0 + r, off);
            rx[r] = off[0];
            ri[r] = off[1];
            rs[r] = off[2];
        }
        /* k outer, rows inner: each row still sees k in increasing order */
        for (int64_t k = 0; k < j->K; k++)
            for (int64_t r = 0; r < rows; r++) {
                xoff[n] = rx[r];
                ioff[n] = ri[r] + k * j->id;
                soff[n] = rs[r] + k * j->sd;
                if (++n == BATCH) {
                    j->resolve(ids, ioff, xoff, j->xd, n, target);
                    j->combine(x, src, target, soff, n);
                    n = 0;
                }
            }
    }
    if (n) {
        j->resolve(ids, ioff, xoff, j->xd, n, target);
        j->combine(x, src, target, soff, n);
    }
}

/* ids_view: ids at its own shape (scatter) or 1-D ids seen at src's shape (index_add); indices checked. */
static void scatter_walk(wk_tensor *x, int dim, const wk_tensor *ids_view, const wk_tensor *src, bool add)
{
    static resolve_fn *const resolve_fns[4] = {INDEX_TYPES(RESOLVE_ENTRY)};
    static combine_fn *const set_fns[WK_DTYPE_COUNT] = {WK_CPU_DTYPES(SET_ENTRY)};
    static combine_fn *const add_fns[WK_DTYPE_COUNT] = {WK_CPU_DTYPES(ADD_ENTRY)};
    scatter_job j = {.x = x, .ids = ids_view, .src = src, .K = ids_view->shape[dim],
                     .xd = x->strides[dim], .id = ids_view->strides[dim], .sd = src->strides[dim],
                     .resolve = resolve_fns[ids_view->dtype], .combine = add ? add_fns[x->dtype] : set_fns[x->dtype]};
    int64_t rows = 1;
    for (int d = 0; d < x->rank; d++) {
        if (d == dim)
            continue;
        j.oshape[j.orank] = ids_view->shape[d];
        j.ost[0][j.orank] = x->strides[d];
        j.ost[1][j.orank] = ids_view->strides[d];
        j.ost[2][j.orank] = src->strides[d];
        rows *= ids_view->shape[d];
        j.orank++;
    }
    if (rows == 0 || j.K == 0)
        return;
    wk_cpu_parallel_for(rows, WK_CPU_GRAIN / j.K + 1, scatter_rows, &j);
}

wk_status wk_cpu_scatter(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, bool add)
{
    WK_TRY(check_ids(add ? "scatter_add" : "scatter", ids, x->shape[dim], dim));
    scatter_walk(x, dim, ids, src, add);
    return WK_OK;
}

wk_status wk_cpu_index_add(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src)
{
    WK_TRY(check_ids("index_add", ids, x->shape[dim], dim));
    wk_tensor iv;
    ids_along(&iv, ids, src->rank, src->shape, dim);
    scatter_walk(x, dim, &iv, src, true);
    return WK_OK;
}
