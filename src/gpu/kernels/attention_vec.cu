/* attention_vec.cu: the decode attention kernel on vector loads (kernels/attention_vec.h). Rows, windows, lengths and
 * paged blocks follow attn_fwd's rules (attention.cuh); keys past the item's range (the split, the rows' windows)
 * are never read, and a bad block id's key is skipped (attn_check reports it). */
#include "common.cuh"
#include "attention_vec.h"
#include "attention.cuh"

/* The 16 bytes a as f32: 8 values of a 2-byte type, or 4 floats (the rest 0). */
template <class T> __device__ __forceinline__ void av_unpack(const wk_w16 &a, float (&v)[8])
{
    if constexpr (sizeof(T) == 4) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            v[i] = wk_bits_f32(a.w[i]);
            v[4 + i] = 0.0f;
        }
    } else {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const T t = wk_w16_get<T>(a, i);
            v[i] = wk_ld(&t);
        }
    }
}

/* A slot's running state: its R rows' max score, sum of weights and weighted values (its lanes' E dims). */
template <int R> struct av_state {
    float m[R], l[R], acc[R][8];
};

/* One round of a slot: keys key0 + u * stride (u < AV_UNROLL(R)) below k1, scored against the rows' queries (q, scaled),
 * masked by the rows' windows [lo, hi), folded into st. sl: the lane's place in its slot of lpk lanes. */
template <class T, int R>
__device__ __forceinline__ void av_round(const wk_gpu_attn_args &p, const at_item &it, int64_t key0, int64_t stride,
                                         int64_t k1, int sl, int lpk, const float (&q)[R][8], const int64_t (&lo)[R],
                                         const int64_t (&hi)[R], av_state<R> &st)
{
    constexpr int E = 16 / (int)sizeof(T), U = AV_UNROLL(R);
    wk_w16 kv[U], vv[U];
    int64_t key[U];
    bool ok[U];
#pragma unroll
    for (int u = 0; u < U; u++) { /* every load of the round first: they are in flight together */
        key[u] = key0 + u * stride;
        int64_t ko = key[u] < k1 ? at_kv_off(p, p.ks, it.b, it.kvh, key[u]) : -1;
        int64_t vo = ko >= 0 ? at_kv_off(p, p.vs, it.b, it.kvh, key[u]) : -1;
        ok[u] = ko >= 0 && vo >= 0;
        kv[u] = ok[u] ? wk_ldg((const wk_w16 *)((const T *)p.k + ko) + sl) : wk_w16{};
        vv[u] = ok[u] ? wk_ldg((const wk_w16 *)((const T *)p.v + vo) + sl) : wk_w16{};
    }
    float s[U][R];
#pragma unroll
    for (int u = 0; u < U; u++) {
        float kf[8];
        av_unpack<T>(kv[u], kf);
#pragma unroll
        for (int r = 0; r < R; r++) {
            float d = 0.0f;
#pragma unroll
            for (int e = 0; e < E; e++)
                d = fmaf(q[r][e], kf[e], d);
            for (int o = lpk / 2; o > 0; o >>= 1) /* the slot's lanes: a power of two, aligned in the warp */
                d += wk_lane_xor<32>(d, o);
            s[u][r] = ok[u] && key[u] >= lo[r] && key[u] < hi[r] ? d : -INFINITY;
        }
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
        float mn = st.m[r];
#pragma unroll
        for (int u = 0; u < U; u++)
            mn = fmaxf(mn, s[u][r]);
        if (mn == -INFINITY)
            continue; /* nothing seen yet */
        const float c = __expf(st.m[r] - mn); /* 0 while the row had nothing */
        st.l[r] *= c;
#pragma unroll
        for (int e = 0; e < E; e++)
            st.acc[r][e] *= c;
        st.m[r] = mn;
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        float vf[8];
        av_unpack<T>(vv[u], vf);
#pragma unroll
        for (int r = 0; r < R; r++) {
            const float w = s[u][r] == -INFINITY ? 0.0f : __expf(s[u][r] - st.m[r]);
            st.l[r] += w;
#pragma unroll
            for (int e = 0; e < E; e++)
                st.acc[r][e] = fmaf(w, vf[e], st.acc[r][e]);
        }
    }
}

