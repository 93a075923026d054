/* unary.cu: the one-input element-wise kernels: unary_<op>_<sfx>, affine_<sfx>, powf_<sfx>, elu_<sfx>,
 * leaky_relu_<sfx>, clamp_<sfx>, glu_<kind>_<sfx>. Same results as cpu/unary.c; contiguous aligned operands (glu:
 * aligned rows) move in 16-byte vectors. */
#include "common.cuh"
#include "activation.cuh"
#include "unary.h"

/* ---- the engine: out[i] = f(x[i]) over n elements, out contiguous */

/* The engine's alignment test (wk_aligned16) and its vector (wk_w16) are 16 bytes. */
static_assert(WK_UNARY_VEC_BYTES == 16 && sizeof(wk_w16) == 16, "unary.h's vector width must be the engine's");

/* 16 bytes of T, loaded or stored as one vector (the pointer is 16-byte aligned). */
template <class T> struct un_pack {
    static constexpr int n = WK_UNARY_VEC_BYTES / (int)sizeof(T);
    union {
        wk_w16 w;
        T t[n];
    };
};

template <class T> using un_c = typename wk_compute<T>::type;

/* The host sizes the grid for n / (WK_UNARY_VEC_BYTES / sizeof(T)) items when x is contiguous and both pointers
 * are 16-byte aligned (the vector path), else for n items; any grid is correct. */
template <class T, class F> __device__ __forceinline__ void un_run(const T *x, const wk_gpu_layout &lx, T *o,
                                                                   int64_t n, F f)
{
    if (lx.contiguous && wk_aligned16(x) && wk_aligned16(o)) {
        constexpr int N = un_pack<T>::n;
        const int64_t nv = n / N;
        WK_GRID_LOOP(v, nv) {
            un_pack<T> a, r;
            a.w = reinterpret_cast<const wk_w16 *>(x)[v];
#pragma unroll
            for (int j = 0; j < N; j++)
                wk_st(&r.t[j], f(wk_ld(&a.t[j])));
            reinterpret_cast<wk_w16 *>(o)[v] = r.w;
        }
        for (int64_t i = nv * N + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += (int64_t)gridDim.x * blockDim.x)
            wk_st(o + i, f(wk_ld(x + i)));
    } else if (n <= (int64_t)UINT32_MAX) {
#pragma unroll 1
        WK_GRID_LOOP(i, n)
            wk_st(o + i, f(wk_ld(x + wk_offset32(lx, (uint32_t)i))));
    } else {
#pragma unroll 1
        WK_GRID_LOOP(i, n)
            wk_st(o + i, f(wk_ld(x + wk_offset(lx, i))));
    }
}

/* ---- integer helpers: arithmetic in the unsigned type, so that overflow wraps without undefined behaviour */

template <class T> struct un_int;
template <> struct un_int<uint8_t> { typedef uint32_t u; static constexpr bool is_signed = false; };
template <> struct un_int<uint32_t> { typedef uint32_t u; static constexpr bool is_signed = false; };
template <> struct un_int<int32_t> { typedef uint32_t u; static constexpr bool is_signed = true; };
template <> struct un_int<int64_t> { typedef uint64_t u; static constexpr bool is_signed = true; };

/* ---- the unary ops: float and double overloads (f16/bf16 take the float one), a template for ints */

template <class C> __device__ __forceinline__ C un_relu6_of(C r) { return r < (C)0 ? (C)0 : r > (C)6 ? (C)6 : r; }

#define UN_FLOAT_OP(name, ef, ed)                                                  \
    struct un_##name {                                                             \
        __device__ __forceinline__ float operator()(float v) const { return ef; }  \
        __device__ __forceinline__ double operator()(double v) const { return ed; } \
    };
UN_FLOAT_OP(exp, expf(v), exp(v))
UN_FLOAT_OP(log, logf(v), log(v))
UN_FLOAT_OP(sin, sinf(v), sin(v))
UN_FLOAT_OP(cos, cosf(v), cos(v))
UN_FLOAT_OP(tanh, tanhf(v), tanh(v))
UN_FLOAT_OP(erf, erff(v), erf(v))
UN_FLOAT_OP(recip, 1.0f / v, 1.0 / v)
UN_FLOAT_OP(sqrt, sqrtf(v), sqrt(v))
UN_FLOAT_OP(ceil, ceilf(v), ceil(v))
UN_FLOAT_OP(floor, floorf(v), floor(v))
UN_FLOAT_OP(round, rintf(v), rint(v)) /* half to even */
/* PyTorch's defaults: softplus with threshold 20 (beta 1), mish without one (e^x overflowing to inf gives x). */
UN_FLOAT_OP(softplus, v > 20.0f ? v : log1pf(expf(v)), v > 20.0 ? v : log1p(exp(v)))
UN_FLOAT_OP(mish, v * tanhf(log1pf(expf(v))), v * tanh(log1p(exp(v))))
/* relu6(x + 3) / 6, NaN passing through both comparisons; hardswish(-inf) = -inf * 0 = NaN, as on the CPU. */
UN_FLOAT_OP(hardsigmoid, un_relu6_of(v + 3.0f) / 6.0f, un_relu6_of(v + 3.0) / 6.0)
UN_FLOAT_OP(hardswish, v * un_relu6_of(v + 3.0f) / 6.0f, v * un_relu6_of(v + 3.0) / 6.0)
#undef UN_FLOAT_OP

