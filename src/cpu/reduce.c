/* reduce.c: the CPU's sum/mean/min/max slot. Rows whose reduced elements are contiguous go through a
 * pairwise multi-lane kernel; reductions over a leading dim accumulate whole rows into the output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cpu/cpu.h"
#include "cpu/rowwise.h"
#include "cpu/vhalf.h"
#include "cpu/vmath.h"

/* ---------------------------------------------------------------- per-dtype kernels
 * Accumulators hold partial results in the op's accumulation type: sum/mean in f32 (f16, bf16, f32)
 * or f64, ints in u64 (wrapping, no UB); min/max in the compute type. A red_acc has room for one of
 * any of them; the kernels see arrays of the real type through void pointers. */
typedef union red_acc { float f32; double f64; uint64_t u64; } red_acc;

typedef struct red_kernel {
    void (*fill)(void *acc, int64_t n);                 /* n accumulators = the op's identity */
    void (*run)(void *acc, const void *x, int64_t n);   /* acc[0] = op(acc[0], x[0..n)), x contiguous */
    void (*rows)(void *acc, const void *x, int64_t n);  /* acc[j] = op(acc[j], x[j]) */
    /* four rows `s` elements apart at once: a quarter of the accumulator traffic, pairs summed first */
    void (*rows4)(void *acc, const void *x, int64_t s, int64_t n);
    void (*merge)(void *acc, const void *b, int64_t n); /* acc[j] = op(acc[j], b[j]) */
    void (*store)(void *out, const void *acc, int64_t n, int64_t count); /* out[j] = result of acc[j] */
} red_kernel;

/* Independent lanes let the compiler vectorise; a leaf of RED_LEAF elements keeps each lane's serial
 * chain short and the pairwise tree above it keeps f32 sums of long rows within 1e-6. */
#define RED_LANES 16
#define RED_LEAF 1024

/* X(dtype_enum, suffix, storage_type, compute_type, sum_type, lowest, highest, load): load is wk_ld_<sfx>
 * but for f16, whose branch-free load lets the loops around it vectorise. */
#define RED_DTYPES(X)                                                           \
    X(WK_U8, u8, uint8_t, uint8_t, uint64_t, 0, UINT8_MAX, wk_ld_u8)            \
    X(WK_U32, u32, uint32_t, uint32_t, uint64_t, 0, UINT32_MAX, wk_ld_u32)      \
    X(WK_I32, i32, int32_t, int32_t, uint64_t, INT32_MIN, INT32_MAX, wk_ld_i32) \
    X(WK_I64, i64, int64_t, int64_t, uint64_t, INT64_MIN, INT64_MAX, wk_ld_i64) \
    X(WK_F16, f16, wk_f16_t, float, float, -INFINITY, INFINITY, wk_vld_f16)     \
    X(WK_BF16, bf16, wk_bf16_t, float, float, -INFINITY, INFINITY, wk_ld_bf16)  \
    X(WK_F32, f32, float, float, float, -INFINITY, INFINITY, wk_ld_f32)         \
    X(WK_F64, f64, double, double, double, -INFINITY, INFINITY, wk_ld_f64)

