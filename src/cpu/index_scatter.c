/* index_scatter.c: the index family's writes on the CPU: scatter / scatter_add and index_add. Contiguous cases run
 * direct loops (row by row along a unit-stride dim; row-vector adds for index_add); every other layout takes a
 * batched general path. */
#include <string.h>

#include "core/error.h"
#include "cpu/index.h"

/* Wrapping integer adds (through unsigned, no signed overflow); floats add in their compute type. */
static inline uint8_t add_u8(uint8_t a, uint8_t b) { return (uint8_t)(a + b); }
static inline uint32_t add_u32(uint32_t a, uint32_t b) { return a + b; }
static inline int32_t add_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int64_t add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline float add_f16(float a, float b) { return a + b; }
static inline float add_bf16(float a, float b) { return a + b; }
static inline float add_f32(float a, float b) { return a + b; }
static inline double add_f64(double a, double b) { return a + b; }

/* *p (op)= v for one element of dtype suffix sfx. */
#define ADD_AT(sfx, p, v) wk_st_##sfx((p), add_##sfx(wk_ld_##sfx(p), wk_ld_##sfx(v)))

static int size_slot(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

/* ---------------------------------------------------------------- the job
 * Rows are the coordinates off dim; all writes of one row go to one row of x, so rows are split across
 * threads (no two threads write one element) and each row walks dim in increasing order (the last write
 * in row-major order wins for set; duplicates add in that order). */
typedef void resolve_fn(const void *ids, const int64_t *ioff, const int64_t *xoff, int64_t xd, int64_t n,
                        int64_t *target);
typedef void combine_fn(void *x, const void *src, const int64_t *target, const int64_t *soff, int64_t n);
typedef void row_fn(char *x, const char *ids, const char *src, int64_t K, wk_index_prefetch pf);

typedef struct scatter_job {
    const wk_tensor *x, *ids, *src;
    wk_index_rows rows;    /* operands x, ids, src */
    int64_t K, xd, id, sd; /* length along dim and the three strides along it */
    resolve_fn *resolve;   /* general path */
    combine_fn *combine;
    row_fn *row;           /* direct path */
    int64_t x_row_bytes;   /* the span of one x row along dim */
} scatter_job;

/* ---------------------------------------------------------------- direct path: unit stride along dim
 * x, ids and src all contiguous along dim: each row is one tight loop, x's row staying in cache. */
#define ROW_ADD_KERNEL(sfx, T, isfx, IT)                                                    \
    static void row_add_##sfx##_##isfx(char *x, const char *ids, const char *src, int64_t K, \
                                       wk_index_prefetch pf)                                \
    {                                                                                       \
        T *xp = (T *)x;                                                                     \
        const IT *ip = (const IT *)ids;                                                     \
        const T *sp = (const T *)src;                                                       \
        WK_INDEX_FOR_BLOCKS(K, &pf, 1, k, ADD_AT(sfx, xp + (int64_t)ip[k], sp + k))          \
    }
#define ROW_ADD_FOR(E, sfx, T, C) WK_INDEX_TYPES_WITH(ROW_ADD_KERNEL, sfx, T)
WK_CPU_DTYPES(ROW_ADD_FOR)
#define ROW_ADD_ENTRY(sfx, isfx, IT) row_add_##sfx##_##isfx,
#define ROW_ADD_ROW(E, sfx, T, C) [E] = {WK_INDEX_TYPES_WITH(ROW_ADD_ENTRY, sfx)},
static row_fn *const row_add_fns[WK_DTYPE_COUNT][4] = {WK_CPU_DTYPES(ROW_ADD_ROW)};

/* set moves ES-byte elements whatever their dtype */
#define ROW_SET_KERNEL(ES, isfx, IT)                                                        \
    static void row_set_##ES##_##isfx(char *x, const char *ids, const char *src, int64_t K, \
                                      wk_index_prefetch pf)                                 \
    {                                                                                       \
        const IT *ip = (const IT *)ids;                                                     \
        WK_INDEX_FOR_BLOCKS(K, &pf, 1, k, memcpy(x + (int64_t)ip[k] * ES, src + k * ES, ES)) \
    }
WK_INDEX_TYPES_WITH(ROW_SET_KERNEL, 1)
WK_INDEX_TYPES_WITH(ROW_SET_KERNEL, 2)
WK_INDEX_TYPES_WITH(ROW_SET_KERNEL, 4)
WK_INDEX_TYPES_WITH(ROW_SET_KERNEL, 8)
#define ROW_SET_ENTRY(ES, isfx, IT) row_set_##ES##_##isfx,
#define ROW_SET_ROW(ES) {WK_INDEX_TYPES_WITH(ROW_SET_ENTRY, ES)}
static row_fn *const row_set_fns[4][4] = {ROW_SET_ROW(1), ROW_SET_ROW(2), ROW_SET_ROW(4), ROW_SET_ROW(8)};

