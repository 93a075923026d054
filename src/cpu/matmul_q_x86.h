/* matmul_q_x86.h: the x86 integer block dots on 256-bit vectors (with AVX-512, Q4_0's 8-row dot and the K types'
 * dots on 512-bit ones), written once and compiled per instruction set by matmul_q_x86.c, which defines MQ_T (the target
 * attribute), MQ_F(name) (the set's names), MQ_DPBUSD(acc, u, s) (acc's 8 int32 lanes + the sums of 4 products of
 * unsigned bytes u and signed bytes s: maddubs + madd on AVX2, vpdpbusd with VNNI) and MQ_ZMM (1: AVX-512's 512-bit
 * kernels).
 * AVX2's maddubs saturates pair sums at 32767: every u here is at most 128 (|w| of Q8_0, 6-bit levels, |IQ4_NL
 * level|) against |s| <= 127, so no pair reaches it. Include-once guards are absent on purpose. */

/* The 16-bit value at p, and as f32 (F16C). */
MQ_T static inline int MQ_F(u16)(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
MQ_T static inline float MQ_F(f16)(const uint8_t *p) { return _cvtsh_ss((unsigned short)MQ_F(u16)(p)); }

/* Asks for the `bytes` at p + ahead into the cache before their use (bytes a constant: the loop unrolls; the address
 * is made as an integer, since it may lie past the end of w, where a prefetch is harmless). The weights stream from
 * memory once per product; the hardware's prefetchers alone left the Q6_K head at 70% of the rate this reaches
 * (bench/results/cpu-2026-11-27-prefetch.md). */
MQ_T static inline void MQ_F(prefetch)(const uint8_t *p, int64_t ahead, int bytes)
{
    for (int o = 0; o < bytes; o += 64)
        _mm_prefetch((const char *)((uintptr_t)p + (uintptr_t)(ahead + o)), _MM_HINT_T0);
}
/* How far ahead of its loads a one-row dot prefetches: 32 Q6_K blocks (~6.5 KiB; 8 blocks ahead gave 10% less, 16
 * about 2% less). Of the 8-row dots only Q4_0's 512-bit one prefetches (the next 8 rows); in the 256-bit one it made
 * Q8_0 slower. Measured on AVX-512 (and with WICK_CPU_ISA=avx2 on the same CPU). */
#define MQ_AHEAD 6720

MQ_T static inline float MQ_F(hsum)(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

/* 32 nibbles (16 bytes at p: the low nibbles are elements 0-15, the high ones 16-31) as 32 bytes. */
MQ_T static inline __m256i MQ_F(nib32)(const uint8_t *p)
{
    __m128i q = _mm_loadu_si128((const __m128i *)p);
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(q, 4), q), _mm256_set1_epi8(15));
}

/* The 32 bits at p as 32 bytes of 16 (bit set) or 0: Q5_0 / Q5_1's fifth bits. */
MQ_T static inline __m256i MQ_F(bits32)(const uint8_t *p)
{
    uint32_t v = wk_q_u32(p);
    const __m256i spread = _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0);
    __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32((int)v), spread);
    b = _mm256_or_si256(b, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe));
    return _mm256_and_si256(_mm256_cmpeq_epi8(b, _mm256_set1_epi64x(-1)), _mm256_set1_epi8(16));
}

/* One 32-block of Q4_0 / Q4_1 / Q5_0 / Q5_1 / IQ4_NL (qi a constant at each call) times x's block, into acc; the
 * minimum's term into *mn. */
