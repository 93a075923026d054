/* attention_mma.cu: the fused attention on tensor cores (FlashAttention-2's scheme) for f16/bf16 with D == Dv of
 * 64 or 128. A warp holds 16 query rows: their Q fragments stay in registers for the whole loop, S = Q K^T and
 * O += P V are m16n8k16 products (compat.h, wk_tc_*), the online softmax runs on S's f32 fragments (a row's four
 * lanes combine by xor shuffles), and P goes back into A fragments in registers. K and V tiles of AM_TK keys
 * are copied to shared memory asynchronously: in prefill the next key tile while P V runs, the value tile while
 * S does; in decode both tiles of the next step together.
 * Rows, windows, lengths and paged blocks follow attn_fwd's rules (attention.cuh); keys past the item's range
 * (the length, the split) are never read, and their tile rows hold zeros.
 * Warp width: 32-lane groups throughout (fragments are PTX's; an AMD wave64 is two of them). */
#include "common.cuh"
#include "attention_mma.h"
#include "attention.cuh"

template <int N> struct am_dim {
    static constexpr int D = N;
};
template <class T> struct am_bf {
    static constexpr int v = 0;
};
template <> struct am_bf<wk_bf16> {
    static constexpr int v = 1;
};

#define AM_PAD 8 /* a tile row holds D + 8 values: ldmatrix's 8 rows of 16 bytes then fall in distinct banks */
#define AM_LOG2E 1.4426950408889634f
#define AM_LN2 0.6931471805599453f

/* Shared memory: the key and value tiles; decode reuses it at the end for the warps' states (16 rows each). */
template <int D> struct alignas(16) am_tiles {
    uint16_t k[AM_TK][D + AM_PAD], v[AM_TK][D + AM_PAD];
};
template <int D> struct am_red {
    float o[AM_WARPS][AT_ROWS][D];
    float m[AM_WARPS][AT_ROWS], l[AM_WARPS][AT_ROWS];
};
template <int D> union am_smem {
    am_tiles<D> t;
    am_red<D> r;
};
static_assert(sizeof(am_smem<128>) <= 48 * 1024, "under the default shared-memory limit of a block");
static_assert(AM_THREADS == AT_THREADS && AT_ROWS == 16, "decode's rows and threads are attn_fwd's (the merge)");

/* A thread's rows g and g + 8 of its warp's 16 (lane = 4 g + t): Q fragments (k-steps of 16 dims), the output
 * fragments (n-tiles of 8 dims), the running max (log2 units: scores times scale * log2 e) and this thread's
 * part of the row sum, and the keys each row sees. */
template <int D> struct am_state {
    uint32_t q[D / 16][4];
    float o[D / 8][4];
    float m[2], l[2];
    int64_t lo[2], hi[2];
};

/* The warp's first row in the item: its own 16 (prefill) or the item's 16, shared by the warps (decode). */
template <bool DEC> __device__ __forceinline__ int am_row0(void) { return DEC ? 0 : 16 * (int)(threadIdx.x / 32); }

/* Q fragments of the thread's rows straight from global memory (pairs of values: 4-byte loads), and the rows'
 * key ranges; rows past the item's n are zero and see nothing. */
template <int D, bool DEC>
__device__ __forceinline__ void am_init(const wk_gpu_attn_args &p, const at_item &it, am_state<D> &st)
{
    int lane = (int)(threadIdx.x & 31u), g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        int r = am_row0<DEC>() + g + 8 * h;
        bool ok = r < it.n;
        const uint16_t *row = (const uint16_t *)p.q;
        st.lo[h] = st.hi[h] = 0;
        if (ok) {
            int64_t i = it.i0 + r % it.nq;
            row += it.b * p.qs[0] + (it.h0 + r / it.nq) * p.qs[1] + i * p.qs[2];
            at_window(p, it.len, i, st.lo[h], st.hi[h]);
        }
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++)
#pragma unroll
            for (int c = 0; c < 2; c++)
                st.q[kk][h + 2 * c] = ok ? wk_ldg((const uint32_t *)(row + 16 * kk + 8 * c + 2 * t)) : 0u;
        st.m[h] = -INFINITY;
        st.l[h] = 0.0f;
    }
