/* matmul_q.cu: the quantized mat-vec kernels in float. gemv (every block type, MQ_MT rows of x a block): each logical
 * warp owns one row of w, its lanes read consecutive 8-element runs of the row's blocks (the warp's reads coalesce; w
 * is read once), decode them in registers (core/quant_blocks.h's wk_q_value8, the CPU's decoder) and dot them with x
 * staged in shared memory as f32; f32 sums, one warp reduction a row of x at the end. vec (below): the exact path of
 * the types that matmul_q_dot.cu multiplies in integers (WICK_GPU_MATMUL_Q=f32). */
#include "matmul_q.cuh"

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

/* ---------------------------------------------------------------- vec: M <= 1, 4 or 8
 * A group of lpr lanes owns MQV_ROWS rows of w; lane l of it takes blocks l, l + lpr, ... of those rows. A block's
 * bytes come as the aligned 16-byte chunks that cover it (read-only path; the warp's lanes take adjacent blocks, so
 * its chunks cover a contiguous span of each row: every byte of w is fetched once), shifted in registers so that
 * the block starts at byte 0, then decoded 8 elements at a time by wk_q_value8 at constant offsets (registers, no
 * local memory). x's 8 values per row of x come as 16-byte loads through L1, once for all MQV_ROWS rows. */
/* Units u0 + k * lpr (k < UN) of the R rows at wr into blks; one past the row's `units` loads unit u0 instead (the
 * lane's own: inside the row; unused). I: the kernel's index type. */
template <int QI, int UN, int R, class I>
__device__ __forceinline__ void mqv_load_units(const uint8_t *const (&wr)[R], I u0, int lpr, I units,
                                               uint32_t (&blks)[UN][R][mqv_unit<QI>::NW])
{
#pragma unroll
    for (int k = 0; k < UN; k++)
#pragma unroll
        for (int r = 0; r < R; r++)
            mqv_load<QI>(wr[r] + (int64_t)(u0 + k * lpr < units ? u0 + k * lpr : u0) * mqv_unit<QI>::UB, blks[k][r]);
}

/* acc[r][m] += unit u of row r (its words blk[r]) . x's row m (rows K apart; rows past mt count as zeros), in f32. */
template <int QI, int R, int MT, class T>
__device__ __forceinline__ void mqv_unit_f32(const uint32_t (&blk)[R][mqv_unit<QI>::NW], const T *x, int64_t K,
                                             int64_t u, int mt, float (&acc)[R][MT])
{
#pragma unroll
    for (int j0 = 0; j0 < mqv_unit<QI>::UE; j0 += 8) {
        float xv[MT][8];
#pragma unroll
        for (int m = 0; m < MT; m++)
            if (m < mt)
                mqv_x8(x + m * K + u * mqv_unit<QI>::UE + j0, xv[m]);
            else
#pragma unroll
                for (int t = 0; t < 8; t++)
                    xv[m][t] = 0.0f;
#pragma unroll
        for (int r = 0; r < R; r++) {
            float v[8];
            wk_q_value8(QI, (const uint8_t *)blk[r], j0, v);
#pragma unroll
            for (int m = 0; m < MT; m++)
#pragma unroll
                for (int t = 0; t < 8; t++)
                    acc[r][m] = fmaf(v[t], xv[m][t], acc[r][m]);
        }
    }
}

/* Grid: ceil(N / MQV_ROWS) groups of lpr lanes, MQ_BLOCK threads a block; p.M <= MT. */
template <class QT, class T, int LW, int MT> __device__ __forceinline__ void mqv_run(const wk_gpu_matmul_q_args &p)
{
    constexpr int qi = QT::qi, R = MQV_ROWS(qi, MT);
    typedef mqv_unit<qi> U;
    const int lpr = (int)p.lpr, gl = (int)threadIdx.x % lpr, mt = (int)p.M;
    const int64_t row0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / lpr * R, units = p.K / U::UE;
    const T *x = (const T *)p.x;
    const uint8_t *wr[R];
    float acc[R][MT];
    mq_rows(p, row0, wr, acc);
    /* Q4_0 at one row of x: two units of every row of w in flight a lane, so a decode step's short matrices are
     * read in half the round trips to memory (Q8_0 measured 10-20% slower so). */
    constexpr int UN = qi == WK_QI_Q4_0 && MT == 1 ? 2 : 1;
    for (int64_t u0 = gl; u0 < units; u0 += UN * lpr) {
        uint32_t blks[UN][R][U::NW];
        mqv_load_units<qi>(wr, u0, lpr, units, blks);
#pragma unroll
        for (int k = 0; k < UN; k++)
            if (u0 + k * lpr < units)
                mqv_unit_f32<qi>(blks[k], x, p.K, u0 + k * lpr, mt, acc);
    }
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int m = 0; m < MT; m++) {
            const float s = wk_group_reduce<LW>(acc[r][m], wk_op_sum(), lpr);
            if (gl == 0 && m < mt && row0 + r < p.N)
                wk_st((T *)p.out + m * p.N + row0 + r, s);
        }
}

template <class QT, class T, int LW> __device__ __forceinline__ void matmul_q_vec1_run(const wk_gpu_matmul_q_args &p)
{
    mqv_run<QT, T, LW, 1>(p);
}
template <class QT, class T, int LW> __device__ __forceinline__ void matmul_q_vec4_run(const wk_gpu_matmul_q_args &p)
{
    mqv_run<QT, T, LW, 4>(p);
}
template <class QT, class T, int LW> __device__ __forceinline__ void matmul_q_vec8_run(const wk_gpu_matmul_q_args &p)
{
    mqv_run<QT, T, LW, 8>(p);
}

WK_MATMUL_Q_KERNELS(WK_DEFINE_KERNELS)
