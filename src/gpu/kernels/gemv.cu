/* gemv.cu: the matrix-vector kernel (kernels/gemv.h): a group of lpr lanes owns R rows of w; each lane reads
 * 16-byte vectors of them, lpr vectors apart (a group's reads coalesce, w is read once), x's matching vectors
 * through L1 (every group reads them), f32 products summed per lane, then across the group; wk_linear's norm and
 * epilogue around it where p.epi asks (linear.cuh). */
#include "common.cuh"
#include "gemv.h"
#include "linear.cuh"

/* A 16-byte vector as f32: 8 values of a 2-byte type, or 4 floats (the rest 0). */
template <class T> __device__ __forceinline__ void gv_unpack(const wk_w16 &a, float (&v)[8])
{
    if constexpr (sizeof(T) == 4) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            v[i] = wk_bits_f32(a.w[i]);
            v[4 + i] = 0.0f;
        }
    } else {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const T t = wk_w16_get<T>(a, i);
            v[i] = wk_ld(&t);
        }
    }
}

/* Grid: lin_groups(N, R) groups of p.lpr lanes, GV_BLOCK threads a block. NORM: x's vectors are multiplied by the
 * norm's (loaded beside them) and their squares summed; the group's lanes cover x once, so the group's sum is x's. */
template <class T, int R, int LW, bool NORM> __device__ __forceinline__ void gemv_body(const wk_gpu_gemv_args &p)
{
    constexpr int E = 16 / (int)sizeof(T); /* elements a vector */
    const int lpr = (int)p.lpr, gl = (int)threadIdx.x % lpr;
    const int64_t grp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / lpr, vecs = p.K / E;
    const T *x = (const T *)p.x, *nw = (const T *)p.epi.norm, *wr[R];
    float acc[R], ss = 0.0f;
    const lin_ops<R> ops = lin_load<T, R>(p.epi, p.N, 0, grp);
#pragma unroll
    for (int r = 0; r < R; r++) { /* rows past N read row N-1 (every lane takes part in the reductions) */
        const int64_t row = lin_row(p.epi, grp, r, R);
        wr[r] = (const T *)p.w + (row < p.N ? row : p.N - 1) * p.ldw;
        acc[r] = 0.0f;
    }
    /* U vectors of each row in flight a lane before any is used: a short matrix (a decode step's 2048 x 2048) is
     * read in one or two round trips to memory instead of one per vector. */
    constexpr int U = 8 / R;
    for (int64_t c0 = gl; c0 < vecs; c0 += U * lpr) {
        wk_w16 wa[R][U], xa[U], na[NORM ? U : 1];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t c = c0 + u * lpr < vecs ? c0 + u * lpr : c0; /* past the row: a vector it has, unused */
            xa[u] = wk_ldg((const wk_w16 *)(x + c * E));
            if constexpr (NORM)
                na[u] = wk_ldg((const wk_w16 *)(nw + c * E));
#pragma unroll
            for (int r = 0; r < R; r++)
                wa[r][u] = wk_ldg((const wk_w16 *)(wr[r] + c * E));
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (c0 + u * lpr >= vecs)
                continue;
            float xv[8];
            gv_unpack<T>(xa[u], xv);
            if constexpr (NORM) {
                float nv[8];
                gv_unpack<T>(na[u], nv);
#pragma unroll
                for (int t = 0; t < E; t++) {
                    ss = fmaf(xv[t], xv[t], ss);
                    xv[t] *= nv[t];
                }
            }
#pragma unroll
            for (int r = 0; r < R; r++) {
                float wv[8];
                gv_unpack<T>(wa[r][u], wv);
#pragma unroll
                for (int t = 0; t < E; t++)
                    acc[r] = fmaf(wv[t], xv[t], acc[r]);
            }
        }
    }
    const float scale = NORM ? lin_norm_scale(p.epi, wk_group_reduce<LW>(ss, wk_op_sum(), lpr), p.K) : 1.0f;
    float y[R];
#pragma unroll
    for (int r = 0; r < R; r++)
        y[r] = wk_group_reduce<LW>(acc[r], wk_op_sum(), lpr) * scale;
    if (gl == 0)
        lin_store<T, R>(p.epi, (T *)p.out, p.N, 0, grp, y, ops);
}

template <class T, int R, int LW> __device__ __forceinline__ void gemv_run(const wk_gpu_gemv_args &p)
{
    if (p.epi.norm)
        gemv_body<T, R, LW, true>(p);
    else
        gemv_body<T, R, LW, false>(p);
}

WK_GEMV_KERNELS(WK_DEFINE_KERNELS)
