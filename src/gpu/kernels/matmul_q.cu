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

/* ---------------------------------------------------------------- vec: M <= 1, 4 or 8
 * A group of lpr lanes owns MQV_ROWS rows of w; lane l of it takes blocks l, l + lpr, ... of those rows. A block's
 * bytes come as the aligned 16-byte chunks that cover it (read-only path; the warp's lanes take adjacent blocks, so
 * its chunks cover a contiguous span of each row: every byte of w is fetched once), shifted in registers so that
 * the block starts at byte 0, then decoded 8 elements at a time by wk_q_value8 at constant offsets (registers, no
 * local memory). x's 8 values per row of x come as 16-byte loads through L1, once for all MQV_ROWS rows. */
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
#pragma unroll
    for (int r = 0; r < R; r++) { /* rows past N read row N-1 (every lane takes part in the reductions) */
        wr[r] = (const uint8_t *)p.w + (row0 + r < p.N ? row0 + r : p.N - 1) * p.row_bytes;
#pragma unroll
        for (int m = 0; m < MT; m++)
            acc[r][m] = 0.0f;
    }
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

/* ---------------------------------------------------------------- dot: the vec types at one row of x
 * Each block first rounds x to 8-bit blocks of 32 in shared memory (d = amax / 127, q = round(x / d), ties to even:
 * the CPU's rule, cpu/matmul_q_dot.c, whose K types round blocks of 256 instead), each block's d and d * sum(q)
 * beside. A lane's unit of w is then integer dot products of 4 bytes (wk_dp4a) within each 32 values (16 for Q6_K,
 * whose scales cover 16) and a few float operations, where the float path decodes and multiplies every value: the
 * mat-vec is bound by memory, not by instructions. A block of x holding NaN or infinity keeps d = NaN, and the units
 * it meets are done in float from x itself, as the vec kernel does them. */

/* x (K values, 16-byte aligned) as nb = K / 32 blocks: xq their q (8 words a block), xds their (d, d * sum q); four
 * threads a block, 8 values each; every thread of the block takes part (the shuffles), then a barrier. */
template <class T> __device__ __forceinline__ void mqd_stage(const T *__restrict__ x, int nb, uint32_t *xq, float2 *xds)
{
    const int n = nb * 4;
    for (int base = 0; base < n; base += (int)blockDim.x) {
        const int i = base + (int)threadIdx.x;
        float v[8];
        if (i < n)
            mqv_x8(x + (int64_t)i * 8, v);
        else
#pragma unroll
            for (int t = 0; t < 8; t++)
                v[t] = 0.0f;
        float a = 0.0f;
        int bad = 0;
#pragma unroll
        for (int t = 0; t < 8; t++) {
            const float m = fabsf(v[t]);
            bad |= !(m <= 3.402823466e38f);
            a = fmaxf(a, m);
        }
        a = fmaxf(a, wk_shfl_xor(a, 1));
        a = fmaxf(a, wk_shfl_xor(a, 2));
        bad |= wk_shfl_xor(bad, 1);
        bad |= wk_shfl_xor(bad, 2);
        /* blocks whose largest magnitude is under 2^-100 are scaled by 2^100 first (127 / a stays finite) */
        const float sc = a < 0x1p-100f ? 0x1p100f : 1.0f, id = a > 0.0f ? 127.0f / (a * sc) : 0.0f;
        uint32_t w[2] = {0, 0};
        int sum = 0;
#pragma unroll
        for (int t = 0; t < 8; t++) {
            const int q = bad ? 0 : __float2int_rn(v[t] * sc * id);
            sum += q;
            w[t >> 2] |= (uint32_t)(q & 255) << (8 * (t & 3));
        }
        sum += wk_shfl_xor(sum, 1);
        sum += wk_shfl_xor(sum, 2);
        if (i < n) {
            xq[2 * i] = w[0];
            xq[2 * i + 1] = w[1];
            if ((i & 3) == 0) {
                const float d = a / 127.0f;
                xds[i >> 2] = bad ? make_float2(__int_as_float(0x7fc00000), 0.0f) : make_float2(d, d * (float)sum);
            }
        }
    }
    __syncthreads();
}

