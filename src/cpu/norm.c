/* norm.c: the CPU's softmax / log_softmax, rms_norm (alone or after a residual add) and layer_norm slots, one row
 * (the last dim) at a time. f16/bf16/f32 rows run through vectorised f32 kernels; f64 computes in f64. */
#include <math.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/rowwise.h"
#include "cpu/vhalf.h"
#include "cpu/vmath.h"

typedef struct norm_ctx norm_ctx;
typedef void (*norm_row_fn)(const norm_ctx *c, const char *x, char *y);

struct norm_ctx {
    norm_row_fn row;
    wk_dtype dt;
    const char *x, *w, *b; /* w, b: element 0, or NULL */
    char *out;
    wk_rows outer;         /* x's dims but the last, merged */
    int64_t es, n, s;      /* element size, row length, x's stride along the row */
    int64_t ws, bs;        /* strides of w and b */
    double eps;
    bool log;
};

/* ---------------------------------------------------------------- f32 kernels on contiguous arrays
 * Sums run in NORM_LANES lanes (so that they vectorise) over blocks of NORM_BLOCK elements, and the
 * blocks' sums add up in f64. In f32 lanes a term goes through at most 16 + 4 f32 adds, so even a long
 * row's sum stays within ~1e-6 (all terms of one sign; typically ~1e-7). */
#define NORM_LANES 16
#define NORM_BLOCK 256
#define NORM_CHUNK 1024 /* elements a strided or f16/bf16 row is converted in */

/* Returns the sum of TERM(k) for k in [0, n), lanes of type ACC (a TERM may store as it goes). One sum per
 * loop: with two, GCC 12 vectorises the outer loop instead, with shuffles, at a third of the speed. */
#define LANE_SUM(ACC, n, TERM)                                                     \
    double sum_ = 0;                                                               \
    for (int64_t b0_ = 0; b0_ < (n); b0_ += NORM_BLOCK) {                          \
        int64_t b1_ = (n) - b0_ < NORM_BLOCK ? (n) : b0_ + NORM_BLOCK, k = b0_;    \
        ACC lane_[NORM_LANES] = {0}, tail_ = 0;                                    \
        for (; k + NORM_LANES <= b1_; k += NORM_LANES)                             \
            for (int l_ = 0; l_ < NORM_LANES; l_++)                                \
                lane_[l_] += TERM(k + l_);                                         \
        for (; k < b1_; k++)                                                       \
            tail_ += TERM(k);                                                      \
        for (int w_ = NORM_LANES / 2; w_ > 0; w_ /= 2) /* pairwise, as shuffles */ \
            for (int l_ = 0; l_ < w_; l_++)                                        \
                lane_[l_] += lane_[l_ + w_];                                       \
        sum_ += (double)lane_[0] + tail_;                                          \
    }                                                                              \
    return sum_

/* The largest number in x (a NaN is skipped: it spreads through exp later); -inf for none. */
WK_VEC_CLONES static float max_f32(const float *x, int64_t n)
{
    float lane[NORM_LANES], m = -INFINITY;
    int64_t i = 0;
    for (int l = 0; l < NORM_LANES; l++)
        lane[l] = m;
    for (; i + NORM_LANES <= n; i += NORM_LANES)
        for (int l = 0; l < NORM_LANES; l++)
            lane[l] = x[i + l] > lane[l] ? x[i + l] : lane[l];
    for (; i < n; i++)
        m = x[i] > m ? x[i] : m;
    for (int l = 0; l < NORM_LANES; l++)
        m = lane[l] > m ? lane[l] : m;
    return m;
}

/* e = exp(x - max); returns the sum of e (at least 1 unless NaN: no range to lose). */
#define EXP_TERM(k) (e[k] = wk_vexpf(x[k] - max))
WK_VEC_CLONES static double exp_sum_f32(const float *x, int64_t n, float max, float *e)
{
    LANE_SUM(float, n, EXP_TERM);
}

/* The sums of d = x - center or of d^2, with d and the lanes in ACC (the type of c_). */
#define D_TERM(k) (x[k] - c_)
#define D2_TERM(k) ((x[k] - c_) * (x[k] - c_))
#define DEF_MOMENT(name, ACC, TERM)                                           \
    WK_VEC_CLONES static double name(const float *x, int64_t n, float center) \
    {                                                                         \
        ACC c_ = center;                                                      \
        LANE_SUM(ACC, n, TERM);                                               \
    }
DEF_MOMENT(sum_f32, float, D_TERM)
DEF_MOMENT(sumsq_f32, float, D2_TERM)
DEF_MOMENT(sum_f64, double, D_TERM)
DEF_MOMENT(sumsq_f64, double, D2_TERM)

