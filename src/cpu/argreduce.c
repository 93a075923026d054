/* argreduce.c: the CPU's argmin/argmax slot over the last dim: the first index of the extreme, where a
 * NaN is the extreme (the first NaN wins). Strided rows over a leading dim are scanned column-wise. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cpu/cpu.h"
#include "cpu/rowwise.h"

#define ARG_LANES 32   /* a width the compiler vectorises the NaN-aware select at */
#define ARG_TILE 4096  /* column path: columns per task, whole rows when they fit */

/* Moves i (in scope, with x and n) to the first element v for which MATCH holds, or n: whole blocks
 * are tested with an OR over the block, which vectorises, then the block found is scanned. */
#define FIND_FIRST(sfx, C, MATCH)                    \
    do {                                             \
        for (; i + ARG_LANES <= n; i += ARG_LANES) { \
            int hit = 0;                             \
            for (int j = 0; j < ARG_LANES; j++) {    \
                C v = wk_ld_##sfx(x + i + j);        \
                hit |= MATCH;                        \
            }                                        \
            if (hit)                                 \
                break;                               \
        }                                            \
        for (; i < n; i++) {                         \
            C v = wk_ld_##sfx(x + i);                \
            if (MATCH)                               \
                break;                               \
        }                                            \
    } while (0)

/* row: the index of the extreme of x[0], x[s], ..., x[(n-1)s] (n >= 1). A contiguous row takes two
 * vectorised passes (the extreme value, then the first element equal to it, or the first NaN) instead
 * of one scalar pass with a loop-carried index.
 * cols: the same for `width` neighbouring contiguous columns at once, rows `s` elements apart; best
 * holds the running extremes. */
#define DEF_ARG(name, PICK, sfx, T, C)                                                                \
    static int64_t name##_first_##sfx(const T *x, int64_t n, C m)                                     \
    {                                                                                                 \
        int64_t i = 0;                                                                                \
        if (WK_ISNAN(m)) {                                                                            \
            FIND_FIRST(sfx, C, WK_ISNAN(v));                                                          \
        } else {                                                                                      \
            FIND_FIRST(sfx, C, v == m);                                                               \
        }                                                                                             \
        return i;                                                                                     \
    }                                                                                                 \
    static int64_t name##_row_##sfx(const void *xv, int64_t n, int64_t s)                             \
    {                                                                                                 \
        const T *x = xv;                                                                              \
        C best = wk_ld_##sfx(x);                                                                      \
        if (s == 1) {                                                                                 \
            C lane[ARG_LANES];                                                                        \
            int64_t i = 0;                                                                            \
            for (int j = 0; j < ARG_LANES; j++)                                                       \
                lane[j] = best;                                                                       \
            for (; i + ARG_LANES <= n; i += ARG_LANES)                                                \
                for (int j = 0; j < ARG_LANES; j++) {                                                 \
                    C v = wk_ld_##sfx(x + i + j);                                                     \
                    lane[j] = PICK(v, lane[j]) ? v : lane[j];                                         \
                }                                                                                     \
            for (; i < n; i++) {                                                                      \
                C v = wk_ld_##sfx(x + i);                                                             \
                best = PICK(v, best) ? v : best;                                                      \
            }                                                                                         \
            for (int j = 0; j < ARG_LANES; j++)                                                       \
                best = PICK(lane[j], best) ? lane[j] : best;                                          \
            return name##_first_##sfx(x, n, best);                                                    \
        }                                                                                             \
        int64_t at = 0;                                                                               \
        for (int64_t i = 1; i < n && !WK_ISNAN(best); i++) {                                          \
            C v = wk_ld_##sfx(x + i * s);                                                             \
            if (PICK(v, best)) {                                                                      \
                best = v;                                                                             \
                at = i;                                                                               \
            }                                                                                         \
        }                                                                                             \
        return at;                                                                                    \
    }                                                                                                 \
    static void name##_cols_##sfx(const void *xv, int64_t n, int64_t s, int64_t width, void *scratch, \
                                  int64_t *out)                                                       \
    {                                                                                                 \
        const T *x = xv;                                                                              \
        C *best = scratch;                                                                            \
        for (int64_t j = 0; j < width; j++) {                                                         \
            best[j] = wk_ld_##sfx(x + j);                                                             \
            out[j] = 0;                                                                               \
        }                                                                                             \
        for (int64_t i = 1; i < n; i++)                                                               \
            for (int64_t j = 0; j < width; j++) {                                                     \
                C v = wk_ld_##sfx(x + i * s + j);                                                     \
                bool take = (!WK_ISNAN(best[j])) & PICK(v, best[j]); /* a NaN found stays */          \
                best[j] = take ? v : best[j];                                                         \
                out[j] = take ? i : out[j];                                                           \
            }                                                                                         \
    }

#define DEF_ARG_BOTH(E, sfx, T, C)          \
    DEF_ARG(argmin, WK_MIN_PICK, sfx, T, C) \
    DEF_ARG(argmax, WK_MAX_PICK, sfx, T, C)
