/* sort.cu: kernels of the stable sort along the last dim: rows (or chunks of long rows) sorted in shared
 * memory by a bitonic network, merge passes joining the chunks of long rows, and the output pass; topk's radix
 * selections (chunks in shared memory, then their candidates; one element for kthvalue and median).
 * Warp width (wave64, wave32): the network has a barrier after every compare-exchange step, and the merge and
 * output passes take a thread per element with no step between lanes, so nothing here depends on the width. */
#include "common.cuh"
#include "sort.h"
#include "sort_keys.cuh"

/* ---------------------------------------------------------------- pairs
 * p32: a 32-bit key and the index in one 64-bit word (rows shorter than 2^32 - 1); p64: 64-bit key and
 * index. The sentinel (all ones) pads a segment to a power of two and sorts after every real pair. */
struct sort_p32 { unsigned long long v; };
struct sort_p64 { unsigned long long k, i; };
static_assert(sizeof(sort_p32) == SORT_P32_BYTES && sizeof(sort_p64) == SORT_P64_BYTES, "sort.h's pair sizes");

__device__ __forceinline__ bool sort_less(const sort_p32 &a, const sort_p32 &b) { return a.v < b.v; }
__device__ __forceinline__ bool sort_less(const sort_p64 &a, const sort_p64 &b)
{
    return a.k < b.k || (a.k == b.k && a.i < b.i);
}
template <class P> __device__ __forceinline__ P sort_make(uint64_t key, int64_t idx);
template <> __device__ __forceinline__ sort_p32 sort_make<sort_p32>(uint64_t key, int64_t idx)
{
    return {(key << 32) | (uint32_t)idx};
}
template <> __device__ __forceinline__ sort_p64 sort_make<sort_p64>(uint64_t key, int64_t idx)
{
    return {key, (unsigned long long)idx};
}
template <class P> __device__ __forceinline__ P sort_sentinel();
template <> __device__ __forceinline__ sort_p32 sort_sentinel<sort_p32>() { return {~0ull}; }
template <> __device__ __forceinline__ sort_p64 sort_sentinel<sort_p64>() { return {~0ull, ~0ull}; }
__device__ __forceinline__ int64_t sort_index(const sort_p32 &p) { return (int64_t)(p.v & 0xffffffffull); }
__device__ __forceinline__ int64_t sort_index(const sort_p64 &p) { return (int64_t)p.i; }

/* The outputs for the pair p at (row, col): its original index, and x's value there (moved, not rebuilt
 * from the key: -0 and NaN payloads survive). */
template <class T, class P>
__device__ __forceinline__ void sort_put(const P &p, const T *xrow, int64_t s, int64_t at, T *values,
                                         int64_t *indices)
{
    int64_t idx = sort_index(p);
    if (indices)
        indices[at] = idx;
    if (values)
        values[at] = xrow[idx * s];
}

/* ---------------------------------------------------------------- segments in shared memory
 * Rows of n are cut into nchunks segments of 2^lg_chunk (one segment per row when the row fits); a block
 * takes a tile of 2^lg_tile elements holding whole segments, padded with sentinels, and runs a bitonic
 * network per segment (the last stage always ascending, so every segment ends ascending). Sorted segments
 * go to scratch (row-major, rows of n), or, when a row is one segment, straight to the outputs. */
