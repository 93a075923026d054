/* quant_blocks.h: GGML's block-quantized formats (the GGUF layouts of ggml-common.h), written once for the host
 * and the GPU kernels: block sizes, one element's dequantized value, and the block quantizers (quant_k.h: K types).
 * Every product is rounded on its own (WK_QMUL), never fused with a following add: gguf-py's numpy and ggml's C
 * round twice, and the GPUs would fuse. Blocks are read as bytes (little-endian), never through a struct. */
#ifndef WK_CORE_QUANT_BLOCKS_H
#define WK_CORE_QUANT_BLOCKS_H

#include <stdbool.h>

#include "core/numerics.h"

/* The block types in wk_dtype's order, counted from WK_Q4_0 (core/dtype.c checks the two agree). */
enum wk_quant_index {
    WK_QI_Q4_0, WK_QI_Q4_1, WK_QI_Q5_0, WK_QI_Q5_1, WK_QI_Q8_0, WK_QI_Q2_K, WK_QI_Q3_K, WK_QI_Q4_K, WK_QI_Q5_K,
    WK_QI_Q6_K, WK_QI_Q8_K, WK_QI_IQ4_NL, WK_QI_IQ4_XS, WK_QI_COUNT
};
#define WK_QK 32      /* elements of a Q4_0 .. Q8_0 and IQ4_NL block */
#define WK_QK_K 256   /* elements of a K super-block and IQ4_XS */
#define WK_QBLOCK_MAX_BYTES 292

#if WK_DEVICE_PASS
#define WK_QMUL(a, b) wk_mul_rn((float)(a), (float)(b))
#else
#define WK_QMUL(a, b) ((float)(a) * (float)(b))
#endif

/* Elements of a block, and its bytes. */
WK_HD int wk_qi_block(int qi) { return qi <= WK_QI_Q8_0 || qi == WK_QI_IQ4_NL ? WK_QK : WK_QK_K; }
WK_HD int wk_qi_bytes(int qi)
{
    switch (qi) {
    case WK_QI_Q4_0: return 2 + 16;
    case WK_QI_Q4_1: return 2 + 2 + 16;
    case WK_QI_Q5_0: return 2 + 4 + 16;
    case WK_QI_Q5_1: return 2 + 2 + 4 + 16;
    case WK_QI_Q8_0: return 2 + 32;
    case WK_QI_Q2_K: return 16 + 64 + 2 + 2;
    case WK_QI_Q3_K: return 32 + 64 + 12 + 2;
    case WK_QI_Q4_K: return 2 + 2 + 12 + 128;
    case WK_QI_Q5_K: return 2 + 2 + 12 + 32 + 128;
    case WK_QI_Q6_K: return 128 + 64 + 16 + 2;
    case WK_QI_Q8_K: return 4 + 256 + 32;
    case WK_QI_IQ4_NL: return 2 + 16;
    default: return 2 + 2 + 4 + 128; /* IQ4_XS */
    }
}
/* The types wk_quantize makes. */
WK_HD bool wk_qi_quantizable(int qi)
{
    return qi <= WK_QI_Q8_0 || qi == WK_QI_Q4_K || qi == WK_QI_Q5_K || qi == WK_QI_Q6_K;
}

WK_HD float wk_q_f16(const uint8_t *p) { return wk_f16_bits_to_f32((uint16_t)(p[0] | (p[1] << 8))); }
WK_HD void wk_q_put_f16(uint8_t *p, float v)
{
    uint16_t h = wk_f32_to_f16_bits_sw(v); /* on an H100 (CUDA 13.0) the hardware conversion here stored 0 low bytes */
    p[0] = (uint8_t)h;
    p[1] = (uint8_t)(h >> 8);
}
WK_HD uint32_t wk_q_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* IQ4_NL's 16 levels (-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113) as bytes. */
WK_HD float wk_q_iq4_level(unsigned q)
{
    const uint64_t lo = 0xf6eaddcfbfad9881ull, hi = 0x7159453526190d01ull;
    return (float)(int8_t)(uint8_t)((q < 8 ? lo : hi) >> (8 * (q & 7)));
}

/* Nibble j of 32 packed as GGML packs them: element j < 16 the low nibble of byte j, else the high of byte j-16. */
WK_HD unsigned wk_q_nib32(const uint8_t *qs, int j) { return j < 16 ? qs[j] & 15u : qs[j - 16] >> 4; }

