/* norm.cuh: what norm.cu's row kernels share: the compute type, 16-byte vectors of a row, group sums, and a row
 * held in registers (nm_row: loaded from x, or as x + r rounded for add_rms_norm, stored contiguous). */
#ifndef WK_GPU_KERNELS_NORM_CUH
#define WK_GPU_KERNELS_NORM_CUH

#include "common.cuh"
#include "norm.h"

template <class T> struct nm_c { typedef float type; }; /* statistics and arithmetic: f32, or f64 for f64 */
template <> struct nm_c<double> { typedef double type; };

__device__ __forceinline__ float nm_exp(float v) { return expf(v); }
__device__ __forceinline__ double nm_exp(double v) { return exp(v); }

/* v must start zeroed. */
template <class T> __device__ __forceinline__ void nm_put(wk_w16 &v, int k, T t)
{
    if constexpr (sizeof(T) == 2) {
        uint16_t b;
        memcpy(&b, &t, 2);
        v.w[k >> 1] |= (uint32_t)b << (16 * (k & 1));
    } else if constexpr (sizeof(T) == 4) {
        memcpy(&v.w[k], &t, 4);
    } else {
        uint64_t b;
        memcpy(&b, &t, 8);
        v.w[2 * k] = (uint32_t)b;
        v.w[2 * k + 1] = (uint32_t)(b >> 32);
    }
}

/* The 16-byte vector of VW values v[0 .. VW - 1] rounded to T; 16-bit types two values a conversion
 * (wk_tc_pack, compat.h: round to nearest even as wk_st; a NaN stays NaN). */
template <class T> struct nm_bf { static constexpr int v = 0; };
template <> struct nm_bf<wk_bf16> { static constexpr int v = 1; };
template <class T, class C> __device__ __forceinline__ wk_w16 nm_vec(const C *v)
{
    wk_w16 p = {{0, 0, 0, 0}};
    if constexpr (sizeof(T) == 2) {
#pragma unroll
        for (int i = 0; i < 4; i++)
            p.w[i] = wk_tc_pack<nm_bf<T>::v>(v[2 * i], v[2 * i + 1]);
    } else {
#pragma unroll
        for (int e = 0; e < 16 / (int)sizeof(T); e++)
            nm_put(p, e, (T)v[e]);
    }
    return p;
}

template <class T> __device__ __forceinline__ typename nm_c<T>::type nm_cvt(T t) { return wk_ld(&t); }

/* ---------------------------------------------------------------- group reductions
 * A row's statistics go through wk_group_reduce (common.cuh) over the G lanes that hold the row: G aligned
 * lanes of one logical warp of LW lanes (G <= LW), or the whole block (G == blockDim.x, a multiple of LW).
 * Every thread of the block calls them, rows or not, so their barriers are reached by all. */
struct nm_add2 {
    template <class C> __device__ wk_pair<C, C> operator()(wk_pair<C, C> x, wk_pair<C, C> y) const
    {
        return {x.a + y.a, x.b + y.b};
    }
};

/* Sums of a and b over the group at once (one pass through shared memory instead of two). */
template <int LW, class C> __device__ void nm_group2(C &a, C &b, int G)
{
    wk_pair<C, C> r = wk_group_reduce<LW>(wk_pair<C, C>{a, b}, nm_add2(), G);
    a = r.a;
    b = r.b;
}

/* ---------------------------------------------------------------- rows from memory
 * Rows too long for registers: a block each, reading the row again for each statistic. */

/* A long f32 sum in two levels (blocks of NM_FLUSH terms, then the total), like the CPU's blocks. */
#define NM_FLUSH 32
template <class C> struct nm_sum {
    C tot = 0, blk = 0;
    int k = 0;
    __device__ void add(C v)
    {
        blk += v;
        if (++k == NM_FLUSH) {
            tot += blk;
            blk = 0;
            k = 0;
        }
    }
    __device__ C get() const { return tot + blk; }
};

/* ---------------------------------------------------------------- rows in registers
 * G lanes per row, S = NV * VW values per lane. VEC: slot k of a lane is the 16-byte vector k * G + lane of
 * the row; otherwise element (k * VW + e) * G + lane, read with x's stride. Slots past the row's end hold 0
 * and are skipped where 0 would count. */
