/* pool.cu: max and average pooling over strided NCHW input: pool_max (every dtype), pool_avg (float), one
 * thread per output element (pool.h). Same windows, divisors and NaN rule as cpu/pool.c. */
#include "common.cuh"
#include "pool.h"

/* NaN test in the compute type: integers have none. */
template <class C> __device__ __forceinline__ bool pool_isnan(C) { return false; }
template <> __device__ __forceinline__ bool pool_isnan<float>(float v) { return v != v; }
template <> __device__ __forceinline__ bool pool_isnan<double>(double v) { return v != v; }

/* Everything about the input and the window that does not depend on the output element. */
struct pool_geom {
    int64_t H, W, sN, sC, sH, sW; /* input spatial size and strides (elements) */
    int64_t kh, kw, sth, stw, ph, pw;
    int32_t count_include_pad;
};

/* The window's reduction. Generic: any window, loop by loop. S: the signed offset type. */
template <class T, bool IS_MAX, class S>
__device__ __forceinline__ typename wk_compute<T>::type pool_window(const T *p, S hn, S wn, S sH, S sW)
{
    typedef typename wk_compute<T>::type CT;
    if constexpr (IS_MAX) {
        /* PyTorch's rule: a NaN replaces the running max, and only a later NaN replaces a NaN */
        CT m = wk_ld_ro(p);
        for (S a = 0; a < hn; a++, p += sH) {
            const T *q = p;
            for (S b = 0; b < wn; b++, q += sW) {
                CT v = wk_ld_ro(q);
                m = (v > m || pool_isnan(v)) ? v : m;
            }
        }
        return m;
    } else {
        CT sum = 0;
        for (S a = 0; a < hn; a++, p += sH) {
            const T *q = p;
            for (S b = 0; b < wn; b++, q += sW)
                sum += wk_ld_ro(q);
        }
        return sum;
    }
}

/* Windows of at most KH x KW, fully unrolled so every load is issued before the first one is used (the
 * loop above waits for each load in turn and leaves too few bytes in flight). Taps past the clipped window
 * reload its last row / column: max is unchanged by re-reading a suffix of what it has seen (the last NaN
 * stays the last), avg drops them. Offsets in S, added to x once per load. */
template <class T, bool IS_MAX, int KH, int KW, class S>
__device__ __forceinline__ typename wk_compute<T>::type pool_window_small(const T *x, S off, S hn, S wn, S sH,
                                                                          S sW)
{
    typedef typename wk_compute<T>::type CT;
    CT v[KH][KW];
#pragma unroll
    for (int a = 0; a < KH; a++)
#pragma unroll
        for (int b = 0; b < KW; b++)
            v[a][b] = wk_ld_ro(x + (off + (a < hn ? (S)a : hn - 1) * sH + (b < wn ? (S)b : wn - 1) * sW));
    CT r = IS_MAX ? v[0][0] : (CT)0;
#pragma unroll
    for (int a = 0; a < KH; a++)
#pragma unroll
        for (int b = 0; b < KW; b++) {
            if constexpr (IS_MAX)
                r = (v[a][b] > r || pool_isnan(v[a][b])) ? v[a][b] : r;
            else
                r += (a < hn && b < wn) ? v[a][b] : (CT)0;
        }
    return r;
}

/* Output (n, c, oh, ow) = linear index i of the contiguous output. Narrow (I uint32_t, S int32_t, D
 * wk_div32) when the host found every index, offset and window bound below 2^31; else wide (int64_t).
 * Windows as cpu/pool.c window_at: [o*stride - pad, min(that + kernel, in + pad)) is the divisor's extent,
 * clipped to the input for the elements read (never empty: pad <= kernel/2 and ceil mode's rule).
 * KH x KW bounds the kernel (0 x 0: any kernel). */
