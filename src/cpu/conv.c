/* conv.c: the CPU conv slot. Forward: im2col + one OpenBLAS GEMM per group and image; transposed: the
 * adjoint, GEMM (W^T x) + col2im; depthwise (one input channel per group): a direct kernel per plane.
 * f32/f64 compute natively, f16/bf16 in f32 rounded once at the end. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cpu/gemm.h"

/* Everything about one call, in the 2-D form (1-D convolutions get h sizes of 1). */
typedef struct conv_plan {
    wk_dtype dt, ct;
    size_t es, ces;
    int64_t n, c, o, groups, cg, og;     /* cg, og: input / output channels per group */
    int64_t h, w, kh, kw, oh, ow;        /* x's spatial size, kernel, out's spatial size */
    int64_t xn, xc, xh, xw;              /* x's strides */
    bool pointwise;                      /* 1x1 kernel, stride 1, no padding: forward is a plain GEMM on x */
    wk_conv_geom geom;                   /* big = the side im2col reads / col2im writes */
} conv_plan;

static conv_plan plan_of(const wk_tensor *x, const wk_tensor *w, const wk_conv_params *p, int spatial,
                         bool transposed, const wk_tensor *out)
{
    conv_plan q = {.dt = x->dtype, .ct = wk_gemm_compute_dtype(x->dtype), .n = x->shape[0], .c = x->shape[1],
                   .o = out->shape[1], .groups = p->groups, .xn = x->strides[0], .xc = x->strides[1]};
    q.es = wk_dtype_size(q.dt);
    q.ces = wk_dtype_size(q.ct);
    q.cg = q.c / q.groups;
    q.og = q.o / q.groups;
    int64_t sy = 1, sx = p->stride[0], py = 0, px = p->padding[0], dy = 1, dx = p->dilation[0];
    if (spatial == 1) {
        q.h = q.kh = q.oh = 1;
        q.w = x->shape[2], q.kw = w->shape[2], q.ow = out->shape[2];
        q.xh = 0;
        q.xw = x->strides[2];
    } else {
        q.h = x->shape[2], q.w = x->shape[3], q.kh = w->shape[2], q.kw = w->shape[3];
        q.oh = out->shape[2], q.ow = out->shape[3];
        q.xh = x->strides[2], q.xw = x->strides[3];
        sy = p->stride[0], sx = p->stride[1], py = p->padding[0], px = p->padding[1];
        dy = p->dilation[0], dx = p->dilation[1];
    }
    q.geom = (wk_conv_geom){.channels = transposed ? q.o : q.c,
                            .big_h = transposed ? q.oh : q.h, .big_w = transposed ? q.ow : q.w,
                            .small_h = transposed ? q.h : q.oh, .small_w = transposed ? q.w : q.ow,
                            .kh = q.kh, .kw = q.kw, .stride_h = sy, .stride_w = sx, .pad_h = py, .pad_w = px,
                            .dil_h = dy, .dil_w = dx};
    q.pointwise = !transposed && q.kh == 1 && q.kw == 1 && sy == 1 && sx == 1 && py == 0 && px == 0;
    return q;
}

/* dst (contiguous, compute dtype) = the logical contents of t, row by row of its last dim. Only used
 * for weights and bias, which are small next to the convolution itself. */
static void pack_tensor(const wk_tensor *t, void *dst)
{
    int r = t->rank, last = r - 1;
    int64_t rows = wk_numel(last, t->shape), cols = t->shape[last], idx[WK_MAX_RANK] = {0};
    size_t es = wk_dtype_size(t->dtype), ces = wk_dtype_size(wk_gemm_compute_dtype(t->dtype));
    const char *base = wk_tensor_data(t);
    for (int64_t row = 0; row < rows; row++) {
        int64_t off = 0;
        for (int d = 0; d < last; d++)
            off += idx[d] * t->strides[d];
        wk_load_run(t->dtype, base + (size_t)off * es, t->strides[last], cols,
                    (char *)dst + (size_t)(row * cols) * ces);
        for (int d = last - 1; d >= 0 && ++idx[d] == t->shape[d]; d--)
            idx[d] = 0;
    }
}

/* Whether GEMM can read x's image itself as a (c x h*w) matrix: storage in the compute type, row-major
 * planes, and a channel stride usable as leading dimension. */
static bool x_is_matrix(const conv_plan *q)
{
    int64_t hw = q->h * q->w;
    bool plane = (q->w == 1 || q->xw == 1) && (q->h == 1 || q->xh == q->w);
    return q->dt == q->ct && plane && (q->c == 1 || q->xc >= hw) && q->xc <= WK_GEMM_MAX_DIM;
}

/* x image as a compute-type (c x h*w) matrix: x itself when it is one, else gathered into xbuf (which
 * also converts f16/bf16 once per element, not once per kernel tap). Returns the matrix and its ld. */
