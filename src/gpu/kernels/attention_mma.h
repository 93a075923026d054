/* attention_mma.h: the attention family's tensor-core kernels (kernels/attention_mma.cu, gpu/attention.c): the
 * fused attention on f16/bf16 with mma.sync m16n8k16 (FlashAttention-2's scheme), for NVIDIA sm_80 and later.
 * They take the attention family's struct (attention.h) and write what attn_fwd writes: out and lse, or, split
 * over keys, the partial rows the last split's block combines (attention.cuh at_merge_last). */
#ifndef WK_GPU_KERNELS_ATTENTION_MMA_H
#define WK_GPU_KERNELS_ATTENTION_MMA_H

#include "attention.h"

/* A block: AM_WARPS warps; key (and value) tiles of AM_TK keys in shared memory.
 * prefill: a work item is AM_ROWS queries of one query head (nh = 1, nq = AM_ROWS), 16 rows a warp; no splits.
 * decode: a work item is AT_ROWS rows (a group's query heads x a few queries, as attn_fwd plans them), shared by
 * the four warps, each taking 16 keys of every tile; the warps' states are merged at the end, and splits of the
 * keys (grid.y, runs of whole tiles of AM_TK: attention.cuh at_split) are merged by the block that finishes last;
 * splits past the keys a length fills return at once, and where one split holds them all it writes out itself. */
#define AM_WARPS 4
#define AM_THREADS (AM_WARPS * 32)
#define AM_ROWS (AM_WARPS * 16)
#define AM_TK 64
/* The prefill kernel's key tiles (double-buffered): 32 keys at D 128, 64 at D 64 (both under 48 KB). */
#define AM_PTK(D) ((D) >= 128 ? 32 : 64)

/* The dtypes (f16, bf16) and head dims (D == Dv: 64, 128) the kernels are built for. */
#define WK_AX_AM_DT(Y, N, ...)                                                                                    \
    N(_u8, uint8_t, __VA_ARGS__) N(_u32, uint32_t, __VA_ARGS__) N(_i32, int32_t, __VA_ARGS__)                     \
    N(_i64, int64_t, __VA_ARGS__) Y(_f16, wk_f16, __VA_ARGS__) Y(_bf16, wk_bf16, __VA_ARGS__)                    \
    N(_f32, float, __VA_ARGS__) N(_f64, double, __VA_ARGS__)
#define WK_BX_AM_DIM(Y, N, ...) Y(_d64, am_dim<64>, __VA_ARGS__) Y(_d128, am_dim<128>, __VA_ARGS__)

/* attn_mma_prefill: grid (items), AM_THREADS threads; writes out and lse. attn_mma_prefill_v1: the same, the
 * earlier single-buffered kernel (tiles of AM_TK keys), kept for WICK_ATTENTION_KERNEL=mma_v1.
 * attn_mma_decode: grid (items, splits), AM_THREADS threads; writes out and lse (splits == 1) or part. */
#define WK_ATTENTION_MMA_KERNELS(X)                                                                               \
    X(attention_mma, attn_mma_prefill, wk_gpu_attn_args, AM_DT, AM_DIM, ONE, __launch_bounds__(AM_THREADS, 3))  \
    X(attention_mma, attn_mma_prefill_v1, wk_gpu_attn_args, AM_DT, AM_DIM, ONE, __launch_bounds__(AM_THREADS))  \
    X(attention_mma, attn_mma_decode, wk_gpu_attn_args, AM_DT, AM_DIM, ONE, __launch_bounds__(AM_THREADS))

#endif
