/* sort.c: the CPU's stable sort slot along the last dim: a merge sort of (key, index) pairs per row,
 * ascending or descending (both stable), NaN after every number; the topk slot on the same order. Rows are split
 * across threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cpu/cpu.h"
#include "cpu/rowwise.h"

#define SORT_RUN 32 /* rows are first cut into runs this long, insertion-sorted */

typedef struct sort_ctx {
    void (*row)(const struct sort_ctx *c, const char *x, int64_t row, void *scratch);
    const char *x;
    char *values;     /* contiguous, or NULL */
    int64_t *indices; /* contiguous, or NULL */
    wk_rows outer;    /* x's dims but the last, merged */
    int64_t es, n, s; /* element size, row length, x's stride along the row */
    int64_t rows, tasks;
    size_t scratch_bytes; /* per task */
    char *scratch;
    bool descending;
    int64_t k;         /* topk: the selection's k */
    wk_topk_mode mode; /* topk */
} sort_ctx;

/* BEFORE(a, b): a must come out ahead of b. Equal keys never do, which is what keeps both directions
 * stable. */
#define ASC_BEFORE(a, b) WK_LESS_NAN_LAST(a, b)
#define DESC_BEFORE(a, b) WK_LESS_NAN_LAST(b, a)

/* Sorts (k, ix) of n pairs using (tk, tix) as scratch; *rk / *rix get whichever pair holds the result. */
#define DEF_MSORT(dir, BEFORE, sfx, C)                                                                       \
    static void msort_##dir##_##sfx(C *k, int64_t *ix, C *tk, int64_t *tix, int64_t n, C **rk,               \
                                    int64_t **rix)                                                           \
    {                                                                                                        \
        for (int64_t lo = 0; lo < n; lo += SORT_RUN) {                                                       \
            int64_t hi = lo + SORT_RUN < n ? lo + SORT_RUN : n;                                              \
            for (int64_t i = lo + 1; i < hi; i++) {                                                          \
                C key = k[i];                                                                                \
                int64_t id = ix[i], j = i;                                                                   \
                for (; j > lo && BEFORE(key, k[j - 1]); j--) {                                               \
                    k[j] = k[j - 1];                                                                         \
                    ix[j] = ix[j - 1];                                                                       \
                }                                                                                            \
                k[j] = key;                                                                                  \
                ix[j] = id;                                                                                  \
            }                                                                                                \
        }                                                                                                    \
        for (int64_t width = SORT_RUN; width < n; width *= 2) {                                              \
            for (int64_t lo = 0; lo < n; lo += 2 * width) {                                                  \
                int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n; \
                int64_t a = lo, b = mid, o = lo;                                                             \
                if (mid < hi && BEFORE(k[mid], k[mid - 1]))                                                  \
                    while (a < mid && b < hi) {                                                              \
                        bool right = BEFORE(k[b], k[a]);                                                     \
                        tk[o] = right ? k[b] : k[a];                                                         \
                        tix[o++] = right ? ix[b++] : ix[a++];                                                \
                    }                                                                                        \
                memcpy(tk + o, k + a, (size_t)(mid - a) * sizeof(C));                                        \
                memcpy(tix + o, ix + a, (size_t)(mid - a) * sizeof(int64_t));                                \
                o += mid - a;                                                                                \
                memcpy(tk + o, k + b, (size_t)(hi - b) * sizeof(C));                                         \
                memcpy(tix + o, ix + b, (size_t)(hi - b) * sizeof(int64_t));                                 \
            }                                                                                                \
            C *t = k;                                                                                        \
            k = tk;                                                                                          \
            tk = t;                                                                                          \
            int64_t *u = ix;                                                                                 \
            ix = tix;                                                                                        \
            tix = u;                                                                                         \
        }                                                                                                    \
        *rk = k;                                                                                             \
        *rix = ix;                                                                                           \
    }

