/* rope.cu: kernels of rotary embeddings (candle-nn rotary_emb): halves or interleaved pairs over (B, H, T, D),
 * halves over (B, T, H, D); x, cos and sin any strided views, out contiguous. One thread per rotated pair. */
#include "common.cuh"
#include "rope.h"

/* The kinds of rope.h's axis. */
struct rope_halves { static constexpr bool inter = false, thd = false; };
struct rope_interleaved { static constexpr bool inter = true, thd = false; };
struct rope_thd { static constexpr bool inter = false, thd = true; };

/* n = B*d1*d2*half pairs; x's strides xs0..xs3, the (T, D/2) tables' strides cs0/cs1 and ss0/ss1. Pair i of a
 * row is (i, i + half) or, interleaved, (2i, 2i + 1); the position t is dim 2 of x, or dim 1 for thd. */
template <class K, class T>
__device__ void rope_body(const T *x, int64_t xs0, int64_t xs1, int64_t xs2, int64_t xs3, const T *cosv,
                          int64_t cs0, int64_t cs1, const T *sinv, int64_t ss0, int64_t ss1, T *out, int64_t d1,
                          int64_t d2, int64_t half, int64_t n)
{
    const int64_t pair = K::inter ? 2 : 1, second = K::inter ? 1 : half;
    WK_GRID_LOOP(e, n)
    {
        int64_t r = e / half, i = e - r * half;
        int64_t r2 = r / d2, i2 = r - r2 * d2, i0 = r2 / d1, i1 = r2 - i0 * d1;
        int64_t t = K::thd ? i1 : i2;
        const T *xr = x + i0 * xs0 + i1 * xs1 + i2 * xs2 + i * pair * xs3;
        typedef typename wk_compute<T>::type C;
        C a = wk_ld(xr), b = wk_ld(xr + second * xs3);
        C c = wk_ld(cosv + t * cs0 + i * cs1), s = wk_ld(sinv + t * ss0 + i * ss1);
        T *o = out + r * 2 * half + i * pair;
        wk_st(o, a * c - b * s);
        wk_st(o + second, a * s + b * c);
    }
}

template <class K, class T, int> __device__ __forceinline__ void rope_run(const wk_gpu_rope_args &p)
{
    rope_body<K>((const T *)p.x, p.xs0, p.xs1, p.xs2, p.xs3, (const T *)p.cosv, p.cs0, p.cs1,
              (const T *)p.sinv, p.ss0, p.ss1, (T *)p.out, p.d1, p.d2, p.half, p.n);
}

WK_ROPE_KERNELS(WK_DEFINE_KERNELS)
