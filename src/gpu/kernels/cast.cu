/* cast.cu: dtype conversion kernels for all 8x8 pairs with exactly the CPU's rules (src/cpu/cast.c,
 * src/core/dtype.c), down to NaN payloads, and arange (an f64 sequence converted by the same rules). */
#include "common.cuh"
#include "cast.h"

template <class T> struct cast_is_float { static const bool value = false; };
template <> struct cast_is_float<wk_f16> { static const bool value = true; };
template <> struct cast_is_float<wk_bf16> { static const bool value = true; };
template <> struct cast_is_float<float> { static const bool value = true; };
template <> struct cast_is_float<double> { static const bool value = true; };

template <class A, class B> struct cast_same { static const bool value = false; };
template <class A> struct cast_same<A, A> { static const bool value = true; };

__device__ __forceinline__ uint64_t cast_bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    return u;
}
__device__ __forceinline__ uint32_t cast_bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}
__device__ __forceinline__ float cast_f32(uint32_t u)
{
    float v;
    memcpy(&v, &u, 4);
    return v;
}

/* The exact roundings (round-to-odd steps) are core/numerics.h's, shared with the CPU. */

__device__ __forceinline__ uint8_t cast_sat_u8(double v)
{
    if (!(v == v)) return 0;
    if (v <= 0) return 0;
    if (v >= 255.0) return 255;
    return (uint8_t)v;
}
__device__ __forceinline__ uint32_t cast_sat_u32(double v)
{
    if (!(v == v)) return 0;
    if (v <= 0) return 0;
    if (v >= 4294967295.0) return 0xffffffffu;
    return (uint32_t)v;
}
__device__ __forceinline__ int32_t cast_sat_i32(double v)
{
    if (!(v == v)) return 0;
    if (v <= -2147483648.0) return (int32_t)0x80000000u;
    if (v >= 2147483647.0) return 0x7fffffff;
    return (int32_t)v;
}
__device__ __forceinline__ int64_t cast_sat_i64(double v)
{
    if (!(v == v)) return 0;
    if (v <= -9223372036854775808.0) return (int64_t)0x8000000000000000ull;
    if (v >= 9223372036854775808.0) return 0x7fffffffffffffffll;
    return (int64_t)v;
}

template <class D> __device__ __forceinline__ D cast_sat(double v);
template <> __device__ __forceinline__ uint8_t cast_sat<uint8_t>(double v) { return cast_sat_u8(v); }
template <> __device__ __forceinline__ uint32_t cast_sat<uint32_t>(double v) { return cast_sat_u32(v); }
template <> __device__ __forceinline__ int32_t cast_sat<int32_t>(double v) { return cast_sat_i32(v); }
template <> __device__ __forceinline__ int64_t cast_sat<int64_t>(double v) { return cast_sat_i64(v); }

/* ---- NaN payloads. The CPU widens a float source to a double (quieting it, except an f64) and narrows from
 * there, truncating the payload (f16/bf16 -> f32 and same-type moves excepted, below). As f64 bits: sign,
 * all-ones exponent, the source's mantissa at the top of the 52-bit field, quiet bit set. The hardware's own
 * NaN conversions differ (canonical NaNs), so NaNs take this path explicitly. */
__device__ __forceinline__ bool cast_isnan(wk_f16 x) { return (x.bits & 0x7fffu) > 0x7c00u; }
__device__ __forceinline__ bool cast_isnan(wk_bf16 x) { return (x.bits & 0x7fffu) > 0x7f80u; }
__device__ __forceinline__ bool cast_isnan(float x) { return !(x == x); }
__device__ __forceinline__ bool cast_isnan(double x) { return !(x == x); }

#define CAST_QUIET_F64 0x7ff8000000000000ull
__device__ __forceinline__ uint64_t cast_nan64(wk_f16 x)
{
    return (uint64_t)(x.bits & 0x8000u) << 48 | CAST_QUIET_F64 | (uint64_t)(x.bits & 0x3ffu) << 42;
}
__device__ __forceinline__ uint64_t cast_nan64(wk_bf16 x)
{
    return (uint64_t)(x.bits & 0x8000u) << 48 | CAST_QUIET_F64 | (uint64_t)(x.bits & 0x7fu) << 45;
}
__device__ __forceinline__ uint64_t cast_nan64(float x)
{
    uint32_t u = cast_bits(x);
    return (uint64_t)(u & 0x80000000u) << 32 | CAST_QUIET_F64 | (uint64_t)(u & 0x7fffffu) << 29;
}
__device__ __forceinline__ uint64_t cast_nan64(double x) { return cast_bits(x); }

/* f16/bf16 -> f32 widen the bits exactly, a signalling NaN included: the CPU's plain paths do (wk_f16_to_f32,
 * the bf16 shift); only its F16C run of f16 -> f32 quiets one (vcvtph2ps), so the two CPU paths disagree there. */
