/* unary.c: the CPU's one-input element-wise slots (unary, affine, powf, elu, leaky_relu, clamp, glu). Each op is a
 * contiguous loop over its compute type; strided or f16/bf16 operands are gathered into chunks for the same loop. */
#include <math.h>

#include "cpu/vmath.h"

/* Scalars of the parameterised ops, in the compute type of the input. */
typedef struct un_param {
    wk_scalar a, b; /* affine: mul, add; clamp: lo, hi */
    double e;       /* powf: exponent; elu: alpha; leaky_relu: the negative slope */
} un_param;

/* dst[i] = f(src[i]) for i < n, in the compute type; dst may equal src. */
typedef void (*un_kernel)(void *dst, const void *src, int64_t n, const un_param *prm);

#define UN_KERNEL(name, T, expr)                                                             \
    static WK_VEC_CLONES void name(void *dst, const void *src, int64_t n, const un_param *prm) \
    {                                                                                        \
        T *o = dst;                                                                          \
        const T *in = src;                                                                   \
        (void)prm;                                                                           \
        for (int64_t i = 0; i < n; i++) {                                                    \
            T v = in[i];                                                                     \
            o[i] = (expr);                                                                   \
        }                                                                                    \
    }

/* ---- float ops: X(enum suffix, kernel name, f32 expression, f64 expression) of v. silu and gelu of -inf are
 * NaN (-inf * 0), as in PyTorch. */

#define SQRT1_2 0.70710678118654752440
#define GELU_K 0.79788456080286535588 /* sqrt(2/pi) */

/* gelu(tanh) = x (1 + tanh z) / 2 = x sigmoid(2z): sigmoid avoids the cancellation of 1 + tanh z for x < 0.
 * For f32 the argument 2z is computed in f64: for x near -4 the result's relative error is |2z| times the
 * argument's, which in f32 arithmetic alone exceeds the 1e-6 tolerance (gelu_erf: vmath.h's wk_vgelu_erff). */
static inline double gelu_f64(double v)
{
    double z2 = 2.0 * GELU_K * (v + 0.044715 * v * v * v);
    return z2 >= 0 ? v / (1.0 + exp(-z2)) : v * exp(z2) / (1.0 + exp(z2));
}

/* softplus with PyTorch's threshold 20 (beta 1); mish without one, as PyTorch's (e^x overflowing to inf gives x). */
static inline float softplus_f32(float v) { return v > 20.0f ? v : log1pf(expf(v)); }
static inline double softplus_f64(double v) { return v > 20.0 ? v : log1p(exp(v)); }
/* relu6(x + 3) / 6 with NaN passing through both comparisons. */
static inline float hardsigmoid_f32(float v)
{
    float r = v + 3.0f;
    r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r;
    return r / 6.0f;
}
static inline double hardsigmoid_f64(double v)
{
    double r = v + 3.0;
    r = r < 0.0 ? 0.0 : r > 6.0 ? 6.0 : r;
    return r / 6.0;
}
static inline float hardswish_f32(float v)
{
    float r = v + 3.0f;
    r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r;
    return v * r / 6.0f;
}
static inline double hardswish_f64(double v)
{
    double r = v + 3.0;
    r = r < 0.0 ? 0.0 : r > 6.0 ? 6.0 : r;
    return v * r / 6.0;
}

static inline float sign_f32(float v) { return v > 0.0f ? 1.0f : v < 0.0f ? -1.0f : v; }
static inline double sign_f64(double v) { return v > 0.0 ? 1.0 : v < 0.0 ? -1.0 : v; }

