/* attention_cudnn.c: gpu.h's DNN attention slot on NVIDIA: attention as cuDNN's fused flash-attention engines run it,
 * built with the graph API (cudnn_graph.h) as the graph those engines recognise: S = Q K^T, S * scale, the causal
 * mask (row + Skv - Sq >= column: bottom-right, as wick's rule; plain row >= column when Sq == Skv), softmax as max,
 * subtract, exp, sum and divide, the log-sum-exp as max + log(sum) (virtual when not asked for), O = P V. One plan
 * per shape, strides, lse and handle, built on first use and kept (cudnn_graph.h's cache); never built in a capture.
 * Takes f16/bf16 with no bias, ALiBi, soft-cap, lengths, paged cache or window other than causal; Skv >= Sq >= 1
 * when causal (no row is fully masked); unit stride along the head dim and 16-byte aligned operands. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cudnn_graph.h"

enum { UID_Q = 1, UID_K, UID_V, UID_O, UID_LSE, UID_SCALE, UID_NEG_INF, UID_SKV, UID_SQ, UID_VIRTUAL = 100 };

/* All int64, zeroed before filling, so keys compare with memcmp. */
typedef struct sdpa_key {
    int64_t dtype, causal, lse, b, hq, hkv, sq, skv, d, dv;
    int64_t qs[4], ks[4], vs[4], os[4];
    wk_cudnnHandle_t handle;
} sdpa_key;

static wk_cudnn_cache plans = {.key_size = sizeof(sdpa_key)};

/* The cases the graph below expresses. */
static bool takes(const wk_attn *a)
{
    const wk_tensor *q = a->q;
    bool causal = a->window_right == 0 && a->window_left < 0;
    if ((q->dtype != WK_F16 && q->dtype != WK_BF16) || a->bias || a->alibi || a->softcap > 0 || a->seq_lens ||
        a->block_table || a->block_size > 0)
        return false;
    if (!causal && (a->window_left >= 0 || a->window_right >= 0))
        return false;
    if (a->skv < 1 || q->shape[2] < 1 || (causal && a->skv < q->shape[2]))
        return false;
    if (!wk_gpu_vec16(q) || !wk_gpu_vec16(a->k) || !wk_gpu_vec16(a->v) || !wk_gpu_vec16(a->out))
        return false;
    return !a->lse || (a->lse->strides[2] == 1 && a->lse->strides[1] == q->shape[2] &&
                       a->lse->strides[0] == q->shape[1] * q->shape[2]);
}

static void make_key(const wk_attn *a, wk_cudnnHandle_t h, sdpa_key *k)
{
    memset(k, 0, sizeof *k);
    k->dtype = a->q->dtype;
    k->causal = a->window_right == 0;
    k->lse = a->lse != NULL;
    k->b = a->q->shape[0];
    k->hq = a->q->shape[1];
    k->sq = a->q->shape[2];
    k->d = a->q->shape[3];
    k->hkv = a->k->shape[1];
    k->skv = a->skv;
    k->dv = a->v->shape[3];
    for (int i = 0; i < 4; i++) {
        k->qs[i] = a->q->strides[i];
        k->ks[i] = a->k->strides[i];
        k->vs[i] = a->v->strides[i];
        k->os[i] = a->out->strides[i];
    }
    k->handle = h;
}

/* A virtual f32 (or dt) tensor of the scores' shape, or of one column of it (a row statistic). */
static wk_cudnn_desc scores(wk_cudnn_graph *g, int64_t *uid, const sdpa_key *k, wk_cudnnDataType_t dt, bool column)
{
    int64_t n = column ? 1 : k->skv;
    int64_t dims[4] = {k->b, k->hq, k->sq, n}, strides[4] = {k->hq * k->sq * n, k->sq * n, n, 1};
    return wk_cudnn_tensor(g, (*uid)++, dt, 4, dims, strides, true, false);
}

static wk_cudnn_desc scalar(wk_cudnn_graph *g, int64_t uid, wk_cudnnDataType_t dt)
{
    int64_t one[4] = {1, 1, 1, 1};
    return wk_cudnn_tensor(g, uid, dt, 4, one, one, false, true);
}

