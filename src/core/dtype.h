/* dtype.h: element conversions shared by the CPU backend and the test reference: f16/bf16 <-> f32 and the
 * scalar form of a double for each dtype (storage form for fills, arithmetic form for affine/clamp). */
#ifndef WK_CORE_DTYPE_H
#define WK_CORE_DTYPE_H

#include <string.h>

#include "wick.h"

/* A value already converted to one dtype, interpreted by that dtype. f16/bf16 storage form is .h;
 * their arithmetic form is .f32. */
typedef union wk_scalar {
    uint8_t u8;
    uint32_t u32;
    int32_t i32;
    int64_t i64;
    uint16_t h;
    float f32;
    double f64;
} wk_scalar;

/* v converted as wk_cast converts (float->int truncates and saturates, NaN -> 0) into dt's storage form. */
wk_scalar wk_scalar_storage(wk_dtype dt, double v);
/* v in dt's arithmetic type: f32 for f16/bf16 (after rounding through f32), otherwise as storage. */
wk_scalar wk_scalar_compute(wk_dtype dt, double v);

/* Correctly rounded (nearest even) f64 -> f16 / bf16 in one step: rounding to f32 first and then again
 * would round some values twice (1 + 2^-11 + 2^-40 must give 1 + 2^-10 in f16, not 1). */
uint16_t wk_f64_to_f16(double v);
uint16_t wk_f64_to_bf16(double v);

/* Saturating, NaN-to-zero conversion of a double to each integer type (truncation toward zero). */
uint8_t wk_sat_u8(double v);
uint32_t wk_sat_u32(double v);
int32_t wk_sat_i32(double v);
int64_t wk_sat_i64(double v);

/* Round-to-nearest-even f16/bf16 conversions (NaN stays NaN), inline for per-element kernels; the
 * public wk_f32_to_f16 etc. wrap them. */
static inline uint32_t wk_f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static inline float wk_bits_f32(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

static inline uint16_t wk_f32_to_bf16_inline(float x)
{
    uint32_t u = wk_f32_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN, sign kept */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline float wk_bf16_to_f32_inline(uint16_t h) { return wk_bits_f32((uint32_t)h << 16); }

static inline uint16_t wk_f32_to_f16_inline(float x)
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

static inline float wk_f16_to_f32_inline(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f)
        return wk_bits_f32(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    return wk_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

#endif
