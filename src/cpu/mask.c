/* mask.c: the CPU's mask slots (tri: tril and triu; masked_fill). Both only move bits, so each is written once per
 * element size (1, 2, 4, 8 bytes), whatever the dtype: a zero of every dtype is all zero bits. */
#include "cpu/vmath.h"

/* ---- tri: one output row at a time; its kept columns are one run, copied, and the rest zeroed */

typedef struct tri_ctx {
    const wk_tensor *x;
    wk_tri_kind kind;
    int64_t diagonal; /* in [-rows, cols] (ops/) */
    int64_t rows, cols;
    char *out;
} tri_ctx;

/* Byte offset in x of row r of the (batch * rows, cols) view. */
static int64_t tri_row_offset(const wk_tensor *x, int64_t r)
{
    int64_t es = (int64_t)wk_dtype_size(x->dtype), off = 0;
    for (int d = x->rank - 2; d >= 0 && r > 0; d--) {
        int64_t q = r / x->shape[d];
        off += (r - q * x->shape[d]) * x->strides[d];
        r = q;
    }
    return off * es;
}

static void tri_rows(void *arg, int64_t begin, int64_t end)
{
    const tri_ctx *c = arg;
    size_t es = wk_dtype_size(c->x->dtype);
    int64_t xs = c->x->strides[c->x->rank - 1] * (int64_t)es;
    const char *base = wk_tensor_data(c->x);
    for (int64_t r = begin; r < end; r++) {
        int64_t i = r % c->rows, edge = i + c->diagonal; /* |edge| <= rows + cols: no overflow */
        /* kept columns [lo, hi): tril j <= edge, triu j >= edge */
        int64_t lo = c->kind == WK_TRI_LOWER ? 0 : edge < 0 ? 0 : edge > c->cols ? c->cols : edge;
        int64_t hi = c->kind == WK_TRI_LOWER ? (edge + 1 < 0 ? 0 : edge + 1 > c->cols ? c->cols : edge + 1) : c->cols;
        if (hi < lo)
            hi = lo;
        char *o = c->out + r * c->cols * (int64_t)es;
        const char *x = base + tri_row_offset(c->x, r) + lo * xs;
        memset(o, 0, (size_t)lo * es);
        if (xs == (int64_t)es)
            memcpy(o + lo * (int64_t)es, x, (size_t)(hi - lo) * es);
        else
            wk_chunk_gather(es, o + lo * (int64_t)es, x, xs, hi - lo);
        memset(o + hi * (int64_t)es, 0, (size_t)(c->cols - hi) * es);
    }
}

wk_status wk_cpu_tri(const wk_tensor *x, wk_tri_kind kind, int64_t diagonal, wk_tensor *out)
{
    int64_t rows = x->shape[x->rank - 2], cols = x->shape[x->rank - 1];
    tri_ctx c = {.x = x, .kind = kind, .diagonal = diagonal, .rows = rows, .cols = cols, .out = wk_tensor_data(out)};
    int64_t nrows = wk_tensor_numel(out) / cols;
    int64_t grain = WK_CPU_GRAIN / cols > 0 ? WK_CPU_GRAIN / cols : 1;
    wk_cpu_parallel_for(nrows, grain, tri_rows, &c);
    return WK_OK;
}

/* ---- masked_fill: out = mask ? v : x over runs of the three operands (ptrs out, x, mask) */

typedef struct mf_ctx {
    size_t es;
    wk_scalar v;
} mf_ctx;

#define MF_KERNEL(T)                                                                                              \
    static WK_VEC_CLONES void mf_contig_##T(T *o, const T *x, const uint8_t *m, T v, int64_t n)                  \
    {                                                                                                             \
        for (int64_t i = 0; i < n; i++)                                                                           \
            o[i] = m[i] ? v : x[i];                                                                               \
    }                                                                                                             \
    static void mf_run_##T(const mf_ctx *c, int64_t n, char *const *ptrs, const int64_t *strides)                \
    {                                                                                                             \
        T v;                                                                                                      \
        memcpy(&v, &c->v, sizeof v);                                                                              \
        if (strides[0] == (int64_t)sizeof(T) && strides[1] == (int64_t)sizeof(T) && strides[2] == 1) {                          \
            mf_contig_##T((T *)(void *)ptrs[0], (const T *)(const void *)ptrs[1], (const uint8_t *)ptrs[2], v, n); \
            return;                                                                                               \
        }                                                                                                         \
        for (int64_t i = 0; i < n; i++) {                                                                         \
            T t;                                                                                                  \
            if (*(const uint8_t *)(ptrs[2] + i * strides[2]))                                                     \
                t = v;                                                                                            \
            else                                                                                                  \
                memcpy(&t, ptrs[1] + i * strides[1], sizeof t);                                                   \
            memcpy(ptrs[0] + i * strides[0], &t, sizeof t);                                                       \
        }                                                                                                         \
    }
MF_KERNEL(uint8_t)
MF_KERNEL(uint16_t)
MF_KERNEL(uint32_t)
MF_KERNEL(uint64_t)
#undef MF_KERNEL

static void mf_run(void *arg, int64_t n, char *const *ptrs, const int64_t *strides)
{
    const mf_ctx *c = arg;
    switch (c->es) {
    case 1: mf_run_uint8_t(c, n, ptrs, strides); break;
    case 2: mf_run_uint16_t(c, n, ptrs, strides); break;
    case 4: mf_run_uint32_t(c, n, ptrs, strides); break;
    default: mf_run_uint64_t(c, n, ptrs, strides); break;
    }
}

/* v is in the storage form of x's dtype: its first es bytes are the element's bits (wk_scalar's members all start
 * at its first byte). */
wk_status wk_cpu_masked_fill(const wk_tensor *x, const wk_tensor *mask, wk_scalar v, wk_tensor *out)
{
    mf_ctx c = {.es = wk_dtype_size(x->dtype), .v = v};
    const wk_tensor *ops[3] = {out, x, mask};
    wk_cpu_foreach(out->rank, out->shape, 3, ops, WK_CPU_GRAIN, mf_run, &c);
    return WK_OK;
}