/* s with the keys past row + Skv - Sq set to -inf. */
static wk_cudnn_desc causal_mask(wk_cudnn_graph *g, int64_t *uid, const sdpa_key *k, wk_cudnn_desc s)
{
    const wk_cudnnDataType_t f32 = WK_CUDNN_DATA_FLOAT, i32 = WK_CUDNN_DATA_INT32, b8 = WK_CUDNN_DATA_BOOLEAN;
    wk_cudnn_desc row = scores(g, uid, k, i32, false), col = scores(g, uid, k, i32, false);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_GEN_INDEX, f32, 2, s, NULL, NULL, row);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_GEN_INDEX, f32, 3, s, NULL, NULL, col);
    if (k->sq != k->skv) {
        wk_cudnn_desc plus = scores(g, uid, k, i32, false), shifted = scores(g, uid, k, i32, false);
        wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_ADD, i32, -1, row, scalar(g, UID_SKV, i32), NULL, plus);
        wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_SUB, i32, -1, plus, scalar(g, UID_SQ, i32), NULL, shifted);
        row = shifted;
    }
    wk_cudnn_desc keep = scores(g, uid, k, b8, false), out = scores(g, uid, k, f32, false);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_CMP_GE, b8, -1, row, col, NULL, keep);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_BINARY_SELECT, f32, -1, s, scalar(g, UID_NEG_INF, f32), keep, out);
    return out;
}

/* P = softmax(s) over the keys in dt; the log-sum-exp into UID_LSE when asked for. */
static wk_cudnn_desc softmax(wk_cudnn_graph *g, int64_t *uid, const sdpa_key *k, wk_cudnn_desc s,
                             wk_cudnnDataType_t dt)
{
    const wk_cudnnDataType_t f32 = WK_CUDNN_DATA_FLOAT;
    wk_cudnn_desc max = scores(g, uid, k, f32, true), sub = scores(g, uid, k, f32, false);
    wk_cudnn_desc e = scores(g, uid, k, f32, false), sum = scores(g, uid, k, f32, true);
    wk_cudnn_reduction(g, WK_CUDNN_REDUCE_TENSOR_MAX, s, max);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_SUB, f32, -1, s, max, NULL, sub);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_EXP, f32, -1, sub, NULL, NULL, e);
    wk_cudnn_reduction(g, WK_CUDNN_REDUCE_TENSOR_ADD, e, sum);
    /* the log-sum-exp is part of the graph the engines recognise: a virtual tensor when not asked for */
    int64_t dims[4] = {k->b, k->hq, k->sq, 1}, strides[4] = {k->hq * k->sq, k->sq, 1, 1};
    wk_cudnn_desc log = scores(g, uid, k, f32, true);
    wk_cudnn_desc lse = k->lse ? wk_cudnn_tensor(g, UID_LSE, f32, 4, dims, strides, false, false)
                               : scores(g, uid, k, f32, true);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_LOG, f32, -1, sum, NULL, NULL, log);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_ADD, f32, -1, max, log, NULL, lse);
    wk_cudnn_desc p = scores(g, uid, k, dt, false);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_DIV, f32, -1, e, sum, NULL, p);
    return p;
}

/* The whole graph of key k, planned on its handle. */
static void build(wk_cudnn_graph *g, const sdpa_key *k)
{
    const wk_cudnnDataType_t f32 = WK_CUDNN_DATA_FLOAT;
    wk_cudnnDataType_t dt = k->dtype == WK_F16 ? WK_CUDNN_DATA_HALF : WK_CUDNN_DATA_BFLOAT16;
    int64_t uid = UID_VIRTUAL;
    int64_t qd[4] = {k->b, k->hq, k->sq, k->d}, kd[4] = {k->b, k->hkv, k->d, k->skv};
    int64_t vd[4] = {k->b, k->hkv, k->skv, k->dv}, od[4] = {k->b, k->hq, k->sq, k->dv};
    int64_t kts[4] = {k->ks[0], k->ks[1], k->ks[3], k->ks[2]}; /* K^T: a view of k */
    wk_cudnn_desc q = wk_cudnn_tensor(g, UID_Q, dt, 4, qd, k->qs, false, false);
    wk_cudnn_desc kt = wk_cudnn_tensor(g, UID_K, dt, 4, kd, kts, false, false);
    wk_cudnn_desc v = wk_cudnn_tensor(g, UID_V, dt, 4, vd, k->vs, false, false);
    wk_cudnn_desc o = wk_cudnn_tensor(g, UID_O, dt, 4, od, k->os, false, false);
    wk_cudnn_desc s = scores(g, &uid, k, f32, false), scaled = scores(g, &uid, k, f32, false);
    wk_cudnn_matmul(g, q, kt, s);
    wk_cudnn_pointwise(g, WK_CUDNN_POINTWISE_MUL, f32, -1, s, scalar(g, UID_SCALE, f32), NULL, scaled);
    s = k->causal ? causal_mask(g, &uid, k, scaled) : scaled;
    wk_cudnn_matmul(g, softmax(g, &uid, k, s, dt), v, o);
    wk_cudnn_graph_plan(g, k->handle);
}

