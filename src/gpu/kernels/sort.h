/* sort.h: the sort family's interface (kernels/sort.cu, gpu/sort.c): the stable sort along the last dim as
 * (key, index) pairs: segments sorted in shared memory, merge passes for long rows, and the output pass (rows
 * that fit one block take sort_radix.h's radix sort instead); topk's radix selections on the same keys. */
#ifndef WK_GPU_KERNELS_SORT_H
#define WK_GPU_KERNELS_SORT_H

#include "entries.h"
#include "../layout.h"

/* Bytes of a pair: p32 packs a 32-bit key and the index in one word, p64 holds a 64-bit key and the index. */
#define SORT_P32_BYTES 8
#define SORT_P64_BYTES 16
/* p32 needs rows shorter than this: the index must fit beside the all-ones sentinel. */
#define SORT_P32_MAX_N 0xffffffffLL

typedef struct wk_gpu_sort_args {
    const void *x;        /* block, emit: the values, rows of n: element j of row r at wk_offset(lr, r) + j * s */
    wk_gpu_layout lr;     /* block, emit: where x's rows start (its dims but the last) */
    int64_t s;            /* block, emit: x's stride along the sorted dim, in elements */
    int64_t rows, n;      /* row count and length */
    int64_t nchunks;      /* block: segments a row, of 2^lg_chunk each */
    int32_t lg_chunk;     /* block: log2 of a segment's length */
    int32_t lg_tile;      /* block: log2 of a block's tile (whole segments, sentinel-padded) */
    int32_t desc;         /* block: 1 for descending */
    void *values;         /* block, emit: (rows, n) contiguous in x's dtype, or NULL */
    void *indices;        /* block, emit: (rows, n) contiguous int64, or NULL */
    const void *pairs_in; /* merge, emit: the pairs read, (rows, n) */
    void *pairs_out;      /* block: the sorted segments, (rows, n) pairs (NULL: a row is one segment and the
                           * outputs are written directly); merge: the merged pairs, (rows, n) */
    int64_t w;            /* merge: the length of the sorted runs merged two by two */
} wk_gpu_sort_args;

/* topk (backend.h's slot): stage CHUNK selects each chunk's k smallest (key, index) pairs from a chunk of at most
 * TOPK_CHUNK keys held in shared memory, into scratch (or, when a row is one chunk, straight to the outputs);
 * stage MERGE selects a row's k from its chunks' candidates; KTH selects one element of a row from global memory
 * (kthvalue, median). Keys are sort.cu's, inverted for largest. */
#define TOPK_CHUNK 4096
#define TOPK_MAX_K 256      /* backend.h's WK_TOPK_SLOT_MAX_K (gpu/sort.c checks) */
#define TOPK_MODE_LARGEST 1 /* backend.h's wk_topk_mode values (gpu/sort.c checks) */
#define TOPK_MODE_MEDIAN 3
#define TOPK_THREADS 512
enum { TOPK_STAGE_CHUNK, TOPK_STAGE_MERGE };

typedef struct wk_gpu_topk_args {
    const void *x;     /* rows of n: element j of row r at wk_offset(lr, r) + j * s */
    wk_gpu_layout lr;  /* where x's rows start */
    int64_t s;         /* x's stride along the row */
    int64_t rows, n, k;
    int64_t nchunks;   /* chunks a row (chunk, merge) */
    int32_t mode;      /* wk_topk_mode (backend.h) */
    int32_t stage;     /* chunk, merge */
    void *cand;        /* (rows, nchunks, k) sort_p64 pairs: written by chunk when nchunks > 1, read by merge */
    void *values;      /* (rows, k) contiguous in x's dtype (kth: (rows)) */
    int64_t *indices;  /* (rows, k) contiguous (kth: (rows)) */
} wk_gpu_topk_args;

/* The pair type (slot SORT_PAIR_P32 or SORT_PAIR_P64; the items are sort.cu's pair types). */
enum { SORT_PAIR_P32, SORT_PAIR_P64 };
#define WK_AX_SORT_PAIR(Y, N, ...) Y(_p32, sort_p32, __VA_ARGS__) Y(_p64, sort_p64, __VA_ARGS__)
#define WK_BX_SORT_PAIR(Y, N, ...) Y(_p32, sort_p32, __VA_ARGS__) Y(_p64, sort_p64, __VA_ARGS__)

/* "sort_block_f32_p32": dtype (A: the wk_dtype), pair type. The axes are a product, so i64 and f64 (64-bit keys)
 * have p32 entry points too; the host never selects them and their bodies are empty (sort.cu). */
#define WK_SORT_KERNELS(X)                                                                                        \
    X(sort, sort_block, wk_gpu_sort_args, DT_ALL, SORT_PAIR, ONE, )                                               \
    X(sort, sort_emit, wk_gpu_sort_args, DT_ALL, SORT_PAIR, ONE, )                                                \
    X(sort, sort_merge, wk_gpu_sort_args, SORT_PAIR, NONE, ONE, )                                               \
    X(sort, topk_select, wk_gpu_topk_args, DT_ALL, NONE, ONE, )                                                   \
    X(sort, topk_kth, wk_gpu_topk_args, DT_ALL, NONE, ONE, )

#endif
