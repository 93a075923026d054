/* graphs.c: graph capture and replay against the same ops run eagerly, capture errors, the graph memory's release,
 * and the error paths of the stream calls (streams.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streams.h"

#define NOUT 4
#define REPLAYS 100
/* WICK_STREAMS_QUICK=1 (under compute-sanitizer): fewer replays and captures. */
static int quick(int full, int few)
{
    const char *v = getenv("WICK_STREAMS_QUICK");
    return v && *v && strcmp(v, "0") != 0 ? few : full;
}

/* What the captured sequence reads: inputs rewritten before each replay, and constants. */
typedef struct model {
    wk_tensor *x, *img;                         /* inputs */
    wk_tensor *w1, *b1, *lw, *lb, *cw, *cb, *ids, *zero; /* constants */
} model;

/* Releases a temporary and keeps the first failure. */
#define STEP(call)                                                                                            \
    do {                                                                                                      \
        if (s == WK_OK)                                                                                       \
            s = (call);                                                                                       \
    } while (0)

/* 24 ops of 15 families: matmul, binary, unary, layer_norm, rms_norm, softmax, reduce, affine, conv2d, pooling,
 * transpose + contiguous (copy), scan, index_select, cast, compare, where, cat, argmax. */
static wk_status run_model(const model *m, wk_tensor *out[NOUT])
{
    wk_status s = WK_OK;
    wk_tensor *h = NULL, *h2 = NULL, *g = NULL, *ln = NULL, *rn = NULL, *sm = NULL, *mu = NULL, *sum = NULL;
    wk_tensor *c = NULL, *p = NULL, *tr = NULL, *trc = NULL, *cs = NULL, *sc = NULL, *is = NULL, *h16 = NULL;
    wk_tensor *back = NULL, *cmp = NULL, *wh = NULL, *mx = NULL;
    wk_conv_params cp = wk_conv_params_default();
    cp.padding[0] = cp.padding[1] = 1;
    wk_pool_params pp = {.kernel = {2, 2}, .stride = {2, 2}};
    int d1 = 1, d0 = 0;
    memset(out, 0, NOUT * sizeof *out);
    STEP(wk_matmul(m->x, m->w1, &h));
    STEP(wk_binary(WK_BINARY_ADD, h, m->b1, &h2));
    STEP(wk_unary(WK_UNARY_GELU, h2, &g));
    STEP(wk_layer_norm(g, m->lw, m->lb, 1e-5, &ln));
    STEP(wk_rms_norm(ln, m->lw, 1e-6, &rn));
    STEP(wk_softmax_last_dim(rn, &sm));
    STEP(wk_binary(WK_BINARY_MUL, sm, h, &mu));
    STEP(wk_reduce(WK_REDUCE_SUM, mu, &d1, 1, true, &sum));
    STEP(wk_affine(sum, 2.0, 1.0, &out[0]));
    STEP(wk_reduce(WK_REDUCE_MAX, g, &d0, 1, false, &mx));
    STEP(wk_conv2d(m->img, m->cw, m->cb, &cp, &c));
    STEP(wk_max_pool2d(c, &pp, &p));
    STEP(wk_transpose(p, 2, 3, &tr));
    STEP(wk_contiguous(tr, &trc));
    STEP(wk_cumsum(trc, 3, &cs));
    STEP(wk_affine(cs, 0.01, 0.0, &sc));
    STEP(wk_unary(WK_UNARY_EXP, sc, &out[1]));
    STEP(wk_index_select(g, 0, m->ids, &is));
    STEP(wk_cast(is, WK_F16, &h16));
    STEP(wk_cast(h16, WK_F32, &back));
    STEP(wk_compare(WK_CMP_GT, back, m->zero, &cmp));
    STEP(wk_where(cmp, back, is, &wh));
    const wk_tensor *parts[3] = {wh, is, mx};
    wk_tensor *mx2 = NULL;
    const int64_t row[2] = {1, 64};
    STEP(wk_reshape(mx, 2, row, &mx2));
    parts[2] = mx2;
    STEP(wk_cat(parts, 3, 0, &out[2]));
    STEP(wk_argmax(out[2] ? out[2] : wh, 1, false, &out[3]));
    wk_tensor *temps[] = {h, h2, g, ln, rn, sm, mu, sum, c, p, tr, trc, cs, sc, is, h16, back, cmp, wh, mx, mx2};
    for (size_t i = 0; i < sizeof temps / sizeof temps[0]; i++)
        wk_tensor_release(temps[i]);
    if (s != WK_OK)
        for (int i = 0; i < NOUT; i++)
            wk_tensor_release(out[i]), out[i] = NULL;
    return s;
}

