/* conv_miopen.c: gpu.h's DNN table on AMD: convolution through MIOpen (miopen.h), conv as
 * miopenConvolutionForward, conv_transpose as miopenConvolutionBackwardData, 1-D as 2-D with H = 1, on packed
 * NCHW tensors; the algorithm found once per shape and cached. Bias is added by wick's own kernel. */
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "core/fault.h"
#include "gpu/miopen.h"
#include "gpu/runtime.h"

#define CONV_PLANS 128 /* cached algorithm choices, replaced round-robin */
#define FIND_WORKSPACE_CAP ((size_t)256 << 20) /* the most workspace the find step may use */
#define FIND_WORKSPACE_MIN ((size_t)1 << 20)   /* below this, find with none */

/* ---------------------------------------------------------------- algorithm choice, cached per shape */
/* All ints, zero-initialised before filling, so keys compare with memcmp. Every tensor is packed NCHW, so the
 * dims say everything. */
typedef struct conv_key {
    int ord, dtype, transposed;
    wk_gpu_conv_shape shape;
} conv_key;

typedef struct conv_plan {
    conv_key key;
    int n; /* candidates, fastest first; 0: MIOpen cannot run this case */
    wk_gpu_conv_algo cand[WK_GPU_CONV_CANDIDATES];
} conv_plan;

WK_GPU_PLAN_CACHE(plans, conv_plan, CONV_PLANS);
_Static_assert(offsetof(conv_plan, key) == 0, "a plan starts with its key (conv_dnn.c)");

/* One call's MIOpen state. For a transposed convolution x plays dy and y plays dx of the backward-data
 * problem whose forward filter is w (C_in, C_out / groups, kH, kW). */
typedef struct conv_call {
    wk_gpu_dev *d;
    wk_miopenHandle_t h;
    const char *op;
    bool transposed;
    wk_miopenDataType_t data;
    conv_key key;
    wk_miopenTensorDescriptor_t xdesc, ydesc, wdesc;
    wk_miopenConvolutionDescriptor_t cdesc;
    const void *x, *w;
    void *y;
} conv_call;

static wk_status fail(const conv_call *c, const char *call, wk_miopenStatus_t st)
{
    wk_status code = wk_miopen_not_supported(st)                    ? WK_ERR_UNSUPPORTED
                     : st == WK_MIOPEN_STATUS_ALLOC_FAILED ? WK_ERR_OUT_OF_MEMORY
                                                          : WK_ERR_BACKEND;
    return wk_error(code, "%s: %s failed on %s (MIOpen %zu.%zu.%zu): %s", c->op, call, wk_gpu_dev_name(c->d),
                    wk_miopen.major, wk_miopen.minor, wk_miopen.patch, wk_miopen_status_text(st));
}

/* The plan for a new shape key: MIOpen's find step (exhaustiveSearch false: a known-good kernel from its
 * databases, else a default, rather than timing every configuration), which also compiles the kernels it picks
 * (the first call of a shape is slow; MIOpen keeps them on disk). It runs on the call's own buffers and writes
 * y, which is harmless: y is the op's fresh output and the real call writes it again. p->n stays 0 when MIOpen
 * cannot take the case (refused_at_find), e.g. a descriptor wick accepts but MIOpen's solvers do not (dilation
 * with groups in some versions): wick's own kernels then serve. The find step is not optional: the run calls
 * look up the kernel that find registered on the handle for this shape and algorithm ("No invoker was
 * registered ... Was find executed?" otherwise), which holds because each device keeps one handle for the
 * process's life and the plans are keyed by device. */