#pragma unroll
    for (int nd = 0; nd < D / 8; nd++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            st.o[nd][c] = 0.0f;
}

/* Keys [j0, j0 + AM_TK) of k or v into buf by 16-byte asynchronous copies; a key at or past hi (or in a bad
 * block) is zeros. The caller commits the group. */
template <int D, bool V, int TK = AM_TK>
__device__ __forceinline__ void am_load_tile(const wk_gpu_attn_args &p, const at_item &it, int64_t j0, int64_t hi,
                                             uint16_t (*buf)[D + AM_PAD])
{
    constexpr int CH = D / 8; /* 16-byte chunks a row: a thread copies chunk ch of rows c0, c0 + RS, ... */
    constexpr int RS = AM_THREADS / CH;
    const uint16_t *x = (const uint16_t *)(V ? p.v : p.k);
    const int64_t *st = V ? p.vs : p.ks;
    const int c0 = (int)threadIdx.x / CH, ch = (int)threadIdx.x % CH;
    const int64_t base = it.b * st[0] + it.kvh * st[1];
#pragma unroll
    for (int i = 0; i < TK / RS; i++) {
        int c = c0 + i * RS;
        int64_t j = j0 + c, off = -1;
        if (j < hi)
            off = p.block_size > 0 ? at_kv_off(p, st, it.b, it.kvh, j) : base + j * st[2];
        if (off >= 0)
            wk_tc_async16(&buf[c][8 * ch], x + off + 8 * ch);
        else
            *(wk_w16 *)&buf[c][8 * ch] = wk_w16{};
    }
}

/* S (the warp's 16 rows x its NT * 8 keys of the tile: all 64 in prefill, 16 from 16 * warp in decode) = Q K^T. */
template <int D, bool DEC, int BF, int NT>
__device__ __forceinline__ void am_scores(const am_state<D> &st, const uint16_t (*kt)[D + AM_PAD], float s[NT][4])
{
    int lane = (int)(threadIdx.x & 31u), i = lane >> 3, kb = DEC ? 16 * (int)(threadIdx.x / 32) : 0;
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            s[nt][c] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++)
#pragma unroll
        for (int np = 0; np < NT / 2; np++) {
            uint32_t b[4];
            wk_tc_ldsm(b, &kt[kb + 16 * np + (i >> 1) * 8 + (lane & 7)][16 * kk + (i & 1) * 8]);
            wk_tc_mma<BF>(s[2 * np], st.q[kk], b);
            wk_tc_mma<BF>(s[2 * np + 1], st.q[kk], b + 2);
        }
}

/* Scores to log2 units; -inf where the row does not see the key or the key is at or past hi (tiles wholly
 * inside every row's window skip the test). */
template <int D, bool DEC, int NT>
__device__ __forceinline__ void am_mask(const am_state<D> &st, float s[NT][4], float sl2, int64_t j0, int64_t hi,
                                        bool full)
{
    int lane = (int)(threadIdx.x & 31u), kb = DEC ? 16 * (int)(threadIdx.x / 32) : 0;
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
#pragma unroll
        for (int c = 0; c < 4; c++) {
            int h = c >> 1;
            int64_t j = j0 + kb + 8 * nt + 2 * (lane & 3) + (c & 1);
            bool seen = full || (j >= st.lo[h] && j < st.hi[h] && j < hi);
            s[nt][c] = seen ? s[nt][c] * sl2 : -INFINITY;
        }
}

/* The online-softmax step on the thread's two rows: new max (NaN scores never win it, as in attn_fwd), weights
 * exp2(s - max) (a dropped key weighs exactly 0), the sum and O rescaled; the weights become P's A fragments. */