static bool model_make(wk_device *dev, model *m)
{
    const int64_t xs[2] = {8, 64}, ws[2] = {64, 64}, vs[1] = {64}, is[4] = {2, 4, 8, 8}, cws[4] = {8, 4, 3, 3};
    const int64_t cbs[1] = {8}, nid = 5;
    const int64_t ids[5] = {7, 0, 3, 3, 5};
    memset(m, 0, sizeof *m);
    m->x = rand_tensor(dev, 2, xs), m->img = rand_tensor(dev, 4, is);
    m->w1 = rand_tensor(dev, 2, ws), m->b1 = rand_tensor(dev, 1, vs);
    m->lw = rand_tensor(dev, 1, vs), m->lb = rand_tensor(dev, 1, vs);
    m->cw = rand_tensor(dev, 4, cws), m->cb = rand_tensor(dev, 1, cbs);
    OK(wk_tensor_from_host(dev, WK_I64, 1, &nid, ids, &m->ids));
    OK(wk_tensor_empty(dev, WK_F32, 1, vs, &m->zero));
    OK(wk_fill(m->zero, 0.0));
    return m->x && m->img && m->w1 && m->b1 && m->lw && m->lb && m->cw && m->cb && m->ids && m->zero;
}

static void model_free(model *m)
{
    wk_tensor *all[] = {m->x, m->img, m->w1, m->b1, m->lw, m->lb, m->cw, m->cb, m->ids, m->zero};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        wk_tensor_release(all[i]);
}

/* New random inputs, written into the tensors the graph reads. */
static void new_inputs(model *m, float *buf)
{
    for (int i = 0; i < 8 * 64; i++)
        buf[i] = frand();
    OK(wk_tensor_write_async(m->x, buf, 8 * 64 * sizeof(float)));
    for (int i = 0; i < 2 * 4 * 8 * 8; i++)
        buf[i] = frand();
    OK(wk_tensor_write_async(m->img, buf, 2 * 4 * 8 * 8 * sizeof(float)));
}

double out_diff(const wk_tensor *a, const wk_tensor *b)
{
    size_t n = (size_t)wk_tensor_numel(a);
    bool ints = wk_tensor_dtype(a) == WK_I64;
    double *x = calloc(n, 8), *y = calloc(n, 8), worst = 0;
    if (wk_tensor_to_host(a, x, n * 8) != WK_OK || wk_tensor_to_host(b, y, n * 8) != WK_OK)
        worst = INFINITY;
    for (size_t i = 0; i < n && worst < INFINITY; i++) {
        double u = ints ? (double)((int64_t *)x)[i] : ((float *)x)[i], v = ints ? (double)((int64_t *)y)[i] : ((float *)y)[i];
        double d = fabs(u - v) / (1e-3 + fabs(v));
        if (!(d <= worst))
            worst = isnan(d) ? INFINITY : d;
    }
    free(x);
    free(y);
    return worst;
}

static void replay_against_eager(wk_device *dev, model *m, wk_graph *g, wk_tensor *out[NOUT])
{
    float *buf = malloc(2 * 4 * 8 * 8 * sizeof(float) > 8 * 64 * sizeof(float) ? 2 * 4 * 8 * 8 * sizeof(float)
                                                                                : 8 * 64 * sizeof(float));
    double worst = 0;
    int failed = 0;
    int replays = quick(REPLAYS, 5);
    for (int r = 0; r < replays; r++) {
        new_inputs(m, buf);
        OK(wk_stream_sync(wk_stream_current(dev))); /* buf is pageable: the write has read it, but keep it simple */
        OK(wk_graph_launch(g, NULL));
        wk_tensor *eager[NOUT];
        if (run_model(m, eager) != WK_OK) {
            failed++;
            continue;
        }
        for (int i = 0; i < NOUT; i++) {
            double d = out_diff(out[i], eager[i]);
            worst = d > worst ? d : worst;
            wk_tensor_release(eager[i]);
        }
    }
    CHECK(failed == 0 && worst <= 1e-4, "%d replays: worst relative difference from eager %.3g, %d eager failures",
          replays, worst, failed);
    printf("  %s: %d replays of 24 captured ops, worst relative difference from eager %.3g\n", wk_device_name(dev),
           replays, worst);
    free(buf);
}