/* Q4_K / Q5_K: the 6-bit scale and min of sub-block s (get_scale_min_k4). */
WK_HD void wk_q_scale_min_k4(const uint8_t *q, int s, unsigned *sc, unsigned *m)
{
    if (s < 4) {
        *sc = q[s] & 63u;
        *m = q[s + 4] & 63u;
    } else {
        *sc = (q[s + 4] & 15u) | ((q[s - 4] >> 6) << 4);
        *m = (q[s + 4] >> 4) | ((q[s] >> 6) << 4);
    }
}

/* Element j of the K super-blocks, as gguf-py's dequantize_blocks computes it. */
WK_HD float wk_q_value_k(int qi, const uint8_t *b, int j)
{
    int h = j / 128, sh = (j % 128) / 32, l = j % 32;
    switch (qi) {
    case WK_QI_Q2_K: {
        unsigned sc = b[j / 16], q = (b[16 + h * 32 + l] >> (2 * sh)) & 3u;
        float dl = WK_QMUL(wk_q_f16(b + 80), sc & 15u), ml = WK_QMUL(wk_q_f16(b + 82), sc >> 4);
        return WK_QMUL(dl, q) - ml;
    }
    case WK_QI_Q3_K: {
        const uint8_t *sc = b + 96;
        int i = j / 16;
        unsigned lo = i < 8 ? sc[i] & 15u : sc[i - 8] >> 4, hi2 = (sc[8 + i % 4] >> (2 * (i / 4))) & 3u;
        int scale = (int)(lo | (hi2 << 4)) - 32;
        int q = (int)((b[32 + h * 32 + l] >> (2 * sh)) & 3u) - (((b[j % 32] >> (j / 32)) & 1u) ? 0 : 4);
        return WK_QMUL(WK_QMUL(wk_q_f16(b + 108), scale), q);
    }
    case WK_QI_Q4_K:
    case WK_QI_Q5_K: {
        unsigned sc, m;
        wk_q_scale_min_k4(b + 4, j / 32, &sc, &m);
        const uint8_t *qs = b + (qi == WK_QI_Q4_K ? 16 : 48);
        unsigned q = (qs[(j / 64) * 32 + l] >> (4 * ((j / 32) & 1))) & 15u;
        if (qi == WK_QI_Q5_K)
            q |= ((b[16 + l] >> (j / 32)) & 1u) << 4;
        return WK_QMUL(WK_QMUL(wk_q_f16(b), sc), q) - WK_QMUL(wk_q_f16(b + 2), m);
    }
    case WK_QI_Q6_K: {
        int r = j % 128;
        unsigned ql = (b[h * 64 + r % 64] >> (4 * (r / 64))) & 15u, qh = (b[128 + h * 32 + l] >> (2 * sh)) & 3u;
        int q = (int)(ql | (qh << 4)) - 32;
        return WK_QMUL(WK_QMUL(wk_q_f16(b + 208), (int8_t)b[192 + j / 16]), q);
    }
    case WK_QI_Q8_K:
        return WK_QMUL(wk_bits_f32(wk_q_u32(b)), (int8_t)b[4 + j]);
    default: { /* IQ4_XS */
        int ib = j / 32, r = j % 32;
        unsigned lo = (b[4 + ib / 2] >> (4 * (ib % 2))) & 15u, hi2 = ((unsigned)(b[2] | (b[3] << 8)) >> (2 * ib)) & 3u;
        int scale = (int)(lo | (hi2 << 4)) - 32;
        unsigned q = (b[8 + ib * 16 + r % 16] >> (4 * (r / 16))) & 15u;
        return WK_QMUL(WK_QMUL(wk_q_f16(b), scale), wk_q_iq4_level(q));
    }
    }
}