template <class T, class P>
__device__ void sort_block_body(const T *x, const wk_gpu_layout &lr, int64_t s, int64_t rows, int64_t n,
                                int64_t nchunks, int lg_chunk, int lg_tile, int desc, T *values, int64_t *indices,
                                P *scratch)
{
    extern __shared__ unsigned long long sort_smem[];
    P *sh = (P *)sort_smem;
    const int chunk = 1 << lg_chunk, tile = 1 << lg_tile;
    const int64_t per_tile = (int64_t)1 << (lg_tile - lg_chunk), segs = rows * nchunks;
    for (int64_t t = blockIdx.x; t * per_tile < segs; t += gridDim.x) {
        for (int q = threadIdx.x; q < tile; q += blockDim.x) {
            int64_t g = t * per_tile + (q >> lg_chunk);
            P p = sort_sentinel<P>();
            if (g < segs) {
                int64_t row = g / nchunks, col = (g - row * nchunks) * chunk + (q & (chunk - 1));
                if (col < n)
                    p = sort_make<P>(sort_key_dir(x + wk_offset(lr, row) + col * s, desc), col);
            }
            sh[q] = p;
        }
        __syncthreads();
        for (int k = 2; k <= chunk; k <<= 1)
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int q = threadIdx.x; q < tile / 2; q += blockDim.x) {
                    int i = 2 * q - (q & (j - 1));
                    P a = sh[i], b = sh[i + j];
                    bool up = k == chunk || (i & k) == 0;
                    if (up ? sort_less(b, a) : sort_less(a, b)) {
                        sh[i] = b;
                        sh[i + j] = a;
                    }
                }
                __syncthreads();
            }
        for (int q = threadIdx.x; q < tile; q += blockDim.x) {
            int64_t g = t * per_tile + (q >> lg_chunk);
            if (g >= segs)
                continue;
            int64_t row = g / nchunks, col = (g - row * nchunks) * chunk + (q & (chunk - 1));
            if (col >= n) /* the sentinels, sorted last */
                continue;
            if (scratch)
                scratch[row * n + col] = sh[q];
            else
                sort_put(sh[q], x + wk_offset(lr, row), s, row * n + col, values, indices);
        }
        __syncthreads(); /* sh is refilled for the next tile only after every thread has stored */
    }
}

/* ---------------------------------------------------------------- merge passes over long rows
 * Runs of w sorted pairs are merged in pairs into runs of 2w: a pair's place in the merged run is its
 * place in its own run plus the number of pairs before it in the partner run (pairs are unique, so one
 * binary search per pair decides it and no two pairs land on one place). */
template <class P> __device__ void sort_merge_body(const P *in, P *out, int64_t rows, int64_t n, int64_t w)
{
    WK_GRID_LOOP(e, rows * n)
    {
        int64_t row = e / n, p = e - row * n, run = p / w, start = run * w;
        const P *r = in + row * n;
        const P me = in[e];
        int64_t ps = (run & 1) ? start - w : start + w;
        int64_t len = (run & 1) ? w : (n - ps < w ? n - ps : w);
        int64_t lo = 0, hi = len > 0 ? len : 0;
        while (lo < hi) {
            int64_t mid = (lo + hi) >> 1;
            if (sort_less(r[ps + mid], me))
                lo = mid + 1;
            else
                hi = mid;
        }
        out[row * n + (run & ~(int64_t)1) * w + (p - start) + lo] = me;
    }
}

/* The outputs from fully merged rows. */
template <class T, class P>
__device__ void sort_emit_body(const P *pairs, const T *x, const wk_gpu_layout &lr, int64_t s, int64_t rows,
                               int64_t n, T *values, int64_t *indices)
{
    WK_GRID_LOOP(e, rows * n)
    {
        int64_t row = e / n;
        sort_put(pairs[e], x + wk_offset(lr, row), s, e, values, indices);
    }
}

/* ---------------------------------------------------------------- topk: radix selection
 * The k-th smallest of m unique (key, index) pairs, found a byte at a time: the key's bytes from the top (a
 * histogram of the pairs whose key matches the bytes found so far, scanned for the bin holding the k-th), then
 * the index's bytes among the pairs of that key. The k smallest are the pairs with key < K, or key == K and
 * index <= I. Needs blockDim.x >= 256 (a thread per bin). */
struct topk_state {
    unsigned int hist[256], scan[256];
    unsigned long long prefix, nan_at;
    long long kk;
    unsigned int cnt, eq; /* eq: the pairs in the bin found last */
};

