/* binary.c: the CPU's two- and three-input element-wise slots (binary, compare, where) on operands already
 * broadcast to out's shape. Contiguous runs go straight to the loops; strided or f16/bf16 ones go in chunks. */
#include "cpu/vmath.h"

/* o[i] = a[i] op b[i] for i < n, operands in the compute type (compare: o is u8). o may alias a or b. */
typedef void (*bin_kernel)(void *o, const void *a, const void *b, int64_t n);

#define BIN_KERNEL(name, T, R, expr)                                                    \
    static WK_VEC_CLONES void name(void *dst, const void *pa, const void *pb, int64_t n) \
    {                                                                                   \
        R *o = dst;                                                                     \
        const T *ap = pa, *bp = pb;                                                     \
        for (int64_t i = 0; i < n; i++) {                                               \
            T a = ap[i], b = bp[i];                                                     \
            o[i] = (expr);                                                              \
        }                                                                               \
    }

/* ---- arithmetic. Ints in the unsigned type U (wraps, no undefined behaviour); division truncates, x/0 = 0,
 * and MIN/-1 (the one overflowing quotient) wraps to MIN as 0 - MIN does. Floats: IEEE, NaN-propagating max/min. */

#define SIGNED_DIV(T, U) (b == 0 ? (T)0 : b == -1 ? (T)(0u - (U)a) : (T)(a / b))
#define UNSIGNED_DIV(T, U) (b == 0 ? (T)0 : (T)(a / b))
#define INT_MAX_OF(T) (a > b ? a : b)
#define INT_MIN_OF(T) (a < b ? a : b)
#define FLOAT_MAX_OF(T) (a > b || a != a ? a : b)
#define FLOAT_MIN_OF(T) (a < b || a != a ? a : b)

