/* dtype.c: dtype names and sizes, round-to-nearest-even f16/bf16 conversions, and the saturating
 * double -> integer conversions that wk_cast, wk_full and the scalars of affine/clamp share. */
#include "core/dtype.h"

#include <math.h>
#include <string.h>

static const char *const dtype_names[WK_DTYPE_COUNT] = {"u8", "u32", "i32", "i64", "f16", "bf16", "f32", "f64"};
static const size_t dtype_sizes[WK_DTYPE_COUNT] = {1, 4, 4, 8, 2, 2, 4, 8};

static bool dtype_valid(wk_dtype dt) { return (unsigned)dt < WK_DTYPE_COUNT; }

size_t wk_dtype_size(wk_dtype dt) { return dtype_valid(dt) ? dtype_sizes[dt] : 0; }
const char *wk_dtype_name(wk_dtype dt) { return dtype_valid(dt) ? dtype_names[dt] : "invalid"; }
bool wk_dtype_is_float(wk_dtype dt) { return dt == WK_F16 || dt == WK_BF16 || dt == WK_F32 || dt == WK_F64; }

wk_status wk_dtype_from_name(const char *name, wk_dtype *out)
{
    if (name && out)
        for (int i = 0; i < WK_DTYPE_COUNT; i++)
            if (strcmp(name, dtype_names[i]) == 0) {
                *out = (wk_dtype)i;
                return WK_OK;
            }
    return WK_ERR_INVALID_ARGUMENT;
}

/* f32 <-> f16/bf16: the bodies are inline in dtype.h for the per-element kernels. */
uint16_t wk_f32_to_bf16(float x) { return wk_f32_to_bf16_inline(x); }
float wk_bf16_to_f32(uint16_t h) { return wk_bf16_to_f32_inline(h); }
uint16_t wk_f32_to_f16(float x) { return wk_f32_to_f16_inline(x); }
float wk_f16_to_f32(uint16_t h) { return wk_f16_to_f32_inline(h); }

/* v rounded to f32 with round-to-odd (an inexact result gets its last mantissa bit set). Rounding that to
 * a format at least two bits narrower gives the correctly rounded result (Boldo & Melquiond). */
static float f64_to_f32_odd(double v)
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

uint16_t wk_f64_to_f16(double v) { return wk_f32_to_f16(f64_to_f32_odd(v)); }
uint16_t wk_f64_to_bf16(double v) { return wk_f32_to_bf16(f64_to_f32_odd(v)); }

uint8_t wk_sat_u8(double v)
{
    if (!(v == v)) return 0;
    if (v <= 0) return 0;
    if (v >= 255.0) return 255;
    return (uint8_t)v;
}

uint32_t wk_sat_u32(double v)
{
    if (!(v == v)) return 0;
    if (v <= 0) return 0;
    if (v >= 4294967295.0) return UINT32_MAX;
    return (uint32_t)v;
}

int32_t wk_sat_i32(double v)
{
    if (!(v == v)) return 0;
    if (v <= -2147483648.0) return INT32_MIN;
    if (v >= 2147483647.0) return INT32_MAX;
    return (int32_t)v;
}

int64_t wk_sat_i64(double v)
{
    if (!(v == v)) return 0;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    if (v >= 9223372036854775808.0) return INT64_MAX;
    return (int64_t)v;
}

wk_scalar wk_scalar_storage(wk_dtype dt, double v)
{
    wk_scalar s;
    memset(&s, 0, sizeof s);
    switch (dt) {
    case WK_U8: s.u8 = wk_sat_u8(v); break;
    case WK_U32: s.u32 = wk_sat_u32(v); break;
    case WK_I32: s.i32 = wk_sat_i32(v); break;
    case WK_I64: s.i64 = wk_sat_i64(v); break;
    case WK_F16: s.h = wk_f64_to_f16(v); break;
    case WK_BF16: s.h = wk_f64_to_bf16(v); break;
    case WK_F32: s.f32 = (float)v; break;
    case WK_F64: s.f64 = v; break;
    }
    return s;
}

wk_scalar wk_scalar_compute(wk_dtype dt, double v)
{
    wk_scalar s = wk_scalar_storage(dt, v);
    if (dt == WK_F16 || dt == WK_BF16) {
        memset(&s, 0, sizeof s);
        s.f32 = (float)v;
    }
    return s;
}