/* The element-wise steps, each as the f64 path orders its operations. */
WK_VEC_CLONES static void scale_f32(float *y, int64_t n, float mul)
{
    for (int64_t i = 0; i < n; i++)
        y[i] *= mul;
}

WK_VEC_CLONES static void exp_scale_f32(const float *x, int64_t n, float max, float mul, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = wk_vexpf(x[i] - max) * mul;
}

WK_VEC_CLONES static void sub_sub_f32(const float *x, int64_t n, float a, float b, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] - a - b;
}

WK_VEC_CLONES static void sub_sub_mul_f32(const float *x, int64_t n, float a, float b, float mul, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = (x[i] - a - b) * mul;
}

WK_VEC_CLONES static void mul_add_f32(float *y, int64_t n, const float *w, const float *b)
{
    if (w)
        for (int64_t i = 0; i < n; i++)
            y[i] *= w[i];
    if (b)
        for (int64_t i = 0; i < n; i++)
            y[i] += b[i];
}

/* ---------------------------------------------------------------- rows as f32 chunks */

/* A row of dtype dt (f16, bf16 or f32), stride s elements, read as f32 in chunks. A contiguous f32 row
 * is read in place; others are converted into buf, and the chunk last converted is kept (a row that
 * fits one chunk is converted once for all passes). */
typedef struct f32_src {
    wk_dtype dt;
    const char *p;
    int64_t s, es;
    float *buf;
    int64_t at, len; /* the chunk in buf */
} f32_src;

WK_VEC_CLONES static void load_contig_f32(wk_dtype dt, const char *p, int64_t n, float *dst)
{
    if (dt == WK_F16)
        for (int64_t i = 0; i < n; i++)
            dst[i] = wk_vld_f16((const wk_f16_t *)(const void *)p + i);
    else if (dt == WK_BF16)
        for (int64_t i = 0; i < n; i++)
            dst[i] = wk_ld_bf16((const wk_bf16_t *)(const void *)p + i);
    else
        memcpy(dst, p, (size_t)n * sizeof(float));
}

static const float *src_chunk(f32_src *r, int64_t at, int64_t len)
{
    if (r->dt == WK_F32 && r->s == 1)
        return (const float *)(const void *)r->p + at;
    if (r->at != at || r->len != len) {
        if (r->s == 1)
            load_contig_f32(r->dt, r->p + at * r->es, len, r->buf);
        else
            wk_chunk_load(r->dt, r->buf, r->p + at * r->s * r->es, r->s * r->es, len);
        r->at = at;
        r->len = len;
    }
    return r->buf;
}

static f32_src make_src(wk_dtype dt, const char *p, int64_t s, float *buf)
{
    return (f32_src){.dt = dt, .p = p, .s = s, .es = (int64_t)wk_dtype_size(dt), .buf = buf, .at = -1, .len = 0};
}

/* Where a chunk's f32 results go: straight into y when it is f32, else into buf for put_chunk. */
static float *dst_chunk(wk_dtype dt, char *y, int64_t at, float *buf)
{
    return dt == WK_F32 ? (float *)(void *)y + at : buf;
}

WK_VEC_CLONES static void put_chunk(wk_dtype dt, char *y, int64_t at, int64_t len, const float *buf)
{
    if (dt == WK_F16) {
        wk_f16_t *o = (wk_f16_t *)(void *)y + at;
        for (int64_t i = 0; i < len; i++)
            wk_vst_f16(o + i, buf[i]);
    } else if (dt == WK_BF16) {
        wk_bf16_t *o = (wk_bf16_t *)(void *)y + at;
        for (int64_t i = 0; i < len; i++)
            wk_st_bf16(o + i, buf[i]);
    }
}

/* Runs the statement after it for each chunk [at, at + len) of a row of n elements, in order. */
#define FOR_CHUNKS(n, at, len)                                                \
    for (int64_t at = 0, len = (n) < NORM_CHUNK ? (n) : NORM_CHUNK; at < (n); \
         at += len, len = (n) - at < NORM_CHUNK ? (n) - at : NORM_CHUNK)

