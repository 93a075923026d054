/* matmul_q_dot.cu: the quantized mat-vec in integers, for up to 8 rows of x. x is first rounded to 8-bit blocks of 32
 * (mqd_round8): one row by each block of matmul_q_dot_1 into its shared memory, more rows (or a row longer than
 * MQD_MAX_K) once by matmul_q_round into scratch for matmul_q_dot_8. The dot kernels give each group of lpr lanes
 * MQD_ROWS rows of w and each lane slices of those rows: a Q4_0 or Q8_0 block, or a quarter of a Q4_K or Q6_K
 * super-block (64 values), so that a row of 4096 values keeps 64 lanes busy where whole super-blocks would keep 16
 * (matmul_q_dot_8; matmul_q_dot_1's lanes take two slices of a row at once, so half as many: MQD_UN).
 * A slice is a few 16-byte loads of w (Q6_K's 210-byte blocks: aligned words, shifted), its quants unpacked to bytes
 * and dotted with x's by wk_dp4a within each block of 32 (each group of 16 for Q6_K, whose scales cover 16), and a
 * few float operations a block. x's rounded blocks come through L1, once for all the group's rows. A block of x
 * holding NaN or infinity (d = NaN) makes the products it meets NaN; a warp with a NaN product computes those again
 * in float, from x itself and w's values decoded by wk_q_value8: IEEE's rules, as the float kernels. */
#include "linear.cuh"
#include "matmul_q.cuh"
#include "matmul_q_dot.h"

/* Values 8i .. 8i + 8 of x (n8 runs of 8; x 16-byte aligned) rounded to 8 bits in blocks of 32 (d = amax / 127,
 * q = round(x / d), ties to even: the CPU's rule, cpu/matmul_q_dot.c, whose K types round blocks of 256 instead):
 * q into xq's words 2i, 2i + 1, and (d, d * sum q) into xds[i / 4] by the block's first thread. The four threads of
 * a block are adjacent lanes, and every lane takes part (the shuffles), i < n8 or not. A block holding NaN or
 * infinity gets q = 0 and d = NaN (its products are done in float from x). */
template <class T>
__device__ __forceinline__ void mqd_round8(const T *__restrict__ x, int64_t i, int64_t n8, uint32_t *xq, float2 *xds,
                                           const T *__restrict__ nw, float &ss)
{
    float v[8];
    if (i < n8) {
        mqv_x8(x + i * 8, v);
        if (nw) { /* wk_linear's norm: x times its weights, and the squares of x summed */
            float n[8];
            mqv_x8(nw + i * 8, n);
#pragma unroll
            for (int t = 0; t < 8; t++) {
                ss = fmaf(v[t], v[t], ss);
                v[t] *= n[t];
            }
        }
    } else
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
    if (i < n8) {
        xq[2 * i] = w[0];
        xq[2 * i + 1] = w[1];
        if ((i & 3) == 0) {
            const float d = a / 127.0f;
            xds[i >> 2] = bad ? make_float2(__int_as_float(0x7fc00000), 0.0f) : make_float2(d, d * (float)sum);
        }
    }
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

template <class QT, class T, int LW> __device__ __forceinline__ void matmul_q_round_run(const wk_gpu_matmul_q_args &p)
{
    const int64_t n8 = p.M * p.K / 8, i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t *xq = (uint32_t *)p.xq;
    float ss = 0.0f;
    mqd_round8((const T *)p.x, i, n8, xq, (float2 *)(xq + 2 * n8), (const T *)nullptr, ss);
}

/* A slice: S of them a block of w; NW words of registers (Q4_K: the 16-byte head, then the 32 bytes of quants;
 * Q6_K: 16 bytes of ql, 16 of ql + 32, 16 of qh, the 8 scales of its half, d). G: its runs of 8 values. */
template <int QI> struct mqd_slice {
    static constexpr int S = QI == WK_QI_Q4_0 || QI == WK_QI_Q8_0 ? 1 : 4;
    static constexpr int NW = S == 1 ? mqv_unit<QI>::NW : QI == WK_QI_Q4_K ? 12 : 15;
    static constexpr int G = mqv_unit<QI>::UE / S / 8;
};

/* n words from p, 2-byte aligned: the aligned words around them, shifted; no byte past p + 4n + 2 is read. */
template <int n> __device__ __forceinline__ void mqd_words(const uint8_t *p, uint32_t *w)
{
    const uint32_t *a = (const uint32_t *)((uintptr_t)p & ~(uintptr_t)3);
    const unsigned r = 8u * (unsigned)((uintptr_t)p & 2u);
    uint32_t t[n + 1];
#pragma unroll
    for (int i = 0; i < n; i++)
        t[i] = wk_ldg(a + i);
    t[n] = r ? wk_ldg(a + n) : 0u;
#pragma unroll
    for (int i = 0; i < n; i++)
        w[i] = (uint32_t)((((uint64_t)t[i + 1] << 32) | t[i]) >> r);
}

/* Slice c of the block at b into w. */
template <int QI> __device__ __forceinline__ void mqd_load(const uint8_t *b, int c, uint32_t (&w)[mqd_slice<QI>::NW])
{
    if constexpr (mqd_slice<QI>::S == 1) {
        mqv_load<QI>(b, w);
    } else if constexpr (QI == WK_QI_Q4_K) { /* 144-byte blocks: 16-byte aligned */
        const wk_w16 h = wk_ldg((const wk_w16 *)b), q0 = wk_ldg((const wk_w16 *)(b + 16 + 32 * c) + 0),
                     q1 = wk_ldg((const wk_w16 *)(b + 16 + 32 * c) + 1);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            w[i] = h.w[i];
            w[4 + i] = q0.w[i];
            w[8 + i] = q1.w[i];
        }
    } else { /* Q6_K, half h = c / 2, columns i .. i + 16 (i = 16 (c & 1)) of its ql, ql + 32 and qh runs */
        const int h = c >> 1, i = 16 * (c & 1);
        mqd_words<4>(b + 64 * h + i, w);
        mqd_words<4>(b + 64 * h + 32 + i, w + 4);
        mqd_words<4>(b + 128 + 32 * h + i, w + 8);
        mqd_words<2>(b + 192 + 8 * h, w + 12);
        w[14] = wk_ldg((const uint16_t *)(b + 208));
    }
}

