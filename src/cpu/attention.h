/* attention.h: what the CPU's attention (attention.c) and KV-cache append (attention_cache.c) share: reading the
 * lengths and block table, and checking them before anything is read or written. */
#ifndef WK_CPU_ATTENTION_H
#define WK_CPU_ATTENTION_H

#include "cpu/cpu.h"

/* seq_lens[b] (i32, any stride). */
static inline int64_t wk_attn_seq_len(const wk_tensor *lens, int64_t b)
{
    return ((const int32_t *)wk_tensor_data(lens))[b * lens->strides[0]];
}

/* block_table[b][i] (i32, any strides). */
static inline int64_t wk_attn_block_id(const wk_tensor *table, int64_t b, int64_t i)
{
    return ((const int32_t *)wk_tensor_data(table))[b * table->strides[0] + i * table->strides[1]];
}

/* Every batch's positions [from, seq_lens[b] + snew) fit: seq_lens[b] >= 0 and seq_lens[b] + snew <= capacity, and
 * with a block table (block_size > 0) the blocks holding them are in [0, pool_blocks). from is 0 for attention
 * (the keys read) and seq_lens[b] for an append (the positions written). WK_ERR_INDEX_OUT_OF_RANGE naming op. */
wk_status wk_cpu_attn_check_cache(const char *op, const wk_tensor *seq_lens, const wk_tensor *block_table,
                                  int64_t batch, int64_t pool_blocks, int64_t block_size, int64_t capacity,
                                  int64_t snew);

#endif