template <int D, int BF, int NT, bool SKIP = false>
__device__ __forceinline__ void am_softmax(float s[NT][4], am_state<D> &st, uint32_t pa[NT / 2][4])
{
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float mx = -INFINITY;
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
            mx = fmaxf(mx, fmaxf(s[nt][2 * h], s[nt][2 * h + 1]));
        mx = fmaxf(mx, wk_shfl_xor(mx, 1));
        mx = fmaxf(mx, wk_shfl_xor(mx, 2));
        float mn = fmaxf(st.m[h], mx), base = mn == -INFINITY ? 0.0f : mn;
        float corr = exp2f(st.m[h] - base), sum = 0.0f;
        st.m[h] = mn;
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int c = 2 * h; c < 2 * h + 2; c++) {
                s[nt][c] = exp2f(s[nt][c] - base);
                sum += s[nt][c];
            }
        st.l[h] = st.l[h] * corr + sum;
        if (!SKIP || corr != 1.0f) /* SKIP: the warp skips the rescale when no row's max moved (most tiles) */
#pragma unroll
            for (int nd = 0; nd < D / 8; nd++) {
                st.o[nd][2 * h] *= corr;
                st.o[nd][2 * h + 1] *= corr;
            }
    }
#pragma unroll
    for (int ks = 0; ks < NT / 2; ks++) {
        pa[ks][0] = wk_tc_pack<BF>(s[2 * ks][0], s[2 * ks][1]);
        pa[ks][1] = wk_tc_pack<BF>(s[2 * ks][2], s[2 * ks][3]);
        pa[ks][2] = wk_tc_pack<BF>(s[2 * ks + 1][0], s[2 * ks + 1][1]);
        pa[ks][3] = wk_tc_pack<BF>(s[2 * ks + 1][2], s[2 * ks + 1][3]);
    }
}

/* O += P V over the warp's keys of the tile (value tile read transposed by ldmatrix). */
template <int D, bool DEC, int BF, int NT>
__device__ __forceinline__ void am_pv(const uint32_t pa[NT / 2][4], const uint16_t (*vt)[D + AM_PAD], am_state<D> &st)
{
    int lane = (int)(threadIdx.x & 31u), i = lane >> 3, kb = DEC ? 16 * (int)(threadIdx.x / 32) : 0;
#pragma unroll
    for (int ks = 0; ks < NT / 2; ks++)
#pragma unroll
        for (int np = 0; np < D / 16; np++) {
            uint32_t b[4];
            wk_tc_ldsm_t(b, &vt[kb + 16 * ks + (i & 1) * 8 + (lane & 7)][16 * np + (i >> 1) * 8]);
            wk_tc_mma<BF>(st.o[2 * np], pa[ks], b);
            wk_tc_mma<BF>(st.o[2 * np + 1], pa[ks], b + 2);
        }
}

/* Prefill's result: the thread's rows of out = O / l and lse = m + log(l) (0 and -inf for a row that saw no
 * key), stored by pairs. */
template <class T, int D>
__device__ __forceinline__ void am_finish(const wk_gpu_attn_args &p, const at_item &it, am_state<D> &st)
{
    constexpr int BF = am_bf<T>::v;
    int lane = (int)(threadIdx.x & 31u), g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float l = st.l[h];
        l += wk_shfl_xor(l, 1);
        l += wk_shfl_xor(l, 2);
        int r = am_row0<false>() + g + 8 * h;
        if (r >= it.n)
            continue;
        int64_t row = (it.b * p.hq + it.h0 + r / it.nq) * p.sq + it.i0 + r % it.nq;
        float inv = l > 0 ? 1.0f / l : 0.0f;
        uint32_t *o = (uint32_t *)((T *)p.out + row * p.dv);
#pragma unroll
        for (int nd = 0; nd < D / 8; nd++) /* a row that saw no key is 0 even where a value it skipped is NaN */
            o[4 * nd + t] = l > 0 ? wk_tc_pack<BF>(st.o[nd][2 * h] * inv, st.o[nd][2 * h + 1] * inv) : 0u;
        if (p.lse && t == 0)
            p.lse[row] = l > 0 ? st.m[h] * AM_LN2 + logf(l) : -INFINITY;
    }
}

/* Decode's result: the four warps' states of the item's rows (each over its own keys) merged through shared
 * memory, then out and lse (one split with keys: `used`) or the split's partial rows for at_merge_last (acc, m, l
 * as attn_fwd writes them). */