__device__ __forceinline__ float cast_widen_nan(wk_f16 x)
{
    return cast_f32((uint32_t)(x.bits & 0x8000u) << 16 | 0x7f800000u | (uint32_t)(x.bits & 0x3ffu) << 13);
}
__device__ __forceinline__ float cast_widen_nan(wk_bf16 x) { return cast_f32((uint32_t)x.bits << 16); }

template <class D> __device__ __forceinline__ D cast_from_nan64(uint64_t n);
template <> __device__ __forceinline__ double cast_from_nan64<double>(uint64_t n)
{
    double v;
    memcpy(&v, &n, 8);
    return v;
}
template <> __device__ __forceinline__ float cast_from_nan64<float>(uint64_t n)
{
    return cast_f32((uint32_t)(n >> 32 & 0x80000000u) | 0x7fc00000u | (uint32_t)(n >> 29 & 0x7fffffu));
}
template <> __device__ __forceinline__ wk_f16 cast_from_nan64<wk_f16>(uint64_t n)
{
    wk_f16 r = {(uint16_t)((n >> 48 & 0x8000u) | 0x7e00u | (n >> 42 & 0x3ffu))};
    return r;
}
template <> __device__ __forceinline__ wk_bf16 cast_from_nan64<wk_bf16>(uint64_t n)
{
    wk_bf16 r = {(uint16_t)((n >> 48 & 0x8000u) | 0x7fc0u | (n >> 45 & 0x7fu))};
    return r;
}

/* A non-NaN float source's value in f32 (exact for f16/bf16/f32; f64 sources never use it). */
__device__ __forceinline__ float cast_value32(wk_f16 x) { return wk_f16_bits_to_f32(x.bits); }
__device__ __forceinline__ float cast_value32(wk_bf16 x) { return wk_bf16_bits_to_f32(x.bits); }
__device__ __forceinline__ float cast_value32(float x) { return x; }
__device__ __forceinline__ float cast_value32(double x) { return (float)x; }

template <class S> __device__ __forceinline__ double cast_value64(S x) { return (double)cast_value32(x); }
template <> __device__ __forceinline__ double cast_value64<double>(double x) { return x; }

/* ---- one element, the rules of wk_cast */

template <class S, class D> __device__ __forceinline__ D cast_elem(S x)
{
    if constexpr (!cast_is_float<S>::value) {
        /* integer source: through int64 like the CPU; int -> int wraps */
        int64_t v = (int64_t)x;
        if constexpr (!cast_is_float<D>::value) {
            return (D)(uint64_t)v;
        } else if constexpr (cast_same<D, double>::value) {
            return (double)v;
        } else if constexpr (cast_same<D, float>::value) {
            return (float)v;
        } else if constexpr (cast_same<D, wk_f16>::value) {
            /* |v| >= 65520 is infinity in f16 and stays so after the single rounding to f32: one step is exact */
            wk_f16 r = {wk_f32_to_f16_bits((float)v)};
            return r;
        } else {
            double d = cast_same<S, int64_t>::value ? wk_i64_to_f64_odd(v) : (double)v;
            wk_bf16 r = {wk_f32_to_bf16_bits(wk_f64_to_f32_odd(d))};
            return r;
        }
    } else {
        if constexpr (!cast_is_float<D>::value) {
            return cast_sat<D>(cast_value64(x)); /* NaN -> 0 there */
        } else {
            if (cast_isnan(x)) {
                if constexpr (cast_same<S, D>::value && sizeof(S) >= 4)
                    return x; /* f32 -> f32 and f64 -> f64 move the bits, as the CPU's do */
                else if constexpr (cast_same<D, float>::value && sizeof(S) == 2)
                    return cast_widen_nan(x);
                else
                    return cast_from_nan64<D>(cast_nan64(x));
            }
            if constexpr (cast_same<D, double>::value) {
                return cast_value64(x);
            } else if constexpr (cast_same<D, float>::value) {
                return cast_value32(x);
            } else if constexpr (cast_same<D, wk_f16>::value) {
                float f = cast_same<S, double>::value ? wk_f64_to_f32_odd(cast_value64(x)) : cast_value32(x);
                wk_f16 r = {wk_f32_to_f16_bits(f)};
                return r;
            } else {
                float f = cast_same<S, double>::value ? wk_f64_to_f32_odd(cast_value64(x)) : cast_value32(x);
                wk_bf16 r = {wk_f32_to_bf16_bits(f)};
                return r;
            }
        }
    }
}

/* ---- contiguous runs: V = WK_CAST_VEC_BYTES (16) / (smaller element size) elements per thread and step, so
 * each side moves whole 16-byte words; a run that cannot align both sides at one element goes element by
 * element. */

