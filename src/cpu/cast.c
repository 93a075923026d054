/* cast.c: the CPU's dtype conversion, all 8x8 pairs, strided, with the rules of wk_cast; vectorised
 * contiguous paths for f32 <-> f16 / bf16 / f64 / i32 (F16C chosen at run time on x86); and arange,
 * whose f64 values take the same conversions. */
#include <pthread.h>

#include "cpu/cpu.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CAST_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

/* ---- exact rounding: a narrow float type is reached from a wide value by round-to-odd to an intermediate
 * with at least two more bits, then round-to-nearest-even (core/dtype.c does f64 -> f16/bf16 so). */

/* Integer to signed type of the same width, wrapping as two's complement without implementation-defined casts. */
static inline int32_t wrap_i32(uint32_t u) { return u <= INT32_MAX ? (int32_t)u : -(int32_t)(~u) - 1; }

/* ---- element conversions through two canonical forms: int64_t for integer sources (every int dtype fits)
 * and double for float sources (every float dtype is exact in it). */

static inline int64_t ld_u8(const void *p) { return *(const uint8_t *)p; }
static inline int64_t ld_u32(const void *p) { return *(const uint32_t *)p; }
static inline int64_t ld_i32(const void *p) { return *(const int32_t *)p; }
static inline int64_t ld_i64(const void *p) { return *(const int64_t *)p; }
static inline double ld_f16(const void *p) { return wk_f16_to_f32(*(const uint16_t *)p); }
static inline double ld_bf16(const void *p) { return wk_bf16_to_f32(*(const uint16_t *)p); }
static inline double ld_f32(const void *p) { return *(const float *)p; }
static inline double ld_f64(const void *p) { return *(const double *)p; }

static inline void st_u8_int(void *p, int64_t v) { *(uint8_t *)p = (uint8_t)(uint64_t)v; }
static inline void st_u32_int(void *p, int64_t v) { *(uint32_t *)p = (uint32_t)(uint64_t)v; }
static inline void st_i32_int(void *p, int64_t v) { *(int32_t *)p = wrap_i32((uint32_t)(uint64_t)v); }
static inline void st_i64_int(void *p, int64_t v) { *(int64_t *)p = v; }
/* |v| >= 65520 is infinity in f16 and stays >= 65520 after the single rounding to f32, so one step is exact. */
static inline void st_f16_int(void *p, int64_t v) { *(uint16_t *)p = wk_f32_to_f16((float)v); }
static inline void st_bf16_int(void *p, int64_t v) { *(uint16_t *)p = wk_f64_to_bf16(wk_i64_to_f64_odd(v)); }
static inline void st_f32_int(void *p, int64_t v) { *(float *)p = (float)v; }
static inline void st_f64_int(void *p, int64_t v) { *(double *)p = (double)v; }

static inline void st_u8_flt(void *p, double v) { *(uint8_t *)p = wk_sat_u8(v); }
static inline void st_u32_flt(void *p, double v) { *(uint32_t *)p = wk_sat_u32(v); }
static inline void st_i32_flt(void *p, double v) { *(int32_t *)p = wk_sat_i32(v); }
static inline void st_i64_flt(void *p, double v) { *(int64_t *)p = wk_sat_i64(v); }
static inline void st_f16_flt(void *p, double v) { *(uint16_t *)p = wk_f64_to_f16(v); }
static inline void st_bf16_flt(void *p, double v) { *(uint16_t *)p = wk_f64_to_bf16(v); }
static inline void st_f32_flt(void *p, double v) { *(float *)p = (float)v; }
static inline void st_f64_flt(void *p, double v) { *(double *)p = v; }

#define CLASS_u8 int
#define CLASS_u32 int
#define CLASS_i32 int
#define CLASS_i64 int
#define CLASS_f16 flt
#define CLASS_bf16 flt
#define CLASS_f32 flt
#define CLASS_f64 flt
#define CAST_CAT4_(a, b, c, d) a##b##c##d
#define CAST_CAT4(a, b, c, d) CAST_CAT4_(a, b, c, d)
#define CAST_STORE(dsfx, ssfx) CAST_CAT4(st_, dsfx, _, CLASS_##ssfx)

/* ---- vectorised contiguous conversions for the pairs that move most data. Each returns the number of
 * elements it converted (a multiple of its vector width, or all); the generic loop finishes the rest. */

typedef int64_t (*cast_fast_fn)(void *dst, const void *src, int64_t n);

#if defined(__GNUC__) && !defined(__clang__) && defined(CAST_X86) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define CAST_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CAST_CLONES
#endif

CAST_CLONES static int64_t fast_f32_f64(void *dst, const void *src, int64_t n)
{
    double *d = dst;
    const float *s = src;
    for (int64_t i = 0; i < n; i++)
        d[i] = s[i];
    return n;
}

