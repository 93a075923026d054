/* conv.c: case family 'conv': direct-loop float64 references for conv1d/2d and conv_transpose1d/2d
 * (PyTorch semantics, written from the definitions), cases over groups, dilation, stride, padding,
 * output_padding, bias, dtypes and input layouts; bad inputs and parameters. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* iparam: [0] spatial dims, [1] transposed, [2] groups, [3] dilation, [4] stride, [5] padding,
 * [6] output_padding (2-D: tens digit axis 0, units axis 1; 1-D: units), [7] flags.
 * fparam: [0] output channels, [1] kh, [2] kw (kw only for 1-D). */
enum { P_SPATIAL, P_TRANSPOSED, P_GROUPS, P_DIL, P_STRIDE, P_PAD, P_OUTPAD, P_FLAGS };
enum { F_BIAS = 1, F_WLAYOUT_SHIFT = 4 }; /* flags: bias, weight layout << 4, bias layout << 8 */

/* The geometry of one case in the 2-D form (1-D: h sizes 1). */
typedef struct geom {
    int64_t n, c, o, g, h, w, kh, kw, oh, ow, sy, sx, py, px, dy, dx;
} geom;

static int64_t axis_param(const wkt_case *c, int which, int ax)
{
    int v = c->iparam[which];
    return c->iparam[P_SPATIAL] == 1 || ax == 1 ? v % 10 : v / 10;
}

static geom geom_of(const wkt_case *c)
{
    bool tr = c->iparam[P_TRANSPOSED], one = c->iparam[P_SPATIAL] == 1;
    geom q = {.n = c->shape[0], .c = c->shape[1], .o = (int64_t)c->fparam[0], .g = c->iparam[P_GROUPS]};
    q.h = one ? 1 : c->shape[2];
    q.w = c->shape[one ? 2 : 3];
    q.kh = one ? 1 : (int64_t)c->fparam[1];
    q.kw = (int64_t)c->fparam[one ? 1 : 2];
    q.sy = one ? 1 : axis_param(c, P_STRIDE, 0), q.sx = axis_param(c, P_STRIDE, 1);
    q.py = one ? 0 : axis_param(c, P_PAD, 0), q.px = axis_param(c, P_PAD, 1);
    q.dy = one ? 1 : axis_param(c, P_DIL, 0), q.dx = axis_param(c, P_DIL, 1);
    int64_t opy = one ? 0 : axis_param(c, P_OUTPAD, 0), opx = axis_param(c, P_OUTPAD, 1);
    if (tr) {
        q.oh = (q.h - 1) * q.sy - 2 * q.py + q.dy * (q.kh - 1) + opy + 1;
        q.ow = (q.w - 1) * q.sx - 2 * q.px + q.dx * (q.kw - 1) + opx + 1;
    } else {
        q.oh = (q.h + 2 * q.py - q.dy * (q.kh - 1) - 1) / q.sy + 1;
        q.ow = (q.w + 2 * q.px - q.dx * (q.kw - 1) - 1) / q.sx + 1;
    }
    return q;
}

/* out[n][o][y][x] = bias[o] + sum over the group's channels and taps of x * w, reading 0 outside x. */
static void ref_forward(const geom *q, const double *x, const double *w, const double *b, double *out)
{
    int64_t cg = q->c / q->g, og = q->o / q->g;
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t o = 0; o < q->o; o++)
            for (int64_t oy = 0; oy < q->oh; oy++)
                for (int64_t ox = 0; ox < q->ow; ox++) {
                    double acc = b ? b[o] : 0;
                    for (int64_t ci = 0; ci < cg; ci++)
                        for (int64_t ky = 0; ky < q->kh; ky++)
                            for (int64_t kx = 0; kx < q->kw; kx++) {
                                int64_t iy = oy * q->sy - q->py + ky * q->dy, ix = ox * q->sx - q->px + kx * q->dx;
                                if (iy < 0 || iy >= q->h || ix < 0 || ix >= q->w)
                                    continue;
                                int64_t ch = o / og * cg + ci;
                                acc += x[((n * q->c + ch) * q->h + iy) * q->w + ix] *
                                       w[((o * cg + ci) * q->kh + ky) * q->kw + kx];
                            }
                    out[((n * q->o + o) * q->oh + oy) * q->ow + ox] = acc;
                }
}

