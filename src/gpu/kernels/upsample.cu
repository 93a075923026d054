/* upsample.cu: nearest (NCL / NCHW, every dtype: upsample_nearest) and bilinear (NCHW, float:
 * upsample_bilinear) resampling of strided input (upsample.h), source indices in PyTorch's float arithmetic. */
#include "common.cuh"
#include "upsample.h"

/* The input as the kernels read it: spatial sizes and the four strides (elements; 1-D: H = 1, sH = 0). */
struct up_geom {
    int64_t H, W, sN, sC, sH, sW;
};

/* Splits the linear output index i into (oh, ow) and returns the input offset of its (n, c) plane. */
template <class I, class D>
__device__ __forceinline__ int64_t up_split(I i, I C, I OH, I OW, D dOW, D dOH, D dC, const up_geom &g, I &oh,
                                            I &ow)
{
    I row = dOW(i);
    ow = i - row * OW;
    I nc = dOH(row);
    I ni = dC(nc), c = nc - ni * C;
    oh = row - nc * OH; /* after the last division: 2 registers fewer in bilinear's wide path */
    return (int64_t)ni * g.sN + (int64_t)c * g.sC;
}

/* ---------------------------------------------------------------- nearest */

/* PyTorch's nearest_neighbor_compute_source_index: min(floorf(dst * scale), in - 1) with dst as a float and
 * scale = in / out rounded to float on the host (as cpu/upsample.c). A product alone: nothing to fuse.
 * Narrow (every size below 2^24, so dst and in - 1 are exact floats): the same in int32. */
template <class S> __device__ __forceinline__ S up_nearest_src(float dst, float scale, S last)
{
    if constexpr (sizeof(S) == 4) {
        S i = (S)(dst * scale); /* truncation is floor here: the product is >= 0 */
        return i < last ? i : last;
    } else {
        float f = floorf(dst * scale);
        return f < (float)last ? (S)f : last;
    }
}

/* An unsigned integer of B bytes (B = 16: a 16-byte aligned pair), for moving elements as raw bits. */
template <int B> struct up_bits;
template <> struct up_bits<1> { typedef uint8_t t; };
template <> struct up_bits<2> { typedef uint16_t t; };
template <> struct up_bits<4> { typedef uint32_t t; };
template <> struct up_bits<8> { typedef uint64_t t; };
struct alignas(16) up_w16 { uint64_t lo, hi; };
template <> struct up_bits<16> { typedef up_w16 t; };

/* V consecutive outputs of one row as one store of V * ES bytes (nearest only copies, so elements move as
 * raw bits of ES bytes). The host picks V so rows hold whole vectors and out is aligned to them. Narrow
 * (I uint32_t, S int32_t, D wk_div32) when every size is below 2^24 and every offset below 2^31. The
 * output column is exact as a float in both paths (narrow: < 2^24; wide: as the CPU converts it). */
template <int ES, int V, class I, class S, class D>
__device__ __forceinline__ void up_nearest_run(const void *xv, void *ov, I n, I C, I OH, I OW, D dOW, D dOH, D dC,
                                               const up_geom &g, float scale_h, float scale_w)
{
    typedef typename up_bits<ES>::t E;
    typedef typename up_bits<ES * V>::t P;
    union pack {
        P p;
        E e[V];
    };
    const E *__restrict__ x = (const E *)xv;
    P *__restrict__ out = (P *)ov;
    const S lastH = (S)g.H - 1, lastW = (S)g.W - 1, sN = (S)g.sN, sC = (S)g.sC, sH = (S)g.sH, sW = (S)g.sW;
    const I items = n / V;
    for (I k = (I)blockIdx.x * blockDim.x + threadIdx.x; k < items; k += (I)gridDim.x * blockDim.x) {
        /* the remainders after the last division: fewer values live across the wide path's 64-bit divisions
         * (4 registers fewer there) */
        I row = dOW(k * V);
        I nc = dOH(row);
        I ni = dC(nc), c = nc - ni * C;
        I oh = row - nc * OH, ow = k * V - row * OW;
        S base = (S)ni * sN + (S)c * sC + up_nearest_src<S>((float)oh, scale_h, lastH) * sH;
        pack r;
#pragma unroll
        for (int j = 0; j < V; j++) {
            /* narrow: one int-to-float conversion per vector, exact float steps after it */
            float fw = sizeof(S) == 4 ? (float)ow + (float)j : (float)(ow + j);
            r.e[j] = x[base + up_nearest_src<S>(fw, scale_w, lastW) * sW]; /* one offset in S, then x + it */
        }
        out[k] = r.p;
    }
}