/* After a histogram pass: the bin holding the kk-th, its byte added to prefix, kk made relative to it. */
__device__ void topk_pick_bin(topk_state &st, int shift)
{
    const int t = threadIdx.x;
    __syncthreads();
    if (t < 256)
        st.scan[t] = st.hist[t];
    __syncthreads();
    for (int off = 1; off < 256; off <<= 1) {
        unsigned int v = t < 256 && t >= off ? st.scan[t - off] : 0;
        __syncthreads();
        if (t < 256)
            st.scan[t] += v;
        __syncthreads();
    }
    long long kk = st.kk;
    __syncthreads();
    if (t < 256 && (long long)(st.scan[t] - st.hist[t]) < kk && kk <= (long long)st.scan[t]) {
        st.kk = kk - (long long)(st.scan[t] - st.hist[t]);
        st.prefix |= (unsigned long long)t << shift;
        st.eq = st.hist[t];
    }
    __syncthreads();
}

/* get(i, key, idx) for i < m; kbytes, ibytes: the bytes of keys and indices to examine. K, I: the k-th pair;
 * unless exact, I is ~0 when every pair of key K is among the k (the index passes are skipped). */
template <class G>
__device__ void topk_radix(const G &get, int64_t m, int64_t k, int kbytes, int ibytes, bool exact, topk_state &st,
                           unsigned long long &K, unsigned long long &I)
{
    if (threadIdx.x == 0) {
        st.prefix = 0;
        st.kk = k;
    }
    unsigned long long mask = 0, key_found = 0;
    for (int pass = 0; pass < kbytes + ibytes; pass++) {
        bool on_idx = pass >= kbytes;
        int shift = 8 * (on_idx ? kbytes + ibytes - 1 - pass : kbytes - 1 - pass);
        if (pass == kbytes) { /* the key is found: now the index among its pairs */
            key_found = st.prefix;
            if (!exact && (long long)st.eq == st.kk) {
                K = key_found;
                I = ~0ull;
                __syncthreads();
                return;
            }
            mask = 0;
            __syncthreads();
            if (threadIdx.x == 0)
                st.prefix = 0;
        }
        if (threadIdx.x < 256)
            st.hist[threadIdx.x] = 0;
        __syncthreads();
        unsigned long long prefix = st.prefix;
        for (int64_t i = threadIdx.x; i < m; i += blockDim.x) {
            unsigned long long key, idx;
            get(i, key, idx);
            unsigned long long v = on_idx ? idx : key;
            if ((on_idx && key != key_found) || (v & mask) != prefix)
                continue;
            atomicAdd(&st.hist[(v >> shift) & 255], 1u);
        }
        topk_pick_bin(st, shift);
        mask |= 0xffull << shift;
    }
    K = key_found;
    I = st.prefix;
    __syncthreads();
}

/* Bytes needed for values below bound (at least 1). */
__device__ __forceinline__ int topk_bytes(unsigned long long bound)
{
    int b = 1;
    while (b < 8 && (bound - 1) >> (8 * b))
        b++;
    return b;
}

/* The selected pairs (key < K, or key == K and index <= I) gathered in sel (st.cnt of them, unordered). */
template <class G>
__device__ void topk_gather(const G &get, int64_t m, unsigned long long K, unsigned long long I, topk_state &st,
                            sort_p64 *sel)
{
    if (threadIdx.x == 0)
        st.cnt = 0;
    __syncthreads();
    for (int64_t i = threadIdx.x; i < m; i += blockDim.x) {
        unsigned long long key, idx;
        get(i, key, idx);
        if (key < K || (key == K && idx <= I))
            sel[atomicAdd(&st.cnt, 1u)] = {key, idx};
    }
    __syncthreads();
}