/* Element j of block b of type qi, in f32. */
WK_HD float wk_q_value(int qi, const uint8_t *b, int j)
{
    switch (qi) {
    case WK_QI_Q4_0: return WK_QMUL(wk_q_f16(b), (int)wk_q_nib32(b + 2, j) - 8);
    case WK_QI_Q4_1: return WK_QMUL(wk_q_f16(b), wk_q_nib32(b + 4, j)) + wk_q_f16(b + 2);
    case WK_QI_Q5_0: {
        unsigned q = wk_q_nib32(b + 6, j) | (((wk_q_u32(b + 2) >> j) & 1u) << 4);
        return WK_QMUL(wk_q_f16(b), (int)q - 16);
    }
    case WK_QI_Q5_1: {
        unsigned q = wk_q_nib32(b + 8, j) | (((wk_q_u32(b + 4) >> j) & 1u) << 4);
        return WK_QMUL(wk_q_f16(b), q) + wk_q_f16(b + 2);
    }
    case WK_QI_Q8_0: return WK_QMUL((int8_t)b[2 + j], wk_q_f16(b));
    case WK_QI_IQ4_NL: return WK_QMUL(wk_q_f16(b), wk_q_iq4_level(wk_q_nib32(b + 2, j)));
    default: return wk_q_value_k(qi, b, j);
    }
}

/* (float)q for |q| < 2^22, exactly, as an integer add and a float subtract: the GPUs convert ints to floats at a
 * quarter of their add rate, which bounded the quantized mat-vec's decode. */
WK_HD float wk_q_i2f(int q) { return wk_bits_f32(0x4b400000u + (uint32_t)q) - 12582912.0f; }

/* Elements j0 .. j0+7 of block b of type qi (j0 a multiple of 8) into v: wk_q_value's values, with the scales a run
 * of 8 shares decoded once (the quantized matmul's decoder on every backend). The other types go by wk_q_value. */
WK_HD void wk_q_value8(int qi, const uint8_t *b, int j0, float *v)
{
    switch (qi) {
    case WK_QI_Q4_0: {
        float d = wk_q_f16(b);
        const uint8_t *qs = b + 2 + (j0 & 15);
        int sh = j0 < 16 ? 0 : 4;
        for (int t = 0; t < 8; t++)
            v[t] = WK_QMUL(d, wk_q_i2f((int)((qs[t] >> sh) & 15u) - 8));
        return;
    }
    case WK_QI_Q8_0: {
        float d = wk_q_f16(b);
        for (int t = 0; t < 8; t++)
            v[t] = WK_QMUL(wk_q_i2f((int8_t)b[2 + j0 + t]), d);
        return;
    }
    case WK_QI_Q4_K:
    case WK_QI_Q5_K: {
        unsigned sc, m;
        wk_q_scale_min_k4(b + 4, j0 / 32, &sc, &m);
        float ds = WK_QMUL(wk_q_f16(b), sc), dm = WK_QMUL(wk_q_f16(b + 2), m);
        const uint8_t *qs = b + (qi == WK_QI_Q4_K ? 16 : 48) + (j0 / 64) * 32 + j0 % 32, *qh = b + 16 + j0 % 32;
        int sh = 4 * ((j0 / 32) & 1);
        for (int t = 0; t < 8; t++) {
            unsigned q = (qs[t] >> sh) & 15u;
            if (qi == WK_QI_Q5_K)
                q |= ((qh[t] >> (j0 / 32)) & 1u) << 4;
            v[t] = WK_QMUL(ds, wk_q_i2f((int)q)) - dm;
        }
        return;
    }
    case WK_QI_Q6_K: {
        int h = j0 / 128, r = j0 % 128;
        const uint8_t *ql = b + h * 64 + r % 64, *qh = b + 128 + h * 32 + j0 % 32;
        int lsh = 4 * (r / 64), hsh = 2 * (r / 32);
        float ds = WK_QMUL(wk_q_f16(b + 208), (int8_t)b[192 + j0 / 16]);
        for (int t = 0; t < 8; t++)
            v[t] = WK_QMUL(ds, wk_q_i2f((int)(((ql[t] >> lsh) & 15u) | (((qh[t] >> hsh) & 3u) << 4)) - 32));
        return;
    }
    default:
        for (int t = 0; t < 8; t++)
            v[t] = wk_q_value(qi, b, j0 + t);
        return;
    }
}

/* ---------------------------------------------------------------- quantizers of 32-element blocks */
/* numpy's float -> uint8/int8 cast (astype) on x86-64: through a 32-bit int, INT32_MIN where it does not fit. */
WK_HD int32_t wk_q_to_i32(float v) { return v >= -2147483648.0f && v < 2147483648.0f ? (int32_t)v : INT32_MIN; }
WK_HD unsigned wk_q_trunc_clip(float v, unsigned top)
{
    unsigned q = (uint8_t)wk_q_to_i32(truncf(v));
    return q < top ? q : top;
}