/* vec: outputs per thread, 1 or a power of two up to 16 bytes' worth (host-checked). */
template <int ES, class I, class S, class D>
__device__ __forceinline__ void up_nearest_pick(const void *x, void *out, I n, I C, I OH, I OW, D dOW, D dOH, D dC,
                                                const up_geom &g, float scale_h, float scale_w, int vec)
{
    if constexpr (ES <= 8)
        if (vec == 16 / ES)
            return up_nearest_run<ES, 16 / ES, I, S>(x, out, n, C, OH, OW, dOW, dOH, dC, g, scale_h, scale_w);
    if constexpr (ES <= 4)
        if (vec == 8 / ES)
            return up_nearest_run<ES, 8 / ES, I, S>(x, out, n, C, OH, OW, dOW, dOH, dC, g, scale_h, scale_w);
    if constexpr (ES <= 2)
        if (vec == 4 / ES)
            return up_nearest_run<ES, 4 / ES, I, S>(x, out, n, C, OH, OW, dOW, dOH, dC, g, scale_h, scale_w);
    if constexpr (ES == 1)
        if (vec == 2)
            return up_nearest_run<ES, 2, I, S>(x, out, n, C, OH, OW, dOW, dOH, dC, g, scale_h, scale_w);
    up_nearest_run<ES, 1, I, S>(x, out, n, C, OH, OW, dOW, dOH, dC, g, scale_h, scale_w);
}

/* up_nearest_pick covers vectors of up to 16 bytes (up_bits<16>); the host caps them at WK_UPSAMPLE_VEC_BYTES. */
static_assert(WK_UPSAMPLE_VEC_BYTES == 16, "up_nearest_pick builds vectors of up to 16 bytes");

/* narrow: the 32-bit path, with the divisors OW, OH and C; else they are ignored. Elements move as raw bits of
 * sizeof(T) bytes. */
template <class T, class, int> __device__ __forceinline__ void upsample_nearest_run(const wk_gpu_upsample_args &p)
{
    up_geom g = {p.H, p.W, p.sN, p.sC, p.sH, p.sW};
    if (p.narrow)
        up_nearest_pick<(int)sizeof(T), uint32_t, int32_t>(p.x, p.out, (uint32_t)p.n, (uint32_t)p.C, (uint32_t)p.OH,
                                                           (uint32_t)p.OW, wk_div32{p.ow.m, p.ow.s},
                                                           wk_div32{p.oh.m, p.oh.s}, wk_div32{p.c.m, p.c.s}, g,
                                                           p.scale_h, p.scale_w, p.vec);
    else
        up_nearest_pick<(int)sizeof(T), int64_t, int64_t>(p.x, p.out, p.n, p.C, p.OH, p.OW, wk_div64{p.OW},
                                                          wk_div64{p.OH}, wk_div64{p.C}, g, p.scale_h, p.scale_w,
                                                          p.vec);
}

/* ---------------------------------------------------------------- bilinear */

/* One axis of PyTorch's area_pixel_compute_source_index / compute_source_index_and_lambda in the opmath type
 * OPM (float, or double for f64), as cpu/upsample.c LINEAR_AXIS: lower and upper source index and the upper
 * weight. ratio comes from the host already in OPM. An axis of unchanged size is copied. */