/* The ops ints take too. Unsigned: abs and relu are the identity; neg is instantiated for signed ints only. */
struct un_sqr {
    __device__ __forceinline__ float operator()(float v) const { return v * v; }
    __device__ __forceinline__ double operator()(double v) const { return v * v; }
    template <class T> __device__ __forceinline__ T operator()(T v) const
    {
        typedef typename un_int<T>::u U;
        return (T)((U)v * (U)v);
    }
};
struct un_abs {
    __device__ __forceinline__ float operator()(float v) const { return fabsf(v); }
    __device__ __forceinline__ double operator()(double v) const { return fabs(v); }
    template <class T> __device__ __forceinline__ T operator()(T v) const
    {
        if constexpr (un_int<T>::is_signed)
            return v < 0 ? (T)((typename un_int<T>::u)0 - (typename un_int<T>::u)v) : v; /* MIN wraps to MIN */
        else
            return v;
    }
};
struct un_neg {
    __device__ __forceinline__ float operator()(float v) const { return -v; }
    __device__ __forceinline__ double operator()(double v) const { return -v; }
    template <class T> __device__ __forceinline__ T operator()(T v) const
    {
        return (T)((typename un_int<T>::u)0 - (typename un_int<T>::u)v);
    }
};
/* NaN and -0 pass through (NaN < 0 is false). */
struct un_relu {
    __device__ __forceinline__ float operator()(float v) const { return v < 0.0f ? 0.0f : v; }
    __device__ __forceinline__ double operator()(double v) const { return v < 0.0 ? 0.0 : v; }
    template <class T> __device__ __forceinline__ T operator()(T v) const
    {
        if constexpr (un_int<T>::is_signed)
            return v < 0 ? (T)0 : v;
        else
            return v;
    }
};
/* Floats: NaN stays NaN and +-0 stays itself, as on the CPU. */
struct un_sign {
    __device__ __forceinline__ float operator()(float v) const { return v > 0.0f ? 1.0f : v < 0.0f ? -1.0f : v; }
    __device__ __forceinline__ double operator()(double v) const { return v > 0.0 ? 1.0 : v < 0.0 ? -1.0 : v; }
    template <class T> __device__ __forceinline__ T operator()(T v) const
    {
        if constexpr (un_int<T>::is_signed)
            return (T)((v > 0) - (v < 0));
        else
            return (T)(v != 0);
    }
};

/* ---- the sets unary_<op> (unary.h): TA is x's storage type */