MQ_T static inline __m256 MQ_F(step32)(int qi, const uint8_t *b, const wk_mq_x32 *x, __m256 acc, float *mn)
{
    __m256i xv = _mm256_loadu_si256((const __m256i *)x->q), p;
    if (qi == WK_QI_Q8_0) {
        __m256i wv = _mm256_loadu_si256((const __m256i *)(b + 2));
        p = MQ_DPBUSD(_mm256_setzero_si256(), _mm256_abs_epi8(wv), _mm256_sign_epi8(xv, wv));
    } else if (qi == WK_QI_IQ4_NL) {
        const __m256i lv = _mm256_setr_epi8(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
                                            -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
        __m256i wv = _mm256_shuffle_epi8(lv, MQ_F(nib32)(b + 2));
        p = MQ_DPBUSD(_mm256_setzero_si256(), _mm256_abs_epi8(wv), _mm256_sign_epi8(xv, wv));
    } else {
        int at = qi == WK_QI_Q4_1 ? 4 : qi == WK_QI_Q5_0 ? 6 : qi == WK_QI_Q5_1 ? 8 : 2;
        int off = qi == WK_QI_Q4_0 ? 8 : qi == WK_QI_Q5_0 ? 16 : 0;
        __m256i wv = MQ_F(nib32)(b + at);
        if (qi == WK_QI_Q5_0 || qi == WK_QI_Q5_1)
            wv = _mm256_or_si256(wv, MQ_F(bits32)(b + at - 4));
        p = MQ_DPBUSD(_mm256_setr_epi32(-off * x->sum, 0, 0, 0, 0, 0, 0, 0), wv, xv);
    }
    if (qi == WK_QI_Q4_1 || qi == WK_QI_Q5_1)
        *mn += MQ_F(f16)(b + 2) * x->d * (float)x->sum;
    return _mm256_fmadd_ps(_mm256_set1_ps(MQ_F(f16)(b) * x->d), _mm256_cvtepi32_ps(p), acc);
}

/* The 32-block dots, two blocks a step into two accumulators. */
#define MQ_DOT32(name, QI)                                                                                       \
    MQ_T static float MQ_F(name)(const uint8_t *w, const void *xq, int64_t nb)                                   \
    {                                                                                                            \
        const wk_mq_x32 *x = xq;                                                                                 \
        const int bytes = wk_qi_bytes(QI);                                                                       \
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();                                               \
        float mn = 0;                                                                                            \
        int64_t b = 0;                                                                                           \
        for (; b + 2 <= nb; b += 2) {                                                                            \
            MQ_F(prefetch)(w + b * bytes, MQ_AHEAD, 2 * bytes);                                                  \
            a0 = MQ_F(step32)((QI), w + b * bytes, x + b, a0, &mn);                                              \
            a1 = MQ_F(step32)((QI), w + (b + 1) * bytes, x + b + 1, a1, &mn);                                    \
        }                                                                                                        \
        if (b < nb)                                                                                              \
            a0 = MQ_F(step32)((QI), w + b * bytes, x + b, a0, &mn);                                              \
        return MQ_F(hsum)(_mm256_add_ps(a0, a1)) + mn;                                                           \
    }
MQ_DOT32(dot_q4_0, WK_QI_Q4_0)
MQ_DOT32(dot_q4_1, WK_QI_Q4_1)
MQ_DOT32(dot_q5_0, WK_QI_Q5_0)
MQ_DOT32(dot_q5_1, WK_QI_Q5_1)
MQ_DOT32(dot_q8_0, WK_QI_Q8_0)
MQ_DOT32(dot_iq4_nl, WK_QI_IQ4_NL)
#undef MQ_DOT32

/* One block of Q4_0 / Q5_0 / Q8_0 / IQ4_NL (qi a constant at each call) against x's 32 values xv: int32 lanes whose sum
 * is the block's integer dot, less what MQ_OFF8 and MQ_HI16 say. */
MQ_T static inline __m256i MQ_F(block8)(int qi, const uint8_t *blk, __m256i xv)
{
    if (qi == WK_QI_Q8_0 && MQ_VNNI) /* w + 128 as unsigned bytes: MQ_OFF8 takes 128 x's sum off */
        return MQ_DPBUSD(_mm256_setzero_si256(),
                         _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(blk + 2)), _mm256_set1_epi8(-128)), xv);
    if (qi == WK_QI_Q8_0) {
        __m256i wv = _mm256_loadu_si256((const __m256i *)(blk + 2));
        return MQ_DPBUSD(_mm256_setzero_si256(), _mm256_abs_epi8(wv), _mm256_sign_epi8(xv, wv));
    }
    __m256i nib = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(blk + (qi == WK_QI_Q5_0 ? 6 : 2))));
    if (qi == WK_QI_Q4_0 && MQ_VNNI) /* the high nibbles in place, 16 times their value: MQ_HI16 */
        return MQ_DPBUSD(_mm256_setzero_si256(), _mm256_and_si256(nib, _mm256_setr_epi64x(0x0f0f0f0f0f0f0f0f,
                         0x0f0f0f0f0f0f0f0f, (int64_t)0xf0f0f0f0f0f0f0f0u, (int64_t)0xf0f0f0f0f0f0f0f0u)), xv);
    nib = _mm256_and_si256(_mm256_srlv_epi32(nib, _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4)), _mm256_set1_epi8(15));
    if (qi == WK_QI_IQ4_NL) {
        const __m256i lv = _mm256_setr_epi8(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
                                            -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
        __m256i wv = _mm256_shuffle_epi8(lv, nib);
        return MQ_DPBUSD(_mm256_setzero_si256(), _mm256_abs_epi8(wv), _mm256_sign_epi8(xv, wv));
    }
    if (qi == WK_QI_Q5_0)
        nib = _mm256_or_si256(nib, MQ_F(bits32)(blk + 2));
    return MQ_DPBUSD(_mm256_setzero_si256(), nib, xv);
}

