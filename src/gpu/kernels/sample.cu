/* sample.cu: kernels of sampling (wick.h's wk_sample, wk_multinomial), a block per row: penalties once per distinct
 * previous id, the pick among sorted candidates and multinomial draws. Sums follow core/numerics.h's blocked
 * order (a thread per block of WK_CDF_BLOCK entries, added left to right), so the CPU's results come out bit for
 * bit. Nothing depends on the warp width (shared atomics and barriers only). */
#include "common.cuh"
#include "sample.h"

__device__ void sample_penalize_body(const wk_gpu_sample_args &p)
{
    for (int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const double *q = p.params + r * SAMPLE_NPARAM;
        float rep = (float)q[4], pres = (float)q[5];
        for (int64_t j = threadIdx.x; j < p.np; j += blockDim.x) {
            int64_t t = p.prev64 ? ((const int64_t *)p.prev)[r * p.np + j] : ((const int32_t *)p.prev)[r * p.np + j];
            if (t < 0 || t >= p.n)
                continue;
            bool first = true; /* the first occurrence applies it */
            for (int64_t i = 0; i < j && first; i++)
                first = (p.prev64 ? ((const int64_t *)p.prev)[r * p.np + i] : ((const int32_t *)p.prev)[r * p.np + i]) != t;
            if (!first)
                continue;
            float l = p.z[r * p.n + t];
            l = l > 0 ? l / rep : l * rep;
            p.z[r * p.n + t] = l - pres;
        }
    }
}

/* P[0..nb]: the running totals of the blocks of w(j), j < n (P[0] = 0); returns P[nb], the whole sum. */
template <class W> __device__ double sample_prefix(const W &w, int64_t n, double *P)
{
    int64_t nb = (n + WK_CDF_BLOCK - 1) / WK_CDF_BLOCK;
    for (int64_t b = threadIdx.x; b < nb; b += blockDim.x) {
        double s = 0.0;
        int64_t end = (b + 1) * WK_CDF_BLOCK < n ? (b + 1) * WK_CDF_BLOCK : n;
        for (int64_t j = b * WK_CDF_BLOCK; j < end; j++)
            s += w(j);
        P[b + 1] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double before = 0.0;
        P[0] = 0.0;
        for (int64_t b = 0; b < nb; b++) {
            before = before + P[b + 1];
            P[b + 1] = before;
        }
    }
    __syncthreads();
    double total = P[nb];
    __syncthreads();
    return total;
}

/* Over j < n with C_j the blocked cumulative sum: the first j with C_j > target (strict) or >= target, the first
 * j >= 1 with w(j) < below, each ~0 when none; and the last j with w(j) > 0 (0 when none). */
struct sample_found { unsigned long long first, low, last_pos; };

template <class W>
__device__ sample_found sample_scan(const W &w, int64_t n, const double *P, double target, bool strict, double below)
{
    __shared__ unsigned long long first, low, last_pos;
    if (threadIdx.x == 0) {
        first = ~0ull;
        low = ~0ull;
        last_pos = 0;
    }
    __syncthreads();
    int64_t nb = (n + WK_CDF_BLOCK - 1) / WK_CDF_BLOCK;
    for (int64_t b = threadIdx.x; b < nb; b += blockDim.x) {
        double s = 0.0;
        int64_t end = (b + 1) * WK_CDF_BLOCK < n ? (b + 1) * WK_CDF_BLOCK : n;
        unsigned long long f = ~0ull, lo = ~0ull, lp = ~0ull;
        for (int64_t j = b * WK_CDF_BLOCK; j < end; j++) {
            double wj = w(j);
            s += wj;
            double C = P[b] + s;
            if (f == ~0ull && (strict ? C > target : C >= target))
                f = (unsigned long long)j;
            if (lo == ~0ull && j >= 1 && wj < below)
                lo = (unsigned long long)j;
            if (wj > 0)
                lp = (unsigned long long)j;
        }
        atomicMin(&first, f);
        atomicMin(&low, lo);
        if (lp != ~0ull)
            atomicMax(&last_pos, lp);
    }
    __syncthreads();
    sample_found r = {first, low, last_pos};
    __syncthreads();
    return r;
}

