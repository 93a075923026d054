/* sort.cu: kernels of the stable sort along the last dim: rows (or chunks of long rows) sorted in shared
 * memory by a bitonic network, merge passes joining the chunks of long rows, and the output pass.
 * Warp width (wave64, wave32): the network has a barrier after every compare-exchange step, and the merge and
 * output passes take a thread per element with no step between lanes, so nothing here depends on the width. */
#include "common.cuh"
#include "sort.h"

/* ---------------------------------------------------------------- keys
 * Each value maps to an unsigned integer whose order is the sort order: ints with the sign bit flipped,
 * floats by their bits (negatives inverted), -0 as +0 (equal, as the CPU compares them), every NaN to the
 * largest key (after every number, NaNs equal). Descending inverts the key: NaN first, numbers reversed.
 * Pairs (key, original index) are then unique, so any correct sort of them is the stable sort, in both
 * directions. */
template <class T> struct sort_kt { typedef uint32_t type; };
template <> struct sort_kt<int64_t> { typedef uint64_t type; };
template <> struct sort_kt<double> { typedef uint64_t type; };

__device__ __forceinline__ uint32_t sort_key_f32(float f)
{
    if (f != f)
        return 0xffffffffu;
    if (f == 0.0f)
        f = 0.0f;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u >> 31) ? ~u : (u | 0x80000000u);
}

__device__ __forceinline__ uint32_t sort_key(const uint8_t *p) { return *p; }
__device__ __forceinline__ uint32_t sort_key(const uint32_t *p) { return *p; }
__device__ __forceinline__ uint32_t sort_key(const int32_t *p) { return (uint32_t)*p ^ 0x80000000u; }
__device__ __forceinline__ uint64_t sort_key(const int64_t *p) { return (uint64_t)*p ^ 0x8000000000000000ull; }
__device__ __forceinline__ uint32_t sort_key(const wk_f16 *p) { return sort_key_f32(wk_ld(p)); }
__device__ __forceinline__ uint32_t sort_key(const wk_bf16 *p) { return sort_key_f32(wk_ld(p)); }
__device__ __forceinline__ uint32_t sort_key(const float *p) { return sort_key_f32(*p); }
__device__ __forceinline__ uint64_t sort_key(const double *p)
{
    double f = *p;
    if (f != f)
        return 0xffffffffffffffffull;
    if (f == 0.0)
        f = 0.0;
    uint64_t u;
    memcpy(&u, &f, 8);
    return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

template <class T> __device__ __forceinline__ uint64_t sort_key_dir(const T *p, int desc)
{
    typename sort_kt<T>::type k = sort_key(p);
    return desc ? (typename sort_kt<T>::type)~k : k;
}

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

WK_SORT_KERNELS(WK_DEFINE_KERNELS)
