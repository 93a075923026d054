/* dtype.c: dtype names and sizes, round-to-nearest-even f16/bf16 conversions, and the saturating
 * double -> integer conversions that wk_cast, wk_full and the scalars of affine/clamp share. */
#include "core/dtype.h"
#include "core/quant_blocks.h"

#include <math.h>
#include <string.h>

static const char *const dtype_names[WK_DTYPE_ALL_COUNT] = {
    "u8", "u32", "i32", "i64", "f16", "bf16", "f32", "f64", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0",
    "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q8_k", "iq4_nl", "iq4_xs"};
static const size_t dtype_sizes[WK_DTYPE_COUNT] = {1, 4, 4, 8, 2, 2, 4, 8};

_Static_assert(WK_IQ4_XS - WK_Q4_0 + 1 == WK_QI_COUNT && WK_DTYPE_ALL_COUNT == WK_DTYPE_COUNT + WK_QI_COUNT &&
                   WK_Q4_0 == WK_DTYPE_COUNT,
               "the block dtypes follow the element dtypes, in core/quant_blocks.h's order");
_Static_assert(WK_Q8_0 - WK_Q4_0 == WK_QI_Q8_0 && WK_Q4_K - WK_Q4_0 == WK_QI_Q4_K &&
                   WK_Q6_K - WK_Q4_0 == WK_QI_Q6_K && WK_IQ4_NL - WK_Q4_0 == WK_QI_IQ4_NL,
               "wk_dtype and core/quant_blocks.h number the block types alike");

static bool dtype_valid(wk_dtype dt) { return (unsigned)dt < WK_DTYPE_ALL_COUNT; }

size_t wk_dtype_size(wk_dtype dt) { return (unsigned)dt < WK_DTYPE_COUNT ? dtype_sizes[dt] : 0; }
const char *wk_dtype_name(wk_dtype dt) { return dtype_valid(dt) ? dtype_names[dt] : "invalid"; }
bool wk_dtype_is_float(wk_dtype dt) { return dt == WK_F16 || dt == WK_BF16 || dt == WK_F32 || dt == WK_F64; }
bool wk_dtype_is_quantized(wk_dtype dt) { return dt >= WK_Q4_0 && dt <= WK_IQ4_XS; }

int64_t wk_dtype_block_size(wk_dtype dt)
{
    if (wk_dtype_is_quantized(dt))
        return wk_qi_block((int)dt - WK_Q4_0);
    return wk_dtype_size(dt) ? 1 : 0;
}

size_t wk_dtype_block_bytes(wk_dtype dt)
{
    if (wk_dtype_is_quantized(dt))
        return (size_t)wk_qi_bytes((int)dt - WK_Q4_0);
    return wk_dtype_size(dt);
}

wk_status wk_dtype_from_name(const char *name, wk_dtype *out)
{
    if (name && out)
        for (int i = 0; i < WK_DTYPE_ALL_COUNT; i++)
            if (strcmp(name, dtype_names[i]) == 0) {
                *out = (wk_dtype)i;
                return WK_OK;
            }
    return WK_ERR_INVALID_ARGUMENT;
}

/* f32 <-> f16/bf16: the bodies are in numerics.h, shared with the CPU's and the GPU's kernels. */
uint16_t wk_f32_to_bf16(float x) { return wk_f32_to_bf16_bits(x); }
float wk_bf16_to_f32(uint16_t h) { return wk_bf16_bits_to_f32(h); }
uint16_t wk_f32_to_f16(float x) { return wk_f32_to_f16_bits(x); }
float wk_f16_to_f32(uint16_t h) { return wk_f16_bits_to_f32(h); }

uint16_t wk_f64_to_f16(double v) { return wk_f32_to_f16_bits(wk_f64_to_f32_odd(v)); }
uint16_t wk_f64_to_bf16(double v) { return wk_f32_to_bf16_bits(wk_f64_to_f32_odd(v)); }

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
    default: break; /* the block types have no scalar form: ops/ refuses them first */
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
