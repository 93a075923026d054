/* sort.c: the GPU's stable sort slot along the last dim. Rows that fit one block sort there by a radix sort
 * (kernels/sort_radix.h); longer rows sort in chunks, merge pass by pass in scratch memory, then write the
 * outputs. */
#include "gpu/gpu.h"

#define SORT_SMEM 32768 /* shared memory per block: under every device's default limit */
#define SORT_MIN_TILE 1024 /* short rows share a block's tile, so small segments still fill the threads */
#define SORT_THREADS 512

static int log2_ceil(int64_t n)
{
    int l = 0;
    while (((int64_t)1 << l) < n)
        l++;
    return l;
}

static wk_gpu_dim grid_of(wk_gpu_dev *d, int64_t items, unsigned threads)
{
    return (wk_gpu_dim){wk_gpu_blocks(d, items, threads), 1, 1};
}

/* Long rows, their segments sorted into a: merges a -> b -> a ... of runs doubling from one segment, then the
 * outputs from the merged pairs (q: the segment sort's arguments). */
static wk_status merge_and_emit(wk_gpu_dev *d, wk_gpu_sort_args *q, int dtype, int pair, void *a, void *b)
{
    wk_status st = WK_OK;
    wk_gpu_dim grid = grid_of(d, q->rows * q->n, 256), block = {256, 1, 1};
    for (int64_t w = (int64_t)1 << q->lg_chunk; st == WK_OK && w < q->n; w *= 2) {
        wk_gpu_sort_args m = {.rows = q->rows, .n = q->n, .pairs_in = a, .pairs_out = b, .w = w};
        st = WK_GPU_LAUNCH(d, sort_merge, pair, 0, 0, grid, block, 0, m);
        void *t = a;
        a = b;
        b = t;
    }
    if (st != WK_OK)
        return st;
    q->pairs_in = a;
    q->pairs_out = NULL;
    return WK_GPU_LAUNCH(d, sort_emit, dtype, pair, 0, grid, block, 0, *q);
}

/* The radix path's longest row for x's dtype (64-bit keys need twice the shared memory). */
static int64_t radix_max_n(int dtype)
{
    return dtype == WK_I64 || dtype == WK_F64 ? SORT_RADIX_MAX_N64 : SORT_RADIX_MAX_N;
}

/* Rows of 1..radix_max_n: a block per row (the grid capped, blocks loop over the rest), its threads and shared
 * memory as kernels/sort_radix.h lays them out. */
static wk_status sort_radix(wk_gpu_dev *d, const wk_gpu_sort_args *q, int dtype)
{
    unsigned threads = (unsigned)((q->n + SORT_RADIX_ITEMS - 1) / SORT_RADIX_ITEMS);
    threads = threads < 64 ? 64 : (threads + 63) / 64 * 64;
    unsigned key_bytes = dtype == WK_I64 || dtype == WK_F64 ? 8 : 4;
    unsigned warps = threads / (unsigned)wk_gpu_logical_warp(d);
    unsigned smem = threads * SORT_RADIX_ITEMS * (key_bytes + 2) + 2 * warps * 256 * 2;
    int64_t cap = (int64_t)1 << 20;
    wk_gpu_dim grid = {(unsigned)(q->rows < cap ? q->rows : cap), 1, 1}, block = {threads, 1, 1};
    return WK_GPU_LAUNCH(d, sort_radix, dtype, 0, wk_gpu_width_slot(d), grid, block, smem, *q);
}