/* Q4_0 / Q5_0: the element of largest magnitude (the first of equals) scales to -8 / -16 (gguf-py's quantize). */
WK_HD void wk_q_quant_sym(const float *x, uint8_t *y, int bits)
{
    float amax = 0, max = x[0]; /* numpy's argmax: index 0 when every |x| is 0 (-0 gives d = +0) */
    for (int j = 0; j < WK_QK; j++)
        if (fabsf(x[j]) > amax) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    float d = max / (bits == 4 ? -8.0f : -16.0f), id = d == 0 ? 0.0f : 1.0f / d;
    float off = bits == 4 ? 8.5f : 16.5f;
    unsigned top = bits == 4 ? 15u : 31u, q[WK_QK];
    for (int j = 0; j < WK_QK; j++)
        q[j] = wk_q_trunc_clip(WK_QMUL(x[j], id) + off, top);
    wk_q_put_f16(y, d);
    uint8_t *qs = y + (bits == 4 ? 2 : 6);
    uint32_t qh = 0;
    for (int j = 0; j < 16; j++) {
        qs[j] = (uint8_t)((q[j] & 15u) | ((q[j + 16] << 4) & 0xf0u));
        qh |= ((q[j] >> 4) & 1u) << j | ((q[j + 16] >> 4) & 1u) << (j + 16);
    }
    if (bits == 5)
        for (int k = 0; k < 4; k++)
            y[2 + k] = (uint8_t)(qh >> (8 * k));
}

/* Q4_1 / Q5_1: min and (max - min) / 15 or 31. */
WK_HD void wk_q_quant_asym(const float *x, uint8_t *y, int bits)
{
    float mn = x[0], mx = x[0];
    for (int j = 1; j < WK_QK; j++) { /* the last of equals, as numpy's min/max: the sign of a zero min matters */
        mn = x[j] <= mn ? x[j] : mn;
        mx = x[j] >= mx ? x[j] : mx;
    }
    unsigned top = bits == 4 ? 15u : 31u, q[WK_QK];
    float d = (mx - mn) / (float)top, id = d == 0 ? 0.0f : 1.0f / d;
    for (int j = 0; j < WK_QK; j++)
        q[j] = wk_q_trunc_clip(WK_QMUL(x[j] - mn, id) + 0.5f, top);
    wk_q_put_f16(y, d);
    wk_q_put_f16(y + 2, mn);
    uint8_t *qs = y + (bits == 4 ? 4 : 8);
    uint32_t qh = 0;
    for (int j = 0; j < 16; j++) {
        qs[j] = (uint8_t)((q[j] & 15u) | ((q[j + 16] << 4) & 0xf0u));
        qh |= ((q[j] >> 4) & 1u) << j | ((q[j + 16] >> 4) & 1u) << (j + 16);
    }
    if (bits == 5)
        for (int k = 0; k < 4; k++)
            y[4 + k] = (uint8_t)(qh >> (8 * k));
}

/* Q8_0: amax / 127, values rounded half away from zero. */
WK_HD void wk_q_quant_q8_0(const float *x, uint8_t *y)
{
    float amax = 0;
    for (int j = 0; j < WK_QK; j++)
        amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
    float d = amax / 127.0f, id = d == 0 ? 0.0f : 1.0f / d;
    wk_q_put_f16(y, d);
    for (int j = 0; j < WK_QK; j++)
        y[2 + j] = (uint8_t)(int8_t)wk_q_to_i32(roundf(WK_QMUL(x[j], id)));
}

#include "core/quant_k.h"

/* Quantizes the block_size floats x into the block y of type qi (a quantizable type). */
WK_HD void wk_q_quantize_block(int qi, const float *x, uint8_t *y)
{
    switch (qi) {
    case WK_QI_Q4_0: wk_q_quant_sym(x, y, 4); break;
    case WK_QI_Q5_0: wk_q_quant_sym(x, y, 5); break;
    case WK_QI_Q4_1: wk_q_quant_asym(x, y, 4); break;
    case WK_QI_Q5_1: wk_q_quant_asym(x, y, 5); break;
    case WK_QI_Q8_0: wk_q_quant_q8_0(x, y); break;
    case WK_QI_Q6_K: wk_q_quant_q6_k(x, y); break;
    default: wk_q_quant_q45_k(x, y, qi == WK_QI_Q5_K ? 5 : 4); break;
    }
}

#endif
