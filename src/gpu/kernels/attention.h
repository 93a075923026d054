/* attention.h: the attention family's interface (kernels/attention.cu, gpu/attention.c): the fused attention (a
 * tiled online softmax, split over keys for decode, then a merge), the check of lengths and block ids, and the
 * KV-cache append. */
#ifndef WK_GPU_KERNELS_ATTENTION_H
#define WK_GPU_KERNELS_ATTENTION_H

#include "entries.h"
#include "../layout.h"

/* A block of AT_THREADS threads takes AT_ROWS query rows (a group's query heads x a tile of queries) and streams
 * the keys in tiles of AT_TK_WIDE (max(D, Dv) <= AT_TK_WIDE_DIM) or AT_TK_NARROW keys through shared memory. */
#define AT_THREADS 128
#define AT_ROWS 16
#define AT_MAX_DIM 256
#define AT_TK_WIDE 32
#define AT_TK_NARROW 16
#define AT_TK_WIDE_DIM 128

/* Floats of a split's partial row: dv values, then m and l, rounded up to 16 bytes (the merge reads vectors). */
#define AT_PART_W(dv) (((dv) + 2 + 3) / 4 * 4)

/* vec: k (AT_VEC_K) or v (AT_VEC_V) is read by 16-byte vectors (attention.cu at_load_kv_vec). */
enum { AT_VEC_K = 1, AT_VEC_V = 2 };

/* The bias kinds (bias_kind). */
enum { AT_BIAS_NONE, AT_BIAS_F32, AT_BIAS_SAME, AT_BIAS_MASK };

/* One struct for every set; strides are in elements. A work item is (batch, key/value head, a chunk of nh of
 * its query heads, a tile of nq queries); item = ((b * hkv + kvh) * hchunks + chunk) * qtiles + tile. */
typedef struct wk_gpu_attn_args {
    const void *q, *k, *v;   /* attention: (B, Hq, Sq, D), k and v (B or num_blocks, Hkv, S, D / Dv) */
    const void *bias;        /* (B, Hq, Sq, skv) view (stride 0 on broadcast dims), or NULL */
    const float *alibi;      /* (Hq) slopes, or NULL */
    const int32_t *lens;     /* (B), or NULL */
    const int32_t *table;    /* (B, max_blocks), or NULL (contiguous k, v) */
    void *out;               /* (B, Hq, Sq, Dv) contiguous */
    float *lse;              /* (B, Hq, Sq) contiguous, or NULL */
    float *part;             /* splits > 1: per (item, split, row) AT_PART_W(dv) floats: acc (dv), m, l */
    int32_t *count;          /* splits > 1: per item, the splits done (zero before the launch) */
    int64_t qs[4], ks[4], vs[4], bs[4];
    int64_t alibi_s, lens_s, table_s[2];
    int64_t B, hq, hkv, sq, skv, d, dv;
    int64_t block_size, num_blocks, max_blocks; /* paged: the pools' dim 2 and dim 0, the table's dim 1 */
    int64_t window_left, window_right;          /* -1: unbounded */
    int64_t group, nh, hchunks, nq, qtiles, items;
    int64_t splits;                             /* key splits (grid.y; attention.cuh at_split) */
    float scale, softcap;                       /* softcap 0: none */
    int32_t bias_kind;                          /* AT_BIAS_* */
    int32_t tk;                                 /* keys per tile: AT_TK_WIDE or AT_TK_NARROW */
    int32_t vec;                                /* AT_VEC_* */
    /* kv_append: k, v (B, Hkv, snew, D / Dv) (q, k, v above hold nothing) into the caches kc, vc */
    void *kc, *vc;
    const void *kn, *vn;
    int64_t kcs[4], vcs[4], kns[4], vns[4];
    int64_t snew, capacity; /* check: positions [lens[b], lens[b] + snew) must lie in [0, capacity) */
    int32_t *fault;         /* the device's fault record (layout.h) */
    int32_t code;           /* the fault code of the op */
    int32_t check_lens;     /* the kernels check lens themselves (contiguous caches, few sequences): no attn_check */
} wk_gpu_attn_args;

/* The dtypes attention computes on (slots are wk_dtype values). */
#define WK_AX_AT_DT(Y, N, ...)                                                                                    \
    N(_u8, uint8_t, __VA_ARGS__) N(_u32, uint32_t, __VA_ARGS__) N(_i32, int32_t, __VA_ARGS__)                     \
    N(_i64, int64_t, __VA_ARGS__) Y(_f16, wk_f16, __VA_ARGS__) Y(_bf16, wk_bf16, __VA_ARGS__)                    \
    Y(_f32, float, __VA_ARGS__) N(_f64, double, __VA_ARGS__)

/* attn_fwd: grid (items, splits), AT_THREADS threads; writes out / lse (splits == 1) or part.
 * Split over keys, the block of an item that finishes last merges its splits' part into out / lse (attention.cuh
 * at_merge_last: count holds one ticket counter an item, zeroed before the launch).
 * attn_check: grid-stride over B * (max_blocks or 1); sets the fault record for a bad length or block id.
 * attn_append: grid-stride over the new elements; copies bits (A: the element size), nothing once a fault is set. */
#define WK_ATTENTION_KERNELS(X)                                                                                   \
    X(attention, attn_fwd, wk_gpu_attn_args, AT_DT, NONE, ONE, __launch_bounds__(AT_THREADS))                    \
    X(attention, attn_check, wk_gpu_attn_args, NONE, NONE, ONE, )                                                \
    X(attention, attn_append, wk_gpu_attn_args, SIZES, NONE, ONE, )

#endif