#define FLOAT_UNARY(X)                                                                                   \
    X(EXP, exp, wk_vexpf(v), exp(v))                                                                     \
    X(LOG, log, wk_vlogf(v), log(v))                                                                     \
    X(SIN, sin, sinf(v), sin(v))                                                                         \
    X(COS, cos, cosf(v), cos(v))                                                                         \
    X(TANH, tanh, wk_vtanhf(v), tanh(v))                                                                 \
    X(ERF, erf, erff(v), erf(v))                                                                         \
    X(RECIP, recip, 1.0f / v, 1.0 / v)                                                                   \
    X(SQRT, sqrt, sqrtf(v), sqrt(v))                                                                     \
    X(GELU, gelu, v * wk_vsigmoidf((float)(2.0 * GELU_K * ((double)v + 0.044715 * (double)v * v * v))), gelu_f64(v))     \
    X(GELU_ERF, gelu_erf, wk_vgelu_erff(v), 0.5 * v * erfc(-v * SQRT1_2))                               \
    X(SILU, silu, v * wk_vsigmoidf(v), v / (1.0 + exp(-v)))                                              \
    X(SIGMOID, sigmoid, wk_vsigmoidf(v), 1.0 / (1.0 + exp(-v)))                                          \
    X(CEIL, ceil, wk_vceilf(v), ceil(v))                                                                 \
    X(FLOOR, floor, wk_vfloorf(v), floor(v))                                                             \
    X(ROUND, round, wk_vrintf(v), rint(v)) /* half to even in the default rounding mode */               \
    X(SQR, sqr, v * v, v * v)                                                                            \
    X(ABS, abs, fabsf(v), fabs(v))                                                                       \
    X(NEG, neg, -v, -v)                                                                                  \
    X(RELU, relu, v < 0.0f ? 0.0f : v, v < 0.0 ? 0.0 : v) /* NaN passes through */                       \
    X(SIGN, sign, sign_f32(v), sign_f64(v))                                                              \
    X(SOFTPLUS, softplus, softplus_f32(v), softplus_f64(v))                                              \
    X(MISH, mish, v * tanhf(log1pf(expf(v))), v * tanh(log1p(exp(v))))                                  \
    X(HARDSWISH, hardswish, hardswish_f32(v), hardswish_f64(v))                                          \
    X(HARDSIGMOID, hardsigmoid, hardsigmoid_f32(v), hardsigmoid_f64(v))

#define DEF_FLOAT(E, name, ef, ed) UN_KERNEL(un_##name##_f32, float, ef) UN_KERNEL(un_##name##_f64, double, ed)
FLOAT_UNARY(DEF_FLOAT)
#undef DEF_FLOAT

#define ENTRY_F32(E, name, ef, ed) [WK_UNARY_##E] = un_##name##_f32,
#define ENTRY_F64(E, name, ef, ed) [WK_UNARY_##E] = un_##name##_f64,
static const un_kernel unary_f32[WK_UNARY_COUNT] = {FLOAT_UNARY(ENTRY_F32)};
static const un_kernel unary_f64[WK_UNARY_COUNT] = {FLOAT_UNARY(ENTRY_F64)};
#undef ENTRY_F32
#undef ENTRY_F64

/* ---- integer ops: arithmetic in the unsigned type U so that overflow wraps without undefined behaviour */