#define DEF_SUM(E, sfx, T, C, A, lo, hi, LD)                                          \
    static void sum_fill_##sfx(void *acc, int64_t n)                                  \
    {                                                                                 \
        A *a = acc;                                                                   \
        for (int64_t j = 0; j < n; j++)                                               \
            a[j] = 0;                                                                 \
    }                                                                                 \
    static A sum_tree_##sfx(const T *p, int64_t n)                                    \
    {                                                                                 \
        if (n > RED_LEAF) {                                                           \
            int64_t half = n / 2 / RED_LANES * RED_LANES;                             \
            return sum_tree_##sfx(p, half) + sum_tree_##sfx(p + half, n - half);      \
        }                                                                             \
        A lane[RED_LANES] = {0}, tail = 0;                                            \
        int64_t i = 0;                                                                \
        for (; i + RED_LANES <= n; i += RED_LANES)                                    \
            for (int j = 0; j < RED_LANES; j++)                                       \
                lane[j] += (A)LD(p + i + j);                                          \
        for (; i < n; i++)                                                            \
            tail += (A)LD(p + i);                                                     \
        for (int w = RED_LANES / 2; w > 0; w /= 2)                                    \
            for (int j = 0; j < w; j++)                                               \
                lane[j] += lane[j + w];                                               \
        return lane[0] + tail;                                                        \
    }                                                                                 \
    static void sum_run_##sfx(void *acc, const void *x, int64_t n)                    \
    {                                                                                 \
        *(A *)acc += sum_tree_##sfx(x, n);                                            \
    }                                                                                 \
    WK_VEC_CLONES                                                                     \
    static void sum_rows_##sfx(void *acc, const void *x, int64_t n)                   \
    {                                                                                 \
        A *a = acc;                                                                   \
        const T *p = x;                                                               \
        for (int64_t j = 0; j < n; j++)                                               \
            a[j] += (A)LD(p + j);                                                     \
    }                                                                                 \
    WK_VEC_CLONES                                                                     \
    static void sum_rows4_##sfx(void *acc, const void *x, int64_t s, int64_t n)       \
    {                                                                                 \
        A *a = acc;                                                                   \
        const T *p = x;                                                               \
        for (int64_t j = 0; j < n; j++)                                               \
            a[j] += ((A)LD(p + j) + (A)LD(p + j + s)) +                               \
                    ((A)LD(p + j + 2 * s) + (A)LD(p + j + 3 * s));                    \
    }                                                                                 \
    static void sum_merge_##sfx(void *acc, const void *b, int64_t n)                  \
    {                                                                                 \
        A *a = acc;                                                                   \
        const A *s = b;                                                               \
        for (int64_t j = 0; j < n; j++)                                               \
            a[j] += s[j];                                                             \
    }                                                                                 \
    static void sum_store_##sfx(void *out, const void *acc, int64_t n, int64_t count) \
    {                                                                                 \
        const A *a = acc;                                                             \
        (void)count;                                                                  \
        for (int64_t j = 0; j < n; j++)                                               \
            wk_st_##sfx((T *)out + j, (C)a[j]);                                       \
    }

/* 32 lanes: the compiler vectorises the NaN-aware select for this width, not for 16 (GCC 12). */
#define RED_PICK_LANES 32

/* op(v, m), where a NaN v takes over and a NaN m stays: the plain select, then the NaN one. GCC 12
 * vectorises this form in every loop below; `PICK(v, m) ? v : m` it leaves scalar where both arms are
 * loads (rows4). */
#define DEF_EXTREME(name, CMP, ident, sfx, T, C, LD)                                     \
    static inline C name##_of_##sfx(C v, C m)                                            \
    {                                                                                    \
        C r = v CMP m ? v : m;                                                           \
        return WK_ISNAN(v) ? v : r;                                                      \
    }                                                                                    \
    static void name##_fill_##sfx(void *acc, int64_t n)                                  \
    {                                                                                    \
        C *a = acc;                                                                      \
        for (int64_t j = 0; j < n; j++)                                                  \
            a[j] = ident;                                                                \
    }                                                                                    \
    WK_VEC_CLONES                                                                        \
    static void name##_run_##sfx(void *acc, const void *x, int64_t n)                    \
    {                                                                                    \
        const T *p = x;                                                                  \
        C lane[RED_PICK_LANES], m = *(C *)acc;                                           \
        int64_t i = 0;                                                                   \
        for (int j = 0; j < RED_PICK_LANES; j++)                                         \
            lane[j] = ident;                                                             \
        for (; i + RED_PICK_LANES <= n; i += RED_PICK_LANES)                             \
            for (int j = 0; j < RED_PICK_LANES; j++)                                     \
                lane[j] = name##_of_##sfx(LD(p + i + j), lane[j]);                       \
        for (; i < n; i++)                                                               \
            m = name##_of_##sfx(LD(p + i), m);                                           \
        for (int j = 0; j < RED_PICK_LANES; j++)                                         \
            m = name##_of_##sfx(lane[j], m);                                             \
        *(C *)acc = m;                                                                   \
    }                                                                                    \
    WK_VEC_CLONES                                                                        \
    static void name##_rows_##sfx(void *acc, const void *x, int64_t n)                   \
    {                                                                                    \
        C *a = acc;                                                                      \
        const T *p = x;                                                                  \
        for (int64_t j = 0; j < n; j++)                                                  \
            a[j] = name##_of_##sfx(LD(p + j), a[j]);                                     \
    }                                                                                    \
    WK_VEC_CLONES                                                                        \
    static void name##_rows4_##sfx(void *acc, const void *x, int64_t s, int64_t n)       \
    {                                                                                    \
        C *a = acc;                                                                      \
        const T *p = x;                                                                  \
        for (int64_t j = 0; j < n; j++) {                                                \
            C v01 = name##_of_##sfx(LD(p + j + s), LD(p + j));                           \
            C v23 = name##_of_##sfx(LD(p + j + 3 * s), LD(p + j + 2 * s));               \
            a[j] = name##_of_##sfx(name##_of_##sfx(v23, v01), a[j]);                     \
        }                                                                                \
    }                                                                                    \
    static void name##_merge_##sfx(void *acc, const void *b, int64_t n)                  \
    {                                                                                    \
        C *a = acc;                                                                      \
        const C *s = b;                                                                  \
        for (int64_t j = 0; j < n; j++)                                                  \
            a[j] = name##_of_##sfx(s[j], a[j]);                                          \
    }                                                                                    \
    static void name##_store_##sfx(void *out, const void *acc, int64_t n, int64_t count) \
    {                                                                                    \
        const C *a = acc;                                                                \
        (void)count;                                                                     \
        for (int64_t j = 0; j < n; j++)                                                  \
            wk_st_##sfx((T *)out + j, a[j]);                                             \
    }