/* The first value of run g of slice c (an offset in the block). */
template <int QI> __device__ __forceinline__ int mqd_run8(int c, int g)
{
    if constexpr (mqd_slice<QI>::S == 1)
        return 8 * g;
    else if constexpr (QI == WK_QI_Q4_K)
        return 64 * c + 8 * g;
    else /* sub-block t = g / 2 of the half, columns i + 8 (g & 1) */
        return 128 * (c >> 1) + 32 * (g >> 1) + 16 * (c & 1) + 8 * (g & 1);
}

/* The first of x's blocks of 32 under slice c of block u of a row (Q6_K: its half's first). */
template <int QI> __device__ __forceinline__ int mqd_xfirst(int u, int c)
{
    if constexpr (mqd_slice<QI>::S == 1)
        return u;
    else
        return 8 * u + (QI == WK_QI_Q4_K ? 2 * c : 4 * (c >> 1));
}

/* Slice c of the block at b . x's values at xu (the block's first; times the norm's weights at nu where nu is not
 * NULL), in f32: for x's blocks holding NaN or infinity. */
template <int QI, class T> __device__ float mqd_slice_f32(const uint8_t *b, int c, const T *xu, const T *nu)
{
    float s = 0.0f;
#pragma unroll
    for (int g = 0; g < mqd_slice<QI>::G; g++) {
        const int j = mqd_run8<QI>(c, g);
        float v[8], xv[8], n[8];
        wk_q_value8(QI, b, j, v);
        mqv_x8(xu + j, xv);
        if (nu)
            mqv_x8(nu + j, n);
#pragma unroll
        for (int t = 0; t < 8; t++)
            s = fmaf(v[t], nu ? xv[t] * n[t] : xv[t], s);
    }
    return s;
}

/* A load of x's rounded values: from global memory (G) by the read-only path, else from shared memory. */
template <bool G, class V> __device__ __forceinline__ V mqd_ldx(const V *p)
{
    if constexpr (G)
        return wk_ldg(p);
    else
        return *p;
}