template <class T, int D>
__device__ __forceinline__ void am_finish_dec(const wk_gpu_attn_args &p, const at_item &it, int64_t item,
                                              am_state<D> &st, am_red<D> &red, int used)
{
    int w = (int)(threadIdx.x / 32), lane = (int)(threadIdx.x & 31u), g = lane >> 2, t = lane & 3;
    __syncthreads(); /* the tiles are no longer read */
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float l = st.l[h];
        l += wk_shfl_xor(l, 1);
        l += wk_shfl_xor(l, 2);
        if (t == 0) {
            red.m[w][g + 8 * h] = st.m[h];
            red.l[w][g + 8 * h] = l;
        }
#pragma unroll
        for (int nd = 0; nd < D / 8; nd++) {
            red.o[w][g + 8 * h][8 * nd + 2 * t] = st.o[nd][2 * h];
            red.o[w][g + 8 * h][8 * nd + 2 * t + 1] = st.o[nd][2 * h + 1];
        }
    }
    __syncthreads();
    for (int e = (int)threadIdx.x; e < it.n * D; e += AM_THREADS) {
        int r = e / D, c = e % D;
        float m = -INFINITY, l = 0.0f, acc = 0.0f;
#pragma unroll
        for (int k = 0; k < AM_WARPS; k++)
            m = fmaxf(m, red.m[k][r]);
        float base = m == -INFINITY ? 0.0f : m;
#pragma unroll
        for (int k = 0; k < AM_WARPS; k++) {
            float f = exp2f(red.m[k][r] - base);
            l += red.l[k][r] * f;
            acc += red.o[k][r][c] * f;
        }
        if (used > 1) {
            float *part = p.part + ((item * p.splits + blockIdx.y) * AT_ROWS + r) * AT_PART_W(p.dv);
            part[c] = acc;
            if (c == 0) {
                part[D] = m * AM_LN2;
                part[D + 1] = l;
            }
            continue;
        }
        int64_t row = (it.b * p.hq + it.h0 + r / it.nq) * p.sq + it.i0 + r % it.nq;
        wk_st((T *)p.out + row * p.dv + c, l > 0 ? acc * (1.0f / l) : 0.0f);
        if (p.lse && c == 0)
            p.lse[row] = l > 0 ? m * AM_LN2 + logf(l) : -INFINITY;
    }
}

/* attention_kv: whether this block writes the new rows into the caches: the item of its key head that holds the first
 * query chunk (the host fuses only calls of one query tile an item, whose keys then hold every new row; the splits
 * part them: one writer for each), every length of the batch good and no fault recorded before (as attn_append:
 * nothing is written once one is). Every thread of the block calls it. */
__device__ __forceinline__ bool am_writer(const wk_gpu_attn_args &p, const at_item &it)
{
    int bad = *(volatile const int32_t *)p.fault != 0;
    for (int64_t b = threadIdx.x; b < p.B; b += blockDim.x)
        bad |= at_len_bad(p, p.lens[b * p.lens_s]);
    bad = __syncthreads_or(bad);
    return !bad && it.h0 == it.kvh * p.group;
}

/* attention_kv: the new rows among the tile's keys [j0, min(j0 + AM_TK, end)) (positions len - snew .. len - 1) copied
 * from k_new, v_new over the rows the tile read from the caches, and into the caches where this block writes them;
 * then a barrier. Block-uniform. */