static void scatter_rows_direct(void *ctx, int64_t begin, int64_t end)
{
    const scatter_job *j = ctx;
    char *x = wk_tensor_data(j->x);
    const char *ids = wk_tensor_data(j->ids), *src = wk_tensor_data(j->src);
    const int64_t xes = (int64_t)wk_dtype_size(j->x->dtype), ies = (int64_t)wk_dtype_size(j->ids->dtype);
    wk_index_walk w, next;
    wk_index_walk_seek(&j->rows, begin, &w);
    for (int64_t r = begin; r < end; r++, w = next) {
        next = w;
        wk_index_walk_next(&j->rows, &next);
        wk_index_prefetch pf;
        wk_index_prefetch_init(&pf, r + 1 < end ? x + next.off[0] * xes : NULL, j->x_row_bytes, j->K);
        j->row(x + w.off[0] * xes, ids + w.off[1] * ies, src + w.off[2] * xes, j->K, pf);
    }
}

/* ---------------------------------------------------------------- general path: any strides
 * Work goes in batches: offsets for up to BATCH (row, k) pairs, then the indices, then the writes, so each
 * inner loop is tight whatever the layout. Rows go in tiles, k outer: a tile's rows share cache lines
 * when dim is not the innermost. */
#define BATCH 256
#define ROW_TILE 64

/* target[i] = xoff[i] + ids[ioff[i]] * xd: the element of x that pair i writes. */
#define RESOLVE_KERNEL(isfx, IT)                                                            \
    static void resolve_##isfx(const void *ids, const int64_t *ioff, const int64_t *xoff, int64_t xd, int64_t n, \
                               int64_t *target)                                             \
    {                                                                                       \
        const IT *p = ids;                                                                  \
        for (int64_t i = 0; i < n; i++)                                                     \
            target[i] = xoff[i] + (int64_t)p[ioff[i]] * xd;                                 \
    }
WK_INDEX_TYPES(RESOLVE_KERNEL)
#define RESOLVE_ENTRY(isfx, IT) resolve_##isfx,
static resolve_fn *const resolve_fns[4] = {WK_INDEX_TYPES(RESOLVE_ENTRY)};

/* x[target[i]] = or += src[soff[i]], in order. */
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
            ADD_AT(sfx, xp + target[i], sp + soff[i]);                                      \
    }
WK_CPU_DTYPES(COMBINE_KERNELS)
#define SET_ENTRY(E, sfx, T, C) [E] = set_##sfx,
#define ADD_ENTRY(E, sfx, T, C) [E] = add_into_##sfx,
static combine_fn *const set_fns[WK_DTYPE_COUNT] = {WK_CPU_DTYPES(SET_ENTRY)};
static combine_fn *const add_fns[WK_DTYPE_COUNT] = {WK_CPU_DTYPES(ADD_ENTRY)};

