/* rand.cu: rand_uniform / rand_normal kernels: Philox4x32-10 with exactly the recipe of src/cpu/rand.c, so uniform
 * values are bit-identical to the CPU's and normals agree to the math library's accuracy. One thread per block. */
#include "common.cuh"
#include "rand.h"

#define RAND_PI 3.141592653589793

/* Philox4x32-10 and the uniforms of its words are core/numerics.h's, shared with the CPU. */

/* The values of one Philox block (4 for f32/f16/bf16, 2 for f64), as the CPU computes them. a, b: lo/hi or
 * mean/std. Products go through wk_mul_rn: the CPU rounds the product and the sum separately (no FMA). */
template <bool NORMAL> __device__ __forceinline__ void rand_values(const uint32_t w[4], double a, double b, float v[4])
{
    if (!NORMAL) {
        float af = (float)a, bf = (float)b;
#pragma unroll
        for (int e = 0; e < 4; e++)
            v[e] = af + wk_mul_rn(bf - af, wk_philox_u24(w[e]));
    } else {
#pragma unroll
        for (int k = 0; k < 2; k++) {
            double u1 = (double)((w[2 * k] >> 8) + 1) * 0x1p-24, u2 = (double)wk_philox_u24(w[2 * k + 1]);
            double r = sqrt(-2.0 * log(u1)), t = 2.0 * RAND_PI * u2;
            v[2 * k] = (float)(a + wk_mul_rn(b, r * cos(t)));
            v[2 * k + 1] = (float)(a + wk_mul_rn(b, r * sin(t)));
        }
    }
}

template <bool NORMAL> __device__ __forceinline__ void rand_values(const uint32_t w[4], double a, double b, double v[2])
{
    if (!NORMAL) {
        v[0] = a + wk_mul_rn(b - a, wk_philox_u53(w[0], w[1]));
        v[1] = a + wk_mul_rn(b - a, wk_philox_u53(w[2], w[3]));
    } else {
        double u1 = 1.0 - wk_philox_u53(w[0], w[1]), u2 = wk_philox_u53(w[2], w[3]);
        double r = sqrt(-2.0 * log(u1)), t = 2.0 * RAND_PI * u2;
        v[0] = a + wk_mul_rn(b, r * cos(t));
        v[1] = a + wk_mul_rn(b, r * sin(t));
    }
}

template <class T, int PER> struct alignas(PER * sizeof(T)) rand_vec {
    T v[PER];
};

/* dst[0, n) contiguous; one Philox block per thread and step, stored as one 8- or 16-byte word where aligned. */
template <class T, bool NORMAL> __device__ void rand_body(T *dst, int64_t n, uint64_t seed, double a, double b)
{
    typedef typename wk_compute<T>::type C; /* float for f16/bf16/f32, double for f64 */
    const int PER = WK_RAND_PER_BLOCK(sizeof(C) == 8);
    typedef rand_vec<T, PER> vec;
    int64_t nblocks = (n + PER - 1) / PER;
    bool aligned = ((uintptr_t)dst % sizeof(vec)) == 0;
    WK_GRID_LOOP(blk, nblocks)
    {
        uint32_t w[4];
        wk_philox4x32_10((uint64_t)blk, seed, w);
        C v[PER];
        rand_values<NORMAL>(w, a, b, v);
        vec o;
#pragma unroll
        for (int e = 0; e < PER; e++)
            wk_st(&o.v[e], v[e]);
        int64_t i0 = blk * PER;
        if (aligned && i0 + PER <= n) {
            *reinterpret_cast<vec *>(dst + i0) = o;
        } else {
            for (int e = 0; e < PER; e++)
                if (i0 + e < n)
                    dst[i0 + e] = o.v[e];
        }
    }
}

/* ---- entry points: rand_uniform_<dtype> and rand_normal_<dtype> (rand.h) */

template <class T, class, int> __device__ __forceinline__ void rand_uniform_run(const wk_gpu_rand_args &p)
{
    rand_body<T, false>((T *)p.dst, p.n, p.seed, p.a, p.b);
}
template <class T, class, int> __device__ __forceinline__ void rand_normal_run(const wk_gpu_rand_args &p)
{
    rand_body<T, true>((T *)p.dst, p.n, p.seed, p.a, p.b);
}

WK_RAND_KERNELS(WK_DEFINE_KERNELS)
