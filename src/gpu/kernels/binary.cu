/* binary.cu: the two- and three-input element-wise kernels: binary_<op>_<sfx>, compare_<op>_<sfx> (u8 result),
 * where_<cond sfx>_<value sfx>. Same results as cpu/binary.c; contiguous aligned operands move in vectors. */
#include "common.cuh"
#include "binary.h"

/* ---- the engine: out[i] = f(a[i], b[i]) (or where's selection) over n elements, out contiguous */

/* Words of one vector access: the widest aligned load/store for a pack of that many bytes. */
struct alignas(8) bn_w8 { uint32_t v[2]; };
template <int B> struct bn_word { typedef wk_w16 type; }; /* 16 bytes and more: 16-byte words */
template <> struct bn_word<2> { typedef uint16_t type; };
template <> struct bn_word<4> { typedef uint32_t type; };
template <> struct bn_word<8> { typedef bn_w8 type; };

/* N elements of T moved as whole words. Pack v of an array starts at byte v * N * sizeof(T): with the array
 * 16-byte aligned, every word is aligned to its size. */
template <class T, int N> struct bn_pack {
    static constexpr int bytes = N * (int)sizeof(T), wb = bytes < 16 ? bytes : 16, nw = bytes / wb;
    typedef typename bn_word<wb>::type word;
    union {
        word w[nw];
        T t[N];
    };
    __device__ __forceinline__ void load(const T *p, int64_t v)
    {
        const word *s = reinterpret_cast<const word *>(p) + v * nw;
#pragma unroll
        for (int k = 0; k < nw; k++)
            w[k] = s[k];
    }
    __device__ __forceinline__ void store(T *p, int64_t v) const
    {
        word *d = reinterpret_cast<word *>(p) + v * nw;
#pragma unroll
        for (int k = 0; k < nw; k++)
            d[k] = w[k];
    }
};

/* The engine's alignment test (wk_aligned16) and widest word are 16 bytes. */
static_assert(WK_BINARY_VEC_BYTES == 16, "binary.h's vector width must match the engine's words");

#define BN_TAIL_LOOP(i, from, n)                                                                        \
    for (int64_t i = (from) + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)(n);       \
         i += (int64_t)gridDim.x * blockDim.x)

/* Each thread of the vector path makes WK_BINARY_VEC_BYTES of out (N elements). The host sizes the grid for
 * n / N items when every operand is contiguous and 16-byte aligned, else for n items; any grid is correct. */
template <class T, class O, class F>
__device__ __forceinline__ void bn_run2(const T *a, const wk_gpu_layout &la, const T *b, const wk_gpu_layout &lb,
                                        O *o, int64_t n, F f)
{
    constexpr int N = WK_BINARY_VEC_BYTES / (int)sizeof(O);
    if (la.contiguous && lb.contiguous && wk_aligned16(a) && wk_aligned16(b) && wk_aligned16(o)) {
        const int64_t nv = n / N;
        WK_GRID_LOOP(v, nv) {
            bn_pack<T, N> pa, pb;
            bn_pack<O, N> r;
            pa.load(a, v);
            pb.load(b, v);
#pragma unroll
            for (int j = 0; j < N; j++)
                wk_st(&r.t[j], f(wk_ld(&pa.t[j]), wk_ld(&pb.t[j])));
            r.store(o, v);
        }
        BN_TAIL_LOOP(i, nv * N, n)
            wk_st(o + i, f(wk_ld(a + i), wk_ld(b + i)));
    } else if (n <= (int64_t)UINT32_MAX) {
#pragma unroll 1
        WK_GRID_LOOP(i, n) {
            uint32_t k = (uint32_t)i;
            wk_st(o + i, f(wk_ld(a + wk_offset32(la, k)), wk_ld(b + wk_offset32(lb, k))));
        }
    } else {
#pragma unroll 1
        WK_GRID_LOOP(i, n)
            wk_st(o + i, f(wk_ld(a + wk_offset(la, i)), wk_ld(b + wk_offset(lb, i))));
    }
}

/* where moves values as raw words of their size (f16 as its bits); cond is true when non-zero. */
template <class C, class V>
__device__ __forceinline__ void bn_where(const C *c, const wk_gpu_layout &lc, const V *t, const wk_gpu_layout &lt,
                                         const V *f, const wk_gpu_layout &lf, V *o, int64_t n)
{
    constexpr int N = WK_BINARY_VEC_BYTES / (int)sizeof(V);
    if (lc.contiguous && lt.contiguous && lf.contiguous && wk_aligned16(c) && wk_aligned16(t) && wk_aligned16(f) &&
        wk_aligned16(o)) {
        const int64_t nv = n / N;
        WK_GRID_LOOP(v, nv) {
            bn_pack<C, N> pc;
            bn_pack<V, N> pt, pf, r;
            pc.load(c, v);
            pt.load(t, v);
            pf.load(f, v);
#pragma unroll
            for (int j = 0; j < N; j++)
                r.t[j] = pc.t[j] != 0 ? pt.t[j] : pf.t[j];
            r.store(o, v);
        }
        BN_TAIL_LOOP(i, nv * N, n)
            o[i] = c[i] != 0 ? t[i] : f[i];
    } else if (n <= (int64_t)UINT32_MAX) {
#pragma unroll 1
        WK_GRID_LOOP(i, n) {
            uint32_t k = (uint32_t)i;
            o[i] = c[wk_offset32(lc, k)] != 0 ? t[wk_offset32(lt, k)] : f[wk_offset32(lf, k)];
        }
    } else {
#pragma unroll 1
        WK_GRID_LOOP(i, n)
            o[i] = c[wk_offset(lc, i)] != 0 ? t[wk_offset(lt, i)] : f[wk_offset(lf, i)];
    }
}