/* What block8 leaves to dot8_32: the offset times x's sum that every row's dot carries, and whether lanes 4-7 hold 16
 * times their value (the high nibbles not shifted down: with VNNI, whose byte products do not saturate). */
#define MQ_OFF8(qi) ((qi) == WK_QI_Q4_0 ? 8 : (qi) == WK_QI_Q5_0 ? 16 : (qi) == WK_QI_Q8_0 && MQ_VNNI ? 128 : 0)
#define MQ_HI16(qi) ((qi) == WK_QI_Q4_0 && MQ_VNNI)

/* The f16 scales at w, w + rb, ..., w + 7 rb (8 rows' blocks) as f32, times d. */
MQ_T static inline __m256 MQ_F(scales8)(const uint8_t *w, int64_t rb, float d)
{
    __m128i h = _mm_cvtsi32_si128(MQ_F(u16)(w));
    h = _mm_insert_epi16(h, MQ_F(u16)(w + rb), 1), h = _mm_insert_epi16(h, MQ_F(u16)(w + 2 * rb), 2);
    h = _mm_insert_epi16(h, MQ_F(u16)(w + 3 * rb), 3), h = _mm_insert_epi16(h, MQ_F(u16)(w + 4 * rb), 4);
    h = _mm_insert_epi16(h, MQ_F(u16)(w + 5 * rb), 5), h = _mm_insert_epi16(h, MQ_F(u16)(w + 6 * rb), 6);
    h = _mm_insert_epi16(h, MQ_F(u16)(w + 7 * rb), 7);
    return _mm256_mul_ps(_mm256_cvtph_ps(h), _mm256_set1_ps(d));
}

/* 8 rows of Q4_0 / Q5_0 / Q8_0 / IQ4_NL against x's row, into out[0..7]: per block the rows' scales are gathered into
 * one vector (times x's), each row's integer dot is converted and added with its scale, and the offsets (MQ_OFF8, the
 * same for every row) go with the scale vector. The accumulators are named, not an array: gcc kept an array of them
 * in memory. */
MQ_T static inline void MQ_F(dot8_32)(int qi, const uint8_t *w, int64_t rb, const wk_mq_x32 *x, int64_t nb,
                                      float *out)
{
    const int bytes = wk_qi_bytes(qi), off = MQ_OFF8(qi);
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, offs = a0;
    for (int64_t b = 0; b < nb; b++, w += bytes, x++) {
        float sc[8];
        __m256 scv = MQ_F(scales8)(w, rb, x->d);
        _mm256_storeu_ps(sc, scv);
        if (off)
            offs = _mm256_fmadd_ps(scv, _mm256_set1_ps((float)(-off * x->sum)), offs);
        __m256i xv = _mm256_loadu_si256((const __m256i *)x->q);
#define MQ_ROW(a, r) a = _mm256_fmadd_ps(_mm256_cvtepi32_ps(MQ_F(block8)(qi, w + (r) * rb, xv)), \
                                         _mm256_broadcast_ss(sc + (r)), a)
        MQ_ROW(a0, 0); MQ_ROW(a1, 1); MQ_ROW(a2, 2); MQ_ROW(a3, 3);
        MQ_ROW(a4, 4); MQ_ROW(a5, 5); MQ_ROW(a6, 6); MQ_ROW(a7, 7);
#undef MQ_ROW
    }
    if (MQ_HI16(qi)) {
        const __m256 h = _mm256_setr_ps(1, 1, 1, 1, 0.0625f, 0.0625f, 0.0625f, 0.0625f);
        a0 = _mm256_mul_ps(a0, h), a1 = _mm256_mul_ps(a1, h), a2 = _mm256_mul_ps(a2, h), a3 = _mm256_mul_ps(a3, h);
        a4 = _mm256_mul_ps(a4, h), a5 = _mm256_mul_ps(a5, h), a6 = _mm256_mul_ps(a6, h), a7 = _mm256_mul_ps(a7, h);
    }
    float o[8];
    _mm256_storeu_ps(o, offs);
    out[0] = MQ_F(hsum)(a0) + o[0], out[1] = MQ_F(hsum)(a1) + o[1], out[2] = MQ_F(hsum)(a2) + o[2];
    out[3] = MQ_F(hsum)(a3) + o[3], out[4] = MQ_F(hsum)(a4) + o[4], out[5] = MQ_F(hsum)(a5) + o[5];
    out[6] = MQ_F(hsum)(a6) + o[6], out[7] = MQ_F(hsum)(a7) + o[7];
}
#define MQ_DOT8_32(name, QI)                                                                                     \
    MQ_T static void MQ_F(name)(const uint8_t *w, int64_t rb, const void *xq, int64_t nb, float *out)            \
    {                                                                                                            \
        MQ_F(dot8_32)((QI), w, rb, xq, nb, out);                                                                 \
    }