template <class T, int V> struct alignas(16) cast_vec {
    T v[V];
};

template <class S, class D> struct cast_width {
    static const int value = WK_CAST_VEC_BYTES / (sizeof(S) < sizeof(D) ? sizeof(S) : sizeof(D));
};

template <class S, class D> __device__ void cast_contig(D *dst, const S *src, int64_t n)
{
    const int V = cast_width<S, D>::value;
    typedef cast_vec<S, V> svec;
    typedef cast_vec<D, V> dvec;
    /* the side with the smaller elements fixes the head (< V); the other must then be aligned too */
    int64_t head = sizeof(S) <= sizeof(D) ? (int64_t)(((16u - ((uintptr_t)src & 15u)) & 15u) / sizeof(S))
                                          : (int64_t)(((16u - ((uintptr_t)dst & 15u)) & 15u) / sizeof(D));
    if (head > n || (((uintptr_t)(src + head) | (uintptr_t)(dst + head)) & 15u) != 0)
        head = n;
    int64_t nv = (n - head) / V, tail = head + nv * V;
    const svec *sv = reinterpret_cast<const svec *>(src + head);
    dvec *dv = reinterpret_cast<dvec *>(dst + head);
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, nthr = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = tid; k < nv; k += nthr) {
        svec a = sv[k];
        dvec b;
#pragma unroll
        for (int e = 0; e < V; e++)
            b.v[e] = cast_elem<S, D>(a.v[e]);
        dv[k] = b;
    }
    for (int64_t k = tid; k < n - nv * V; k += nthr) {
        int64_t i = k < head ? k : tail + (k - head);
        dst[i] = cast_elem<S, D>(src[i]);
    }
}

/* The strided loop; SMALL: n < 2^32, every index divides in 32 bits. */
template <class S, class D, bool SMALL>
__device__ __forceinline__ void cast_strided(D *dst, const S *src, const wk_gpu_layout &L, int64_t n)
{
    WK_GRID_LOOP(i, n)
    {
        int64_t j = i, o = 0;
        for (int d = L.rank - 1; d >= 0; d--) {
            int64_t s = L.shape[d], q = 0;
            if (d > 0)
                q = SMALL ? (int64_t)((uint32_t)j / (uint32_t)s) : j / s;
            o += (j - q * s) * L.stride[d];
            j = q;
        }
        dst[i] = cast_elem<S, D>(src[o]);
    }
}

/* The 32-bit case is its own loop: left to the compiler, whether the test leaves the loop varies with the
 * surrounding code, and kept inside it costs registers. */
template <class S, class D> __device__ void cast_body(D *dst, const S *src, const wk_gpu_layout &L, int64_t n)
{
    if (L.contiguous) {
        cast_contig(dst, src, n);
        return;
    }
    if (n <= 0xffffffffll)
        cast_strided<S, D, true>(dst, src, L, n);
    else
        cast_strided<S, D, false>(dst, src, L, n);
}

/* ---- arange: dst[i] = (D)(start + i*step), the product and the sum each rounded in f64 (wk_mul_rn: never
 * fused, as the CPU does not fuse) */

template <class D> __device__ void cast_arange_body(D *dst, int64_t n, double start, double step)
{
    const int V = WK_CAST_VEC_BYTES / sizeof(D);
    typedef cast_vec<D, V> dvec;
    int64_t head = (int64_t)(((16u - ((uintptr_t)dst & 15u)) & 15u) / sizeof(D));
    if (head > n)
        head = n;
    int64_t nv = (n - head) / V, tail = head + nv * V;
    dvec *dv = reinterpret_cast<dvec *>(dst + head);
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, nthr = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = tid; k < nv; k += nthr) {
        dvec b;
#pragma unroll
        for (int e = 0; e < V; e++)
            b.v[e] = cast_elem<double, D>(start + wk_mul_rn((double)(head + k * V + e), step));
        dv[k] = b;
    }
    for (int64_t k = tid; k < n - nv * V; k += nthr) {
        int64_t i = k < head ? k : tail + (k - head);
        dst[i] = cast_elem<double, D>(start + wk_mul_rn((double)i, step));
    }
}

/* ---- entry points: cast_<src>_<dst> and cast_arange_<dst> (cast.h) */

template <class S, class D, int> __device__ __forceinline__ void cast_run(const wk_gpu_cast_args &p)
{
    cast_body<S, D>((D *)p.dst, (const S *)p.src, p.src_layout, p.n);
}
template <class D, class, int> __device__ __forceinline__ void cast_arange_run(const wk_gpu_cast_args &p)
{
    cast_arange_body<D>((D *)p.dst, p.n, p.start, p.step);
}

WK_CAST_KERNELS(WK_DEFINE_KERNELS)