static wk_status choose(conv_call *c, conv_plan *p)
{
    p->n = 0;
    size_t want = 0;
    wk_miopenStatus_t st = c->transposed
                               ? wk_miopen.bwd_workspace(c->h, c->xdesc, c->wdesc, c->cdesc, c->ydesc, &want)
                               : wk_miopen.fwd_workspace(c->h, c->wdesc, c->xdesc, c->cdesc, c->ydesc, &want);
    if (wk_miopen_refused_at_find(st))
        return WK_OK;
    if (st != WK_MIOPEN_STATUS_SUCCESS)
        return fail(c, c->transposed ? "miopenConvolutionBackwardDataGetWorkSpaceSize"
                                     : "miopenConvolutionForwardGetWorkSpaceSize",
                    st);
    /* As much workspace as the algorithms want, within a cap; short of memory, less (the find step then
     * leaves out the algorithms that need more). */
    size_t workspace = want > FIND_WORKSPACE_CAP ? FIND_WORKSPACE_CAP : want;
    void *ws = NULL;
    while (workspace > 0 && wk_gpu_malloc(c->d, workspace, &ws) != WK_OK) {
        wk_fi_absorb(); /* a smaller workspace, then none */
        ws = NULL;
        workspace = workspace / 4 < FIND_WORKSPACE_MIN ? 0 : workspace / 4;
    }
    wk_miopenConvAlgoPerf_t perf[WK_GPU_CONV_CANDIDATES];
    memset(perf, 0, sizeof perf);
    int got = 0;
    const int want_n = WK_GPU_CONV_CANDIDATES;
    if (c->transposed)
        st = wk_miopen.bwd_find(c->h, c->xdesc, c->x, c->wdesc, c->w, c->cdesc, c->ydesc, c->y, want_n, &got, perf, ws,
                             workspace, false);
    else
        st = wk_miopen.fwd_find(c->h, c->xdesc, c->x, c->wdesc, c->w, c->cdesc, c->ydesc, c->y, want_n, &got, perf, ws,
                             workspace, false);
    if (ws)
        wk_gpu_free(c->d, ws); /* stream-ordered: the trial runs still use it */
    if (wk_miopen_refused_at_find(st))
        return WK_OK;
    if (st != WK_MIOPEN_STATUS_SUCCESS)
        return fail(c, c->transposed ? "miopenFindConvolutionBackwardDataAlgorithm"
                                     : "miopenFindConvolutionForwardAlgorithm",
                    st);
    for (int i = 0; i < got && i < WK_GPU_CONV_CANDIDATES; i++) {
        int algo = (int)(c->transposed ? perf[i].bwd_data_algo : perf[i].fwd_algo);
        bool dup = false;
        for (int j = 0; j < p->n; j++)
            dup = dup || p->cand[j].algo == algo;
        if (!dup)
            p->cand[p->n++] = (wk_gpu_conv_algo){.algo = algo, .workspace = perf[i].memory};
    }
    return WK_OK;
}

/* One candidate of the plan (wk_gpu_conv_run_candidates). MIOpen reads alpha and beta as float for every data
 * type but double (GetScalarDataType in convolutionocl.cpp), and its 2-D solvers take only alpha = 1,
 * beta = 0. */
static wk_status run_algo(void *ctx, const wk_gpu_conv_algo *a, void *ws)
{
    conv_call *c = ctx;
    const float one = 1.0f, zero = 0.0f;
    wk_miopenStatus_t st;
    if (c->transposed)
        st = wk_miopen.backward_data(c->h, &one, c->xdesc, c->x, c->wdesc, c->w, c->cdesc,
                                  (wk_miopenConvBwdDataAlgorithm_t)a->algo, &zero, c->ydesc, c->y, ws, a->workspace);
    else
        st = wk_miopen.forward(c->h, &one, c->xdesc, c->x, c->wdesc, c->w, c->cdesc, (wk_miopenConvFwdAlgorithm_t)a->algo,
                            &zero, c->ydesc, c->y, ws, a->workspace);
    if (st != WK_MIOPEN_STATUS_SUCCESS)
        return fail(c, c->transposed ? "miopenConvolutionBackwardData" : "miopenConvolutionForward", st);
    return WK_OK;
}

/* ---------------------------------------------------------------- the conv slot */
/* Creates the call's descriptors: x, y and the filter as packed NCHW tensors (MIOpen describes filters with
 * tensor descriptors), the convolution as cross-correlation with its groups. */
