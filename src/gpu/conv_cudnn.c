/* conv_cudnn.c: gpu.h's DNN table on NVIDIA: convolution through cuDNN's legacy descriptor API (cudnn.h), conv as
 * ConvolutionForward, conv_transpose as ConvolutionBackwardData, 1-D as 2-D with H = 1; forward f16/bf16 first
 * through the graph API (conv_cudnn_graph.c), f16/bf16 on channels-last copies under WICK_CUDNN_LAYOUT=nhwc. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "core/fault.h"
#include "gpu/cudnn.h"
#include "gpu/runtime.h"

#define CONV_PLANS 128 /* cached algorithm choices, replaced round-robin */
#define FIND_WORKSPACE_CAP ((size_t)256 << 20) /* the most workspace the trial runs may use */
#define FIND_WORKSPACE_MIN ((size_t)1 << 20)   /* below this, retry the trial runs with none */



/* Dtypes whose bias cudnnAddTensor turned down: such calls are left to wick's kernels from the start,
 * rather than convolving twice. */
static atomic_bool bias_refused[WK_DTYPE_COUNT];

/* ---------------------------------------------------------------- algorithm choice, cached per shape */
/* All ints, zero-initialised before filling, so keys compare with memcmp. */
typedef struct conv_key {
    int ord, dtype, transposed;
    int layout; /* 0: NCHW tensors and KCRS filter; 1: NHWC and KRSC */
    int xstride[4];
    wk_gpu_conv_shape shape;
} conv_key;

typedef struct conv_plan {
    conv_key key;
    int n; /* candidates in preference order; 0: cuDNN cannot run this case */
    wk_gpu_conv_algo cand[WK_GPU_CONV_CANDIDATES];
} conv_plan;

WK_GPU_PLAN_CACHE(plans, conv_plan, CONV_PLANS);
_Static_assert(offsetof(conv_plan, key) == 0, "a plan starts with its key (conv_dnn.c)");

/* One call's cuDNN state: descriptors, sizes, and the operands' device addresses. */
typedef struct conv_call {
    wk_gpu_dev *d;
    wk_cudnnHandle_t h;
    const char *op;
    wk_dtype dt;
    bool transposed;
    wk_cudnnDataType_t data, compute;
    conv_key key; /* everything but the x strides in use */
    wk_cudnnTensorDescriptor_t xdesc, ydesc, bdesc;
    wk_cudnnFilterDescriptor_t wdesc;
    wk_cudnnConvolutionDescriptor_t cdesc;
    const void *x, *w;
    void *y;
} conv_call;

static wk_status fail(const conv_call *c, const char *call, wk_cudnnStatus_t st)
{
    return wk_error(wk_cudnn_not_supported(st) ? WK_ERR_UNSUPPORTED : WK_ERR_BACKEND, "%s: %s failed on %s: %s", c->op, call,
                    wk_gpu_dev_name(c->d), wk_cudnn_status_text(st));
}

/* Trial-run failures after which the heuristic ranking is used instead: cuDNN cannot time the case, or ran
 * short of memory or hit an internal limit doing so (the real call reports anything lasting). */
static bool find_may_fall_back(wk_cudnnStatus_t st)
{
    if (wk_cudnn_not_supported(st))
        return true;
    if (wk_cudnn.version < 90000)
        return st == WK_CUDNN8_STATUS_ALLOC_FAILED || st == WK_CUDNN8_STATUS_INTERNAL_ERROR;
    return st / 1000 * 1000 == WK_CUDNN_STATUS_INTERNAL_ERROR;
}

/* f32 must stay true f32: only FMA and default math, and default is run as FMA (default allows TF32 on
 * Ampere and later). f16/bf16 compute in f32 (the descriptors' compute type) and may use tensor cores. f64
 * keeps its own units. */