template <int D>
__device__ __forceinline__ void am_new_rows(const wk_gpu_attn_args &p, const at_item &it, int64_t j0, int64_t end,
                                            am_tiles<D> &t, bool write)
{
    const int64_t first = it.len - p.snew, e = end < j0 + AM_TK ? end : j0 + AM_TK;
    const int64_t a = first > j0 ? first : j0;
    if (a >= e)
        return;
    const int n = (int)(e - a);
    for (int i = (int)threadIdx.x; i < 2 * n * D; i += AM_THREADS) {
        const bool isv = i >= n * D;
        const int r = (isv ? i - n * D : i) / D, c = (isv ? i - n * D : i) % D;
        const int64_t pos = a + r, tt = pos - first, *ns = isv ? p.vns : p.kns, *cs = isv ? p.vcs : p.kcs;
        const uint16_t v = ((const uint16_t *)(isv ? p.vn : p.kn))[it.b * ns[0] + it.kvh * ns[1] + tt * ns[2] +
                                                                   c * ns[3]];
        (isv ? t.v : t.k)[pos - j0][c] = v;
        if (write)
            ((uint16_t *)(isv ? p.vc : p.kc))[it.b * cs[0] + it.kvh * cs[1] + pos * cs[2] + c * cs[3]] = v;
    }
    __syncthreads(); /* the rows are in before the scores read them */
}

/* One (item, split): the item's key range (the union of its rows' windows, cut to the split: block-uniform, so
 * every thread reaches every barrier) tile by tile. Prefill takes the items with the most keys (the last query
 * tiles) first. */
template <class T, int D, bool DEC> __device__ __forceinline__ void am_fwd(const wk_gpu_attn_args &p, am_smem<D> &sm)
{
    constexpr int BF = am_bf<T>::v, NT = DEC ? 2 : AM_TK / 8;
    int64_t item = blockIdx.x;
    if (!DEC)
        item += p.qtiles - 1 - 2 * (item % p.qtiles);
    at_item it = at_item_of(p, item);
    int64_t lo, hi, lo2, hi2;
    at_window(p, it.len, it.i0, lo, hi);
    at_window(p, it.len, it.i0 + it.nq - 1, lo2, hi2);
    int64_t s0, end;
    at_split(p, it, AM_TK, s0, end);
    /* Decode: splits past the ones that got keys (a cache filled in part) have nothing to add and return; with one
     * left, it writes out itself, with no merge (block-uniform: every block of the item computes the same). */
    const int used = DEC && p.splits > 1 ? at_splits_used(p, it, AM_TK) : 1;
    if (DEC && (int)blockIdx.y >= (used > 1 ? used : 1))
        return;
    int64_t full_hi = hi < end ? hi : end; /* tiles in [lo2, full_hi) are seen whole by every row */
    lo = s0;
    am_state<D> st;
    am_init<D, DEC>(p, it, st);
    const float sl2 = p.scale * AM_LOG2E;
    const bool write = DEC && p.kn && am_writer(p, it);
    if (lo < end) {
        am_load_tile<D, false>(p, it, lo, end, sm.t.k);
        if (DEC) /* decode: both tiles in flight at once (its few rows leave little work to overlap) */
            am_load_tile<D, true>(p, it, lo, end, sm.t.v);
        wk_tc_async_commit();
    }
    for (int64_t j0 = lo; j0 < end; j0 += AM_TK) {
        wk_tc_async_wait();
        __syncthreads(); /* the tiles are in; every warp is done with the last value tile */
        if (DEC && p.kn)
            am_new_rows<D>(p, it, j0, end, sm.t, write);
        if (!DEC) {
            am_load_tile<D, true>(p, it, j0, end, sm.t.v);
            wk_tc_async_commit();
        }
        float s[NT][4];
        am_scores<D, DEC, BF, NT>(st, sm.t.k, s);
        am_mask<D, DEC, NT>(st, s, sl2, j0, end, j0 >= lo2 && j0 + AM_TK <= full_hi);
        if (!DEC) {
            wk_tc_async_wait();
            __syncthreads(); /* the value tile is in; every warp is done with the key tile */
            if (j0 + AM_TK < end)
                am_load_tile<D, false>(p, it, j0 + AM_TK, end, sm.t.k);
            wk_tc_async_commit();
        }
        uint32_t pa[NT / 2][4];
        am_softmax<D, BF, NT>(s, st, pa);
        am_pv<D, DEC, BF, NT>(pa, sm.t.v, st);
        if (DEC && j0 + AM_TK < end) {
            __syncthreads(); /* every warp is done with both tiles */
            am_load_tile<D, false>(p, it, j0 + AM_TK, end, sm.t.k);
            am_load_tile<D, true>(p, it, j0 + AM_TK, end, sm.t.v);
            wk_tc_async_commit();
        }
    }
    if (DEC) {
        am_finish_dec<T, D>(p, it, item, st, sm.r, used);
        if (used > 1)
            at_merge_last<T>(p, it, item, AM_TK, used);
    } else
        am_finish<T, D>(p, it, st);
}

