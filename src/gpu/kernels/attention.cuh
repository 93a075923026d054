/* attention.cuh: what the attention kernels (attention.cu, attention_mma.cu) share: a work item's rows, the keys a
 * query sees, and where a key lives in k or v (contiguous or paged). */
#ifndef WK_GPU_KERNELS_ATTENTION_CUH
#define WK_GPU_KERNELS_ATTENTION_CUH

#include "common.cuh"
#include "attention.h"

/* Records a bad length or block id: the first code wins and leaves its value. */
__device__ __forceinline__ void at_fault(int32_t *fault, int code, int64_t value)
{
    if (atomicCAS(fault, 0, code) == 0)
        reinterpret_cast<wk_gpu_fault_rec *>(fault)->value = value;
}

/* A length outside [0, capacity - snew] (attention: snew 0, capacity skv): attn_check's test, and the kernels' own
 * when they check (check_lens). */
__device__ __forceinline__ bool at_len_bad(const wk_gpu_attn_args &p, int64_t len)
{
    return len < 0 || len > p.capacity - p.snew;
}

/* A work item's rows: row r is query head h0 + r / nq, query i0 + r % nq, r < n; len: the batch's keys. */
struct at_item {
    int64_t b, kvh, h0, i0, nq, n, len;
};

/* item < 2^31 (the host checks): 32-bit divisions, a tenth of the instructions of 64-bit ones. */
__device__ inline at_item at_item_of(const wk_gpu_attn_args &p, int64_t item)
{
    at_item it;
    const int qtiles = (int)p.qtiles, hchunks = (int)p.hchunks, hkv = (int)p.hkv;
    int qt = (int)item % qtiles, rest = (int)item / qtiles;
    int hc = rest % hchunks;
    rest /= hchunks;
    it.kvh = rest % hkv;
    it.b = rest / hkv;
    it.h0 = it.kvh * p.group + hc * p.nh;
    it.i0 = qt * p.nq;
    int64_t heads = p.group - hc * p.nh < p.nh ? p.group - hc * p.nh : p.nh;
    it.nq = p.sq - it.i0 < p.nq ? p.sq - it.i0 : p.nq;
    it.n = heads * it.nq;
    int64_t len = p.lens ? (int64_t)p.lens[it.b * p.lens_s] : p.skv;
    if (p.check_lens && at_len_bad(p, len) && threadIdx.x == 0 && blockIdx.y == 0)
        at_fault(p.fault, p.code, len); /* else a bad length is attn_check's to report */
    if (p.kn) /* attention_kv: lens count the keys before the step's snew new ones */
        len += p.snew;
    it.len = len < 0 ? 0 : len > p.skv ? p.skv : len;
    return it;
}

/* The keys [lo, hi) query i sees (its position i + len - sq, the window, the length). */
__device__ __forceinline__ void at_window(const wk_gpu_attn_args &p, int64_t len, int64_t i, int64_t &lo, int64_t &hi)
{
    int64_t pos = i + len - p.sq;
    lo = p.window_left >= 0 ? pos - p.window_left : 0;
    hi = p.window_right >= 0 ? pos + p.window_right + 1 : len;
    lo = lo < 0 ? 0 : lo;
    hi = hi > len ? len : hi;
}

/* The keys [lo, hi) of the item: the union of its rows' windows (lo of the first query, hi of the last: both grow
 * with the query). */
__device__ __forceinline__ void at_item_keys(const wk_gpu_attn_args &p, const at_item &it, int64_t &lo, int64_t &hi)
{
    int64_t hi1, lo2;
    at_window(p, it.len, it.i0, lo, hi1);
    at_window(p, it.len, it.i0 + it.nq - 1, lo2, hi);
}

/* The keys [s0, s1) of split blockIdx.y: the item's keys (at_item_keys) cut into p.splits runs of whole tiles of tk
 * keys, so that a cache filled only in part (a short length) still spreads over every split. */
__device__ __forceinline__ void at_split(const wk_gpu_attn_args &p, const at_item &it, int64_t tk, int64_t &s0,
                                         int64_t &s1)
{
    int64_t lo, hi;
    at_item_keys(p, it, lo, hi);
    int64_t tiles = hi > lo ? (hi - lo + tk - 1) / tk : 0, run = (tiles + p.splits - 1) / p.splits * tk;
    s0 = lo + (int64_t)blockIdx.y * run;
    s1 = s0 + run < hi ? s0 + run : hi;
}

/* The splits at_split gives keys of the item to (the first ones; the rest saw none). */
__device__ __forceinline__ int at_splits_used(const wk_gpu_attn_args &p, const at_item &it, int64_t tk)
{
    int64_t lo, hi;
    at_item_keys(p, it, lo, hi);
    int64_t tiles = hi > lo ? (hi - lo + tk - 1) / tk : 0, run = (tiles + p.splits - 1) / p.splits;
    return run > 0 ? (int)((tiles + run - 1) / run) : 0;
}

