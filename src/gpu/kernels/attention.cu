/* attention.cu: the fused attention (a block holds AT_ROWS query rows of one key/value head, streams the keys in
 * tiles through shared memory and keeps the online softmax in registers; split over keys for decode, then merged
 * by lse), the device check of lengths and block ids, and the KV-cache append.
 * Warp width (wave64, wave32): the only exchange between lanes is a xor shuffle within aligned groups of 8 lanes,
 * the same at every width; the rest is indexed by threadIdx.x alone. */
#include "common.cuh"
#include "attention.h"
#include "attention.cuh"

/* Shared memory of attn_fwd: the scaled query rows (row stride d + 1), one key tile transposed (kt[d][c], row
 * stride tk + 1) or one value tile (v[c][e]) in the same buffer, and the tile's scores (row stride tk + 1). */
#define AT_KV_FLOATS (AT_MAX_DIM * (AT_TK_NARROW + 1))
struct at_smem {
    float q[AT_ROWS * (AT_MAX_DIM + 1)];
    float kv[AT_KV_FLOATS];
    float s[AT_ROWS * (AT_TK_WIDE + 1)];
};
static_assert(AT_TK_WIDE_DIM * (AT_TK_WIDE + 1) <= AT_KV_FLOATS && AT_TK_WIDE * AT_TK_WIDE_DIM <= AT_KV_FLOATS &&
                  AT_TK_NARROW * AT_MAX_DIM <= AT_KV_FLOATS, "a key or value tile fits the buffer");
static_assert(sizeof(at_smem) <= 48 * 1024, "under the default shared-memory limit of a block");
static_assert(AT_ROWS * 8 == AT_THREADS, "8 lanes a row in the softmax and the value product");

#define AT_GROUPS (AT_THREADS / 32) /* groups of 32 threads that load rows, lanes along the head dim */
#define AT_ACC (AT_MAX_DIM / 8)     /* accumulator slots a thread: Dv / 8 at most */

/* The item's query rows, scaled, into q (rows past n: 0). */
template <class T> __device__ __forceinline__ void at_load_q(const wk_gpu_attn_args &p, const at_item &it, float *q)
{
    const T *x = (const T *)p.q;
    int g = threadIdx.x / 32, lane = threadIdx.x % 32, ld = (int)p.d + 1;
    for (int r = g; r < AT_ROWS; r += AT_GROUPS) {
        const T *row = x;
        if (r < it.n)
            row += it.b * p.qs[0] + (it.h0 + r / it.nq) * p.qs[1] + (it.i0 + r % it.nq) * p.qs[2];
        for (int d = lane; d < p.d; d += 32)
            q[r * ld + d] = r < it.n ? wk_ld_ro(row + d * p.qs[3]) * p.scale : 0.0f;
    }
}

/* Keys [j0, j0 + n) transposed into kt[d][c] (values: into v[c][e]); rows past n and bad blocks hold 0. */
template <class T, int TK, bool V>
__device__ __forceinline__ void at_load_kv(const wk_gpu_attn_args &p, const at_item &it, int64_t j0, int n, float *buf)
{
    const T *x = (const T *)(V ? p.v : p.k);
    const int64_t *st = V ? p.vs : p.ks;
    int64_t dim = V ? p.dv : p.d;
    int g = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int c = g; c < TK; c += AT_GROUPS) {
        int64_t off = c < n ? at_kv_off(p, st, it.b, it.kvh, j0 + c) : -1;
        for (int d = lane; d < dim; d += 32) {
            float val = off >= 0 ? wk_ld_ro(x + off + d * st[3]) : 0.0f;
            if (V)
                buf[c * dim + d] = val;
            else
                buf[d * (TK + 1) + c] = val;
        }
    }
}

/* at_load_kv by 16-byte vectors (flag AT_VEC_K / AT_VEC_V: unit stride along the head dim, every row start and
 * the base 16-byte aligned, the head dim whole vectors): the block's threads take (key, vector) pairs in turn. */
template <class T, int TK, bool V>
__device__ __forceinline__ void at_load_kv_vec(const wk_gpu_attn_args &p, const at_item &it, int64_t j0, int n,
                                               float *buf)
{
    constexpr int VW = 16 / (int)sizeof(T);
    const T *x = (const T *)(V ? p.v : p.k);
    const int64_t *st = V ? p.vs : p.ks;
    int dim = (int)(V ? p.dv : p.d), nv = dim / VW;
    for (int e = (int)threadIdx.x; e < TK * nv; e += AT_THREADS) {
        int c = e / nv, d = (e - c * nv) * VW;
        int64_t off = c < n ? at_kv_off(p, st, it.b, it.kvh, j0 + c) : -1;
        wk_w16 w = {};
        if (off >= 0)
            w = wk_ldg(reinterpret_cast<const wk_w16 *>(x + off + d));
#pragma unroll
        for (int u = 0; u < VW; u++) {
            T t = wk_w16_get<T>(w, u);
            float val = wk_ld(&t);
            if (V)
                buf[c * dim + d + u] = val;
            else
                buf[(d + u) * (TK + 1) + c] = val;
        }
    }
}

