/* sort_radix.cu: the block radix sort (sort_radix.h): a row per block, its keys in registers and its (key, index)
 * pairs in shared memory between passes; 8-bit digits ranked warp by warp with ballots, placed by a scan of the
 * warps' digit counts. Each LSD pass keeps keys of one digit in slot order, so the sort is stable.
 * Warp width: LW, the logical warp (WIDTHS); the block is a multiple of 64 threads, so of every width. */
#include "common.cuh"
#include "sort_radix.h"
#include "sort_keys.cuh"

#define RX_ITEMS SORT_RADIX_ITEMS

/* Slots: lane l of warp w holds items i = 0 .. RX_ITEMS-1 at slot w * RX_ITEMS * LW + i * LW + l, so a warp's
 * items are a contiguous run of slots, item by item and lane by lane: ranking items in order and lanes in order
 * within an item ranks the warp's keys in slot order. A row's element j starts at slot j; slots from n on are
 * padding with the all-ones key, sorted after every element (equal keys keep slot order). */

/* The low half of pk[i] (its high half holds item i's index): the rank of item i among the warp's keys of its
 * digit (slot order), counted on in hist, the warp's 256 counters. The lanes of one digit find each other by
 * eight ballots; the lowest of them moves the counter. */
template <int LW, class U>
__device__ __forceinline__ void rx_rank(const U (&k)[RX_ITEMS], int shift, uint16_t *hist, uint32_t (&pk)[RX_ITEMS])
{
    typedef typename wk_lanemask<LW>::type M;
    const M below = ((M)1 << (threadIdx.x % LW)) - 1;
#pragma unroll
    for (int i = 0; i < RX_ITEMS; i++) {
        const uint32_t d = (uint32_t)(k[i] >> shift) & 255u;
        M peers = ~(M)0;
#pragma unroll
        for (int b = 0; b < 8; b++) {
            const bool bit = (d >> b) & 1u;
            const M v = wk_warp_ballot<LW>(bit);
            peers &= bit ? v : ~v;
        }
        const M lower = peers & below;
        const uint32_t old = hist[d];
        wk_warp_sync<LW>(); /* every peer has read the counter before it moves */
        if (lower == 0)
            hist[d] = (uint16_t)(old + (uint32_t)wk_popc(peers));
        wk_warp_sync<LW>();
        pk[i] = (pk[i] & 0xffff0000u) | (old + (uint32_t)wk_popc(lower));
    }
}

/* From the warps' counts (hist, [warps][256], zeroed here for the next pass): base[w][d], the slot of warp w's
 * first key of digit d (every key of a smaller digit, then those of digit d in earlier warps, come first).
 * Thread t < S = min(threads, 256) owns digits t * 256 / S onwards; their totals are scanned over the block (xor
 * steps in a warp, then the warps' sums). Every thread calls it; it ends with a barrier. */
template <int LW> __device__ __forceinline__ void rx_scan(uint16_t *hist, uint16_t *base, int warps)
{
    __shared__ uint32_t wsum[WK_MAX_BLOCK / LW];
    const int t = threadIdx.x, S = blockDim.x < 256 ? (int)blockDim.x : 256, dpt = 256 / S, lane = t % LW;
    uint32_t tot = 0;
    if (t < S)
        for (int d = t * dpt; d < t * dpt + dpt; d++)
            for (int w = 0; w < warps; w++)
                tot += hist[w * 256 + d];
    uint32_t incl = tot, sum = tot;
    for (int o = 1; o < LW; o <<= 1) {
        const uint32_t other = wk_lane_xor<LW>(sum, o);
        if (lane & o)
            incl += other;
        sum += other;
    }
    if (lane == 0)
        wsum[t / LW] = sum;
    __syncthreads();
    if (t < S) {
        uint32_t run = incl - tot;
        for (int w = 0; w < t / LW; w++)
            run += wsum[w];
        for (int d = t * dpt; d < t * dpt + dpt; d++)
            for (int w = 0; w < warps; w++) {
                const uint32_t c = hist[w * 256 + d];
                hist[w * 256 + d] = 0;
                base[w * 256 + d] = (uint16_t)run;
                run += c;
            }
    }
    __syncthreads();
}

/* One row per block (grid-stride over rows): load, a pass per key byte (rank, scan, scatter, reload), then the
 * outputs from the sorted indices (values read back from x: -0 and NaN payloads survive). */
template <class T, int LW> __device__ void sort_radix_body(const wk_gpu_sort_args &p)
{
    typedef typename radix_kt<T>::type U;
    constexpr int passes = radix_kt<T>::bits / 8;
    extern __shared__ unsigned long long rx_smem[];
    const int threads = (int)blockDim.x, slots = threads * RX_ITEMS, warps = threads / LW, n = (int)p.n;
    const int warp = (int)threadIdx.x / LW, first = warp * RX_ITEMS * LW + (int)threadIdx.x % LW;
    U *keys = (U *)rx_smem;
    uint16_t *idx = (uint16_t *)(keys + slots), *hist = idx + slots, *base = hist + warps * 256;
    for (int q = threadIdx.x; q < warps * 256; q += threads)
        hist[q] = 0;
    __syncthreads();
    for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
        const T *xrow = (const T *)p.x + wk_offset(p.lr, row);
        U k[RX_ITEMS];
        uint32_t pk[RX_ITEMS]; /* the item's index (high 16 bits) and rank in its warp (low 16 bits) */
#pragma unroll
        for (int i = 0; i < RX_ITEMS; i++) {
            const int j = first + i * LW;
            pk[i] = (uint32_t)j << 16;
            k[i] = ~(U)0;
            if (j < n) {
                const T v = wk_ldg(xrow + (int64_t)j * p.s);
                k[i] = radix_key_dir(&v, p.desc);
            }
        }
        for (int pass = 0; pass < passes; pass++) {
            const int shift = 8 * pass;
            const bool last = pass + 1 == passes;
            rx_rank<LW>(k, shift, hist + warp * 256, pk);
            __syncthreads();
            rx_scan<LW>(hist, base, warps);
#pragma unroll
            for (int i = 0; i < RX_ITEMS; i++) {
                const int dst = base[warp * 256 + ((uint32_t)(k[i] >> shift) & 255u)] + (int)(pk[i] & 0xffffu);
                if (!last)
                    keys[dst] = k[i];
                idx[dst] = (uint16_t)(pk[i] >> 16);
            }
            __syncthreads();
            if (!last) {
#pragma unroll
                for (int i = 0; i < RX_ITEMS; i++) {
                    k[i] = keys[first + i * LW];
                    pk[i] = (uint32_t)idx[first + i * LW] << 16;
                }
            }
        }
        for (int j = threadIdx.x; j < n; j += threads) {
            const int64_t id = idx[j], at = row * n + j;
            if (p.indices)
                ((int64_t *)p.indices)[at] = id;
            if (p.values)
                ((T *)p.values)[at] = xrow[id * p.s];
        }
    }
}

template <class T, class, int LW> __device__ __forceinline__ void sort_radix_run(const wk_gpu_sort_args &p)
{
    sort_radix_body<T, LW>(p);
}

WK_SORT_RADIX_KERNELS(WK_DEFINE_KERNELS)
