/* miopen.c: gpu.h's DNN table on AMD through MIOpen, loaded with dlopen on first use: conv as
 * miopenConvolutionForward, conv_transpose as miopenConvolutionBackwardData, 1-D as 2-D with H = 1, on packed
 * NCHW tensors; the algorithm found once per shape and cached. Bias is added by wick's own kernel. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "gpu/rocm_libs.h"
#include "gpu/runtime.h"

/* The MIOpen declarations used here (rocm_libs.h) were checked by reading MIOpen's include/miopen/miopen.h, not
 * by compiling against it: MIOpen has no Debian package, and no AMD GPU was reachable. */

#define CONV_PLANS 128 /* cached algorithm choices, replaced round-robin */
#define FIND_WORKSPACE_CAP ((size_t)256 << 20) /* the most workspace the find step may use */
#define FIND_WORKSPACE_MIN ((size_t)1 << 20)   /* below this, find with none */

static struct {
    char error[512]; /* why loading failed; "" once loaded */
    size_t major, minor, patch;
    wk_miopenGetErrorString_fn error_string;
    wk_miopenGetVersion_fn get_version; /* optional */
    wk_miopenCreate_fn create;
    wk_miopenDestroy_fn destroy;
    wk_miopenSetStream_fn set_stream;
    wk_miopenCreateTensorDescriptor_fn create_tensor;
    wk_miopenSetTensorDescriptor_fn set_tensor;
    wk_miopenDestroyTensorDescriptor_fn destroy_tensor;
    wk_miopenCreateConvolutionDescriptor_fn create_conv;
    wk_miopenInitConvolutionDescriptor_fn init_conv;
    wk_miopenSetConvolutionGroupCount_fn set_groups;
    wk_miopenDestroyConvolutionDescriptor_fn destroy_conv;
    wk_miopenConvolutionForwardGetWorkSpaceSize_fn fwd_workspace;
    wk_miopenFindConvolutionForwardAlgorithm_fn fwd_find;
    wk_miopenConvolutionForward_fn forward;
    wk_miopenConvolutionBackwardDataGetWorkSpaceSize_fn bwd_workspace;
    wk_miopenFindConvolutionBackwardDataAlgorithm_fn bwd_find;
    wk_miopenConvolutionBackwardData_fn backward_data;
} miopen;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/* An MIOpen handle must not be used by two threads at once, so each device's handle (created lazily, never
 * destroyed) is used only under its device's lock. */
static pthread_mutex_t dev_lock[WK_GPU_MAX_DEVICES];
static wk_miopenHandle_t handles[WK_GPU_MAX_DEVICES];
static _Thread_local char handle_error[256];

static void load(void)
{
    for (int i = 0; i < WK_GPU_MAX_DEVICES; i++)
        pthread_mutex_init(&dev_lock[i], NULL);
    static const char *const names[] = {"libMIOpen.so.1", "libMIOpen.so", NULL};
    char tried[384];
    void *lib = wk_gpu_dlopen_first("WICK_MIOPEN_LIBRARY", names, tried, sizeof tried);
    if (!lib) {
        snprintf(miopen.error, sizeof miopen.error, "MIOpen not found (WICK_MIOPEN_LIBRARY names its path): %s",
                 tried);
        return;
    }
    const char *missing = NULL;
#define NEED(field, sym)                                     \
    if (!missing && !wk_gpu_dlsym(lib, sym, &miopen.field)) \
        missing = sym;
    NEED(error_string, "miopenGetErrorString")
    NEED(create, "miopenCreate")
    NEED(destroy, "miopenDestroy")
    NEED(set_stream, "miopenSetStream")
    NEED(create_tensor, "miopenCreateTensorDescriptor")
    NEED(set_tensor, "miopenSetTensorDescriptor")
    NEED(destroy_tensor, "miopenDestroyTensorDescriptor")
    NEED(create_conv, "miopenCreateConvolutionDescriptor")
    NEED(init_conv, "miopenInitConvolutionDescriptor")
    NEED(set_groups, "miopenSetConvolutionGroupCount")
    NEED(destroy_conv, "miopenDestroyConvolutionDescriptor")
    NEED(fwd_workspace, "miopenConvolutionForwardGetWorkSpaceSize")
    NEED(fwd_find, "miopenFindConvolutionForwardAlgorithm")
    NEED(forward, "miopenConvolutionForward")
    NEED(bwd_workspace, "miopenConvolutionBackwardDataGetWorkSpaceSize")
    NEED(bwd_find, "miopenFindConvolutionBackwardDataAlgorithm")
    NEED(backward_data, "miopenConvolutionBackwardData")
#undef NEED
    if (missing) {
        snprintf(miopen.error, sizeof miopen.error, "the MIOpen found lacks %s (MIOpen 2 or newer is needed)",
                 missing);
        dlclose(lib);
        return;
    }
    /* The version only goes into messages (0.0.0 when unknown); a failure to report it costs nothing else. */
    if (wk_gpu_dlsym(lib, "miopenGetVersion", &miopen.get_version) &&
        miopen.get_version(&miopen.major, &miopen.minor, &miopen.patch) != WK_MIOPEN_STATUS_SUCCESS)
        miopen.major = miopen.minor = miopen.patch = 0;
    miopen.error[0] = '\0';
}