/* What a thread needs of each of the NR rows it scores: seen keys, ALiBi position and slope, bias offset. */
template <int NR> struct at_rows {
    int64_t lo[NR], hi[NR], boff[NR];
    float pos[NR], slope[NR];
};

template <int TK, int NR>
__device__ __forceinline__ void at_rows_init(const wk_gpu_attn_args &p, const at_item &it, at_rows<NR> &w)
{
    for (int k = 0; k < NR; k++) {
        int r = (int)threadIdx.x / TK + k * (AT_THREADS / TK);
        int64_t h = it.h0 + r / it.nq, i = it.i0 + r % it.nq;
        w.lo[k] = w.hi[k] = 0; /* rows past n see nothing */
        if (r < it.n)
            at_window(p, it.len, i, w.lo[k], w.hi[k]);
        w.pos[k] = (float)(i + it.len - p.sq);
        w.slope[k] = p.alibi && r < it.n ? p.alibi[h * p.alibi_s] : 0.0f;
        w.boff[k] = it.b * p.bs[0] + h * p.bs[1] + i * p.bs[2];
    }
}

/* The tile's scores s[r][c]: scaled dot products, soft-cap, ALiBi, bias; -inf for a key the row does not see or
 * past the tile's n keys (they belong to the next split). */
template <class T, int TK, int NR>
__device__ __forceinline__ void at_scores(const wk_gpu_attn_args &p, const at_rows<NR> &w, int64_t j0, int n,
                                          at_smem &sm)
{
    int c = (int)threadIdx.x % TK, r0 = (int)threadIdx.x / TK, ld = (int)p.d + 1;
    float acc[NR];
    bool live[NR]; /* rows that see no key (rows past n: decode fills few of a block's rows) skip the products */
#pragma unroll
    for (int k = 0; k < NR; k++) {
        acc[k] = 0.0f;
        live[k] = w.lo[k] < w.hi[k];
    }
    for (int d = 0; d < p.d; d++) {
        float kv = sm.kv[d * (TK + 1) + c];
#pragma unroll
        for (int k = 0; k < NR; k++)
            if (live[k])
                acc[k] += sm.q[(r0 + k * (AT_THREADS / TK)) * ld + d] * kv;
    }
    int64_t j = j0 + c;
#pragma unroll
    for (int k = 0; k < NR; k++) {
        float s = acc[k];
        if (c >= n || j < w.lo[k] || j >= w.hi[k]) {
            s = -INFINITY;
        } else {
            if (p.softcap > 0)
                s = p.softcap * tanhf(s * (1.0f / p.softcap));
            if (p.alibi)
                s -= w.slope[k] * fabsf(w.pos[k] - (float)j);
            int64_t bo = w.boff[k] + j * p.bs[3];
            if (p.bias_kind == AT_BIAS_F32)
                s += wk_ld_ro((const float *)p.bias + bo);
            else if (p.bias_kind == AT_BIAS_SAME)
                s += wk_ld_ro((const T *)p.bias + bo);
            else if (p.bias_kind == AT_BIAS_MASK)
                s = wk_ldg((const uint8_t *)p.bias + bo) ? s : -INFINITY;
        }
        sm.s[(r0 + k * (AT_THREADS / TK)) * (TK + 1) + c] = s;
    }
}

/* The running state of the row a thread accumulates (row threadIdx.x / 8, value columns threadIdx.x % 8 + 8k). */
struct at_state {
    float m, l, acc[AT_ACC];
};

/* Max and sum over the 8 lanes of a row (aligned groups of 8 consecutive threads: within every warp width). */
__device__ __forceinline__ float at_max8(float v)
{
    for (int o = 4; o > 0; o >>= 1)
        v = fmaxf(v, wk_shfl_xor(v, o));
    return v;
}
__device__ __forceinline__ float at_sum8(float v)
{
    for (int o = 4; o > 0; o >>= 1)
        v += wk_shfl_xor(v, o);
    return v;
}

/* The online-softmax step: the row's scores become weights (a dropped key weighs exactly 0), m and l move on,
 * the accumulator is rescaled. Every thread calls it (the shuffles need the whole warp). */