template <class T, int NV, bool VEC> struct nm_row {
    typedef typename nm_c<T>::type C;
    static constexpr int VW = 16 / sizeof(T), S = NV * VW;
    C v[S];
    C first; /* the row's first element (0 without a row): layer_norm's centre */
    const T *x;
    int64_t s;
    int lane, G, n; /* n: the row's length, 0 for a group without a row */

    __device__ int idx(int k, int e) const { return VEC ? (k * G + lane) * VW + e : (k * VW + e) * G + lane; }
    __device__ bool in(int k, int e) const { return idx(k, VEC ? 0 : e) < n; }
    __device__ C val(int k, int e) const { return v[k * VW + e]; }

    __device__ void load()
    {
        first = n > 0 ? nm_cvt(wk_ldg(x)) : (C)0; /* the compiler drops it where unused */
        if constexpr (VEC) {
#pragma unroll
            for (int k = 0; k < NV; k++) {
                wk_w16 p = {{0, 0, 0, 0}};
                if (in(k, 0))
                    p = wk_ldg((const wk_w16 *)(x + idx(k, 0)));
#pragma unroll
                for (int e = 0; e < VW; e++)
                    v[k * VW + e] = nm_cvt(wk_w16_get<T>(p, e));
            }
        } else { /* element i = k * VW + e sits at (i * G + lane) * s: one pointer, stepped */
            const T *p = x + (int64_t)lane * s;
            int64_t step = (int64_t)G * s;
#pragma unroll
            for (int i = 0; i < S; i++, p += step)
                v[i] = i * G + lane < n ? wk_ld_ro(p) : (C)0;
        }
    }

    /* The VW values of a parameter (w or b, stride ps) for slot k: vectors when pvec (then VEC too). */
    __device__ void param(const T *p, int64_t ps, bool pvec, int k, C *out) const
    {
        if (VEC && pvec) {
            wk_w16 q = {{0, 0, 0, 0}};
            if (in(k, 0))
                q = wk_ldg((const wk_w16 *)(p + idx(k, 0)));
#pragma unroll
            for (int e = 0; e < VW; e++)
                out[e] = nm_cvt(wk_w16_get<T>(q, e));
        } else {
            const T *q = p + ((int64_t)idx(k, 0)) * ps;
            int64_t step = (VEC ? 1 : (int64_t)G) * ps;
#pragma unroll
            for (int e = 0; e < VW; e++, q += step)
                out[e] = in(k, e) ? wk_ld_ro(q) : (C)0;
        }
    }

    /* add_rms_norm: v = x + r (r with stride rs along the row) rounded to T as wk_st rounds it (the binary kernels'
     * stores), stored to sum (the row's place in it, contiguous) as it goes. The slots are sum's (VEC: its vectors);
     * x and r are read by vectors where flags say so (NM_XVEC, NM_RVEC), else by elements. */
    __device__ void load_add(const T *r, int64_t rs, T *sum, int flags)
    {
        if constexpr (VEC) {
#pragma unroll
            for (int k = 0; k < NV; k++) {
                C a[VW], b[VW];
                param(x, s, flags & NM_XVEC, k, a);
                param(r, rs, flags & NM_RVEC, k, b);
                wk_w16 p = {{0, 0, 0, 0}};
#pragma unroll
                for (int e = 0; e < VW; e++) {
                    T t;
                    wk_st(&t, a[e] + b[e]); /* past the row's end: 0 + 0 */
                    v[k * VW + e] = nm_cvt(t);
                    nm_put(p, e, t);
                }
                if (in(k, 0))
                    *(wk_w16 *)(sum + idx(k, 0)) = p;
            }
        } else { /* as load: element i at (i * G + lane) * s of x (rs of r), i * G + lane of sum */
            const T *p = x + (int64_t)lane * s, *q = r + (int64_t)lane * rs;
#pragma unroll
            for (int i = 0; i < S; i++, p += (int64_t)G * s, q += (int64_t)G * rs) {
                v[i] = 0;
                if (i * G + lane < n) {
                    T t;
                    wk_st(&t, (C)wk_ld_ro(p) + (C)wk_ld_ro(q));
                    v[i] = nm_cvt(t);
                }
            }
#pragma unroll
            for (int i = 0; i < S; i++)
                if (i * G + lane < n)
                    wk_st(sum + i * G + lane, v[i]); /* exact: v[i] is a T */
        }
    }

    /* y (contiguous) = v, slot by slot. */
    __device__ void store(T *y) const
    {
#pragma unroll
        for (int k = 0; k < NV; k++) {
            if constexpr (VEC) {
                if (in(k, 0))
                    *(wk_w16 *)(y + idx(k, 0)) = nm_vec<T>(v + k * VW);
            } else {
#pragma unroll
                for (int e = 0; e < VW; e++)
                    if (in(k, e))
                        wk_st(y + idx(k, e), v[k * VW + e]);
            }
        }
    }
};

#endif
