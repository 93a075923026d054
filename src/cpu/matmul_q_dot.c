/* matmul_q_dot.c: x's rows quantized to 8-bit blocks, the portable integer block dots (the reference every
 * instruction set's kernels are tested against, and the path of non-x86 builds), and the choice of kernels (CPUID,
 * WICK_CPU_ISA). */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpu/matmul_q_dot.h"

/* ---------------------------------------------------------------- quantizing x */
/* v rounded to the nearest integer, ties to even (|v| <= 127.5: the magic number's exact range is 2^22). */
static int mq_round(float v) { return (int)((v + 12582912.0f) - 12582912.0f); }

/* n values of x as d * q; false when one is NaN or infinite. Blocks whose largest magnitude is under 2^-100 are
 * scaled by 2^100 (exactly) first, so that 127 / amax stays finite. */
static bool quant_run(const float *x, int n, float *d, int8_t *q)
{
    float amax = 0;
    for (int j = 0; j < n; j++) {
        float a = fabsf(x[j]);
        if (!(a <= FLT_MAX))
            return false;
        amax = a > amax ? a : amax;
    }
    float s = amax < 0x1p-100f ? 0x1p100f : 1.0f, id = amax > 0 ? 127.0f / (amax * s) : 0.0f;
    for (int j = 0; j < n; j++)
        q[j] = (int8_t)mq_round(x[j] * s * id);
    *d = amax / 127.0f;
    return true;
}

