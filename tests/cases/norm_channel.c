/* norm_channel.c: the norm family's cases over channels and several dims: batch_norm (inference), group_norm and
 * layer_norm over the last k dims, with and without weight/bias, every float dtype and layout, against a plain
 * float64 reference; their error paths (norm.c's errors calls them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise.h"
#include "special_inputs.h"

/* iparam: [0] kind, [1] groups (group_norm) or k (layer_norm_dims), [2] affine (bit 0 weight, bit 1 bias).
 * fparam[0]: eps. */
enum { NC_BATCH, NC_GROUP, NC_LAYER_DIMS };
static const char *const nc_names[] = {"batch_norm", "group_norm", "layer_norm_dims"};

/* want for x (N, C, S) row-major: batch_norm from mean/var (pv[0], pv[1]), else group statistics over G groups
 * (layer_norm_dims: N rows of C * S, one group). w, b indexed by channel, or by element (layer_norm_dims). */
static void reference(int kind, const double *x, int64_t N, int64_t C, int64_t S, int64_t G, double *const pv[4],
                      double eps, double *y)
{
    int64_t cpg = C / G;
    for (int64_t nb = 0; nb < N; nb++)
        for (int64_t g = 0; g < G; g++) {
            const double *xg = x + (nb * C + g * cpg) * S;
            double mean = 0, var = 0, m = (double)(cpg * S);
            for (int64_t i = 0; i < cpg * S; i++)
                mean += xg[i] / m;
            for (int64_t i = 0; i < cpg * S; i++)
                var += (xg[i] - mean) * (xg[i] - mean) / m;
            for (int64_t i = 0; i < cpg * S; i++) {
                int64_t ch = g * cpg + i / S, pi = kind == NC_LAYER_DIMS ? i : ch;
                double mu = kind == NC_BATCH ? pv[0][ch] : mean, v = kind == NC_BATCH ? pv[1][ch] : var;
                double out = (xg[i] - mu) / sqrt(v + eps);
                if (pv[2])
                    out *= pv[2][pi];
                if (pv[3])
                    out += pv[3][pi];
                y[(nb * C + g * cpg) * S + i] = out;
            }
        }
}

static void run(const wkt_case *c, wk_device *dev, wkt_rng *rng, wkt_result *r)
{
    int kind = c->iparam[0], k = c->iparam[1];
    int64_t n = 1, N = c->shape[0], C = c->rank > 1 ? c->shape[1] : 1, S = 1, G = kind == NC_GROUP ? k : 1;
    for (int d = 0; d < c->rank; d++)
        n *= c->shape[d];
    for (int d = 2; d < c->rank; d++)
        S *= c->shape[d];
    int prank = kind == NC_LAYER_DIMS ? k : 1;
    const int64_t *pshape = kind == NC_LAYER_DIMS ? c->shape + c->rank - k : c->shape + 1;
    if (kind == NC_LAYER_DIMS) { /* rows of the last k dims: N rows, C = 1 channel of S */
        S = 1;
        for (int d = c->rank - k; d < c->rank; d++)
            S *= c->shape[d];
        N = S ? n / S : 0;
        C = 1;
    }
    wk_tensor *x = NULL, *p[4] = {NULL, NULL, NULL, NULL}, *o = NULL;
    double *xv = NULL, *pv[4] = {NULL, NULL, NULL, NULL}, *got = NULL, *want = malloc((size_t)n * sizeof *want + 1);
    wk_status s = wkt_make(dev, c->dtype, c->rank, c->shape, c->layout, wkt_dist_default(c->dtype), rng, &x, &xv);
    for (int i = 0; i < 4 && s == WK_OK; i++) {
        bool want_p = i < 2 ? kind == NC_BATCH : (c->iparam[2] >> (i - 2) & 1);
        wkt_dist d = i == 1 ? (wkt_dist){0.1, 3} : wkt_dist_default(c->dtype); /* a variance is positive */
        if (want_p)
            s = wkt_make(dev, c->dtype, prank, pshape, i == 2 ? WKT_OFFSET : WKT_CONTIG, d, rng, &p[i], &pv[i]);
    }
    if (wkt_failed(s, r, "make inputs") || !want)
        goto done;
    double eps = c->fparam[0];
    s = kind == NC_BATCH   ? wk_batch_norm(x, p[0], p[1], p[2], p[3], eps, &o)
        : kind == NC_GROUP ? wk_group_norm(x, k, p[2], p[3], eps, &o)
                           : wk_layer_norm_dims(x, k, p[2], p[3], eps, &o);
    if (wkt_failed(s, r, c->op) || !check_shape(o, c->dtype, c->rank, c->shape, r) ||
        wkt_failed(wkt_read(o, &got), r, "read"))
        goto done;
    reference(kind, xv, N, C, S, G, pv, eps, want);
    for (int64_t i = 0; i < n; i++)
        want[i] = wkt_round_to(c->dtype, want[i]);
    wkt_compare(c->dtype, got, want, n, wkt_tol(c->dtype, WKT_TOL_ELEMENTWISE), false, r);
done:
    wk_tensor_release(x);
    wk_tensor_release(o);
    for (int i = 0; i < 4; i++) {
        wk_tensor_release(p[i]);
        free(pv[i]);
    }
    free(xv);
    free(got);
    free(want);
}

