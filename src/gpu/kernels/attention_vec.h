/* attention_vec.h: the attention family's decode kernel on plain vector loads (kernels/attention_vec.cu,
 * gpu/attention.c), for a few queries against a long KV cache: memory-bound, so built for loads in flight rather
 * than tensor cores. It takes the attention family's struct (attention.h) and writes what attn_fwd writes: out and
 * lse, or, split over keys, the partial rows attn_merge combines.
 * A block: AT_THREADS threads, one work item of at most 4 or 8 rows (a group's query heads x a few queries, as
 * gpu/attention.c plans them). Each key is read by D * sizeof(T) / 16 lanes (8, 16 or 32: a 16-byte vector each),
 * so a warp holds several key slots; each slot streams its keys a few at a time (their K and V vectors loaded
 * together) with its own online softmax, and the slots' states are combined in shared memory at the end. */
#ifndef WK_GPU_KERNELS_ATTENTION_VEC_H
#define WK_GPU_KERNELS_ATTENTION_VEC_H

#include "attention.h"

#define AV_MAX_ROWS 8                 /* rows a work item holds at most */
#define AV_MAX_SLOTS (AT_THREADS / 8) /* key slots a block holds at most (8 lanes a key) */
/* Keys a slot loads at once: fewer with more rows, whose queries and sums take the registers. */
#define AV_UNROLL(rows) ((rows) > 4 ? 2 : 4)

/* Rows a work item holds at most (B axis): 4 or 8, each a build (its registers sized to it). */
#define WK_BX_AV_ROWS(Y, N, ...) Y(_r4, 4, __VA_ARGS__) Y(_r8, 8, __VA_ARGS__)

/* attn_vec_decode: grid (items, splits), AT_THREADS threads; k and v by 16-byte vectors, D == Dv, no bias, ALiBi
 * or soft-cap. */
#define WK_ATTENTION_VEC_KERNELS(X)                                                                               \
    X(attention_vec, attn_vec_decode, wk_gpu_attn_args, AT_DT, AV_ROWS, ONE, __launch_bounds__(AT_THREADS))

#endif