#define UN_OP_RUN_(X, OP, name, AX)                                                                               \
    template <class T, class, int>                                                                                \
    __device__ __forceinline__ void unary_##name##_run(const wk_gpu_unary_args &p)                                \
    {                                                                                                             \
        un_run((const T *)p.x, p.lx, (T *)p.out, p.n, un_##name());                                              \
    }
WK_UNARY_OPS(UN_OP_RUN_, ~)
#undef UN_OP_RUN_

/* ---- parameterised ops. Scalars arrive in the compute type (f32 for f16/bf16, the integer type itself) for
 * affine and clamp, as f64 for powf and elu (converted here once, as the CPU does). */

__device__ __forceinline__ float un_affine_of(float v, float m, float a) { return v * m + a; }
__device__ __forceinline__ double un_affine_of(double v, double m, double a) { return v * m + a; }
template <class T> __device__ __forceinline__ T un_affine_of(T v, T m, T a)
{
    typedef typename un_int<T>::u U;
    return (T)((U)v * (U)m + (U)a);
}

template <class C> struct un_affine {
    C mul, add;
    __device__ __forceinline__ C operator()(C v) const { return un_affine_of(v, mul, add); }
};
/* NaN compares false both ways and falls through to v. */
template <class C> struct un_clamp {
    C lo, hi;
    __device__ __forceinline__ C operator()(C v) const { return v < lo ? lo : v > hi ? hi : v; }
};
struct un_powf {
    double e;
    __device__ __forceinline__ float operator()(float v) const { return powf(v, (float)e); }
    __device__ __forceinline__ double operator()(double v) const { return pow(v, e); }
};
struct un_elu {
    double alpha;
    __device__ __forceinline__ float operator()(float v) const { return v > 0.0f ? v : (float)alpha * expm1f(v); }
    __device__ __forceinline__ double operator()(double v) const { return v > 0.0 ? v : alpha * expm1(v); }
};

/* The scalar's member of x's arithmetic type (unary.h): what the former by-value parameter of that type held. */
__device__ __forceinline__ void un_scalar(const wk_gpu_unary_scalar &s, uint8_t &v) { v = s.u8; }
__device__ __forceinline__ void un_scalar(const wk_gpu_unary_scalar &s, uint32_t &v) { v = s.u32; }
__device__ __forceinline__ void un_scalar(const wk_gpu_unary_scalar &s, int32_t &v) { v = s.i32; }
__device__ __forceinline__ void un_scalar(const wk_gpu_unary_scalar &s, int64_t &v) { v = s.i64; }
__device__ __forceinline__ void un_scalar(const wk_gpu_unary_scalar &s, float &v) { v = s.f32; }
__device__ __forceinline__ void un_scalar(const wk_gpu_unary_scalar &s, double &v) { v = s.f64; }

template <class T, class, int> __device__ __forceinline__ void affine_run(const wk_gpu_unary_args &p)
{
    un_c<T> mul, add;
    un_scalar(p.s0, mul);
    un_scalar(p.s1, add);
    un_run((const T *)p.x, p.lx, (T *)p.out, p.n, un_affine<un_c<T>>{mul, add});
}

template <class T, class, int> __device__ __forceinline__ void clamp_run(const wk_gpu_unary_args &p)
{
    un_c<T> lo, hi;
    un_scalar(p.s0, lo);
    un_scalar(p.s1, hi);
    un_run((const T *)p.x, p.lx, (T *)p.out, p.n, un_clamp<un_c<T>>{lo, hi});
}

template <class T, class, int> __device__ __forceinline__ void powf_run(const wk_gpu_unary_args &p)
{
    un_run((const T *)p.x, p.lx, (T *)p.out, p.n, un_powf{p.s0.f64});
}

template <class T, class, int> __device__ __forceinline__ void elu_run(const wk_gpu_unary_args &p)
{
    un_run((const T *)p.x, p.lx, (T *)p.out, p.n, un_elu{p.s0.f64});
}

/* NaN fails v > 0 and gives NaN * slope = NaN. */
struct un_leaky_relu {
    double slope;
    __device__ __forceinline__ float operator()(float v) const { return v > 0.0f ? v : v * (float)slope; }
    __device__ __forceinline__ double operator()(double v) const { return v > 0.0 ? v : v * slope; }
};

template <class T, class, int> __device__ __forceinline__ void leaky_relu_run(const wk_gpu_unary_args &p)
{
    un_run((const T *)p.x, p.lx, (T *)p.out, p.n, un_leaky_relu{p.s0.f64});
}

/* ---- glu: out = f(a, b) over the halves a (p.x) and b (p.x2) of one input, both in layout p.lx. The activations
 * are the unary ops' own functors, so swiglu is silu(a) * b to the bit. */


/* The row path (p.hv > 0): vector v of out is vector c = v % hv of row r = v / hv of a and b; the host chose it
 * only where every such vector is aligned. Div divides by hv: wk_div32 below 2^31 vectors, else wk_div64. */
template <class T, class F, class Div>
__device__ __forceinline__ void un_glu_rows(const T *a, const T *b, T *o, int64_t nv, int64_t hv, int64_t rs, Div dv,
                                            F f)
{
    constexpr int N = un_pack<T>::n;
    WK_GRID_LOOP(v, nv) {
        int64_t r = (int64_t)dv((decltype(dv(0)))v), off = r * rs + (v - r * hv) * N;
        un_pack<T> pa, pb, res;
        pa.w = wk_ldg(reinterpret_cast<const wk_w16 *>(a + off));
        pb.w = wk_ldg(reinterpret_cast<const wk_w16 *>(b + off));
#pragma unroll
        for (int j = 0; j < N; j++)
            wk_st(&res.t[j], f(wk_ld(&pa.t[j]), wk_ld(&pb.t[j])));
        reinterpret_cast<wk_w16 *>(o)[v] = res.w;
    }
}

template <class F, class T, int> __device__ __forceinline__ void glu_run(const wk_gpu_unary_args &p)
{
    const T *a = (const T *)p.x, *b = (const T *)p.x2;
    T *o = (T *)p.out;
    const int64_t n = p.n;
    if (p.hv > 0) {
        const int64_t nv = n / un_pack<T>::n; /* rows of whole vectors: no tail */
        if (nv <= (int64_t)INT32_MAX)
            un_glu_rows(a, b, o, nv, p.hv, p.rs, wk_div32{p.dv.m, p.dv.s}, F());
        else
            un_glu_rows(a, b, o, nv, p.hv, p.rs, wk_div64{p.hv}, F());
    } else if (n <= (int64_t)UINT32_MAX) {
#pragma unroll 1
        WK_GRID_LOOP(i, n) {
            int64_t off = wk_offset32(p.lx, (uint32_t)i);
            wk_st(o + i, F()(wk_ld(a + off), wk_ld(b + off)));
        }
    } else {
#pragma unroll 1
        WK_GRID_LOOP(i, n) {
            int64_t off = wk_offset(p.lx, i);
            wk_st(o + i, F()(wk_ld(a + off), wk_ld(b + off)));
        }
    }
}

WK_UNARY_KERNELS(WK_DEFINE_KERNELS)
