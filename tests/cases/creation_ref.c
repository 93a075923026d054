/* creation_ref.c: shared helpers of the 'creation' family: raw-byte inputs in every layout, exact comparison,
 * boundary values, and a plain reference of wk_cast's rules (rounding by scaling and nearbyint, not bit tricks). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "creation.h"

/* ---------------------------------------------------------------- layouts */

/* Same meaning as the harness's layouts: transposed swaps the storage order of the last two dims,
 * permuted reverses all dims, broadcast gives the first dim of size > 1 stride 0, offset starts at
 * element 3 with every innermost row padded by 2. */
static int64_t plan(wkt_layout layout, int rank, const int64_t *shape, int64_t *strides, int64_t *offset)
{
    int order[WK_MAX_RANK], bdim = -1;
    int64_t pad = layout == WKT_OFFSET ? 2 : 0;
    *offset = layout == WKT_OFFSET ? 3 : 0;
    for (int i = 0; i < rank; i++)
        order[i] = layout == WKT_PERMUTED ? rank - 1 - i : i;
    if (layout == WKT_TRANSPOSED && rank >= 2) {
        order[rank - 2] = rank - 1;
        order[rank - 1] = rank - 2;
    }
    for (int i = 0; layout == WKT_BROADCAST && i < rank && bdim < 0; i++)
        if (shape[i] > 1)
            bdim = i;
    int64_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
        int d = order[k];
        if (d == bdim) {
            strides[d] = 0;
            continue;
        }
        strides[d] = s;
        s *= (shape[d] > 0 ? shape[d] : 1) + (k == rank - 1 ? pad : 0);
    }
    return *offset + s + pad;
}

wk_status crt_make(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_layout layout,
                   const void *logical, unsigned char pad, crt_view *v)
{
    size_t es = wk_dtype_size(dt);
    int64_t strides[WK_MAX_RANK], offset, idx[WK_MAX_RANK] = {0};
    memset(v, 0, sizeof *v);
    v->numel = 1;
    for (int i = 0; i < rank; i++)
        v->numel *= shape[i];
    v->phys_n = plan(layout, rank, shape, strides, &offset);
    v->phys = malloc((size_t)v->phys_n * es + 1);
    v->eff = malloc((size_t)v->numel * es + 1);
    v->map = malloc((size_t)v->numel * sizeof *v->map + 1);
    bool *written = calloc((size_t)v->phys_n + 1, 1);
    if (!v->phys || !v->eff || !v->map || !written) {
        free(written);
        crt_view_free(v);
        return WK_ERR_OUT_OF_MEMORY;
    }
    memset(v->phys, pad, (size_t)v->phys_n * es);
    for (int64_t li = 0; li < v->numel; li++) {
        int64_t p = offset;
        for (int d = 0; d < rank; d++)
            p += idx[d] * strides[d];
        v->map[li] = p;
        if (!written[p]) /* a broadcast slot keeps its first element */
            memcpy((char *)v->phys + p * es, (const char *)logical + li * es, es);
        written[p] = true;
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < shape[d])
                break;
            idx[d] = 0;
        }
    }
    free(written);
    for (int64_t li = 0; li < v->numel; li++)
        memcpy((char *)v->eff + li * es, (char *)v->phys + v->map[li] * es, es);
    wk_tensor *storage = NULL;
    wk_status s = wk_tensor_from_host(dev, dt, 1, &v->phys_n, v->phys, &storage);
    if (s == WK_OK)
        s = wk_as_strided(storage, rank, shape, strides, offset, &v->t);
    wk_tensor_release(storage);
    if (s != WK_OK)
        crt_view_free(v);
    return s;
}

void crt_view_free(crt_view *v)
{
    wk_tensor_release(v->t);
    free(v->eff);
    free(v->phys);
    free(v->map);
    memset(v, 0, sizeof *v);
}

/* ---------------------------------------------------------------- float formats */

typedef struct fmt {
    int p;      /* significand bits, hidden bit included */
    int emin;   /* exponent of the smallest normal */
    double max; /* largest finite value */
} fmt;

static fmt format_of(wk_dtype dt)
{
    switch (dt) {
    case WK_F16: return (fmt){11, -14, 65504.0};
    case WK_BF16: return (fmt){8, -126, 0x1.fep127};
    case WK_F32: return (fmt){24, -126, FLT_MAX};
    default: return (fmt){53, -1022, DBL_MAX};
    }
}

/* v rounded to nearest even in format f: scale so the last kept bit is the unit, nearbyint, scale back. */
static double round_double(double v, fmt f)
{
    if (!isfinite(v) || v == 0)
        return v;
    int e = ilogb(v);
    if (e < f.emin)
        e = f.emin; /* subnormal: a fixed quantum */
    double r = ldexp(nearbyint(ldexp(v, f.p - 1 - e)), e - f.p + 1);
    return fabs(r) > f.max ? copysign(INFINITY, v) : r;
}

