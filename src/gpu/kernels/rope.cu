/* rope.cu: kernels of rotary embeddings (candle-nn rotary_emb): halves or interleaved pairs over (B, H, T, D),
 * halves over (B, T, H, D); x, cos and sin any strided views, out contiguous. One thread per rotated pair. */
#include "common.cuh"

/* kind 0 halves (bhtd), 1 interleaved (bhtd), 2 halves (bthd). n = B*d1*d2*half pairs; x's strides xs0..xs3,
 * the (T, D/2) tables' strides cs0/cs1 and ss0/ss1. Pair i of a row is (i, i + half) or (2i, 2i + 1). */
template <class T>
__device__ void rope_body(int kind, const T *x, int64_t xs0, int64_t xs1, int64_t xs2, int64_t xs3, const T *cosv,
                          int64_t cs0, int64_t cs1, const T *sinv, int64_t ss0, int64_t ss1, T *out, int64_t d1,
                          int64_t d2, int64_t half, int64_t n)
{
    const bool inter = kind == 1;
    const int64_t pair = inter ? 2 : 1, second = inter ? 1 : half;
    WK_GRID_LOOP(e, n)
    {
        int64_t r = e / half, i = e - r * half;
        int64_t r2 = r / d2, i2 = r - r2 * d2, i0 = r2 / d1, i1 = r2 - i0 * d1;
        int64_t t = kind == 2 ? i1 : i2;
        const T *xr = x + i0 * xs0 + i1 * xs1 + i2 * xs2 + i * pair * xs3;
        typedef typename wk_compute<T>::type C;
        C a = wk_ld(xr), b = wk_ld(xr + second * xs3);
        C c = wk_ld(cosv + t * cs0 + i * cs1), s = wk_ld(sinv + t * ss0 + i * ss1);
        T *o = out + r * 2 * half + i * pair;
        wk_st(o, a * c - b * s);
        wk_st(o + second, a * s + b * c);
    }
}

#define ROPE_ENTRY(sfx, T)                                                                              \
    WK_KERNEL void rope_##sfx(int kind, const T *x, int64_t xs0, int64_t xs1, int64_t xs2, int64_t xs3,   \
                              const T *cosv, int64_t cs0, int64_t cs1, const T *sinv, int64_t ss0, int64_t ss1, \
                              T *out, int64_t d1, int64_t d2, int64_t half, int64_t n)                  \
    {                                                                                                   \
        rope_body(kind, x, xs0, xs1, xs2, xs3, cosv, cs0, cs1, sinv, ss0, ss1, out, d1, d2, half, n);     \
    }
WK_FLOAT_DTYPES(ROPE_ENTRY)
