/* conv_cudnn_graph.c: forward convolution of half types through cuDNN's graph API (cudnn_graph.h), on the tensors as
 * they lie (x as described by the caller, w and y packed NCHW): one convolution operation and the bias added in the
 * same kernel (a pointwise add cuDNN fuses), the engine configurations
 * cuDNN's heuristics rank first each built into a plan and timed on the first call of a shape (as PyTorch's
 * cudnn.benchmark does), the fastest kept per shape, strides and handle. The legacy API's half-type kernels ran
 * ResNet-50's shapes at 0.43-0.85x PyTorch, which goes through this API (issue 15). */
#include <stdlib.h>
#include <string.h>

#include "gpu/cudnn_graph.h"

#define CG_CANDIDATES WK_CUDNN_GRAPH_CONFIGS /* plans timed on a shape's first call */

enum { UID_X = 1, UID_W, UID_Y, UID_BIAS, UID_CONV = 100 };

/* All int64, zeroed before filling, so keys compare bytewise. */
typedef struct cg_key {
    int64_t dtype, xd[4], xs[4], wd[4], yd[4], pad[2], stride[2], dil[2], bias;
    wk_cudnnHandle_t handle;
} cg_key;

static wk_cudnn_cache graphs = {.key_size = sizeof(cg_key)};

static void packed(const int64_t d[4], int64_t s[4])
{
    s[3] = 1;
    for (int i = 2; i >= 0; i--)
        s[i] = s[i + 1] * d[i + 1];
}

static void build(wk_cudnn_graph *g, const cg_key *k)
{
    wk_cudnnDataType_t dt = k->dtype == WK_F16 ? WK_CUDNN_DATA_HALF : WK_CUDNN_DATA_BFLOAT16;
    int64_t ws[4], ys[4];
    packed(k->wd, ws);
    packed(k->yd, ys);
    wk_cudnn_desc x = wk_cudnn_tensor(g, UID_X, dt, 4, k->xd, k->xs, false, false);
    wk_cudnn_desc w = wk_cudnn_tensor(g, UID_W, dt, 4, k->wd, ws, false, false);
    wk_cudnn_desc y = wk_cudnn_tensor(g, UID_Y, dt, 4, k->yd, ys, false, false);
    if (!k->bias) {
        wk_cudnn_conv_fwd(g, 2, k->pad, k->stride, k->dil, x, w, y);
        return;
    }
    /* y = conv + bias (1, O, 1, 1): the bias fused into the convolution's kernel, the sum in f32 */
    int64_t bd[4] = {1, k->yd[1], 1, 1}, bs[4] = {k->yd[1], 1, 1, 1};
    wk_cudnn_desc c = wk_cudnn_tensor(g, UID_CONV, WK_CUDNN_DATA_FLOAT, 4, k->yd, ys, true, false);
    wk_cudnn_conv_fwd(g, 2, k->pad, k->stride, k->dil, x, w, c);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_ADD, WK_CUDNN_DATA_FLOAT, -1, c,
                       wk_cudnn_tensor(g, UID_BIAS, dt, 4, bd, bs, false, false), NULL, y);
}

typedef struct cg_run {
    wk_cudnn_desc plan;
    wk_cudnnHandle_t h;
    int n; /* tensors: 3, or 4 with the bias */
    void *ptrs[4], *ws;
} cg_run;

static wk_status run_plan(void *ctx)
{
    cg_run *r = ctx;
    static const int64_t uids[4] = {UID_X, UID_W, UID_Y, UID_BIAS};
    wk_cudnnStatus_t st = wk_cudnn_graph_run(r->plan, r->h, r->n, uids, r->ptrs, r->ws);
    if (st == WK_CUDNN_STATUS_SUCCESS)
        return WK_OK;
    return wk_error(wk_cudnn_not_supported(st) ? WK_ERR_UNSUPPORTED : WK_ERR_BACKEND, "conv2d: cuDNN: %s",
                    wk_cudnn_status_text(st));
}

/* The candidates run once each (the first run of a plan loads its kernels) and then timed once; the fastest
 * becomes g's plan, the others are destroyed. A candidate that fails to run is dropped. */
