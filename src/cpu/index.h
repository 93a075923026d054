/* index.h: what the CPU's indexing files (index.c: range checks, index_select, gather; index_scatter.c:
 * scatter, scatter_add, index_add) share: index dtypes, the range pass, iterator-only views, row walks, prefetch. */
#ifndef WK_CPU_INDEX_H
#define WK_CPU_INDEX_H

#include "cpu/cpu.h"

/* Index dtypes in enum order (WK_U8 = 0 .. WK_I64 = 3): X(suffix, C type). */
#define WK_INDEX_TYPES(X) X(u8, uint8_t) X(u32, uint32_t) X(i32, int32_t) X(i64, int64_t)
/* The same with leading arguments, to instantiate a kernel per (something, index dtype) pair. */
#define WK_INDEX_TYPES_WITH(X, ...) \
    X(__VA_ARGS__, u8, uint8_t) X(__VA_ARGS__, u32, uint32_t) X(__VA_ARGS__, i32, int32_t) X(__VA_ARGS__, i64, int64_t)

/* Checks every index of ids (any rank and layout) against [0, size), threaded; the error names op, the
 * first bad value met and dim. */
wk_status wk_cpu_check_ids(const char *op, const wk_tensor *ids, int64_t size, int dim);

/* A handle-less view of t's storage with another shape and strides (elements), for the iterator only. */
void wk_cpu_stack_view(wk_tensor *v, const wk_tensor *t, int rank, const int64_t *shape, const int64_t *strides);

/* 1-D ids seen at (rank, shape): stride 0 everywhere but dim. */
void wk_cpu_ids_along(wk_tensor *v, const wk_tensor *ids, int rank, const int64_t *shape, int dim);

/* The rows of an indexing op: the coordinates off dim (of `shape`), with three operands' strides over them
 * in elements. A walk is a position in them: multi-index and each operand's offset. */
typedef struct wk_index_rows {
    int rank;
    int64_t shape[WK_MAX_RANK];
    int64_t strides[3][WK_MAX_RANK];
} wk_index_rows;
typedef struct wk_index_walk {
    int64_t idx[WK_MAX_RANK], off[3];
} wk_index_walk;

/* Fills r from the dims of `shape` but dim; returns the number of rows. */
static inline int64_t wk_index_rows_init(wk_index_rows *r, int rank, const int64_t *shape, int dim,
                                         const wk_tensor *const ops[3])
{
    int64_t n = 1;
    r->rank = 0;
    for (int d = 0; d < rank; d++) {
        if (d == dim)
            continue;
        r->shape[r->rank] = shape[d];
        for (int k = 0; k < 3; k++)
            r->strides[k][r->rank] = ops[k]->strides[d];
        n *= shape[d];
        r->rank++;
    }
    return n;
}

static inline void wk_index_walk_seek(const wk_index_rows *r, int64_t row, wk_index_walk *w)
{
    w->off[0] = w->off[1] = w->off[2] = 0;
    for (int d = r->rank - 1; d >= 0; d--) {
        w->idx[d] = row % r->shape[d];
        row /= r->shape[d];
        for (int k = 0; k < 3; k++)
            w->off[k] += w->idx[d] * r->strides[k][d];
    }
}

/* On to the next row (past the last one is harmless: the outermost index just runs over). */
static inline void wk_index_walk_next(const wk_index_rows *r, wk_index_walk *w)
{
    for (int d = r->rank - 1; d >= 0; d--) {
        for (int k = 0; k < 3; k++)
            w->off[k] += r->strides[k][d];
        if (++w->idx[d] < r->shape[d] || d == 0)
            return;
        for (int k = 0; k < 3; k++)
            w->off[k] -= r->shape[d] * r->strides[k][d];
        w->idx[d] = 0;
    }
}

/* Requests for the cache lines of the next row of x while this row works: its elements are hit in random
 * order, which the hardware prefetcher cannot follow. wk_index_prefetch_step between blocks of
 * WK_INDEX_BLOCK elements spreads the row's lines evenly over the K elements of this row. */
#define WK_INDEX_BLOCK 16
typedef struct wk_index_prefetch {
    const char *next;
    int64_t bytes, per_block, asked, want;
} wk_index_prefetch;

static inline void wk_index_prefetch_init(wk_index_prefetch *p, const char *next, int64_t bytes, int64_t K)
{
    p->next = next;
    p->bytes = next ? bytes : 0;
    p->per_block = K > 0 ? (bytes * WK_INDEX_BLOCK + K - 1) / K : 0;
    p->asked = p->want = 0;
}

static inline void wk_index_prefetch_step(wk_index_prefetch *p, int for_write)
{
    p->want += p->per_block;
#ifdef __GNUC__
    for (; p->asked < p->want && p->asked < p->bytes; p->asked += 64) {
        if (for_write)
            __builtin_prefetch(p->next + p->asked, 1, 3);
        else
            __builtin_prefetch(p->next + p->asked, 0, 3);
    }
#else
    (void)for_write;
#endif
}

/* for (k = 0; k < K; k++) body, in blocks with a prefetch step before each. */
#define WK_INDEX_FOR_BLOCKS(K, pf, for_write, k, body)                                    \
    for (int64_t k##_0 = 0; k##_0 < (K); k##_0 += WK_INDEX_BLOCK) {                       \
        wk_index_prefetch_step((pf), (for_write));                                        \
        const int64_t k##_end = (K) - k##_0 < WK_INDEX_BLOCK ? (K) : k##_0 + WK_INDEX_BLOCK; \
        for (int64_t k = k##_0; k < k##_end; k++) {                                       \
            body;                                                                         \
        }                                                                                 \
    }

#endif