/* sel's k pairs sorted (a bitonic network over the next power of two) and written as row's outputs. */
template <class T>
__device__ void topk_emit(sort_p64 *sel, int64_t k, const T *xrow, int64_t s, T *values, int64_t *indices)
{
    int size = 1;
    while (size < k)
        size <<= 1;
    for (int q = (int)k + threadIdx.x; q < size; q += blockDim.x)
        sel[q] = sort_sentinel<sort_p64>();
    __syncthreads();
    for (int kk = 2; kk <= size; kk <<= 1)
        for (int j = kk >> 1; j > 0; j >>= 1) {
            for (int q = threadIdx.x; q < size / 2; q += blockDim.x) {
                int i = 2 * q - (q & (j - 1));
                sort_p64 a = sel[i], b = sel[i + j];
                bool up = (i & kk) == 0;
                if (up ? sort_less(b, a) : sort_less(a, b)) {
                    sel[i] = b;
                    sel[i + j] = a;
                }
            }
            __syncthreads();
        }
    for (int q = threadIdx.x; q < k; q += blockDim.x)
        sort_put(sel[q], xrow, s, q, values, indices);
    __syncthreads();
}

/* chunk stage: block b takes chunk c of row r, its keys in shared memory; merge stage: block b takes row b's
 * candidates. */
template <class T> __device__ void topk_select_body(const wk_gpu_topk_args &p)
{
    typedef typename sort_kt<T>::type U;
    extern __shared__ unsigned long long topk_smem[];
    U *keys = (U *)topk_smem;
    __shared__ topk_state st;
    __shared__ sort_p64 sel[TOPK_MAX_K];
    const int desc = p.mode == TOPK_MODE_LARGEST, kb = (int)sizeof(U);
    const int64_t blocks = p.stage == TOPK_STAGE_CHUNK ? p.rows * p.nchunks : p.rows;
    for (int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
        int64_t row = p.stage == TOPK_STAGE_CHUNK ? b / p.nchunks : b, c = b - row * p.nchunks;
        const T *xrow = (const T *)p.x + wk_offset(p.lr, row);
        T *vrow = (T *)p.values + row * p.k;
        int64_t *irow = p.indices + row * p.k;
        unsigned long long K, I;
        if (p.stage == TOPK_STAGE_CHUNK) {
            int64_t c0 = c * TOPK_CHUNK, len = p.n - c0 < TOPK_CHUNK ? p.n - c0 : TOPK_CHUNK;
            int64_t kc = p.k < len ? p.k : len;
            for (int64_t i = threadIdx.x; i < len; i += blockDim.x)
                keys[i] = (U)sort_key_dir(xrow + (c0 + i) * p.s, desc);
            __syncthreads();
            auto get = [&](int64_t i, unsigned long long &key, unsigned long long &idx) {
                key = keys[i];
                idx = (unsigned long long)i;
            };
            topk_radix(get, len, kc, kb, topk_bytes((unsigned long long)len), false, st, K, I);
            topk_gather(get, len, K, I, st, sel);
            for (int q = threadIdx.x; q < kc; q += blockDim.x)
                sel[q].i += (unsigned long long)c0;
            __syncthreads();
            if (p.nchunks == 1) {
                topk_emit(sel, kc, xrow, p.s, vrow, irow);
                continue;
            }
            sort_p64 *cand = (sort_p64 *)p.cand + (row * p.nchunks + c) * p.k;
            for (int q = threadIdx.x; q < kc; q += blockDim.x)
                cand[q] = sel[q];
            __syncthreads();
            continue;
        }
        const sort_p64 *cand = (const sort_p64 *)p.cand + row * p.nchunks * p.k;
        int64_t last = p.n - (p.nchunks - 1) * TOPK_CHUNK;
        int64_t m = (p.nchunks - 1) * p.k + (p.k < last ? p.k : last);
        auto get = [&](int64_t i, unsigned long long &key, unsigned long long &idx) {
            sort_p64 q = cand[i];
            key = q.k;
            idx = q.i;
        };
        topk_radix(get, m, p.k, kb, topk_bytes((unsigned long long)p.n), false, st, K, I);
        topk_gather(get, m, K, I, st, sel);
        topk_emit(sel, p.k, xrow, p.s, vrow, irow);
    }
}