/* ---- integer helpers: arithmetic in the unsigned type, so that overflow wraps without undefined behaviour */

template <class T> struct bn_int;
template <> struct bn_int<uint8_t> { typedef uint32_t u; static constexpr bool is_signed = false; };
template <> struct bn_int<uint32_t> { typedef uint32_t u; static constexpr bool is_signed = false; };
template <> struct bn_int<int32_t> { typedef uint32_t u; static constexpr bool is_signed = true; };
template <> struct bn_int<int64_t> { typedef uint64_t u; static constexpr bool is_signed = true; };

/* ---- arithmetic: float/double overloads (f16/bf16 compute in float), a template for ints */

#define BN_ARITH(name, fexpr, iexpr)                                                                  \
    struct bn_##name {                                                                                \
        __device__ __forceinline__ float operator()(float a, float b) const { return fexpr; }         \
        __device__ __forceinline__ double operator()(double a, double b) const { return fexpr; }      \
        template <class T> __device__ __forceinline__ T operator()(T a, T b) const                    \
        {                                                                                             \
            typedef typename bn_int<T>::u U;                                                          \
            (void)sizeof(U);                                                                          \
            return iexpr;                                                                             \
        }                                                                                             \
    };
BN_ARITH(add, a + b, (T)((U)a + (U)b))
BN_ARITH(sub, a - b, (T)((U)a - (U)b))
BN_ARITH(mul, a * b, (T)((U)a * (U)b))
/* NaN propagates: a when a is NaN, else b when b is NaN (a > NaN is false). */
BN_ARITH(maximum, a > b || a != a ? a : b, a > b ? a : b)
BN_ARITH(minimum, a < b || a != a ? a : b, a < b ? a : b)
#undef BN_ARITH

/* Ints truncate toward zero; x / 0 = 0 (documented); MIN / -1, the one overflowing quotient, wraps to MIN as
 * 0 - MIN does. Floats: IEEE. */
struct bn_div {
    __device__ __forceinline__ float operator()(float a, float b) const { return a / b; }
    __device__ __forceinline__ double operator()(double a, double b) const { return a / b; }
    template <class T> __device__ __forceinline__ T operator()(T a, T b) const
    {
        typedef typename bn_int<T>::u U;
        if (b == 0)
            return (T)0;
        if constexpr (bn_int<T>::is_signed) {
            if (b == -1)
                return (T)((U)0 - (U)a);
        }
        return (T)(a / b);
    }
};

/* ---- comparisons to u8 (IEEE: false with NaN except ne); f16/bf16 compare exactly in float */

#define BN_COMPARE(name, op)                                                                              \
    struct bn_##name {                                                                                    \
        template <class C> __device__ __forceinline__ uint8_t operator()(C a, C b) const { return a op b; } \
    };
BN_COMPARE(eq, ==)
BN_COMPARE(ne, !=)
BN_COMPARE(lt, <)
BN_COMPARE(le, <=)
BN_COMPARE(gt, >)
BN_COMPARE(ge, >=)
#undef BN_COMPARE

/* ---- the sets' bodies (binary.h): binary_<op>_<dtype> and compare_<op>_<dtype> (TA the op's functor, TB the
 * operands' storage type), where_<cond>_<value> (TA the condition's type, TB the values'). */

template <class F, class T, int> __device__ __forceinline__ void binary_run(const wk_gpu_binary_args &p)
{
    bn_run2((const T *)p.in[0], p.lin[0], (const T *)p.in[1], p.lin[1], (T *)p.out, p.n, F());
}

template <class F, class T, int> __device__ __forceinline__ void compare_run(const wk_gpu_binary_args &p)
{
    bn_run2((const T *)p.in[0], p.lin[0], (const T *)p.in[1], p.lin[1], (uint8_t *)p.out, p.n, F());
}

/* Raw word of a value's size: where's instances depend on the size only. */
template <int B> struct bn_raw;
template <> struct bn_raw<1> { typedef uint8_t type; };
template <> struct bn_raw<2> { typedef uint16_t type; };
template <> struct bn_raw<4> { typedef uint32_t type; };
template <> struct bn_raw<8> { typedef uint64_t type; };

template <class C, class V, int> __device__ __forceinline__ void where_run(const wk_gpu_binary_args &p)
{
    typedef typename bn_raw<sizeof(V)>::type R;
    bn_where((const C *)p.in[0], p.lin[0], (const R *)p.in[1], p.lin[1], (const R *)p.in[2], p.lin[2], (R *)p.out,
             p.n);
}

WK_BINARY_KERNELS(WK_DEFINE_KERNELS)
