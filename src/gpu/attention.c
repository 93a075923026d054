/* attention.c: the GPU's attention and kv_append slots: lengths and block ids checked on the device (the fault
 * record), then the fused kernel (kernels/attention.cu), split over keys with a merge when the items are too few. */
#include <stdint.h>
#include <string.h>

#include "gpu/gpu.h"

#define AT_BLOCKS_PER_SM 3 /* attn_fwd blocks an SM holds at once (128 to 168 registers a thread on sm_90) */
#define AT_MIN_SPLIT 4     /* key tiles a split holds at least */

static void strides4(const wk_tensor *t, int64_t s[4])
{
    for (int i = 0; i < 4; i++)
        s[i] = t ? t->strides[i] : 0;
}

/* t (k or v) read by 16-byte vectors: unit stride along the head dim, base and every other stride 16-byte aligned,
 * the head dim whole vectors. */
static bool vec16(const wk_tensor *t)
{
    int64_t es = (int64_t)wk_dtype_size(t->dtype), vw = 16 / es;
    bool ok = t->strides[3] == 1 && t->shape[3] % vw == 0 && (uintptr_t)wk_tensor_data(t) % 16 == 0;
    for (int i = 0; i < 3; i++)
        ok = ok && t->strides[i] % vw == 0;
    return ok;
}

/* Queues the check of seq_lens (and the block ids they use) with the op's fault code; nothing without lengths. */
static wk_status check_cache(wk_gpu_dev *d, wk_gpu_attn_args *q, int64_t capacity, int64_t snew)
{
    if (q->lens == NULL)
        return WK_OK;
    q->capacity = capacity;
    q->snew = snew;
    int64_t n = q->B * (q->block_size > 0 ? q->max_blocks : 1);
    wk_gpu_dim grid = {wk_gpu_blocks(d, n, 128), 1, 1}, block = {128, 1, 1};
    return WK_GPU_LAUNCH(d, attn_check, 0, 0, 0, grid, block, 0, *q);
}

/* The tables both ops read: lengths and block ids (with their strides), the pool's blocks. */
static void cache_args(wk_gpu_attn_args *q, const wk_tensor *lens, const wk_tensor *table, int64_t block_size,
                       int64_t num_blocks, wk_gpu_dev *d, int code)
{
    q->lens = lens ? wk_tensor_data(lens) : NULL;
    q->lens_s = lens ? lens->strides[0] : 0;
    q->table = table ? wk_tensor_data(table) : NULL;
    q->table_s[0] = table ? table->strides[0] : 0;
    q->table_s[1] = table ? table->strides[1] : 0;
    q->max_blocks = table ? table->shape[1] : 0;
    q->block_size = block_size;
    q->num_blocks = num_blocks;
    q->fault = wk_gpu_fault_record(d);
    q->code = code;
}

/* Rows a block: a chunk of nh of a group's query heads times nq queries; splits of the keys when the items alone
 * do not fill the device. */
static void plan(wk_gpu_dev *d, wk_gpu_attn_args *q)
{
    q->group = q->hq / q->hkv;
    q->nh = q->group < AT_ROWS ? q->group : AT_ROWS;
    q->hchunks = (q->group + q->nh - 1) / q->nh;
    q->nq = AT_ROWS / q->nh;
    q->qtiles = (q->sq + q->nq - 1) / q->nq;
    q->items = q->B * q->hkv * q->hchunks * q->qtiles;
    q->tk = (q->d > q->dv ? q->d : q->dv) <= AT_TK_WIDE_DIM ? AT_TK_WIDE : AT_TK_NARROW;
    int64_t tiles = (q->skv + q->tk - 1) / q->tk, fill = (int64_t)wk_gpu_sm_count(d) * AT_BLOCKS_PER_SM;
    q->splits = 1;
    if (q->items < fill && tiles >= 2 * AT_MIN_SPLIT) {
        int64_t want = (2 * fill + q->items - 1) / q->items, most = tiles / AT_MIN_SPLIT;
        q->splits = want < most ? want : most;
        q->splits = q->splits < 65535 ? q->splits : 65535;
    }
    q->split_len = (tiles + q->splits - 1) / q->splits * q->tk;
    if (q->splits == 1)
        q->split_len = q->skv > 0 ? q->skv : 1;
}