/* NaN tests of the values (never true for integers). */
template <class T> __device__ __forceinline__ bool topk_isnan(const T *) { return false; }
__device__ __forceinline__ bool topk_isnan(const float *p) { return *p != *p; }
__device__ __forceinline__ bool topk_isnan(const double *p) { return *p != *p; }
__device__ __forceinline__ bool topk_isnan(const wk_f16 *p) { return wk_ld(p) != wk_ld(p); }
__device__ __forceinline__ bool topk_isnan(const wk_bf16 *p) { return wk_ld(p) != wk_ld(p); }

/* kthvalue and median: a block per row, read from global memory. */
template <class T> __device__ void topk_kth_body(const wk_gpu_topk_args &p)
{
    typedef typename sort_kt<T>::type U;
    __shared__ topk_state st;
    for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
        const T *xrow = (const T *)p.x + wk_offset(p.lr, row);
        if (threadIdx.x == 0)
            st.nan_at = ~0ull;
        __syncthreads();
        if (p.mode == TOPK_MODE_MEDIAN)
            for (int64_t i = threadIdx.x; i < p.n; i += blockDim.x)
                if (topk_isnan(xrow + i * p.s))
                    atomicMin(&st.nan_at, (unsigned long long)i);
        __syncthreads();
        unsigned long long K = 0, I = st.nan_at;
        if (I == ~0ull) {
            auto get = [&](int64_t i, unsigned long long &key, unsigned long long &idx) {
                key = (U)sort_key_dir(xrow + i * p.s, 0);
                idx = (unsigned long long)i;
            };
            topk_radix(get, p.n, p.k, (int)sizeof(U), topk_bytes((unsigned long long)p.n), true, st, K, I);
        }
        if (threadIdx.x == 0) {
            p.indices[row] = (int64_t)I;
            ((T *)p.values)[row] = xrow[(int64_t)I * p.s];
        }
        __syncthreads();
    }
}

/* ---------------------------------------------------------------- entry points
 * TA: the dtype, TB: the pair type (sort.h). 64-bit keys do not fit a p32 pair: those entry points exist (the
 * axes are a product) but are never launched, and do nothing. */
template <class T, class P> constexpr bool sort_fits = sizeof(typename sort_kt<T>::type) < sizeof(P);

template <class T, class P, int> __device__ __forceinline__ void sort_block_run(const wk_gpu_sort_args &p)
{
    if constexpr (sort_fits<T, P>)
        sort_block_body((const T *)p.x, p.lr, p.s, p.rows, p.n, p.nchunks, p.lg_chunk, p.lg_tile, p.desc,
                        (T *)p.values, (int64_t *)p.indices, (P *)p.pairs_out);
}
template <class T, class P, int> __device__ __forceinline__ void sort_emit_run(const wk_gpu_sort_args &p)
{
    if constexpr (sort_fits<T, P>)
        sort_emit_body((const P *)p.pairs_in, (const T *)p.x, p.lr, p.s, p.rows, p.n, (T *)p.values,
                       (int64_t *)p.indices);
}
template <class P, class, int> __device__ __forceinline__ void sort_merge_run(const wk_gpu_sort_args &p)
{
    sort_merge_body((const P *)p.pairs_in, (P *)p.pairs_out, p.rows, p.n, p.w);
}

template <class T, class, int> __device__ __forceinline__ void topk_select_run(const wk_gpu_topk_args &p)
{
    topk_select_body<T>(p);
}
template <class T, class, int> __device__ __forceinline__ void topk_kth_run(const wk_gpu_topk_args &p)
{
    topk_kth_body<T>(p);
}

WK_SORT_KERNELS(WK_DEFINE_KERNELS)
