/* fuzz_ops.c: differential fuzzing of the op API on the CPU. The input picks one op of wick.h and its
 * parameters (any enum value, dims and ids out of range, bad conv/pool parameters included), and 1-3 input
 * tensors (every dtype, rank 0..8 and sometimes 9, dims 0..5, contents from the input), each seen through a
 * view (none, transpose, narrow, broadcast_to, as_strided, unsqueeze) with the logical shape the op asked for.
 * Checks: every call returns WK_OK, or a status with a non-empty wk_last_error() and out untouched; the same
 * op on wk_contiguous copies of the inputs returns the same status and, on success, the same result bit for
 * bit (two NaNs of a float dtype count as equal). abort() on a difference, after printing the op and shapes. */
#include "fuzz_common.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wick.h"

#define MAX_NUMEL 1024 /* elements of an input's storage at most */

typedef struct fz {
    const uint8_t *p;
    size_t n;
    uint32_t lcg; /* once the input runs out */
} fz;

static uint64_t take(fz *f, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        uint8_t b;
        if (f->n) {
            b = *f->p++;
            f->n--;
        } else {
            f->lcg = f->lcg * 1103515245u + 12345u;
            b = (uint8_t)(f->lcg >> 16);
        }
        v |= (uint64_t)b << (8 * i);
    }
    return v;
}
static unsigned u8(fz *f) { return (unsigned)take(f, 1); }
/* An int in lo..hi (inclusive). */
static int64_t range(fz *f, int64_t lo, int64_t hi) { return lo + (int64_t)(take(f, 1) % (uint64_t)(hi - lo + 1)); }

static const char *op_name = "";
static unsigned op_sub;
static char shapes_text[512];

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_ops: %s (sub %u): %s [%s] (%s)\n", op_name, op_sub, what, shapes_text, wk_last_error());
    abort();
}

static void note_shape(const wk_tensor *t)
{
    size_t k = strlen(shapes_text);
    if (!t || k > sizeof shapes_text - 64)
        return;
    k += (size_t)snprintf(shapes_text + k, sizeof shapes_text - k, " %s(", wk_dtype_name(wk_tensor_dtype(t)));
    for (int i = 0; i < wk_tensor_rank(t) && k < sizeof shapes_text - 24; i++)
        k += (size_t)snprintf(shapes_text + k, sizeof shapes_text - k, "%s%lld", i ? "," : "",
                              (long long)wk_tensor_shape(t)[i]);
    snprintf(shapes_text + k, sizeof shapes_text - k, ")%s", wk_tensor_is_contiguous(t) ? "" : "v");
}

static wk_device *cpu;
static bool small_values; /* float contents small integers: sums exact in any order */

