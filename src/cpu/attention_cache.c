/* attention_cache.c: the CPU's KV-cache append (new keys and values copied to their positions, contiguous or
 * through a block table) and the checks of lengths and block ids that it and attention run first. */
#include "core/error.h"
#include "cpu/attention.h"
#include "cpu/vmath.h"

wk_status wk_cpu_attn_check_cache(const char *op, const wk_tensor *seq_lens, const wk_tensor *block_table,
                                  int64_t batch, int64_t pool_blocks, int64_t block_size, int64_t capacity,
                                  int64_t snew)
{
    if (seq_lens == NULL)
        return WK_OK;
    for (int64_t b = 0; b < batch; b++) {
        int64_t len = wk_attn_seq_len(seq_lens, b);
        if (len < 0 || len > capacity - snew)
            return wk_error(WK_ERR_INDEX_OUT_OF_RANGE, "%s: seq_lens[%lld] = %lld%s is outside [0, %lld]", op,
                            (long long)b, (long long)len, snew ? " plus the new positions" : "",
                            (long long)capacity);
        if (block_size == 0)
            continue;
        int64_t first = snew ? len / block_size : 0, end = (len + snew + block_size - 1) / block_size;
        for (int64_t i = first; i < end; i++) {
            int64_t id = wk_attn_block_id(block_table, b, i);
            if (id < 0 || id >= pool_blocks)
                return wk_error(WK_ERR_INDEX_OUT_OF_RANGE, "%s: block_table[%lld][%lld] = %lld is outside the pool's "
                                "blocks [0, %lld)", op, (long long)b, (long long)i, (long long)id,
                                (long long)pool_blocks);
        }
    }
    return WK_OK;
}

#define APPEND_CHUNK 256

typedef struct append_job {
    const wk_kv_write *w;
    int64_t hkv, snew;
} append_job;

/* Byte address of position pos of batch b, head h in a cache. */
static char *cache_row(const wk_kv_write *w, wk_tensor *c, int64_t b, int64_t h, int64_t pos)
{
    int64_t base;
    if (w->block_size > 0)
        base = wk_attn_block_id(w->block_table, b, pos / w->block_size) * c->strides[0] + h * c->strides[1] +
               (pos % w->block_size) * c->strides[2];
    else
        base = b * c->strides[0] + h * c->strides[1] + pos * c->strides[2];
    return (char *)wk_tensor_data(c) + base * (int64_t)wk_dtype_size(c->dtype);
}

/* Copies row (b, h, t) of src to its position in the cache. */
static void append_row(const append_job *j, const wk_tensor *src, wk_tensor *cache, int64_t row, uint64_t *buf)
{
    int64_t t = row % j->snew, h = (row / j->snew) % j->hkv, b = row / j->snew / j->hkv;
    int64_t es = (int64_t)wk_dtype_size(src->dtype), n = src->shape[3];
    const char *from = (const char *)wk_tensor_data(src) +
                       (b * src->strides[0] + h * src->strides[1] + t * src->strides[2]) * es;
    char *to = cache_row(j->w, cache, b, h, wk_attn_seq_len(j->w->seq_lens, b) + t);
    for (int64_t d = 0; d < n; d += APPEND_CHUNK) {
        int64_t m = n - d < APPEND_CHUNK ? n - d : APPEND_CHUNK;
        wk_chunk_gather((size_t)es, buf, from + d * src->strides[3] * es, src->strides[3] * es, m);
        wk_chunk_scatter((size_t)es, to + d * cache->strides[3] * es, cache->strides[3] * es, buf, m);
    }
}

static void append_rows(void *ctx, int64_t begin, int64_t end)
{
    const append_job *j = ctx;
    uint64_t buf[APPEND_CHUNK];
    for (int64_t r = begin; r < end; r++) {
        append_row(j, j->w->k, j->w->k_cache, r, buf);
        append_row(j, j->w->v, j->w->v_cache, r, buf);
    }
}

wk_status wk_cpu_kv_append(const wk_kv_write *w)
{
    const wk_tensor *k = w->k;
    WK_TRY(wk_cpu_attn_check_cache("kv_append", w->seq_lens, w->block_table, k->shape[0], w->k_cache->shape[0],
                                   w->block_size, w->capacity, k->shape[2]));
    append_job j = {.w = w, .hkv = k->shape[1], .snew = k->shape[2]};
    int64_t rows = k->shape[0] * j.hkv * j.snew;
    if (rows > 0)
        wk_cpu_parallel_for(rows, WK_CPU_GRAIN / (k->shape[3] + w->v->shape[3] + 1) + 1, append_rows, &j);
    return WK_OK;
}
