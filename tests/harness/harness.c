/* harness.c: random inputs in every layout, reading results back as doubles, and the comparison rules
 * of README.md, "Parity tolerance" (relative L2 per dtype, exact integers, NaN/inf at the same places). */
#include "harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void wkt_rng_seed(wkt_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
}

uint64_t wkt_rng_next(wkt_rng *r)
{
    uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

double wkt_rng_uniform(wkt_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(wkt_rng_next(r) >> 11) * 0x1p-53);
}

int64_t wkt_rng_int(wkt_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* unsigned: hi - lo may not fit in int64 */
    uint64_t off = span ? wkt_rng_next(r) % span : wkt_rng_next(r);
    return (int64_t)((uint64_t)lo + off); /* wraps into [lo, hi] without signed overflow */
}

static const char *const layout_names[WKT_LAYOUT_COUNT] = {"contig", "transposed", "permuted", "broadcast",
                                                            "offset"};
const char *wkt_layout_name(wkt_layout l) { return (unsigned)l < WKT_LAYOUT_COUNT ? layout_names[l] : "?"; }

bool wkt_layout_applies(wkt_layout l, int rank, const int64_t *shape)
{
    switch (l) {
    case WKT_CONTIG: return true;
    case WKT_TRANSPOSED: return rank >= 2;
    case WKT_PERMUTED: return rank >= 3;
    case WKT_BROADCAST:
        for (int i = 0; i < rank; i++)
            if (shape[i] > 1)
                return true;
        return false;
    case WKT_OFFSET: return true;
    default: return false;
    }
}

wkt_dist wkt_dist_default(wk_dtype dt)
{
    switch (dt) {
    case WK_U8: case WK_U32: return (wkt_dist){0, 200};
    case WK_I32: case WK_I64: return (wkt_dist){-100, 100};
    default: return (wkt_dist){-2, 2};
    }
}

double wkt_round_to(wk_dtype dt, double v)
{
    switch (dt) {
    case WK_U8: return (double)(uint8_t)(uint64_t)(int64_t)v;
    case WK_U32: return (double)(uint32_t)(uint64_t)(int64_t)v;
    case WK_I32: return (double)(int32_t)(uint32_t)(uint64_t)(int64_t)v;
    case WK_I64: return (double)(int64_t)v;
    case WK_F16: return wk_f16_to_f32(wk_f32_to_f16((float)v));
    case WK_BF16: return wk_bf16_to_f32(wk_f32_to_bf16((float)v));
    case WK_F32: return (double)(float)v;
    default: return v;
    }
}

static void store(wk_dtype dt, void *base, int64_t i, double v)
{
    switch (dt) {
    case WK_U8: ((uint8_t *)base)[i] = (uint8_t)v; break;
    case WK_U32: ((uint32_t *)base)[i] = (uint32_t)v; break;
    case WK_I32: ((int32_t *)base)[i] = (int32_t)v; break;
    case WK_I64: ((int64_t *)base)[i] = (int64_t)v; break;
    case WK_F16: ((uint16_t *)base)[i] = wk_f32_to_f16((float)v); break;
    case WK_BF16: ((uint16_t *)base)[i] = wk_f32_to_bf16((float)v); break;
    case WK_F32: ((float *)base)[i] = (float)v; break;
    case WK_F64: ((double *)base)[i] = v; break;
    default: break; /* the block-quantized dtypes have no element values */
    }
}

static double load(wk_dtype dt, const void *base, int64_t i)
{
    switch (dt) {
    case WK_U8: return ((const uint8_t *)base)[i];
    case WK_U32: return ((const uint32_t *)base)[i];
    case WK_I32: return ((const int32_t *)base)[i];
    case WK_I64: return (double)((const int64_t *)base)[i];
    case WK_F16: return wk_f16_to_f32(((const uint16_t *)base)[i]);
    case WK_BF16: return wk_bf16_to_f32(((const uint16_t *)base)[i]);
    case WK_F32: return ((const float *)base)[i];
    default: return ((const double *)base)[i];
    }
}

/* Physical storage plan for a layout: a storage of `phys` elements, and the strides/offset of the
 * logical view into it. */