#if !MQ_ZMM /* (dot8_q4_0_zmm below) */
MQ_DOT8_32(dot8_q4_0, WK_QI_Q4_0)
#endif
MQ_DOT8_32(dot8_q5_0, WK_QI_Q5_0)
MQ_DOT8_32(dot8_q8_0, WK_QI_Q8_0)
MQ_DOT8_32(dot8_iq4_nl, WK_QI_IQ4_NL)
#undef MQ_DOT8_32
#undef MQ_OFF8
#undef MQ_HI16

#if MQ_ZMM
/* MQ_Q4_0_PAIR: blocks b and, where two, b + 1 of 8 rows of Q4_0 against x's (VNNI on 512-bit vectors). MQ_Q4_0_ROW:
 * row r's pair in one register (lanes 0-7 block b, 8-15 block b + 1; in each half the low nibbles, then the high ones
 * in place, 16 times their value, as block8), its integer dots scaled by lanes r and 8 + r of sc (the 8 rows' scales
 * of b, then of b + 1) into the row's accumulator a. */
#define MQ_Q4_0_ROW(two, a, r)                                                                                       \
    do {                                                                                                             \
        const uint8_t *qr = w + (r) * rb + 2; /* row r's quants of block b */                                       \
        __m512i q = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)qr));                                    \
        if (two)                                                                                                     \
            q = _mm512_mask_broadcast_i32x4(q, 0xff00, _mm_loadu_si128((const __m128i *)(qr + bytes)));              \
        const __m512i p = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_and_si512(q, nib), xv);                 \
        const __m512i pick = _mm512_setr_epi32(r, r, r, r, r, r, r, r, 8 + r, 8 + r, 8 + r, 8 + r, 8 + r, 8 + r,     \
                                               8 + r, 8 + r);                                                        \
        a = _mm512_fmadd_ps(_mm512_cvtepi32_ps(p), _mm512_permutexvar_ps(pick, sc), a);                              \
    } while (0)
#define MQ_Q4_0_PAIR(two)                                                                                            \
    do {                                                                                                             \
        const __m256 s0 = MQ_F(scales8)(w, rb, x[0].d), s1 = (two) ? MQ_F(scales8)(w + bytes, rb, x[1].d) : zero8;   \
        offs = _mm256_fmadd_ps(s0, _mm256_set1_ps((float)(-8 * x[0].sum)), offs);                                    \
        if (two)                                                                                                     \
            offs = _mm256_fmadd_ps(s1, _mm256_set1_ps((float)(-8 * x[1].sum)), offs);                                \
        const __m512 sc = _mm512_castpd_ps(                                                                          \
            _mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(s0)), _mm256_castps_pd(s1), 1));              \
        const __m256i x1 = (two) ? _mm256_loadu_si256((const __m256i *)x[1].q) : _mm256_setzero_si256();             \
        const __m512i xv = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)x[0].q)),   \
                                              x1, 1);                                                                \
        MQ_Q4_0_ROW(two, a0, 0); MQ_Q4_0_ROW(two, a1, 1); MQ_Q4_0_ROW(two, a2, 2); MQ_Q4_0_ROW(two, a3, 3);          \
        MQ_Q4_0_ROW(two, a4, 4); MQ_Q4_0_ROW(two, a5, 5); MQ_Q4_0_ROW(two, a6, 6); MQ_Q4_0_ROW(two, a7, 7);          \
    } while (0)

/* dot8 of Q4_0 on 512-bit vectors: two blocks a step, half the 256-bit loop's dot instructions (block8's). The
 * accumulators are named, as in dot8_32 (gcc kept an array of them in memory). */