static wk_status describe(conv_call *c)
{
    wk_miopenStatus_t st;
    const wk_gpu_conv_shape *sh = &c->key.shape;
    int xs[4], ys[4], ws[4];
    wk_gpu_packed_strides(sh->xdim, false, xs);
    wk_gpu_packed_strides(sh->ydim, false, ys);
    wk_gpu_packed_strides(sh->wdim, false, ws);
    if ((st = wk_miopen.create_tensor(&c->xdesc)) != WK_MIOPEN_STATUS_SUCCESS ||
        (st = wk_miopen.create_tensor(&c->ydesc)) != WK_MIOPEN_STATUS_SUCCESS ||
        (st = wk_miopen.create_tensor(&c->wdesc)) != WK_MIOPEN_STATUS_SUCCESS)
        return fail(c, "miopenCreateTensorDescriptor", st);
    if ((st = wk_miopen.set_tensor(c->xdesc, c->data, 4, sh->xdim, xs)) != WK_MIOPEN_STATUS_SUCCESS ||
        (st = wk_miopen.set_tensor(c->ydesc, c->data, 4, sh->ydim, ys)) != WK_MIOPEN_STATUS_SUCCESS ||
        (st = wk_miopen.set_tensor(c->wdesc, c->data, 4, sh->wdim, ws)) != WK_MIOPEN_STATUS_SUCCESS)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: miopenSetTensorDescriptor refused the case: %s", c->op,
                        wk_miopen_status_text(st));
    if ((st = wk_miopen.create_conv(&c->cdesc)) != WK_MIOPEN_STATUS_SUCCESS)
        return fail(c, "miopenCreateConvolutionDescriptor", st);
    if ((st = wk_miopen.init_conv(c->cdesc, WK_MIOPEN_CONVOLUTION, sh->pad[0], sh->pad[1], sh->stride[0], sh->stride[1],
                               sh->dil[0], sh->dil[1])) != WK_MIOPEN_STATUS_SUCCESS)
        return st == WK_MIOPEN_STATUS_BAD_PARM
                   ? wk_error(WK_ERR_UNSUPPORTED, "%s: miopenInitConvolutionDescriptor refused the case: %s", c->op,
                              wk_miopen_status_text(st))
                   : fail(c, "miopenInitConvolutionDescriptor", st);
    if ((st = wk_miopen.set_groups(c->cdesc, sh->groups)) != WK_MIOPEN_STATUS_SUCCESS)
        return st == WK_MIOPEN_STATUS_BAD_PARM
                   ? wk_error(WK_ERR_UNSUPPORTED, "%s: miopenSetConvolutionGroupCount refused the case: %s", c->op,
                              wk_miopen_status_text(st))
                   : fail(c, "miopenSetConvolutionGroupCount", st);
    return WK_OK;
}

/* The device's MIOpen lock is held: the handle and the descriptors are this call's alone. */
static wk_status conv_locked(conv_call *c, conv_plan *p)
{
    bool changed = false;
    wk_status s = describe(c);
    if (s == WK_OK && p->n < 0) /* no plan for this key yet: MIOpen's find runs and waits */
        s = wk_gpu_refuse_capture(c->d, c->op, "MIOpen must find this shape's algorithm first: run the op once "
                                  "before the capture");
    if (s == WK_OK && p->n < 0) {
        s = choose(c, p);
        changed = s == WK_OK;
    }
    if (s == WK_OK)
        s = p->n > 0 ? wk_gpu_conv_run_candidates(c->d, c->op, "MIOpen", p->cand, &p->n, run_algo, c, &changed)
                     : wk_error(WK_ERR_UNSUPPORTED, "%s: MIOpen has no algorithm for this case", c->op);
    if (changed)
        wk_gpu_plan_store(&plans, p);
    /* Destroying a descriptor frees host memory only; a failure there leaves nothing to undo. */
    if (c->cdesc)
        (void)wk_miopen.destroy_conv(c->cdesc);
    if (c->wdesc)
        (void)wk_miopen.destroy_tensor(c->wdesc);
    if (c->ydesc)
        (void)wk_miopen.destroy_tensor(c->ydesc);
    if (c->xdesc)
        (void)wk_miopen.destroy_tensor(c->xdesc);
    return s;
}

