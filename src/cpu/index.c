/* index.c: the CPU's range pass over index tensors, and index_select / gather (threaded over the output,
 * with loops for contiguous runs). Every index is range checked before it is used. */
#include <stdatomic.h>
#include <string.h>

#include "core/error.h"
#include "cpu/index.h"

void wk_cpu_stack_view(wk_tensor *v, const wk_tensor *t, int rank, const int64_t *shape, const int64_t *strides)
{
    memset(v, 0, sizeof *v);
    v->storage = t->storage;
    v->dtype = t->dtype;
    v->offset = t->offset;
    v->rank = rank;
    memcpy(v->shape, shape, (size_t)rank * sizeof *shape);
    memcpy(v->strides, strides, (size_t)rank * sizeof *strides);
}

void wk_cpu_ids_along(wk_tensor *v, const wk_tensor *ids, int rank, const int64_t *shape, int dim)
{
    int64_t st[WK_MAX_RANK] = {0};
    st[dim] = ids->strides[0];
    wk_cpu_stack_view(v, ids, rank, shape, st);
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

/* ---------------------------------------------------------------- range pass
 * True when one of n contiguous indices lies outside [0, size), size >= 1. With u = v as unsigned,
 * u | (size - 1 - u) has its top bit set exactly then (a negative v is above 2^63; one >= size makes the
 * difference wrap): plain integer ops, so the all-valid case vectorises even on SSE2. */
#define ANY_BAD_KERNEL(isfx, IT)                                                            \
    static bool any_bad_##isfx(const IT *v, int64_t n, uint64_t size)                       \
    {                                                                                       \
        const uint64_t last = size - 1;                                                     \
        uint64_t bits = 0;                                                                  \
        for (int64_t k = 0; k < n; k++) {                                                   \
            uint64_t u = (uint64_t)(int64_t)v[k];                                           \
            bits |= u | (last - u);                                                         \
        }                                                                                   \
        return bits >> 63;                                                                  \
    }
WK_INDEX_TYPES(ANY_BAD_KERNEL)

/* A contiguous run is tested with any_bad first; only a run that holds a bad index (or any index, when
 * size is 0) is walked again, to find and report it. */
#define CHECK_KERNEL(isfx, IT)                                                              \
    static void check_run_##isfx(void *ctx, int64_t n, char *const *p, const int64_t *s)    \
    {                                                                                       \
        range_check *c = ctx;                                                               \
        const char *ids = p[0];                                                             \
        const int64_t step = s[0];                                                          \
        if (step == (int64_t)sizeof(IT) && c->size > 0 && !any_bad_##isfx((const IT *)ids, n, (uint64_t)c->size)) \
            return;                                                                         \
        for (int64_t k = 0; k < n; k++)                                                     \
            if (!in_range(c, (int64_t)(*(const IT *)(ids + k * step))))                     \
                return;                                                                     \
    }
WK_INDEX_TYPES(CHECK_KERNEL)
#define CHECK_ENTRY(isfx, IT) check_run_##isfx,
static const wk_iter_fn check_fns[4] = {WK_INDEX_TYPES(CHECK_ENTRY)};

wk_status wk_cpu_check_ids(const char *op, const wk_tensor *ids, int64_t size, int dim)
{
    range_check c = {.size = size, .value = 0};
    atomic_init(&c.bad, 0);
    const wk_tensor *ops[1] = {ids};
    wk_cpu_foreach(ids->rank, ids->shape, 1, ops, WK_CPU_GRAIN, check_fns[ids->dtype], &c);
    return atomic_load(&c.bad) ? range_error(op, &c, dim) : WK_OK;
}

/* ---------------------------------------------------------------- index_select and gather
 * Both walk the output with three operands: out, x viewed with stride 0 along dim, and ids viewed at the
 * output's shape. out = x[.. + idx * dim stride]. One kernel per element size and index type; elements
 * move as ES-byte memcpys (any dtype of that size, no float loads). */
typedef struct gather_ctx {
    range_check check;
    int64_t dim_bytes; /* x's stride along dim, in bytes */
} gather_ctx;

/* Runs come in three shapes: one index for the whole run (index_select's inner dims: a row copy);
 * contiguous out and ids with x fixed (sx == 0: gather along the run's own dim) or contiguous (gather
 * along an outer dim), checked with any_bad and then copied without per-element tests; anything else
 * (or a run holding a bad index, to report it) element by element. Operands are copied to locals first:
 * the stores go through char pointers, which would otherwise make the compiler reload them per element. */
#define GATHER_KERNEL(ES, isfx, IT)                                                         \
    static void gather_run_##ES##_##isfx(void *ctx, int64_t n, char *const *p, const int64_t *s) \
    {                                                                                       \
        gather_ctx *g = ctx;                                                                \
        char *out = p[0];                                                                   \
        const char *x = p[1], *ids = p[2];                                                  \
        const int64_t so = s[0], sx = s[1], si = s[2], db = g->dim_bytes;                   \
        const uint64_t size = (uint64_t)g->check.size;                                      \
        if (si == 0) {                                                                      \
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
        if (so == ES && si == (int64_t)sizeof(IT) && (sx == 0 || sx == ES) && size > 0 &&   \
            !any_bad_##isfx((const IT *)ids, n, size)) {                                    \
            const IT *iv = (const IT *)ids;                                                 \
            for (int64_t k = 0; k < n; k++)                                                 \
                memcpy(out + k * ES, x + k * sx + (int64_t)iv[k] * db, ES);                 \
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
#define GATHER_FOR_SIZE(ES) WK_INDEX_TYPES_WITH(GATHER_KERNEL, ES)
GATHER_FOR_SIZE(1)
GATHER_FOR_SIZE(2)
GATHER_FOR_SIZE(4)
GATHER_FOR_SIZE(8)
#define GATHER_ENTRY(ES, isfx, IT) gather_run_##ES##_##isfx,
#define GATHER_ROW(ES) {WK_INDEX_TYPES_WITH(GATHER_ENTRY, ES)}
static const wk_iter_fn gather_fns[4][4] = {GATHER_ROW(1), GATHER_ROW(2), GATHER_ROW(4), GATHER_ROW(8)};

static int size_slot(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

/* ---- direct path: out, ids and x all unit stride along dim (gather or index_select along the last dim)
 * Row by row over the dims off dim: out_row[k] = x_row[ids_row[k]], the next x row prefetched meanwhile.
 * A row's indices are checked first (they stay in cache for the copy); a row kernel returns false, having
 * written nothing, when it holds a bad one, and the row is walked again to report it. */
typedef bool gather_row_fn(char *out, const char *ids, const char *x, int64_t K, uint64_t size,
                           wk_index_prefetch pf);

#define GATHER_ROW_KERNEL(ES, isfx, IT)                                                     \
    static bool gather_row_##ES##_##isfx(char *out, const char *ids, const char *x, int64_t K, uint64_t size, \
                                         wk_index_prefetch pf)                              \
    {                                                                                       \
        const IT *ip = (const IT *)ids;                                                     \
        if (size == 0 || any_bad_##isfx(ip, K, size))                                       \
            return false;                                                                   \
        WK_INDEX_FOR_BLOCKS(K, &pf, 0, k, memcpy(out + k * ES, x + (int64_t)ip[k] * ES, ES)) \
        return true;                                                                        \
    }
WK_INDEX_TYPES_WITH(GATHER_ROW_KERNEL, 1)
WK_INDEX_TYPES_WITH(GATHER_ROW_KERNEL, 2)
WK_INDEX_TYPES_WITH(GATHER_ROW_KERNEL, 4)
WK_INDEX_TYPES_WITH(GATHER_ROW_KERNEL, 8)
#define GATHER_ROW_ENTRY(ES, isfx, IT) gather_row_##ES##_##isfx,
#define GATHER_ROW_FNS(ES) {WK_INDEX_TYPES_WITH(GATHER_ROW_ENTRY, ES)}
static gather_row_fn *const gather_row_fns[4][4] = {GATHER_ROW_FNS(1), GATHER_ROW_FNS(2), GATHER_ROW_FNS(4),
                                                   GATHER_ROW_FNS(8)};

typedef struct gather_rows_job {
    wk_index_rows rows; /* operands out, ids, x */
    char *out;
    const char *ids, *x;
    int64_t K, es, ies, x_row_bytes;
    wk_dtype ids_dtype;
    range_check *check;
    gather_row_fn *row;
} gather_rows_job;

static void gather_rows(void *ctx, int64_t begin, int64_t end)
{
    const gather_rows_job *j = ctx;
    wk_index_walk w, next;
    wk_index_walk_seek(&j->rows, begin, &w);
    for (int64_t r = begin; r < end; r++, w = next) {
        next = w;
        wk_index_walk_next(&j->rows, &next);
        wk_index_prefetch pf;
        wk_index_prefetch_init(&pf, r + 1 < end ? j->x + next.off[2] * j->es : NULL, j->x_row_bytes, j->K);
        const char *ids = j->ids + w.off[1] * j->ies;
        if (!j->row(j->out + w.off[0] * j->es, ids, j->x + w.off[2] * j->es, j->K, (uint64_t)j->check->size, pf)) {
            for (int64_t k = 0; k < j->K && in_range(j->check, wk_cpu_load_index(j->ids_dtype, ids, k)); k++)
                ;
            return;
        }
    }
}

/* out (contiguous) = x[.., ids_view[i], ..] over out's shape; ids_view is ids at out's shape. */
static wk_status gather_walk(const char *op, const wk_tensor *x, int dim, const wk_tensor *ids_view, wk_tensor *out)
{
    const int64_t K = out->shape[dim], es = (int64_t)wk_dtype_size(x->dtype);
    gather_ctx g = {.check = {.size = x->shape[dim], .value = 0}, .dim_bytes = x->strides[dim] * es};
    atomic_init(&g.check.bad, 0);
    if (out->strides[dim] == 1 && ids_view->strides[dim] == 1 && x->strides[dim] == 1 && K > 0) {
        const wk_tensor *row_ops[3] = {out, ids_view, x};
        gather_rows_job j = {.out = wk_tensor_data(out), .ids = wk_tensor_data(ids_view), .x = wk_tensor_data(x),
                             .K = K, .es = es, .ies = (int64_t)wk_dtype_size(ids_view->dtype),
                             .x_row_bytes = x->shape[dim] * es, .ids_dtype = ids_view->dtype, .check = &g.check,
                             .row = gather_row_fns[size_slot((size_t)es)][ids_view->dtype]};
        int64_t rows = wk_index_rows_init(&j.rows, out->rank, out->shape, dim, row_ops);
        wk_cpu_parallel_for(rows, WK_CPU_GRAIN / K + 1, gather_rows, &j);
    } else {
        int64_t xst[WK_MAX_RANK];
        memcpy(xst, x->strides, sizeof xst);
        xst[dim] = 0;
        wk_tensor xv;
        wk_cpu_stack_view(&xv, x, out->rank, out->shape, xst);
        const wk_tensor *ops[3] = {out, &xv, ids_view};
        wk_iter_fn fn = gather_fns[size_slot((size_t)es)][ids_view->dtype];
        wk_cpu_foreach(out->rank, out->shape, 3, ops, WK_CPU_GRAIN, fn, &g);
    }
    return atomic_load(&g.check.bad) ? range_error(op, &g.check, dim) : WK_OK;
}

wk_status wk_cpu_index_select(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out)
{
    /* checked up front too, so an empty output still rejects a bad index */
    WK_TRY(wk_cpu_check_ids("index_select", ids, x->shape[dim], dim));
    wk_tensor iv;
    wk_cpu_ids_along(&iv, ids, out->rank, out->shape, dim);
    return gather_walk("index_select", x, dim, &iv, out);
}

wk_status wk_cpu_gather(const wk_tensor *x, int dim, const wk_tensor *ids, wk_tensor *out)
{
    return gather_walk("gather", x, dim, ids, out);
}