/* Sum of the 4 * n byte products of words w[0 .. n) and x's words xv[0 .. n) (w's bytes signed). */
template <int n> __device__ __forceinline__ int mqd_dot(const uint32_t *w, const uint32_t *xv)
{
    int s = 0;
#pragma unroll
    for (int i = 0; i < n; i++)
        s = wk_dp4a((int)w[i], (int)xv[i], s);
    return s;
}

/* Whether x's blocks under unit u are finite (their d not NaN). */
template <int QI> __device__ __forceinline__ bool mqd_finite(const float2 *xds, int u)
{
    constexpr int XB = mqv_unit<QI>::UE / WK_QK;
    bool ok = true;
#pragma unroll
    for (int b = 0; b < XB; b++)
        ok &= xds[XB * u + b].x == xds[XB * u + b].x;
    return ok;
}

/* acc[r] += unit u of row r (its words from mqv_load; the value of element j is d * (q_j - o) for Q4_0 (o = 8) and
 * Q8_0 (o = 0), d * sc_s * q_j - dmin * m_s for Q4_K (sub-blocks s of 32), d * sc_g * (q_j - 32) for Q6_K (groups g
 * of 16)) . x's blocks (q as words in xq, (d, d * sum q) in xds), each block's sum in integers. */
template <int QI, int R>
__device__ __forceinline__ void mqd_unit(const uint32_t (&blk)[R][mqv_unit<QI>::NW], const uint32_t *xq,
                                         const float2 *xds, int u, float (&acc)[R][1])
{
    constexpr int XB = mqv_unit<QI>::UE / WK_QK;
    float a[R], b[R];
#pragma unroll
    for (int r = 0; r < R; r++)
        a[r] = b[r] = 0.0f;
#pragma unroll
    for (int s = 0; s < XB; s++) {
        const float2 ds = xds[XB * u + s];
        const uint4 x0 = ((const uint4 *)xq)[2 * (XB * u + s)], x1 = ((const uint4 *)xq)[2 * (XB * u + s) + 1];
        const uint32_t xv[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
#pragma unroll
        for (int r = 0; r < R; r++) {
            uint32_t q[8];
            if constexpr (QI == WK_QI_Q4_0 || QI == WK_QI_Q8_0) { /* the quants start at byte 2 */
#pragma unroll
                for (int i = 0; i < 8; i++)
                    q[i] = QI == WK_QI_Q8_0 ? (blk[r][i] >> 16) | (blk[r][i + 1] << 16)
                                            : (((blk[r][i & 3] >> 16) | (blk[r][(i & 3) + 1] << 16)) >> (i & 4)) &
                                                  0x0f0f0f0fu; /* byte j: values j (low nibble), j + 16 (high) */
                a[r] = fmaf(ds.x, (float)mqd_dot<8>(q, xv), a[r]);
                b[r] += ds.y;
            } else if constexpr (QI == WK_QI_Q4_K) { /* 64 values a 32-byte run: the first 32 low, the next high */
#pragma unroll
                for (int i = 0; i < 8; i++)
                    q[i] = (blk[r][4 + 8 * (s / 2) + i] >> (4 * (s & 1))) & 0x0f0f0f0fu;
                unsigned sc, m; /* the block's bytes at constant offsets: registers, as wk_q_value8's */
                wk_q_scale_min_k4((const uint8_t *)blk[r] + 4, s, &sc, &m);
                a[r] = fmaf(ds.x, (float)((int)sc * mqd_dot<8>(q, xv)), a[r]);
                b[r] = fmaf(ds.y, (float)m, b[r]);
            } else { /* Q6_K: halves of 128; block s = 4h + t takes ql's bytes 64h + 32 (t & 1) .. (nibble t >> 1) and
                      * qh's 128 + 32h .. (bits 2t, 2t + 1); q - 32 as signed bytes without a borrow between them */
                const int h = s / 4, t = s % 4;
#pragma unroll
                for (int i = 0; i < 8; i++) {
                    const uint32_t v = ((blk[r][16 * h + 8 * (t & 1) + i] >> (4 * (t >> 1))) & 0x0f0f0f0fu) |
                                       (((blk[r][32 + 8 * h + i] >> (2 * t)) & 0x03030303u) << 4);
                    q[i] = ((v | 0x80808080u) - 0x20202020u) ^ 0x80808080u;
                }
                const int8_t *sc = (const int8_t *)blk[r] + 192 + 2 * s; /* the groups' scales */
                const int sc0 = sc[0], sc1 = sc[1];
                a[r] = fmaf(ds.x, (float)(sc0 * mqd_dot<4>(q, xv) + sc1 * mqd_dot<4>(q + 4, xv + 4)), a[r]);
            }
        }
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
        if constexpr (QI == WK_QI_Q4_0 || QI == WK_QI_Q8_0) {
            const float d = wk_f16_bits_to_f32((uint16_t)(blk[r][0] & 0xffffu));
            acc[r][0] += QI == WK_QI_Q4_0 ? d * (a[r] - 8.0f * b[r]) : d * a[r];
        } else if constexpr (QI == WK_QI_Q4_K) {
            acc[r][0] += wk_f16_bits_to_f32((uint16_t)(blk[r][0] & 0xffffu)) * a[r] -
                         wk_f16_bits_to_f32((uint16_t)(blk[r][0] >> 16)) * b[r];
        } else {
            acc[r][0] += wk_f16_bits_to_f32((uint16_t)(blk[r][52] & 0xffffu)) * a[r];
        }
    }
}

/* Grid: ceil(N / MQD_ROWS) groups of lpr lanes, MQ_BLOCK threads a block; p.M == 1; shared memory K + K / 32 * 8
 * bytes (MQD_MAX_K at the most). Q4_0: two units of every row in flight a lane, as the vec kernel's. */
template <class QT, class T, int LW> __device__ __forceinline__ void matmul_q_dot1_run(const wk_gpu_matmul_q_args &p)
{
    constexpr int qi = QT::qi, R = MQD_ROWS(qi), UN = qi == WK_QI_Q4_0 ? 2 : 1; /* Q4_0's units are the smallest */
    typedef mqv_unit<qi> U;
    extern __shared__ float4 mq_smem[];
    const int nb = (int)(p.K / WK_QK), units = (int)(p.K / U::UE), lpr = (int)p.lpr, gl = (int)threadIdx.x % lpr;
    uint32_t *xq = (uint32_t *)mq_smem;
    float2 *xds = (float2 *)(xq + 8 * nb);
    const T *x = (const T *)p.x;
    mqd_stage(x, nb, xq, xds);
    const int64_t row0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / lpr * R;
    const uint8_t *wr[R];
    float acc[R][1];
#pragma unroll
    for (int r = 0; r < R; r++) { /* rows past N read row N-1 (every lane takes part in the reductions) */
        wr[r] = (const uint8_t *)p.w + (row0 + r < p.N ? row0 + r : p.N - 1) * p.row_bytes;
        acc[r][0] = 0.0f;
    }
    for (int u0 = gl; u0 < units; u0 += UN * lpr) {
        uint32_t blks[UN][R][U::NW];
        mqv_load_units<qi>(wr, u0, lpr, units, blks);
#pragma unroll
        for (int k = 0; k < UN; k++) {
            const int u = u0 + k * lpr;
            if (u >= units)
                continue;
            if (mqd_finite<qi>(xds, u))
                mqd_unit<qi>(blks[k], xq, xds, u, acc);
            else /* x's block holds NaN or infinity: in float, as the vec kernel */
                mqv_unit_f32<qi>(blks[k], x, p.K, u, 1, acc);
        }
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
        const float s = wk_group_reduce<LW>(acc[r][0], wk_op_sum(), lpr);
        if (gl == 0 && row0 + r < p.N)
            wk_st((T *)p.out + row0 + r, s);
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