#define DEF_ARITH(sfx, T, U, divx, maxx, minx)                                              \
    BIN_KERNEL(add_##sfx, T, T, (T)((U)a + (U)b))                                           \
    BIN_KERNEL(sub_##sfx, T, T, (T)((U)a - (U)b))                                           \
    BIN_KERNEL(mul_##sfx, T, T, (T)((U)a * (U)b))                                           \
    BIN_KERNEL(div_##sfx, T, T, divx(T, U))                                                 \
    BIN_KERNEL(max_##sfx, T, T, maxx(T))                                                    \
    BIN_KERNEL(min_##sfx, T, T, minx(T))                                                    \
    static const bin_kernel binary_##sfx[WK_BINARY_COUNT] = {                               \
        [WK_BINARY_ADD] = add_##sfx, [WK_BINARY_SUB] = sub_##sfx, [WK_BINARY_MUL] = mul_##sfx, \
        [WK_BINARY_DIV] = div_##sfx, [WK_BINARY_MAXIMUM] = max_##sfx, [WK_BINARY_MINIMUM] = min_##sfx};
DEF_ARITH(u8, uint8_t, unsigned, UNSIGNED_DIV, INT_MAX_OF, INT_MIN_OF)
DEF_ARITH(u32, uint32_t, uint32_t, UNSIGNED_DIV, INT_MAX_OF, INT_MIN_OF)
DEF_ARITH(i32, int32_t, uint32_t, SIGNED_DIV, INT_MAX_OF, INT_MIN_OF)
DEF_ARITH(i64, int64_t, uint64_t, SIGNED_DIV, INT_MAX_OF, INT_MIN_OF)
/* For floats U = T: the casts are no-ops and a / b is plain IEEE division. */
#define FLOAT_DIV(T, U) (a / b)
DEF_ARITH(f32, float, float, FLOAT_DIV, FLOAT_MAX_OF, FLOAT_MIN_OF)
DEF_ARITH(f64, double, double, FLOAT_DIV, FLOAT_MAX_OF, FLOAT_MIN_OF)
#undef FLOAT_DIV
#undef DEF_ARITH

/* ---- comparisons to u8 (C's are IEEE: false with NaN except !=) */

#define DEF_COMPARE(sfx, T)                                                                       \
    BIN_KERNEL(eq_##sfx, T, uint8_t, (uint8_t)(a == b))                                           \
    BIN_KERNEL(ne_##sfx, T, uint8_t, (uint8_t)(a != b))                                           \
    BIN_KERNEL(lt_##sfx, T, uint8_t, (uint8_t)(a < b))                                            \
    BIN_KERNEL(le_##sfx, T, uint8_t, (uint8_t)(a <= b))                                           \
    BIN_KERNEL(gt_##sfx, T, uint8_t, (uint8_t)(a > b))                                            \
    BIN_KERNEL(ge_##sfx, T, uint8_t, (uint8_t)(a >= b))                                           \
    static const bin_kernel compare_##sfx[WK_COMPARE_COUNT] = {                                   \
        [WK_CMP_EQ] = eq_##sfx, [WK_CMP_NE] = ne_##sfx, [WK_CMP_LT] = lt_##sfx,                   \
        [WK_CMP_LE] = le_##sfx, [WK_CMP_GT] = gt_##sfx, [WK_CMP_GE] = ge_##sfx};
DEF_COMPARE(u8, uint8_t)
DEF_COMPARE(u32, uint32_t)
DEF_COMPARE(i32, int32_t)
DEF_COMPARE(i64, int64_t)
DEF_COMPARE(f32, float)
DEF_COMPARE(f64, double)
#undef DEF_COMPARE
#undef BIN_KERNEL

/* The table of dtype dt (f16/bf16 use f32's). */
#define BY_COMPUTE_TYPE(dt, table)                            \
    ((dt) == WK_U8    ? table##_u8                            \
     : (dt) == WK_U32 ? table##_u32                           \
     : (dt) == WK_I32 ? table##_i32                           \
     : (dt) == WK_I64 ? table##_i64                           \
     : (dt) == WK_F64 ? table##_f64                           \
                      : table##_f32)

/* ---- driver for binary and compare: ptrs out, a, b */

typedef struct bin_ctx {
    wk_dtype in_dt, out_dt;
    bin_kernel kernel;
} bin_ctx;

static void bin_run(void *arg, int64_t n, char *const *ptrs, const int64_t *strides)
{
    const bin_ctx *c = arg;
    int64_t ies = (int64_t)wk_dtype_size(c->in_dt), oes = (int64_t)wk_dtype_size(c->out_dt);
    bool half = c->in_dt == WK_F16 || c->in_dt == WK_BF16;
    bool direct_a = !half && strides[1] == ies, direct_b = !half && strides[2] == ies;
    bool direct_o = !(half && c->out_dt == c->in_dt) && strides[0] == oes;
    if (direct_a && direct_b && direct_o) {
        c->kernel(ptrs[0], ptrs[1], ptrs[2], n);
        return;
    }
    _Alignas(64) unsigned char abuf[WK_CHUNK * sizeof(double)], bbuf[WK_CHUNK * sizeof(double)];
    _Alignas(64) unsigned char obuf[WK_CHUNK * sizeof(double)];
    for (int64_t i = 0; i < n; i += WK_CHUNK) {
        int64_t m = n - i < WK_CHUNK ? n - i : WK_CHUNK;
        const void *a = ptrs[1] + i * strides[1], *b = ptrs[2] + i * strides[2];
        if (!direct_a) {
            wk_chunk_load(c->in_dt, abuf, (const char *)a, strides[1], m);
            a = abuf;
        }
        if (!direct_b) {
            wk_chunk_load(c->in_dt, bbuf, (const char *)b, strides[2], m);
            b = bbuf;
        }
        char *o = ptrs[0] + i * strides[0];
        c->kernel(direct_o ? (void *)o : (void *)obuf, a, b, m);
        if (!direct_o)
            wk_chunk_store(c->out_dt, o, strides[0], obuf, m);
    }
}

static wk_status bin_launch(const wk_tensor *a, const wk_tensor *b, wk_tensor *out, bin_kernel kernel)
{
    bin_ctx c = {.in_dt = a->dtype, .out_dt = out->dtype, .kernel = kernel};
    const wk_tensor *ops[3] = {out, a, b};
    wk_cpu_foreach(out->rank, out->shape, 3, ops, WK_CPU_GRAIN, bin_run, &c);
    return WK_OK;
}

wk_status wk_cpu_binary(wk_binary_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out)
{
    return bin_launch(a, b, out, BY_COMPUTE_TYPE(a->dtype, binary)[op]);
}

wk_status wk_cpu_compare(wk_compare_op op, const wk_tensor *a, const wk_tensor *b, wk_tensor *out)
{
    return bin_launch(a, b, out, BY_COMPUTE_TYPE(a->dtype, compare)[op]);
}

/* ---- where: a pure selection, so values move as raw bytes (f16 as its bits) and only their size matters */

typedef void (*where_kernel)(void *o, const void *cond, const void *t, const void *f, int64_t n);

#define WHERE_KERNEL(C, V)                                                                              \
    static WK_VEC_CLONES void where_##C##_##V(void *dst, const void *pc, const void *pt, const void *pf, \
                                              int64_t n)                                                \
    {                                                                                                   \
        V *o = dst;                                                                                     \
        const C *cp = pc;                                                                               \
        const V *tp = pt, *fp = pf;                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                               \
            V t = tp[i], f = fp[i]; /* both loaded, so the selection is a blend, not a branch */      \
            o[i] = cp[i] ? t : f;                                                                       \
        }                                                                                               \
    }
#define WHERE_FOR_COND(C)                                                                         \
    WHERE_KERNEL(C, uint8_t) WHERE_KERNEL(C, uint16_t) WHERE_KERNEL(C, uint32_t) WHERE_KERNEL(C, uint64_t) \
    static where_kernel where_by_size_##C(size_t es)                                              \
    {                                                                                             \
        return es == 1 ? where_##C##_uint8_t                                                      \
               : es == 2 ? where_##C##_uint16_t                                                   \
               : es == 4 ? where_##C##_uint32_t                                                   \
                         : where_##C##_uint64_t;                                                  \
    }
WHERE_FOR_COND(uint8_t)
WHERE_FOR_COND(uint32_t)
WHERE_FOR_COND(uint64_t)
#undef WHERE_FOR_COND
#undef WHERE_KERNEL

typedef struct where_ctx {
    size_t ces, ves; /* element sizes of cond and of the values */
    where_kernel kernel;
} where_ctx;

/* ptrs: out, cond, t, f. */
static void where_run(void *arg, int64_t n, char *const *ptrs, const int64_t *strides)
{
    const where_ctx *c = arg;
    int64_t ves = (int64_t)c->ves;
    bool direct[4] = {strides[0] == ves, strides[1] == (int64_t)c->ces, strides[2] == ves, strides[3] == ves};
    if (direct[0] && direct[1] && direct[2] && direct[3]) {
        c->kernel(ptrs[0], ptrs[1], ptrs[2], ptrs[3], n);
        return;
    }
    _Alignas(64) unsigned char buf[4][WK_CHUNK * sizeof(uint64_t)];
    for (int64_t i = 0; i < n; i += WK_CHUNK) {
        int64_t m = n - i < WK_CHUNK ? n - i : WK_CHUNK;
        void *p[4];
        for (int k = 0; k < 4; k++) {
            p[k] = ptrs[k] + i * strides[k];
            if (!direct[k] && k > 0) {
                wk_chunk_gather(k == 1 ? c->ces : c->ves, buf[k], p[k], strides[k], m);
                p[k] = buf[k];
            }
        }
        c->kernel(direct[0] ? p[0] : buf[0], p[1], p[2], p[3], m);
        if (!direct[0])
            wk_chunk_scatter(c->ves, p[0], strides[0], buf[0], m);
    }
}

wk_status wk_cpu_where(const wk_tensor *cond, const wk_tensor *t, const wk_tensor *f, wk_tensor *out)
{
    where_ctx c = {.ces = wk_dtype_size(cond->dtype), .ves = wk_dtype_size(t->dtype)};
    c.kernel = c.ces == 1 ? where_by_size_uint8_t(c.ves)
               : c.ces == 4 ? where_by_size_uint32_t(c.ves)
                            : where_by_size_uint64_t(c.ves);
    const wk_tensor *ops[4] = {out, cond, t, f};
    wk_cpu_foreach(out->rank, out->shape, 4, ops, WK_CPU_GRAIN, where_run, &c);
    return WK_OK;
}