/* ---------------------------------------------------------------- inputs */
static int64_t numel_of(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

/* A rank (0..8, 9 now and then) and dims 0..5, at most MAX_NUMEL / 4 elements. */
static int gen_shape(fz *f, int64_t *shape, int min_rank)
{
    unsigned k = u8(f);
    int rank = k >= 250 ? 9 : min_rank + (int)(k % (unsigned)(9 - min_rank));
    for (int i = 0; i < rank; i++)
        shape[i] = range(f, 0, 5) ? range(f, 1, 5) : 0;
    while (rank <= WK_MAX_RANK && numel_of(rank, shape) > MAX_NUMEL / 4)
        for (int i = 0; i < rank; i++)
            shape[i] = shape[i] > 1 ? shape[i] - 1 : shape[i];
    return rank;
}

static void fill(fz *f, wk_dtype dt, int64_t n, unsigned char *b, int64_t id_hi)
{
    size_t es = wk_dtype_size(dt);
    for (int64_t i = 0; i < n; i++) {
        unsigned char *e = b + (size_t)i * es;
        if (id_hi >= 0) { /* an index: mostly in range, sometimes -1 .. id_hi + 1 or anything */
            int64_t v = u8(f) < 240 ? range(f, 0, id_hi > 0 ? id_hi - 1 : 0) : range(f, -1, id_hi + 1);
            if (dt == WK_I64) memcpy(e, &v, 8);
            else if (dt == WK_I32) { int32_t w = (int32_t)v; memcpy(e, &w, 4); }
            else if (dt == WK_U32) { uint32_t w = (uint32_t)v; memcpy(e, &w, 4); }
            else *e = (unsigned char)v;
        } else if (small_values && wk_dtype_is_float(dt)) {
            double v = (double)range(f, -4, 4);
            if (dt == WK_F64) memcpy(e, &v, 8);
            else if (dt == WK_F32) { float w = (float)v; memcpy(e, &w, 4); }
            else { uint16_t h = dt == WK_F16 ? wk_f32_to_f16((float)v) : wk_f32_to_bf16((float)v); memcpy(e, &h, 2); }
        } else {
            for (size_t j = 0; j < es; j++)
                e[j] = (unsigned char)take(f, 1);
        }
    }
}

static wk_tensor *filled(fz *f, wk_dtype dt, int rank, const int64_t *shape, int64_t id_hi)
{
    int64_t n = numel_of(rank, shape);
    unsigned char *b = malloc((size_t)(n > 0 ? n : 1) * 8);
    wk_tensor *t = NULL;
    if (!b)
        abort();
    fill(f, dt, n, b, id_hi);
    if (wk_tensor_from_host(cpu, dt, rank, shape, b, &t) != WK_OK)
        fail("tensor_from_host");
    free(b);
    return t;
}

static void view_ok(wk_status s, wk_tensor *base, const char *what)
{
    wk_tensor_release(base);
    if (s != WK_OK)
        fail(what);
}

/* A tensor of the logical shape asked, through one of the views; NULL for rank 9 (checked to be refused).
 * id_hi >= 0: an index tensor for a dim of id_hi entries. */
static wk_tensor *input(fz *f, wk_dtype dt, int rank, const int64_t *shape, int64_t id_hi)
{
    if (rank > WK_MAX_RANK) {
        wk_tensor *t = (wk_tensor *)&op_name;
        int64_t one[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
        if (wk_tensor_empty(cpu, dt, rank, one, &t) == WK_OK || t != (wk_tensor *)&op_name || !wk_last_error()[0])
            fail("rank 9 accepted");
        return NULL;
    }
    int64_t bs[WK_MAX_RANK + 1], st[WK_MAX_RANK];
    memcpy(bs, shape, sizeof(int64_t) * (size_t)rank);
    wk_tensor *base = NULL, *t = NULL;
    unsigned v = u8(f) % 8;
    if (v == 1 && rank >= 2) { /* transpose */
        int a = (int)range(f, 0, rank - 1), b = (int)range(f, 0, rank - 1);
        bs[a] = shape[b];
        bs[b] = shape[a];
        base = filled(f, dt, rank, bs, id_hi);
        view_ok(wk_transpose(base, a, b, &t), base, "transpose");
    } else if (v == 2 && rank >= 1) { /* narrow */
        int d = (int)range(f, 0, rank - 1);
        int64_t extra = range(f, 0, 2), start = range(f, 0, extra);
        bs[d] += extra;
        base = filled(f, dt, rank, bs, id_hi);
        view_ok(wk_narrow(base, d, start, shape[d], &t), base, "narrow");
    } else if (v == 3) { /* broadcast_to from size-1 dims and fewer leading dims */
        int drop = (int)range(f, 0, rank), br = rank - drop;
        unsigned mask = u8(f);
        for (int i = 0; i < br; i++)
            bs[i] = (mask >> i) & 1 ? 1 : shape[drop + i];
        base = filled(f, dt, br, bs, id_hi);
        view_ok(wk_broadcast_to(base, rank, shape, &t), base, "broadcast_to");
    } else if (v == 4) { /* as_strided over a 1-D storage */
        int64_t off = range(f, 0, 3), last = off;
        bool empty = numel_of(rank, shape) == 0;
        for (int i = 0; i < rank; i++) {
            st[i] = range(f, 0, 6);
            if (shape[i] > 0)
                last += (shape[i] - 1) * st[i];
        }
        int64_t len = empty ? off : last + 1;
        base = filled(f, dt, 1, &len, id_hi);
        view_ok(wk_as_strided(base, rank, shape, st, off, &t), base, "as_strided");
    } else if (v == 5 && rank >= 1) { /* unsqueeze of a size-1 dim */
        int d = (int)range(f, 0, rank - 1);
        if (shape[d] != 1)
            return filled(f, dt, rank, shape, id_hi);
        memmove(bs + d, bs + d + 1, sizeof(int64_t) * (size_t)(rank - d - 1));
        base = filled(f, dt, rank - 1, bs, id_hi);
        view_ok(wk_unsqueeze(base, d, &t), base, "unsqueeze");
    } else {
        return filled(f, dt, rank, shape, id_hi);
    }
    if (wk_tensor_rank(t) != rank || (rank && memcmp(wk_tensor_shape(t), shape, sizeof(int64_t) * (size_t)rank)))
        fail("a view has another shape than asked");
    return t;
}

static wk_dtype any_dtype(fz *f) { return (wk_dtype)(u8(f) % WK_DTYPE_COUNT); }
static wk_dtype float_dtype(fz *f) { return u8(f) < 16 ? any_dtype(f) : (wk_dtype)(WK_F16 + u8(f) % 4); }
static wk_dtype index_dtype(fz *f)
{
    static const wk_dtype ids[] = {WK_U8, WK_U32, WK_I32, WK_I64};
    return u8(f) < 8 ? any_dtype(f) : ids[u8(f) % 4];
}
/* A dim for a tensor of rank r: mostly valid (either sign), sometimes out of range. */
static int pick_dim(fz *f, int r) { return (int)range(f, -r - 2, r + 1); }
static int norm_dim(int d, int r) { return d < 0 ? d + r : d; }

/* shape b for broadcasting with a: drop leading dims, set some to 1, rarely change one. */
static int bcast_shape(fz *f, int ra, const int64_t *a, int64_t *b)
{
    int drop = u8(f) < 160 ? 0 : (int)range(f, 0, ra), rb = ra - drop;
    for (int i = 0; i < rb; i++)
        b[i] = u8(f) < 200 ? a[drop + i] : 1;
    if (rb && u8(f) >= 250)
        b[range(f, 0, rb - 1)] = range(f, 0, 5);
    return rb;
}

/* ---------------------------------------------------------------- comparison */
static bool is_nan(wk_dtype dt, const unsigned char *e)
{
    uint16_t h;
    uint32_t w;
    uint64_t d;
    switch (dt) {
    case WK_F16: memcpy(&h, e, 2); return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    case WK_BF16: memcpy(&h, e, 2); return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
    case WK_F32: memcpy(&w, e, 4); return (w & 0x7f800000u) == 0x7f800000u && (w & 0x7fffffu);
    case WK_F64: memcpy(&d, e, 8); return (d & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (d << 12);
    default: return false;
    }
}

static void same(const wk_tensor *x, const wk_tensor *y)
{
    if (!x || !y) {
        if (x != y)
            fail("one result is NULL");
        return;
    }
    wk_dtype dt = wk_tensor_dtype(x);
    int r = wk_tensor_rank(x);
    if (dt != wk_tensor_dtype(y) || r != wk_tensor_rank(y) ||
        (r && memcmp(wk_tensor_shape(x), wk_tensor_shape(y), sizeof(int64_t) * (size_t)r)))
        fail("results differ in dtype or shape");
    size_t es = wk_dtype_size(dt), n = (size_t)wk_tensor_numel(x) * es;
    unsigned char *a = malloc(n + 1), *b = malloc(n + 1);
    if (!a || !b || wk_tensor_to_host(x, a, n + 1) != WK_OK || wk_tensor_to_host(y, b, n + 1) != WK_OK)
        fail("reading a result");
    for (size_t i = 0; i < n; i += es)
        if (memcmp(a + i, b + i, es) && !(is_nan(dt, a + i) && is_nan(dt, b + i))) {
            fprintf(stderr, "fuzz_ops: element %zu differs:", i / es);
            for (size_t j = 0; j < es; j++)
                fprintf(stderr, " %02x/%02x", a[i + es - 1 - j], b[i + es - 1 - j]);
            fprintf(stderr, " (view/copy, high byte first)\n");
            fail("the results on views and on contiguous copies differ");
        }
    free(a);
    free(b);
}

/* ---------------------------------------------------------------- ops */
typedef struct call {
    unsigned op;
    unsigned sub;
    double d[3];
    int dims[WK_MAX_RANK + 2];
    int ndims, dim;
    bool flag;
    wk_conv_params cp;
    wk_pool_params pp;
    int64_t sizes[2];
} call;

/* Runs the op on inputs in[0..n-1] (NULL entries passed as NULL); results in out[0..1]. */
static wk_status run(const call *c, wk_tensor *const *in, int n, wk_tensor **out)
{
    const wk_tensor *a = in[0], *b = n > 1 ? in[1] : NULL, *d = n > 2 ? in[2] : NULL;
    switch (c->op) {
    case 0: return wk_unary((wk_unary_op)c->sub, a, out);
    case 1:
        switch (c->sub % 4) {
        case 0: return wk_affine(a, c->d[0], c->d[1], out);
        case 1: return wk_clamp(a, c->d[0], c->d[1], out);
        case 2: return wk_powf(a, c->d[0], out);
        default: return wk_elu(a, c->d[0], out);
        }
    case 2: return wk_binary((wk_binary_op)c->sub, a, b, out);
    case 3: return wk_compare((wk_compare_op)c->sub, a, b, out);
    case 4: return wk_where(a, b, d, out);
    case 5: return wk_reduce((wk_reduce_op)c->sub, a, c->dims, c->ndims, c->flag, out);
    case 6: return c->sub & 1 ? wk_argmax(a, c->dim, c->flag, out) : wk_argmin(a, c->dim, c->flag, out);
    case 7: return c->sub & 1 ? wk_log_softmax_last_dim(a, out) : wk_softmax_last_dim(a, out);
    case 8:
        return c->sub & 1 ? wk_add_rms_norm(a, d, b, c->d[0], &out[0], &out[1]) : wk_rms_norm(a, b, c->d[0], out);
    case 9: return wk_layer_norm(a, b, d, c->d[0], out);
    case 10: return c->sub & 1 ? wk_argsort(a, c->flag, out) : wk_sort(a, c->flag, &out[0], c->sub & 2 ? &out[1] : NULL);
    case 11: return wk_matmul(a, b, out);
    case 12:
        switch (c->sub % 4) {
        case 0: return wk_conv1d(a, b, d, &c->cp, out);
        case 1: return wk_conv2d(a, b, d, &c->cp, out);
        case 2: return wk_conv_transpose1d(a, b, d, &c->cp, out);
        default: return wk_conv_transpose2d(a, b, d, &c->cp, out);
        }
    case 13: return c->sub & 1 ? wk_avg_pool2d(a, &c->pp, out) : wk_max_pool2d(a, &c->pp, out);
    case 14:
        switch (c->sub % 3) {
        case 0: return wk_upsample_nearest1d(a, c->sizes[0], out);
        case 1: return wk_upsample_nearest2d(a, c->sizes[0], c->sizes[1], out);
        default: return wk_upsample_bilinear2d(a, c->sizes[0], c->sizes[1], c->flag, c->d[0], c->d[1], out);
        }
    case 15: return wk_index_select(a, c->dim, b, out);
    case 16: return wk_gather(a, c->dim, b, out);
    case 17: return wk_scatter(a, c->dim, b, d, out);
    case 18: return wk_scatter_add(a, c->dim, b, d, out);
    case 19: return wk_index_add(a, c->dim, b, d, out);
    case 20: return wk_cat((const wk_tensor *const *)in, n, c->dim, out);
    case 21: return wk_cast(a, (wk_dtype)c->sub, out);
    default:
        switch (c->sub % 3) {
        case 0: return wk_rope(a, b, d, out);
        case 1: return wk_rope_i(a, b, d, out);
        default: return wk_rope_thd(a, b, d, out);
        }
    }
}
#define OP_COUNT 23
static const char *const op_names[OP_COUNT] = {
    "unary", "affine/clamp/powf/elu", "binary", "compare", "where", "reduce", "argmin/argmax", "softmax",
    "rms_norm/add_rms_norm", "layer_norm", "sort/argsort", "matmul", "conv", "pool", "upsample", "index_select",
    "gather", "scatter", "scatter_add", "index_add", "cat", "cast", "rope"};

static double pick_double(fz *f)
{
    static const double vals[] = {0.0, 1.0, -1.0, 0.5, 2.0, 1e-5, -3.0, 1e30, NAN, INFINITY, -INFINITY, 3.25};
    unsigned k = u8(f);
    if (k < 240)
        return vals[k % 12];
    double v;
    uint64_t bits = take(f, 8);
    memcpy(&v, &bits, 8);
    return v;
}

static int64_t pick_param(fz *f, int64_t lo, int64_t hi) { return u8(f) < 230 ? range(f, lo, hi) : range(f, -2, 0); }

/* Decodes the op, its parameters and its inputs (views); the number of inputs, or -1 to stop (rank 9). */
static int setup(fz *f, call *c, wk_tensor **in)
{
    int64_t s[3][WK_MAX_RANK + 1];
    int r[3] = {0, 0, 0}, n = 1;
    wk_dtype dt = any_dtype(f);
    c->op = u8(f) % OP_COUNT;
    c->sub = u8(f);
    c->d[0] = pick_double(f);
    c->d[1] = pick_double(f);
    c->flag = u8(f) & 1;
    /* Float sums whose order legitimately depends on the layout get small integer contents, so that every
     * order gives the same exact sum: reduce sum/mean (contiguous rows take a pairwise multi-lane tree,
     * strided ones accumulate row by row), matmul and conv (BLAS / im2col kernels pick their blocking by
     * layout), avg_pool, scatter_add and index_add (duplicates accumulate in the order of the walk). Their
     * integer dtypes, and every other op, get raw bytes (NaN, inf, subnormals) as well. */
    bool sums = (c->op == 5 && (c->sub % 5 == WK_REDUCE_SUM || c->sub % 5 == WK_REDUCE_MEAN)) || c->op == 11 ||
                c->op == 12 || (c->op == 13 && (c->sub & 1)) || c->op == 18 || c->op == 19;
    bool coin = u8(f) & 1;
    small_values = sums || coin;
    r[0] = gen_shape(f, s[0], 0);
    int64_t id_hi[3] = {-1, -1, -1};
    wk_dtype dts[3] = {dt, dt, dt};
    switch (c->op) {
    case 0: c->sub %= WK_UNARY_COUNT + 3; break; /* out-of-range ops included */
    case 2: case 3: /* binary, compare: b broadcast against a */
        c->sub %= 8;
        n = 2;
        r[1] = bcast_shape(f, r[0], s[0], s[1]);
        if (u8(f) < 8) dts[1] = any_dtype(f);
        break;
    case 4: /* where: cond, t, f */
        n = 3;
        dts[0] = u8(f) < 200 ? (wk_dtype[]){WK_U8, WK_U32, WK_I64}[u8(f) % 3] : any_dtype(f);
        r[1] = bcast_shape(f, r[0], s[0], s[1]);
        r[2] = bcast_shape(f, r[0], s[0], s[2]);
        if (u8(f) < 8) dts[2] = any_dtype(f);
        break;
    case 5: /* reduce: dims mostly valid and distinct, sometimes not */
        c->sub %= WK_REDUCE_COUNT + 1;
        c->ndims = (int)range(f, 0, r[0] < 9 ? r[0] : 8);
        for (int i = 0; i < c->ndims; i++)
            c->dims[i] = u8(f) < 230 ? i - (u8(f) & 1 ? r[0] : 0) : pick_dim(f, r[0]);
        break;
    case 6: c->dim = pick_dim(f, r[0]); break;
    case 8: case 9: /* norms: w (and b) 1-D of the last dim; add_rms_norm (8, odd sub): r, a's shape or not */
        n = c->op == 8 ? 2 : 3;
        if (c->op == 8 && u8(f) < 20) c->d[0] = -1.0;
        for (int k = 1; k < n; k++) {
            r[k] = 1;
            s[k][0] = r[0] ? s[0][r[0] - 1] : 1;
            if (u8(f) < 10) s[k][0] = range(f, 0, 5);
        }
        if (c->op == 8 && (c->sub & 1)) {
            n = 3;
            r[2] = r[0];
            memcpy(s[2], s[0], sizeof s[0]);
            if (r[0] && u8(f) < 10) s[2][r[0] - 1] = range(f, 0, 5);
        }
        break;
    case 11: /* matmul (..., m, k) x (..., k, n) */
        n = 2;
        r[1] = bcast_shape(f, r[0], s[0], s[1]);
        if (r[0] >= 2 && r[1] >= 2) {
            s[1][r[1] - 2] = u8(f) < 240 ? s[0][r[0] - 1] : range(f, 0, 5);
            s[1][r[1] - 1] = range(f, 0, 5);
        }
        break;
    case 12: { /* conv: x (N, C, L[, W]), w (O, C/g, K[, K]), bias (O) or NULL */
        bool two = c->sub & 1, tr = c->sub & 2;
        n = 3;
        r[0] = u8(f) < 240 ? (two ? 4 : 3) : (int)range(f, 0, 5);
        for (int i = 0; i < r[0]; i++) s[0][i] = range(f, 1, i < 2 ? 3 : 6);
        c->cp.groups = u8(f) < 200 ? range(f, 1, 2) : range(f, -1, 4);
        int64_t g = c->cp.groups > 0 ? c->cp.groups : 1;
        if (r[0] >= 2) s[0][1] = g * range(f, 1, 2);
        r[1] = r[0];
        s[1][0] = tr ? (r[0] >= 2 ? s[0][1] : 1) : g * range(f, 1, 2);
        if (r[0] >= 2) s[1][1] = tr ? range(f, 1, 2) : s[0][1] / g;
        for (int i = 2; i < r[1]; i++) s[1][i] = range(f, 1, 3);
        r[2] = 1;
        s[2][0] = tr ? s[1][r[1] >= 2 ? 1 : 0] * g : s[1][0];
        if (u8(f) < 10) s[2][0] = range(f, 0, 5);
        for (int a = 0; a < 2; a++) {
            c->cp.stride[a] = pick_param(f, 1, 3);
            c->cp.padding[a] = pick_param(f, 0, 2) + (u8(f) < 250 ? 0 : -3);
            c->cp.dilation[a] = pick_param(f, 1, 2);
            c->cp.output_padding[a] = pick_param(f, 0, 1);
        }
        break;
    }
    case 13: /* pools: x (N, C, H, W) */
        r[0] = u8(f) < 240 ? 4 : (int)range(f, 0, 5);
        for (int i = 0; i < r[0]; i++) s[0][i] = range(f, 1, i < 2 ? 2 : 6);
        for (int a = 0; a < 2; a++) {
            c->pp.kernel[a] = pick_param(f, 1, 3);
            c->pp.stride[a] = pick_param(f, 1, 3);
            c->pp.padding[a] = pick_param(f, 0, 1);
        }
        c->pp.ceil_mode = u8(f) & 1;
        c->pp.count_include_pad = u8(f) & 1;
        break;
    case 14: /* upsample: x (N, C, L) or (N, C, H, W) */
        r[0] = u8(f) < 240 ? (c->sub % 3 ? 4 : 3) : (int)range(f, 0, 5);
        for (int i = 0; i < r[0]; i++) s[0][i] = range(f, 1, i < 2 ? 2 : 5);
        c->sizes[0] = pick_param(f, 1, 9);
        c->sizes[1] = pick_param(f, 1, 9);
        break;
    case 15: case 16: case 17: case 18: case 19: { /* indexing */
        c->dim = u8(f) < 240 ? (r[0] ? (int)range(f, -r[0], r[0] - 1) : 0) : pick_dim(f, r[0]);
        int d = norm_dim(c->dim, r[0]);
        bool ok = d >= 0 && d < r[0];
        dts[1] = index_dtype(f);
        id_hi[1] = ok ? s[0][d] : 3;
        n = c->op <= 16 ? 2 : 3;
        if (c->op == 15 || c->op == 19) { /* ids 1-D */
            r[1] = u8(f) < 250 ? 1 : 2;
            s[1][0] = s[1][1] = range(f, 0, 5);
        } else { /* ids of x's rank, each dim <= x's (src's) */
            r[1] = u8(f) < 250 ? r[0] : (int)range(f, 0, 3);
            for (int i = 0; i < r[1]; i++)
                s[1][i] = i < r[0] && u8(f) < 250 ? range(f, 0, s[0][i]) + (i == d ? range(f, 0, 2) : 0) : 2;
        }
        r[2] = r[0];
        memcpy(s[2], s[0], sizeof s[0]);
        if (c->op == 19 && ok) s[2][d] = s[1][0];
        if ((c->op == 17 || c->op == 18) && ok) s[2][d] = r[1] > d ? s[1][d] + range(f, 0, 1) : 1;
        if (u8(f) < 8) dts[2] = any_dtype(f);
        break;
    }
    case 20: /* cat: 1-3 tensors, same shape apart from dim */
        n = (int)range(f, 1, 3);
        c->dim = u8(f) < 240 ? (r[0] ? (int)range(f, -r[0], r[0] - 1) : 0) : pick_dim(f, r[0]);
        for (int k = 1; k < n; k++) {
            r[k] = r[0];
            memcpy(s[k], s[0], sizeof s[0]);
            int d = norm_dim(c->dim, r[0]);
            if (d >= 0 && d < r[0]) s[k][d] = range(f, 0, 3);
            if (u8(f) < 8) dts[k] = any_dtype(f);
        }
        break;
    case 21: c->sub %= WK_DTYPE_COUNT + 1; break;
    case 22: { /* rope: x (B, H, T, D) or (B, T, H, D), cos/sin (T, D/2) */
        n = 3;
        r[0] = u8(f) < 240 ? 4 : (int)range(f, 0, 5);
        for (int i = 0; i < r[0]; i++) s[0][i] = range(f, 1, 3) * (i == 3 ? 2 : 1);
        int64_t T = r[0] == 4 ? s[0][c->sub % 3 == 2 ? 1 : 2] : 1, D = r[0] == 4 ? s[0][3] : 2;
        for (int k = 1; k < 3; k++) {
            r[k] = 2;
            s[k][0] = T;
            s[k][1] = u8(f) < 250 ? D / 2 : range(f, 0, 3);
        }
        break;
    }
    default: break;
    }
    if (c->op >= 7 && c->op <= 14 && c->op != 10 && u8(f) < 240) /* float ops */
        dts[0] = dts[1] = dts[2] = float_dtype(f);
    for (int k = 0; k < n; k++) {
        bool null_ok = (c->op == 9 && k > 0) || (c->op == 12 && k == 2);
        if (null_ok && u8(f) < 64) {
            in[k] = NULL;
            continue;
        }
        in[k] = input(f, dts[k], r[k], s[k], id_hi[k]);
        if (!in[k])
            return -1;
    }
    return n;
}

static void check_status(wk_status s, wk_tensor **out, wk_tensor *sentinel)
{
    if (s == WK_OK)
        return;
    if (!wk_last_error()[0])
        fail("a failure without a message");
    if (out[0] != sentinel || out[1] != sentinel)
        fail("a failure wrote an out-parameter");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!cpu && wk_device_get("cpu", &cpu) != WK_OK)
        abort();
    fz f = {data, size, (uint32_t)size};
    call c;
    memset(&c, 0, sizeof c);
    wk_tensor *in[3] = {NULL, NULL, NULL}, *cin[3] = {NULL, NULL, NULL};
    shapes_text[0] = 0;
    int n = setup(&f, &c, in);
    op_name = op_names[c.op];
    op_sub = c.sub;
    if (getenv("FUZZ_OPS_VERBOSE")) { /* the parameters, when replaying a finding */
        fprintf(stderr, "op %u sub %u dim %d flag %d ndims %d dims", c.op, c.sub, c.dim, c.flag, c.ndims);
        for (int i = 0; i < c.ndims; i++)
            fprintf(stderr, " %d", c.dims[i]);
        fprintf(stderr, " d %g %g\n", c.d[0], c.d[1]);
    }
    for (int k = 0; k < n; k++) {
        note_shape(in[k]);
        if (in[k] && wk_contiguous(in[k], &cin[k]) != WK_OK)
            fail("wk_contiguous of an input");
    }
    if (n > 0) {
        wk_tensor *sentinel = (wk_tensor *)&c, *o1[2] = {sentinel, sentinel}, *o2[2] = {sentinel, sentinel};
        wk_status s1 = run(&c, in, n, o1), s2 = run(&c, cin, n, o2);
        check_status(s1, o1, sentinel);
        check_status(s2, o2, sentinel);
        if (s1 != s2) {
            fprintf(stderr, "fuzz_ops: status %s on views, %s on copies\n", wk_status_string(s1), wk_status_string(s2));
            fail("views and contiguous copies disagree on success");
        }
        if (s1 == WK_OK) {
            for (int k = 0; k < 2; k++) {
                if (o1[k] == sentinel) o1[k] = NULL;
                if (o2[k] == sentinel) o2[k] = NULL;
                same(o1[k], o2[k]);
                wk_tensor_release(o1[k]);
                wk_tensor_release(o2[k]);
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        wk_tensor_release(in[k]);
        wk_tensor_release(cin[k]);
    }
    return 0;
}