static bool math_allowed(const conv_call *c, int math)
{
    if (c->dt == WK_F32 || c->dt == WK_F64)
        return math == WK_CUDNN_FMA_MATH || math == WK_CUDNN_DEFAULT_MATH;
    return math == WK_CUDNN_DEFAULT_MATH || math == WK_CUDNN_FMA_MATH || math == WK_CUDNN_TENSOR_OP_MATH ||
           math == WK_CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

/* The math type set on the descriptor before ranking: it bounds what cuDNN considers. */
static int base_math(const conv_call *c)
{
    return c->dt == WK_F32 ? WK_CUDNN_FMA_MATH : c->dt == WK_F64 ? WK_CUDNN_DEFAULT_MATH : WK_CUDNN_TENSOR_OP_MATH;
}

/* Appends (algo, math) to p unless already there or not allowed, with its workspace under that math (at
 * least `memory`, what the ranking reported). */
static void add_candidate(conv_call *c, conv_plan *p, int algo, int math, size_t memory)
{
    if (p->n >= WK_GPU_CONV_CANDIDATES || !math_allowed(c, math))
        return;
    if (c->dt == WK_F32)
        math = WK_CUDNN_FMA_MATH;
    for (int i = 0; i < p->n; i++)
        if (p->cand[i].algo == algo && p->cand[i].math == math)
            return;
    size_t ws = 0;
    if (wk_cudnn.set_math(c->cdesc, (wk_cudnnMathType_t)math) != WK_CUDNN_STATUS_SUCCESS)
        return;
    wk_cudnnStatus_t st = c->transposed ? wk_cudnn.bwd_workspace(c->h, c->wdesc, c->xdesc, c->cdesc, c->ydesc,
                                                              (wk_cudnnConvolutionBwdDataAlgo_t)algo, &ws)
                                        : wk_cudnn.fwd_workspace(c->h, c->xdesc, c->wdesc, c->cdesc, c->ydesc,
                                                              (wk_cudnnConvolutionFwdAlgo_t)algo, &ws);
    if (st == WK_CUDNN_STATUS_SUCCESS)
        p->cand[p->n++] = (wk_gpu_conv_algo){.algo = algo, .math = math, .workspace = ws > memory ? ws : memory};
}

/* One timed algorithm: its best time over the rounds of find(). */
typedef struct timed_algo {
    int algo, math;
    size_t memory;
    float best_ms;
} timed_algo;

static void note_time(timed_algo *t, int *n, int algo, int math, size_t memory, float ms)
{
    for (int i = 0; i < *n; i++)
        if (t[i].algo == algo && t[i].math == math) {
            t[i].best_ms = ms < t[i].best_ms ? ms : t[i].best_ms;
            return;
        }
    t[(*n)++] = (timed_algo){algo, math, memory, ms};
}

/* Rounds of timing: one round's ranking is noisy (the first run of an algorithm also loads its kernels),
 * and measured on an H200 it picked algorithms 2x slower than the best in some runs; the best of three
 * rounds is stable. */
#define FIND_ROUNDS 3

/* Times every algorithm on the call's own buffers (what PyTorch's wk_cudnn.benchmark does) and fills p with the
 * fastest allowed ones, fastest first. The output is overwritten, which is harmless: it is the op's fresh
 * output and the real call writes it again. cuDNN synchronises the stream for the timing; that happens once
 * per shape key, as the plan is cached. Nothing is added when cuDNN cannot time the case. */
static wk_status find(conv_call *c, conv_plan *p, size_t workspace)
{
    wk_cudnnConvolutionFwdAlgoPerf_t fwd[WK_CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    wk_cudnnConvolutionBwdDataAlgoPerf_t bwd[WK_CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    timed_algo timed[WK_CUDNN_CONVOLUTION_FWD_ALGO_COUNT + WK_CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int ntimed = 0;
    void *ws = NULL;
    if (workspace > FIND_WORKSPACE_CAP)
        workspace = FIND_WORKSPACE_CAP;
    while (workspace > 0 && wk_gpu_malloc(c->d, workspace, &ws) != WK_OK) {
        wk_fi_absorb(); /* a smaller workspace, then none */
        ws = NULL;
        workspace = workspace / 4 < FIND_WORKSPACE_MIN ? 0 : workspace / 4;
    }
    wk_cudnnStatus_t st = wk_cudnn.set_math(c->cdesc, (wk_cudnnMathType_t)base_math(c));
    if (st != WK_CUDNN_STATUS_SUCCESS) {
        if (ws)
            wk_gpu_free(c->d, ws);
        return fail(c, "cudnnSetConvolutionMathType", st);
    }
    for (int round = 0; round < FIND_ROUNDS && st == WK_CUDNN_STATUS_SUCCESS; round++) {
        int got = 0;
        if (c->transposed)
            st = wk_cudnn.bwd_find(c->h, c->wdesc, c->w, c->xdesc, c->x, c->cdesc, c->ydesc, c->y,
                                WK_CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, bwd, ws, workspace);
        else
            st = wk_cudnn.fwd_find(c->h, c->xdesc, c->x, c->wdesc, c->w, c->cdesc, c->ydesc, c->y,
                                WK_CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, fwd, ws, workspace);
        for (int i = 0; st == WK_CUDNN_STATUS_SUCCESS && i < got; i++) {
            if ((c->transposed ? bwd[i].status : fwd[i].status) != WK_CUDNN_STATUS_SUCCESS)
                continue;
            note_time(timed, &ntimed, c->transposed ? (int)bwd[i].algo : (int)fwd[i].algo,
                      c->transposed ? (int)bwd[i].mathType : (int)fwd[i].mathType,
                      c->transposed ? bwd[i].memory : fwd[i].memory, c->transposed ? bwd[i].time : fwd[i].time);
        }
    }
    if (ws)
        wk_gpu_free(c->d, ws);
    if (st != WK_CUDNN_STATUS_SUCCESS) {
        if (find_may_fall_back(st))
            return WK_OK;
        return fail(c, c->transposed ? "cudnnFindConvolutionBackwardDataAlgorithmEx"
                                     : "cudnnFindConvolutionForwardAlgorithmEx",
                    st);
    }
    /* fastest first (a handful of entries: insertion sort) */
    for (int i = 1; i < ntimed; i++)
        for (int j = i; j > 0 && timed[j].best_ms < timed[j - 1].best_ms; j--) {
            timed_algo t = timed[j];
            timed[j] = timed[j - 1];
            timed[j - 1] = t;
        }
    for (int i = 0; i < ntimed; i++)
        add_candidate(c, p, timed[i].algo, timed[i].math, timed[i].memory);
    return WK_OK;
}

/* The plan for a new shape key: the timed ranking (find), then cuDNN's heuristic ranking to fill the spare
 * places (or all of them when timing was impossible) as fallbacks should a candidate be refused later. The
 * heuristic also sizes the trial runs' workspace: the most any usable algorithm asks for. */
static wk_status choose(conv_call *c, conv_plan *p)
{
    wk_cudnnConvolutionFwdAlgoPerf_t fwd[WK_CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    wk_cudnnConvolutionBwdDataAlgoPerf_t bwd[WK_CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int got = 0;
    p->n = 0;
    wk_cudnnStatus_t st = wk_cudnn.set_math(c->cdesc, (wk_cudnnMathType_t)base_math(c));
    if (st != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, "cudnnSetConvolutionMathType", st);
    if (c->transposed)
        st = wk_cudnn.bwd_algos(c->h, c->wdesc, c->xdesc, c->cdesc, c->ydesc, WK_CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                             &got, bwd);
    else
        st = wk_cudnn.fwd_algos(c->h, c->xdesc, c->wdesc, c->cdesc, c->ydesc, WK_CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got,
                             fwd);
    if (wk_cudnn_not_supported(st))
        return WK_OK;
    if (st != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, c->transposed ? "cudnnGetConvolutionBackwardDataAlgorithm_v7"
                                     : "cudnnGetConvolutionForwardAlgorithm_v7",
                    st);
    size_t most = 0;
    for (int i = 0; i < got; i++) {
        wk_cudnnStatus_t rs = c->transposed ? bwd[i].status : fwd[i].status;
        size_t mem = c->transposed ? bwd[i].memory : fwd[i].memory;
        if (rs == WK_CUDNN_STATUS_SUCCESS && mem > most)
            most = mem;
    }
    if (!wk_gpu_capturing(c->d)) /* timing runs and waits: a capture takes the heuristic's order alone */
        WK_TRY(find(c, p, most));
    for (int i = 0; i < got; i++) {
        wk_cudnnStatus_t rs = c->transposed ? bwd[i].status : fwd[i].status;
        if (rs == WK_CUDNN_STATUS_SUCCESS)
            add_candidate(c, p, c->transposed ? (int)bwd[i].algo : (int)fwd[i].algo,
                          c->transposed ? (int)bwd[i].mathType : (int)fwd[i].mathType, 0);
    }
    return WK_OK;
}

/* One candidate of the plan (wk_gpu_conv_run_candidates): its math mode, then the convolution. */
static wk_status run_algo(void *ctx, const wk_gpu_conv_algo *a, void *ws)
{
    conv_call *c = ctx;
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void *one = c->dt == WK_F64 ? (const void *)&one_d : (const void *)&one_f;
    const void *zero = c->dt == WK_F64 ? (const void *)&zero_d : (const void *)&zero_f;
    wk_cudnnStatus_t st = wk_cudnn.set_math(c->cdesc, (wk_cudnnMathType_t)a->math);
    if (st != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, "cudnnSetConvolutionMathType", st);
    if (c->transposed)
        st = wk_cudnn.backward_data(c->h, one, c->wdesc, c->w, c->xdesc, c->x, c->cdesc,
                                 (wk_cudnnConvolutionBwdDataAlgo_t)a->algo, ws, a->workspace, zero, c->ydesc, c->y);
    else
        st = wk_cudnn.forward(c->h, one, c->xdesc, c->x, c->wdesc, c->w, c->cdesc, (wk_cudnnConvolutionFwdAlgo_t)a->algo,
                           ws, a->workspace, zero, c->ydesc, c->y);
    if (st != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, c->transposed ? "cudnnConvolutionBackwardData" : "cudnnConvolutionForward", st);
    return WK_OK;
}

/* ---------------------------------------------------------------- the conv slot */
/* Runs the case with x described by xstride: plan (cached), then execute. WK_ERR_UNSUPPORTED when cuDNN
 * cannot take x laid out so. */
static wk_status attempt(conv_call *c, const int xstride[4])
{
    wk_cudnnStatus_t st = wk_cudnn.set_tensor(c->xdesc, c->data, 4, c->key.shape.xdim, xstride);
    if (st != WK_CUDNN_STATUS_SUCCESS)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: cudnnSetTensorNdDescriptor refused x's layout: %s", c->op,
                        wk_cudnn_status_text(st));
    conv_plan p = {.key = c->key};
    memcpy(p.key.xstride, xstride, sizeof p.key.xstride);
    bool changed = false;
    if (!wk_gpu_plan_find(&plans, &p.key, &p)) {
        WK_TRY(choose(c, &p));
        changed = !wk_gpu_capturing(c->d); /* an untimed plan is not kept: the next call outside a capture times */
    }
    wk_status s = p.n > 0 ? wk_gpu_conv_run_candidates(c->d, c->op, "cuDNN", p.cand, &p.n, run_algo, c, &changed)
                          : wk_error(WK_ERR_UNSUPPORTED, "%s: cuDNN has no algorithm for this case", c->op);
    if (changed)
        wk_gpu_plan_store(&plans, &p);
    return s;
}

/* Creates the call's descriptors and sets the convolution's. */
static wk_status describe(conv_call *c)
{
    wk_cudnnStatus_t st;
    if ((st = wk_cudnn.create_tensor(&c->xdesc)) != WK_CUDNN_STATUS_SUCCESS ||
        (st = wk_cudnn.create_tensor(&c->ydesc)) != WK_CUDNN_STATUS_SUCCESS ||
        (st = wk_cudnn.create_tensor(&c->bdesc)) != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, "cudnnCreateTensorDescriptor", st);
    if ((st = wk_cudnn.create_filter(&c->wdesc)) != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, "cudnnCreateFilterDescriptor", st);
    if ((st = wk_cudnn.create_conv(&c->cdesc)) != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, "cudnnCreateConvolutionDescriptor", st);
    const wk_gpu_conv_shape *sh = &c->key.shape;
    if ((st = wk_cudnn.set_conv(c->cdesc, 2, sh->pad, sh->stride, sh->dil, WK_CUDNN_CROSS_CORRELATION, c->compute)) !=
        WK_CUDNN_STATUS_SUCCESS)
        return fail(c, "cudnnSetConvolutionNdDescriptor", st);
    if ((st = wk_cudnn.set_groups(c->cdesc, sh->groups)) != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, "cudnnSetConvolutionGroupCount", st);
    return WK_OK;
}

/* Sets y's and the filter's descriptors for the layout: packed NCHW and KCRS, or packed NHWC and KRSC. The
 * filter's dims stay (K, C, R, S) in either; its format says how they lie. */
static wk_status set_layout(conv_call *c, bool nhwc, wk_cudnnTensorDescriptor_t ydesc)
{
    int ystride[4];
    wk_gpu_packed_strides(c->key.shape.ydim, nhwc, ystride);
    wk_cudnnStatus_t st;
    if ((st = wk_cudnn.set_tensor(ydesc, c->data, 4, c->key.shape.ydim, ystride)) != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, "cudnnSetTensorNdDescriptor", st);
    if ((st = wk_cudnn.set_filter(c->wdesc, c->data, nhwc ? WK_CUDNN_TENSOR_NHWC : WK_CUDNN_TENSOR_NCHW, 4,
                               c->key.shape.wdim)) != WK_CUDNN_STATUS_SUCCESS)
        return fail(c, "cudnnSetFilterNdDescriptor", st);
    return WK_OK;
}

/* True when t (N, C, spatial...) lies packed channels-last: (N, spatial..., C) row-major. */
static bool is_channels_last(const wk_tensor *t)
{
    int64_t z = t->shape[1];
    if (t->shape[1] > 1 && t->strides[1] != 1)
        return false;
    for (int i = t->rank - 1; i >= 2; z *= t->shape[i], i--)
        if (t->shape[i] > 1 && t->strides[i] != z)
            return false;
    return t->shape[0] <= 1 || t->strides[0] == z;
}

/* A fresh tensor shaped like t (N, C, spatial...) over channels-last memory (N, spatial..., C), the view
 * holding the storage (released by the caller after queueing). */
static wk_status channels_last(const wk_tensor *t, wk_tensor **out)
{
    int r = t->rank;
    int64_t shape[WK_MAX_RANK], strides[WK_MAX_RANK], z = t->shape[1];
    shape[0] = t->shape[0], shape[r - 1] = t->shape[1];
    for (int i = 2; i < r; i++)
        shape[i - 1] = t->shape[i];
    wk_tensor *mem = NULL;
    WK_TRY(wk_tensor_alloc(t->storage->device, t->dtype, r, shape, &mem));
    strides[1] = 1;
    for (int i = r - 1; i >= 2; i--) {
        strides[i] = z;
        z *= t->shape[i];
    }
    strides[0] = z;
    wk_status s = wk_tensor_view(mem, r, t->shape, strides, 0, out);
    wk_tensor_release(mem);
    return s;
}

/* t's values in a channels-last copy (*out NULL when t already lies so; else released by the caller). */
static wk_status to_channels_last(const wk_tensor *t, wk_tensor **out)
{
    *out = NULL;
    if (is_channels_last(t))
        return WK_OK;
    wk_tensor *tmp = NULL;
    WK_TRY(channels_last(t, &tmp));
    wk_status s = wk_gpu_copy(t, tmp);
    if (s != WK_OK) {
        wk_tensor_release(tmp);
        return s;
    }
    *out = tmp;
    return WK_OK;
}

/* The case in the layout wick's tensors have: x as it lies where cuDNN can describe it, else packed; the
 * filter packed KCRS; y straight into out. */
static wk_status run_nchw(conv_call *c, const wk_tensor *x, const wk_tensor *w, const int xstride[4], bool direct,
                          wk_tensor *out)
{
    wk_tensor *xp = NULL, *wp = NULL;
    c->key.layout = 0;
    wk_status s = set_layout(c, false, c->ydesc);
    /* The filter descriptor has no strides: w must be packed. */
    if (s != WK_OK || (!wk_tensor_is_contiguous(w) && (s = wk_gpu_packed(w, &wp)) != WK_OK))
        goto done;
    c->w = wk_tensor_data(wp ? wp : w);
    c->y = wk_tensor_data(out);
    s = WK_ERR_UNSUPPORTED;
    if (direct) {
        c->x = wk_tensor_data(x);
        s = attempt(c, xstride);
    }
    if (s != WK_OK && s != WK_ERR_OUT_OF_MEMORY) { /* x packed: the layout every algorithm takes */
        int pstride[4];
        wk_gpu_packed_strides(c->key.shape.xdim, false, pstride);
        if (!direct || memcmp(pstride, xstride, sizeof pstride) != 0) {
            if ((s = wk_gpu_packed(x, &xp)) != WK_OK)
                goto done;
            c->x = wk_tensor_data(xp);
            s = attempt(c, pstride);
        }
    }
done:
    wk_tensor_release(xp); /* stream-ordered: the queued work still reads the copies */
    wk_tensor_release(wp);
    return s;
}

/* The case in channels-last copies, where cuDNN's tensor-core kernels for half types run without transposes
 * of their own: x to NHWC, the filter to KRSC, y into an NHWC scratch copied back to out. The copies are
 * wick's transposing copy kernel. *fallback when the case cannot run so (out then holds nothing of it). */
static wk_status run_nhwc(conv_call *c, const wk_tensor *x, const wk_tensor *w, wk_tensor *out, bool *fallback)
{
    int pstride[4];
    wk_gpu_packed_strides(c->key.shape.xdim, true, pstride);
    c->key.layout = 1;
    *fallback = false;
    conv_plan known = {.key = c->key};
    memcpy(known.key.xstride, pstride, sizeof pstride);
    if (wk_gpu_plan_find(&plans, &known.key, &known) && known.n == 0) { /* refused before: spare the copies */
        *fallback = true;
        return WK_ERR_UNSUPPORTED;
    }
    wk_tensor *xp = NULL, *wp = NULL, *yp = NULL;
    wk_status s = set_layout(c, true, c->ydesc);
    if (s != WK_OK || (s = to_channels_last(x, &xp)) != WK_OK || (s = to_channels_last(w, &wp)) != WK_OK ||
        (s = channels_last(out, &yp)) != WK_OK)
        goto done;
    c->x = wk_tensor_data(xp ? xp : x);
    c->w = wk_tensor_data(wp ? wp : w);
    c->y = wk_tensor_data(yp);
    if ((s = attempt(c, pstride)) == WK_OK)
        s = wk_gpu_copy(yp, out);
done:
    /* out is written only by the last step, which the NCHW path would redo whole */
    *fallback = s == WK_ERR_UNSUPPORTED;
    wk_tensor_release(xp); /* stream-ordered: the queued work still uses the scratch */
    wk_tensor_release(wp);
    wk_tensor_release(yp);
    return s;
}

/* Half types run channels-last only when WICK_CUDNN_LAYOUT=nhwc. Measured on an H200 (cuDNN 9, ResNet-50
 * shapes, bf16, N=32; bench/results/gpu-h200-2026-11-21.md) the two transposing copies and the faster NHWC
 * kernels come out mixed: better for some shapes, worse for others, and no better than PyTorch's for most.
 * NCHW, which the full GPU suite ran, stays the default. Grouped convolutions stay NCHW: cuDNN's legacy
 * NHWC kernels are not sure to take them. */
static bool wants_nhwc(const conv_call *c)
{
    if ((c->dt != WK_F16 && c->dt != WK_BF16) || c->key.shape.groups != 1)
        return false;
    const char *v = getenv("WICK_CUDNN_LAYOUT");
    return v && strcmp(v, "nhwc") == 0;
}

static bool aligned16(const wk_tensor *t) { return (uintptr_t)wk_tensor_data(t) % 16 == 0; }

/* The device's cuDNN lock is held: the handle and the descriptors are this call's alone. */
static wk_status conv_locked(conv_call *c, const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                             const int xstride[4], bool direct, wk_tensor *out)
{
    wk_tensor *bp = NULL;
    wk_cudnnStatus_t st;
    wk_status s = describe(c);
    if (s != WK_OK)
        goto done;
    bool fallback = true;
    /* half types: the graph API first, with the bias; its tensors are declared 16-byte aligned */
    if (!c->transposed && direct && wk_tensor_is_contiguous(w) && aligned16(x) && aligned16(w) && aligned16(out)) {
        const void *b = bias && (bias->shape[0] == 1 || bias->strides[0] == 1) && aligned16(bias) ? wk_tensor_data(bias)
                                                                                                 : NULL;
        fallback = (s = wk_cudnn_conv_graph(c->d, c->h, c->dt, &c->key.shape, xstride, wk_tensor_data(x),
                                            wk_tensor_data(w), b, wk_tensor_data(out))) == WK_ERR_UNSUPPORTED;
        if (!fallback && b)
            goto done;
    }
    if (fallback && wants_nhwc(c))
        s = run_nhwc(c, x, w, out, &fallback);
    if (fallback)
        s = run_nchw(c, x, w, xstride, direct, out);
    if (s != WK_OK || !bias)
        goto done;

    /* bias (O) broadcast over (N, O, H, W) in out (packed NCHW): one more pass, in cuDNN's own kernel */
    int o = c->key.shape.ydim[1], bdim[4] = {1, o, 1, 1}, bstride[4] = {o, 1, 1, 1}, ystride[4];
    if (o > 1 && bias->strides[0] != 1 && (s = wk_gpu_packed(bias, &bp)) != WK_OK)
        goto done;
    const float one_f = 1.0f;
    const double one_d = 1.0;
    const void *one = c->dt == WK_F64 ? (const void *)&one_d : (const void *)&one_f;
    wk_gpu_packed_strides(c->key.shape.ydim, false, ystride);
    if ((st = wk_cudnn.set_tensor(c->ydesc, c->data, 4, c->key.shape.ydim, ystride)) != WK_CUDNN_STATUS_SUCCESS ||
        (st = wk_cudnn.set_tensor(c->bdesc, c->data, 4, bdim, bstride)) != WK_CUDNN_STATUS_SUCCESS)
        s = fail(c, "cudnnSetTensorNdDescriptor", st);
    else if ((st = wk_cudnn.add_tensor(c->h, one, c->bdesc, wk_tensor_data(bp ? bp : bias), one, c->ydesc,
                                    wk_tensor_data(out))) != WK_CUDNN_STATUS_SUCCESS) {
        s = fail(c, "cudnnAddTensor", st);
        if (s == WK_ERR_UNSUPPORTED)
            atomic_store(&bias_refused[c->dt], true);
    }
done:
    if (c->cdesc)
        wk_cudnn.destroy_conv(c->cdesc);
    if (c->wdesc)
        wk_cudnn.destroy_filter(c->wdesc);
    if (c->bdesc)
        wk_cudnn.destroy_tensor(c->bdesc);
    if (c->ydesc)
        wk_cudnn.destroy_tensor(c->ydesc);
    if (c->xdesc)
        wk_cudnn.destroy_tensor(c->xdesc);
    wk_tensor_release(bp); /* stream-ordered: the queued work still reads the copy */
    return s;
}

static wk_status cuda_conv(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, const wk_tensor *bias,
                           const wk_conv_params *p, int spatial, bool transposed, wk_tensor *out)
{
    const char *op = spatial == 1 ? (transposed ? "conv_transpose1d" : "conv1d")
                                  : (transposed ? "conv_transpose2d" : "conv2d");
    conv_call c = {.d = d, .op = op, .dt = x->dtype, .transposed = transposed};
    switch (x->dtype) {
    case WK_F16: c.data = WK_CUDNN_DATA_HALF, c.compute = WK_CUDNN_DATA_FLOAT; break;
    case WK_BF16: c.data = WK_CUDNN_DATA_BFLOAT16, c.compute = WK_CUDNN_DATA_FLOAT; break;
    case WK_F32: c.data = c.compute = WK_CUDNN_DATA_FLOAT; break;
    case WK_F64: c.data = c.compute = WK_CUDNN_DATA_DOUBLE; break;
    default: return wk_error(WK_ERR_UNSUPPORTED, "%s: cuDNN has no %s convolution", op, wk_dtype_name(x->dtype));
    }
    if (bias && atomic_load(&bias_refused[x->dtype]))
        return wk_error(WK_ERR_UNSUPPORTED, "%s: cuDNN adds no %s bias", op, wk_dtype_name(x->dtype));

    wk_gpu_conv_geom g;
    WK_TRY(wk_gpu_conv_geometry(op, "cuDNN", x, w, out, p, spatial, transposed, &g));

    /* x as it lies when it can be described: a size-1 dim's stride is free, and is set to what a packed
     * layout in x's memory order (NCHW, or NHWC when channels are innermost) would have. */
    const int *xd = g.shape.xdim;
    const int64_t *xs = g.xstride;
    bool nhwc = xd[1] > 1;
    for (int i = 2; i < 4; i++)
        nhwc = nhwc && (xd[i] == 1 || xs[1] < xs[i]);
    static const int nchw_order[4] = {3, 2, 1, 0}, nhwc_order[4] = {1, 3, 2, 0};
    const int *order = nhwc ? nhwc_order : nchw_order;
    int xstride[4];
    int64_t z = 1, extent = 1;
    bool direct = !wk_tensor_has_overlap(x);
    for (int j = 0; j < 4; j++) {
        int i = order[j];
        int64_t s = xd[i] == 1 ? z : xs[i];
        z = xd[i] * s;
        extent += (xd[i] - 1) * s;
        direct = direct && wk_gpu_fits_int(s) && s >= 1;
        xstride[i] = direct ? (int)s : 0;
    }
    direct = direct && wk_gpu_fits_int(extent);

    c.key.ord = wk_gpu_ordinal(d);
    c.key.dtype = (int)x->dtype;
    c.key.transposed = transposed;
    c.key.shape = g.shape;

    const char *why = NULL;
    if (!(c.h = wk_gpu_lib_handle(&wk_cudnn_lib, d, &why)))
        return wk_error(WK_ERR_UNSUPPORTED, "%s: %s", op, why);
    pthread_mutex_lock(wk_gpu_lib_lock(&wk_cudnn_lib, d));
    wk_status s = conv_locked(&c, x, w, bias, xstride, direct, out);
    pthread_mutex_unlock(wk_gpu_lib_lock(&wk_cudnn_lib, d));
    return s;
}

static const wk_gpu_dnn cuda_dnn = {.name = "cuDNN", .conv = cuda_conv, .attention = wk_cudnn_attention};

const wk_gpu_dnn *wk_cuda_dnn_get(wk_gpu_dev *d, const char **why)
{
    return wk_gpu_lib_serves(&wk_cudnn_lib, d, why) ? &cuda_dnn : NULL;
}