MQ_T static void MQ_F(dot8_q4_0_zmm)(const uint8_t *w, int64_t rb, const void *xq, int64_t nb, float *out)
{
    const wk_mq_x32 *x = xq;
    const int bytes = wk_qi_bytes(WK_QI_Q4_0);
    const __m512i nib = _mm512_set4_epi64((int64_t)0xf0f0f0f0f0f0f0f0u, (int64_t)0xf0f0f0f0f0f0f0f0u,
                                          0x0f0f0f0f0f0f0f0f, 0x0f0f0f0f0f0f0f0f);
    const __m256 zero8 = _mm256_setzero_ps();
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    __m256 offs = zero8;
    int64_t b = 0;
    for (; b + 2 <= nb; b += 2, w += 2 * bytes, x += 2) {
        /* the next 8 rows (contiguous: a row is nb blocks), swept at 8 times the pace of this row's loads */
        MQ_F(prefetch)(w, 8 * rb + 7 * bytes * b, 16 * bytes);
        MQ_Q4_0_PAIR(true);
    }
    if (b < nb)
        MQ_Q4_0_PAIR(false);
    const __m512 h = _mm512_setr_ps(1, 1, 1, 1, 0.0625f, 0.0625f, 0.0625f, 0.0625f, 1, 1, 1, 1, 0.0625f, 0.0625f,
                                    0.0625f, 0.0625f); /* the high nibbles' lanes held 16 times their value */
    float o[8];
    _mm256_storeu_ps(o, offs);
#define MQ_OUT(r, a) out[r] = _mm512_reduce_add_ps(_mm512_mul_ps(a, h)) + o[r]
    MQ_OUT(0, a0), MQ_OUT(1, a1), MQ_OUT(2, a2), MQ_OUT(3, a3), MQ_OUT(4, a4), MQ_OUT(5, a5), MQ_OUT(6, a6);
    MQ_OUT(7, a7);
#undef MQ_OUT
}
#undef MQ_Q4_0_ROW
#undef MQ_Q4_0_PAIR
#define MQ_DOT8_Q4_0 MQ_F(dot8_q4_0_zmm)
#else
#define MQ_DOT8_Q4_0 MQ_F(dot8_q4_0)
#endif

/* Unsigned levels u (at most 63) times x's q, pairs summed and scaled by the 16-bit lanes of sc, into int32 lanes. */
MQ_T static inline __m256i MQ_F(scaled)(__m256i u, const int8_t *xq, __m256i sc)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, _mm256_loadu_si256((const __m256i *)xq)), sc);
}

/* The 16-bit lanes 2i, 2i+1 (of both halves) of v in every lane pair: a shuffle broadcasting a 16-bit scale. */
MQ_T static inline __m256i MQ_F(pick16)(__m256i v, int i)
{
    return _mm256_shuffle_epi8(v, _mm256_set1_epi16((short)(0x0100 + 0x0202 * i)));
}

/* Q4_K / Q5_K's 12 scale bytes as 8 scales (bytes 0-7) and 8 minimums (bytes 8-15): get_scale_min_k4 four at a time. */
MQ_T static inline __m128i MQ_F(scales_k4)(const uint8_t *q)
{
    uint32_t u[4];
    memcpy(u, q, 12);
    u[3] = ((u[2] >> 4) & 0x0f0f0f0fu) | (((u[1] >> 6) & 0x03030303u) << 4);
    uint32_t m03 = u[1] & 0x3f3f3f3fu;
    u[1] = (u[2] & 0x0f0f0f0fu) | (((u[0] >> 6) & 0x03030303u) << 4);
    u[2] = m03;
    u[0] &= 0x3f3f3f3fu;
    return _mm_setr_epi32((int)u[0], (int)u[1], (int)u[2], (int)u[3]);
}

/* The minimums' term of a Q4_K / Q5_K block added to accm: the 8 minimums (16-bit lanes 8-15 of ms) times x's sums
 * over each 32, times dm (dmin times x's scale). */
MQ_T static inline __m128 MQ_F(mins_k)(__m256i ms, const wk_mq_x256 *x, float dm, __m128 accm)
{
    __m128i pairs = _mm_hadd_epi16(_mm_loadu_si128((const __m128i *)x->bsum),
                                   _mm_loadu_si128((const __m128i *)(x->bsum + 8)));
    __m128i mins = _mm_madd_epi16(_mm256_extracti128_si256(ms, 1), pairs);
    return _mm_fmadd_ps(_mm_set1_ps(dm), _mm_cvtepi32_ps(mins), accm);
}

MQ_T static inline float MQ_F(hsum4)(__m128 v)
{
    __m128 m = _mm_add_ps(v, _mm_movehl_ps(v, v));
    return _mm_cvtss_f32(_mm_add_ss(m, _mm_movehdup_ps(m)));
}