/* Every input element x[n][ci][y][x] adds x * w[ci][oc][ky][kx] to out[n][group's oc][y*s - p + k*d]...;
 * output_padding only extends the output (its extra cells get the bias alone). */
static void ref_transposed(const geom *q, const double *x, const double *w, const double *b, double *out)
{
    int64_t cg = q->c / q->g, og = q->o / q->g;
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t o = 0; o < q->o; o++)
            for (int64_t i = 0; i < q->oh * q->ow; i++)
                out[(n * q->o + o) * q->oh * q->ow + i] = b ? b[o] : 0;
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t ci = 0; ci < q->c; ci++)
            for (int64_t iy = 0; iy < q->h; iy++)
                for (int64_t ix = 0; ix < q->w; ix++) {
                    double xv = x[((n * q->c + ci) * q->h + iy) * q->w + ix];
                    for (int64_t oc = 0; oc < og; oc++)
                        for (int64_t ky = 0; ky < q->kh; ky++)
                            for (int64_t kx = 0; kx < q->kw; kx++) {
                                int64_t oy = iy * q->sy - q->py + ky * q->dy, ox = ix * q->sx - q->px + kx * q->dx;
                                if (oy < 0 || oy >= q->oh || ox < 0 || ox >= q->ow)
                                    continue;
                                int64_t o = ci / cg * og + oc;
                                out[((n * q->o + o) * q->oh + oy) * q->ow + ox] +=
                                    xv * w[((ci * og + oc) * q->kh + ky) * q->kw + kx];
                            }
                }
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    geom q = geom_of(c);
    bool tr = c->iparam[P_TRANSPOSED], one = c->iparam[P_SPATIAL] == 1;
    int flags = c->iparam[P_FLAGS], rank = one ? 3 : 4;
    wkt_layout wlay = (wkt_layout)((flags >> F_WLAYOUT_SHIFT) & 15), blay = (wkt_layout)((flags >> 8) & 15);
    int64_t wshape[4] = {tr ? q.c : q.o, tr ? q.o / q.g : q.c / q.g, one ? q.kw : q.kh, q.kw};
    int64_t oshape[4] = {q.n, q.o, one ? q.ow : q.oh, q.ow};
    wk_conv_params p = wk_conv_params_default();
    p.groups = q.g;
    p.stride[0] = one ? q.sx : q.sy, p.stride[1] = q.sx;
    p.padding[0] = one ? q.px : q.py, p.padding[1] = q.px;
    p.dilation[0] = one ? q.dx : q.dy, p.dilation[1] = q.dx;
    p.output_padding[0] = axis_param(c, P_OUTPAD, one ? 1 : 0), p.output_padding[1] = axis_param(c, P_OUTPAD, 1);

    wk_tensor *x = NULL, *w = NULL, *b = NULL, *o = NULL;
    double *vx = NULL, *vw = NULL, *vb = NULL, *got = NULL, *want = NULL;
    wkt_dist d = wkt_dist_default(c->dtype);
    if (wkt_failed(wkt_make(dev, c->dtype, rank, c->shape, c->layout, d, rng, &x, &vx), r, "make x") ||
        wkt_failed(wkt_make(dev, c->dtype, rank, wshape, wlay, d, rng, &w, &vw), r, "make weight") ||
        ((flags & F_BIAS) &&
         wkt_failed(wkt_make(dev, c->dtype, 1, &q.o, blay, d, rng, &b, &vb), r, "make bias")))
        goto done;
    wk_status s = one ? (tr ? wk_conv_transpose1d : wk_conv1d)(x, w, b, &p, &o)
                      : (tr ? wk_conv_transpose2d : wk_conv2d)(x, w, b, &p, &o);
    if (wkt_failed(s, r, c->op) || wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    if (wk_tensor_rank(o) != rank || memcmp(wk_tensor_shape(o), oshape, (size_t)rank * sizeof(int64_t)) != 0) {
        wkt_fail(r, "output shape wrong");
        goto done;
    }
    int64_t total = q.n * q.o * q.oh * q.ow;
    want = malloc((size_t)total * sizeof *want + 1);
    if (!want) {
        wkt_fail(r, "out of memory");
        goto done;
    }
    (tr ? ref_transposed : ref_forward)(&q, vx, vw, vb, want);
    wkt_compare(c->dtype, got, want, total, wkt_tol(c->dtype, WKT_TOL_MATMUL), false, r);
done:
    wk_tensor_release(x);
    wk_tensor_release(w);
    wk_tensor_release(b);
    wk_tensor_release(o);
    free(vx);
    free(vw);
    free(vb);
    free(got);
    free(want);
}