/* An integer rounded to nearest even in format f, on the integer itself (a double may not hold it). */
static double round_int(int64_t v, fmt f)
{
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (m < (UINT64_C(1) << 53))
        return round_double((double)v, f);
    int len = 64;
    while (!(m >> (len - 1)))
        len--;
    int shift = len - f.p;
    uint64_t q = m >> shift, rest = m & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
    if (rest > half || (rest == half && (q & 1)))
        q++;
    double r = ldexp((double)q, shift);
    if (r > f.max)
        r = INFINITY;
    return v < 0 ? -r : r;
}

/* Stores a value that dt holds exactly. */
static void put_float(wk_dtype dt, void *dst, int64_t i, double v)
{
    switch (dt) {
    case WK_F16: ((uint16_t *)dst)[i] = wk_f32_to_f16((float)v); break;
    case WK_BF16: ((uint16_t *)dst)[i] = wk_f32_to_bf16((float)v); break;
    case WK_F32: ((float *)dst)[i] = (float)v; break;
    default: ((double *)dst)[i] = v; break;
    }
}

static int64_t get_int(wk_dtype dt, const void *buf, int64_t i)
{
    switch (dt) {
    case WK_U8: return ((const uint8_t *)buf)[i];
    case WK_U32: return ((const uint32_t *)buf)[i];
    case WK_I32: return ((const int32_t *)buf)[i];
    default: return ((const int64_t *)buf)[i];
    }
}

static double get_float(wk_dtype dt, const void *buf, int64_t i)
{
    switch (dt) {
    case WK_F16: return wk_f16_to_f32(((const uint16_t *)buf)[i]);
    case WK_BF16: return wk_bf16_to_f32(((const uint16_t *)buf)[i]);
    case WK_F32: return ((const float *)buf)[i];
    default: return ((const double *)buf)[i];
    }
}

double crt_get(wk_dtype dt, const void *buf, int64_t i)
{
    return wk_dtype_is_float(dt) ? get_float(dt, buf, i) : (double)get_int(dt, buf, i);
}

/* Two's complement wrap: keep the low bits. */
static void put_wrapped(wk_dtype dt, void *dst, int64_t i, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case WK_U8: ((uint8_t *)dst)[i] = (uint8_t)(u & 0xff); break;
    case WK_U32: ((uint32_t *)dst)[i] = (uint32_t)(u & 0xffffffffu); break;
    case WK_I32: {
        uint32_t low = (uint32_t)(u & 0xffffffffu);
        memcpy((int32_t *)dst + i, &low, 4);
        break;
    }
    default: ((int64_t *)dst)[i] = v; break;
    }
}

/* Truncate toward zero, saturate, NaN -> 0. */
static void put_saturated(wk_dtype dt, void *dst, int64_t i, double v)
{
    double t = isnan(v) ? 0 : trunc(v);
    switch (dt) {
    case WK_U8: ((uint8_t *)dst)[i] = t <= 0 ? 0 : t >= 255 ? 255 : (uint8_t)t; break;
    case WK_U32: ((uint32_t *)dst)[i] = t <= 0 ? 0 : t >= 4294967295.0 ? UINT32_MAX : (uint32_t)t; break;
    case WK_I32:
        ((int32_t *)dst)[i] = t <= -2147483648.0 ? INT32_MIN : t >= 2147483647.0 ? INT32_MAX : (int32_t)t;
        break;
    default:
        ((int64_t *)dst)[i] = t <= -0x1p63 ? INT64_MIN : t >= 0x1p63 ? INT64_MAX : (int64_t)t;
        break;
    }
}

void crt_from_double(wk_dtype dt, double v, void *dst, int64_t i)
{
    if (wk_dtype_is_float(dt))
        put_float(dt, dst, i, round_double(v, format_of(dt)));
    else
        put_saturated(dt, dst, i, v);
}

void crt_convert(wk_dtype from, const void *src, int64_t i, wk_dtype to, void *dst)
{
    if (wk_dtype_is_float(from)) {
        crt_from_double(to, get_float(from, src, i), dst, i);
        return;
    }
    int64_t v = get_int(from, src, i);
    if (wk_dtype_is_float(to))
        put_float(to, dst, i, round_int(v, format_of(to)));
    else
        put_wrapped(to, dst, i, v);
}

/* ---------------------------------------------------------------- values */