/* The pick (wick.h's steps 2 to 6) for each row among its sorted candidates. */
__device__ void sample_pick_body(const wk_gpu_sample_args &p)
{
    for (int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const double *q = p.params + r * SAMPLE_NPARAM;
        const float *c = p.cand + r * p.n;
        float t = (float)q[0];
        if (c[0] != c[0] || t == 0) {
            if (threadIdx.x == 0)
                p.out[r] = c[0] != c[0] ? -1 : p.cand_ids[r * p.n];
            continue;
        }
        int64_t kr = (int64_t)q[1];
        if (kr <= 0 || kr > p.n)
            kr = p.n;
        double *P = p.prefix + r * (p.nb + 1);
        auto w = [&](int64_t j) { return wk_sample_weight(c[j], c[0], t); };
        double S = sample_prefix(w, kr, P);
        sample_found f = sample_scan(w, kr, P, q[2] * S, false, q[3]);
        int64_t kept = f.first == ~0ull ? kr : (int64_t)f.first + 1;
        if (f.low != ~0ull && (int64_t)f.low < kept)
            kept = (int64_t)f.low;
        uint64_t seed = (uint64_t)q[6] | (uint64_t)q[7] << 32;
        double u = wk_sample_uniform(seed, p.offset, (uint64_t)r);
        double Sk = sample_prefix(w, kept, P);
        sample_found g = sample_scan(w, kept, P, u * Sk, true, 0.0);
        int64_t j = g.first != ~0ull ? (int64_t)g.first : (int64_t)g.last_pos;
        if (threadIdx.x == 0)
            p.out[r] = p.cand_ids[r * p.n + j];
        __syncthreads();
    }
}

/* multinomial: the weights of row r are probs' (with replacement) or w's, zeroed as they are drawn. */
template <class T> __device__ void multinomial_body(const wk_gpu_sample_args &p)
{
    __shared__ int bad;
    for (int64_t r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const T *pr = (const T *)p.probs + r * p.n;
        double *wr = p.w ? p.w + r * p.n : NULL, *P = p.prefix + r * (p.nb + 1);
        if (threadIdx.x == 0)
            bad = 0;
        __syncthreads();
        for (int64_t i = threadIdx.x; i < p.n; i += blockDim.x) {
            double v = (double)wk_ld(pr + i);
            if (!(v >= 0) || isinf(v))
                bad = 1;
            if (wr)
                wr[i] = v;
        }
        __syncthreads();
        auto w = [&](int64_t j) { return wr ? wr[j] : (double)wk_ld(pr + j); };
        double S = 0;
        for (int64_t j = 0; j < p.samples; j++) {
            if (j == 0 || !p.replacement)
                S = sample_prefix(w, p.n, P);
            if (bad || !(S > 0)) {
                if (threadIdx.x == 0)
                    p.out[r * p.samples + j] = -1;
                continue;
            }
            double u = wk_sample_uniform(p.seed, (uint64_t)j, (uint64_t)r);
            sample_found g = sample_scan(w, p.n, P, u * S, true, 0.0);
            int64_t pick = g.first != ~0ull ? (int64_t)g.first : (int64_t)g.last_pos;
            if (threadIdx.x == 0) {
                p.out[r * p.samples + j] = pick;
                if (wr)
                    wr[pick] = 0;
            }
            __syncthreads();
        }
        __syncthreads();
    }
}

template <class, class, int> __device__ __forceinline__ void sample_penalize_run(const wk_gpu_sample_args &p)
{
    sample_penalize_body(p);
}
template <class, class, int> __device__ __forceinline__ void sample_pick_run(const wk_gpu_sample_args &p)
{
    sample_pick_body(p);
}
template <class T, class, int> __device__ __forceinline__ void multinomial_run(const wk_gpu_sample_args &p)
{
    multinomial_body<T>(p);
}

WK_SAMPLE_KERNELS(WK_DEFINE_KERNELS)