template <int TK> __device__ __forceinline__ void at_softmax(at_smem &sm, at_state &st)
{
    int r = (int)threadIdx.x / 8, l8 = (int)threadIdx.x % 8;
    float *s = sm.s + r * (TK + 1);
    float mt = -INFINITY;
    for (int c = l8; c < TK; c += 8)
        mt = s[c] > mt ? s[c] : mt; /* NaN scores never win (as on the CPU); they reach the output below */
    mt = at_max8(mt);
    float m_new = st.m > mt ? st.m : mt, sum = 0.0f, corr = 1.0f;
    if (m_new != -INFINITY) {
        corr = expf(st.m - m_new); /* m = -inf: 0 */
        for (int c = l8; c < TK; c += 8) {
            float w = s[c] == -INFINITY ? 0.0f : expf(s[c] - m_new);
            s[c] = w;
            sum += w;
        }
        st.m = m_new;
    } else {
        for (int c = l8; c < TK; c += 8)
            s[c] = 0.0f;
    }
    sum = at_sum8(sum);
    st.l = st.l * corr + sum;
#pragma unroll
    for (int k = 0; k < AT_ACC; k++)
        st.acc[k] *= corr;
}

/* acc[e] += sum over the tile's keys of weight * v[c][e]; a key of weight 0 is skipped (its value may be NaN). */
template <int TK>
__device__ __forceinline__ void at_pv(const wk_gpu_attn_args &p, const at_item &it, int n, const at_smem &sm,
                                      at_state &st)
{
    int r = (int)threadIdx.x / 8, l8 = (int)threadIdx.x % 8, dv = (int)p.dv;
    if (r >= it.n)
        return;
    const float *s = sm.s + r * (TK + 1);
    for (int c = 0; c < n; c++) {
        float w = s[c];
        if (w == 0.0f)
            continue;
        const float *v = sm.kv + c * dv + l8;
#pragma unroll
        for (int k = 0; k < AT_ACC; k++)
            if (l8 + 8 * k < dv)
                st.acc[k] += w * v[8 * k];
    }
}

/* The row's result: out = acc / l and lse = m + log(l) (0 and -inf when it saw no key), or its partial state. */
template <class T>
__device__ __forceinline__ void at_finish(const wk_gpu_attn_args &p, const at_item &it, int64_t item,
                                          const at_state &st)
{
    int r = (int)threadIdx.x / 8, l8 = (int)threadIdx.x % 8;
    if (r >= it.n)
        return;
    if (p.splits > 1) {
        float *part = p.part + ((item * p.splits + blockIdx.y) * AT_ROWS + r) * AT_PART_W(p.dv);
    #pragma unroll
        for (int k = 0; k < AT_ACC; k++)
            if (l8 + 8 * k < p.dv)
                part[l8 + 8 * k] = st.acc[k];
        if (l8 == 0) {
            part[p.dv] = st.m;
            part[p.dv + 1] = st.l;
        }
        return;
    }
    int64_t row = (it.b * p.hq + it.h0 + r / it.nq) * p.sq + it.i0 + r % it.nq;
    float inv = st.l > 0 ? 1.0f / st.l : 0.0f;
    T *o = (T *)p.out + row * p.dv;
#pragma unroll
    for (int k = 0; k < AT_ACC; k++)
        if (l8 + 8 * k < p.dv)
            wk_st(o + l8 + 8 * k, st.acc[k] * inv);
    if (p.lse && l8 == 0)
        p.lse[row] = st.l > 0 ? st.m + logf(st.l) : -INFINITY;
}

/* One (item, split): the rows' keys in the split, tile by tile. The key range is the union of the rows' windows
 * (lo of the first query, hi of the last: both grow with the query), cut to the split; uniform over the block,
 * so every thread reaches every barrier. */