#define DEF_MINMAX(E, sfx, T, C, A, lo, hi, LD) \
    DEF_EXTREME(min, <, (C)(hi), sfx, T, C, LD) \
    DEF_EXTREME(max, >, (C)(lo), sfx, T, C, LD)

/* mean = sum / count; the mean of nothing is NaN. */
#define DEF_MEAN(sfx, T, A)                                                            \
    static void mean_store_##sfx(void *out, const void *acc, int64_t n, int64_t count) \
    {                                                                                  \
        const A *a = acc;                                                              \
        for (int64_t j = 0; j < n; j++)                                                \
            wk_st_##sfx((T *)out + j, count ? a[j] / (A)count : (A)NAN);               \
    }

RED_DTYPES(DEF_SUM)
RED_DTYPES(DEF_MINMAX)
DEF_MEAN(f16, wk_f16_t, float)
DEF_MEAN(bf16, wk_bf16_t, float)
DEF_MEAN(f32, float, float)
DEF_MEAN(f64, double, double)

/* The fill/run/rows/merge of `name` with the store of `stor` (mean is sum with its own store). */
#define KERNEL(name, stor, sfx)                                                                      \
    {name##_fill_##sfx, name##_run_##sfx, name##_rows_##sfx, name##_rows4_##sfx, name##_merge_##sfx, \
     stor##_store_##sfx}
#define KERNEL_ENTRIES(E, sfx, T, C, A, lo, hi, LD) \
    [WK_REDUCE_SUM][E] = KERNEL(sum, sum, sfx),     \
    [WK_REDUCE_MIN][E] = KERNEL(min, min, sfx),     \
    [WK_REDUCE_MAX][E] = KERNEL(max, max, sfx),
static const red_kernel kernels[WK_REDUCE_COUNT][WK_DTYPE_COUNT] = {
    RED_DTYPES(KERNEL_ENTRIES)
    [WK_REDUCE_MEAN][WK_F16] = KERNEL(sum, mean, f16),
    [WK_REDUCE_MEAN][WK_BF16] = KERNEL(sum, mean, bf16),
    [WK_REDUCE_MEAN][WK_F32] = KERNEL(sum, mean, f32),
    [WK_REDUCE_MEAN][WK_F64] = KERNEL(sum, mean, f64),
};

/* ---------------------------------------------------------------- the plan: x's dims simplified */
typedef struct red_plan {
    const red_kernel *k;
    const char *x;        /* x's element 0 */
    char *out;
    int64_t es, out_es;   /* element sizes in bytes */
    wk_rows outer;        /* x's kept dims, merged (row-major, like out) */
    wk_rows red;          /* the reduced dims, merged, innermost (smallest stride) last */
    int64_t nout, count;  /* output elements; reduced elements per output */
    bool contig;          /* each output's reduced elements form one contiguous run */
} red_plan;

static void make_plan(const red_kernel *k, const wk_tensor *x, int nreduce, wk_tensor *out, red_plan *p)
{
    int nouter = x->rank - nreduce;
    memset(p, 0, sizeof *p);
    p->k = k;
    p->x = wk_tensor_data(x);
    p->out = wk_tensor_data(out);
    p->es = (int64_t)wk_dtype_size(x->dtype);
    p->out_es = (int64_t)wk_dtype_size(out->dtype);
    p->nout = wk_numel(nouter, x->shape);
    p->count = wk_numel(nreduce, x->shape + nouter);
    wk_rows_init(&p->outer, x, nouter);
    /* the order of reduced elements is free: sort the dims by falling stride so the innermost walks
     * memory fastest, and merge what then lines up */
    for (int i = 0; i < nreduce; i++) {
        int j = i;
        for (; j > 0 && p->red.stride[j - 1] < x->strides[nouter + i]; j--) {
            p->red.shape[j] = p->red.shape[j - 1];
            p->red.stride[j] = p->red.stride[j - 1];
        }
        p->red.shape[j] = x->shape[nouter + i];
        p->red.stride[j] = x->strides[nouter + i];
    }
    p->red.rank = wk_merge_dims(nreduce, p->red.shape, p->red.stride);
    p->contig = p->red.rank == 0 || (p->red.rank == 1 && p->red.stride[0] == 1);
}

static void copy_strided(char *dst, const char *src, int64_t n, int64_t stride, int64_t es)
{
    if (stride == 1) {
        memcpy(dst, src, (size_t)(n * es));
        return;
    }
#define COPY_AS(U)                                    \
    for (int64_t i = 0; i < n; i++)                   \
        ((U *)dst)[i] = ((const U *)src)[i * stride]; \
    break;
    switch (es) {
    case 1: COPY_AS(uint8_t)
    case 2: COPY_AS(uint16_t)
    case 4: COPY_AS(uint32_t)
    default: COPY_AS(uint64_t)
    }
#undef COPY_AS
}

/* Pairwise combination of a stream of partial results in O(log n) space (a binary counter): the
 * error of a long f32 sum grows with log(chunks), not with chunks. */
typedef struct cascade { red_acc v[64]; int level[64]; int n; } cascade;

static void cascade_push(cascade *c, const red_kernel *k, red_acc a)
{
    int level = 0;
    while (c->n > 0 && c->level[c->n - 1] == level) {
        red_acc t = c->v[--c->n];
        k->merge(&t, &a, 1);
        a = t;
        level++;
    }
    c->v[c->n] = a;
    c->level[c->n++] = level;
}

static void cascade_finish(cascade *c, const red_kernel *k, red_acc *acc)
{
    if (c->n == 0)
        return;
    red_acc t = c->v[c->n - 1];
    for (int i = c->n - 2; i >= 0; i--) {
        red_acc u = c->v[i];
        k->merge(&u, &t, 1);
        t = u;
    }
    k->merge(acc, &t, 1);
}

#define RED_CHUNK 2048

/* acc = op(acc, reduced elements [begin, end) of the output whose x elements start at xbase). */
static void reduce_span(const red_plan *p, const char *xbase, int64_t begin, int64_t end, red_acc *acc)
{
    const red_kernel *k = p->k;
    if (begin >= end)
        return;
    if (p->contig) {
        k->run(acc, xbase + begin * p->es, end - begin);
        return;
    }
    _Alignas(64) char buf[RED_CHUNK * sizeof(uint64_t)];
    cascade c = {.n = 0};
    wk_rows_iter w;
    wk_rows_seek(&p->red, begin, &w);
    int last = p->red.rank - 1;
    while (begin < end) {
        int64_t m = end - begin < RED_CHUNK ? end - begin : RED_CHUNK;
        for (int64_t got = 0; got < m;) {
            int64_t run = p->red.shape[last] - w.idx[last];
            if (run > m - got)
                run = m - got;
            copy_strided(buf + got * p->es, xbase + w.off * p->es, run, p->red.stride[last], p->es);
            got += run;
            wk_rows_advance(&p->red, &w, run);
        }
        red_acc part;
        k->fill(&part, 1);
        k->run(&part, buf, m);
        cascade_push(&c, k, part);
        begin += m;
    }
    cascade_finish(&c, k, acc);
}

/* ---------------------------------------------------------------- row path: one output at a time */
static void rows_body(void *ctx, int64_t begin, int64_t end)
{
    const red_plan *p = ctx;
    wk_rows_iter it;
    wk_rows_seek(&p->outer, begin, &it);
    for (int64_t o = begin; o < end; o++, wk_rows_advance(&p->outer, &it, 1)) {
        red_acc acc;
        p->k->fill(&acc, 1);
        reduce_span(p, p->x + it.off * p->es, 0, p->count, &acc);
        p->k->store(p->out + o * p->out_es, &acc, 1, p->count);
    }
}

/* Few outputs, many elements each: every thread takes a slice of one output's elements. */
#define RED_MAX_PARTS 64
typedef struct split_ctx { const red_plan *p; const char *xbase; int parts; red_acc *partial; } split_ctx;

static void split_body(void *ctx, int64_t begin, int64_t end)
{
    const split_ctx *s = ctx;
    for (int64_t i = begin; i < end; i++)
        reduce_span(s->p, s->xbase, s->p->count * i / s->parts, s->p->count * (i + 1) / s->parts, &s->partial[i]);
}

static void reduce_split(const red_plan *p, int parts)
{
    red_acc partial[RED_MAX_PARTS];
    for (int64_t o = 0; o < p->nout; o++) {
        split_ctx s = {.p = p, .xbase = p->x + wk_rows_offset(&p->outer, p->outer.rank, o) * p->es, .parts = parts,
                       .partial = partial};
        for (int i = 0; i < parts; i++)
            p->k->fill(&partial[i], 1);
        wk_cpu_parallel_for(parts, 1, split_body, &s);
        for (int i = 1; i < parts; i++)
            p->k->merge(&partial[0], &partial[i], 1);
        p->k->store(p->out + o * p->out_es, &partial[0], 1, p->count);
    }
}

/* ---------------------------------------------------------------- column path
 * The innermost output dim is contiguous in x but the reduced dims are not (a sum over a leading dim).
 * Whole row segments (tiles of up to COL_TILE columns) are added into an accumulator row, so x streams
 * through memory in order and the adds vectorise. When there are fewer tiles than threads, the reduced
 * rows are sliced too and the slices' partial rows merged at the end. Rows go into a block accumulator
 * flushed into the total every COL_FLUSH rows: a two-level sum that keeps f32 accurate over many rows. */
#define COL_TILE 4096
#define COL_FLUSH 64

typedef struct col_ctx {
    const red_plan *p;
    int64_t width, tile, ntiles; /* innermost output dim, split into tiles */
    int64_t slices, items, tasks; /* an item is (tile, slice of the reduced rows); tasks run item ranges */
    size_t acc_bytes;             /* room for one tile of accumulators (8 bytes a slot) */
    char *scratch;                /* per task: total and block accumulators */
    char *partial;                /* per item, when slices > 1 */
} col_ctx;

static void col_item(const col_ctx *c, int64_t item, char *total, char *block)
{
    const red_plan *p = c->p;
    const red_kernel *k = p->k;
    int64_t unit = item / c->slices, slice = item % c->slices;
    int64_t ob = unit / c->ntiles, j0 = unit % c->ntiles * c->tile;
    int64_t n = c->width - j0 < c->tile ? c->width - j0 : c->tile;
    int64_t r0 = p->count * slice / c->slices, r1 = p->count * (slice + 1) / c->slices;
    const char *xbase = p->x + (wk_rows_offset(&p->outer, p->outer.rank - 1, ob) + j0) * p->es;
    k->fill(total, n);
    k->fill(block, n);
    wk_rows_iter w;
    wk_rows_seek(&p->red, r0, &w);
    int last = p->red.rank - 1, pending = 0;
    for (int64_t r = r0; r < r1;) {
        int64_t step = r1 - r >= 4 && p->red.shape[last] - w.idx[last] >= 4 ? 4 : 1;
        if (step == 4)
            k->rows4(block, xbase + w.off * p->es, p->red.stride[last], n);
        else
            k->rows(block, xbase + w.off * p->es, n);
        r += step;
        pending += (int)step;
        if (pending >= COL_FLUSH) {
            k->merge(total, block, n);
            k->fill(block, n);
            pending = 0;
        }
        wk_rows_advance(&p->red, &w, step);
    }
    k->merge(total, block, n);
    if (c->slices == 1) {
        k->store(p->out + (ob * c->width + j0) * p->out_es, total, n, p->count);
    } else {
        char *dst = c->partial + (size_t)item * c->acc_bytes;
        k->fill(dst, n);
        k->merge(dst, total, n);
    }
}

static void cols_body(void *ctx, int64_t begin, int64_t end)
{
    const col_ctx *c = ctx;
    for (int64_t t = begin; t < end; t++) {
        char *total = c->scratch + (size_t)t * 2 * c->acc_bytes, *block = total + c->acc_bytes;
        for (int64_t item = c->items * t / c->tasks; item < c->items * (t + 1) / c->tasks; item++)
            col_item(c, item, total, block);
    }
}

static wk_status reduce_cols(const red_plan *p)
{
    int64_t threads = wk_cpu_threads();
    col_ctx c = {.p = p, .width = p->outer.shape[p->outer.rank - 1], .slices = 1};
    c.tile = c.width < COL_TILE ? c.width : COL_TILE;
    c.ntiles = (c.width + c.tile - 1) / c.tile;
    c.acc_bytes = (size_t)c.tile * sizeof(uint64_t);
    int64_t units = p->nout / c.width * c.ntiles, work = p->nout * p->count;
    int64_t by_work = work / WK_CPU_GRAIN + 1;
    if (units < threads && by_work > units) { /* slice the rows so every thread streams its own part */
        c.slices = (threads + units - 1) / units;
        if (c.slices > p->count)
            c.slices = p->count;
    }
    c.items = units * c.slices;
    c.tasks = threads < c.items ? threads : c.items;
    if (c.tasks > by_work)
        c.tasks = by_work;
    c.scratch = malloc(c.acc_bytes * 2 * (size_t)c.tasks);
    c.partial = c.slices > 1 ? malloc(c.acc_bytes * (size_t)c.items) : NULL;
    if (!c.scratch || (c.slices > 1 && !c.partial)) {
        free(c.scratch);
        free(c.partial);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "reduce: cannot allocate accumulators");
    }
    wk_cpu_parallel_for(c.tasks, 1, cols_body, &c);
    for (int64_t u = 0; c.slices > 1 && u < units; u++) {
        int64_t ob = u / c.ntiles, j0 = u % c.ntiles * c.tile;
        int64_t n = c.width - j0 < c.tile ? c.width - j0 : c.tile;
        char *first = c.partial + (size_t)(u * c.slices) * c.acc_bytes;
        for (int64_t sl = 1; sl < c.slices; sl++)
            p->k->merge(first, first + (size_t)sl * c.acc_bytes, n);
        p->k->store(p->out + (ob * c.width + j0) * p->out_es, first, n, p->count);
    }
    free(c.scratch);
    free(c.partial);
    return WK_OK;
}

/* ---------------------------------------------------------------- the slot */
wk_status wk_cpu_reduce(wk_reduce_op op, const wk_tensor *x, int nreduce, wk_tensor *out)
{
    red_plan p;
    make_plan(&kernels[op][x->dtype], x, nreduce, out, &p);
    int threads = wk_cpu_threads();
    if (p.count > 0 && !p.contig && p.outer.rank > 0 && p.outer.stride[p.outer.rank - 1] == 1 &&
        p.outer.shape[p.outer.rank - 1] >= 8)
        return reduce_cols(&p);
    if (p.nout < 4 * threads && p.count >= 2 * WK_CPU_GRAIN) /* few long rows: split each, no idle thread */
        reduce_split(&p, threads < RED_MAX_PARTS ? threads : RED_MAX_PARTS);
    else
        wk_cpu_parallel_for(p.nout, p.count > 0 ? WK_CPU_GRAIN / p.count + 1 : WK_CPU_GRAIN, rows_body, &p);
    return WK_OK;
}