/* Each capture allocates and releases 256 MiB inside the graph; 600 of them are 150 GiB, more than a GPU has:
 * memory kept after wk_graph_destroy would run out. */
static void graph_memory_released(wk_device *dev, wk_stream *s)
{
    const int64_t n = (int64_t)64 << 20;
    int done = 0, rounds = quick(600, 3);
    for (int i = 0; i < rounds; i++) {
        wk_tensor *big = NULL, *sum = NULL;
        wk_graph *g = NULL;
        if (wk_stream_begin_capture(s) != WK_OK)
            break;
        wk_tensor_empty(dev, WK_F32, 1, &n, &big);
        if (big)
            wk_fill(big, 1.0);
        if (big)
            wk_reduce(WK_REDUCE_SUM, big, NULL, 0, false, &sum);
        wk_tensor_release(big);
        if (wk_stream_end_capture(s, &g) != WK_OK || wk_graph_launch(g, s) != WK_OK || wk_stream_sync(s) != WK_OK) {
            wk_graph_destroy(g);
            wk_tensor_release(sum);
            break;
        }
        float v = 0;
        if (i == 0 && (wk_tensor_to_host(sum, &v, sizeof v) != WK_OK || v != (float)n))
            CHECK(false, "the captured sum of 2^26 ones gave %g", v);
        wk_graph_destroy(g);
        wk_tensor_release(sum);
        done++;
    }
    CHECK(done == rounds, "%d captures of a 256 MiB temporary: %d went through", rounds, done);
}

/* Calls that cannot be captured fail the capture, which then gives no graph; the stream stays usable. */
static void capture_errors(wk_device *dev, wk_stream *s, model *m)
{
    float v[8 * 64];
    wk_graph *g = NULL;
    wk_tensor *t = NULL, *outside = rand_tensor(dev, 2, (const int64_t[]){8, 64});
    FAILS(wk_stream_begin_capture(wk_stream_default(dev)), WK_ERR_INVALID_ARGUMENT);
    FAILS(wk_stream_end_capture(s, &g), WK_ERR_INVALID_ARGUMENT); /* not capturing */
    for (int kind = 0; kind < 4; kind++) {
        OK(wk_stream_begin_capture(s));
        CHECK(wk_stream_current(dev) == s, "capture makes the stream current");
        FAILS(wk_stream_begin_capture(s), WK_ERR_INVALID_ARGUMENT);
        FAILS(wk_stream_destroy(s), WK_ERR_INVALID_ARGUMENT);
        FAILS(wk_stream_set_current(dev, NULL), WK_ERR_INVALID_ARGUMENT);
        OK(wk_affine(m->x, 2.0, 0.0, &t));
        wk_status want = kind == 2 ? WK_ERR_INVALID_ARGUMENT : WK_ERR_UNSUPPORTED;
        if (kind == 0)
            FAILS(wk_tensor_to_host(t, v, sizeof v), WK_ERR_UNSUPPORTED);
        else if (kind == 1)
            FAILS(wk_tensor_write_async(t, v, sizeof v), WK_ERR_UNSUPPORTED);
        else if (kind == 2)
            wk_tensor_release(outside), outside = NULL; /* made before the capture */
        else
            FAILS(wk_device_sync(dev), WK_ERR_UNSUPPORTED);
        FAILS(wk_stream_end_capture(s, &g), want);
        CHECK(g == NULL && strstr(wk_last_error(), "no graph"), "failed capture %d: %s", kind, wk_last_error());
        CHECK(wk_stream_current(dev) == wk_stream_default(dev), "the current stream is restored");
        wk_tensor_release(t);
        t = NULL;
    }
    /* usable afterwards */
    OK(wk_stream_set_current(dev, s));
    OK(wk_affine(m->x, 0.0, 3.0, &t));
    float got = 0;
    wk_tensor *one = NULL;
    OK(wk_narrow(t, 0, 0, 1, &one));
    if (one) {
        wk_tensor *flat = NULL;
        OK(wk_narrow(one, 1, 5, 1, &flat));
        OK(wk_tensor_to_host(flat, &got, sizeof got));
        wk_tensor_release(flat);
    }
    CHECK(got == 3.0f, "after failed captures the stream computes (%g)", got);
    OK(wk_stream_set_current(dev, NULL));
    wk_tensor_release(one);
    wk_tensor_release(t);
    wk_tensor_release(outside);
}

