/* matmul_q.cu: the quantized mat-vec kernel (decode: up to MQ_MT rows of x a block): each logical warp owns one row of
 * w, its lanes read consecutive 8-element runs of the row's blocks (the warp's reads coalesce; w is read once), decode
 * them in registers (core/quant_blocks.h's wk_q_value8, the CPU's decoder) and dot them with x staged in shared
 * memory as f32; f32 sums, one warp reduction a row of x at the end. */
#include "common.cuh"
#include "matmul_q.h"
#include "quant.cuh"

/* acc[m] += v . xs[m * kn + 8 * pc ..] for the mt rows of x staged in xs (rows kn apart, 16-byte aligned). */
__device__ __forceinline__ void mq_dot(float (&acc)[MQ_MT], const float (&v)[8], const float *xs, int kn, int pc,
                                       int mt)
{
#pragma unroll
    for (int m = 0; m < MQ_MT; m++)
        if (m < mt) {
            const float4 a = *(const float4 *)(xs + m * kn + 8 * pc), b = *(const float4 *)(xs + m * kn + 8 * pc + 4);
            float s = acc[m];
            s = fmaf(v[0], a.x, s);
            s = fmaf(v[1], a.y, s);
            s = fmaf(v[2], a.z, s);
            s = fmaf(v[3], a.w, s);
            s = fmaf(v[4], b.x, s);
            s = fmaf(v[5], b.y, s);
            s = fmaf(v[6], b.z, s);
            acc[m] = fmaf(v[7], b.w, s);
        }
}

/* Grid (ceil(N / rows a block), row tiles of x): block y covers x's rows m0 = y * MQ_MT, + gridDim.y * MQ_MT, ... */
template <class QT, class T, int LW> __device__ __forceinline__ void matmul_q_gemv_run(const wk_gpu_matmul_q_args &p)
{
    extern __shared__ float4 mq_smem[]; /* mt rows of kn floats */
    float *xs = (float *)mq_smem;
    constexpr int qi = QT::qi, bs = qi <= WK_QI_Q8_0 || qi == WK_QI_IQ4_NL ? WK_QK : WK_QK_K;
    const int bb = wk_qi_bytes(qi), lane = (int)threadIdx.x % LW;
    const T *x = (const T *)p.x;
    const int64_t row = (int64_t)blockIdx.x * (blockDim.x / LW) + threadIdx.x / LW;
    const bool live = row < p.N; /* a warp past N still takes part in the barriers and reductions */
    const uint8_t *wr = (const uint8_t *)p.w + (live ? row : 0) * p.row_bytes;
    for (int64_t m0 = (int64_t)blockIdx.y * MQ_MT; m0 < p.M; m0 += (int64_t)gridDim.y * MQ_MT) {
        const int mt = (int)(p.M - m0 < MQ_MT ? p.M - m0 : MQ_MT);
        float acc[MQ_MT];
#pragma unroll
        for (int m = 0; m < MQ_MT; m++)
            acc[m] = 0.0f;
        for (int64_t k0 = 0; k0 < p.K; k0 += p.kc) {
            const int kn = (int)(p.K - k0 < p.kc ? p.K - k0 : p.kc);
            __syncthreads(); /* xs may still be read for the previous pass */
            for (int m = 0; m < mt; m++)
                for (int k = (int)threadIdx.x; k < kn; k += (int)blockDim.x)
                    xs[m * kn + k] = wk_ld_ro(x + (m0 + m) * p.K + k0 + k);
            __syncthreads();
            if (live)
#pragma unroll 2
                for (int pc = lane; pc < kn / 8; pc += LW) {
                    const int64_t k = k0 + 8 * pc;
                    float v[8];
                    wk_q_value8(qi, wr + (k / bs) * bb, (int)(k % bs), v);
                    mq_dot(acc, v, xs, kn, pc, mt);
                }
        }
#pragma unroll
        for (int m = 0; m < MQ_MT; m++)
            if (m < mt) { /* mt is the block's: every thread reduces */
                float s = wk_group_reduce<LW>(acc[m], wk_op_sum(), LW);
                if (live && lane == 0)
                    wk_st((T *)p.out + (m0 + m) * p.N + row, s);
            }
    }
}

WK_MATMUL_Q_KERNELS(WK_DEFINE_KERNELS)
