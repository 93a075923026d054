/* sort.c: the GPU's stable sort slot along the last dim. Rows that fit in shared memory sort there in one
 * kernel; longer rows sort in chunks, merge pass by pass in scratch memory, then write the outputs. */
#include <stdio.h>

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

static wk_status launch(wk_gpu_dev *d, const char *name, int64_t items, unsigned threads, unsigned smem,
                        void **args)
{
    return wk_gpu_launch_named(d, name, (wk_gpu_dim){wk_gpu_blocks(d, items, threads), 1, 1},
                         (wk_gpu_dim){threads, 1, 1}, smem, args);
}

wk_status wk_gpu_sort(const wk_tensor *x, bool descending, wk_tensor *values, wk_tensor *indices)
{
    wk_gpu_dev *d = wk_gpu_dev_of(values ? values : indices);
    const int last = x->rank - 1; /* ops/ hands a rank-0 x over as one element of rank 1 */
    int64_t n = x->shape[last], rows = wk_numel(last, x->shape), s = x->strides[last];
    if (n == 0 || rows == 0)
        return WK_OK;
    wk_gpu_layout lr = wk_gpu_layout_make(last, x->shape, x->strides);
    /* 32-bit keys pack with the index into one word while the index fits beside the all-ones sentinel */
    bool p32 = x->dtype != WK_I64 && x->dtype != WK_F64 && n < (int64_t)0xffffffff;
    const char *pn = p32 ? "p32" : "p64", *sfx = wk_gpu_sfx(x->dtype);
    const int64_t psz = p32 ? 8 : 16, cap = SORT_SMEM / psz;
    const void *px = wk_tensor_data(x);
    void *pv = values ? wk_tensor_data(values) : NULL, *pi = indices ? wk_tensor_data(indices) : NULL;
    int desc = descending;

    int lg_chunk = n <= cap ? log2_ceil(n) : log2_ceil(cap);
    int lg_tile = lg_chunk > log2_ceil(SORT_MIN_TILE) ? lg_chunk : log2_ceil(SORT_MIN_TILE);
    int64_t nchunks = (n + ((int64_t)1 << lg_chunk) - 1) >> lg_chunk;
    int64_t tiles = (rows * nchunks + ((int64_t)1 << (lg_tile - lg_chunk)) - 1) >> (lg_tile - lg_chunk);
    unsigned threads = ((int64_t)1 << lg_tile) / 2 < SORT_THREADS ? (unsigned)(((int64_t)1 << lg_tile) / 2)
                                                                  : SORT_THREADS;
    unsigned smem = (unsigned)(((int64_t)1 << lg_tile) * psz);
    char name[64];
    snprintf(name, sizeof name, "sort_block_%s_%s", sfx, pn);

    if (nchunks == 1) {
        void *scratch = NULL;
        void *args[] = {&px, &lr, &s, &rows, &n, &nchunks, &lg_chunk, &lg_tile, &desc, &pv, &pi, &scratch};
        return launch(d, name, tiles * threads, threads, smem, args);
    }

    /* long rows: sorted chunks into a, then merges a -> b -> a ... of runs doubling from one chunk */
    size_t bytes = (size_t)(rows * n * psz);
    void *a = NULL, *b = NULL;
    wk_status st = wk_gpu_malloc(d, bytes, &a);
    if (st == WK_OK)
        st = wk_gpu_malloc(d, bytes, &b);
    if (st == WK_OK) {
        void *args[] = {&px, &lr, &s, &rows, &n, &nchunks, &lg_chunk, &lg_tile, &desc, &pv, &pi, &a};
        st = launch(d, name, tiles * threads, threads, smem, args);
    }
    snprintf(name, sizeof name, "sort_merge_%s", pn);
    for (int64_t w = (int64_t)1 << lg_chunk; st == WK_OK && w < n; w *= 2) {
        void *args[] = {&a, &b, &rows, &n, &w};
        st = launch(d, name, rows * n, 256, 0, args);
        void *t = a;
        a = b;
        b = t;
    }
    if (st == WK_OK) {
        snprintf(name, sizeof name, "sort_emit_%s_%s", sfx, pn);
        void *args[] = {&a, &px, &lr, &s, &rows, &n, &pv, &pi};
        st = launch(d, name, rows * n, 256, 0, args);
    }
    if (a)
        wk_gpu_free(d, a);
    if (b)
        wk_gpu_free(d, b);
    return st;
}