static wk_status rocm_conv(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                           const wk_conv_params *p, int spatial, bool transposed, wk_tensor *out)
{
    const char *op = spatial == 1 ? (transposed ? "conv_transpose1d" : "conv1d")
                                  : (transposed ? "conv_transpose2d" : "conv2d");
    conv_call c = {.d = d, .op = op, .transposed = transposed};
    /* f16/bf16 accumulate in f32 inside MIOpen's kernels. f64: miopenDouble (6) is only "partially supported"
     * (miopen.h) and few convolution solvers take it, so wick's own kernels serve. */
    switch (x->dtype) {
    case WK_F16: c.data = WK_MIOPEN_HALF; break;
    case WK_BF16: c.data = WK_MIOPEN_BFLOAT16; break;
    case WK_F32: c.data = WK_MIOPEN_FLOAT; break;
    default: return wk_error(WK_ERR_UNSUPPORTED, "%s: MIOpen has no %s convolution here", op, wk_dtype_name(x->dtype));
    }
    /* y is written in place, packed. */
    if (!wk_tensor_is_contiguous(out))
        return wk_error(WK_ERR_UNSUPPORTED, "%s: MIOpen writes only a packed output", op);

    wk_gpu_conv_geom g;
    WK_TRY(wk_gpu_conv_geometry(op, "MIOpen", x, w, out, p, spatial, transposed, &g));

    const char *why = NULL;
    if (!(c.h = wk_gpu_lib_handle(&wk_miopen_lib, d, &why)))
        return wk_error(WK_ERR_UNSUPPORTED, "%s: %s", op, why);
    c.key.ord = wk_gpu_ordinal(d);
    c.key.dtype = (int)x->dtype;
    c.key.transposed = transposed;
    c.key.shape = g.shape;

    /* A case MIOpen refused before goes straight to wick's kernels, sparing the copies below. */
    conv_plan plan = {.key = c.key};
    if (!wk_gpu_plan_find(&plans, &c.key, &plan))
        plan.n = -1;
    else if (plan.n == 0)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: MIOpen has no algorithm for this case", op);

    /* MIOpen's solvers take packed tensors: x and w as they lie when packed, else packed copies (wick's copy
     * kernel, stream-ordered before the convolution). */
    wk_tensor *xp = NULL, *wp = NULL;
    wk_status s = WK_OK;
    if (!wk_tensor_is_contiguous(x))
        s = wk_gpu_packed(x, &xp);
    if (s == WK_OK && !wk_tensor_is_contiguous(w))
        s = wk_gpu_packed(w, &wp);
    if (s == WK_OK) {
        c.x = wk_tensor_data(xp ? xp : x);
        c.w = wk_tensor_data(wp ? wp : w);
        c.y = wk_tensor_data(out);
        pthread_mutex_lock(wk_gpu_lib_lock(&wk_miopen_lib, d));
        s = conv_locked(&c, &plan);
        pthread_mutex_unlock(wk_gpu_lib_lock(&wk_miopen_lib, d));
    }
    wk_tensor_release(xp); /* stream-ordered: the queued work still reads the copies */
    wk_tensor_release(wp);
    if (s == WK_OK && bias)
        s = wk_gpu_add_bias(bias, out);
    return s;
}

static const wk_gpu_dnn rocm_dnn = {.name = "MIOpen", .conv = rocm_conv};

const wk_gpu_dnn *wk_rocm_dnn_get(wk_gpu_dev *d, const char **why)
{
    return wk_gpu_lib_serves(&wk_miopen_lib, d, why) ? &rocm_dnn : NULL;
}