wk_status wk_gpu_sort(const wk_tensor *x, wk_sort_order order, wk_tensor *values, wk_tensor *indices)
{
    wk_gpu_dev *d = wk_gpu_dev_of(values ? values : indices);
    const int last = x->rank - 1; /* ops/ hands a rank-0 x over as one element of rank 1 */
    int64_t n = x->shape[last], rows = wk_numel(last, x->shape);
    /* 32-bit keys pack with the index into one word while the index fits beside the all-ones sentinel */
    bool p32 = x->dtype != WK_I64 && x->dtype != WK_F64 && n < SORT_P32_MAX_N;
    const int pair = p32 ? SORT_PAIR_P32 : SORT_PAIR_P64;
    const int64_t psz = p32 ? SORT_P32_BYTES : SORT_P64_BYTES, cap = SORT_SMEM / psz;

    int lg_chunk = n <= cap ? log2_ceil(n) : log2_ceil(cap);
    int lg_tile = lg_chunk > log2_ceil(SORT_MIN_TILE) ? lg_chunk : log2_ceil(SORT_MIN_TILE);
    int64_t nchunks = (n + ((int64_t)1 << lg_chunk) - 1) >> lg_chunk;
    int64_t tiles = (rows * nchunks + ((int64_t)1 << (lg_tile - lg_chunk)) - 1) >> (lg_tile - lg_chunk);
    unsigned threads = ((int64_t)1 << lg_tile) / 2 < SORT_THREADS ? (unsigned)(((int64_t)1 << lg_tile) / 2)
                                                                  : SORT_THREADS;
    unsigned smem = (unsigned)(((int64_t)1 << lg_tile) * psz);
    wk_gpu_sort_args q = {
        .x = wk_tensor_data(x), .lr = wk_gpu_layout_make(last, x->shape, x->strides), .s = x->strides[last],
        .rows = rows, .n = n, .nchunks = nchunks, .lg_chunk = lg_chunk, .lg_tile = lg_tile, .desc = order == WK_SORT_DESCENDING,
        .values = values ? wk_tensor_data(values) : NULL, .indices = indices ? wk_tensor_data(indices) : NULL,
    };
    wk_gpu_dim grid = grid_of(d, tiles * threads, threads), block = {threads, 1, 1};
    if (n >= 1 && n <= radix_max_n(x->dtype) && rows >= 1)
        return sort_radix(d, &q, x->dtype);
    if (nchunks == 1)
        return WK_GPU_LAUNCH(d, sort_block, x->dtype, pair, 0, grid, block, smem, q);

    /* long rows: sorted segments into a, then merged (merge_and_emit) */
    size_t bytes = (size_t)(rows * n * psz);
    void *a = NULL, *b = NULL;
    wk_status st = wk_gpu_malloc(d, bytes, &a);
    if (st == WK_OK)
        st = wk_gpu_malloc(d, bytes, &b);
    if (st == WK_OK) {
        q.pairs_out = a;
        st = WK_GPU_LAUNCH(d, sort_block, x->dtype, pair, 0, grid, block, smem, q);
    }
    if (st == WK_OK)
        st = merge_and_emit(d, &q, x->dtype, pair, a, b);
    if (a)
        wk_gpu_free(d, a);
    if (b)
        wk_gpu_free(d, b);
    return st;
}

_Static_assert(TOPK_MAX_K == WK_TOPK_SLOT_MAX_K && TOPK_MODE_LARGEST == WK_TOPK_LARGEST &&
                   TOPK_MODE_MEDIAN == WK_TOPK_MEDIAN,
               "kernels/sort.h's topk constants");

/* topk (backend.h): kthvalue and median a block per row; topk a block per chunk of TOPK_CHUNK, then, for rows of
 * several chunks, a block per row over the chunks' candidates (in scratch). */
wk_status wk_gpu_topk(const wk_tensor *x, int64_t k, wk_topk_mode mode, wk_tensor *values, wk_tensor *indices)
{
    wk_gpu_dev *d = wk_gpu_dev_of(values);
    const int last = x->rank - 1;
    int64_t n = x->shape[last], rows = wk_numel(last, x->shape);
    wk_gpu_topk_args q = {
        .x = wk_tensor_data(x), .lr = wk_gpu_layout_make(last, x->shape, x->strides), .s = x->strides[last],
        .rows = rows, .n = n, .k = k, .nchunks = (n + TOPK_CHUNK - 1) / TOPK_CHUNK, .mode = (int32_t)mode,
        .stage = TOPK_STAGE_CHUNK, .values = wk_tensor_data(values), .indices = wk_tensor_data(indices),
    };
    wk_gpu_dim block = {TOPK_THREADS, 1, 1};
    int64_t cap = (int64_t)1 << 20; /* blocks loop over what a grid this size leaves */
    if (mode >= WK_TOPK_KTH) {
        wk_gpu_dim grid = {(unsigned)(rows < cap ? rows : cap), 1, 1};
        return WK_GPU_LAUNCH(d, topk_kth, x->dtype, 0, 0, grid, block, 0, q);
    }
    int64_t chunk_blocks = rows * q.nchunks;
    wk_gpu_dim grid = {(unsigned)(chunk_blocks < cap ? chunk_blocks : cap), 1, 1};
    int64_t chunk = n < TOPK_CHUNK ? n : TOPK_CHUNK;
    unsigned smem = (unsigned)(chunk * (x->dtype == WK_I64 || x->dtype == WK_F64 ? 8 : 4));
    if (q.nchunks == 1)
        return WK_GPU_LAUNCH(d, topk_select, x->dtype, 0, 0, grid, block, smem, q);
    wk_status st = wk_gpu_malloc(d, (size_t)(chunk_blocks * k * SORT_P64_BYTES), &q.cand);
    if (st == WK_OK)
        st = WK_GPU_LAUNCH(d, topk_select, x->dtype, 0, 0, grid, block, smem, q);
    if (st == WK_OK) {
        q.stage = TOPK_STAGE_MERGE;
        grid.x = (unsigned)(rows < cap ? rows : cap);
        st = WK_GPU_LAUNCH(d, topk_select, x->dtype, 0, 0, grid, block, 0, q);
    }
    if (q.cand)
        wk_gpu_free(d, q.cand);
    return st;
}
