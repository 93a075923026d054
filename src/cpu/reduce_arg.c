/* reduce_arg.c: the CPU's argmin/argmax slot over the last dim: the first index of the extreme, where a
 * NaN is the extreme (the first NaN wins). Strided rows over a leading dim are scanned column-wise. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cpu/cpu.h"
#include "cpu/rowwise.h"
#include "cpu/vhalf.h"
#include "cpu/vmath.h"

#define ARG_LANES 32   /* a width the compiler vectorises the NaN-aware select at */
#define ARG_TILE 4096  /* column path: columns per task, whole rows when they fit */
#define ARG_BLOCK 512  /* column path: rows between moves of the rows found to out */
#define ARG_SCRATCH 16 /* column path: scratch bytes per column, a key and a row of up to 8 bytes each */

/* Moves i (in scope, with x and n) to the first element v for which MATCH holds, or n: whole blocks
 * are tested with an OR over the block, which vectorises, then the block found is scanned. */
#define FIND_FIRST(LD, C, MATCH)                     \
    do {                                             \
        for (; i + ARG_LANES <= n; i += ARG_LANES) { \
            int hit = 0;                             \
            for (int j = 0; j < ARG_LANES; j++) {    \
                C v = LD(x + i + j);                 \
                hit |= MATCH;                        \
            }                                        \
            if (hit)                                 \
                break;                               \
        }                                            \
        for (; i < n; i++) {                         \
            C v = LD(x + i);                         \
            if (MATCH)                               \
                break;                               \
        }                                            \
    } while (0)

/* Column keys: integers ordered as the values, so the column path compares integers only (GCC 12 leaves
 * a float select scalar once it also tests the running extreme for NaN). A float's key is its magnitude
 * bits with the sign applied (-0 and +0 both 0); any NaN gets `nan`, beyond every number, so that the
 * first NaN is the extreme and stays. */
#define DEF_FLOAT_KEY(sfx, T, K, U, MAG, INF)                            \
    static inline K argkey_##sfx(const T *p, K nan)                      \
    {                                                                    \
        U u;                                                             \
        memcpy(&u, p, sizeof u);                                         \
        K mag = (K)(u & MAG), neg = (K)0 - (K)(u >> (8 * sizeof u - 1)); \
        return mag > (K)INF ? nan : (mag ^ neg) - neg;                   \
    }
DEF_FLOAT_KEY(f16, wk_f16_t, int32_t, uint16_t, 0x7fffu, 0x7c00)
DEF_FLOAT_KEY(bf16, wk_bf16_t, int32_t, uint16_t, 0x7fffu, 0x7f80)
DEF_FLOAT_KEY(f32, float, int32_t, uint32_t, 0x7fffffffu, 0x7f800000)
DEF_FLOAT_KEY(f64, double, int64_t, uint64_t, 0x7fffffffffffffffu, 0x7ff0000000000000)
#define DEF_INT_KEY(sfx, T, K) \
    static inline K argkey_##sfx(const T *p, K nan) { (void)nan; return (K)*p; }
DEF_INT_KEY(u8, uint8_t, int32_t)
DEF_INT_KEY(u32, uint32_t, uint32_t)
DEF_INT_KEY(i32, int32_t, int32_t)
DEF_INT_KEY(i64, int64_t, int64_t)

/* Row i of a column block into the running extreme key b found at row a (rows counted from 1): strictly
 * better replaces, so ties and a NaN found stay. Both selects share one mask: K and I are as wide. */
#define ARG_STEP(BETTER, K, I, i, key) \
    do {                               \
        K k_ = (key);                  \
        int take_ = k_ BETTER b;       \
        b = take_ ? k_ : b;            \
        a = take_ ? (I)((i) + 1) : a;  \
    } while (0)

/* row: the index of the extreme of x[0], x[s], ..., x[(n-1)s] (n >= 1). A contiguous row takes two
 * vectorised passes (the extreme value, then the first element equal to it, or the first NaN) instead
 * of one scalar pass with a loop-carried index.
 * cols: the same for `width` neighbouring contiguous columns at once, rows `s` elements apart. The
 * running extremes (keys, K) and the rows they were found at (I, rows within a block of ARG_BLOCK, 0
 * for none) live in scratch; each block ends by moving the rows it found to out. */