template <class T, int R, int> __device__ __forceinline__ void attn_vec_decode_run(const wk_gpu_attn_args &p)
{
    constexpr int E = 16 / (int)sizeof(T);
    __shared__ float s_m[AV_MAX_SLOTS][R], s_l[AV_MAX_SLOTS][R];
    __shared__ float s_acc[AT_THREADS * E * R]; /* slots x rows x D: slots * D = AT_THREADS * E */
    const int64_t D = p.d;
    const int lpk = (int)(D * (int64_t)sizeof(T) / 16), lane = (int)(threadIdx.x & 31u), sl = lane & (lpk - 1);
    const int slots = AT_THREADS / lpk, slot = (int)threadIdx.x / lpk;
    const at_item it = at_item_of(p, blockIdx.x);
    float q[R][8];
    int64_t lo[R], hi[R], klo = it.len, khi = 0;
    av_state<R> st;
#pragma unroll
    for (int r = 0; r < R; r++) {
        st.m[r] = -INFINITY;
        st.l[r] = 0.0f;
        lo[r] = hi[r] = 0;
#pragma unroll
        for (int e = 0; e < 8; e++)
            st.acc[r][e] = q[r][e] = 0.0f;
        if (r < it.n) {
            const int64_t i = it.i0 + r % it.nq;
            const T *qr = (const T *)p.q + it.b * p.qs[0] + (it.h0 + r / it.nq) * p.qs[1] + i * p.qs[2];
            at_window(p, it.len, i, lo[r], hi[r]);
            klo = lo[r] < klo ? lo[r] : klo;
            khi = hi[r] > khi ? hi[r] : khi;
#pragma unroll
            for (int e = 0; e < E; e++)
                q[r][e] = wk_ld_ro(qr + (sl * E + e) * p.qs[3]) * p.scale;
        }
    }
    const int64_t s0 = (int64_t)blockIdx.y * p.split_len, k0 = s0 > klo ? s0 : klo;
    const int64_t k1 = s0 + p.split_len < khi ? s0 + p.split_len : khi;
    for (int64_t kb = k0 + slot; kb < k1; kb += (int64_t)slots * AV_UNROLL(R))
        av_round<T, R>(p, it, kb, slots, k1, sl, lpk, q, lo, hi, st);

    /* the slots' states combined: each row's max over slots, weights and values rescaled to it */
    if (sl == 0)
#pragma unroll
        for (int r = 0; r < R; r++) {
            s_m[slot][r] = st.m[r];
            s_l[slot][r] = st.l[r];
        }
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int e = 0; e < E; e++)
            s_acc[(slot * R + r) * D + sl * E + e] = st.acc[r][e];
    __syncthreads();
    for (int64_t idx = threadIdx.x; idx < it.n * D; idx += AT_THREADS) {
        const int r = (int)(idx / D);
        const int64_t c = idx - r * D;
        float M = -INFINITY, L = 0.0f, o = 0.0f;
        for (int s = 0; s < slots; s++)
            M = fmaxf(M, s_m[s][r]);
        for (int s = 0; M != -INFINITY && s < slots; s++) {
            const float w = s_m[s][r] == -INFINITY ? 0.0f : __expf(s_m[s][r] - M);
            L += s_l[s][r] * w;
            o += s_acc[(s * R + r) * D + c] * w;
        }
        if (p.splits > 1) { /* the partial row attn_merge reads */
            float *pt = p.part + (((int64_t)blockIdx.x * p.splits + blockIdx.y) * AT_ROWS + r) * (p.dv + 2);
            pt[c] = o;
            if (c == 0) {
                pt[p.dv] = M;
                pt[p.dv + 1] = L;
            }
            continue;
        }
        const int64_t row = (it.b * p.hq + it.h0 + r / it.nq) * p.sq + it.i0 + r % it.nq;
        wk_st((T *)p.out + row * p.dv + c, L > 0 ? o / L : 0.0f);
        if (p.lse && c == 0)
            p.lse[row] = L > 0 ? M + logf(L) : -INFINITY;
    }
}

WK_ATTENTION_VEC_KERNELS(WK_DEFINE_KERNELS)