/* One case: x shape (n, c, [h,] w), o output channels, kernel (kh, kw) (1-D: kw only). */
static void add(wkt_list *l, wk_dtype dt, int spatial, bool tr, const int64_t *xs, int64_t o, int64_t kh, int64_t kw,
                int groups, int dil, int stride, int pad, int outpad, int flags, wkt_layout xlay)
{
    static const char *const names[2][2] = {{"conv1d", "conv_transpose1d"}, {"conv2d", "conv_transpose2d"}};
    wkt_case c = {.family = "conv", .dtype = dt, .layout = xlay, .rank = spatial + 2, .run = run};
    snprintf(c.op, sizeof c.op, "%s", names[spatial - 1][tr]);
    memcpy(c.shape, xs, (size_t)(spatial + 2) * sizeof *xs);
    int ip[8] = {spatial, tr, groups, dil, stride, pad, outpad, flags};
    memcpy(c.iparam, ip, sizeof ip);
    c.fparam[0] = (double)o;
    c.fparam[1] = (double)(spatial == 1 ? kw : kh);
    c.fparam[2] = (double)kw;
    wkt_add(l, &c);
}

/* 2-D per-axis parameter: axis 0 takes v, axis 1 the other value of the pair {lo, lo+1}, so both axes
 * see both values across the table and a swapped axis shows. */
static int pair(int spatial, int v, int lo) { return spatial == 1 ? v : v * 10 + (2 * lo + 1 - v); }

static void sweep(wkt_list *l, wk_dtype dt, int every)
{
    int idx = 0;
    for (int spatial = 1; spatial <= 2; spatial++)
        for (int tr = 0; tr <= 1; tr++)
            for (int gi = 0; gi < 3; gi++)
                for (int dil = 1; dil <= 2; dil++)
                    for (int stride = 1; stride <= 2; stride++)
                        for (int pad = 0; pad <= 1; pad++, idx++) {
                            if (idx % every)
                                continue;
                            int64_t c = 4, groups = gi == 0 ? 1 : gi == 1 ? 2 : c, o = gi == 2 ? c : 6;
                            int64_t xs1[3] = {2, c, 11}, xs2[4] = {2, c, 7, 6};
                            /* output_padding: the largest allowed value on every other case */
                            int op = 0;
                            if (tr && idx / every % 2) {
                                int hs = stride > dil ? stride : dil;
                                int ws = (3 - stride) > (3 - dil) ? 3 - stride : 3 - dil;
                                op = spatial == 1 ? hs - 1 : (hs - 1) * 10 + (ws - 1);
                            }
                            int flags = (idx / every % 3 != 0 ? F_BIAS : 0) | ((idx + 2) % WKT_LAYOUT_COUNT) << 4 |
                                        ((idx + 4) % 2 ? WKT_OFFSET : WKT_CONTIG) << 8;
                            add(l, dt, spatial, tr, spatial == 1 ? xs1 : xs2, o, 3, spatial == 1 ? 3 : 2, (int)groups,
                                pair(spatial, dil, 1), pair(spatial, stride, 1), pair(spatial, pad, 0), op, flags,
                                (wkt_layout)(idx / every % WKT_LAYOUT_COUNT));
                        }
}

