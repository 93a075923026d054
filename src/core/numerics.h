/* numerics.h: the bit-exact arithmetic every backend must agree on, written once and compiled for the host (core/,
 * the CPU backend, the test reference) and for the GPU kernels (kernels/common.cuh includes it): f16/bf16
 * rounding, the round-to-odd steps of exact casts, Philox4x32-10, sampling's exp and draws, the merging of
 * strided dims, and the reorder family's index maps (pad, flip, roll, repeat). */
#ifndef WK_CORE_NUMERICS_H
#define WK_CORE_NUMERICS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define WK_HD static inline __host__ __device__
#else
#define WK_HD static inline
#endif
/* True in a GPU compiler's device pass, where the hardware's conversions (compat.h) serve. */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define WK_DEVICE_PASS 1
#else
#define WK_DEVICE_PASS 0
#endif

/* ---------------------------------------------------------------- bits */
WK_HD uint32_t wk_f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

WK_HD float wk_bits_f32(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* ---------------------------------------------------------------- f16 and bf16: round to nearest even */
/* NaN stays a (quiet) NaN with its sign. */
WK_HD uint16_t wk_f32_to_bf16_bits(float x)
{
    uint32_t u = wk_f32_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

WK_HD float wk_bf16_bits_to_f32(uint16_t h) { return wk_bits_f32((uint32_t)h << 16); }

/* IEEE binary16 from f32, round to nearest even; NaN keeps its sign and top payload bits, quieted; in integer
 * arithmetic only, so it gives the same bits on any target (the host's conversion, and the block quantizers' on a
 * GPU, core/quant_blocks.h). */
WK_HD uint16_t wk_f32_to_f16_bits_sw(float x)
{
    uint32_t u = wk_f32_bits(x);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) { /* below the smallest normal f16: subnormal or zero */
        if (a < 0x33000000u) /* < 2^-25 rounds to zero */
            return sign;
        uint32_t mant = (a & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(a >> 23); /* 14..24 */
        uint32_t half = 1u << (shift - 1);
        uint32_t rest = mant & ((1u << shift) - 1u);
        uint32_t r = mant >> shift;
        if (rest > half || (rest == half && (r & 1u)))
            r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = a - 0x38000000u; /* rebias exponent 127 -> 15, still with 23 mantissa bits */
    r += 0xfffu + ((r >> 13) & 1u);
    return (uint16_t)(sign | (r >> 13));
}

/* The same bits; the GPUs' own conversion (compat.h) serves in their device pass. */
WK_HD uint16_t wk_f32_to_f16_bits(float x)
{
#if WK_DEVICE_PASS
    return wk_hw_f32_to_f16_bits(x);
#else
    return wk_f32_to_f16_bits_sw(x);
#endif
}

WK_HD float wk_f16_bits_to_f32(uint16_t h)
{
#if WK_DEVICE_PASS
    return wk_hw_f16_bits_to_f32(h);
#else
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f)
        return wk_bits_f32(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    return wk_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
#endif
}

/* ---------------------------------------------------------------- exact casts through round-to-odd
 * A narrow float type is reached from a wide value in one correct rounding by rounding to an intermediate with
 * at least two more bits using round-to-odd (an inexact result gets its last mantissa bit set), then to nearest
 * even (Boldo & Melquiond): f64 -> f32 (odd) -> f16/bf16, and i64 -> f64 (odd) -> f32/f16/bf16. */
WK_HD float wk_f64_to_f32_odd(double v)
{
    float f = (float)v;
    if ((double)f == v || v != v)
        return f;
    uint32_t u = wk_f32_bits(f), sign = u & 0x80000000u, mag = u & 0x7fffffffu;
    if (mag == 0x7f800000u) /* overflowed: the largest finite f32 is the odd neighbour */
        return wk_bits_f32(sign | 0x7f7fffffu);
    if (!(mag & 1u))
        mag = fabs((double)f) < fabs(v) ? mag + 1 : mag - 1;
    return wk_bits_f32(sign | mag);
}

/* Exact below 2^53. */
WK_HD double wk_i64_to_f64_odd(int64_t v)
{
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (m >> 53) {
        int drop = 1;
        while (m >> drop >> 53)
            drop++;
        uint64_t kept = m >> drop;
        if (m & ((UINT64_C(1) << drop) - 1))
            kept |= 1;
        double r = (double)kept * (double)(UINT64_C(1) << drop);
        return v < 0 ? -r : r;
    }
    return v < 0 ? -(double)m : (double)m;
}

/* ---------------------------------------------------------------- Philox4x32-10
 * Salmon et al., SC'11; Random123's philox4x32_R with R = 10. Block b runs on counter (b & 0xffffffff, b >> 32,
 * 0, 0) with key (seed & 0xffffffff, seed >> 32); the recipe that turns its words into values is in cpu/rand.c.
 * Known answer: counter 0, key 0 -> (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8). */
#define WK_PHILOX_M0 0xD2511F53u
#define WK_PHILOX_M1 0xCD9E8D57u
#define WK_PHILOX_W0 0x9E3779B9u
#define WK_PHILOX_W1 0xBB67AE85u

/* The full counter (c0, c1, c2, c3); wk_philox4x32_10 is the block form (block, 0). */
WK_HD void wk_philox4x32_10_ctr(uint64_t lo, uint64_t hi, uint64_t seed, uint32_t w[4])
{
    uint32_t c0 = (uint32_t)lo, c1 = (uint32_t)(lo >> 32), c2 = (uint32_t)hi, c3 = (uint32_t)(hi >> 32);
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k0 += WK_PHILOX_W0;
            k1 += WK_PHILOX_W1;
        }
        uint64_t p0 = (uint64_t)WK_PHILOX_M0 * c0, p1 = (uint64_t)WK_PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
    }
    w[0] = c0;
    w[1] = c1;
    w[2] = c2;
    w[3] = c3;
}

WK_HD void wk_philox4x32_10(uint64_t block, uint64_t seed, uint32_t w[4]) { wk_philox4x32_10_ctr(block, 0, seed, w); }

/* 24-bit uniform of a word in [0, 1); 53-bit uniform of a pair of words in [0, 1). */
WK_HD float wk_philox_u24(uint32_t w) { return (float)(w >> 8) * 0x1p-24f; }
WK_HD double wk_philox_u53(uint32_t a, uint32_t b) { return (double)((((uint64_t)a << 32) | b) >> 11) * 0x1p-53; }

/* ---------------------------------------------------------------- sampling (ops/sample.c, wick.h's rules)
 * The draw of row r at step `step` for a key `seed`: Philox on the counter (step, r), words 0 and 1 as a 53-bit
 * uniform in [0, 1). multinomial's draw j of row r: counter (j, r). */
WK_HD double wk_sample_uniform(uint64_t seed, uint64_t step, uint64_t row)
{
    uint32_t w[4];
    wk_philox4x32_10_ctr(step, row, seed, w);
    return wk_philox_u53(w[0], w[1]);
}

/* exp(d) for d <= 0 in f64, the same bits on every backend: d = n ln2 + r with |r| <= ln2/2 (ln2 in two parts),
 * a degree-13 Taylor polynomial of r by Horner, times 2^n. Every multiply-add is an explicit fma (correctly
 * rounded everywhere), so no compiler's contraction can change a bit. exp(0) is exactly 1, below -745 it is 0. */
WK_HD double wk_exp_det(double d)
{
    if (!(d > -745.0))
        return d != d ? d : 0.0;
    if (d >= 0.0)
        return 1.0;
    double n = nearbyint(d * 1.4426950408889634);
    double r = fma(-n, 6.93147180369123816490e-01, d);
    r = fma(-n, 1.90821492927058770002e-10, r);
    double p = fma(1.0 / 6227020800.0, r, 1.0 / 479001600.0);
    p = fma(fma(fma(p, r, 1.0 / 39916800.0), r, 1.0 / 3628800.0), r, 1.0 / 362880.0);
    p = fma(fma(fma(p, r, 1.0 / 40320.0), r, 1.0 / 5040.0), r, 1.0 / 720.0);
    p = fma(fma(fma(p, r, 1.0 / 120.0), r, 1.0 / 24.0), r, 1.0 / 6.0);
    p = fma(fma(fma(p, r, 0.5), r, 1.0), r, 1.0);
    return ldexp(p, (int)n);
}

/* The unnormalised weight of a sampling candidate: z = v / t in f32, then exp((double)z - (double)zmax), with
 * z == zmax weighing exactly 1 (so +inf logits weigh 1 and the rest 0). NaN gives NaN. */
WK_HD double wk_sample_weight(float v, float vmax, float t)
{
    float z = v / t, zmax = vmax / t;
    if (z == zmax)
        return 1.0;
    return wk_exp_det((double)z - (double)zmax);
}

/* Cumulative sums over weights are taken in blocks of WK_CDF_BLOCK consecutive entries: the running sum at
 * entry j is (the totals of the blocks before j's, added left to right from 0) + (the entries of j's block up
 * to j, added left to right from 0), all in f64. A GPU thread per block reproduces it bit for bit. */
#define WK_CDF_BLOCK 256

/* ---------------------------------------------------------------- strided dims */
/* Drops size-1 dims and merges each dim into the one before it where the two are contiguous with each other
 * (stride[d-1] == stride[d] * shape[d]), in place; returns the new count (0 for a single element). The element
 * at row-major index i is at the same offset before and after. */
WK_HD int wk_merge_dims(int n, int64_t *shape, int64_t *stride)
{
    int r = 0;
    for (int d = 0; d < n; d++) {
        if (shape[d] == 1)
            continue;
        if (r > 0 && stride[r - 1] == stride[d] * shape[d]) {
            shape[r - 1] *= shape[d];
            stride[r - 1] = stride[d];
            continue;
        }
        shape[r] = shape[d];
        stride[r++] = stride[d];
    }
    return r;
}

/* ---------------------------------------------------------------- reorder: index maps
 * The reorder family (pad, flip, roll, repeat, repeat_interleave) gathers: output element o along a dim reads the
 * input element wk_reorder_src(kind, o, n, a) along it (n: the input's size there), or the pad value when that is
 * -1. ops/ checks a (and the output size) so that every result lies in [0, n) or is -1. */
typedef enum wk_reorder_kind {
    WK_REORDER_SAME = 0,      /* o */
    WK_REORDER_FLIP = 1,      /* n-1-o */
    WK_REORDER_WRAP = 2,      /* o - a moved into [0, n) by one +-n: roll by a in [0, n), circular pad of a <= n */
    WK_REORDER_TILE = 3,      /* o mod n: repeat */
    WK_REORDER_SPREAD = 4,    /* o / a, a >= 1: repeat_interleave */
    WK_REORDER_CONSTANT = 5,  /* o - a, or -1 outside [0, n): constant pad (a < 0 crops) */
    WK_REORDER_REFLECT = 6,   /* o - a reflected at 0 and n-1 (edge not repeated), |a| < n */
    WK_REORDER_REPLICATE = 7  /* o - a clamped to [0, n-1] */
} wk_reorder_kind;
#define WK_REORDER_KIND_COUNT 8

WK_HD int64_t wk_reorder_src(int kind, int64_t o, int64_t n, int64_t a)
{
    int64_t i = o - a;
    switch (kind) {
    case WK_REORDER_FLIP: return n - 1 - o;
    case WK_REORDER_WRAP: return i < 0 ? i + n : i >= n ? i - n : i;
    case WK_REORDER_TILE: return o % n;
    case WK_REORDER_SPREAD: return o / a;
    case WK_REORDER_CONSTANT: return i >= 0 && i < n ? i : -1;
    case WK_REORDER_REFLECT: return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
    case WK_REORDER_REPLICATE: return i < 0 ? 0 : i >= n ? n - 1 : i;
    default: return o;
    }
}

#endif
