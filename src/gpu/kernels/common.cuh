/* common.cuh: what every kernel file shares: storage types per dtype, loads/stores in the compute type,
 * strided offsets from a wk_gpu_layout, grid-stride loops, logical warps and group reductions.
 * Vendor-neutral: only compat.h names vendor intrinsics. */
#ifndef WK_GPU_COMMON_CUH
#define WK_GPU_COMMON_CUH

#include "compat.h"
#include "entries.h"
#include "../layout.h"
#include "../../core/numerics.h"

/* f16 and bf16 are stored as 16-bit patterns and computed in float. Distinct structs (not uint16_t) so
 * templates tell them apart. */
struct wk_f16 { uint16_t bits; };
struct wk_bf16 { uint16_t bits; };

/* Their conversions to and from f32 are core/numerics.h's, shared with the CPU. */

/* wk_compute<T>::type: the arithmetic type of a storage type (f16/bf16 compute in f32, as on the CPU). */
template <class T> struct wk_compute { typedef T type; };
template <> struct wk_compute<wk_f16> { typedef float type; };
template <> struct wk_compute<wk_bf16> { typedef float type; };

template <class T> __device__ __forceinline__ typename wk_compute<T>::type wk_ld(const T *p) { return *p; }
template <> __device__ __forceinline__ float wk_ld<wk_f16>(const wk_f16 *p) { return wk_f16_bits_to_f32(p->bits); }
template <> __device__ __forceinline__ float wk_ld<wk_bf16>(const wk_bf16 *p) { return wk_bf16_bits_to_f32(p->bits); }

/* wk_ld through the read-only path (compat.h, wk_ldg): for inputs no thread of the kernel writes. */
template <class T> __device__ __forceinline__ typename wk_compute<T>::type wk_ld_ro(const T *p)
{
    T t = wk_ldg(p);
    return wk_ld(&t);
}

template <class T> __device__ __forceinline__ void wk_st(T *p, typename wk_compute<T>::type v) { *p = v; }
template <> __device__ __forceinline__ void wk_st<wk_f16>(wk_f16 *p, float v) { p->bits = wk_f32_to_f16_bits(v); }
template <> __device__ __forceinline__ void wk_st<wk_bf16>(wk_bf16 *p, float v) { p->bits = wk_f32_to_bf16_bits(v); }

/* The item of an axis with no variants (entries.h). */
struct wk_none {};

/* X of a family's kernel list (entries.h): defines every entry point of a set, each
 *     extern "C" __global__ void ATTR <set><sfx A><sfx B><sfx W>(const P p)
 *     { wk_grid_wait(); <set>_run<TA, TB, LW>(p); }
 * for the variants its axes build; the family writes template <class TA, class TB, int LW> set##_run. */
#define WK_DEFINE_KERNELS(fam, set, P, A, B, W, ATTR) WK_AX_##A(WK_DEF_A_, WK_DEF_SKIP_, set, P, B, W, ATTR)
#define WK_DEF_SKIP_(...)
#define WK_DEF_A_(sa, Ta, set, P, B, W, ATTR) WK_BX_##B(WK_DEF_B_, WK_DEF_SKIP_, set, P, W, ATTR, sa, Ta)
#define WK_DEF_B_(sb, Tb, set, P, W, ATTR, sa, Ta) WK_WX_##W(WK_DEF_W_, WK_DEF_SKIP_, set, P, ATTR, sa, Ta, sb, Tb)
#define WK_DEF_W_(sw, LW, set, P, ATTR, sa, Ta, sb, Tb)                                                          \
    WK_KERNEL void ATTR set##sa##sb##sw(const P p)                                                              \
    {                                                                                                            \
        wk_grid_wait();                                                                                          \
        set##_run<Ta, Tb, LW>(p);                                                                                \
    }

/* X(suffix, storage type) for each dtype group; kernel names end in the suffix ("binary_add_f32"). */
#define WK_INT_DTYPES(X) X(u8, uint8_t) X(u32, uint32_t) X(i32, int32_t) X(i64, int64_t)
#define WK_FLOAT_DTYPES(X) X(f16, wk_f16) X(bf16, wk_bf16) X(f32, float) X(f64, double)
#define WK_ALL_DTYPES(X) WK_INT_DTYPES(X) WK_FLOAT_DTYPES(X)
#define WK_INDEX_DTYPES(X) X(u8, uint8_t) X(u32, uint32_t) X(i32, int32_t) X(i64, int64_t)