static int64_t plan_layout(wkt_layout layout, int rank, const int64_t *shape, int64_t *strides, int64_t *offset)
{
    int64_t order[WK_MAX_RANK]; /* dims from outermost to innermost in storage */
    int64_t pad_inner = 0;
    *offset = 0;
    for (int i = 0; i < rank; i++)
        order[i] = i;
    if (layout == WKT_TRANSPOSED && rank >= 2) {
        order[rank - 2] = rank - 1;
        order[rank - 1] = rank - 2;
    } else if (layout == WKT_PERMUTED) {
        for (int i = 0; i < rank; i++)
            order[i] = rank - 1 - i;
    } else if (layout == WKT_OFFSET) {
        *offset = 3;
        pad_inner = 2; /* every innermost row padded by 2 elements */
    }
    int bdim = -1;
    if (layout == WKT_BROADCAST)
        for (int i = 0; i < rank && bdim < 0; i++)
            if (shape[i] > 1)
                bdim = i;
    int64_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
        int d = (int)order[k];
        if (d == bdim) {
            strides[d] = 0;
            continue;
        }
        strides[d] = s;
        s *= (shape[d] > 0 ? shape[d] : 1) + (k == rank - 1 ? pad_inner : 0);
    }
    return *offset + s + pad_inner;
}

static wk_status make_view(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_layout layout,
                           const double *phys_vals, int64_t phys, const int64_t *strides, int64_t offset,
                           wk_tensor **t)
{
    void *buf = malloc((size_t)phys * wk_dtype_size(dt) + 1);
    if (!buf)
        return WK_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < phys; i++)
        store(dt, buf, i, phys_vals[i]);
    wk_tensor *storage = NULL;
    wk_status s = wk_tensor_from_host(dev, dt, 1, &phys, buf, &storage);
    free(buf);
    if (s != WK_OK)
        return s;
    (void)layout;
    s = wk_as_strided(storage, rank, shape, strides, offset, t);
    wk_tensor_release(storage);
    return s;
}

/* Walks the logical elements, giving each one's physical index. */
static void logical_to_phys(int rank, const int64_t *shape, const int64_t *strides, int64_t offset,
                            int64_t *map)
{
    int64_t n = 1, idx[WK_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    for (int64_t li = 0; li < n; li++) {
        int64_t p = offset;
        for (int d = 0; d < rank; d++)
            p += idx[d] * strides[d];
        map[li] = p;
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < shape[d])
                break;
            idx[d] = 0;
        }
    }
}

static double draw(wk_dtype dt, wkt_dist dist, wkt_rng *rng)
{
    if (wk_dtype_is_float(dt))
        return wkt_round_to(dt, wkt_rng_uniform(rng, dist.lo, dist.hi));
    double lo = dist.lo, hi = dist.hi;
    double min = dt == WK_I32 ? -2147483648.0 : dt == WK_I64 ? -1e15 : 0;
    double max = dt == WK_U8 ? 255 : dt == WK_U32 ? 4294967295.0 : dt == WK_I32 ? 2147483647.0 : 1e15;
    lo = lo < min ? min : lo;
    hi = hi > max ? max : hi;
    return (double)wkt_rng_int(rng, (int64_t)ceil(lo), (int64_t)floor(hi));
}

wk_status wkt_make(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_layout layout, wkt_dist dist,
                   wkt_rng *rng, wk_tensor **t, double **vals)
{
    int64_t strides[WK_MAX_RANK], offset, n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    int64_t phys = plan_layout(layout, rank, shape, strides, &offset);
    double *pv = malloc((size_t)phys * sizeof *pv + 1);
    double *lv = malloc((size_t)n * sizeof *lv + 1);
    int64_t *map = malloc((size_t)n * sizeof *map + 1);
    if (!pv || !lv || !map) {
        free(pv);
        free(lv);
        free(map);
        return WK_ERR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < phys; i++)
        pv[i] = draw(dt, dist, rng);
    logical_to_phys(rank, shape, strides, offset, map);
    for (int64_t i = 0; i < n; i++)
        lv[i] = pv[map[i]];
    free(map);
    wk_status s = make_view(dev, dt, rank, shape, layout, pv, phys, strides, offset, t);
    free(pv);
    if (s != WK_OK) {
        free(lv);
        return s;
    }
    *vals = lv;
    return WK_OK;
}

wk_status wkt_make_from(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, wkt_layout layout,
                        const double *vals, wk_tensor **t)
{
    int64_t strides[WK_MAX_RANK], offset, n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    if (layout == WKT_BROADCAST) /* given values need not repeat: store them as they are */
        layout = WKT_CONTIG;
    int64_t phys = plan_layout(layout, rank, shape, strides, &offset);
    double *pv = calloc((size_t)phys + 1, sizeof *pv);
    int64_t *map = malloc((size_t)n * sizeof *map + 1);
    if (!pv || !map) {
        free(pv);
        free(map);
        return WK_ERR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < phys; i++)
        pv[i] = -7; /* padding: never read */
    logical_to_phys(rank, shape, strides, offset, map);
    for (int64_t i = 0; i < n; i++)
        pv[map[i]] = vals[i];
    free(map);
    wk_status s = make_view(dev, dt, rank, shape, layout, pv, phys, strides, offset, t);
    free(pv);
    return s;
}