static const char *x_matrix(const conv_plan *q, const char *xi, void *xbuf, int64_t *ld)
{
    int64_t hw = q->h * q->w;
    if (x_is_matrix(q)) {
        *ld = q->c == 1 ? hw : q->xc;
        return xi;
    }
    /* an im2col with a 1x1 kernel is a strided gather */
    wk_conv_geom plain = {.channels = q->c, .big_h = q->h, .big_w = q->w, .small_h = q->h, .small_w = q->w,
                          .kh = 1, .kw = 1, .stride_h = 1, .stride_w = 1, .pad_h = 0, .pad_w = 0, .dil_h = 1,
                          .dil_w = 1};
    wk_im2col(&plain, q->dt, xi, q->xc, q->xh, q->xw, xbuf);
    *ld = hw;
    return xbuf;
}

/* out image (o x oh*ow) = W (o x c*kh*kw, group blocks) * im2col(x image), per group. */
static void forward_image(const conv_plan *q, const void *wbuf, const char *xi, void *xbuf, void *col, void *dst)
{
    int64_t k = q->cg * q->kh * q->kw, ohw = q->oh * q->ow, ldb = ohw;
    const wk_conv_geom *g = &q->geom;
    const char *b = col;
    if (q->pointwise) {
        b = x_matrix(q, xi, xbuf, &ldb);
    } else if (q->dt != q->ct) {
        int64_t ldx;
        const char *xm = x_matrix(q, xi, xbuf, &ldx);
        wk_im2col(g, q->ct, xm, ldx, q->w, 1, col);
    } else {
        wk_im2col(g, q->dt, xi, q->xc, q->xh, q->xw, col);
    }
    for (int64_t gi = 0; gi < q->groups; gi++)
        wk_gemm(q->ct, false, false, q->og, ohw, k, (const char *)wbuf + (size_t)(gi * q->og * k) * q->ces, k,
                b + (size_t)(gi * k * ldb) * q->ces, ldb, (char *)dst + (size_t)(gi * q->og * ohw) * q->ces,
                ohw, false);
}

/* out image (o x oh x ow) = col2im(W^T x), per group: W (c x og*kh*kw) rows of group gi, x image (c x h*w). */
static void transposed_image(const conv_plan *q, const void *wbuf, const char *xi, void *xbuf, void *col, void *dst)
{
    int64_t m = q->og * q->kh * q->kw, hw = q->h * q->w, ldb;
    const char *b = x_matrix(q, xi, xbuf, &ldb);
    for (int64_t gi = 0; gi < q->groups; gi++)
        wk_gemm(q->ct, true, false, m, hw, q->cg, (const char *)wbuf + (size_t)(gi * q->cg * m) * q->ces, m,
                b + (size_t)(gi * q->cg * ldb) * q->ces, ldb, (char *)col + (size_t)(gi * m * hw) * q->ces,
                hw, false);
    memset(dst, 0, (size_t)(q->o * q->oh * q->ow) * q->ces);
    wk_col2im(&q->geom, q->ct, col, dst);
}

/* Depthwise: output plane (n, o) reads only input plane (n, o / og), so planes are independent tasks.
 * No BLAS here, so the planes are spread over OpenMP threads. */
typedef struct plane_job {
    const conv_plan *q;
    bool transposed;
    const char *x;
    char *out;
    const char *wbuf, *bbuf;
    atomic_int failed;
} plane_job;

static void conv_planes(void *arg, int64_t begin, int64_t end)
{
    plane_job *j = arg;
    const conv_plan *q = j->q;
    int64_t xplane = q->h * q->w, oplane = q->oh * q->ow, taps = q->kh * q->kw;
    bool convert = q->dt != q->ct;
    char *xbuf = malloc((size_t)(xplane + (convert ? oplane : 0)) * q->ces + 1);
    if (!xbuf) {
        atomic_store(&j->failed, 1);
        return;
    }
    char *obuf = xbuf + (size_t)xplane * q->ces;
    for (int64_t p = begin; p < end; p++) {
        int64_t ni = p / q->o, o = p % q->o;
        wk_gemm_pack(q->dt, j->x + (size_t)(ni * q->xn + o / q->og * q->xc) * q->es, q->h, q->w, q->xh, q->xw, xbuf);
        char *dst = j->out + (size_t)(p * oplane) * q->es, *acc = convert ? obuf : dst;
        double b = !j->bbuf ? 0 : q->ct == WK_F64 ? ((const double *)j->bbuf)[o] : ((const float *)j->bbuf)[o];
        if (q->ct == WK_F64)
            for (int64_t i = 0; i < oplane; i++)
                ((double *)acc)[i] = b;
        else
            for (int64_t i = 0; i < oplane; i++)
                ((float *)acc)[i] = (float)b;
        /* the packed weight keeps o's taps at o*taps in both directions (transposed: (c, og, taps), c = o/og) */
        wk_conv_plane(&q->geom, q->ct, j->transposed, xbuf, j->wbuf + (size_t)(o * taps) * q->ces, acc);
        if (convert)
            wk_gemm_store(q->dt, acc, dst, oplane, NULL, 1, 1);
    }
    free(xbuf);
}