static void scatter_rows_batched(void *ctx, int64_t begin, int64_t end)
{
    const scatter_job *j = ctx;
    void *x = wk_tensor_data(j->x);
    const void *ids = wk_tensor_data(j->ids), *src = wk_tensor_data(j->src);
    int64_t rx[ROW_TILE], ri[ROW_TILE], rs[ROW_TILE];
    int64_t xoff[BATCH], ioff[BATCH], soff[BATCH], target[BATCH];
    int64_t n = 0;
    wk_index_walk w;
    wk_index_walk_seek(&j->rows, begin, &w);
    for (int64_t t0 = begin; t0 < end; t0 += ROW_TILE) {
        int64_t rows = end - t0 < ROW_TILE ? end - t0 : ROW_TILE;
        for (int64_t r = 0; r < rows; r++, wk_index_walk_next(&j->rows, &w)) {
            rx[r] = w.off[0];
            ri[r] = w.off[1];
            rs[r] = w.off[2];
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
    scatter_job j = {.x = x, .ids = ids_view, .src = src, .K = ids_view->shape[dim],
                     .xd = x->strides[dim], .id = ids_view->strides[dim], .sd = src->strides[dim]};
    const wk_tensor *ops[3] = {x, ids_view, src};
    int64_t rows = wk_index_rows_init(&j.rows, x->rank, ids_view->shape, dim, ops);
    if (rows == 0 || j.K == 0)
        return;
    size_t es = wk_dtype_size(x->dtype);
    if (j.xd == 1 && j.id == 1 && j.sd == 1) {
        j.x_row_bytes = x->shape[dim] * (int64_t)es;
        j.row = add ? row_add_fns[x->dtype][ids_view->dtype] : row_set_fns[size_slot(es)][ids_view->dtype];
        wk_cpu_parallel_for(rows, WK_CPU_GRAIN / j.K + 1, scatter_rows_direct, &j);
        return;
    }
    j.resolve = resolve_fns[ids_view->dtype];
    j.combine = add ? add_fns[x->dtype] : set_fns[x->dtype];
    wk_cpu_parallel_for(rows, WK_CPU_GRAIN / j.K + 1, scatter_rows_batched, &j);
}

wk_status wk_cpu_scatter(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_scatter_mode mode,
                         wk_write_target target)
{
    (void)target; /* the range check runs before any write either way */
    bool add = mode == WK_SCATTER_ADD;
    WK_TRY(wk_cpu_check_ids(add ? "scatter_add" : "scatter", ids, x->shape[dim], dim));
    scatter_walk(x, dim, ids, src, add);
    return WK_OK;
}

/* ---------------------------------------------------------------- index_add over contiguous x and src
 * x as (outer, x_len, inner) and src as (outer, n_ids, inner): x[o, ids[i], :] += src[o, i, :], a vector
 * add per index. Work items are (o, column block) pairs, so threads split the columns of one x row
 * and never write one element; each item takes the indices in order. */
typedef struct vec_job vec_job;
typedef void vec_fn(const vec_job *v, int64_t o, int64_t c0, int64_t cn);
struct vec_job {
    char *x;
    const char *ids, *src;
    int64_t x_len, n_ids, inner, ids_stride; /* ids_stride in elements */
    int64_t cols, blocks;                    /* columns per block, blocks per outer row */
    vec_fn *fn;
};

#define VEC_ADD_KERNEL(sfx, T, isfx, IT)                                                    \
    static void vec_add_##sfx##_##isfx(const vec_job *v, int64_t o, int64_t c0, int64_t cn) \
    {                                                                                       \
        T *x = (T *)v->x + o * v->x_len * v->inner + c0;                                    \
        const T *src = (const T *)v->src + o * v->n_ids * v->inner + c0;                    \
        const IT *ids = (const IT *)v->ids;                                                 \
        for (int64_t i = 0; i < v->n_ids; i++) {                                            \
            T *restrict dst = x + (int64_t)ids[i * v->ids_stride] * v->inner;               \
            const T *restrict s = src + i * v->inner;                                       \
            for (int64_t c = 0; c < cn; c++)                                                \
                ADD_AT(sfx, dst + c, s + c);                                                \
        }                                                                                   \
    }
#define VEC_ADD_FOR(E, sfx, T, C) WK_INDEX_TYPES_WITH(VEC_ADD_KERNEL, sfx, T)
WK_CPU_DTYPES(VEC_ADD_FOR)
#define VEC_ADD_ENTRY(sfx, isfx, IT) vec_add_##sfx##_##isfx,
#define VEC_ADD_ROW(E, sfx, T, C) [E] = {WK_INDEX_TYPES_WITH(VEC_ADD_ENTRY, sfx)},
static vec_fn *const vec_add_fns[WK_DTYPE_COUNT][4] = {WK_CPU_DTYPES(VEC_ADD_ROW)};

static void vec_items(void *ctx, int64_t begin, int64_t end)
{
    const vec_job *v = ctx;
    for (int64_t t = begin; t < end; t++) {
        int64_t o = t / v->blocks, c0 = t % v->blocks * v->cols;
        v->fn(v, o, c0, v->inner - c0 < v->cols ? v->inner - c0 : v->cols);
    }
}

static void index_add_vectors(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src)
{
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim; d++)
        outer *= x->shape[d];
    for (int d = dim + 1; d < x->rank; d++)
        inner *= x->shape[d];
    vec_job v = {.x = wk_tensor_data(x), .ids = wk_tensor_data(ids), .src = wk_tensor_data(src),
                 .x_len = x->shape[dim], .n_ids = ids->shape[0], .inner = inner, .ids_stride = ids->strides[0],
                 .fn = vec_add_fns[x->dtype][ids->dtype]};
    if (outer == 0 || inner == 0 || v.n_ids == 0)
        return;
    /* enough blocks that every thread has one when outer rows alone are too few; whole cache lines each */
    int64_t threads = wk_cpu_threads(), line = 64 / (int64_t)wk_dtype_size(x->dtype);
    int64_t want = outer >= threads ? 1 : (threads + outer - 1) / outer;
    v.cols = ((inner + want - 1) / want + line - 1) / line * line;
    if (v.cols > inner)
        v.cols = inner;
    v.blocks = (inner + v.cols - 1) / v.cols;
    wk_cpu_parallel_for(outer * v.blocks, WK_CPU_GRAIN / (v.n_ids * v.cols) + 1, vec_items, &v);
}

wk_status wk_cpu_index_add(wk_tensor *x, int dim, const wk_tensor *ids, const wk_tensor *src, wk_write_target target)
{
    (void)target; /* the range check runs before any write either way */
    WK_TRY(wk_cpu_check_ids("index_add", ids, x->shape[dim], dim));
    /* unit strides along dim (the last dim, contiguous): scatter_walk's direct row loops fit better */
    bool unit_along_dim = x->strides[dim] == 1 && ids->strides[0] == 1 && src->strides[dim] == 1;
    if (!unit_along_dim && wk_tensor_is_contiguous(x) && wk_tensor_is_contiguous(src)) {
        index_add_vectors(x, dim, ids, src);
        return WK_OK;
    }
    wk_tensor iv;
    wk_cpu_ids_along(&iv, ids, src->rank, src->shape, dim);
    scatter_walk(x, dim, &iv, src, true);
    return WK_OK;
}