/* x's rounded block xb: its 32 bytes as words, and (d, d * sum q). */
template <bool G>
__device__ __forceinline__ void mqd_xblock(const uint32_t *xq, const float2 *xds, int64_t xb, uint32_t (&xv)[8],
                                           float2 &ds)
{
    const uint4 a = mqd_ldx<G>((const uint4 *)xq + 2 * xb), b = mqd_ldx<G>((const uint4 *)xq + 2 * xb + 1);
    xv[0] = a.x, xv[1] = a.y, xv[2] = a.z, xv[3] = a.w, xv[4] = b.x, xv[5] = b.y, xv[6] = b.z, xv[7] = b.w;
    ds = mqd_ldx<G>(xds + xb);
}

/* Row m of x . slice c of block u of w (its words w), in integers: x's blocks from xb0 (row m's block of the
 * slice's first value); NaN where one of them holds NaN or infinity. The value of element j is d * (q_j - o) for
 * Q4_0 (o = 8) and Q8_0 (o = 0), d * sc_s * q_j - dmin * m_s for Q4_K (sub-blocks s of 32), d * sc_g * (q_j - 32)
 * for Q6_K (groups g of 16). */
template <int QI, bool G>
__device__ __forceinline__ float mqd_slice_dot(const uint32_t (&w)[mqd_slice<QI>::NW], int c, const uint32_t *xq,
                                               const float2 *xds, int64_t xb0)
{
    uint32_t xv[8], q[8];
    float2 ds;
    if constexpr (QI == WK_QI_Q4_0 || QI == WK_QI_Q8_0) { /* the quants start at byte 2 */
        mqd_xblock<G>(xq, xds, xb0, xv, ds);
#pragma unroll
        for (int i = 0; i < 8; i++)
            q[i] = QI == WK_QI_Q8_0 ? (w[i] >> 16) | (w[i + 1] << 16)
                                    : (((w[i & 3] >> 16) | (w[(i & 3) + 1] << 16)) >> (i & 4)) &
                                          0x0f0f0f0fu; /* byte j: values j (low nibble), j + 16 (high) */
        const float d = wk_f16_bits_to_f32((uint16_t)(w[0] & 0xffffu)), dot = (float)mqd_dot<8>(q, xv);
        return QI == WK_QI_Q4_0 ? d * fmaf(ds.x, dot, -8.0f * ds.y) : d * ds.x * dot;
    } else if constexpr (QI == WK_QI_Q4_K) { /* sub-blocks 2c (low nibbles), 2c + 1 (high) */
        unsigned sc[2] = {0, 0}, mn[2] = {0, 0};
#pragma unroll
        for (int cc = 0; cc < 4; cc++) /* the head's bytes at constant offsets: registers */
            if (cc == c) {
                wk_q_scale_min_k4((const uint8_t *)w + 4, 2 * cc, &sc[0], &mn[0]);
                wk_q_scale_min_k4((const uint8_t *)w + 4, 2 * cc + 1, &sc[1], &mn[1]);
            }
        float a = 0.0f, bm = 0.0f;
#pragma unroll
        for (int s = 0; s < 2; s++) {
            mqd_xblock<G>(xq, xds, xb0 + s, xv, ds);
#pragma unroll
            for (int i = 0; i < 8; i++)
                q[i] = (w[4 + i] >> (4 * s)) & 0x0f0f0f0fu;
            a = fmaf(ds.x, (float)((int)sc[s] * mqd_dot<8>(q, xv)), a);
            bm = fmaf(ds.y, (float)mn[s], bm);
        }
        return wk_f16_bits_to_f32((uint16_t)(w[0] & 0xffffu)) * a - wk_f16_bits_to_f32((uint16_t)(w[0] >> 16)) * bm;
    } else { /* Q6_K: sub-block t of the half takes the low (t < 2) or high nibbles of ql (t even) or ql + 32, and
              * qh's bits 2t, 2t + 1; q - 32 as signed bytes without a borrow between them; x's columns i .. i + 16 */
        const int i16 = c & 1;
        float a = 0.0f;
#pragma unroll
        for (int t = 0; t < 4; t++) {
            const int64_t xb = xb0 + t;
            const uint4 x4 = mqd_ldx<G>((const uint4 *)xq + 2 * xb + i16);
            xv[0] = x4.x, xv[1] = x4.y, xv[2] = x4.z, xv[3] = x4.w;
            ds = mqd_ldx<G>(xds + xb);
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const uint32_t v = ((w[4 * (t & 1) + k] >> (4 * (t >> 1))) & 0x0f0f0f0fu) |
                                   (((w[8 + k] >> (2 * t)) & 0x03030303u) << 4);
                q[k] = ((v | 0x80808080u) - 0x20202020u) ^ 0x80808080u;
            }
            const int sc = (int)(int8_t)(w[12 + (t >> 1)] >> (16 * (t & 1) + 8 * i16)); /* group 2t + i16 */
            a = fmaf(ds.x, (float)(sc * mqd_dot<4>(q, xv)), a);
        }
        return wk_f16_bits_to_f32((uint16_t)(w[14] & 0xffffu)) * a;
    }
}