static bool fits_blas(int64_t a, int64_t b, int64_t c, int64_t d)
{
    return a <= WK_GEMM_MAX_DIM && b <= WK_GEMM_MAX_DIM && c <= WK_GEMM_MAX_DIM && d <= WK_GEMM_MAX_DIM;
}

/* Depthwise convolutions, plane by plane over threads. */
static wk_status conv_depthwise(const conv_plan *q, bool transposed, const wk_tensor *x, const void *wbuf,
                                const void *bbuf, wk_tensor *out)
{
    plane_job j = {.q = q, .transposed = transposed, .x = wk_tensor_data(x), .out = wk_tensor_data(out),
                   .wbuf = wbuf, .bbuf = bbuf, .failed = 0};
    int64_t work = q->kh * q->kw * q->geom.small_h * q->geom.small_w; /* multiply-adds per plane */
    wk_cpu_parallel_for(q->n * q->o, WK_CPU_GRAIN / (work > 0 ? work : 1) + 1, conv_planes, &j);
    if (atomic_load(&j.failed))
        return wk_error(WK_ERR_OUT_OF_MEMORY, "conv: no memory for plane scratch");
    return WK_OK;
}

/* Every other convolution, image by image through GEMM. */
static wk_status conv_gemm(const conv_plan *q, bool transposed, const wk_tensor *x, const void *wbuf,
                           const void *bbuf, wk_tensor *out)
{
    int64_t kk = q->kh * q->kw, hw = q->h * q->w, ohw = q->oh * q->ow, out_image = q->o * ohw;
    int64_t col_rows = transposed ? q->o * kk : q->c * kk, col_cols = transposed ? hw : ohw;
    if (!fits_blas(col_rows, col_cols, q->cg * kk, q->og * kk))
        return wk_error(WK_ERR_UNSUPPORTED, "conv: a %lld x %lld column matrix exceeds the BLAS int range",
                        (long long)col_rows, (long long)col_cols);
    bool convert = q->dt != q->ct, need_xbuf = !x_is_matrix(q) && (transposed || convert || q->pointwise);
    void *col = q->pointwise ? NULL : malloc((size_t)(col_rows * col_cols) * q->ces + 1);
    void *xbuf = need_xbuf ? malloc((size_t)(q->c * hw) * q->ces + 1) : NULL;
    void *cbuf = convert ? malloc((size_t)out_image * q->ces + 1) : NULL;
    wk_status s = WK_OK;
    if ((!q->pointwise && !col) || (need_xbuf && !xbuf) || (convert && !cbuf)) {
        s = wk_error(WK_ERR_OUT_OF_MEMORY, "conv: no memory for a %lld x %lld column matrix", (long long)col_rows,
                     (long long)col_cols);
    } else {
        for (int64_t ni = 0; ni < q->n; ni++) {
            const char *xi = (const char *)wk_tensor_data(x) + (size_t)(ni * q->xn) * q->es;
            char *oi = (char *)wk_tensor_data(out) + (size_t)(ni * out_image) * q->es;
            void *dst = convert ? cbuf : oi;
            if (transposed)
                transposed_image(q, wbuf, xi, xbuf, col, dst);
            else
                forward_image(q, wbuf, xi, xbuf, col, dst);
            if (convert || bbuf) /* round to f16/bf16 and/or add the bias, in one pass */
                wk_gemm_store(q->dt, dst, oi, out_image, bbuf, ohw, q->o);
        }
    }
    free(col);
    free(xbuf);
    free(cbuf);
    return s;
}

wk_status wk_cpu_conv(const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias, const wk_conv_params *p,
                      wk_conv_dims dims, wk_conv_dir dir, wk_tensor *out)
{
    bool transposed = dir == WK_CONV_TRANSPOSED;
    conv_plan q = plan_of(x, w, p, (int)dims, transposed, out);
    void *wbuf = malloc((size_t)wk_tensor_numel(w) * q.ces + 1);
    void *bbuf = bias ? malloc((size_t)q.o * q.ces + 1) : NULL;
    wk_status s;
    if (!wbuf || (bias && !bbuf)) {
        s = wk_error(WK_ERR_OUT_OF_MEMORY, "conv: no memory for the packed weight");
    } else {
        pack_tensor(w, wbuf);
        if (bias)
            pack_tensor(bias, bbuf);
        s = q.cg == 1 ? conv_depthwise(&q, transposed, x, wbuf, bbuf, out)
                      : conv_gemm(&q, transposed, x, wbuf, bbuf, out);
    }
    free(wbuf);
    free(bbuf);
    return s;
}
