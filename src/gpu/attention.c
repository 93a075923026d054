/* attention.c: the GPU's attention and kv_append slots: lengths and block ids checked on the device (the fault
 * record), then the fused kernel, split over keys with a merge when the items are too few: on tensor cores
 * (kernels/attention_mma.cu) where the device and the problem allow it, else the scalar one (kernels/attention.cu).
 * WICK_ATTENTION_KERNEL=scalar forces the scalar kernels (the tests run the case table both ways); =mma_v1 runs
 * prefill on the earlier single-buffered tensor-core kernel (attn_mma_prefill_v1), for comparison. Prefill (more than
 * AM_DECODE_ROWS queries) may instead run on the DNN library's fused attention (gpu.h), chosen per shape by timing
 * both once (library_mode: =own never, =cudnn always where it takes the case). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

#define AT_BLOCKS_PER_SM 3 /* attn_fwd blocks an SM holds at once (128 to 168 registers a thread on sm_90) */
#define AT_MIN_SPLIT 4     /* key tiles a split holds at least */
#define AM_BLOCKS_PER_SM 2 /* attn_mma_decode blocks an SM holds at once (about 240 registers a thread on sm_90) */
#define AM_DECODE_ROWS 16  /* at most this many queries: the decode kernel (a group's heads share each key tile) */
#define AT_CHECK_IN_KERNEL 64 /* at most this many sequences of a contiguous cache: the kernels check the lengths */

static void strides4(const wk_tensor *t, int64_t s[4])
{
    for (int i = 0; i < 4; i++)
        s[i] = t ? t->strides[i] : 0;
}

/* Queues the check of seq_lens (and the block ids they use) with the op's fault code; nothing without lengths.
 * Lengths alone (a contiguous cache) of a few sequences are checked by the op's kernels instead: one launch fewer
 * in every decode step. */