static void add(wkt_list *l, int kind, wk_dtype dt, wkt_layout layout, int rank, const int64_t *shape, int k,
                int affine)
{
    wkt_case c = {.family = "norm", .dtype = dt, .layout = layout, .rank = rank, .run = run, .fparam = {1e-5}};
    snprintf(c.op, sizeof c.op, "%s", nc_names[kind]);
    if (rank > 0)
        memcpy(c.shape, shape, (size_t)rank * sizeof *shape);
    c.iparam[0] = kind;
    c.iparam[1] = k;
    c.iparam[2] = affine;
    wkt_add(l, &c);
}

void norm_channel_cases(wkt_list *l)
{
    static const wk_dtype fl[] = {WK_F16, WK_BF16, WK_F32, WK_F64};
    static const wkt_layout lay[] = {WKT_CONTIG, WKT_TRANSPOSED, WKT_PERMUTED, WKT_OFFSET, WKT_BROADCAST};
    static const int64_t s4[] = {2, 6, 5, 7}, s2[] = {9, 12}, s3[] = {3, 8, 300}, big[] = {2, 4, 64, 64};
    for (int k = 0; k < 4; k++) {
        wk_dtype dt = fl[k];
        for (int a = 0; a < 4; a++) {
            add(l, NC_BATCH, dt, lay[(k + a) % 5], 4, s4, 0, a);
            add(l, NC_GROUP, dt, lay[(k + a + 1) % 5], 4, s4, a % 2 ? 3 : 2, a);
            add(l, NC_LAYER_DIMS, dt, lay[(k + a + 2) % 5], 4, s4, 1 + (a + k) % 4, a);
        }
        add(l, NC_BATCH, dt, WKT_TRANSPOSED, 2, s2, 0, 3);
        add(l, NC_GROUP, dt, WKT_CONTIG, 2, s2, 4, 3);
        add(l, NC_GROUP, dt, WKT_OFFSET, 3, s3, 8, 1);
        add(l, NC_LAYER_DIMS, dt, WKT_CONTIG, 3, s3, 2, 3);
    }
    add(l, NC_GROUP, WK_F32, WKT_CONTIG, 4, big, 1, 3);
    add(l, NC_GROUP, WK_F32, WKT_CONTIG, 4, big, 4, 0);
    add(l, NC_BATCH, WK_F32, WKT_CONTIG, 4, big, 0, 3);
    add(l, NC_LAYER_DIMS, WK_F32, WKT_CONTIG, 4, big, 3, 3);
}