static wk_status choose(wk_gpu_dev *d, wk_cudnn_graph *g, cg_run *r, int n, wk_cudnn_desc *plans, int64_t *ws)
{
    int64_t most = 0;
    for (int i = 0; i < n; i++)
        most = ws[i] > most ? ws[i] : most;
    wk_status s = most > 0 ? wk_gpu_malloc(d, (size_t)most, &r->ws) : WK_OK;
    float best = 0;
    for (int i = 0; s == WK_OK && i < n; i++) {
        float ms = 0;
        r->plan = plans[i];
        wk_status e = run_plan(r);
        if (e == WK_OK)
            e = wk_gpu_timed(d, run_plan, r, &ms);
        if (e != WK_OK && e != WK_ERR_UNSUPPORTED)
            s = e;
        if (e == WK_OK && (!g->plan || ms < best)) {
            wk_cudnn_plan_free(g->plan);
            g->plan = plans[i];
            g->workspace = ws[i];
            best = ms;
        } else {
            wk_cudnn_plan_free(plans[i]);
        }
        plans[i] = NULL;
    }
    for (int i = 0; i < n; i++)
        wk_cudnn_plan_free(plans[i]);
    wk_gpu_free(d, r->ws); /* stream-ordered: the timed runs queued above still use it */
    r->ws = NULL;
    return s != WK_OK ? s : g->plan ? WK_OK : WK_ERR_UNSUPPORTED;
}

/* A new shape's graph, planned and timed (NULL: cuDNN has no engine for it). */
static wk_status make(wk_gpu_dev *d, const cg_key *k, cg_run *r, wk_cudnn_graph **out)
{
    wk_cudnn_graph *g = calloc(1, sizeof *g);
    if (!g)
        return WK_ERR_UNSUPPORTED;
    wk_cudnn_desc plans[CG_CANDIDATES] = {NULL};
    int64_t ws[CG_CANDIDATES] = {0};
    build(g, k);
    int n = wk_cudnn_graph_plans(g, k->handle, CG_CANDIDATES, plans, ws);
    wk_status s = g->st == WK_CUDNN_STATUS_SUCCESS ? choose(d, g, r, n, plans, ws) : WK_ERR_UNSUPPORTED;
    if (s != WK_OK) {
        wk_cudnn_graph_free(g);
        free(g);
        g = NULL;
    }
    if (s != WK_OK && s != WK_ERR_UNSUPPORTED)
        return s;
    if (!wk_cudnn_cache_store(&graphs, wk_gpu_ordinal(d), k, g) && g) {
        wk_cudnn_graph_free(g);
        free(g);
        g = NULL;
    }
    *out = g;
    return WK_OK;
}

wk_status wk_cudnn_conv_graph(wk_gpu_dev *d, wk_cudnnHandle_t h, wk_dtype dt, const wk_gpu_conv_shape *sh,
                              const int xstride[4], const void *x, const void *w, const void *bias, void *y)
{
    const char *off = getenv("WICK_CUDNN_GRAPH");
    if ((dt != WK_F16 && dt != WK_BF16) || sh->groups != 1 || !wk_cudnn_graph_available() || (off && !strcmp(off, "0")))
        return WK_ERR_UNSUPPORTED;
    cg_key k;
    memset(&k, 0, sizeof k);
    k.dtype = dt;
    k.bias = bias != NULL;
    k.handle = h;
    for (int i = 0; i < 4; i++) {
        k.xd[i] = sh->xdim[i];
        k.xs[i] = xstride[i];
        k.wd[i] = sh->wdim[i];
        k.yd[i] = sh->ydim[i];
    }
    for (int i = 0; i < 2; i++) {
        k.pad[i] = sh->pad[i];
        k.stride[i] = sh->stride[i];
        k.dil[i] = sh->dil[i];
    }
    cg_run r = {.h = h, .n = bias ? 4 : 3, .ptrs = {(void *)x, (void *)w, y, (void *)bias}};
    bool found = false;
    wk_cudnn_graph *g = wk_cudnn_cache_find(&graphs, wk_gpu_ordinal(d), &k, &found);
    if (!found && wk_gpu_capturing(d)) /* no planning or timing inside a capture */
        return WK_ERR_UNSUPPORTED;
    if (!found)
        WK_TRY(make(d, &k, &r, &g));
    if (!g)
        return WK_ERR_UNSUPPORTED;
    r.plan = g->plan;
    if (g->workspace > 0)
        WK_TRY(wk_gpu_malloc(d, (size_t)g->workspace, &r.ws));
    wk_status s = run_plan(&r);
    wk_gpu_free(d, r.ws);
    return s;
}