WK_CPU_DTYPES(DEF_ARG_BOTH)

typedef int64_t (*arg_row_fn)(const void *x, int64_t n, int64_t s);
typedef void (*arg_cols_fn)(const void *x, int64_t n, int64_t s, int64_t width, void *scratch, int64_t *out);
typedef struct arg_kernel { arg_row_fn row; arg_cols_fn cols; } arg_kernel;

#define ARG_ENTRY(E, sfx, T, C) \
    [E] = {{argmin_row_##sfx, argmin_cols_##sfx}, {argmax_row_##sfx, argmax_cols_##sfx}},
static const arg_kernel arg_kernels[WK_DTYPE_COUNT][2] = {WK_CPU_DTYPES(ARG_ENTRY)};

typedef struct arg_ctx {
    arg_kernel k;
    const char *x;
    int64_t *out;
    int64_t es, n, s;        /* element size, reduced length and stride */
    wk_rows outer;           /* x's other dims, merged */
    int64_t width, tile, ntiles, units, tasks; /* column path: the contiguous innermost outer dim in tiles */
    char *scratch;           /* column path: a tile of running extremes per task */
} arg_ctx;

static void arg_rows_body(void *ctx, int64_t begin, int64_t end)
{
    const arg_ctx *c = ctx;
    wk_rows_iter it;
    wk_rows_seek(&c->outer, begin, &it);
    for (int64_t o = begin; o < end; o++, wk_rows_advance(&c->outer, &it, 1))
        c->out[o] = c->k.row(c->x + it.off * c->es, c->n, c->s);
}

static void arg_cols_body(void *ctx, int64_t begin, int64_t end)
{
    const arg_ctx *c = ctx;
    for (int64_t t = begin; t < end; t++)
        for (int64_t u = c->units * t / c->tasks; u < c->units * (t + 1) / c->tasks; u++) {
            int64_t ob = u / c->ntiles, j0 = u % c->ntiles * c->tile;
            int64_t width = c->width - j0 < c->tile ? c->width - j0 : c->tile;
            const char *xb = c->x + (wk_rows_offset(&c->outer, c->outer.rank - 1, ob) + j0) * c->es;
            c->k.cols(xb, c->n, c->s, width, c->scratch + (size_t)t * c->tile * sizeof(double),
                      c->out + ob * c->width + j0);
        }
}

/* Leading-dim argmin/argmax: rows are read whole (tiles of ARG_TILE), narrower tiles only so that
 * every thread gets one. */
static wk_status arg_cols(arg_ctx *c, int64_t nout)
{
    int64_t threads = wk_cpu_threads(), outer;
    c->width = c->outer.shape[c->outer.rank - 1];
    outer = nout / c->width;
    c->tile = c->width < ARG_TILE ? c->width : ARG_TILE;
    if (outer * ((c->width + c->tile - 1) / c->tile) < threads && nout * c->n > WK_CPU_GRAIN) {
        int64_t want = (threads + outer - 1) / outer;
        c->tile = ((c->width + want - 1) / want + 63) / 64 * 64;
    }
    c->ntiles = (c->width + c->tile - 1) / c->tile;
    c->units = outer * c->ntiles;
    c->tasks = nout * c->n / WK_CPU_GRAIN + 1;
    c->tasks = c->tasks < threads ? c->tasks : threads;
    c->tasks = c->tasks < c->units ? c->tasks : c->units;
    c->scratch = malloc((size_t)c->tasks * (size_t)c->tile * sizeof(double));
    if (!c->scratch)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "arg_reduce: cannot allocate scratch");
    wk_cpu_parallel_for(c->tasks, 1, arg_cols_body, c);
    free(c->scratch);
    return WK_OK;
}

wk_status wk_cpu_arg_reduce(wk_reduce_op op, const wk_tensor *x, wk_tensor *out)
{
    arg_ctx c;
    int nouter = x->rank - 1;
    memset(&c, 0, sizeof c);
    c.k = arg_kernels[x->dtype][op == WK_REDUCE_MAX];
    c.x = wk_tensor_data(x);
    c.out = wk_tensor_data(out);
    c.es = (int64_t)wk_dtype_size(x->dtype);
    c.n = x->shape[nouter];
    c.s = x->strides[nouter];
    int64_t nout = wk_numel(nouter, x->shape);
    if (nout == 0)
        return WK_OK;
    wk_rows_init(&c.outer, x, nouter);
    if (c.s != 1 && c.n > 1 && c.outer.rank > 0 && c.outer.stride[c.outer.rank - 1] == 1 &&
        c.outer.shape[c.outer.rank - 1] >= 8)
        return arg_cols(&c, nout);
    wk_cpu_parallel_for(nout, WK_CPU_GRAIN / c.n + 1, arg_rows_body, &c);
    return WK_OK;
}
