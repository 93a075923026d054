/* matmul_q.cuh: what the quantized matmul's kernels share (kernels/matmul_q.cu, kernels/matmul_q_dot.cu): a block of
 * w loaded as words, and x's 8 values as f32. */
#ifndef WK_GPU_KERNELS_MATMUL_Q_CUH
#define WK_GPU_KERNELS_MATMUL_Q_CUH

#include "common.cuh"
#include "matmul_q.h"
#include "quant.cuh"

/* A block of the vec types as registers: UE elements, UB bytes, NW words. */
template <int QI> struct mqv_unit {
    static constexpr int UE = QI <= WK_QI_Q8_0 ? WK_QK : WK_QK_K; /* elements of a block */
    static constexpr int UB = QI == WK_QI_Q4_0 ? 18 : QI == WK_QI_Q8_0 ? 34 : QI == WK_QI_Q4_K ? 144 : 210;
    static constexpr bool AL = UB % 16 == 0; /* every block 16-byte aligned (w is: the host checks) */
    static constexpr int NC = AL ? UB / 16 : (UB + 14 + 15) / 16; /* chunks covering a 2-byte aligned block */
    static constexpr int NW = (UB + 3) / 4;
};

/* The block at p (2-byte aligned; 16-byte aligned when AL) as words, its first byte the low byte of blk[0]. Every
 * chunk loaded holds a byte of the block. */
template <int QI> __device__ __forceinline__ void mqv_load(const uint8_t *p, uint32_t (&blk)[mqv_unit<QI>::NW])
{
    typedef mqv_unit<QI> U;
    if constexpr (U::AL) {
#pragma unroll
        for (int c = 0; c < U::NC; c++) {
            const wk_w16 v = wk_ldg((const wk_w16 *)p + c);
#pragma unroll
            for (int i = 0; i < 4; i++)
                blk[4 * c + i] = v.w[i];
        }
    } else {
        const int s = (int)((uintptr_t)p & 15u), q = s >> 2;
        const unsigned r = 8u * (unsigned)(s & 3);
        const wk_w16 *a = (const wk_w16 *)(p - s);
        uint32_t w[4 * U::NC + 4], t[U::NW + 1];
#pragma unroll
        for (int c = 0; c < U::NC; c++) {
            const wk_w16 v = wk_ldg(a + c);
#pragma unroll
            for (int i = 0; i < 4; i++)
                w[4 * c + i] = v.w[i];
        }
#pragma unroll
        for (int i = 4 * U::NC; i < 4 * U::NC + 4; i++)
            w[i] = 0;
#pragma unroll
        for (int i = 0; i <= U::NW; i++) /* word shift by q, as selects: a run-time index would spill */
            t[i] = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
#pragma unroll
        for (int i = 0; i < U::NW; i++)
            blk[i] = (uint32_t)((((uint64_t)t[i + 1] << 32) | t[i]) >> r);
    }
}

/* x[0 .. 8) (16-byte aligned) as f32. */
template <class T> __device__ __forceinline__ void mqv_x8(const T *p, float (&xv)[8])
{
    const wk_w16 a = wk_ldg((const wk_w16 *)p);
    if constexpr (sizeof(T) == 4) {
        const wk_w16 b = wk_ldg((const wk_w16 *)p + 1);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            xv[i] = wk_bits_f32(a.w[i]);
            xv[4 + i] = wk_bits_f32(b.w[i]);
        }
    } else {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const T t = wk_w16_get<T>(a, i);
            xv[i] = wk_ld(&t);
        }
    }
}

/* A group's R rows of w from row0 (rows past N read row N-1: every lane takes part in the reductions), and its
 * accumulators zeroed. */
template <int R, int MT>
__device__ __forceinline__ void mq_rows(const wk_gpu_matmul_q_args &p, int64_t row0, const uint8_t *(&wr)[R],
                                        float (&acc)[R][MT])
{
#pragma unroll
    for (int r = 0; r < R; r++) {
        wr[r] = (const uint8_t *)p.w + (row0 + r < p.N ? row0 + r : p.N - 1) * p.row_bytes;
#pragma unroll
        for (int m = 0; m < MT; m++)
            acc[r][m] = 0.0f;
    }
}

#endif
