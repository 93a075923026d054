/* reorder.cu: kernels of the reorder family: gathers through one index map per dim (pad, flip, roll, repeat,
 * repeat_interleave; the maps are core/numerics.h's, shared with the CPU) and one_hot. One kernel per element size
 * serves every dtype: the gathers move bits. Warp width (wave64, wave32): the rows kernel's groups of
 * REORDER_GROUP threads only share a work item, never exchange values, so no kernel depends on the width. */
#include "common.cuh"
#include "reorder.h"

/* A map with the dividing kinds (TILE, SPREAD) in 32-bit arithmetic where every index fits. */
__device__ __forceinline__ int64_t rr_src(int kind, int64_t o, int64_t n, int64_t a, bool small)
{
    if (small && kind == WK_REORDER_TILE)
        return (int64_t)((uint32_t)o % (uint32_t)n);
    if (small && kind == WK_REORDER_SPREAD)
        return (int64_t)((uint32_t)o / (uint32_t)a);
    return wk_reorder_src(kind, o, n, a);
}

/* x's offset of the first element of output row r (its coordinates in the dims before the last), or -1 where
 * a dim's map reads the pad value. */
__device__ __forceinline__ int64_t rr_row(const wk_gpu_reorder_args &p, int64_t r)
{
    int64_t off = 0;
#pragma unroll 1
    for (int d = p.rank - 2; d >= 0; d--) {
        int64_t s = p.os[d], q = d == 0 ? 0 : p.small ? (int64_t)((uint32_t)r / (uint32_t)s) : r / s;
        int64_t i = rr_src(p.kind[d], r - q * s, p.n[d], p.a[d], p.small);
        if (i < 0)
            return -1;
        off += i * p.xs[d];
        r = q;
    }
    return off;
}

/* o[0, len) = the row's elements c0 .. c0 + len - 1 through the last dim's map K (a constant: the map's switch
 * folds away); lane's elements lane + REORDER_GROUP * k, REORDER_UNROLL loads issued before their stores. */
template <class T, int K>
__device__ __forceinline__ void rr_span(T *o, const T *x, int64_t c0, int64_t len, const wk_gpu_reorder_args &p, T v,
                                        int lane)
{
    const int L = p.rank - 1;
    const int64_t n = p.n[L], a = p.a[L], xs = p.xs[L];
    const bool small = p.small;
    for (int64_t c = lane; c < len; c += REORDER_GROUP * REORDER_UNROLL) {
        T val[REORDER_UNROLL];
#pragma unroll
        for (int u = 0; u < REORDER_UNROLL; u++) {
            int64_t cc = c + u * REORDER_GROUP;
            if (cc < len) {
                int64_t i = rr_src(K, c0 + cc, n, a, small);
                val[u] = i < 0 ? v : wk_ldg(x + i * xs);
            }
        }
#pragma unroll
        for (int u = 0; u < REORDER_UNROLL; u++)
            if (c + u * REORDER_GROUP < len)
                o[c + u * REORDER_GROUP] = val[u];
    }
}

/* o[0, len) = x[0, len): 16-byte accesses when both reach a 16-byte boundary at the same element, else the
 * element-wise span. */
template <class T>
__device__ __forceinline__ void rr_copy(T *o, const T *x, int64_t len, const wk_gpu_reorder_args &p, T v, int lane)
{
    const int64_t V = 16 / sizeof(T);
    int64_t head = (int64_t)(((16u - ((uintptr_t)o & 15u)) & 15u) / sizeof(T));
    head = head < len ? head : len;
    if (((uintptr_t)(x + head) & 15u) != 0 || len - head < V) {
        rr_span<T, WK_REORDER_SAME>(o, x, 0, len, p, v, lane);
        return;
    }
    int64_t nv = (len - head) / V, tail = head + nv * V;
    const wk_w16 *sv = reinterpret_cast<const wk_w16 *>(x + head);
    wk_w16 *dv = reinterpret_cast<wk_w16 *>(o + head);
    for (int64_t k = lane; k < nv; k += REORDER_GROUP * REORDER_UNROLL) {
        wk_w16 w[REORDER_UNROLL];
#pragma unroll
        for (int u = 0; u < REORDER_UNROLL; u++)
            if (k + u * REORDER_GROUP < nv)
                w[u] = wk_ldg(sv + k + u * REORDER_GROUP);
#pragma unroll
        for (int u = 0; u < REORDER_UNROLL; u++)
            if (k + u * REORDER_GROUP < nv)
                dv[k + u * REORDER_GROUP] = w[u];
    }
    for (int64_t k = lane; k < head + (len - tail); k += REORDER_GROUP) {
        int64_t i = k < head ? k : tail + (k - head);
        o[i] = x[i];
    }
}