template <class T, int TK> __device__ __forceinline__ void at_fwd(const wk_gpu_attn_args &p, at_smem &sm)
{
    constexpr int NR = AT_ROWS * TK / AT_THREADS;
    int64_t item = blockIdx.x;
    at_item it = at_item_of(p, item);
    at_rows<NR> w;
    at_rows_init<TK>(p, it, w);
    int64_t lo, hi;
    at_split(p, it, TK, lo, hi);
    at_state st;
    st.m = -INFINITY;
    st.l = 0.0f;
#pragma unroll
    for (int k = 0; k < AT_ACC; k++)
        st.acc[k] = 0.0f;
    if (lo < hi)
        at_load_q<T>(p, it, sm.q);
    for (int64_t j0 = lo; j0 < hi; j0 += TK) {
        int n = hi - j0 < TK ? (int)(hi - j0) : TK;
        if (p.vec & AT_VEC_K)
            at_load_kv_vec<T, TK, false>(p, it, j0, n, sm.kv);
        else
            at_load_kv<T, TK, false>(p, it, j0, n, sm.kv);
        __syncthreads(); /* q and the key tile are in */
        at_scores<T, TK, NR>(p, w, j0, n, sm);
        __syncthreads(); /* scores are in; the key tile is no longer read */
        if (p.vec & AT_VEC_V)
            at_load_kv_vec<T, TK, true>(p, it, j0, n, sm.kv);
        else
            at_load_kv<T, TK, true>(p, it, j0, n, sm.kv);
        at_softmax<TK>(sm, st);
        __syncthreads(); /* weights and the value tile are in */
        at_pv<TK>(p, it, n, sm, st);
        __syncthreads(); /* before the next tile overwrites them */
    }
    at_finish<T>(p, it, item, st);
    if (p.splits > 1)
        at_merge_last<T>(p, it, item, TK, (int)p.splits);
}

template <class T, class, int> __device__ __forceinline__ void attn_fwd_run(const wk_gpu_attn_args &p)
{
    __shared__ at_smem sm; /* declared once here: each tile size's body uses the same buffers */
    if (p.tk == AT_TK_WIDE)
        at_fwd<T, AT_TK_WIDE>(p, sm);
    else
        at_fwd<T, AT_TK_NARROW>(p, sm);
}

/* Every batch's length in [0, capacity - snew] and, paged, the block ids of positions [from, len + snew) in the
 * pool (from: 0 for attention, len for an append); a bad one claims the fault record. */
template <class, class, int> __device__ __forceinline__ void attn_check_run(const wk_gpu_attn_args &p)
{
    int64_t nbl = p.block_size > 0 ? p.max_blocks : 1;
    WK_GRID_LOOP(e, p.B * nbl) {
        int64_t b = e / nbl, i = e - b * nbl, len = p.lens[b * p.lens_s];
        if (at_len_bad(p, len)) {
            if (i == 0)
                at_fault(p.fault, p.code, len);
            continue;
        }
        if (p.block_size == 0)
            continue;
        int64_t first = p.snew ? len / p.block_size : 0, end = (len + p.snew + p.block_size - 1) / p.block_size;
        if (i < first || i >= end)
            continue;
        int64_t id = p.table[b * p.table_s[0] + i * p.table_s[1]];
        if (id < 0 || id >= p.num_blocks)
            at_fault(p.fault, p.code, id);
    }
}

/* New rows copied to positions lens[b] + t, bit for bit; nothing at all once the fault record is set (attn_check
 * ran first, or, check_lens, every block checks every length itself), and never a write outside the cache. */
template <class U, class, int> __device__ __forceinline__ void attn_append_run(const wk_gpu_attn_args &p)
{
    if (*(volatile const int32_t *)p.fault != 0)
        return;
    if (p.check_lens) {
        int bad = 0;
        for (int64_t b = threadIdx.x; b < p.B; b += blockDim.x) {
            int64_t len = p.lens[b * p.lens_s];
            if (at_len_bad(p, len)) {
                at_fault(p.fault, p.code, len);
                bad = 1;
            }
        }
        if (__syncthreads_or(bad))
            return;
    }
    const int64_t nk = p.B * p.hkv * p.snew * p.d, nv = p.B * p.hkv * p.snew * p.dv;
    WK_GRID_LOOP(e, nk + nv) {
        bool isv = e >= nk;
        int64_t x = isv ? e - nk : e, dim = isv ? p.dv : p.d;
        int64_t dd = x % dim, r = x / dim, t = r % p.snew;
        r /= p.snew;
        int64_t h = r % p.hkv, b = r / p.hkv, pos = p.lens[b * p.lens_s] + t;
        const int64_t *ss = isv ? p.vns : p.kns, *cs = isv ? p.vcs : p.kcs;
        if (pos < 0 || pos >= p.capacity)
            continue;
        int64_t off;
        if (p.block_size > 0) {
            int64_t blk = pos / p.block_size, id = p.table[b * p.table_s[0] + blk * p.table_s[1]];
            if (id < 0 || id >= p.num_blocks)
                continue;
            off = id * cs[0] + h * cs[1] + (pos - blk * p.block_size) * cs[2];
        } else {
            off = b * cs[0] + h * cs[1] + pos * cs[2];
        }
        const U *src = (const U *)(isv ? p.vn : p.kn) + b * ss[0] + h * ss[1] + t * ss[2] + dd * ss[3];
        ((U *)(isv ? p.vc : p.kc))[off + dd * cs[3]] = *src;
    }
}

WK_ATTENTION_KERNELS(WK_DEFINE_KERNELS)
