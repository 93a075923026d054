/* sort_keys.cuh: the sort family's keys (kernels/sort.cu, kernels/sort_radix.cu): each value as an unsigned
 * integer whose order is the sort order, so that every sort kernel orders, ties and places NaN the same way. */
#ifndef WK_GPU_SORT_KEYS_CUH
#define WK_GPU_SORT_KEYS_CUH

#include "common.cuh"

/* ---------------------------------------------------------------- keys
 * Each value maps to an unsigned integer whose order is the sort order: ints with the sign bit flipped,
 * floats by their bits (negatives inverted), -0 as +0 (equal, as the CPU compares them), every NaN to the
 * largest key (after every number, NaNs equal). Descending inverts the key: NaN first, numbers reversed.
 * Pairs (key, original index) are then unique, so any correct sort of them is the stable sort, in both
 * directions. */
template <class T> struct sort_kt { typedef uint32_t type; };
template <> struct sort_kt<int64_t> { typedef uint64_t type; };
template <> struct sort_kt<double> { typedef uint64_t type; };

__device__ __forceinline__ uint32_t sort_key_f32(float f)
{
    if (f != f)
        return 0xffffffffu;
    if (f == 0.0f)
        f = 0.0f;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u >> 31) ? ~u : (u | 0x80000000u);
}

__device__ __forceinline__ uint32_t sort_key(const uint8_t *p) { return *p; }
__device__ __forceinline__ uint32_t sort_key(const uint32_t *p) { return *p; }
__device__ __forceinline__ uint32_t sort_key(const int32_t *p) { return (uint32_t)*p ^ 0x80000000u; }
__device__ __forceinline__ uint64_t sort_key(const int64_t *p) { return (uint64_t)*p ^ 0x8000000000000000ull; }
__device__ __forceinline__ uint32_t sort_key(const wk_f16 *p) { return sort_key_f32(wk_ld(p)); }
__device__ __forceinline__ uint32_t sort_key(const wk_bf16 *p) { return sort_key_f32(wk_ld(p)); }
__device__ __forceinline__ uint32_t sort_key(const float *p) { return sort_key_f32(*p); }
__device__ __forceinline__ uint64_t sort_key(const double *p)
{
    double f = *p;
    if (f != f)
        return 0xffffffffffffffffull;
    if (f == 0.0)
        f = 0.0;
    uint64_t u;
    memcpy(&u, &f, 8);
    return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

template <class T> __device__ __forceinline__ uint64_t sort_key_dir(const T *p, int desc)
{
    typename sort_kt<T>::type k = sort_key(p);
    return desc ? (typename sort_kt<T>::type)~k : k;
}

/* The radix path's keys (kernels/sort_radix.cu): the same order and ties in as few bits as the dtype needs, a
 * radix pass per byte: u8 its value (8 bits); f16 and bf16 16-bit keys made from their bits as sort_key_f32
 * makes f32's (NaN largest, -0 as +0); the others sort_key's. Descending inverts the key's bits. */
template <class T> struct radix_kt {
    typedef typename sort_kt<T>::type type;
    static constexpr int bits = 8 * (int)sizeof(type);
};
template <> struct radix_kt<uint8_t> { typedef uint32_t type; static constexpr int bits = 8; };
template <> struct radix_kt<wk_f16> { typedef uint32_t type; static constexpr int bits = 16; };
template <> struct radix_kt<wk_bf16> { typedef uint32_t type; static constexpr int bits = 16; };

/* h: a 16-bit float's bits, inf: its +infinity's. */
__device__ __forceinline__ uint32_t radix_key16(uint32_t h, uint32_t inf)
{
    uint32_t a = h & 0x7fffu;
    if (a > inf)
        return 0xffffu;
    if (a == 0)
        return 0x8000u;
    return (h & 0x8000u) ? (~h & 0xffffu) : (h | 0x8000u);
}
template <class T> __device__ __forceinline__ typename radix_kt<T>::type radix_key(const T *p) { return sort_key(p); }
template <> __device__ __forceinline__ uint32_t radix_key<wk_f16>(const wk_f16 *p)
{
    return radix_key16(p->bits, 0x7c00u);
}
template <> __device__ __forceinline__ uint32_t radix_key<wk_bf16>(const wk_bf16 *p)
{
    return radix_key16(p->bits, 0x7f80u);
}

template <class T> __device__ __forceinline__ typename radix_kt<T>::type radix_key_dir(const T *p, int desc)
{
    typedef typename radix_kt<T>::type U;
    const U all = (U)(~(U)0 >> (8 * (int)sizeof(U) - radix_kt<T>::bits));
    U k = radix_key(p);
    return desc ? k ^ all : k;
}

#endif