/* d's graph for key k (its cuDNN lock held), built and kept when new: NULL when cuDNN refuses the case (*st, *call
 * say why when it was built now), or when it is new during a capture (plans are not built there). */
static wk_cudnn_graph *graph_of(wk_gpu_dev *d, const sdpa_key *k, wk_cudnnStatus_t *st, const char **call)
{
    bool found = false;
    wk_cudnn_graph *g = wk_cudnn_cache_find(&plans, wk_gpu_ordinal(d), k, &found);
    if (found || wk_gpu_capturing(d) || !(g = calloc(1, sizeof *g)))
        return g;
    build(g, k);
    *st = g->st;
    *call = g->call;
    if (g->st != WK_CUDNN_STATUS_SUCCESS) {
        wk_cudnn_graph_free(g);
        free(g);
        g = NULL;
    }
    if (!wk_cudnn_cache_store(&plans, wk_gpu_ordinal(d), k, g) && g) {
        wk_cudnn_graph_free(g); /* not kept: not used either */
        free(g);
        g = NULL;
    }
    return g;
}

static wk_status run(wk_gpu_dev *d, const wk_attn *a, const sdpa_key *k, const wk_cudnn_graph *g)
{
    void *ws = NULL;
    if (g->workspace > 0)
        WK_TRY(wk_gpu_malloc(d, (size_t)g->workspace, &ws));
    float scale = (float)a->scale, neg_inf = -__builtin_inff();
    int32_t skv = (int32_t)a->skv, sq = (int32_t)a->q->shape[2];
    /* the graph's memory tensors and host scalars: the mask's only when causal, Skv and Sq only when they differ */
    int64_t uids[9] = {UID_Q, UID_K, UID_V, UID_O, UID_SCALE, UID_NEG_INF, UID_SKV, UID_SQ};
    void *ptrs[9] = {(void *)wk_tensor_data(a->q), (void *)wk_tensor_data(a->k), (void *)wk_tensor_data(a->v),
                     wk_tensor_data(a->out), &scale, &neg_inf, &skv, &sq};
    int n = k->causal ? (k->sq != k->skv ? 8 : 6) : 5;
    if (a->lse) {
        uids[n] = UID_LSE;
        ptrs[n++] = wk_tensor_data(a->lse);
    }
    wk_cudnnStatus_t st = wk_cudnn_graph_run(g->plan, k->handle, n, uids, ptrs, ws);
    wk_gpu_free(d, ws); /* stream-ordered: the fused kernel queued above still uses it */
    if (st == WK_CUDNN_STATUS_SUCCESS)
        return WK_OK;
    return wk_error(wk_cudnn_not_supported(st) ? WK_ERR_UNSUPPORTED : WK_ERR_BACKEND,
                    "attention: cuDNN's fused attention failed on %s: %s", wk_gpu_dev_name(d),
                    wk_cudnn_status_text(st));
}

wk_status wk_cudnn_attention(wk_gpu_dev *d, const wk_attn *a, bool strict)
{
    const char *why = NULL, *call = NULL;
    if (!takes(a))
        return WK_ERR_UNSUPPORTED;
    wk_cudnnHandle_t h = wk_gpu_lib_handle(&wk_cudnn_lib, d, &why);
    if (!h || !wk_cudnn_graph_available())
        return strict ? wk_error(WK_ERR_BACKEND, "attention: cuDNN's graph API is not available on %s: %s",
                                 wk_gpu_dev_name(d), h ? "cuDNN 9 or later is needed" : why)
                      : WK_ERR_UNSUPPORTED;
    sdpa_key k;
    make_key(a, h, &k);
    wk_cudnnStatus_t st = WK_CUDNN_STATUS_NOT_SUPPORTED;
    pthread_mutex_lock(wk_gpu_lib_lock(&wk_cudnn_lib, d));
    wk_cudnn_graph *g = graph_of(d, &k, &st, &call);
    wk_status s = g ? run(d, a, &k, g) : WK_ERR_UNSUPPORTED;
    pthread_mutex_unlock(wk_gpu_lib_lock(&wk_cudnn_lib, d));
    if (s == WK_ERR_UNSUPPORTED && strict && !g && !wk_gpu_capturing(d))
        return wk_error(WK_ERR_BACKEND, "attention: cuDNN refused the graph on %s: %s: %s", wk_gpu_dev_name(d),
                        call ? call : "an earlier call", wk_cudnn_status_text(st));
    return s;
}
