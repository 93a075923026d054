/* mask.cu: the mask kernels: tri_<size> (tril and triu) and masked_fill_<size>. Same results as cpu/mask.c; values
 * move as raw words of their size, 16-byte vectors of out where the operands allow. */
#include "common.cuh"
#include "mask.h"

static_assert(WK_MASK_VEC_BYTES == 16 && sizeof(wk_w16) == 16, "mask.h's vector width must be the engine's");

/* 16 bytes of R (1, 2, 4 or 8 bytes), loaded or stored as one vector. */
template <class R> struct mk_pack {
    static constexpr int n = WK_MASK_VEC_BYTES / (int)sizeof(R);
    union {
        wk_w16 w;
        R t[n];
    };
};

/* n / d for the two divisor kinds (common.cuh): 32-bit multiply-high below 2^31, plain division above. */
__device__ __forceinline__ int64_t mk_div(const wk_div32 &d, int64_t n) { return (int64_t)d((uint32_t)n); }
__device__ __forceinline__ int64_t mk_div(const wk_div64 &d, int64_t n) { return d(n); }

/* Element offset in x of out's element e (64-bit division only past 2^32 elements). */
__device__ __forceinline__ int64_t mk_offset(const wk_gpu_layout &l, int64_t e, int64_t n)
{
    return n <= (int64_t)UINT32_MAX ? wk_offset32(l, (uint32_t)e) : wk_offset(l, e);
}

/* ---- tri: element e of out is column j of row i of matrix e / (rows * cols); the kept columns of row i are
 * [lo, hi): tril j <= i + diagonal, triu j >= i + diagonal (|i + diagonal| <= rows + cols: no overflow). */

__device__ __forceinline__ void mk_tri_range(const wk_gpu_mask_args &p, int64_t i, int64_t &lo, int64_t &hi)
{
    int64_t edge = i + p.diagonal;
    if (p.upper) {
        lo = edge < 0 ? 0 : edge > p.cols ? p.cols : edge;
        hi = p.cols;
    } else {
        lo = 0;
        hi = edge + 1 < 0 ? 0 : edge + 1 > p.cols ? p.cols : edge + 1;
    }
}

/* Vector path (cols a whole number of vectors, out aligned): a vector lies in one row; x is read only where the
 * row keeps part of it, as one vector when x is contiguous and aligned. */
template <class R, class D>
__device__ __forceinline__ void mk_tri(const wk_gpu_mask_args &p, const R *x, R *o, D dc, D dr)
{
    constexpr int N = mk_pack<R>::n;
    const int64_t n = p.n;
    if (p.cols % N == 0 && wk_aligned16(o)) {
        const bool xvec = p.lx.contiguous && wk_aligned16(x);
        WK_GRID_LOOP(v, n / N) {
            int64_t e = v * N, r = mk_div(dc, e), j0 = e - r * p.cols, i = r - mk_div(dr, r) * p.rows, lo, hi;
            mk_tri_range(p, i, lo, hi);
            mk_pack<R> res;
            res.w = wk_w16{{0, 0, 0, 0}};
            if (j0 < hi && j0 + N > lo) {
                if (xvec) {
                    mk_pack<R> px;
                    px.w = wk_ldg(reinterpret_cast<const wk_w16 *>(x) + v);
#pragma unroll
                    for (int k = 0; k < N; k++)
                        res.t[k] = j0 + k >= lo && j0 + k < hi ? px.t[k] : (R)0;
                } else {
#pragma unroll
                    for (int k = 0; k < N; k++)
                        res.t[k] = j0 + k >= lo && j0 + k < hi ? x[mk_offset(p.lx, e + k, n)] : (R)0;
                }
            }
            reinterpret_cast<wk_w16 *>(o)[v] = res.w;
        }
        return;
    }
#pragma unroll 1
    WK_GRID_LOOP(e, n) {
        int64_t r = mk_div(dc, e), j = e - r * p.cols, i = r - mk_div(dr, r) * p.rows, lo, hi;
        mk_tri_range(p, i, lo, hi);
        o[e] = j >= lo && j < hi ? x[mk_offset(p.lx, e, n)] : (R)0;
    }
}

template <class R, class, int> __device__ __forceinline__ void tri_run(const wk_gpu_mask_args &p)
{
    const R *x = (const R *)p.x;
    R *o = (R *)p.out;
    if (p.n < ((int64_t)1 << 31))
        mk_tri(p, x, o, wk_div32{p.dcols.m, p.dcols.s}, wk_div32{p.drows.m, p.drows.s});
    else
        mk_tri(p, x, o, wk_div64{p.cols}, wk_div64{p.rows});
}

/* ---- masked_fill: out = mask ? v : x */

/* The word of N = 2, 4 or 8 mask bytes. */
template <int N> struct mk_word;
template <> struct mk_word<2> { typedef uint16_t type; };
template <> struct mk_word<4> { typedef uint32_t type; };
template <> struct mk_word<8> { typedef uint64_t type; };

/* The N mask bytes of a vector: mask element k of it at mo + k * ms (the vector never crosses the mask layout's
 * innermost dim). One aligned word when they are adjacent, else byte loads (ms 0: one byte, broadcast). */
template <int N> __device__ __forceinline__ void mk_mask_bytes(const uint8_t *m, int64_t mo, int64_t ms, uint8_t *b)
{
    const uint8_t *s = m + mo;
    if (ms == 1 && ((uintptr_t)s & (N - 1)) == 0) {
        if constexpr (N == 16) {
            wk_w16 w = wk_ldg(reinterpret_cast<const wk_w16 *>(s));
#pragma unroll
            for (int k = 0; k < N; k++)
                b[k] = wk_w16_get<uint8_t>(w, k);
        } else {
            typedef typename mk_word<N>::type W;
            W w = wk_ldg(reinterpret_cast<const W *>(s));
#pragma unroll
            for (int k = 0; k < N; k++)
                b[k] = (uint8_t)(w >> (8 * k));
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < N; k++)
        b[k] = s[k * ms];
}

template <class R, class, int> __device__ __forceinline__ void masked_fill_run(const wk_gpu_mask_args &p)
{
    constexpr int N = mk_pack<R>::n;
    const R *x = (const R *)p.x;
    const uint8_t *m = (const uint8_t *)p.mask;
    R *o = (R *)p.out;
    const R v = (R)p.v;
    const int64_t n = p.n;
    const int rm = p.lm.rank;
    int64_t start = 0;
    if (p.lx.contiguous && wk_aligned16(x) && wk_aligned16(o) && (rm <= 1 || p.lm.shape[rm - 1] % N == 0)) {
        const int64_t ms = rm ? p.lm.stride[rm - 1] : 0, nv = n / N;
        WK_GRID_LOOP(i, nv) {
            uint8_t b[N];
            mk_mask_bytes<N>(m, mk_offset(p.lm, i * N, n), ms, b);
            mk_pack<R> px;
            px.w = wk_ldg(reinterpret_cast<const wk_w16 *>(x) + i);
#pragma unroll
            for (int k = 0; k < N; k++)
                px.t[k] = b[k] ? v : px.t[k];
            reinterpret_cast<wk_w16 *>(o)[i] = px.w;
        }
        start = nv * N;
    }
#pragma unroll 1
    for (int64_t e = start + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x)
        o[e] = m[mk_offset(p.lm, e, n)] ? v : x[mk_offset(p.lx, e, n)];
}

WK_MASK_KERNELS(WK_DEFINE_KERNELS)