void crt_random(wk_dtype dt, void *buf, int64_t n, bool wide, wkt_rng *rng)
{
    static const double float_scales[] = {300, 7e4, 5e9, 1e19, 1e-5, 3e38, 1e300};
    for (int64_t i = 0; i < n; i++) {
        uint64_t bits = wkt_rng_next(rng);
        int pick = (int)(wkt_rng_next(rng) % 4);
        if (wk_dtype_is_float(dt)) {
            double scale = 2;
            if (wide) {
                int kinds = dt == WK_F64 ? 7 : 6;
                scale = float_scales[wkt_rng_next(rng) % (uint64_t)kinds];
            }
            crt_from_double(dt, wkt_rng_uniform(rng, -scale, scale), buf, i);
            continue;
        }
        /* ints: the whole range, or values near the targets' boundaries, or small */
        int64_t v;
        if (!wide)
            v = dt == WK_U8 || dt == WK_U32 ? wkt_rng_int(rng, 0, 200) : wkt_rng_int(rng, -100, 100);
        else if (pick == 0)
            v = (int64_t)bits;
        else if (pick == 1)
            v = wkt_rng_int(rng, -(INT64_C(1) << 34), INT64_C(1) << 34);
        else if (pick == 2)
            v = wkt_rng_int(rng, -70000, 70000);
        else
            v = wkt_rng_int(rng, -300, 300);
        put_wrapped(dt, buf, i, v); /* wraps into the dtype: every bit pattern is a valid value */
    }
}

int64_t crt_specials(wk_dtype dt, void *buf, int64_t cap)
{
    static const double floats[] = {
        NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.99999, -0.99999, 127.5, 255.5, 256, 300,
        -1, -129, 65504, 65519.99, 65520, 70000, -70000, 2147483520.0, 2147483648.0, -2147483648.0,
        -2147483904.0, 4294967295.0, 4294967296.0, 0x1p63, -0x1p63, 1e19, -1e19, 3e38, -3e38, 1e300, -1e300,
        1 + 0x1p-11, 1 + 3 * 0x1p-11, 1 + 0x1p-8, 1 + 3 * 0x1p-8, 1 + 0x1p-24, 1 + 3 * 0x1p-24,
        1 + 0x1p-11 + 0x1p-40, -(1 + 0x1p-8 + 0x1p-30), 0x1p-25, 3 * 0x1p-25, 0x1p-24, 0x1p-149, 1e-40, 0x1.ff8p127,
        0x1.ffep15, 0x1p-126, 0x1p-1074};
    static const int64_t ints[] = {
        0, 1, -1, 127, 128, 255, 256, -128, -129, 65504, 65519, 65520, 65536, (1 << 24) + 1, (1 << 24) + 3,
        2147483647, -2147483647 - 1, 4294967295, 2147483648 + 8388608 + 1, (INT64_C(1) << 53) + 1,
        (INT64_C(1) << 62) + (INT64_C(1) << 38) + 1, -((INT64_C(1) << 62) + (INT64_C(1) << 38) + 1),
        INT64_MAX, INT64_MIN, -4294967296};
    int64_t n = 0;
    if (wk_dtype_is_float(dt)) {
        for (size_t k = 0; k < sizeof floats / sizeof floats[0] && n < cap; k++)
            crt_from_double(dt, floats[k], buf, n++);
        return n;
    }
    int64_t lo = dt == WK_U8 || dt == WK_U32 ? 0 : dt == WK_I32 ? INT32_MIN : INT64_MIN;
    int64_t hi = dt == WK_U8 ? 255 : dt == WK_U32 ? UINT32_MAX : dt == WK_I32 ? INT32_MAX : INT64_MAX;
    for (size_t k = 0; k < sizeof ints / sizeof ints[0] && n < cap; k++)
        if (ints[k] >= lo && ints[k] <= hi)
            put_wrapped(dt, buf, n++, ints[k]);
    return n;
}

/* ---------------------------------------------------------------- reading and comparing */

bool crt_read(const wk_tensor *t, void **bytes, wkt_result *r)
{
    size_t size = (size_t)wk_tensor_numel(t) * wk_dtype_size(wk_tensor_dtype(t));
    void *buf = malloc(size + 1);
    if (!buf) {
        wkt_fail(r, "out of host memory");
        return false;
    }
    if (wkt_failed(wk_tensor_to_host(t, buf, size), r, "to_host")) {
        free(buf);
        return false;
    }
    *bytes = buf;
    return true;
}

void crt_compare(wk_dtype dt, const void *got, const void *want, int64_t n, const char *what, wkt_result *r)
{
    size_t es = wk_dtype_size(dt);
    for (int64_t i = 0; i < n; i++) {
        const char *g = (const char *)got + i * (int64_t)es, *w = (const char *)want + i * (int64_t)es;
        if (memcmp(g, w, es) == 0)
            continue;
        double gv = crt_get(dt, got, i), wv = crt_get(dt, want, i);
        if (wk_dtype_is_float(dt) && isnan(gv) && isnan(wv))
            continue;
        if (r->pass)
            wkt_fail(r, "%s: element %lld: got %.17g, want %.17g (bit-exact)", what, (long long)i, gv, wv);
        r->max_rel_err = INFINITY;
        return;
    }
}

void crt_expect_untouched(wkt_errctx *e, const void *out, const char *what)
{
    e->checks++;
    if (out) {
        e->failures++;
        printf("FAIL %s: out-parameter written on failure\n", what);
    }
}