/* The group's sums through wk_linear's epilogue into out (group grp's rows of w, lin_row; gl: the lane in its group;
 * scale: the norm's factor, or 1). Products that came out NaN (a block of x holding NaN or infinity: d = NaN; or w's
 * scale) are first computed again in float by the whole warp (the reductions), from x itself. */
template <int qi, class T, int LW, int R, int MT>
__device__ __forceinline__ void mqd_store(const wk_gpu_matmul_q_args &p, const float (&acc)[R][MT], int64_t grp,
                                          int gl, int slices, float scale)
{
    constexpr int S = mqd_slice<qi>::S, UB = mqv_unit<qi>::UB, UE = mqv_unit<qi>::UE;
    const int lpr = (int)p.lpr, mt = (int)p.M;
    const T *x = (const T *)p.x, *nw = (const T *)p.epi.norm;
    float y[R][MT];
    bool redo = false;
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int m = 0; m < MT; m++) {
            y[r][m] = wk_group_reduce<LW>(acc[r][m], wk_op_sum(), lpr);
            redo |= m < mt && y[r][m] != y[r][m];
        }
    /* Every lane of a group must enter the redo's reductions together; the NVIDIA build's logical wave64 reduces
     * through block barriers, so there the whole block decides. */
    bool again;
    if constexpr (LW > WK_HW_WARP)
        again = __syncthreads_or(redo) != 0;
    else
        again = wk_warp_ballot<LW>(redo) != 0;
    if (again)
#pragma unroll 1
        for (int r = 0; r < R; r++)
#pragma unroll 1
            for (int m = 0; m < mt; m++) {
                const int64_t row = lin_row(p.epi, grp, r, R);
                const uint8_t *wrow = (const uint8_t *)p.w + (row < p.N ? row : p.N - 1) * p.row_bytes;
                float f = 0.0f;
                for (int s = gl; s < slices; s += lpr) {
                    const int64_t e0 = (int64_t)(s / S) * UE;
                    f += mqd_slice_f32<qi>(wrow + (int64_t)(s / S) * UB, s % S, x + m * p.K + e0, nw ? nw + e0 : nw);
                }
                f = wk_group_reduce<LW>(f, wk_op_sum(), lpr);
                /* y[r][m] = f where it is NaN, without a dynamic index (y stays in registers) */
#pragma unroll
                for (int rr = 0; rr < R; rr++)
#pragma unroll
                    for (int mm = 0; mm < MT; mm++)
                        if (rr == r && mm == m && y[rr][mm] != y[rr][mm])
                            y[rr][mm] = f;
            }
    if (gl != 0)
        return;
#pragma unroll
    for (int m = 0; m < MT; m++) {
        float ym[R];
#pragma unroll
        for (int r = 0; r < R; r++)
            ym[r] = y[r][m] * scale;
        if (m < mt) /* the operands loaded here: held through the loop, they made the kernels spill */
            lin_store<T, R>(p.epi, (T *)p.out, p.N, m, grp, ym, lin_load<T, R>(p.epi, p.N, m, grp));
    }
}

/* Grid: ceil(N / MQD_ROWS) groups (a gated unit: N / 2) of lpr lanes, MQD_BLOCK threads a block; p.M <= MT. Lane l of
 * a group takes slices l, l + lpr, ... of its rows, UN of them in flight at one row of x (Q8_0: one, which measured
 * faster). G: x rounded in global memory by matmul_q_round (p.xq), else by each block into its shared memory (one row
 * of x: K + K / 32 * 8 bytes), which saves a launch. */