void test_graphs(wk_device *dev, bool gpu)
{
    model m;
    wk_stream *s = NULL;
    wk_graph *g = NULL;
    wk_tensor *out[NOUT] = {NULL};
    OK(wk_stream_create(dev, &s));
    if (!model_make(dev, &m) || !s) {
        CHECK(false, "graph test setup");
        return;
    }
    if (!gpu) {
        FAILS(wk_stream_begin_capture(s), WK_ERR_UNSUPPORTED);
        OK(run_model(&m, out)); /* the sequence itself runs eagerly */
    } else {
        OK(wk_stream_set_current(dev, s)); /* the eager reference runs on the same stream (same library handles) */
        OK(wk_stream_begin_capture(s));
        OK(run_model(&m, out));
        OK(wk_stream_end_capture(s, &g));
        if (g)
            replay_against_eager(dev, &m, g, out);
        OK(wk_stream_set_current(dev, NULL));
        capture_errors(dev, s, &m);
        graph_memory_released(dev, s);
    }
    wk_graph_destroy(g);
    for (int i = 0; i < NOUT; i++)
        wk_tensor_release(out[i]); /* graph outputs outlive the graph */
    OK(wk_device_sync(dev));
    model_free(&m);
    OK(wk_stream_destroy(s));
}

void test_stream_errors(wk_device *dev, bool gpu)
{
    wk_stream *s = NULL, *adopted = NULL;
    wk_graph *g = NULL;
    FAILS(wk_stream_create(NULL, &s), WK_ERR_INVALID_ARGUMENT);
    FAILS(wk_stream_create(dev, NULL), WK_ERR_INVALID_ARGUMENT);
    FAILS(wk_stream_from_native(dev, 0, &s), gpu ? WK_ERR_INVALID_ARGUMENT : WK_ERR_UNSUPPORTED);
    FAILS(wk_stream_sync(NULL), WK_ERR_INVALID_ARGUMENT);
    FAILS(wk_stream_set_current(NULL, NULL), WK_ERR_INVALID_ARGUMENT);
    FAILS(wk_graph_launch(NULL, NULL), WK_ERR_INVALID_ARGUMENT);
    FAILS(wk_stream_end_capture(NULL, &g), WK_ERR_INVALID_ARGUMENT);
    wk_graph_destroy(NULL);
    wk_device *other = NULL;
    if (gpu && wk_device_get("cpu", &other) == WK_OK) {
        OK(wk_stream_create(dev, &s));
        FAILS(wk_stream_set_current(other, s), WK_ERR_DEVICE);
        /* adopting a native stream: wick's own stream's handle stands for a caller's */
        OK(wk_stream_from_native(dev, wk_stream_native(s), &adopted));
        if (adopted) {
            OK(wk_stream_set_current(dev, adopted));
            const int64_t n = 1000;
            wk_tensor *t = NULL;
            float v[1000];
            OK(wk_tensor_empty(dev, WK_F32, 1, &n, &t));
            OK(wk_fill(t, 4.0));
            OK(wk_tensor_to_host(t, v, sizeof v));
            CHECK(v[999] == 4.0f, "work on an adopted stream");
            wk_tensor_release(t);
            OK(wk_stream_destroy(adopted)); /* the native stream stays: s still works */
            OK(wk_stream_sync(s));
        }
        OK(wk_stream_destroy(s));
    }
}