/* One chunk of one output row through the last dim's map K: x's row at xr (unused when outside: every element is
 * the value). */
template <class T, int K>
__device__ __forceinline__ void rr_chunk(T *o, const T *xr, int64_t c0, int64_t len, bool outside,
                                         const wk_gpu_reorder_args &p, T v, int lane)
{
    if (outside) {
        for (int64_t k = lane; k < len; k += REORDER_GROUP)
            o[k] = v;
    } else if (K == WK_REORDER_SAME && p.xs[p.rank - 1] == 1) {
        rr_copy(o, xr + c0, len, p, v, lane);
    } else {
        rr_span<T, K>(o, xr, c0, len, p, v, lane);
    }
}

/* The items of the REORDER_KIND axis (reorder.h): the last dim's map as a type. */
template <int K> struct rr_kind { static constexpr int value = K; };
typedef rr_kind<WK_REORDER_SAME> rr_same;
typedef rr_kind<WK_REORDER_FLIP> rr_flip;
typedef rr_kind<WK_REORDER_WRAP> rr_wrap;
typedef rr_kind<WK_REORDER_TILE> rr_tile;
typedef rr_kind<WK_REORDER_SPREAD> rr_spread;
typedef rr_kind<WK_REORDER_CONSTANT> rr_constant;
typedef rr_kind<WK_REORDER_REFLECT> rr_reflect;
typedef rr_kind<WK_REORDER_REPLICATE> rr_replicate;

/* ---- rows: a work item is a chunk of REORDER_CHUNK elements of an output row, one group of threads each */
template <class T, class KT, int> __device__ void reorder_rows_run(const wk_gpu_reorder_args &p)
{
    const int lane = (int)(threadIdx.x % REORDER_GROUP), per_block = (int)(blockDim.x / REORDER_GROUP);
    const int64_t groups = (int64_t)gridDim.x * per_block;
    const T v = (T)p.bits;
    T *out = (T *)p.out;
    const T *x = (const T *)p.x;
    for (int64_t w = (int64_t)blockIdx.x * per_block + threadIdx.x / REORDER_GROUP; w < p.items; w += groups) {
        int64_t r = p.per_row == 1 ? w : w / p.per_row, c0 = (w - r * p.per_row) * REORDER_CHUNK;
        int64_t len = p.cols - c0 < REORDER_CHUNK ? p.cols - c0 : REORDER_CHUNK;
        int64_t off = rr_row(p, r);
        rr_chunk<T, KT::value>(out + r * p.cols + c0, x + (off < 0 ? 0 : off), c0, len, off < 0, p, v, lane);
    }
}

/* ---- elements: each output element's coordinates on their own (rows shorter than a group) */
template <class T, class, int> __device__ void reorder_elems_run(const wk_gpu_reorder_args &p)
{
    const T v = (T)p.bits;
    WK_GRID_LOOP(e, p.numel)
    {
        int64_t r = e, off = 0;
        bool outside = false;
#pragma unroll 1
        for (int d = p.rank - 1; d >= 0; d--) {
            int64_t s = p.os[d], q = d == 0 ? 0 : p.small ? (int64_t)((uint32_t)r / (uint32_t)s) : r / s;
            int64_t i = rr_src(p.kind[d], r - q * s, p.n[d], p.a[d], p.small);
            outside = outside || i < 0;
            off += i * p.xs[d];
            r = q;
        }
        ((T *)p.out)[e] = outside ? v : wk_ldg((const T *)p.x + off);
    }
}

/* ---- one_hot: out[row, c] = ids[row] == c; an id outside [0, classes) claims the fault record (layout.h) once
 * per row, and its row compares equal nowhere. */
template <class I, class, int> __device__ void reorder_one_hot_run(const wk_gpu_reorder_args &p)
{
    const I *ids = (const I *)p.ids;
    const int64_t C = p.classes;
    WK_GRID_LOOP(e, p.numel)
    {
        int64_t row = p.small ? (int64_t)((uint32_t)e / (uint32_t)C) : e / C, c = e - row * C;
        int64_t id = (int64_t)wk_ldg(ids + (p.small ? wk_offset32(p.li, (uint32_t)row) : wk_offset(p.li, row)));
        if ((uint64_t)id >= (uint64_t)C && c == 0 && atomicCAS(p.fault, 0, WK_GPU_FAULT_ONE_HOT) == 0)
            reinterpret_cast<wk_gpu_fault_rec *>(p.fault)->value = id;
        ((int64_t *)p.out)[e] = id == c;
    }
}

WK_REORDER_KERNELS(WK_DEFINE_KERNELS)