CAST_CLONES static int64_t fast_f64_f32(void *dst, const void *src, int64_t n)
{
    float *d = dst;
    const double *s = src;
    for (int64_t i = 0; i < n; i++)
        d[i] = (float)s[i];
    return n;
}

CAST_CLONES static int64_t fast_i32_f32(void *dst, const void *src, int64_t n)
{
    float *d = dst;
    const int32_t *s = src;
    for (int64_t i = 0; i < n; i++)
        d[i] = (float)s[i];
    return n;
}

/* Saturating, NaN -> 0, written with selects so it vectorises: the largest float below 2^31 is 2^31 - 128. */
CAST_CLONES static int64_t fast_f32_i32(void *dst, const void *src, int64_t n)
{
    int32_t *d = dst;
    const float *s = src;
    for (int64_t i = 0; i < n; i++) {
        float x = s[i];
        float c = x < 2147483520.0f ? x : 2147483520.0f;
        c = c > -2147483648.0f ? c : -2147483648.0f;
        c = x == x ? c : 0.0f;
        int32_t r = (int32_t)c;
        d[i] = x >= 2147483648.0f ? INT32_MAX : r;
    }
    return n;
}

CAST_CLONES static int64_t fast_bf16_f32(void *dst, const void *src, int64_t n)
{
    uint32_t *d = dst;
    const uint16_t *s = src;
    for (int64_t i = 0; i < n; i++)
        d[i] = (uint32_t)s[i] << 16;
    return n;
}

/* As wk_f32_to_bf16, branch-free. */
CAST_CLONES static int64_t fast_f32_bf16(void *dst, const void *src, int64_t n)
{
    uint16_t *d = dst;
    const uint32_t *s = src;
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = s[i];
        uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        uint32_t quiet = (u >> 16) | 0x40u;
        d[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
    }
    return n;
}

#ifdef CAST_X86
/* F16C rounds to nearest even and quiets NaN exactly as wk_f32_to_f16 does, so results are bit-identical. */
__attribute__((target("avx,f16c"))) static int64_t f16c_f32_f16(void *dst, const void *src, int64_t n)
{
    uint16_t *d = dst;
    const float *s = src;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(d + i), _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
    return i;
}

/* vcvtph2ps sets the quiet bit of a signalling NaN; it stays a NaN of the same sign. */
__attribute__((target("avx,f16c"))) static int64_t f16c_f16_f32(void *dst, const void *src, int64_t n)
{
    float *d = dst;
    const uint16_t *s = src;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))));
    return i;
}

/* AVX and F16C from CPUID leaf 1 (ECX bits 28 and 29), with the OS saving the AVX state (OSXSAVE, bit 27, and
 * XCR0's SSE and AVX bits): clang 14's __builtin_cpu_supports does not know "f16c". */
static bool f16c_found;
static pthread_once_t f16c_once = PTHREAD_ONCE_INIT;

static void find_f16c(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c >> 27 & 7) == 7) {
        unsigned lo, hi;
        __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        f16c_found = (lo & 6) == 6;
    }
}

/* Found once, by whichever thread casts first (several may at once). */
static bool has_f16c(void)
{
    pthread_once(&f16c_once, find_f16c);
    return f16c_found;
}
#endif

static cast_fast_fn fast_path(wk_dtype from, wk_dtype to)
{
    if (from == WK_F32) {
        switch (to) {
        case WK_F64: return fast_f32_f64;
        case WK_I32: return fast_f32_i32;
        case WK_BF16: return fast_f32_bf16;
#ifdef CAST_X86
        case WK_F16: return has_f16c() ? f16c_f32_f16 : NULL;
#endif
        default: return NULL;
        }
    }
    if (to == WK_F32) {
        switch (from) {
        case WK_F64: return fast_f64_f32;
        case WK_I32: return fast_i32_f32;
        case WK_BF16: return fast_bf16_f32;
#ifdef CAST_X86
        case WK_F16: return has_f16c() ? f16c_f16_f32 : NULL;
#endif
        default: return NULL;
        }
    }
    return NULL;
}

/* ---- the generic strided kernel of every pair, with the fast path first on contiguous runs */

typedef void (*cast_run_fn)(int64_t n, char *d, int64_t ds, const char *s, int64_t ss);