wk_status wkt_read(const wk_tensor *t, double **vals)
{
    int64_t n = wk_tensor_numel(t);
    wk_dtype dt = wk_tensor_dtype(t);
    void *buf = malloc((size_t)n * wk_dtype_size(dt) + 1);
    double *v = malloc((size_t)n * sizeof *v + 1);
    if (!buf || !v) {
        free(buf);
        free(v);
        return WK_ERR_OUT_OF_MEMORY;
    }
    wk_status s = wk_tensor_to_host(t, buf, (size_t)n * wk_dtype_size(dt));
    if (s == WK_OK)
        for (int64_t i = 0; i < n; i++)
            v[i] = load(dt, buf, i);
    free(buf);
    if (s != WK_OK) {
        free(v);
        return s;
    }
    *vals = v;
    return WK_OK;
}

double wkt_tol(wk_dtype dt, wkt_tol_kind kind)
{
    switch (dt) {
    case WK_F64: return 1e-12;
    case WK_F32: return kind == WKT_TOL_MATMUL ? 1e-5 : 1e-6;
    case WK_F16: return 2e-3;
    case WK_BF16: return 1e-2;
    default: return 0;
    }
}

void wkt_fail(wkt_result *r, const char *fmt, ...)
{
    va_list ap;
    r->pass = false;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
}

bool wkt_failed(wk_status s, wkt_result *r, const char *what)
{
    if (s == WK_OK)
        return false;
    if (r->status == WK_OK)
        r->status = s;
    wkt_fail(r, "%s: %s: %s", what, wk_status_string(s), wk_last_error());
    return true;
}

void wkt_compare(wk_dtype dt, const double *got, const double *want, int64_t n, double tol, bool exact,
                 wkt_result *r)
{
    bool was_failed = !r->pass && r->msg[0];
    double num = 0, den = 0;
    bool ints = exact || !wk_dtype_is_float(dt);
    r->tol = ints ? 0 : tol;
    for (int64_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        if (isnan(w) || isnan(g) || isinf(w) || isinf(g)) {
            bool same = (isnan(w) && isnan(g)) || (isinf(w) && isinf(g) && (w > 0) == (g > 0));
            if (!same) {
                if (!was_failed)
                    wkt_fail(r, "element %lld: got %.9g, want %.9g (NaN/inf placement)", (long long)i, g, w);
                r->max_rel_err = INFINITY;
                return;
            }
            continue;
        }
        if (ints && g != w) {
            if (!was_failed)
                wkt_fail(r, "element %lld: got %.17g, want %.17g (must be exact)", (long long)i, g, w);
            r->max_rel_err = INFINITY;
            return;
        }
        num += (g - w) * (g - w);
        den += w * w;
    }
    double err = den > 0 ? sqrt(num / den) : sqrt(num);
    if (err > r->max_rel_err)
        r->max_rel_err = err;
    if (!ints && !(err <= tol) && !was_failed)
        wkt_fail(r, "relative L2 error %.3g above tolerance %.3g", err, tol);
}

const char *wkt_shape_name(const wkt_case *c, char *buf, size_t cap)
{
    size_t n = 0;
    if (c->rank == 0) {
        snprintf(buf, cap, "scalar");
        return buf;
    }
    buf[0] = '\0';
    for (int i = 0; i < c->rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, i ? "x%lld" : "%lld", (long long)c->shape[i]);
    return buf;
}

void wkt_add(wkt_list *l, const wkt_case *c)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 256;
        wkt_case *p = realloc(l->items, (size_t)cap * sizeof *p);
        if (!p)
            return; /* the count printed by the runner shows the loss */
        l->items = p;
        l->cap = cap;
    }
    l->items[l->n++] = *c;
}

void wkt_list_free(wkt_list *l)
{
    free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
}

void wkt_expect(wkt_errctx *e, wk_status got, wk_status want, const char *op, const char *what)
{
    e->checks++;
    const char *msg = wk_last_error();
    if (got != want) {
        e->failures++;
        printf("FAIL %s: got %s, want %s (%s)\n", what, wk_status_string(got), wk_status_string(want), msg);
    } else if (want != WK_OK && op && !strstr(msg, op)) {
        e->failures++;
        printf("FAIL %s: message \"%s\" does not name the op \"%s\"\n", what, msg, op);
    }
}