/* Element offset of linear index i (< the layout's element count) in a layout (layout.h). 64-bit
 * throughout; the outermost dim needs no division. */
__device__ __forceinline__ int64_t wk_offset(const wk_gpu_layout &L, int64_t i)
{
    if (L.contiguous)
        return i;
    int64_t off = 0;
    for (int d = L.rank - 1; d > 0; d--) {
        int64_t s = L.shape[d], q = i / s;
        off += (i - q * s) * L.stride[d];
        i = q;
    }
    return L.rank > 0 ? off + i * L.stride[0] : off;
}

/* wk_offset with 32-bit division, valid while every index fits (n < 2^32): 64-bit division is a long
 * software sequence on GPUs and would bound strided kernels. The outermost dim needs no division. */
__device__ __forceinline__ int64_t wk_offset32(const wk_gpu_layout &L, uint32_t i)
{
    if (L.contiguous)
        return i;
    int64_t off = 0;
#pragma unroll 1
    for (int d = L.rank - 1; d > 0; d--) {
        uint32_t s = (uint32_t)L.shape[d], q = i / s;
        off += (int64_t)(i - q * s) * L.stride[d];
        i = q;
    }
    return L.rank > 0 ? off + (int64_t)i * L.stride[0] : 0; /* i < shape[0] here: no division */
}

/* n / d as a multiply-high and a shift (m, s from wk_gpu_divisor_of on the host), valid for n < 2^31: a
 * division by a run-time divisor is a long instruction sequence, enough to make index-heavy kernels
 * (pooling, resampling) issue-bound instead of memory-bound. wk_div64 is the wide path's plain division. */
struct wk_div32 {
    uint32_t m, s;
    __device__ __forceinline__ uint32_t operator()(uint32_t n) const
    {
        return ((uint32_t)(((uint64_t)n * m) >> 32) + n) >> s;
    }
};
struct wk_div64 {
    int64_t d;
    __device__ __forceinline__ int64_t operator()(int64_t n) const { return n / d; }
};

/* 16 bytes moved as one vector access, and the alignment test for it. Held as words so that elements
 * narrower than a register come out by shifts (wk_w16_get), never through local memory. */
struct alignas(16) wk_w16 { uint32_t w[4]; };
__device__ __forceinline__ bool wk_aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

/* Element k of the 16 bytes v, as a T of 1, 2, 4 or 8 bytes. */
template <class T> __device__ __forceinline__ T wk_w16_get(const wk_w16 &v, int k)
{
    T t;
    if constexpr (sizeof(T) == 1) {
        uint8_t b = (uint8_t)(v.w[k >> 2] >> (8 * (k & 3)));
        memcpy(&t, &b, 1);
    } else if constexpr (sizeof(T) == 2) {
        uint16_t b = (uint16_t)(v.w[k >> 1] >> (16 * (k & 1)));
        memcpy(&t, &b, 2);
    } else if constexpr (sizeof(T) == 4) {
        memcpy(&t, &v.w[k], 4);
    } else {
        uint64_t b = (uint64_t)v.w[2 * k] | ((uint64_t)v.w[2 * k + 1] << 32);
        memcpy(&t, &b, 8);
    }
    return t;
}

/* Grid-stride loop over [0, n) with 64-bit indices. */
#define WK_GRID_LOOP(i, n)                                                                              \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)(n);                 \
         i += (int64_t)gridDim.x * blockDim.x)


/* ---------------------------------------------------------------- logical warps
 * Kernels whose logic depends on the warp width (group and block reductions) take it as a template parameter
 * LW, the logical width, and are built once per width by WK_WIDTHS(X, ...), which calls X(LW, name suffix,
 * ...). An AMD build has one: the target's own wavefront width (64 on gfx9, 32 on gfx10+), no suffix. An
 * NVIDIA build has two: 32 (its warp, no suffix) and 64 with the suffix _w64, a logical wavefront of two warps,
 * which the host selects with WICK_GPU_LOGICAL_WARP=64 so that the wave64 logic (lane and warp numbering,
 * offsets up to 32, partial slots, which groups fit in one wavefront) runs and is tested on NVIDIA GPUs. Only
 * the exchange between the two halves of a logical wavefront differs there (wk_lane_xor). */
#if defined(__HIPCC__)
#define WK_WIDTHS(X, ...) X(WK_HW_WARP, , __VA_ARGS__)
#else
#define WK_WIDTHS(X, ...) X(32, , __VA_ARGS__) X(64, _w64, __VA_ARGS__)
#endif

