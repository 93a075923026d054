/* vhalf.h: branch-free f16 <-> f32 conversions that GCC vectorises, bit-identical to core/dtype.h's
 * wk_f16_to_f32_inline / wk_f32_to_f16_inline (whose branches keep the loops around them scalar). */
#ifndef WK_CPU_VHALF_H
#define WK_CPU_VHALF_H

#include <stdint.h>

#include "core/dtype.h"
#include "cpu/cpu.h"

/* c ? a : b on 32-bit patterns as a mask blend: a ternary GCC would turn into a branch stays a select. */
static inline uint32_t wk_vhalf_sel(int c, uint32_t a, uint32_t b)
{
    uint32_t m = 0u - (uint32_t)c;
    return (a & m) | (b & ~m);
}

/* Normal numbers and inf/NaN by rebiasing the exponent; subnormals and zero exactly as mantissa * 2^-24. */
static inline float wk_vf16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, a = h & 0x7fffu;
    uint32_t bias = wk_vhalf_sel(a >= 0x7c00u, 0x70000000u, 0x38000000u); /* exponent +224 or +112 */
    uint32_t normal = (a << 13) + bias;
    uint32_t sub = wk_f32_bits((float)(int32_t)a * 0x1p-24f);
    return wk_bits_f32(sign | wk_vhalf_sel(a < 0x400u, sub, normal));
}

/* Round to nearest even. Subnormal results come from adding 0.5 (exponent 126): the float add rounds the
 * mantissa bits that drop out (the default rounding mode), and the low bits of the sum are the f16. */
static inline uint16_t wk_vf32_to_f16(float x)
{
    uint32_t u = wk_f32_bits(x), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu);
    uint32_t sub = wk_f32_bits(wk_bits_f32(a) + 0.5f) - 0x3f000000u;
    uint32_t r = a - 0x38000000u;
    uint32_t normal = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
    uint32_t v = wk_vhalf_sel(a < 0x38800000u, sub, normal);
    v = wk_vhalf_sel(a >= 0x477ff000u, 0x7c00u, v);
    v = wk_vhalf_sel(a > 0x7f800000u, nan, v);
    return (uint16_t)(sign | v);
}

/* The same as wk_ld_f16 / wk_st_f16. */
static inline float wk_vld_f16(const wk_f16_t *p) { return wk_vf16_to_f32(*p); }
static inline void wk_vst_f16(wk_f16_t *p, float v) { *p = wk_vf32_to_f16(v); }

#endif