#define CAST_PAIR(ssfx, dsfx)                                                                       \
    static void cast_##ssfx##_##dsfx(int64_t n, char *d, int64_t ds, const char *s, int64_t ss)      \
    {                                                                                               \
        for (int64_t i = 0; i < n; i++)                                                             \
            CAST_STORE(dsfx, ssfx)(d + i * ds, ld_##ssfx(s + i * ss));                             \
    }
#define CAST_FROM(E, ssfx, T, C)                                                                    \
    CAST_PAIR(ssfx, u8) CAST_PAIR(ssfx, u32) CAST_PAIR(ssfx, i32) CAST_PAIR(ssfx, i64)              \
    CAST_PAIR(ssfx, f16) CAST_PAIR(ssfx, bf16) CAST_PAIR(ssfx, f32) CAST_PAIR(ssfx, f64)
WK_CPU_DTYPES(CAST_FROM)
#undef CAST_FROM
#undef CAST_PAIR

static const cast_run_fn cast_table[WK_DTYPE_COUNT][WK_DTYPE_COUNT] = {
#define CAST_ROW(E, ssfx, T, C)                                                                     \
    [E] = {[WK_U8] = cast_##ssfx##_u8, [WK_U32] = cast_##ssfx##_u32, [WK_I32] = cast_##ssfx##_i32,  \
           [WK_I64] = cast_##ssfx##_i64, [WK_F16] = cast_##ssfx##_f16, [WK_BF16] = cast_##ssfx##_bf16, \
           [WK_F32] = cast_##ssfx##_f32, [WK_F64] = cast_##ssfx##_f64},
    WK_CPU_DTYPES(CAST_ROW)
#undef CAST_ROW
};

typedef struct cast_ctx {
    cast_run_fn run;
    cast_fast_fn fast;
    int64_t dst_es, src_es;
} cast_ctx;

static void cast_fn(void *arg, int64_t n, char *const *ptrs, const int64_t *strides)
{
    const cast_ctx *c = arg;
    char *d = ptrs[0];
    const char *s = ptrs[1];
    if (c->fast && strides[0] == c->dst_es && strides[1] == c->src_es) {
        int64_t done = c->fast(d, s, n);
        d += done * c->dst_es;
        s += done * c->src_es;
        n -= done;
    }
    c->run(n, d, strides[0], s, strides[1]);
}

wk_status wk_cpu_cast(const wk_tensor *src, wk_tensor *dst)
{
    cast_ctx c = {
        .run = cast_table[src->dtype][dst->dtype],
        .fast = fast_path(src->dtype, dst->dtype),
        .dst_es = (int64_t)wk_dtype_size(dst->dtype),
        .src_es = (int64_t)wk_dtype_size(src->dtype),
    };
    const wk_tensor *ops[2] = {dst, src};
    wk_cpu_foreach(dst->rank, dst->shape, 2, ops, WK_CPU_GRAIN, cast_fn, &c);
    return WK_OK;
}

/* ---- arange: dst[i] = (dtype)(start + i*step) with the conversion rules of wk_cast */

typedef struct arange_ctx {
    void *dst;
    double start, step;
} arange_ctx;

#define ARANGE_STORE_INT(sfx, T) \
    static inline void arange_st_##sfx(T *p, double v) { *p = wk_sat_##sfx(v); }
ARANGE_STORE_INT(u8, uint8_t)
ARANGE_STORE_INT(u32, uint32_t)
ARANGE_STORE_INT(i32, int32_t)
ARANGE_STORE_INT(i64, int64_t)
#undef ARANGE_STORE_INT
static inline void arange_st_f16(wk_f16_t *p, double v) { *p = wk_f64_to_f16(v); }
static inline void arange_st_bf16(wk_bf16_t *p, double v) { *p = wk_f64_to_bf16(v); }
static inline void arange_st_f32(float *p, double v) { *p = (float)v; }
static inline void arange_st_f64(double *p, double v) { *p = v; }

#define ARANGE_KERNEL(E, sfx, T, C)                                          \
    static void arange_##sfx(void *arg, int64_t begin, int64_t end)          \
    {                                                                        \
        const arange_ctx *c = arg;                                           \
        T *d = c->dst;                                                       \
        for (int64_t i = begin; i < end; i++)                                \
            arange_st_##sfx(d + i, c->start + (double)i * c->step);          \
    }
WK_CPU_DTYPES(ARANGE_KERNEL)
#undef ARANGE_KERNEL

wk_status wk_cpu_arange(wk_tensor *dst, double start, double step)
{
    static const wk_range_fn kernels[WK_DTYPE_COUNT] = {
#define ARANGE_ENTRY(E, sfx, T, C) [E] = arange_##sfx,
        WK_CPU_DTYPES(ARANGE_ENTRY)
#undef ARANGE_ENTRY
    };
    arange_ctx c = {.dst = wk_tensor_data(dst), .start = start, .step = step};
    wk_cpu_parallel_for(wk_tensor_numel(dst), WK_CPU_GRAIN, kernels[dst->dtype], &c);
    return WK_OK;
}