static wk_status check_cache(wk_gpu_dev *d, wk_gpu_attn_args *q, int64_t capacity, int64_t snew)
{
    if (q->lens == NULL)
        return WK_OK;
    q->capacity = capacity;
    q->snew = snew;
    q->check_lens = q->block_size == 0 && q->B <= AT_CHECK_IN_KERNEL;
    if (q->check_lens)
        return WK_OK;
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

/* Splits of the keys (tiles of tk) when the items alone do not fill the device (per_sm blocks an SM), planned
 * for all skv keys; the kernels spread the keys a row sees over them (attention.cuh at_split). */
static void plan_splits(wk_gpu_dev *d, wk_gpu_attn_args *q, int64_t tk, int64_t per_sm)
{
    int64_t tiles = (q->skv + tk - 1) / tk, fill = (int64_t)wk_gpu_sm_count(d) * per_sm;
    q->splits = 1;
    if (q->items < fill && tiles >= 2 * AT_MIN_SPLIT) {
        int64_t want = (2 * fill + q->items - 1) / q->items, most = tiles / AT_MIN_SPLIT;
        q->splits = want < most ? want : most;
        q->splits = q->splits < 65535 ? q->splits : 65535;
    }
}

/* Rows a block: a chunk of nh of a group's query heads times nq queries (rows in all); splits of the keys for
 * the scalar kernel and the decode kernel. */
static void plan(wk_gpu_attn_args *q, int64_t rows)
{
    q->group = q->hq / q->hkv;
    q->nh = q->group < rows ? q->group : rows;
    q->hchunks = (q->group + q->nh - 1) / q->nh;
    q->nq = rows / q->nh;
    q->qtiles = (q->sq + q->nq - 1) / q->nq;
    q->items = q->B * q->hkv * q->hchunks * q->qtiles;
    q->tk = (q->d > q->dv ? q->d : q->dv) <= AT_TK_WIDE_DIM ? AT_TK_WIDE : AT_TK_NARROW;
    q->splits = 1;
}

/* WICK_ATTENTION_KERNEL=mma_v1: prefill on attn_mma_prefill_v1. */
static bool prefill_v1(void)
{
    const char *force = getenv("WICK_ATTENTION_KERNEL");
    return force && strcmp(force, "mma_v1") == 0;
}

/* The tensor-core kernels' head-dim slot (kernels/attention_mma.h: 0 for 64, 1 for 128), or -1 where they do
 * not serve the call: not forced off, f16/bf16, no bias, ALiBi or soft-cap, D == Dv of 64 or 128, q read by
 * 4-byte pairs and k, v by 16-byte vectors, an NVIDIA sm_80 or later device, and the kernel in this build. */
static int mma_slot(wk_gpu_dev *d, const wk_attn *a, const wk_gpu_attn_args *q)
{
    const char *force = getenv("WICK_ATTENTION_KERNEL");
    const wk_tensor *qt = a->q;
    if ((force && strcmp(force, "scalar") == 0) || (qt->dtype != WK_F16 && qt->dtype != WK_BF16))
        return -1;
    if (a->bias || a->alibi || a->softcap > 0 || q->d != q->dv || (q->d != 64 && q->d != 128))
        return -1;
    if (q->vec != (AT_VEC_K | AT_VEC_V) || qt->strides[3] != 1 || (uintptr_t)wk_tensor_data(qt) % 4 != 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if (qt->strides[i] % 2 != 0)
            return -1;
    if (wk_gpu_dev_sm(d) < 80)
        return -1;
    int slot = q->d == 64 ? 0 : 1;
    wk_gpu_kset set = q->sq <= AM_DECODE_ROWS ? WK_KS_attn_mma_decode
                      : prefill_v1()         ? WK_KS_attn_mma_prefill_v1
                                             : WK_KS_attn_mma_prefill;
    return wk_gpu_kernel_present(d, set, qt->dtype, slot, 0) ? slot : -1;
}

/* The fused kernel (mma: the tensor-core set, decode or prefill, in head-dim slot ds); split over keys, its blocks
 * write partial rows to stream-ordered scratch and the last one of an item merges them. */
static wk_status run(wk_gpu_dev *d, wk_gpu_attn_args *q, wk_dtype dt, int ds)
{
    if (q->items > 0x7fffffff)
        return wk_error(WK_ERR_UNSUPPORTED, "attention: %lld work items exceed the grid", (long long)q->items);
    bool dec = q->sq <= AM_DECODE_ROWS;
    wk_gpu_dim grid = {(unsigned)q->items, (unsigned)q->splits, 1}, block = {AT_THREADS, 1, 1};
    if (ds >= 0 && !dec && prefill_v1())
        return WK_GPU_LAUNCH(d, attn_mma_prefill_v1, dt, ds, 0, grid, block, 0, *q);
    if (ds >= 0 && !dec)
        return WK_GPU_LAUNCH(d, attn_mma_prefill, dt, ds, 0, grid, block, 0, *q);
    void *part = NULL;
    wk_status s = WK_OK;
    if (q->splits > 1) { /* the partial rows, and a zeroed ticket counter an item: the capture's, else after them */
        size_t rows = sizeof(float) * (size_t)(q->items * q->splits * AT_ROWS * AT_PART_W(q->dv));
        bool own = !wk_gpu_capturing(d);
        if (!own)
            WK_TRY(wk_gpu_capture_counters(d, q->items, &q->count));
        WK_TRY(wk_gpu_malloc(d, rows + (own ? sizeof(int32_t) * (size_t)q->items : 0), &part));
        q->part = part;
        if (own) {
            q->count = (int32_t *)((char *)part + rows);
            s = wk_gpu_memset(d, q->count, 0, sizeof(int32_t) * (size_t)q->items);
        }
    }
    if (s == WK_OK)
        s = ds >= 0 ? WK_GPU_LAUNCH(d, attn_mma_decode, dt, ds, 0, grid, block, 0, *q)
                    : WK_GPU_LAUNCH(d, attn_fwd, dt, 0, 0, grid, block, 0, *q);
    wk_gpu_free(d, part); /* stream-ordered: the kernel queued above still reads it */
    return s;
}

/* The kernels' arguments for a (checked lengths queued where the kernels do not check them); the head-dim slot of
 * the tensor-core kernels (mma_slot) into *ds, the plan (rows a block, splits) made. */
static wk_status args_of(wk_gpu_dev *d, const wk_attn *a, wk_gpu_attn_args *qa, int *ds)
{
    const wk_tensor *qt = a->q, *k = a->k, *v = a->v, *b = a->bias;
    wk_gpu_attn_args q;
    memset(&q, 0, sizeof q);
    if (a->k_new) { /* attention_kv: the new rows, written into the caches by the decode kernel */
        q.kc = wk_tensor_data(k);
        q.vc = wk_tensor_data(v);
        q.kn = wk_tensor_data(a->k_new);
        q.vn = wk_tensor_data(a->v_new);
        strides4(k, q.kcs);
        strides4(v, q.vcs);
        strides4(a->k_new, q.kns);
        strides4(a->v_new, q.vns);
    }
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
    q.vec = (wk_gpu_vec16(k) ? AT_VEC_K : 0) | (wk_gpu_vec16(v) ? AT_VEC_V : 0);
    cache_args(&q, a->seq_lens, a->block_table, a->block_size, k->shape[0], d,
               a->k_new ? WK_GPU_FAULT_KV_APPEND : WK_GPU_FAULT_ATTENTION);
    int64_t snew = a->k_new ? qt->shape[2] : 0;
    if (a->k_new) /* the lengths before the step: the kernel checks them itself (check_lens) or nothing is fused */
        q.check_lens = a->block_table == NULL && q.B <= AT_CHECK_IN_KERNEL, q.capacity = a->skv, q.snew = snew;
    else
        WK_TRY(check_cache(d, &q, a->skv, 0));
    *ds = mma_slot(d, a, &q);
    plan(&q, *ds >= 0 && q.sq > AM_DECODE_ROWS ? AM_ROWS : AT_ROWS);
    if (*ds < 0)
        plan_splits(d, &q, q.tk, AT_BLOCKS_PER_SM);
    else if (q.sq <= AM_DECODE_ROWS)
        plan_splits(d, &q, AM_TK, AM_BLOCKS_PER_SM);
    *qa = q;
    return WK_OK;
}

/* wick's own kernels. */
static wk_status own_attention(wk_gpu_dev *d, const wk_attn *a)
{
    wk_gpu_attn_args q;
    int ds;
    WK_TRY(args_of(d, a, &q, &ds));
    return run(d, &q, a->q->dtype, ds);
}

/* wk_attention_kv in the tensor-core decode kernel (the new rows patched into its key and value tiles, and written
 * into the caches by the blocks that hold their positions), where it applies: up to AM_DECODE_ROWS queries in one
 * query tile an item (the item of a key head's first query chunk writes every new row: all of them lie in its keys),
 * a contiguous cache of at most AT_CHECK_IN_KERNEL sequences (their lengths checked in the kernel, before any write),
 * the kernel in this build for the dtype and head dim. Otherwise WK_ERR_UNSUPPORTED, nothing done. */
wk_status wk_gpu_attention_kv(const wk_attn *a)
{
    wk_gpu_dev *d = wk_gpu_dev_of(a->out);
    if (a->block_table || a->q->shape[0] > AT_CHECK_IN_KERNEL || a->q->shape[2] > AM_DECODE_ROWS || !a->seq_lens)
        return WK_ERR_UNSUPPORTED;
    wk_gpu_attn_args q;
    int ds;
    WK_TRY(args_of(d, a, &q, &ds));
    return ds < 0 || q.qtiles != 1 ? WK_ERR_UNSUPPORTED : run(d, &q, a->q->dtype, ds);
}

/* ---------------------------------------------------------------- the DNN library's fused attention, or ours */
typedef enum { LIB_TIMED, LIB_NEVER, LIB_ALWAYS } lib_mode;

/* WICK_ATTENTION_KERNEL: scalar, mma_v1 or own: wick's kernels only; cudnn: the library wherever it takes the
 * case (an error when it refuses one it should take); unset: per shape, the faster of the two, timed on first use. */
static lib_mode library_mode(void)
{
    const char *force = getenv("WICK_ATTENTION_KERNEL");
    if (!force || !*force)
        return LIB_TIMED;
    return strcmp(force, "cudnn") == 0 ? LIB_ALWAYS : LIB_NEVER;
}

/* The choice for a shape, layout and device. All int64, zeroed before filling: keys compare with memcmp. */
typedef struct attn_choice {
    struct {
        int64_t ord, dtype, b, hq, hkv, sq, skv, d, dv, wl, wr, lse, qs[4], ks[4], vs[4];
    } key;
    bool library;
} attn_choice;
WK_GPU_PLAN_CACHE(choices, attn_choice, 256);

static void choice_key(wk_gpu_dev *d, const wk_attn *a, attn_choice *c)
{
    memset(c, 0, sizeof *c);
    c->key.ord = wk_gpu_ordinal(d);
    c->key.dtype = a->q->dtype;
    c->key.b = a->q->shape[0];
    c->key.hq = a->q->shape[1];
    c->key.sq = a->q->shape[2];
    c->key.d = a->q->shape[3];
    c->key.hkv = a->k->shape[1];
    c->key.skv = a->skv;
    c->key.dv = a->v->shape[3];
    c->key.wl = a->window_left;
    c->key.wr = a->window_right;
    c->key.lse = a->lse != NULL;
    for (int i = 0; i < 4; i++) {
        c->key.qs[i] = a->q->strides[i];
        c->key.ks[i] = a->k->strides[i];
        c->key.vs[i] = a->v->strides[i];
    }
}

typedef struct timed_call {
    wk_gpu_dev *d;
    const wk_attn *a;
    const wk_gpu_dnn *dnn;
} timed_call;

static wk_status run_library(void *ctx)
{
    timed_call *t = ctx;
    return t->dnn->attention(t->d, t->a, false);
}

static wk_status run_own(void *ctx)
{
    timed_call *t = ctx;
    return own_attention(t->d, t->a);
}

/* A shape's first call: the library's run (building its plan), ours, then each timed once; the faster kept. The
 * output is ours (computed last), which is as good. */
static wk_status choose(wk_gpu_dev *d, const wk_attn *a, const wk_gpu_dnn *dnn, attn_choice *c)
{
    timed_call t = {d, a, dnn};
    float lib_ms = 0, own_ms = 0;
    wk_status s = dnn->attention(d, a, false);
    if (s == WK_ERR_UNSUPPORTED) {
        c->library = false;
        wk_gpu_plan_store(&choices, c);
        return own_attention(d, a);
    }
    WK_TRY(s);
    WK_TRY(own_attention(d, a));
    WK_TRY(wk_gpu_timed(d, run_library, &t, &lib_ms));
    WK_TRY(wk_gpu_timed(d, run_own, &t, &own_ms));
    c->library = lib_ms < own_ms;
    wk_gpu_plan_store(&choices, c);
    return WK_OK;
}

wk_status wk_gpu_attention(const wk_attn *a)
{
    wk_gpu_dev *d = wk_gpu_dev_of(a->out);
    const char *why = NULL;
    lib_mode mode = library_mode();
    const wk_gpu_dnn *dnn = mode == LIB_NEVER || a->q->shape[2] <= AM_DECODE_ROWS ? NULL : wk_gpu_dnn_of(d, &why);
    if (!dnn || !dnn->attention)
        return own_attention(d, a);
    wk_status s;
    if (mode == LIB_ALWAYS) {
        s = dnn->attention(d, a, true);
        return s == WK_ERR_UNSUPPORTED ? own_attention(d, a) : s;
    }
    attn_choice c, found;
    choice_key(d, a, &c);
    if (wk_gpu_plan_find(&choices, &c.key, &found)) {
        s = found.library ? dnn->attention(d, a, false) : WK_ERR_UNSUPPORTED;
        return s == WK_ERR_UNSUPPORTED ? own_attention(d, a) : s;
    }
    return wk_gpu_capturing(d) ? own_attention(d, a) : choose(d, a, dnn, &c); /* no timing inside a capture */
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