static void softmax_row_f32(const norm_ctx *c, const char *xb, char *y)
{
    float xbuf[NORM_CHUNK], obuf[NORM_CHUNK];
    f32_src x = make_src(c->dt, xb, c->s, xbuf);
    int64_t n = c->n;
    bool keep_exp = c->dt == WK_F32 && !c->log; /* y holds exp(x - max) exactly until it is scaled */
    float max = -INFINITY;
    FOR_CHUNKS(n, at, len) {
        float m = max_f32(src_chunk(&x, at, len), len);
        max = m > max ? m : max;
    }
    double sum = 0;
    FOR_CHUNKS(n, at, len)
        sum += exp_sum_f32(src_chunk(&x, at, len), len, max, keep_exp ? (float *)(void *)y + at : obuf);
    if (c->log) {
        float lsum = (float)log(sum);
        FOR_CHUNKS(n, at, len) {
            sub_sub_f32(src_chunk(&x, at, len), len, max, lsum, dst_chunk(c->dt, y, at, obuf));
            put_chunk(c->dt, y, at, len, obuf);
        }
        return;
    }
    float inv = (float)(1.0 / sum);
    if (keep_exp) {
        scale_f32((float *)(void *)y, n, inv);
        return;
    }
    FOR_CHUNKS(n, at, len) {
        exp_scale_f32(src_chunk(&x, at, len), len, max, inv, obuf);
        put_chunk(c->dt, y, at, len, obuf);
    }
}

/* y = (x - center - fix) * scale [* w] [+ b], chunk by chunk. */
static void normalize_row_f32(const norm_ctx *c, f32_src *x, float center, float fix, float scale, char *y)
{
    float wbuf[NORM_CHUNK], bbuf[NORM_CHUNK], obuf[NORM_CHUNK];
    f32_src w = make_src(c->dt, c->w, c->ws, wbuf), b = make_src(c->dt, c->b, c->bs, bbuf);
    FOR_CHUNKS(c->n, at, len) {
        float *o = dst_chunk(c->dt, y, at, obuf);
        sub_sub_mul_f32(src_chunk(x, at, len), len, center, fix, scale, o);
        mul_add_f32(o, len, c->w ? src_chunk(&w, at, len) : NULL, c->b ? src_chunk(&b, at, len) : NULL);
        put_chunk(c->dt, y, at, len, obuf);
    }
}

/* The sum over a row of d = x - center, or of d^2, in f32 lanes; again in f64 lanes when f32's range may
 * have cost accuracy: a sum that overflowed, or a sum of squares so small (or large) that terms may have
 * underflowed (or overflowed). Rows of NaN or of zeros also take the second pass. */
static double row_moment(f32_src *x, int64_t n, float center, bool square)
{
    double sum = 0;
    FOR_CHUNKS(n, at, len)
        sum += (square ? sumsq_f32 : sum_f32)(src_chunk(x, at, len), len, center);
    bool in_range = square ? sum >= (double)n * 0x1p-100 && sum <= 0x1p100 : isfinite(sum);
    if (in_range)
        return sum;
    sum = 0;
    FOR_CHUNKS(n, at, len)
        sum += (square ? sumsq_f64 : sum_f64)(src_chunk(x, at, len), len, center);
    return sum;
}

static void rms_norm_row_f32(const norm_ctx *c, const char *xb, char *y)
{
    float xbuf[NORM_CHUNK];
    f32_src x = make_src(c->dt, xb, c->s, xbuf);
    double ss = row_moment(&x, c->n, 0.0f, true);
    normalize_row_f32(c, &x, 0.0f, 0.0f, (float)(1.0 / sqrt(ss / (double)c->n + c->eps)), y);
}

/* Two passes: the mean, rounded to f32 (m), then the moments of d = x - m (exact while x is within a factor
 * 2 of m). E[d] is what m misses of the mean (the first pass could not tell): the variance subtracts its
 * square and the output subtracts it from every d. */
static void layer_norm_row_f32(const norm_ctx *c, const char *xb, char *y)
{
    float xbuf[NORM_CHUNK];
    f32_src x = make_src(c->dt, xb, c->s, xbuf);
    double n = (double)c->n;
    float m = (float)(row_moment(&x, c->n, 0.0f, false) / n);
    double fix = row_moment(&x, c->n, m, false) / n, var = row_moment(&x, c->n, m, true) / n - fix * fix;
    var = var > 0 ? var : 0;
    normalize_row_f32(c, &x, m, (float)fix, (float)(1.0 / sqrt(var + c->eps)), y);
}

/* ---------------------------------------------------------------- f64 rows */