void norm_channel_errors(wkt_errctx *e)
{
    const int64_t s4[4] = {2, 6, 5, 7}, c6[1] = {6}, c5[1] = {5}, l2[2] = {5, 7}, l2b[2] = {7, 5}, s1[1] = {6};
    wk_tensor *x = NULL, *xi = NULL, *x1 = NULL, *p = NULL, *p5 = NULL, *ph = NULL, *w2 = NULL, *w2b = NULL;
    wk_tensor *o = NULL;
    if (wk_tensor_empty(e->dev, WK_F32, 4, s4, &x) != WK_OK || wk_tensor_empty(e->dev, WK_I32, 4, s4, &xi) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 1, s1, &x1) != WK_OK || wk_tensor_empty(e->dev, WK_F32, 1, c6, &p) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 1, c5, &p5) != WK_OK || wk_tensor_empty(e->dev, WK_F16, 1, c6, &ph) != WK_OK ||
        wk_tensor_empty(e->dev, WK_F32, 2, l2, &w2) != WK_OK || wk_tensor_empty(e->dev, WK_F32, 2, l2b, &w2b) != WK_OK) {
        e->checks++, e->failures++;
        printf("FAIL norm channel errors: cannot make inputs: %s\n", wk_last_error());
        goto done;
    }
    EW_EXPECT(e, o, wk_group_norm(x, 4, NULL, NULL, 1e-5, &o), WK_ERR_INVALID_ARGUMENT, "group_norm");
    EW_EXPECT(e, o, wk_group_norm(x, 0, NULL, NULL, 1e-5, &o), WK_ERR_INVALID_ARGUMENT, "group_norm");
    EW_EXPECT(e, o, wk_group_norm(x, 2, p5, NULL, 1e-5, &o), WK_ERR_SHAPE, "group_norm");
    EW_EXPECT(e, o, wk_group_norm(x, 2, NULL, ph, 1e-5, &o), WK_ERR_DTYPE, "group_norm");
    EW_EXPECT(e, o, wk_group_norm(xi, 2, NULL, NULL, 1e-5, &o), WK_ERR_DTYPE, "group_norm");
    EW_EXPECT(e, o, wk_group_norm(x1, 1, NULL, NULL, 1e-5, &o), WK_ERR_SHAPE, "group_norm");
    EW_EXPECT(e, o, wk_group_norm(x, 2, NULL, NULL, -1, &o), WK_ERR_INVALID_ARGUMENT, "group_norm");
    EW_EXPECT(e, o, wk_batch_norm(x, NULL, p, NULL, NULL, 1e-5, &o), WK_ERR_INVALID_ARGUMENT, "batch_norm");
    EW_EXPECT(e, o, wk_batch_norm(x, p, p5, NULL, NULL, 1e-5, &o), WK_ERR_SHAPE, "batch_norm");
    EW_EXPECT(e, o, wk_batch_norm(x, p, p, ph, NULL, 1e-5, &o), WK_ERR_DTYPE, "batch_norm");
    EW_EXPECT(e, o, wk_batch_norm(xi, p, p, NULL, NULL, 1e-5, &o), WK_ERR_DTYPE, "batch_norm");
    EW_EXPECT(e, o, wk_batch_norm(x1, p, p, NULL, NULL, 1e-5, &o), WK_ERR_SHAPE, "batch_norm");
    EW_EXPECT(e, o, wk_layer_norm_dims(x, 2, w2b, NULL, 1e-5, &o), WK_ERR_SHAPE, "layer_norm_dims");
    EW_EXPECT(e, o, wk_layer_norm_dims(x, 1, w2, NULL, 1e-5, &o), WK_ERR_SHAPE, "layer_norm_dims");
    EW_EXPECT(e, o, wk_layer_norm_dims(x, 5, NULL, NULL, 1e-5, &o), WK_ERR_SHAPE, "layer_norm_dims");
    EW_EXPECT(e, o, wk_layer_norm_dims(x, 0, NULL, NULL, 1e-5, &o), WK_ERR_SHAPE, "layer_norm_dims");
    EW_EXPECT(e, o, wk_layer_norm_dims(xi, 2, NULL, NULL, 1e-5, &o), WK_ERR_DTYPE, "layer_norm_dims");
    EW_EXPECT(e, o, wk_layer_norm_dims(x, 2, w2, w2, 1e-5, NULL), WK_ERR_INVALID_ARGUMENT, "layer_norm_dims");
done:
    wk_tensor_release(x);
    wk_tensor_release(xi);
    wk_tensor_release(x1);
    wk_tensor_release(p);
    wk_tensor_release(p5);
    wk_tensor_release(ph);
    wk_tensor_release(w2);
    wk_tensor_release(w2b);
}