/* The splits of one item that saw keys (at_splits_used, tiles of tk) merged into out and lse: each weighed by
 * exp(m_s - max m). One block does it after the item's other blocks are done, so it is kept to few trips to memory
 * and little code (a short loop: the merge runs once, and unrolled code would be fetched cold): each thread takes
 * VW columns of a row (VW = 4: one 16-byte load a split) and reads the value, m and l of AT_MERGE_U splits at once
 * (loads that depend on nothing, from L2: wk_ld_l2, never a stale L1 line; a row's m and l are read by each of its
 * threads, which costs L2 hits, not trips), merging batch by batch as the attention kernels merge tiles. */
#define AT_MERGE_U 8
template <class T, int VW>
__device__ __forceinline__ void at_merge_cols(const wk_gpu_attn_args &p, const at_item &it, const float *part, int splits)
{
    const int dv = (int)p.dv, w = AT_PART_W(dv), step = AT_ROWS * w, nq = (int)it.nq, cols = dv / VW;
    for (int e = (int)threadIdx.x; e < (int)it.n * cols; e += (int)blockDim.x) {
        int r = e / cols, c = (e - r * cols) * VW;
        const float *row = part + r * w;
        float m = -INFINITY, l = 0.0f, acc[VW];
        for (int k = 0; k < VW; k++)
            acc[k] = 0.0f;
        for (int s0 = 0; s0 < splits; s0 += AT_MERGE_U) {
            float ms[AT_MERGE_U], ls[AT_MERGE_U], a[AT_MERGE_U][4];
#pragma unroll
            for (int u = 0; u < AT_MERGE_U; u++) {
                const float *sp = row + (s0 + u < splits ? s0 + u : s0) * step; /* past the last: unused */
                ms[u] = s0 + u < splits ? wk_ld_l2(sp + dv) : -INFINITY;
                ls[u] = wk_ld_l2(sp + dv + 1);
                if (VW == 4)
                    wk_ld_l2_v4(sp + c, a[u]);
                else
                    a[u][0] = wk_ld_l2(sp + c);
            }
            float mb = m;
#pragma unroll
            for (int u = 0; u < AT_MERGE_U; u++)
                mb = fmaxf(mb, ms[u]);
            if (mb == -INFINITY)
                continue;
            const float f = m == -INFINITY ? 0.0f : expf(m - mb); /* the batches before, rescaled */
            l *= f;
            for (int k = 0; k < VW; k++)
                acc[k] *= f;
#pragma unroll
            for (int u = 0; u < AT_MERGE_U; u++) {
                const float wt = ms[u] == -INFINITY ? 0.0f : expf(ms[u] - mb);
                l = fmaf(ls[u], wt, l);
                for (int k = 0; k < VW; k++)
                    acc[k] = fmaf(a[u][k], wt, acc[k]);
            }
            m = mb;
        }
        int64_t orow = (it.b * p.hq + it.h0 + r / nq) * p.sq + it.i0 + r % nq;
        for (int k = 0; k < VW; k++)
            wk_st((T *)p.out + orow * p.dv + c + k, acc[k] * (l > 0 ? 1.0f / l : 0.0f));
        if (p.lse && c == 0)
            p.lse[orow] = l > 0 ? m + logf(l) : -INFINITY;
    }
}

template <class T>
__device__ __forceinline__ void at_merge(const wk_gpu_attn_args &p, const at_item &it, int64_t item, int64_t tk)
{
    const float *part = p.part + item * p.splits * AT_ROWS * AT_PART_W(p.dv);
    const int splits = at_splits_used(p, it, tk);
    if (p.dv % 4 == 0)
        at_merge_cols<T, 4>(p, it, part, splits);
    else
        at_merge_cols<T, 1>(p, it, part, splits);
}

/* After a split's partial rows are written: the item's block that finishes last (a ticket per item in p.count, of
 * `blocks` that take one) merges all of them; the others return. */
template <class T>
__device__ __forceinline__ void at_merge_last(const wk_gpu_attn_args &p, const at_item &it, int64_t item, int64_t tk,
                                              int blocks)
{
    __shared__ int last;
    __syncthreads(); /* the block's partial rows are written */
    if (threadIdx.x == 0) { /* one thread's fences order the block's writes (the pattern of a grid barrier) */
        wk_fence_gpu(); /* the rows are visible before the ticket is */
        last = atomicAdd(p.count + item, 1) == blocks - 1;
        if (last)
            wk_fence_gpu(); /* the other blocks' rows are read after their tickets */
    }
    __syncthreads();
    if (last)
        at_merge<T>(p, it, item, tk);
}

/* Element offset of key position pos of (b, kvh) in k or v (strides st), or -1 where its block id is bad. */
__device__ __forceinline__ int64_t at_kv_off(const wk_gpu_attn_args &p, const int64_t *st, int64_t b, int64_t kvh,
                                             int64_t pos)
{
    if (p.block_size > 0) {
        int64_t blk = pos / p.block_size;
        int64_t id = p.table[b * p.table_s[0] + blk * p.table_s[1]];
        if (id < 0 || id >= p.num_blocks)
            return -1;
        return id * st[0] + kvh * st[1] + (pos - blk * p.block_size) * st[2];
    }
    return b * st[0] + kvh * st[1] + pos * st[2];
}

#endif