/* Statuses that mean MIOpen cannot take the case, so wick's own kernels should. */
static bool not_supported(wk_miopenStatus_t st)
{
    return st == WK_MIOPEN_STATUS_NOT_IMPLEMENTED || st == WK_MIOPEN_STATUS_UNSUPPORTED_OP;
}

/* Statuses of the workspace query and the find step after which the case is left to wick's kernels (and the
 * refusal cached): those of not_supported, a descriptor MIOpen rejects (bad parameter), and the unknown error,
 * which is how MIOpen's find reports that none of its solvers applies ("No suitable algorithm was found to
 * execute the required convolution" is thrown without a status: src/ocl/convolutionocl.cpp, MIOpen 2.x and
 * ROCm 6). A HIP failure inside find reads the same; that case too goes to wick's kernels, whose own launches
 * then meet the device's state and report it. */
static bool refused_at_find(wk_miopenStatus_t st)
{
    return not_supported(st) || st == WK_MIOPEN_STATUS_BAD_PARM || st == WK_MIOPEN_STATUS_UNKNOWN_ERROR;
}

static const char *status_text(wk_miopenStatus_t st)
{
    const char *t = miopen.error_string(st);
    return t ? t : "MIOpen error";
}

/* d's handle, created on first use; the caller holds dev_lock[ord] and d's device is current on this thread
 * (MIOpen binds the handle to the current device). */
static wk_miopenHandle_t handle_locked(wk_gpu_dev *d, int ord, const char **why)
{
    if (handles[ord])
        return handles[ord];
    wk_miopenHandle_t h = NULL;
    const char *call = "miopenCreate";
    wk_miopenStatus_t st = miopen.create(&h);
    if (st == WK_MIOPEN_STATUS_SUCCESS) {
        call = "miopenSetStream";
        st = miopen.set_stream(h, (wk_miopenAcceleratorQueue_t)wk_gpu_stream(d));
    }
    if (st != WK_MIOPEN_STATUS_SUCCESS) {
        if (h)
            (void)miopen.destroy(h); /* already failing: the first error is the one reported */
        snprintf(handle_error, sizeof handle_error, "MIOpen on %s: %s failed: %s", wk_gpu_dev_name(d), call,
                 status_text(st));
        *why = handle_error;
        return NULL;
    }
    return handles[ord] = h;
}

