/* reorder.c: the CPU's reorder slot (pad, flip, roll, repeat, repeat_interleave: a gather through one index map per
 * dim, core/numerics.h) and one_hot. Threaded over output rows; elements move as 1, 2, 4 or 8 bytes. */
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/index.h"

/* The gather with x's strides in elements; rank >= 1 (a rank-0 copy arrives as one dim of size 1). */
typedef struct reorder_job {
    const char *x;
    char *out;
    int rank;
    int64_t es, cols; /* element bytes; output row length (the last dim) */
    int32_t kind[WK_MAX_RANK];
    int64_t a[WK_MAX_RANK], n[WK_MAX_RANK], os[WK_MAX_RANK], xs[WK_MAX_RANK];
    wk_scalar value;
} reorder_job;

/* One output row: o[c] = x[src(c) * xs], or v where src is -1. */
#define REORDER_ROW(T)                                                                                         \
    static void row_##T(T *o, const T *x, const reorder_job *j, bool outside)                                  \
    {                                                                                                          \
        const int L = j->rank - 1;                                                                             \
        const int kind = j->kind[L];                                                                           \
        const int64_t n = j->n[L], a = j->a[L], xs = j->xs[L];                                                 \
        T v;                                                                                                   \
        memcpy(&v, &j->value, sizeof v);                                                                       \
        if (outside) {                                                                                         \
            for (int64_t c = 0; c < j->cols; c++)                                                              \
                o[c] = v;                                                                                      \
        } else if (kind == WK_REORDER_SAME && xs == 1) {                                                       \
            memcpy(o, x, (size_t)j->cols * sizeof(T));                                                         \
        } else if (kind == WK_REORDER_SAME) {                                                                  \
            for (int64_t c = 0; c < j->cols; c++)                                                              \
                o[c] = x[c * xs];                                                                              \
        } else {                                                                                               \
            for (int64_t c = 0; c < j->cols; c++) {                                                            \
                int64_t i = wk_reorder_src(kind, c, n, a);                                                     \
                o[c] = i < 0 ? v : x[i * xs];                                                                  \
            }                                                                                                  \
        }                                                                                                      \
    }
REORDER_ROW(uint8_t)
REORDER_ROW(uint16_t)
REORDER_ROW(uint32_t)
REORDER_ROW(uint64_t)

static void reorder_rows(void *ctx, int64_t begin, int64_t end)
{
    const reorder_job *j = ctx;
    for (int64_t r = begin; r < end; r++) {
        int64_t rest = r, off = 0;
        bool outside = false;
        for (int d = j->rank - 2; d >= 0; d--) {
            int64_t c = rest % j->os[d], i = wk_reorder_src(j->kind[d], c, j->n[d], j->a[d]);
            rest /= j->os[d];
            outside = outside || i < 0;
            off += i * j->xs[d];
        }
        const char *x = outside ? j->x : j->x + off * j->es;
        char *o = j->out + r * j->cols * j->es;
        switch (j->es) {
        case 1: row_uint8_t((uint8_t *)o, (const uint8_t *)x, j, outside); break;
        case 2: row_uint16_t((uint16_t *)o, (const uint16_t *)x, j, outside); break;
        case 4: row_uint32_t((uint32_t *)o, (const uint32_t *)x, j, outside); break;
        default: row_uint64_t((uint64_t *)o, (const uint64_t *)x, j, outside); break;
        }
    }
}

wk_status wk_cpu_reorder(const wk_tensor *x, const wk_reorder_map *m, wk_tensor *out)
{
    reorder_job j = {.x = wk_tensor_data(x), .out = wk_tensor_data(out), .rank = x->rank,
                     .es = (int64_t)wk_dtype_size(x->dtype), .value = m->value};
    for (int d = 0; d < x->rank; d++) {
        j.kind[d] = m->kind[d];
        j.a[d] = m->a[d];
        j.n[d] = x->shape[d];
        j.os[d] = out->shape[d];
        j.xs[d] = x->strides[d];
    }
    if (j.rank == 0) {
        j.rank = 1;
        j.kind[0] = WK_REORDER_SAME;
        j.a[0] = 0;
        j.n[0] = j.os[0] = j.xs[0] = 1;
    }
    j.cols = j.os[j.rank - 1];
    int64_t rows = wk_tensor_numel(out) / j.cols;
    wk_cpu_parallel_for(rows, WK_CPU_GRAIN / j.cols + 1, reorder_rows, &j);
    return WK_OK;
}

/* ---------------------------------------------------------------- one_hot */
typedef struct one_hot_job {
    const wk_tensor *ids;
    int64_t *out, classes;
} one_hot_job;

static void one_hot_rows(void *ctx, int64_t begin, int64_t end)
{
    const one_hot_job *j = ctx;
    const wk_tensor *t = j->ids;
    const char *base = wk_tensor_data(t);
    for (int64_t r = begin; r < end; r++) {
        int64_t rest = r, off = 0;
        for (int d = t->rank - 1; d >= 0; d--) {
            off += rest % t->shape[d] * t->strides[d];
            rest /= t->shape[d];
        }
        int64_t id = wk_cpu_load_index(t->dtype, base, off), *o = j->out + r * j->classes;
        memset(o, 0, (size_t)j->classes * sizeof *o);
        o[id] = 1; /* in range: checked first */
    }
}

wk_status wk_cpu_one_hot(const wk_tensor *ids, int64_t classes, wk_tensor *out)
{
    wk_status s = wk_cpu_check_ids("one_hot", ids, classes, ids->rank);
    if (s != WK_OK)
        return s;
    one_hot_job j = {.ids = ids, .out = wk_tensor_data(out), .classes = classes};
    wk_cpu_parallel_for(wk_tensor_numel(ids), WK_CPU_GRAIN / classes + 1, one_hot_rows, &j);
    return WK_OK;
}