static void cases(wkt_list *l)
{
    sweep(l, WK_F32, 1);
    sweep(l, WK_F64, 1);
    sweep(l, WK_F16, 3);
    sweep(l, WK_BF16, 5);
    static const wk_dtype dts[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    for (int di = 0; di < 4; di++) {
        wk_dtype dt = dts[di];
        /* 1x1 convolutions: x read in place by the GEMM when the layout allows (one input channel: the
         * direct kernel) */
        add(l, dt, 2, false, (const int64_t[]){2, 4, 5, 3}, 6, 1, 1, 1, 11, 11, 0, 0, F_BIAS, WKT_CONTIG);
        add(l, dt, 2, false, (const int64_t[]){2, 4, 5, 3}, 6, 1, 1, 2, 11, 11, 0, 0, 0, WKT_OFFSET);
        add(l, dt, 1, false, (const int64_t[]){3, 1, 9}, 2, 1, 1, 1, 1, 1, 0, 0, F_BIAS, WKT_CONTIG);
        add(l, dt, 1, true, (const int64_t[]){3, 1, 9}, 2, 1, 1, 1, 1, 1, 0, 0, 0, WKT_CONTIG);
        /* the kernel exactly fills the padded input (output size 1) */
        add(l, dt, 2, false, (const int64_t[]){1, 3, 3, 4}, 2, 5, 6, 1, 11, 11, 11, 0, F_BIAS, WKT_TRANSPOSED);
        /* sizes past the thread grain of im2col, col2im and the rounding store (threaded when OpenBLAS is
         * its OpenMP build) */
        add(l, dt, 2, false, (const int64_t[]){4, 8, 24, 24}, 16, 3, 3, 1, 11, 11, 11, 0, F_BIAS, WKT_CONTIG);
        add(l, dt, 2, true, (const int64_t[]){2, 16, 16, 16}, 32, 3, 3, 1, 11, 22, 11, 11, F_BIAS | WKT_OFFSET << 4,
            WKT_CONTIG);
    }
    /* depthwise with a channel multiplier (2 outputs per input channel), big enough to spread planes
     * over threads; and a single input channel (groups 1, the same direct kernel) */
    for (int di = 0; di < 4; di += 2) {
        add(l, dts[di], 2, false, (const int64_t[]){2, 16, 24, 24}, 32, 3, 3, 16, 11, 12, 11, 0, F_BIAS,
            WKT_PERMUTED);
        add(l, dts[di], 2, true, (const int64_t[]){2, 16, 24, 24}, 32, 3, 3, 16, 21, 12, 11, 1,
            F_BIAS | WKT_TRANSPOSED << 4, WKT_OFFSET);
        add(l, dts[di], 1, false, (const int64_t[]){3, 1, 40}, 5, 1, 4, 1, 2, 3, 2, 0, F_BIAS, WKT_TRANSPOSED);
    }
    /* empty batch */
    add(l, WK_F32, 2, false, (const int64_t[]){0, 4, 5, 5}, 6, 3, 3, 2, 11, 11, 11, 0, F_BIAS, WKT_CONTIG);
    add(l, WK_F32, 1, true, (const int64_t[]){0, 4, 5}, 6, 1, 3, 2, 1, 2, 1, 1, F_BIAS, WKT_CONTIG);
}

/* ---- error paths */

static wk_tensor *mk(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape)
{
    wk_tensor *t = NULL;
    wk_tensor_empty(dev, dt, rank, shape, &t);
    return t;
}

static void untouched(wkt_errctx *e, const wk_tensor *o, const char *op)
{
    e->checks++;
    if (o != NULL) {
        e->failures++;
        printf("FAIL %s: out written on failure\n", op);
    }
}

static void errors(wkt_errctx *e)
{
    wk_device *dev = e->dev;
#define T(dt, ...) mk(dev, dt, (int)(sizeof((int64_t[]){__VA_ARGS__}) / 8), (const int64_t[]){__VA_ARGS__})
    wk_tensor *x1 = T(WK_F32, 2, 4, 8), *x2 = T(WK_F32, 2, 4, 6, 6), *xi = T(WK_I32, 2, 4, 8);
    wk_tensor *w1 = T(WK_F32, 6, 2, 3), *w2 = T(WK_F32, 6, 2, 3, 3), *w1d = T(WK_F64, 6, 2, 3);
    wk_tensor *wi = T(WK_I32, 6, 2, 3);
    wk_tensor *w1c = T(WK_F32, 6, 3, 3), *wbig = T(WK_F32, 6, 2, 9), *w4 = T(WK_F32, 6, 1, 3);
    wk_tensor *wt1 = T(WK_F32, 4, 3, 3); /* transposed: (C, O/g, K), O = 6 at g 2 */
    wk_tensor *b6 = T(WK_F32, 6), *b5 = T(WK_F32, 5), *b16 = T(WK_F32, 1, 6), *b6d = T(WK_F64, 6);
#undef T
    wk_tensor *o = NULL;
    wk_conv_params p = wk_conv_params_default(), q;
    p.groups = 2;

    WKT_EXPECT(e, wk_conv1d(NULL, w1, NULL, &p, &o), WK_ERR_INVALID_ARGUMENT, "conv1d");
    WKT_EXPECT(e, wk_conv1d(x1, NULL, NULL, &p, &o), WK_ERR_INVALID_ARGUMENT, "conv1d");
    WKT_EXPECT(e, wk_conv1d(x1, w1, NULL, NULL, &o), WK_ERR_INVALID_ARGUMENT, "conv1d");
    WKT_EXPECT(e, wk_conv1d(x1, w1, NULL, &p, NULL), WK_ERR_INVALID_ARGUMENT, "conv1d");
    WKT_EXPECT(e, wk_conv1d(xi, wi, NULL, &p, &o), WK_ERR_DTYPE, "conv1d");        /* int dtype */
    WKT_EXPECT(e, wk_conv1d(x1, w1d, NULL, &p, &o), WK_ERR_DTYPE, "conv1d");       /* mixed dtypes */
    WKT_EXPECT(e, wk_conv1d(x1, w1, b6d, &p, &o), WK_ERR_DTYPE, "conv1d");         /* bias dtype */
    WKT_EXPECT(e, wk_conv2d(x1, w1, NULL, &p, &o), WK_ERR_SHAPE, "conv2d");        /* rank */
    WKT_EXPECT(e, wk_conv1d(x1, w2, NULL, &p, &o), WK_ERR_SHAPE, "conv1d");
    WKT_EXPECT(e, wk_conv1d(x1, w1c, NULL, &p, &o), WK_ERR_SHAPE, "conv1d");       /* weight channels != C/g */
    WKT_EXPECT(e, wk_conv1d(x1, w1, b5, &p, &o), WK_ERR_SHAPE, "conv1d");          /* bias size */
    WKT_EXPECT(e, wk_conv1d(x1, w1, b16, &p, &o), WK_ERR_SHAPE, "conv1d");         /* bias rank */
    WKT_EXPECT(e, wk_conv1d(x1, wbig, NULL, &p, &o), WK_ERR_SHAPE, "conv1d");      /* kernel 9 > 8 */
    q = p, q.padding[0] = 1;
    WKT_EXPECT(e, wk_conv1d(x1, wbig, NULL, &q, &o), WK_OK, "conv1d");             /* fits with padding */
    wk_tensor_release(o), o = NULL;
    q = p, q.dilation[0] = 4;                                                       /* span 9 > 8 */
    WKT_EXPECT(e, wk_conv1d(x1, w1, NULL, &q, &o), WK_ERR_SHAPE, "conv1d");
    q = p, q.groups = 3;                                                            /* 3 does not divide 4 */
    WKT_EXPECT(e, wk_conv1d(x1, w1, NULL, &q, &o), WK_ERR_SHAPE, "conv1d");
    q = p, q.groups = 4;                                                            /* 4 does not divide O = 6 */
    WKT_EXPECT(e, wk_conv1d(x1, w4, NULL, &q, &o), WK_ERR_SHAPE, "conv1d");
    q = p, q.groups = 0;
    WKT_EXPECT(e, wk_conv1d(x1, w1, NULL, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv1d");
    q = p, q.stride[0] = 0;
    WKT_EXPECT(e, wk_conv1d(x1, w1, NULL, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv1d");
    q = p, q.dilation[0] = 0;
    WKT_EXPECT(e, wk_conv1d(x1, w1, NULL, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv1d");
    q = p, q.padding[0] = -1;
    WKT_EXPECT(e, wk_conv1d(x1, w1, NULL, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv1d");
    q = p, q.stride[1] = 0; /* conv2d checks axis 1 too */
    WKT_EXPECT(e, wk_conv2d(x2, w2, NULL, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv2d");
    q = p, q.padding[1] = -2;
    WKT_EXPECT(e, wk_conv2d(x2, w2, b6, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv2d");

    /* transposed: weight (C, O/g, K), output_padding < max(stride, dilation) */
    WKT_EXPECT(e, wk_conv_transpose1d(x1, wt1, b6, &p, &o), WK_OK, "conv_transpose1d");
    wk_tensor_release(o), o = NULL;
    WKT_EXPECT(e, wk_conv_transpose1d(x1, w1, NULL, &p, &o), WK_ERR_SHAPE, "conv_transpose1d"); /* dim 0 != C */
    WKT_EXPECT(e, wk_conv_transpose1d(x1, wt1, b5, &p, &o), WK_ERR_SHAPE, "conv_transpose1d");
    q = p, q.output_padding[0] = 1;                                                 /* stride 1, dilation 1 */
    WKT_EXPECT(e, wk_conv_transpose1d(x1, wt1, NULL, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv_transpose1d");
    q = p, q.stride[0] = 2, q.output_padding[0] = 2;
    WKT_EXPECT(e, wk_conv_transpose1d(x1, wt1, NULL, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv_transpose1d");
    q = p, q.stride[0] = 2, q.output_padding[0] = -1;
    WKT_EXPECT(e, wk_conv_transpose1d(x1, wt1, NULL, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv_transpose1d");
    q = p, q.padding[0] = 6;                                                        /* output size 7 - 12 + 3 < 1 */
    WKT_EXPECT(e, wk_conv_transpose1d(x1, wt1, NULL, &q, &o), WK_ERR_SHAPE, "conv_transpose1d");
    q = p, q.groups = 3;
    WKT_EXPECT(e, wk_conv_transpose1d(x1, wt1, NULL, &q, &o), WK_ERR_SHAPE, "conv_transpose1d");
    q = p, q.dilation[0] = 3, q.output_padding[0] = 2;                              /* allowed: < dilation */
    WKT_EXPECT(e, wk_conv_transpose1d(x1, wt1, NULL, &q, &o), WK_OK, "conv_transpose1d");
    wk_tensor_release(o), o = NULL;
    q = p, q.stride[1] = 2, q.output_padding[1] = 2;
    WKT_EXPECT(e, wk_conv_transpose2d(x2, w2, NULL, &q, &o), WK_ERR_INVALID_ARGUMENT, "conv_transpose2d");
    untouched(e, o, "conv");

    wk_tensor *all[] = {x1, x2, w1, w2, wt1, w1d, xi, wi, w1c, b6, b5, b16, b6d, wbig, w4};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        wk_tensor_release(all[i]);
}

const wkt_family wkt_family_conv = {.name = "conv", .cases = cases, .errors = errors};