/* sums of (x_i - center) and of its square; four lanes break the chain of adds */
static void row_stats_f64(const double *x, int64_t n, int64_t s, double center, double *sum, double *sumsq)
{
    double s1[4] = {0, 0, 0, 0}, s2[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++) {
            double d = x[(i + l) * s] - center;
            s1[l] += d;
            s2[l] += d * d;
        }
    for (; i < n; i++) {
        double d = x[i * s] - center;
        s1[0] += d;
        s2[0] += d * d;
    }
    *sum = (s1[0] + s1[1]) + (s1[2] + s1[3]);
    *sumsq = (s2[0] + s2[1]) + (s2[2] + s2[3]);
}

static void softmax_row_f64(const norm_ctx *c, const char *xb, char *yb)
{
    const double *x = (const double *)(const void *)xb;
    double *y = (double *)(void *)yb, max = -INFINITY, sum = 0; /* a NaN is skipped here, spreads below */
    int64_t n = c->n, s = c->s;
    for (int64_t i = 0; i < n; i++)
        max = x[i * s] > max ? x[i * s] : max;
    for (int64_t i = 0; i < n; i++) {
        double e = exp(x[i * s] - max);
        sum += e;
        if (!c->log)
            y[i] = e;
    }
    if (c->log) {
        double lsum = log(sum);
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i * s] - max - lsum;
        return;
    }
    double inv = 1.0 / sum;
    for (int64_t i = 0; i < n; i++)
        y[i] *= inv;
}

static void normalize_row_f64(const norm_ctx *c, const double *x, double center, double scale, double *y)
{
    const double *w = (const double *)(const void *)c->w, *b = (const double *)(const void *)c->b;
    for (int64_t i = 0; i < c->n; i++) {
        double v = (x[i * c->s] - center) * scale;
        if (w)
            v *= w[i * c->ws];
        if (b)
            v += b[i * c->bs];
        y[i] = v;
    }
}

static void rms_norm_row_f64(const norm_ctx *c, const char *xb, char *yb)
{
    const double *x = (const double *)(const void *)xb, *w = (const double *)(const void *)c->w;
    double *y = (double *)(void *)yb, sum, ss;
    row_stats_f64(x, c->n, c->s, 0, &sum, &ss);
    double scale = 1.0 / sqrt(ss / (double)c->n + c->eps);
    for (int64_t i = 0; i < c->n; i++)
        y[i] = x[i * c->s] * scale * w[i * c->ws];
}

static void layer_norm_row_f64(const norm_ctx *c, const char *xb, char *yb)
{
    const double *x = (const double *)(const void *)xb;
    double sum, var;
    row_stats_f64(x, c->n, c->s, 0, &sum, &var);
    double mean = sum / (double)c->n;
    row_stats_f64(x, c->n, c->s, mean, &sum, &var); /* two passes: no cancellation */
    normalize_row_f64(c, x, mean, 1.0 / sqrt(var / (double)c->n + c->eps), (double *)(void *)yb);
}

/* ---------------------------------------------------------------- the slots */
static void norm_body(void *ctx, int64_t begin, int64_t end)
{
    const norm_ctx *c = ctx;
    wk_rows_iter it;
    wk_rows_seek(&c->outer, begin, &it);
    for (int64_t o = begin; o < end; o++, wk_rows_advance(&c->outer, &it, 1))
        c->row(c, c->x + it.off * c->es, c->out + o * c->n * c->es);
}

/* Runs the f64 or the f32 row kernel over every row of x (rank >= 1) into the contiguous out; rows are
 * spread over the threads. */
static wk_status run_rows(norm_ctx *c, norm_row_fn f64, norm_row_fn f32, const wk_tensor *x, wk_tensor *out)
{
    int last = x->rank - 1;
    c->row = x->dtype == WK_F64 ? f64 : f32;
    c->dt = x->dtype;
    c->x = wk_tensor_data(x);
    c->out = wk_tensor_data(out);
    c->es = (int64_t)wk_dtype_size(x->dtype);
    c->n = x->shape[last];
    c->s = x->strides[last];
    wk_rows_init(&c->outer, x, last);
    int64_t rows = wk_numel(last, x->shape);
    if (c->n > 0)
        wk_cpu_parallel_for(rows, WK_CPU_GRAIN / c->n + 1, norm_body, c);
    return WK_OK;
}

wk_status wk_cpu_softmax(const wk_tensor *x, wk_softmax_kind kind, wk_tensor *out)
{
    norm_ctx c = {.log = kind == WK_LOG_SOFTMAX};
    return run_rows(&c, softmax_row_f64, softmax_row_f32, x, out);
}

wk_status wk_cpu_rms_norm(const wk_tensor *x, const wk_tensor *w, double eps, wk_tensor *out)
{
    norm_ctx c = {.w = wk_tensor_data(w), .ws = w->strides[0], .eps = eps};
    return run_rows(&c, rms_norm_row_f64, rms_norm_row_f32, x, out);
}

