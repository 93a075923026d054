/* vmath.h: branch-free f32 exp, log, tanh, sigmoid, exact gelu and rounding that GCC vectorises (libm's are scalar
 * calls), and the chunked gather/scatter that runs strided or f16/bf16 operands through the contiguous loops. */
#ifndef WK_CPU_VMATH_H
#define WK_CPU_VMATH_H

#include <stdint.h>
#include <string.h>

#include "cpu/cpu.h"

/* The build uses plain -O3 (SSE2 on x86-64): contiguous kernels also get AVX2 and AVX-512 clones, picked at
 * load time through ifunc (GCC 11+ on x86-64 ELF; elsewhere the SSE2 loops alone). Not under ThreadSanitizer:
 * the loader runs the resolvers before TSan's runtime is set up, and GCC instruments them (a crash at load). */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER) && __GNUC__ >= 11 && \
    defined(__x86_64__) && defined(__ELF__) && !defined(__SANITIZE_THREAD__)
#define WK_VEC_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define WK_VEC_CLONES
#endif

static inline uint32_t wk_f32_as_u32(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float wk_u32_as_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* c ? a : b as a bitwise blend. GCC turns a ternary whose arm is a constant into a branch (and then cannot
 * vectorise the loop); the blend stays straight-line code. NaN in b passes when c is false. */
static inline float wk_vsel(int c, float a, float b)
{
    uint32_t m = 0u - (uint32_t)c;
    return wk_u32_as_f32((wk_f32_as_u32(a) & m) | (wk_f32_as_u32(b) & ~m));
}

static inline float wk_vabsf(float x) { return wk_u32_as_f32(wk_f32_as_u32(x) & 0x7fffffffu); }

/* e^x within ~1 ulp: x = n ln2 + r with |r| <= ln2/2 (Cephes' polynomial for e^r). 2^n is applied as two
 * factors so that n in [-151, 129] needs no branch: large x overflows to inf, small x underflows through the
 * subnormals to 0, NaN stays NaN (the integer part of a NaN is garbage, but multiplies a NaN). Rounding to
 * n uses the 1.5*2^23 trick, so no float->int conversion (undefined for NaN) happens. */
static inline float wk_vexpf(float x)
{
    const float magic = 0x1.8p23f;
    float xc = wk_vsel(x < -104.0f, -104.0f, x);
    xc = wk_vsel(xc > 89.0f, 89.0f, xc);
    float t = xc * 1.44269504088896341f + magic;
    float n = t - magic;
    uint32_t nb = wk_f32_as_u32(t) - 0x4b400000u + 256u; /* n + 256, in [105, 385] for numbers */
    float r = xc - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    uint32_t h = nb >> 1;                          /* floor(n/2) + 128 */
    float s1 = wk_u32_as_f32((h - 1u) << 23);      /* 2^floor(n/2) */
    float s2 = wk_u32_as_f32((nb - h - 1u) << 23); /* 2^(n - floor(n/2)) */
    return p * s1 * s2;
}

/* log(x) within ~1 ulp (Cephes): x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) by a polynomial in m-1.
 * Subnormals are scaled by 2^23 first; x < 0 and NaN give NaN, 0 gives -inf, inf gives inf. */
static inline float wk_vlogf(float x)
{
    int sub = x < 0x1p-126f;
    float xs = wk_vsel(sub, x * 0x1p23f, x);
    uint32_t u = wk_f32_as_u32(xs);
    float e = (float)(int32_t)((u >> 23) & 0xffu) - wk_vsel(sub, 149.0f, 126.0f);
    float m = wk_u32_as_f32((u & 0x007fffffu) | 0x3f000000u); /* [0.5, 1) */
    int small = m < 0.707106781186547524f;
    e = wk_vsel(small, e - 1.0f, e);
    m = wk_vsel(small, m + m - 1.0f, m - 1.0f);
    float z = m * m;
    float y = 7.0376836292e-2f;
    y = y * m - 1.1514610310e-1f;
    y = y * m + 1.1676998740e-1f;
    y = y * m - 1.2420140846e-1f;
    y = y * m + 1.4249322787e-1f;
    y = y * m - 1.6668057665e-1f;
    y = y * m + 2.0000714765e-1f;
    y = y * m - 2.4999993993e-1f;
    y = y * m + 3.3333331174e-1f;
    y = y * m * z;
    y = y + e * -2.12194440e-4f;
    y = y - 0.5f * z;
    float res = m + y + e * 0.693359375f;
    res = wk_vsel(x == 0.0f, -__builtin_inff(), res);
    res = wk_vsel(x == __builtin_inff(), x, res);
    return wk_vsel((x < 0.0f) | (x != x), __builtin_nanf(""), res);
}

/* tanh: an odd polynomial below |x| = 0.625 (Cephes), else 1 - 2/(e^{2|x|} + 1) with x's sign. */
static inline float wk_vtanhf(float x)
{
    float ax = wk_vabsf(x);
    float z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    float small = p * z * x + x;
    float big = 1.0f - 2.0f / (wk_vexpf(ax + ax) + 1.0f);
    big = wk_u32_as_f32(wk_f32_as_u32(big) | (wk_f32_as_u32(x) & 0x80000000u)); /* x's sign */
    return wk_vsel(ax < 0.625f, small, big);
}

/* 1 / (1 + e^-x) through e = e^{-|x|} <= 1, so neither side loses precision or overflows. */
static inline float wk_vsigmoidf(float x)
{
    float e = wk_vexpf(-wk_vabsf(x));
    float d = 1.0f / (1.0f + e);
    return wk_vsel(x < 0.0f, e * d, d);
}

/* gelu(v) = v Phi(v) = v erfc(-v / sqrt 2) / 2 within about 8 ulp (4.5e-7 relative; test_gelu_erf checks it against
 * libm's erfc in f64), branch-free. With h = Phi(-|v|) = erfc(|v| / sqrt 2) / 2: v h for v < 0, v (1 - h) else, so
 * the negative side keeps its relative precision far into the tail. h = e^{-v^2 / 2} erfcx(a) / 2 with
 * a = |v| / sqrt 2: erfcx(a) = erfc(a) e^{a^2} is smooth, t P(t) with t = 2 / (2 + a) and P of degree 10
 * (scripts/fit-erfcx.py fits it to scipy's erfcx over a in [0, 10.25]: 2.2e-8 with these f32 coefficients). v^2 is
 * split exactly into the squares and product of v's top and bottom 12 bits, so e^{-v^2/2} carries no rounding of v^2
 * (which near v = -4 alone would cost 16 ulp). |v| is capped at 15, where h is 0 in f32: gelu(inf) = inf,
 * gelu(-inf) = -inf * 0 = NaN (as PyTorch), NaN stays NaN. */
static inline float wk_vgelu_erff(float v)
{
    float av = wk_vabsf(v);
    av = wk_vsel(av > 15.0f, 15.0f, av);
    float t = 2.0f / (2.0f + av * 0.707106781186547524f);
    float p = 3.586058691e-02f;
    p = p * t - 1.915883422e-01f;
    p = p * t + 3.828636110e-01f;
    p = p * t - 2.917556167e-01f;
    p = p * t - 1.989755407e-02f;
    p = p * t + 3.410192952e-02f;
    p = p * t + 5.543006584e-02f;
    p = p * t + 1.854407340e-01f;
    p = p * t + 2.452062815e-01f;
    p = p * t + 2.822496891e-01f;
    p = p * t + 2.820886374e-01f;
    float hi = wk_u32_as_f32(wk_f32_as_u32(av) & 0xfffff000u), lo = av - hi;
    float g = wk_vexpf(-0.5f * (hi * hi)) * wk_vexpf(-0.5f * (2.0f * hi * lo + lo * lo));
    float tp = t * p; /* erfcx(a); h = g tp / 2, whose product with v is formed last below 0: h is subnormal there */
    return wk_vsel(v < 0.0f, (0.5f * v * tp) * g, v * (1.0f - 0.5f * g * tp));
}

/* Round half to even (the default rounding mode) by adding and removing 2^23; |x| >= 2^23, inf and NaN are
 * already integral. The sign is put back so that -0.3 gives -0. */
static inline float wk_vrintf(float x)
{
    float ax = wk_vabsf(x);
    float r = (ax + 0x1p23f) - 0x1p23f;
    r = wk_u32_as_f32(wk_f32_as_u32(r) | (wk_f32_as_u32(x) & 0x80000000u));
    return wk_vsel(ax < 0x1p23f, r, x);
}

static inline float wk_vfloorf(float x)
{
    float r = wk_vrintf(x);
    return wk_vsel(r > x, r - 1.0f, r);
}

/* As -floor(-x), so that ceil(-0.7) is -0. */
static inline float wk_vceilf(float x) { return -wk_vfloorf(-x); }

/* ---- chunks: strided or f16/bf16 operands are gathered into a contiguous buffer of the compute type */

#define WK_CHUNK 512

/* Size of an element of dt's compute type (f16/bf16 compute in f32). */
static inline size_t wk_compute_size(wk_dtype dt)
{
    return dt == WK_F16 || dt == WK_BF16 ? sizeof(float) : wk_dtype_size(dt);
}

/* n elements of es bytes from src (byte stride, may be 0) to contiguous dst. */
static inline void wk_chunk_gather(size_t es, void *dst, const char *src, int64_t stride, int64_t n)
{
    switch (es) {
#define WK_GATHER_CASE(bytes, T)                                               \
    case bytes:                                                                \
        for (int64_t i = 0; i < n; i++)                                        \
            memcpy((T *)dst + i, src + i * stride, sizeof(T));                 \
        break;
        WK_GATHER_CASE(1, uint8_t)
        WK_GATHER_CASE(2, uint16_t)
        WK_GATHER_CASE(4, uint32_t)
        WK_GATHER_CASE(8, uint64_t)
#undef WK_GATHER_CASE
    default: break;
    }
}

/* n contiguous elements of es bytes from src to dst (byte stride). */
static inline void wk_chunk_scatter(size_t es, char *dst, int64_t stride, const void *src, int64_t n)
{
    switch (es) {
#define WK_SCATTER_CASE(bytes, T)                                              \
    case bytes:                                                                \
        for (int64_t i = 0; i < n; i++)                                        \
            memcpy(dst + i * stride, (const T *)src + i, sizeof(T));           \
        break;
        WK_SCATTER_CASE(1, uint8_t)
        WK_SCATTER_CASE(2, uint16_t)
        WK_SCATTER_CASE(4, uint32_t)
        WK_SCATTER_CASE(8, uint64_t)
#undef WK_SCATTER_CASE
    default: break;
    }
}

/* Gathers n elements of dtype dt into dst in the compute type (f16/bf16 widened to f32). */
static inline void wk_chunk_load(wk_dtype dt, void *dst, const char *src, int64_t stride, int64_t n)
{
    float *f = dst;
    if (dt == WK_F16)
        for (int64_t i = 0; i < n; i++)
            f[i] = wk_ld_f16((const wk_f16_t *)(const void *)(src + i * stride));
    else if (dt == WK_BF16)
        for (int64_t i = 0; i < n; i++)
            f[i] = wk_ld_bf16((const wk_bf16_t *)(const void *)(src + i * stride));
    else
        wk_chunk_gather(wk_dtype_size(dt), dst, src, stride, n);
}

/* Stores n compute-type elements from src as dtype dt (f16/bf16 rounded to nearest even). */
static inline void wk_chunk_store(wk_dtype dt, char *dst, int64_t stride, const void *src, int64_t n)
{
    const float *f = src;
    if (dt == WK_F16)
        for (int64_t i = 0; i < n; i++)
            wk_st_f16((wk_f16_t *)(void *)(dst + i * stride), f[i]);
    else if (dt == WK_BF16)
        for (int64_t i = 0; i < n; i++)
            wk_st_bf16((wk_bf16_t *)(void *)(dst + i * stride), f[i]);
    else
        wk_chunk_scatter(wk_dtype_size(dt), dst, stride, src, n);
}

#endif