template <class QT, class T, int LW, int MT, bool G>
__device__ __forceinline__ void mqd_run(const wk_gpu_matmul_q_args &p)
{
    constexpr int qi = QT::qi, R = MQD_ROWS, S = mqd_slice<qi>::S, NW = mqd_slice<qi>::NW;
    constexpr int UN = MQD_UN(qi, MT == 1), UB = mqv_unit<qi>::UB, UE = mqv_unit<qi>::UE;
    /* a slice past the row loads the lane's own (unused): unconditional loads measured faster, except for Q6_K's many
     * word loads, which are skipped instead */
    constexpr bool CL = qi != WK_QI_Q6_K;
    const int lpr = (int)p.lpr, gl = (int)threadIdx.x % lpr, mt = (int)p.M;
    const int slices = (int)(p.K / UE) * S, nb = (int)(p.K / WK_QK);
    const int64_t grp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / lpr;
    const uint32_t *xq;
    const float2 *xds;
    float scale = 1.0f;
    if constexpr (G) {
        xq = (const uint32_t *)p.xq;
        xds = (const float2 *)(xq + p.M * p.K / 4);
    } else {
        extern __shared__ float4 mq_smem[];
        uint32_t *sq = (uint32_t *)mq_smem;
        float2 *sds = (float2 *)(sq + 8 * nb);
        __shared__ float part[MQD_BLOCK / 32]; /* the norm: each warp's sum of squares */
        float ss = 0.0f;
        for (int base = 0; base < nb * 4; base += (int)blockDim.x)
            mqd_round8((const T *)p.x, base + (int)threadIdx.x, nb * 4, sq, sds, (const T *)p.epi.norm, ss);
        if (p.epi.norm) {
            for (int o = LW / 2; o > 0; o >>= 1)
                ss += wk_lane_xor<LW>(ss, o);
            if (threadIdx.x % LW == 0)
                part[threadIdx.x / LW] = ss;
        }
        __syncthreads(); /* x rounded, and the warps' sums in part */
        if (p.epi.norm) { /* the block's threads rounded x together: their sum is x's */
            ss = 0.0f;
            for (int k = 0; k < (int)blockDim.x / LW; k++)
                ss += part[k];
            scale = lin_norm_scale(p.epi, ss, p.K);
        }
        xq = sq;
        xds = sds;
    }
    const uint8_t *wr[R];
    float acc[R][MT];
#pragma unroll
    for (int r = 0; r < R; r++) { /* rows past N read row N-1 (every lane takes part in the reductions) */
        const int64_t row = lin_row(p.epi, grp, r, R);
        wr[r] = (const uint8_t *)p.w + (row < p.N ? row : p.N - 1) * p.row_bytes;
#pragma unroll
        for (int m = 0; m < MT; m++)
            acc[r][m] = 0.0f;
    }
    for (int s0 = gl; s0 < slices; s0 += UN * lpr) {
        uint32_t w[UN][R][NW];
#pragma unroll
        for (int k = 0; k < UN; k++) {
            const int s = CL && s0 + k * lpr >= slices ? s0 : s0 + k * lpr;
#pragma unroll
            for (int r = 0; r < R; r++)
                if (CL || s < slices)
                    mqd_load<qi>(wr[r] + (int64_t)(s / S) * UB, s % S, w[k][r]);
        }
#pragma unroll
        for (int k = 0; k < UN; k++) {
            const int s = s0 + k * lpr, u = s / S, c = s % S;
            if (s >= slices)
                continue;
#pragma unroll
            for (int m = 0; m < MT; m++) {
                const int64_t xb0 = (int64_t)m * nb + mqd_xfirst<qi>(u, c);
#pragma unroll
                for (int r = 0; r < R; r++)
                    if (m < mt)
                        acc[r][m] += mqd_slice_dot<qi, G>(w[k][r], c, xq, xds, xb0);
            }
        }
    }
    mqd_store<qi, T, LW, R, MT>(p, acc, grp, gl, slices, scale);
}

template <class QT, class T, int LW> __device__ __forceinline__ void matmul_q_dot_1_run(const wk_gpu_matmul_q_args &p)
{
    mqd_run<QT, T, LW, 1, false>(p);
}
template <class QT, class T, int LW> __device__ __forceinline__ void matmul_q_dot_8_run(const wk_gpu_matmul_q_args &p)
{
    mqd_run<QT, T, LW, 8, true>(p);
}

WK_MATMUL_Q_DOT_KERNELS(WK_DEFINE_KERNELS)
