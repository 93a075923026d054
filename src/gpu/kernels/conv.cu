/* conv.cu: wick's own direct convolutions, the fallback when the vendor DNN library is absent or lacks a
 * case: conv_direct_fwd and conv_direct_tr (float), one thread per output element, 2-D form (conv.h). */
#include "common.cuh"
#include "conv.h"

/* The geometry in the 2-D form (a 1-D convolution has H = OH = KH = 1 and zero H strides). x (N, C, H, W);
 * forward w (O, C/g, KH, KW), transposed w (C, O/g, KH, KW); strides in elements, any layout. */
struct conv_geom {
    int64_t O, OH, OW, H, W, KH, KW, cg, og;
    int64_t sy, sx, py, px, dy, dx;
    int64_t xN, xC, xH, xW, w0, w1, wH, wW, bS;
};

/* Taps k in [0, K) with 0 <= base + k*dil < size, as [lo, hi) (empty when lo >= hi). */
__device__ __forceinline__ void conv_taps(int64_t base, int64_t dil, int64_t size, int64_t K, int64_t &lo,
                                          int64_t &hi)
{
    lo = base >= 0 ? 0 : (-base + dil - 1) / dil;
    hi = base >= size ? 0 : (size - 1 - base) / dil + 1;
    hi = hi < K ? hi : K;
}

/* Splits the linear output index into (n, o, oy, ox). */
__device__ __forceinline__ void conv_split(int64_t i, const conv_geom &g, int64_t &n, int64_t &o, int64_t &oy,
                                           int64_t &ox)
{
    int64_t t = i / g.OW;
    ox = i - t * g.OW;
    int64_t u = t / g.OH;
    oy = t - u * g.OH;
    n = u / g.O;
    o = u - n * g.O;
}

/* out[n][o][oy][ox] = bias[o] + sum over the group's channels ci and the taps that land inside x of
 * x[n][g*cg + ci][oy*sy - py + ky*dy][ox*sx - px + kx*dx] * w[o][ci][ky][kx]. Taps outer, channels inner:
 * the bounds are worked out once per output, not per channel. Accumulates in f32 (f64 for f64). */
template <class T>
__device__ __forceinline__ void conv_fwd_run(const T *__restrict__ x, const T *__restrict__ w,
                                             const T *__restrict__ bias, T *__restrict__ out, int64_t total,
                                             const conv_geom &g)
{
    typedef typename wk_compute<T>::type CT;
    WK_GRID_LOOP(i, total) {
        int64_t n, o, oy, ox;
        conv_split(i, g, n, o, oy, ox);
        int64_t by = oy * g.sy - g.py, bx = ox * g.sx - g.px, ky0, ky1, kx0, kx1;
        conv_taps(by, g.dy, g.H, g.KH, ky0, ky1);
        conv_taps(bx, g.dx, g.W, g.KW, kx0, kx1);
        int64_t xb = n * g.xN + (o / g.og) * g.cg * g.xC; /* by, bx may be negative: offsets, not pointers */
        const T *wb = w + o * g.w0;
        CT acc = bias ? wk_ld(bias + o * g.bS) : (CT)0;
        for (int64_t ky = ky0; ky < ky1; ky++)
            for (int64_t kx = kx0; kx < kx1; kx++) {
                const T *xp = x + xb + (by + ky * g.dy) * g.xH + (bx + kx * g.dx) * g.xW;
                const T *wp = wb + ky * g.wH + kx * g.wW;
                for (int64_t ci = 0; ci < g.cg; ci++, xp += g.xC, wp += g.w1)
                    acc += wk_ld(xp) * wk_ld(wp);
            }
        wk_st(out + i, acc);
    }
}

/* q = t / s when t >= 0 is a multiple of s and q < size; else -1. */
__device__ __forceinline__ int64_t conv_tr_src(int64_t t, int64_t s, int64_t size)
{
    if (t < 0)
        return -1;
    int64_t q = s == 1 ? t : t / s;
    return q * s == t && q < size ? q : -1;
}

/* The adjoint, gathered per output: out[n][o][oy][ox] = bias[o] + sum over taps (ky, kx) and the group's
 * input channels ci of x[n][g*cg + ci][iy][ix] * w[g*cg + ci][o % og][ky][kx], where iy*sy = oy + py - ky*dy
 * (and the same along x). Output padding only makes the output larger: its cells gather like the others. */
template <class T>
__device__ __forceinline__ void conv_tr_run(const T *__restrict__ x, const T *__restrict__ w,
                                            const T *__restrict__ bias, T *__restrict__ out, int64_t total,
                                            const conv_geom &g)
{
    typedef typename wk_compute<T>::type CT;
    WK_GRID_LOOP(i, total) {
        int64_t n, o, oy, ox;
        conv_split(i, g, n, o, oy, ox);
        int64_t grp = o / g.og, oc = o - grp * g.og;
        const T *xb = x + n * g.xN + grp * g.cg * g.xC;
        const T *wb = w + grp * g.cg * g.w0 + oc * g.w1;
        CT acc = bias ? wk_ld(bias + o * g.bS) : (CT)0;
        for (int64_t ky = 0; ky < g.KH; ky++) {
            int64_t ty = oy + g.py - ky * g.dy;
            if (ty < 0) /* ty only falls as ky grows */
                break;
            int64_t iy = conv_tr_src(ty, g.sy, g.H);
            if (iy < 0)
                continue;
            for (int64_t kx = 0; kx < g.KW; kx++) {
                int64_t tx = ox + g.px - kx * g.dx;
                if (tx < 0)
                    break;
                int64_t ix = conv_tr_src(tx, g.sx, g.W);
                if (ix < 0)
                    continue;
                const T *xp = xb + iy * g.xH + ix * g.xW;
                const T *wp = wb + ky * g.wH + kx * g.wW;
                for (int64_t ci = 0; ci < g.cg; ci++, xp += g.xC, wp += g.w0)
                    acc += wk_ld(xp) * wk_ld(wp);
            }
        }
        wk_st(out + i, acc);
    }
}

/* The struct unpacked into conv_geom and restrict-qualified pointers, then the shared bodies. */
template <class T, bool TR> __device__ __forceinline__ void conv_entry(const wk_gpu_conv_args &p)
{
    conv_geom g = {p.O,  p.OH, p.OW, p.H,  p.W,  p.KH, p.KW, p.cg, p.og, p.sy, p.sx, p.py,
                   p.px, p.dy, p.dx, p.xN, p.xC, p.xH, p.xW, p.w0, p.w1, p.wH, p.wW, p.bS};
    const T *__restrict__ x = (const T *)p.x;
    const T *__restrict__ w = (const T *)p.w;
    const T *__restrict__ bias = (const T *)p.bias;
    T *__restrict__ out = (T *)p.out;
    if constexpr (TR)
        conv_tr_run<T>(x, w, bias, out, p.total, g);
    else
        conv_fwd_run<T>(x, w, bias, out, p.total, g);
}

template <class T, class, int> __device__ __forceinline__ void conv_direct_fwd_run(const wk_gpu_conv_args &p)
{
    conv_entry<T, false>(p);
}
template <class T, class, int> __device__ __forceinline__ void conv_direct_tr_run(const wk_gpu_conv_args &p)
{
    conv_entry<T, true>(p);
}

WK_CONV_KERNELS(WK_DEFINE_KERNELS)