#if !MQ_ZMM /* (AVX-512: the 512-bit dot_q45_k below) */
/* Q4_K / Q5_K (qi a constant at each call): d * sum_s sc_s (q . x over sub-block s) - dmin * sum_s m_s sum(x's q). */
MQ_T static inline float MQ_F(dot_q45_k)(int qi, const uint8_t *w, const wk_mq_x256 *x, int64_t nb)
{
    const int bytes = wk_qi_bytes(qi), qs_at = qi == WK_QI_Q4_K ? 16 : 48;
    const __m256i m4 = _mm256_set1_epi8(15), sixteen = _mm256_set1_epi8(16);
    __m256 acc = _mm256_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (int64_t b = 0; b < nb; b++, w += bytes, x++) {
        MQ_F(prefetch)(w, MQ_AHEAD, bytes);
        __m256i ms = _mm256_cvtepu8_epi16(MQ_F(scales_k4)(w + 4)); /* 16-bit scales 0-7, minimums 8-15 */
        __m256i sc = _mm256_broadcastsi128_si256(_mm256_castsi256_si128(ms));
        accm = MQ_F(mins_k)(ms, x, MQ_F(f16)(w + 2) * x->d, accm);
        __m256i sum = _mm256_setzero_si256(), hv = _mm256_loadu_si256((const __m256i *)(w + 16));
        for (int c = 0; c < 4; c++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(w + qs_at + 32 * c));
            __m256i lo = _mm256_and_si256(q, m4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
            if (qi == WK_QI_Q5_K) {
                __m256i b0 = _mm256_set1_epi8((char)(1 << (2 * c))), b1 = _mm256_set1_epi8((char)(2 << (2 * c)));
                lo = _mm256_or_si256(lo, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hv, b0), b0), sixteen));
                hi = _mm256_or_si256(hi, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hv, b1), b1), sixteen));
            }
            sum = _mm256_add_epi32(sum, MQ_F(scaled)(lo, x->q + 64 * c, MQ_F(pick16)(sc, 2 * c)));
            sum = _mm256_add_epi32(sum, MQ_F(scaled)(hi, x->q + 64 * c + 32, MQ_F(pick16)(sc, 2 * c + 1)));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(MQ_F(f16)(w) * x->d), _mm256_cvtepi32_ps(sum), acc);
    }
    return MQ_F(hsum)(acc) - MQ_F(hsum4)(accm);
}
#else
/* Q4_K / Q5_K on 512-bit vectors: each 64 values (sub-blocks 2c and 2c + 1: the low and the high nibbles of 32 bytes,
 * with Q5_K's fifth bits added by mask) as one vector of levels, one dpbusd against x's 64, so that lane i of chunk c
 * holds 4 products of sub-block 2c + i / 8 (|sum| <= 4 * 31 * 127, an int16). Packing chunks 0, 1 (2, 3) to int16 puts
 * sub-blocks k / 2 and 2 + k / 2 (4 + ...) in 128-bit lane k; one madd with the scales laid out alike applies them. */
MQ_T static inline float MQ_F(dot_q45_k)(int qi, const uint8_t *w, const wk_mq_x256 *x, int64_t nb)
{
    const int bytes = wk_qi_bytes(qi), qs_at = qi == WK_QI_Q4_K ? 16 : 48;
    const __m512i m4 = _mm512_set1_epi8(15), sixteen = _mm512_set1_epi8(16), zero = _mm512_setzero_si512();
    const __m512i down = _mm512_inserti64x4(zero, _mm256_set1_epi16(4), 1); /* the high nibbles: upper 256 bits */
    /* the 8 scales (16-bit) as the packed chunks' lanes: 8k + t holds sub-block k / 2 (t < 4) or 2 + k / 2 */
    const __m512i lo_at = _mm512_set_epi16(3, 3, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 2, 2,
                                           2, 2, 0, 0, 0, 0);
    const __m512i hi_at = _mm512_add_epi16(lo_at, _mm512_set1_epi16(4));
    __m512 acc = _mm512_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (int64_t b = 0; b < nb; b++, w += bytes, x++) {
        MQ_F(prefetch)(w, MQ_AHEAD, bytes);
        const __m256i ms = _mm256_cvtepu8_epi16(MQ_F(scales_k4)(w + 4)); /* 16-bit scales 0-7, minimums 8-15 */
        accm = MQ_F(mins_k)(ms, x, MQ_F(f16)(w + 2) * x->d, accm);
        const __m512i hv = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(w + 16)));
        __m512i chunk[4];
        for (int c = 0; c < 4; c++) {
            __m512i q = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(w + qs_at + 32 * c)));
            q = _mm512_and_si512(_mm512_srlv_epi16(q, down), m4);
            if (qi == WK_QI_Q5_K) /* bit 2c of qh for the low nibbles' values, 2c + 1 for the high ones' */
                q = _mm512_mask_add_epi8(q, _mm512_test_epi8_mask(hv, _mm512_inserti64x4(_mm512_set1_epi8(
                        (char)(1 << (2 * c))), _mm256_set1_epi8((char)(2 << (2 * c))), 1)), q, sixteen);
            chunk[c] = _mm512_dpbusd_epi32(zero, q, _mm512_loadu_si512((const void *)(x->q + 64 * c)));
        }
        const __m512i scz = _mm512_castsi256_si512(ms); /* (lanes 0-7 read) */
        const __m512i sum = _mm512_add_epi32(
            _mm512_madd_epi16(_mm512_packs_epi32(chunk[0], chunk[1]), _mm512_permutexvar_epi16(lo_at, scz)),
            _mm512_madd_epi16(_mm512_packs_epi32(chunk[2], chunk[3]), _mm512_permutexvar_epi16(hi_at, scz)));
        acc = _mm512_fmadd_ps(_mm512_set1_ps(MQ_F(f16)(w) * x->d), _mm512_cvtepi32_ps(sum), acc);
    }
    return _mm512_reduce_add_ps(acc) - MQ_F(hsum4)(accm);
}
#endif
MQ_T static float MQ_F(dot_q4_k)(const uint8_t *w, const void *xq, int64_t nb)
{
    return MQ_F(dot_q45_k)(WK_QI_Q4_K, w, xq, nb);
}
MQ_T static float MQ_F(dot_q5_k)(const uint8_t *w, const void *xq, int64_t nb)
{
    return MQ_F(dot_q45_k)(WK_QI_Q5_K, w, xq, nb);
}