/* One row: load keys and indices into scratch, sort, write values and/or indices. */
#define DEF_SORT_ROW(E, sfx, T, C)                                                              \
    DEF_MSORT(asc, ASC_BEFORE, sfx, C)                                                          \
    DEF_MSORT(desc, DESC_BEFORE, sfx, C)                                                        \
    static void sort_row_##sfx(const sort_ctx *c, const char *xrow, int64_t row, void *scratch) \
    {                                                                                           \
        int64_t n = c->n, *ix = scratch, *tix = ix + n, *rix;                                   \
        C *k = (C *)(tix + n), *tk = k + n, *rk;                                                \
        const T *x = (const T *)xrow;                                                           \
        for (int64_t i = 0; i < n; i++) {                                                       \
            k[i] = wk_ld_##sfx(x + i * c->s);                                                   \
            ix[i] = i;                                                                          \
        }                                                                                       \
        if (c->descending)                                                                      \
            msort_desc_##sfx(k, ix, tk, tix, n, &rk, &rix);                                     \
        else                                                                                    \
            msort_asc_##sfx(k, ix, tk, tix, n, &rk, &rix);                                      \
        if (c->values)                                                                          \
            for (int64_t i = 0; i < n; i++)                                                     \
                wk_st_##sfx((T *)c->values + row * n + i, rk[i]);                               \
        if (c->indices)                                                                         \
            memcpy(c->indices + row * n, rix, (size_t)n * sizeof(int64_t));                     \
    }
WK_CPU_DTYPES(DEF_SORT_ROW)

/* topk's rows (backend.h's slot): the k first of the stable order kept in a sorted buffer, insertion by
 * insertion, for small k; the whole row merge-sorted otherwise (and for the k-th element). MEDIAN takes the
 * first NaN when there is one (k != k only for NaN; never for integers). */
#define TOPK_INSERT_MAX 64
#define DEF_TOPK_ROW(E, sfx, T, C)                                                                      \
    static void topk_row_##sfx(const sort_ctx *c, const char *xrow, int64_t row, void *scratch)         \
    {                                                                                                   \
        int64_t n = c->n, kk = c->k, *ix = scratch, *tix = ix + n, *rix, cnt = 0, at = kk - 1;         \
        C *k = (C *)(tix + n), *tk = k + n, *rk;                                                        \
        const T *x = (const T *)xrow;                                                                   \
        bool largest = c->mode == WK_TOPK_LARGEST, few = kk <= TOPK_INSERT_MAX && c->mode <= WK_TOPK_LARGEST; \
        for (int64_t i = 0; i < n; i++) {                                                               \
            C key = wk_ld_##sfx(x + i * c->s);                                                          \
            if (c->mode == WK_TOPK_MEDIAN && isnan((double)key)) {                                            \
                wk_st_##sfx((T *)c->values + row, key);                                                 \
                c->indices[row] = i;                                                                    \
                return;                                                                                 \
            }                                                                                           \
            if (!few) {                                                                                 \
                k[i] = key;                                                                             \
                ix[i] = i;                                                                              \
                continue;                                                                               \
            }                                                                                           \
            if (cnt == kk && !(largest ? DESC_BEFORE(key, k[kk - 1]) : ASC_BEFORE(key, k[kk - 1])))     \
                continue;                                                                               \
            int64_t j = cnt < kk ? cnt++ : kk - 1;                                                      \
            for (; j > 0 && (largest ? DESC_BEFORE(key, k[j - 1]) : ASC_BEFORE(key, k[j - 1])); j--) {  \
                k[j] = k[j - 1];                                                                        \
                ix[j] = ix[j - 1];                                                                      \
            }                                                                                           \
            k[j] = key;                                                                                 \
            ix[j] = i;                                                                                  \
        }                                                                                               \
        rk = k;                                                                                         \
        rix = ix;                                                                                       \
        if (!few && largest)                                                                            \
            msort_desc_##sfx(k, ix, tk, tix, n, &rk, &rix);                                             \
        else if (!few)                                                                                  \
            msort_asc_##sfx(k, ix, tk, tix, n, &rk, &rix);                                              \
        if (c->mode >= WK_TOPK_KTH) {                                                                   \
            wk_st_##sfx((T *)c->values + row, rk[at]);                                                  \
            c->indices[row] = rix[at];                                                                  \
            return;                                                                                     \
        }                                                                                               \
        for (int64_t i = 0; i < kk; i++) {                                                              \
            wk_st_##sfx((T *)c->values + row * kk + i, rk[i]);                                          \
            c->indices[row * kk + i] = rix[i];                                                          \
        }                                                                                               \
    }