/* Prefill's double-buffered tiles: key and value tiles of AM_PTK keys, two of each, so that one barrier a step
 * suffices and tile j + 1 is in flight during all of tile j's work. */
template <int D> struct alignas(16) am_ptiles {
    static constexpr int TK = AM_PTK(D);
    uint16_t k[2][TK][D + AM_PAD], v[2][TK][D + AM_PAD];
};
static_assert(sizeof(am_ptiles<128>) <= 48 * 1024 && sizeof(am_ptiles<64>) <= 48 * 1024, "default smem limit");

/* Prefill, one item: its key range (the union of its rows' windows) tile by tile; the items with the most keys
 * (the last query tiles) first. Step j: wait for tile j, a barrier (every warp is done with tile j - 1, whose
 * buffers tile j + 1 then takes), tile j + 1's copies queued, then S, the softmax and P V on tile j. */
template <class T, int D> __device__ __forceinline__ void am_prefill(const wk_gpu_attn_args &p, am_ptiles<D> &sm)
{
    constexpr int BF = am_bf<T>::v, TK = am_ptiles<D>::TK, NT = TK / 8;
    int64_t item = blockIdx.x;
    item += p.qtiles - 1 - 2 * (item % p.qtiles);
    at_item it = at_item_of(p, item);
    int64_t lo, hi, lo2, end;
    at_window(p, it.len, it.i0, lo, hi);
    at_window(p, it.len, it.i0 + it.nq - 1, lo2, end);
    const int64_t full_hi = hi < end ? hi : end; /* tiles in [lo2, full_hi) are seen whole by every row */
    am_state<D> st;
    am_init<D, false>(p, it, st);
    const float sl2 = p.scale * AM_LOG2E;
    if (lo < end) {
        am_load_tile<D, false, TK>(p, it, lo, end, sm.k[0]);
        am_load_tile<D, true, TK>(p, it, lo, end, sm.v[0]);
        wk_tc_async_commit();
    }
    int buf = 0;
    for (int64_t j0 = lo; j0 < end; j0 += TK, buf ^= 1) {
        wk_tc_async_wait();
        __syncthreads();
        if (j0 + TK < end) {
            am_load_tile<D, false, TK>(p, it, j0 + TK, end, sm.k[buf ^ 1]);
            am_load_tile<D, true, TK>(p, it, j0 + TK, end, sm.v[buf ^ 1]);
            wk_tc_async_commit();
        }
        float s[NT][4];
        am_scores<D, false, BF, NT>(st, sm.k[buf], s);
        am_mask<D, false, NT>(st, s, sl2, j0, end, j0 >= lo2 && j0 + TK <= full_hi);
        uint32_t pa[NT / 2][4];
        am_softmax<D, BF, NT, true>(s, st, pa);
        am_pv<D, false, BF, NT>(pa, sm.v[buf], st);
    }
    am_finish<T, D>(p, it, st);
}

template <class T, class DIM, int> __device__ __forceinline__ void attn_mma_prefill_run(const wk_gpu_attn_args &p)
{
    __shared__ am_ptiles<DIM::D> sm;
    am_prefill<T, DIM::D>(p, sm);
}

template <class T, class DIM, int>
__device__ __forceinline__ void attn_mma_prefill_v1_run(const wk_gpu_attn_args &p)
{
    __shared__ am_smem<DIM::D> sm;
    am_fwd<T, DIM::D, false>(p, sm);
}

template <class T, class DIM, int> __device__ __forceinline__ void attn_mma_decode_run(const wk_gpu_attn_args &p)
{
    __shared__ am_smem<DIM::D> sm;
    am_fwd<T, DIM::D, true>(p, sm);
}

WK_ATTENTION_MMA_KERNELS(WK_DEFINE_KERNELS)