#if !MQ_ZMM /* (AVX-512: dot_q6_k_zmm below) */
/* Q6_K: d * sum_g sc_g * ((6-bit q - 32) . x over group g of 16); each 32 values span two groups, whose scales a
 * shuffle of the 16 scales (as 16-bit lanes, each half of the vector holding all 16 by then) picks. */
MQ_T static float MQ_F(dot_q6_k)(const uint8_t *w, const void *xq, int64_t nb)
{
    const wk_mq_x256 *x = xq;
    const __m256i m4 = _mm256_set1_epi8(15), m30 = _mm256_set1_epi8(0x30);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++, w += 210, x++) {
        MQ_F(prefetch)(w, MQ_AHEAD, 210);
        __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + 192)));
        /* the offsets: 32 * sum_g sc_g * (x's q summed over g) */
        __m256i sum = _mm256_slli_epi32(_mm256_madd_epi16(sc16, _mm256_loadu_si256((const __m256i *)x->bsum)), 5);
        sum = _mm256_sub_epi32(_mm256_setzero_si256(), sum);
        for (int h = 0; h < 2; h++) {
            const uint8_t *ql = w + 64 * h;
            __m256i l0 = _mm256_loadu_si256((const __m256i *)ql), l1 = _mm256_loadu_si256((const __m256i *)(ql + 32));
            __m256i qh = _mm256_loadu_si256((const __m256i *)(w + 128 + 32 * h)), q[4];
            q[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), m30));
            q[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), m30));
            q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(qh, m30));
            q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                   _mm256_and_si256(_mm256_srli_epi16(qh, 2), m30));
            /* this half's 8 scales in both halves of the vector, then each chunk's pair: g in the low, g+1 the high */
            __m256i sh = h ? _mm256_permute2x128_si256(sc16, sc16, 0x11) : _mm256_permute2x128_si256(sc16, sc16, 0);
            for (int k = 0; k < 4; k++) {
                __m256i s = _mm256_shuffle_epi8(sh, _mm256_setr_epi8(4 * k, 4 * k + 1, 4 * k, 4 * k + 1, 4 * k,
                    4 * k + 1, 4 * k, 4 * k + 1, 4 * k, 4 * k + 1, 4 * k, 4 * k + 1, 4 * k, 4 * k + 1, 4 * k, 4 * k + 1,
                    4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3, 4 * k + 2,
                    4 * k + 3, 4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3));
                sum = _mm256_add_epi32(sum, MQ_F(scaled)(q[k], x->q + 128 * h + 32 * k, s));
            }
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(MQ_F(f16)(w + 208) * x->d), _mm256_cvtepi32_ps(sum), acc);
    }
    return MQ_F(hsum)(acc);
}
#define MQ_DOT_Q6_K MQ_F(dot_q6_k)
#else
/* Q6_K on 512-bit vectors: each half's 128 values as two vectors of 64 levels (the low nibbles of 64 ql bytes with two
 * bits of qh shifted to bits 4-5: shifts of 4 and 2 for the first vector's halves, 0 and 2 (right) for the second), one
 * dpbusd each against x's 64, so that lane i of chunk c holds 4 products of group 4c + i / 4 (|sum| <= 4 * 63 * 127,
 * an int16). Packing chunks 0, 1 (and 2, 3) to int16 puts groups k and 4 + k (8 + k, 12 + k) in 128-bit lane k; one
 * madd with the scales laid out alike (vpermw) applies them. The -32 offsets come from x's group sums, as above. */