/* v of lane (lane ^ o) of this lane's logical warp of LW lanes; o a power of two below LW, the same in every
 * thread of the block, and every thread of the block calls it (blockDim.x a multiple of LW). An offset below
 * the hardware width is one shuffle. A wider one exists only in the NVIDIA build's logical wave64 (o = 32:
 * the other warp of the pair) and goes through shared memory between two barriers. */
template <int LW, class T> __device__ __forceinline__ T wk_lane_xor(T v, int o)
{
    if constexpr (LW > WK_HW_WARP) {
        if (o >= WK_HW_WARP) {
            __shared__ T ex[WK_MAX_BLOCK];
            __syncthreads(); /* ex may still be read by the previous exchange */
            ex[threadIdx.x] = v;
            __syncthreads();
            return ex[threadIdx.x ^ (unsigned)o];
        }
    }
    return wk_shfl_xor(v, o);
}

/* Lane masks of a logical warp of LW lanes (bit i: lane i of the warp): 32 bits at width 32, else 64. */
template <int LW> struct wk_lanemask { typedef uint64_t type; };
template <> struct wk_lanemask<32> { typedef uint32_t type; };

/* The ballot of p over this lane's logical warp; every thread of the block calls it. At the hardware width one
 * vote; the NVIDIA build's logical wave64 joins its two warps' votes through shared memory between two
 * barriers. */
template <int LW> __device__ __forceinline__ typename wk_lanemask<LW>::type wk_warp_ballot(bool p)
{
    uint64_t b = wk_ballot(p);
    if constexpr (LW > WK_HW_WARP) {
        __shared__ uint64_t votes[WK_MAX_BLOCK / WK_HW_WARP];
        __syncthreads(); /* votes may still be read by the previous ballot */
        if (threadIdx.x % WK_HW_WARP == 0)
            votes[threadIdx.x / WK_HW_WARP] = b;
        __syncthreads();
        const unsigned first = threadIdx.x / LW * (LW / WK_HW_WARP);
        b = 0;
        for (int h = 0; h < LW / WK_HW_WARP; h++)
            b |= votes[first + h] << (h * WK_HW_WARP);
    }
    return (typename wk_lanemask<LW>::type)b;
}

/* The lanes of this lane's logical warp meet, shared-memory writes before it seen after it: wk_syncwarp at the
 * hardware width, a block barrier for the logical wave64 (every thread of the block calls it). */
template <int LW> __device__ __forceinline__ void wk_warp_sync()
{
    if constexpr (LW > WK_HW_WARP)
        __syncthreads();
    else
        wk_syncwarp();
}

/* Two values that travel together through a group reduction (sums of two statistics, a candidate and its
 * index); each exchange moves both. */
template <class A, class B> struct wk_pair {
    A a;
    B b;
};
template <int LW, class A, class B> __device__ __forceinline__ wk_pair<A, B> wk_lane_xor(wk_pair<A, B> v, int o)
{
    A a = wk_lane_xor<LW>(v.a, o);
    B b = wk_lane_xor<LW>(v.b, o);
    return {a, b};
}

/* op of v over a group of G lanes, given to every lane of the group. G <= LW: G aligned lanes of one logical
 * warp, combined by xor steps G/2 .. 1, which never leave the group. G > LW: the group is the whole block
 * (G == blockDim.x, a multiple of LW): xor steps over the logical warp, then one value per warp through
 * shared memory, WK_MAX_BLOCK / LW slots (16 at width 64, 32 at width 32). Both widths are the same code
 * with LW as the only constant. Every thread of the block calls it. */
template <int LW, class T, class Op> __device__ T wk_group_reduce(T v, Op op, int G)
{
    for (int o = (G < LW ? G : LW) / 2; o > 0; o >>= 1)
        v = op(v, wk_lane_xor<LW>(v, o));
    if (G <= LW)
        return v;
    __shared__ T part[WK_MAX_BLOCK / LW];
    int lane = threadIdx.x % LW, warp = threadIdx.x / LW, nwarps = blockDim.x / LW;
    __syncthreads(); /* part[] may still be read by a previous call */
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    v = part[0];
    for (int k = 1; k < nwarps; k++)
        v = op(v, part[k]);
    return v;
}

struct wk_op_sum { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct wk_op_max { template <class T> __device__ T operator()(T a, T b) const { return a > b ? a : b; } };

#endif