/* Loads MIOpen and returns d's ordinal, or -1 with the reason in *why. */
static int ready(wk_gpu_dev *d, const char **why)
{
    pthread_once(&load_once, load);
    if (miopen.error[0]) {
        *why = miopen.error;
        return -1;
    }
    int ord = wk_gpu_ordinal(d);
    if (ord < 0 || ord >= WK_GPU_MAX_DEVICES) {
        snprintf(handle_error, sizeof handle_error, "MIOpen: device %s beyond the %d handles kept",
                 wk_gpu_dev_name(d), WK_GPU_MAX_DEVICES);
        *why = handle_error;
        return -1;
    }
    return ord;
}

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
_Static_assert(offsetof(conv_plan, key) == 0, "a plan starts with its key (dnn_conv.c)");

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
    wk_status code = not_supported(st)                    ? WK_ERR_UNSUPPORTED
                     : st == WK_MIOPEN_STATUS_ALLOC_FAILED ? WK_ERR_OUT_OF_MEMORY
                                                          : WK_ERR_BACKEND;
    return wk_error(code, "%s: %s failed on %s (MIOpen %zu.%zu.%zu): %s", c->op, call, wk_gpu_dev_name(c->d),
                    miopen.major, miopen.minor, miopen.patch, status_text(st));
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
                               ? miopen.bwd_workspace(c->h, c->xdesc, c->wdesc, c->cdesc, c->ydesc, &want)
                               : miopen.fwd_workspace(c->h, c->wdesc, c->xdesc, c->cdesc, c->ydesc, &want);
    if (refused_at_find(st))
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
        ws = NULL;
        workspace = workspace / 4 < FIND_WORKSPACE_MIN ? 0 : workspace / 4;
    }
    wk_miopenConvAlgoPerf_t perf[WK_GPU_CONV_CANDIDATES];
    memset(perf, 0, sizeof perf);
    int got = 0;
    const int want_n = WK_GPU_CONV_CANDIDATES;
    if (c->transposed)
        st = miopen.bwd_find(c->h, c->xdesc, c->x, c->wdesc, c->w, c->cdesc, c->ydesc, c->y, want_n, &got, perf, ws,
                             workspace, false);
    else
        st = miopen.fwd_find(c->h, c->xdesc, c->x, c->wdesc, c->w, c->cdesc, c->ydesc, c->y, want_n, &got, perf, ws,
                             workspace, false);
    if (ws)
        wk_gpu_free(c->d, ws); /* stream-ordered: the trial runs still use it */
    if (refused_at_find(st))
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
        st = miopen.backward_data(c->h, &one, c->xdesc, c->x, c->wdesc, c->w, c->cdesc,
                                  (wk_miopenConvBwdDataAlgorithm_t)a->algo, &zero, c->ydesc, c->y, ws, a->workspace);
    else
        st = miopen.forward(c->h, &one, c->xdesc, c->x, c->wdesc, c->w, c->cdesc, (wk_miopenConvFwdAlgorithm_t)a->algo,
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
    if ((st = miopen.create_tensor(&c->xdesc)) != WK_MIOPEN_STATUS_SUCCESS ||
        (st = miopen.create_tensor(&c->ydesc)) != WK_MIOPEN_STATUS_SUCCESS ||
        (st = miopen.create_tensor(&c->wdesc)) != WK_MIOPEN_STATUS_SUCCESS)
        return fail(c, "miopenCreateTensorDescriptor", st);
    if ((st = miopen.set_tensor(c->xdesc, c->data, 4, sh->xdim, xs)) != WK_MIOPEN_STATUS_SUCCESS ||
        (st = miopen.set_tensor(c->ydesc, c->data, 4, sh->ydim, ys)) != WK_MIOPEN_STATUS_SUCCESS ||
        (st = miopen.set_tensor(c->wdesc, c->data, 4, sh->wdim, ws)) != WK_MIOPEN_STATUS_SUCCESS)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: miopenSetTensorDescriptor refused the case: %s", c->op,
                        status_text(st));
    if ((st = miopen.create_conv(&c->cdesc)) != WK_MIOPEN_STATUS_SUCCESS)
        return fail(c, "miopenCreateConvolutionDescriptor", st);
    if ((st = miopen.init_conv(c->cdesc, WK_MIOPEN_CONVOLUTION, sh->pad[0], sh->pad[1], sh->stride[0], sh->stride[1],
                               sh->dil[0], sh->dil[1])) != WK_MIOPEN_STATUS_SUCCESS)
        return st == WK_MIOPEN_STATUS_BAD_PARM
                   ? wk_error(WK_ERR_UNSUPPORTED, "%s: miopenInitConvolutionDescriptor refused the case: %s", c->op,
                              status_text(st))
                   : fail(c, "miopenInitConvolutionDescriptor", st);
    if ((st = miopen.set_groups(c->cdesc, sh->groups)) != WK_MIOPEN_STATUS_SUCCESS)
        return st == WK_MIOPEN_STATUS_BAD_PARM
                   ? wk_error(WK_ERR_UNSUPPORTED, "%s: miopenSetConvolutionGroupCount refused the case: %s", c->op,
                              status_text(st))
                   : fail(c, "miopenSetConvolutionGroupCount", st);
    return WK_OK;
}

/* The device lock is held: the handle and the descriptors are this call's alone. */
static wk_status conv_locked(conv_call *c, int ord, conv_plan *p)
{
    const char *why = NULL;
    if (!(c->h = handle_locked(c->d, ord, &why)))
        return wk_error(WK_ERR_UNSUPPORTED, "%s: %s", c->op, why);
    bool changed = false;
    wk_status s = describe(c);
    if (s == WK_OK && p->n < 0) { /* no plan for this key yet */
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
        (void)miopen.destroy_conv(c->cdesc);
    if (c->wdesc)
        (void)miopen.destroy_tensor(c->wdesc);
    if (c->ydesc)
        (void)miopen.destroy_tensor(c->ydesc);
    if (c->xdesc)
        (void)miopen.destroy_tensor(c->xdesc);
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
    if (wk_tensor_numel(out) == 0)
        return WK_OK;
    /* y is written in place, packed. */
    if (!wk_tensor_is_contiguous(out))
        return wk_error(WK_ERR_UNSUPPORTED, "%s: MIOpen writes only a packed output", op);

    wk_gpu_conv_geom g;
    WK_TRY(wk_gpu_conv_geometry(op, "MIOpen", x, w, out, p, spatial, transposed, &g));

    const char *why = NULL;
    int ord = ready(d, &why);
    if (ord < 0)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: %s", op, why);
    c.key.ord = ord;
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
        pthread_mutex_lock(&dev_lock[ord]);
        s = conv_locked(&c, ord, &plan);
        pthread_mutex_unlock(&dev_lock[ord]);
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
    const char *w = NULL;
    int ord = ready(d, &w);
    wk_miopenHandle_t h = NULL;
    if (ord >= 0) {
        pthread_mutex_lock(&dev_lock[ord]);
        h = handle_locked(d, ord, &w);
        pthread_mutex_unlock(&dev_lock[ord]);
    }
    if (!h) {
        if (why)
            *why = w;
        return NULL;
    }
    return &rocm_dnn;
}