template <class OPM, class I>
__device__ __forceinline__ void up_linear_axis(I i, int64_t in, int64_t out, bool align, OPM ratio, int64_t &i0,
                                               int64_t &i1, OPM &l1)
{
    i0 = i1 = (int64_t)i;
    l1 = 0;
    if (in == out)
        return;
    OPM real = align ? ratio * (OPM)i : wk_mul_rn(ratio, (OPM)i + (OPM)0.5) - (OPM)0.5;
    if (!align && real < 0)
        real = 0;
    float f = floorf((float)real); /* PyTorch floors in float for both opmath types */
    i0 = f < (float)(in - 1) ? (int64_t)f : in - 1;
    l1 = real - (OPM)i0;
    l1 = l1 < 0 ? (OPM)0 : l1 > 1 ? (OPM)1 : l1;
    i1 = i0 + (i0 < in - 1 ? 1 : 0);
}

/* Width first, then height, as cpu/upsample.c (and PyTorch's generic interpolation) nests them. */
template <class T, class I, class D>
__device__ __forceinline__ void up_bilinear_run(const T *__restrict__ x, T *__restrict__ out, I n, I C, I OH, I OW,
                                                D dOW, D dOH, D dC, const up_geom &g, int64_t OHf, int64_t OWf,
                                                bool align, double ratio_h, double ratio_w)
{
    typedef typename wk_compute<T>::type OPM;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (I)gridDim.x * blockDim.x) {
        I oh, ow;
        const T *plane = x + up_split(i, C, OH, OW, dOW, dOH, dC, g, oh, ow);
        int64_t h0, h1, w0, w1;
        OPM lh1, lw1;
        up_linear_axis<OPM>(oh, g.H, OHf, align, (OPM)ratio_h, h0, h1, lh1);
        up_linear_axis<OPM>(ow, g.W, OWf, align, (OPM)ratio_w, w0, w1, lw1);
        OPM lh0 = (OPM)1 - lh1, lw0 = (OPM)1 - lw1;
        const T *r0 = plane + h0 * g.sH, *r1 = plane + h1 * g.sH;
        int64_t a = w0 * g.sW, b = w1 * g.sW;
        OPM t0 = wk_ld(r0 + a) * lw0 + wk_ld(r0 + b) * lw1;
        OPM t1 = wk_ld(r1 + a) * lw0 + wk_ld(r1 + b) * lw1;
        wk_st(out + i, t0 * lh0 + t1 * lh1);
    }
}

/* The divisors' 32-bit path while n < 2^31, the wide one beyond. */
template <class T, class, int> __device__ __forceinline__ void upsample_bilinear_run(const wk_gpu_upsample_args &p)
{
    up_geom g = {p.H, p.W, p.sN, p.sC, p.sH, p.sW};
    const T *__restrict__ x = (const T *)p.x;
    T *__restrict__ out = (T *)p.out;
    if (p.n <= (int64_t)INT32_MAX)
        up_bilinear_run<T, uint32_t>(x, out, (uint32_t)p.n, (uint32_t)p.C, (uint32_t)p.OH, (uint32_t)p.OW,
                                     wk_div32{p.ow.m, p.ow.s}, wk_div32{p.oh.m, p.oh.s}, wk_div32{p.c.m, p.c.s}, g,
                                     p.OH, p.OW, p.align != 0, p.ratio_h, p.ratio_w);
    else
        up_bilinear_run<T, int64_t>(x, out, p.n, p.C, p.OH, p.OW, wk_div64{p.OW}, wk_div64{p.OH}, wk_div64{p.C}, g,
                                    p.OH, p.OW, p.align != 0, p.ratio_h, p.ratio_w);
}

WK_UPSAMPLE_KERNELS(WK_DEFINE_KERNELS)