/* The fused kernel, and the merge when the keys are split (partial results in stream-ordered scratch). */
static wk_status run(wk_gpu_dev *d, wk_gpu_attn_args *q, wk_dtype dt)
{
    if (q->items > 0x7fffffff)
        return wk_error(WK_ERR_UNSUPPORTED, "attention: %lld work items exceed the grid", (long long)q->items);
    wk_gpu_dim grid = {(unsigned)q->items, (unsigned)q->splits, 1}, block = {AT_THREADS, 1, 1};
    if (q->splits == 1)
        return WK_GPU_LAUNCH(d, attn_fwd, dt, 0, 0, grid, block, 0, *q);
    size_t bytes = sizeof(float) * (size_t)(q->items * q->splits * AT_ROWS * (q->dv + 2));
    void *part = NULL;
    WK_TRY(wk_gpu_malloc(d, bytes, &part));
    q->part = part;
    wk_status s = WK_GPU_LAUNCH(d, attn_fwd, dt, 0, 0, grid, block, 0, *q);
    wk_gpu_dim mgrid = {(unsigned)q->items, 1, 1};
    if (s == WK_OK)
        s = WK_GPU_LAUNCH(d, attn_merge, dt, 0, 0, mgrid, block, 0, *q);
    wk_gpu_free(d, part); /* stream-ordered: the kernels queued above still read it */
    return s;
}

wk_status wk_gpu_attention(const wk_attn *a)
{
    wk_gpu_dev *d = wk_gpu_dev_of(a->out);
    const wk_tensor *qt = a->q, *k = a->k, *v = a->v, *b = a->bias;
    wk_gpu_attn_args q;
    memset(&q, 0, sizeof q);
    q.q = wk_tensor_data(qt);
    q.k = wk_tensor_data(k);
    q.v = wk_tensor_data(v);
    q.bias = b ? wk_tensor_data(b) : NULL;
    q.alibi = a->alibi ? wk_tensor_data(a->alibi) : NULL;
    q.alibi_s = a->alibi ? a->alibi->strides[0] : 0;
    q.out = wk_tensor_data(a->out);
    q.lse = a->lse ? wk_tensor_data(a->lse) : NULL;
    strides4(qt, q.qs);
    strides4(k, q.ks);
    strides4(v, q.vs);
    strides4(b, q.bs);
    q.B = qt->shape[0];
    q.hq = qt->shape[1];
    q.sq = qt->shape[2];
    q.d = qt->shape[3];
    q.hkv = k->shape[1];
    q.dv = v->shape[3];
    q.skv = a->skv;
    q.window_left = a->window_left;
    q.window_right = a->window_right;
    q.scale = (float)a->scale;
    q.softcap = (float)a->softcap;
    q.bias_kind = !b ? AT_BIAS_NONE : b->dtype == WK_U8 ? AT_BIAS_MASK : b->dtype == WK_F32 ? AT_BIAS_F32
                                                                                           : AT_BIAS_SAME;
    q.vec = (vec16(k) ? AT_VEC_K : 0) | (vec16(v) ? AT_VEC_V : 0);
    cache_args(&q, a->seq_lens, a->block_table, a->block_size, k->shape[0], d, WK_GPU_FAULT_ATTENTION);
    WK_TRY(check_cache(d, &q, a->skv, 0));
    plan(d, &q);
    return run(d, &q, qt->dtype);
}

wk_status wk_gpu_kv_append(const wk_kv_write *w)
{
    wk_gpu_dev *d = wk_gpu_dev_of(w->k_cache);
    const wk_tensor *k = w->k;
    wk_gpu_attn_args q;
    memset(&q, 0, sizeof q);
    q.kc = wk_tensor_data(w->k_cache);
    q.vc = wk_tensor_data(w->v_cache);
    q.kn = wk_tensor_data(k);
    q.vn = wk_tensor_data(w->v);
    strides4(w->k_cache, q.kcs);
    strides4(w->v_cache, q.vcs);
    strides4(k, q.kns);
    strides4(w->v, q.vns);
    q.B = k->shape[0];
    q.hkv = k->shape[1];
    q.d = k->shape[3];
    q.dv = w->v->shape[3];
    q.snew = k->shape[2];
    cache_args(&q, w->seq_lens, w->block_table, w->block_size, w->k_cache->shape[0], d, WK_GPU_FAULT_KV_APPEND);
    WK_TRY(check_cache(d, &q, w->capacity, k->shape[2])); /* first: the append writes nothing once it faults */
    int64_t n = q.B * q.hkv * q.snew * (q.d + q.dv);
    int es = (int)wk_dtype_size(k->dtype), slot = es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : 0;
    wk_gpu_dim grid = {wk_gpu_blocks(d, n, 256), 1, 1}, block = {256, 1, 1};
    return WK_GPU_LAUNCH(d, attn_append, slot, 0, 0, grid, block, 0, q);
}