#define DEF_SIGNED(sfx, T, U)                                                        \
    UN_KERNEL(un_sqr_##sfx, T, (T)((U)v * (U)v))                                     \
    UN_KERNEL(un_abs_##sfx, T, v < 0 ? (T)(0u - (U)v) : v)                           \
    UN_KERNEL(un_neg_##sfx, T, (T)(0u - (U)v))                                       \
    UN_KERNEL(un_relu_##sfx, T, v < 0 ? 0 : v)                                       \
    UN_KERNEL(un_sign_##sfx, T, (T)((v > 0) - (v < 0)))                              \
    static const un_kernel unary_##sfx[WK_UNARY_COUNT] = {                           \
        [WK_UNARY_SQR] = un_sqr_##sfx, [WK_UNARY_ABS] = un_abs_##sfx,                \
        [WK_UNARY_NEG] = un_neg_##sfx, [WK_UNARY_RELU] = un_relu_##sfx,              \
        [WK_UNARY_SIGN] = un_sign_##sfx};
/* Unsigned: abs and relu are the identity, neg is rejected by ops/. u8 promotes to int: 255*255 fits. */
#define DEF_UNSIGNED(sfx, T, U)                                                      \
    UN_KERNEL(un_sqr_##sfx, T, (T)((U)v * (U)v))                                     \
    UN_KERNEL(un_copy_##sfx, T, v)                                                   \
    UN_KERNEL(un_sign_##sfx, T, (T)(v != 0))                                         \
    static const un_kernel unary_##sfx[WK_UNARY_COUNT] = {                           \
        [WK_UNARY_SQR] = un_sqr_##sfx, [WK_UNARY_ABS] = un_copy_##sfx,               \
        [WK_UNARY_RELU] = un_copy_##sfx, [WK_UNARY_SIGN] = un_sign_##sfx};
DEF_UNSIGNED(u8, uint8_t, unsigned)
DEF_UNSIGNED(u32, uint32_t, uint32_t)
DEF_SIGNED(i32, int32_t, uint32_t)
DEF_SIGNED(i64, int64_t, uint64_t)
#undef DEF_SIGNED
#undef DEF_UNSIGNED

static un_kernel unary_kernel(wk_unary_op op, wk_dtype dt)
{
    switch (dt) {
    case WK_U8: return unary_u8[op];
    case WK_U32: return unary_u32[op];
    case WK_I32: return unary_i32[op];
    case WK_I64: return unary_i64[op];
    case WK_F64: return unary_f64[op];
    default: return unary_f32[op]; /* f16, bf16, f32 */
    }
}

/* ---- parameterised ops: one kernel per compute type, the per-dtype X-macro instantiates them */

#define INT_PARAM_KERNELS(sfx, T, U, f)                                                               \
    UN_KERNEL(affine_##sfx, T, (T)((U)v * (U)prm->a.f + (U)prm->b.f))                                  \
    UN_KERNEL(clamp_##sfx, T, v < prm->a.f ? prm->a.f : v > prm->b.f ? prm->b.f : v)
INT_PARAM_KERNELS(u8, uint8_t, unsigned, u8)
INT_PARAM_KERNELS(u32, uint32_t, uint32_t, u32)
INT_PARAM_KERNELS(i32, int32_t, uint32_t, i32)
INT_PARAM_KERNELS(i64, int64_t, uint64_t, i64)
#undef INT_PARAM_KERNELS

static inline float elu_scalar_f32(float v, float alpha) { return v > 0.0f ? v : alpha * expm1f(v); }
static inline double elu_scalar_f64(double v, double alpha) { return v > 0.0 ? v : alpha * expm1(v); }

/* Comparisons false for NaN, so NaN falls through to v in clamp. */
#define FLOAT_PARAM_KERNELS(sfx, T, f, powfn, elufn)                                      \
    UN_KERNEL(affine_##sfx, T, v * prm->a.f + prm->b.f)                                  \
    UN_KERNEL(clamp_##sfx, T, v < prm->a.f ? prm->a.f : v > prm->b.f ? prm->b.f : v)     \
    UN_KERNEL(powf_##sfx, T, powfn(v, (T)prm->e))                                        \
    UN_KERNEL(elu_##sfx, T, elufn(v, (T)prm->e))                                         \
    UN_KERNEL(leaky_relu_##sfx, T, v > 0 ? v : v * (T)prm->e)
FLOAT_PARAM_KERNELS(f32, float, f32, powf, elu_scalar_f32)
FLOAT_PARAM_KERNELS(f64, double, f64, pow, elu_scalar_f64)
#undef FLOAT_PARAM_KERNELS

#define PICK_BY_DTYPE(dt, kind)                           \
    ((dt) == WK_U8    ? kind##_u8                         \
     : (dt) == WK_U32 ? kind##_u32                        \
     : (dt) == WK_I32 ? kind##_i32                        \
     : (dt) == WK_I64 ? kind##_i64                        \
     : (dt) == WK_F64 ? kind##_f64                        \
                      : kind##_f32)
#define PICK_FLOAT(dt, kind) ((dt) == WK_F64 ? kind##_f64 : kind##_f32)

/* ---- driver */

typedef struct un_ctx {
    wk_dtype dt;
    un_kernel kernel;
    un_param prm;
} un_ctx;

/* ptrs[0] is out (contiguous, x's dtype), ptrs[1] is x. */
static void un_run(void *arg, int64_t n, char *const *ptrs, const int64_t *strides)
{
    const un_ctx *c = arg;
    int64_t es = (int64_t)wk_dtype_size(c->dt);
    bool half = c->dt == WK_F16 || c->dt == WK_BF16;
    if (!half && strides[0] == es && strides[1] == es) {
        c->kernel(ptrs[0], ptrs[1], n, &c->prm);
        return;
    }
    _Alignas(64) unsigned char buf[WK_CHUNK * sizeof(double)];
    for (int64_t i = 0; i < n; i += WK_CHUNK) {
        int64_t m = n - i < WK_CHUNK ? n - i : WK_CHUNK;
        wk_chunk_load(c->dt, buf, ptrs[1] + i * strides[1], strides[1], m);
        c->kernel(buf, buf, m, &c->prm);
        wk_chunk_store(c->dt, ptrs[0] + i * strides[0], strides[0], buf, m);
    }
}

static wk_status un_launch(const wk_tensor *x, wk_tensor *out, un_kernel kernel, un_param prm)
{
    un_ctx c = {.dt = x->dtype, .kernel = kernel, .prm = prm};
    const wk_tensor *ops[2] = {out, x};
    wk_cpu_foreach(out->rank, out->shape, 2, ops, WK_CPU_GRAIN, un_run, &c);
    return WK_OK;
}

wk_status wk_cpu_unary(wk_unary_op op, const wk_tensor *x, wk_tensor *out)
{
    return un_launch(x, out, unary_kernel(op, x->dtype), (un_param){.e = 0});
}

wk_status wk_cpu_affine(const wk_tensor *x, wk_scalar mul, wk_scalar add, wk_tensor *out)
{
    return un_launch(x, out, PICK_BY_DTYPE(x->dtype, affine), (un_param){.a = mul, .b = add});
}

wk_status wk_cpu_clamp(const wk_tensor *x, wk_scalar lo, wk_scalar hi, wk_tensor *out)
{
    return un_launch(x, out, PICK_BY_DTYPE(x->dtype, clamp), (un_param){.a = lo, .b = hi});
}

wk_status wk_cpu_powf(const wk_tensor *x, double e, wk_tensor *out)
{
    return un_launch(x, out, PICK_FLOAT(x->dtype, powf), (un_param){.e = e});
}

wk_status wk_cpu_elu(const wk_tensor *x, double alpha, wk_tensor *out)
{
    return un_launch(x, out, PICK_FLOAT(x->dtype, elu), (un_param){.e = alpha});
}

wk_status wk_cpu_leaky_relu(const wk_tensor *x, double negative_slope, wk_tensor *out)
{
    return un_launch(x, out, PICK_FLOAT(x->dtype, leaky_relu), (un_param){.e = negative_slope});
}

/* ---- glu: out = a * act(b) (glu) or act(a) * b, act being the unary op's own kernel, in chunks of the compute
 * type: swiglu is silu(a) * b to the bit. */

typedef struct glu_ctx {
    wk_dtype dt;
    un_kernel act;
    bool act_on_b;
} glu_ctx;

static WK_VEC_CLONES void glu_mul_f32(float *o, const float *a, const float *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = a[i] * b[i];
}
static WK_VEC_CLONES void glu_mul_f64(double *o, const double *a, const double *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = a[i] * b[i];
}

/* ptrs[0] is out (contiguous), ptrs[1] a, ptrs[2] b. */
static void glu_run(void *arg, int64_t n, char *const *ptrs, const int64_t *strides)
{
    const glu_ctx *c = arg;
    _Alignas(64) unsigned char abuf[WK_CHUNK * sizeof(double)], bbuf[WK_CHUNK * sizeof(double)];
    for (int64_t i = 0; i < n; i += WK_CHUNK) {
        int64_t m = n - i < WK_CHUNK ? n - i : WK_CHUNK;
        wk_chunk_load(c->dt, abuf, ptrs[1] + i * strides[1], strides[1], m);
        wk_chunk_load(c->dt, bbuf, ptrs[2] + i * strides[2], strides[2], m);
        void *g = c->act_on_b ? bbuf : abuf;
        c->act(g, g, m, NULL);
        if (c->dt == WK_F64)
            glu_mul_f64((double *)(void *)abuf, (const double *)(void *)abuf, (const double *)(void *)bbuf, m);
        else
            glu_mul_f32((float *)(void *)abuf, (const float *)(void *)abuf, (const float *)(void *)bbuf, m);
        wk_chunk_store(c->dt, ptrs[0] + i * strides[0], strides[0], abuf, m);
    }
}

wk_status wk_cpu_glu(wk_glu_kind kind, const wk_tensor *a, const wk_tensor *b, wk_tensor *out)
{
    static const wk_unary_op act[WK_GLU_COUNT] = {[WK_GLU_SIGMOID] = WK_UNARY_SIGMOID, [WK_GLU_SWIGLU] = WK_UNARY_SILU,
                                                  [WK_GLU_GEGLU] = WK_UNARY_GELU_ERF,
                                                  [WK_GLU_GEGLU_TANH] = WK_UNARY_GELU};
    glu_ctx c = {.dt = a->dtype, .act = unary_kernel(act[kind], a->dtype), .act_on_b = kind == WK_GLU_SIGMOID};
    const wk_tensor *ops[3] = {out, a, b};
    wk_cpu_foreach(out->rank, out->shape, 3, ops, WK_CPU_GRAIN, glu_run, &c);
    return WK_OK;
}