WK_CPU_DTYPES(DEF_TOPK_ROW)

#define SORT_ENTRY(E, sfx, T, C) [E] = sort_row_##sfx,
static void (*const sort_rows[WK_DTYPE_COUNT])(const sort_ctx *, const char *, int64_t, void *) = {
    WK_CPU_DTYPES(SORT_ENTRY)};
#define TOPK_ENTRY(E, sfx, T, C) [E] = topk_row_##sfx,
static void (*const topk_rows[WK_DTYPE_COUNT])(const sort_ctx *, const char *, int64_t, void *) = {
    WK_CPU_DTYPES(TOPK_ENTRY)};

/* Task t sorts its share of the rows with its own scratch. */
static void sort_body(void *ctx, int64_t begin, int64_t end)
{
    const sort_ctx *c = ctx;
    for (int64_t t = begin; t < end; t++) {
        void *scratch = c->scratch + (size_t)t * c->scratch_bytes;
        int64_t first = c->rows * t / c->tasks, end_row = c->rows * (t + 1) / c->tasks;
        wk_rows_iter it;
        wk_rows_seek(&c->outer, first, &it);
        for (int64_t r = first; r < end_row; r++, wk_rows_advance(&c->outer, &it, 1))
            c->row(c, c->x + it.off * c->es, r, scratch);
    }
}

/* Splits c's rows over tasks, each with its own scratch, and runs them. */
static wk_status run_rows(sort_ctx *c, const char *op)
{
    int64_t by_work = c->rows * c->n / WK_CPU_GRAIN + 1;
    c->tasks = wk_cpu_threads();
    if (c->tasks > by_work)
        c->tasks = by_work;
    if (c->tasks > c->rows)
        c->tasks = c->rows;
    /* two index arrays and two key arrays (keys at most 8 bytes, placed after the indices to stay aligned) */
    c->scratch_bytes = (size_t)c->n * 2 * (sizeof(int64_t) + sizeof(double));
    c->scratch = malloc(c->scratch_bytes * (size_t)c->tasks);
    if (!c->scratch)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of scratch", op,
                        c->scratch_bytes * (size_t)c->tasks);
    wk_cpu_parallel_for(c->tasks, 1, sort_body, c);
    free(c->scratch);
    return WK_OK;
}

static void init_ctx(sort_ctx *c, const wk_tensor *x, wk_tensor *values, wk_tensor *indices)
{
    int last = x->rank - 1;
    c->x = wk_tensor_data(x);
    c->values = values ? wk_tensor_data(values) : NULL;
    c->indices = indices ? wk_tensor_data(indices) : NULL;
    c->es = (int64_t)wk_dtype_size(x->dtype);
    c->n = x->shape[last];
    c->s = x->strides[last];
    c->rows = wk_numel(last, x->shape);
    wk_rows_init(&c->outer, x, last);
}

wk_status wk_cpu_sort(const wk_tensor *x, wk_sort_order order, wk_tensor *values, wk_tensor *indices)
{
    sort_ctx c = {.row = sort_rows[x->dtype], .descending = order == WK_SORT_DESCENDING};
    init_ctx(&c, x, values, indices);
    return run_rows(&c, "sort");
}

wk_status wk_cpu_topk(const wk_tensor *x, int64_t k, wk_topk_mode mode, wk_tensor *values, wk_tensor *indices)
{
    sort_ctx c = {.row = topk_rows[x->dtype], .k = k, .mode = mode};
    init_ctx(&c, x, values, indices);
    return run_rows(&c, mode <= WK_TOPK_LARGEST ? "topk" : mode == WK_TOPK_KTH ? "kthvalue" : "median");
}