template <class T, bool IS_MAX, int KH, int KW, class I, class S, class D>
__device__ __forceinline__ void pool_run(const T *__restrict__ x, T *__restrict__ out, I n, I C, I OH, I OW, D dOW,
                                         D dOH, D dC, const pool_geom &g)
{
    typedef typename wk_compute<T>::type CT;
    const S H = (S)g.H, W = (S)g.W, sN = (S)g.sN, sC = (S)g.sC, sH = (S)g.sH, sW = (S)g.sW;
    const S kh = (S)g.kh, kw = (S)g.kw, sth = (S)g.sth, stw = (S)g.stw, ph = (S)g.ph, pw = (S)g.pw;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (I)gridDim.x * blockDim.x) {
        I row = dOW(i), ow = i - row * OW;
        I nc = dOH(row), oh = row - nc * OH;
        I ni = dC(nc), c = nc - ni * C;
        S hlo = (S)oh * sth - ph, hhi = hlo + kh;
        S wlo = (S)ow * stw - pw, whi = wlo + kw;
        hhi = hhi < H + ph ? hhi : H + ph;
        whi = whi < W + pw ? whi : W + pw;
        S fh = hhi - hlo, fw = whi - wlo;
        hlo = hlo > 0 ? hlo : 0;
        wlo = wlo > 0 ? wlo : 0;
        hhi = hhi < H ? hhi : H;
        whi = whi < W ? whi : W;
        S hn = hhi - hlo, wn = whi - wlo;
        S off = (S)ni * sN + (S)c * sC + hlo * sH + wlo * sW;
        CT r;
        if constexpr (KH > 0)
            r = pool_window_small<T, IS_MAX, KH, KW, S>(x, off, hn, wn, sH, sW);
        else
            r = pool_window<T, IS_MAX, S>(x + off, hn, wn, sH, sW);
        if constexpr (!IS_MAX)
            r = r / (CT)(g.count_include_pad ? (int64_t)fh * fw : (int64_t)hn * wn);
        wk_st(out + i, r);
    }
}

/* The window shape: 2x2 and 3x3 (the common pools) unrolled, the rest looped. */
template <class T, bool IS_MAX, class I, class S, class D>
__device__ __forceinline__ void pool_pick(const T *x, T *out, I n, I C, I OH, I OW, D dOW, D dOH, D dC,
                                          const pool_geom &g)
{
    if (g.kh <= 2 && g.kw <= 2)
        pool_run<T, IS_MAX, 2, 2, I, S>(x, out, n, C, OH, OW, dOW, dOH, dC, g);
    else if (g.kh <= 3 && g.kw <= 3)
        pool_run<T, IS_MAX, 3, 3, I, S>(x, out, n, C, OH, OW, dOW, dOH, dC, g);
    else
        pool_run<T, IS_MAX, 0, 0, I, S>(x, out, n, C, OH, OW, dOW, dOH, dC, g);
}

/* narrow: the 32-bit path, with the magic of the divisors OW, OH and C; else they are ignored. cip: avg's
 * count_include_pad, a constant at each call so that the loops are compiled per divisor rule (read from the
 * argument struct at run time, it left avg_pool2d 3x3 30% slower on an H100). */
template <class T, bool IS_MAX>
__device__ __forceinline__ void pool_entry(const wk_gpu_pool_args &p, int32_t cip)
{
    pool_geom g = {p.H, p.W, p.sN, p.sC, p.sH, p.sW, p.kh, p.kw, p.sth, p.stw, p.ph, p.pw, cip};
    const T *x = (const T *)p.x;
    T *out = (T *)p.out;
    if (p.narrow)
        pool_pick<T, IS_MAX, uint32_t, int32_t>(x, out, (uint32_t)p.n, (uint32_t)p.C, (uint32_t)p.OH,
                                                (uint32_t)p.OW, wk_div32{p.ow.m, p.ow.s}, wk_div32{p.oh.m, p.oh.s},
                                                wk_div32{p.c.m, p.c.s}, g);
    else
        pool_pick<T, IS_MAX, int64_t, int64_t>(x, out, p.n, p.C, p.OH, p.OW, wk_div64{p.OW}, wk_div64{p.OH},
                                               wk_div64{p.C}, g);
}

template <class T, class, int> __device__ __forceinline__ void pool_max_run(const wk_gpu_pool_args &p)
{
    pool_entry<T, true>(p, 0);
}
template <class T, class, int> __device__ __forceinline__ void pool_avg_run(const wk_gpu_pool_args &p)
{
    if (p.count_include_pad)
        pool_entry<T, false>(p, 1);
    else
        pool_entry<T, false>(p, 0);
}

WK_POOL_KERNELS(WK_DEFINE_KERNELS)
