/* dtype.h: the scalar form of a double for each dtype (storage form for fills, arithmetic form for affine/clamp),
 * correctly rounded f64 -> f16/bf16 and saturating integer conversions; the f16/bf16 bit conversions are in
 * numerics.h. */
#ifndef WK_CORE_DTYPE_H
#define WK_CORE_DTYPE_H

#include <string.h>

#include "core/numerics.h"
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

#endif