/* add_rms_norm: row o of x plus row o of r, in binary.c's compute type and rounded as its stores, into row o of
 * sum, then that row (contiguous) through rms_norm's row kernel: bit for bit the binary and rms_norm slots, with x
 * and r read once (the sum row is read back from the cache). */
typedef struct add_norm_ctx {
    norm_ctx c;          /* rms_norm over sum's rows (stride 1) */
    const char *x, *r;   /* element 0 */
    wk_rows xrows, rrows;
    int64_t xs, rs;      /* strides along the row */
    char *sum;
} add_norm_ctx;

WK_VEC_CLONES static void add_f32(const float *a, const float *b, int64_t n, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = a[i] + b[i];
}

WK_VEC_CLONES static void add_f64(const double *a, const double *b, int64_t n, double *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = a[i] + b[i];
}

/* y = x + r over a row of n: f16/bf16/f32 through f32 chunks (read in place when contiguous f32, else converted
 * as binary.c's loads, and rounded as its stores: vhalf.h's conversions are the same bits), f64 directly. */
static void add_row(const norm_ctx *c, const char *xb, int64_t xs, const char *rb, int64_t rs, char *y)
{
    if (c->dt == WK_F64) {
        const double *x = (const double *)(const void *)xb, *r = (const double *)(const void *)rb;
        if (xs == 1 && rs == 1) {
            add_f64(x, r, c->n, (double *)(void *)y);
            return;
        }
        for (int64_t i = 0; i < c->n; i++)
            ((double *)(void *)y)[i] = x[i * xs] + r[i * rs];
        return;
    }
    float xbuf[NORM_CHUNK], rbuf[NORM_CHUNK], obuf[NORM_CHUNK];
    f32_src x = make_src(c->dt, xb, xs, xbuf), r = make_src(c->dt, rb, rs, rbuf);
    FOR_CHUNKS(c->n, at, len) {
        add_f32(src_chunk(&x, at, len), src_chunk(&r, at, len), len, dst_chunk(c->dt, y, at, obuf));
        put_chunk(c->dt, y, at, len, obuf);
    }
}

static void add_norm_body(void *ctx, int64_t begin, int64_t end)
{
    const add_norm_ctx *a = ctx;
    const norm_ctx *c = &a->c;
    wk_rows_iter ix, ir;
    wk_rows_seek(&a->xrows, begin, &ix);
    wk_rows_seek(&a->rrows, begin, &ir);
    for (int64_t o = begin; o < end; o++) {
        char *srow = a->sum + o * c->n * c->es;
        add_row(c, a->x + ix.off * c->es, a->xs, a->r + ir.off * c->es, a->rs, srow);
        c->row(c, srow, c->out + o * c->n * c->es);
        wk_rows_advance(&a->xrows, &ix, 1);
        wk_rows_advance(&a->rrows, &ir, 1);
    }
}

wk_status wk_cpu_add_rms_norm(const wk_tensor *x, const wk_tensor *r, const wk_tensor *w, double eps, wk_tensor *sum,
                              wk_tensor *out)
{
    int last = x->rank - 1;
    add_norm_ctx a = {
        .c = {.row = x->dtype == WK_F64 ? rms_norm_row_f64 : rms_norm_row_f32, .dt = x->dtype,
              .w = wk_tensor_data(w), .ws = w->strides[0], .eps = eps, .out = wk_tensor_data(out),
              .es = (int64_t)wk_dtype_size(x->dtype), .n = x->shape[last], .s = 1},
        .x = wk_tensor_data(x), .r = wk_tensor_data(r), .xs = x->strides[last], .rs = r->strides[last],
        .sum = wk_tensor_data(sum)};
    wk_rows_init(&a.xrows, x, last);
    wk_rows_init(&a.rrows, r, last);
    if (a.c.n > 0)
        wk_cpu_parallel_for(wk_numel(last, x->shape), WK_CPU_GRAIN / a.c.n + 1, add_norm_body, &a);
    return WK_OK;
}

wk_status wk_cpu_layer_norm(const wk_tensor *x, const wk_tensor *w, const wk_tensor *b, double eps, wk_tensor *out)
{
    norm_ctx c = {.eps = eps};
    if (w) {
        c.w = wk_tensor_data(w);
        c.ws = w->strides[0];
    }
    if (b) {
        c.b = wk_tensor_data(b);
        c.bs = b->strides[0];
    }
    return run_rows(&c, layer_norm_row_f64, layer_norm_row_f32, x, out);
}