bool wk_mq_quantize_x(const float *x, int64_t n, int bs, void *xq)
{
    if (bs == WK_QK) {
        wk_mq_x32 *b = xq;
        for (int64_t k = 0; k < n; k += WK_QK, b++) {
            if (!quant_run(x + k, WK_QK, &b->d, b->q))
                return false;
            b->sum = 0;
            for (int j = 0; j < WK_QK; j++)
                b->sum += b->q[j];
        }
        return true;
    }
    wk_mq_x256 *b = xq;
    for (int64_t k = 0; k < n; k += WK_QK_K, b++) {
        if (!quant_run(x + k, WK_QK_K, &b->d, b->q))
            return false;
        for (int g = 0; g < WK_QK_K / 16; g++) {
            int s = 0;
            for (int j = 0; j < 16; j++)
                s += b->q[16 * g + j];
            b->bsum[g] = (int16_t)s;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- the portable dots */
/* Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL: sum of w's integer levels times x's q over a 32-block; *mn: w's minimum (0 if none),
 * *d: w's scale. */
static inline int32_t block32_isum(int qi, const uint8_t *b, const int8_t *xq, int32_t xsum, float *d, float *mn)
{
    static const int8_t iq4[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
    const uint8_t *qs = b + (qi == WK_QI_Q4_1 ? 4 : qi == WK_QI_Q5_0 ? 6 : qi == WK_QI_Q5_1 ? 8 : 2);
    uint32_t qh = qi == WK_QI_Q5_0 ? wk_q_u32(b + 2) : qi == WK_QI_Q5_1 ? wk_q_u32(b + 4) : 0;
    int32_t s = 0;
    for (int j = 0; j < 16; j++) {
        int lo = (qs[j] & 15) | (int)(((qh >> j) & 1u) << 4), hi = (qs[j] >> 4) | (int)(((qh >> (j + 16)) & 1u) << 4);
        s += qi == WK_QI_IQ4_NL ? iq4[lo] * xq[j] + iq4[hi] * xq[j + 16] : lo * xq[j] + hi * xq[j + 16];
    }
    *d = wk_q_f16(b);
    *mn = qi == WK_QI_Q4_1 || qi == WK_QI_Q5_1 ? wk_q_f16(b + 2) : 0.0f;
    return s - (qi == WK_QI_Q4_0 ? 8 : qi == WK_QI_Q5_0 ? 16 : 0) * xsum; /* the levels' offsets */
}

#define MQ_PORTABLE_32(name, QI)                                                                                \
    static float name(const uint8_t *w, const void *xq, int64_t nb)                                             \
    {                                                                                                           \
        const wk_mq_x32 *x = xq;                                                                                \
        float acc = 0;                                                                                          \
        for (int64_t b = 0; b < nb; b++) {                                                                      \
            float d, mn;                                                                                        \
            int32_t s = block32_isum((QI), w + b * wk_qi_bytes(QI), x[b].q, x[b].sum, &d, &mn);                \
            acc += d * x[b].d * (float)s + mn * x[b].d * (float)x[b].sum;                                       \
        }                                                                                                       \
        return acc;                                                                                             \
    }
MQ_PORTABLE_32(dot_q4_0, WK_QI_Q4_0)
MQ_PORTABLE_32(dot_q4_1, WK_QI_Q4_1)
MQ_PORTABLE_32(dot_q5_0, WK_QI_Q5_0)
MQ_PORTABLE_32(dot_q5_1, WK_QI_Q5_1)
MQ_PORTABLE_32(dot_iq4_nl, WK_QI_IQ4_NL)
#undef MQ_PORTABLE_32

/* n signed bytes of w times x's q. */
static int32_t isum8(const uint8_t *w, const int8_t *q, int n)
{
    int32_t s = 0;
    for (int j = 0; j < n; j++)
        s += (int8_t)w[j] * q[j];
    return s;
}

static float dot_q8_0(const uint8_t *w, const void *xq, int64_t nb)
{
    const wk_mq_x32 *x = xq;
    float acc = 0;
    for (int64_t b = 0; b < nb; b++, w += 34)
        acc += wk_q_f16(w) * x[b].d * (float)isum8(w + 2, x[b].q, WK_QK);
    return acc;
}

/* Q4_K and Q5_K: d * sum_s sc_s * (w's q . x's q over sub-block s) - dmin * sum_s m_s * (x's q summed over s). */
static float dot_q45_k(int qi, const uint8_t *w, const wk_mq_x256 *x, int64_t nb)
{
    float acc = 0;
    const int bytes = wk_qi_bytes(qi), qs_at = qi == WK_QI_Q4_K ? 16 : 48;
    for (int64_t b = 0; b < nb; b++, w += bytes) {
        int32_t sum_sc = 0, sum_m = 0;
        for (int s = 0; s < 8; s++) {
            unsigned sc, m;
            wk_q_scale_min_k4(w + 4, s, &sc, &m);
            const uint8_t *qs = w + qs_at + (s / 2) * 32;
            int32_t t = 0;
            for (int l = 0; l < 32; l++) {
                int q = (qs[l] >> (4 * (s & 1))) & 15;
                if (qi == WK_QI_Q5_K)
                    q |= ((w[16 + l] >> s) & 1) << 4;
                t += q * x[b].q[32 * s + l];
            }
            sum_sc += (int32_t)sc * t;
            sum_m += (int32_t)m * (x[b].bsum[2 * s] + x[b].bsum[2 * s + 1]);
        }
        acc += x[b].d * (wk_q_f16(w) * (float)sum_sc - wk_q_f16(w + 2) * (float)sum_m);
    }
    return acc;
}
static float dot_q4_k(const uint8_t *w, const void *xq, int64_t nb) { return dot_q45_k(WK_QI_Q4_K, w, xq, nb); }
static float dot_q5_k(const uint8_t *w, const void *xq, int64_t nb) { return dot_q45_k(WK_QI_Q5_K, w, xq, nb); }

/* Q6_K: d * sum_g sc_g * ((w's 6-bit q - 32) . x's q over the 16 of group g); each half of 128 values packs byte l
 * of its low and high bits into values l, l + 32, l + 64, l + 96. */
static float dot_q6_k(const uint8_t *w, const void *xq, int64_t nb)
{
    const wk_mq_x256 *x = xq;
    float acc = 0;
    for (int64_t b = 0; b < nb; b++, w += 210) {
        int32_t t[16] = {0}, sum = 0;
        for (int h = 0; h < 2; h++) {
            const uint8_t *ql = w + 64 * h, *qh = w + 128 + 32 * h;
            const int8_t *q = x[b].q + 128 * h;
            for (int l = 0; l < 32; l++) {
                int g = 8 * h + l / 16;
                t[g] += ((ql[l] & 15) | ((qh[l] & 3) << 4)) * q[l];
                t[g + 2] += ((ql[l + 32] & 15) | (((qh[l] >> 2) & 3) << 4)) * q[l + 32];
                t[g + 4] += ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) * q[l + 64];
                t[g + 6] += ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) * q[l + 96];
            }
        }
        for (int g = 0; g < 16; g++)
            sum += (int8_t)w[192 + g] * (t[g] - 32 * x[b].bsum[g]);
        acc += wk_q_f16(w + 208) * x[b].d * (float)sum;
    }
    return acc;
}

static float dot_q8_k(const uint8_t *w, const void *xq, int64_t nb)
{
    const wk_mq_x256 *x = xq;
    float acc = 0;
    for (int64_t b = 0; b < nb; b++, w += 292)
        acc += wk_bits_f32(wk_q_u32(w)) * x[b].d * (float)isum8(w + 4, x[b].q, WK_QK_K);
    return acc;
}

static const wk_mq_kernels portable = {
    .name = "portable",
    .dot = {[WK_QI_Q4_0] = dot_q4_0, [WK_QI_Q4_1] = dot_q4_1, [WK_QI_Q5_0] = dot_q5_0, [WK_QI_Q5_1] = dot_q5_1,
            [WK_QI_Q8_0] = dot_q8_0, [WK_QI_Q4_K] = dot_q4_k, [WK_QI_Q5_K] = dot_q5_k, [WK_QI_Q6_K] = dot_q6_k,
            [WK_QI_Q8_K] = dot_q8_k, [WK_QI_IQ4_NL] = dot_iq4_nl},
};

/* ---------------------------------------------------------------- the choice */
const wk_mq_kernels *wk_mq_kernels_of(int isa)
{
    if (isa == WK_MQ_PORTABLE)
        return &portable;
    return isa > WK_MQ_PORTABLE && isa < WK_MQ_ISA_COUNT ? wk_mq_x86_kernels(isa) : NULL;
}

static const wk_mq_kernels *chosen;
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;

/* The best instruction set this CPU has, at most the one WICK_CPU_ISA names (unknown names: no cap); none under
 * WICK_CPU_MATMUL_Q=f32. */
static void choose(void)
{
    const char *f32 = getenv("WICK_CPU_MATMUL_Q");
    if (f32 && strcasecmp(f32, "f32") == 0)
        return;
    static const char *const names[WK_MQ_ISA_COUNT] = {"portable", "avx2", "avxvnni", "avx512"};
    const char *env = getenv("WICK_CPU_ISA");
    int cap = WK_MQ_ISA_COUNT - 1;
    for (int i = 0; env && i < WK_MQ_ISA_COUNT; i++)
        if (strcasecmp(env, names[i]) == 0)
            cap = i;
    chosen = &portable;
    for (int i = cap; i > WK_MQ_PORTABLE && chosen == &portable; i--)
        if (wk_mq_kernels_of(i))
            chosen = wk_mq_kernels_of(i);
}

const wk_mq_kernels *wk_mq_kernels_best(void)
{
    pthread_once(&chosen_once, choose);
    return chosen;
}