MQ_T static float MQ_F(dot_q6_k_zmm)(const uint8_t *w, const void *xq, int64_t nb)
{
    const wk_mq_x256 *x = xq;
    const __m512i m4 = _mm512_set1_epi8(15), m30 = _mm512_set1_epi8(0x30), zero = _mm512_setzero_si512();
    /* 16-bit shifts: 4 and 2 (left) in the low and high 256 bits; 0 and 2 (right) */
    const __m512i left = _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1);
    const __m512i right = _mm512_inserti64x4(zero, _mm256_set1_epi16(2), 1);
    /* the 16 scales (16-bit) laid out as the packed chunks' lanes: 8k + t holds group k (t < 4) or 4 + k (t >= 4);
     * hi: 8 more */
    const __m512i lo_at = _mm512_set_epi16(7, 7, 7, 7, 3, 3, 3, 3, 6, 6, 6, 6, 2, 2, 2, 2, 5, 5, 5, 5, 1, 1, 1, 1, 4, 4,
                                           4, 4, 0, 0, 0, 0);
    const __m512i hi_at = _mm512_add_epi16(lo_at, _mm512_set1_epi16(8));
    __m512 acc = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; b++, w += 210, x++) {
        MQ_F(prefetch)(w, MQ_AHEAD, 210);
        const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + 192)));
        const __m512i scz = _mm512_castsi256_si512(sc16);
        __m512i chunk[4];
        for (int h = 0; h < 2; h++) {
            const __m512i l = _mm512_loadu_si512((const void *)(w + 64 * h));
            const __m512i qh = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(w + 128 + 32 * h)));
            const __m512i a = _mm512_or_si512(_mm512_and_si512(l, m4),
                                              _mm512_and_si512(_mm512_sllv_epi16(qh, left), m30));
            const __m512i c = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(l, 4), m4),
                                              _mm512_and_si512(_mm512_srlv_epi16(qh, right), m30));
            chunk[2 * h] = _mm512_dpbusd_epi32(zero, a, _mm512_loadu_si512((const void *)(x->q + 128 * h)));
            chunk[2 * h + 1] = _mm512_dpbusd_epi32(zero, c, _mm512_loadu_si512((const void *)(x->q + 128 * h + 64)));
        }
        __m512i sum = _mm512_add_epi32(
            _mm512_madd_epi16(_mm512_packs_epi32(chunk[0], chunk[1]), _mm512_permutexvar_epi16(lo_at, scz)),
            _mm512_madd_epi16(_mm512_packs_epi32(chunk[2], chunk[3]), _mm512_permutexvar_epi16(hi_at, scz)));
        /* the offsets: 32 * sum_g sc_g * (x's q summed over g) */
        const __m256i off = _mm256_slli_epi32(_mm256_madd_epi16(sc16, _mm256_loadu_si256((const __m256i *)x->bsum)), 5);
        sum = _mm512_sub_epi32(sum, _mm512_zextsi256_si512(off));
        acc = _mm512_fmadd_ps(_mm512_set1_ps(MQ_F(f16)(w + 208) * x->d), _mm512_cvtepi32_ps(sum), acc);
    }
    return _mm512_reduce_add_ps(acc);
}
#define MQ_DOT_Q6_K MQ_F(dot_q6_k_zmm)
#endif

static const wk_mq_kernels MQ_F(kernels) = {
    .name = MQ_NAME,
    .dot = {[WK_QI_Q4_0] = MQ_F(dot_q4_0), [WK_QI_Q4_1] = MQ_F(dot_q4_1), [WK_QI_Q5_0] = MQ_F(dot_q5_0),
            [WK_QI_Q5_1] = MQ_F(dot_q5_1), [WK_QI_Q8_0] = MQ_F(dot_q8_0), [WK_QI_Q4_K] = MQ_F(dot_q4_k),
            [WK_QI_Q5_K] = MQ_F(dot_q5_k), [WK_QI_Q6_K] = MQ_DOT_Q6_K, [WK_QI_IQ4_NL] = MQ_F(dot_iq4_nl)},
    .dot8 = {[WK_QI_Q4_0] = MQ_DOT8_Q4_0, [WK_QI_Q5_0] = MQ_F(dot8_q5_0), [WK_QI_Q8_0] = MQ_F(dot8_q8_0),
             [WK_QI_IQ4_NL] = MQ_F(dot8_iq4_nl)},
};
#undef MQ_DOT8_Q4_0
#undef MQ_DOT_Q6_K
#undef MQ_AHEAD