#define DEF_ARG(name, PICK, BETTER, NANKEY, sfx, T, C, K, I, LD, ROW_CLONES)                           \
    static int64_t name##_first_##sfx(const T *x, int64_t n, C m)                                      \
    {                                                                                                  \
        int64_t i = 0;                                                                                 \
        if (WK_ISNAN(m)) {                                                                             \
            FIND_FIRST(LD, C, WK_ISNAN(v));                                                            \
        } else {                                                                                       \
            FIND_FIRST(LD, C, v == m);                                                                 \
        }                                                                                              \
        return i;                                                                                      \
    }                                                                                                  \
    ROW_CLONES                                                                                         \
    static int64_t name##_row_##sfx(const void *xv, int64_t n, int64_t s)                              \
    {                                                                                                  \
        const T *x = xv;                                                                               \
        C best = LD(x);                                                                                \
        if (s == 1) {                                                                                  \
            C lane[ARG_LANES];                                                                         \
            int64_t i = 0;                                                                             \
            for (int j = 0; j < ARG_LANES; j++)                                                        \
                lane[j] = best;                                                                        \
            for (; i + ARG_LANES <= n; i += ARG_LANES)                                                 \
                for (int j = 0; j < ARG_LANES; j++) {                                                  \
                    C v = LD(x + i + j);                                                               \
                    lane[j] = PICK(v, lane[j]) ? v : lane[j];                                          \
                }                                                                                      \
            for (; i < n; i++) {                                                                       \
                C v = LD(x + i);                                                                       \
                best = PICK(v, best) ? v : best;                                                       \
            }                                                                                          \
            for (int j = 0; j < ARG_LANES; j++)                                                        \
                best = PICK(lane[j], best) ? lane[j] : best;                                           \
            return name##_first_##sfx(x, n, best);                                                     \
        }                                                                                              \
        int64_t at = 0;                                                                                \
        for (int64_t i = 1; i < n && !WK_ISNAN(best); i++) {                                           \
            C v = LD(x + i * s);                                                                       \
            if (PICK(v, best)) {                                                                       \
                best = v;                                                                              \
                at = i;                                                                                \
            }                                                                                          \
        }                                                                                              \
        return at;                                                                                     \
    }                                                                                                  \
    WK_VEC_CLONES                                                                                      \
    static void name##_block_##sfx(const T *x, int64_t rows, int64_t s, int64_t width, K *best, I *at) \
    {                                                                                                  \
        int64_t i = 0;                                                                                 \
        for (int64_t j = 0; j < width; j++)                                                            \
            at[j] = 0;                                                                                 \
        for (; i + 4 <= rows; i += 4) /* four rows per pass over best and at */                        \
            for (int64_t j = 0; j < width; j++) {                                                      \
                K b = best[j];                                                                         \
                I a = at[j];                                                                           \
                const T *p = x + i * s + j;                                                            \
                ARG_STEP(BETTER, K, I, i, argkey_##sfx(p, NANKEY));                                    \
                ARG_STEP(BETTER, K, I, i + 1, argkey_##sfx(p + s, NANKEY));                            \
                ARG_STEP(BETTER, K, I, i + 2, argkey_##sfx(p + 2 * s, NANKEY));                        \
                ARG_STEP(BETTER, K, I, i + 3, argkey_##sfx(p + 3 * s, NANKEY));                        \
                best[j] = b;                                                                           \
                at[j] = a;                                                                             \
            }                                                                                          \
        for (; i < rows; i++)                                                                          \
            for (int64_t j = 0; j < width; j++) {                                                      \
                K b = best[j];                                                                         \
                I a = at[j];                                                                           \
                ARG_STEP(BETTER, K, I, i, argkey_##sfx(x + i * s + j, NANKEY));                        \
                best[j] = b;                                                                           \
                at[j] = a;                                                                             \
            }                                                                                          \
    }                                                                                                  \
    static void name##_cols_##sfx(const void *xv, int64_t n, int64_t s, int64_t width, void *scratch,  \
                                  int64_t *out)                                                        \
    {                                                                                                  \
        const T *x = xv;                                                                               \
        K *best = scratch;                                                                             \
        I *at = (I *)(best + width);                                                                   \
        for (int64_t j = 0; j < width; j++) {                                                          \
            best[j] = argkey_##sfx(x + j, NANKEY);                                                     \
            out[j] = 0;                                                                                \
        }                                                                                              \
        for (int64_t r0 = 1; r0 < n; r0 += ARG_BLOCK) {                                                \
            int64_t rows = n - r0 < ARG_BLOCK ? n - r0 : ARG_BLOCK;                                    \
            name##_block_##sfx(x + r0 * s, rows, s, width, best, at);                                  \
            for (int64_t j = 0; j < width; j++)                                                        \
                out[j] = at[j] ? r0 - 1 + (int64_t)at[j] : out[j];                                     \
        }                                                                                              \
    }

/* X(dtype_enum, suffix, storage_type, compute_type, load, column key type, lowest and highest key, row
 * type as wide as the key, row path's clones: f16/bf16 rows gain from AVX2, the others lose) */
#define ARG_DTYPES(X)                                                                                      \
    X(WK_U8, u8, uint8_t, uint8_t, wk_ld_u8, int32_t, INT32_MIN, INT32_MAX, uint32_t, )                    \
    X(WK_U32, u32, uint32_t, uint32_t, wk_ld_u32, uint32_t, 0, UINT32_MAX, uint32_t, )                     \
    X(WK_I32, i32, int32_t, int32_t, wk_ld_i32, int32_t, INT32_MIN, INT32_MAX, uint32_t, )                 \
    X(WK_I64, i64, int64_t, int64_t, wk_ld_i64, int64_t, INT64_MIN, INT64_MAX, uint64_t, )                 \
    X(WK_F16, f16, wk_f16_t, float, wk_vld_f16, int32_t, INT32_MIN, INT32_MAX, uint32_t, WK_VEC_CLONES)    \
    X(WK_BF16, bf16, wk_bf16_t, float, wk_ld_bf16, int32_t, INT32_MIN, INT32_MAX, uint32_t, WK_VEC_CLONES) \
    X(WK_F32, f32, float, float, wk_ld_f32, int32_t, INT32_MIN, INT32_MAX, uint32_t, )                     \
    X(WK_F64, f64, double, double, wk_ld_f64, int64_t, INT64_MIN, INT64_MAX, uint64_t, )
#define DEF_ARG_BOTH(E, sfx, T, C, LD, K, KLO, KHI, I, RC)             \
    DEF_ARG(argmin, WK_MIN_PICK, <, (K)(KLO), sfx, T, C, K, I, LD, RC) \
    DEF_ARG(argmax, WK_MAX_PICK, >, (K)(KHI), sfx, T, C, K, I, LD, RC)
ARG_DTYPES(DEF_ARG_BOTH)

typedef int64_t (*arg_row_fn)(const void *x, int64_t n, int64_t s);
typedef void (*arg_cols_fn)(const void *x, int64_t n, int64_t s, int64_t width, void *scratch, int64_t *out);
typedef struct arg_kernel { arg_row_fn row; arg_cols_fn cols; } arg_kernel;

#define ARG_ENTRY(E, sfx, T, C, LD, K, KLO, KHI, I, RC) \
    [E] = {{argmin_row_##sfx, argmin_cols_##sfx}, {argmax_row_##sfx, argmax_cols_##sfx}},
static const arg_kernel arg_kernels[WK_DTYPE_COUNT][2] = {ARG_DTYPES(ARG_ENTRY)};

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
            c->k.cols(xb, c->n, c->s, width, c->scratch + (size_t)t * c->tile * ARG_SCRATCH,
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
    c->scratch = malloc((size_t)c->tasks * (size_t)c->tile * ARG_SCRATCH);
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
    wk_rows_init(&c.outer, x, nouter);
    if (c.s != 1 && c.n > 1 && c.outer.rank > 0 && c.outer.stride[c.outer.rank - 1] == 1 &&
        c.outer.shape[c.outer.rank - 1] >= 8)
        return arg_cols(&c, nout);
    wk_cpu_parallel_for(nout, WK_CPU_GRAIN / c.n + 1, arg_rows_body, &c);
    return WK_OK;
}
