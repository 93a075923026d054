/* norm.cu: softmax / log_softmax, rms_norm (alone or after a residual add) and layer_norm over the last dim. A group
 * of lanes holds a row in registers (one read, one write); rows too long for that take a block each, one read a pass.
 * Statistics in f32 (f64 for f64 rows). The CPU redoes in f64 the f32 sums that overflow or underflow; that is
 * beyond OPS.md ("f32 or wider"), and tests/cases/norm.c skips those cases on other devices.
 * Warp width (wave64, wave32): every statistic goes through wk_group_reduce at the width LW the kernel is built
 * for (WK_WIDTHS, common.cuh); the host (norm.c) puts rows of up to LW lanes in one warp and gives longer rows a
 * block whose size is a multiple of LW. */
#include "norm.cuh"

/* ---------------------------------------------------------------- rows from memory
 * Rows too long for registers: a block each, reading the row again for each statistic. The formulas of the
 * register path below, pass by pass; lane `lane` of G (G == blockDim.x). */

/* rms_norm of row xr; add_rms_norm (ADD): of sum = xr + rr rounded to T (rr's stride rs), which the first pass
 * stores and the second reads back (the lane's own elements: no barrier needed). */
template <int LW, class T, bool ADD>
__device__ void nm_rms_mem(const T *xr, int64_t s, const T *rr, int64_t rs, T *sum, int64_t n, const T *w, int64_t ws,
                           double eps, T *y, int lane, int G)
{
    typedef typename nm_c<T>::type C;
    nm_sum<C> acc;
    for (int64_t j = lane; j < n; j += G) {
        C v = wk_ld_ro(xr + j * s);
        if constexpr (ADD) {
            T t;
            wk_st(&t, v + (C)wk_ld_ro(rr + j * rs));
            sum[j] = t;
            v = nm_cvt(t);
        }
        acc.add(v * v);
    }
    double ss = wk_group_reduce<LW>(acc.get(), wk_op_sum(), G);
    C scale = (C)(1.0 / sqrt(ss / (double)n + eps));
    for (int64_t j = lane; j < n; j += G) {
        C v = ADD ? wk_ld(sum + j) : wk_ld_ro(xr + j * s); /* sum: written here, not through the read-only path */
        wk_st(y + j, v * scale * (C)wk_ld_ro(w + j * ws));
    }
}

template <int LW, class T, int KIND>
__device__ void nm_row_mem(const T *xr, int64_t s, int64_t n, const T *w, int64_t ws, const T *b, int64_t bs,
                           double eps, T *y, int lane, int G, int flags)
{
    typedef typename nm_c<T>::type C;
    double dn = (double)n;
#define NM_EACH(j) for (int64_t j = lane; j < n; j += G)
#define NM_X(j) ((C)wk_ld_ro(xr + (j) * s))
    if (KIND == NM_SOFTMAX) {
        bool log = flags & NM_LOG;
        C m = -(C)INFINITY;
        NM_EACH(j) {
            C v = NM_X(j);
            m = v > m ? v : m;
        }
        m = wk_group_reduce<LW>(m, wk_op_max(), G);
        nm_sum<C> acc;
        NM_EACH(j) acc.add(nm_exp(NM_X(j) - m));
        C sum = wk_group_reduce<LW>(acc.get(), wk_op_sum(), G);
        C f = log ? (C)::log((double)sum) : (C)(1.0 / (double)sum);
        NM_EACH(j) {
            C d = NM_X(j) - m;
            wk_st(y + j, log ? d - f : nm_exp(d) * f);
        }
        return;
    }
    if (KIND == NM_RMS) {
        nm_rms_mem<LW, T, false>(xr, s, (const T *)nullptr, 0, (T *)nullptr, n, w, ws, eps, y, lane, G);
        return;
    }
    nm_sum<C> a0;
    NM_EACH(j) a0.add(NM_X(j));
    C m = (C)((double)wk_group_reduce<LW>(a0.get(), wk_op_sum(), G) / dn), fix = 0, scale;
    nm_sum<C> a1, a2;
    NM_EACH(j) {
        C d = NM_X(j) - m;
        a1.add(d);
        a2.add(d * d);
    }
    C s1 = a1.get(), s2 = a2.get();
    nm_group2<LW>(s1, s2, G);
    if (sizeof(C) == 4) {
        double f = s1 / dn, var = s2 / dn - f * f;
        var = var > 0 ? var : 0;
        fix = (C)f;
        scale = (C)(1.0 / sqrt(var + eps));
    } else {
        scale = (C)(1.0 / sqrt(s2 / dn + eps));
    }
    NM_EACH(j) {
        C v = (NM_X(j) - m - fix) * scale; /* fix is 0 for f64 */
        if (w)
            v *= (C)wk_ld_ro(w + j * ws);
        if (b)
            v += (C)wk_ld_ro(b + j * bs);
        wk_st(y + j, v);
    }
#undef NM_EACH
#undef NM_X
}

/* softmax: max (a NaN is skipped here and spreads through the sum), e = exp(x - max), e / sum(e);
 * log_softmax: (x - max) - log(sum(e)). The per-row scalars in f64, as the CPU. */
template <int LW, class T, int NV, bool VEC> __device__ void nm_softmax_row(nm_row<T, NV, VEC> &r, bool log)
{
    typedef typename nm_c<T>::type C;
    constexpr int VW = nm_row<T, NV, VEC>::VW;
    C m = -(C)INFINITY, sum = 0;
#pragma unroll
    for (int k = 0; k < NV; k++)
#pragma unroll
        for (int e = 0; e < VW; e++)
            if (r.in(k, e))
                m = r.v[k * VW + e] > m ? r.v[k * VW + e] : m;
    m = wk_group_reduce<LW>(m, wk_op_max(), r.G);
#pragma unroll
    for (int k = 0; k < NV; k++)
#pragma unroll
        for (int e = 0; e < VW; e++)
            if (r.in(k, e)) {
                C d = r.v[k * VW + e] - m, ex = nm_exp(d);
                r.v[k * VW + e] = log ? d : ex;
                sum += ex;
            }
    sum = wk_group_reduce<LW>(sum, wk_op_sum(), r.G);
    C f = log ? (C)::log((double)sum) : (C)(1.0 / (double)sum);
#pragma unroll
    for (int i = 0; i < nm_row<T, NV, VEC>::S; i++)
        r.v[i] = log ? r.v[i] - f : r.v[i] * f;
}

/* y = (x - center - fix) * scale [* w] [+ b], slot by slot (the CPU's order of operations). */
template <class T, int NV, bool VEC>
__device__ void nm_normalize(nm_row<T, NV, VEC> &r, typename nm_c<T>::type center, typename nm_c<T>::type fix,
                             typename nm_c<T>::type scale, const T *w, int64_t ws, const T *b, int64_t bs, int flags)
{
    typedef typename nm_c<T>::type C;
    constexpr int VW = nm_row<T, NV, VEC>::VW;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        C wv[VW], bv[VW];
        if (w)
            r.param(w, ws, flags & NM_WVEC, k, wv);
        if (b)
            r.param(b, bs, flags & NM_BVEC, k, bv);
#pragma unroll
        for (int e = 0; e < VW; e++) {
            C y = (r.v[k * VW + e] - center - fix) * scale;
            if (w)
                y *= wv[e];
            if (b)
                y += bv[e];
            r.v[k * VW + e] = y;
        }
    }
}

/* rms_norm: x * scale * w, scale = 1 / sqrt(mean(x^2) + eps). */
template <int LW, class T, int NV, bool VEC>
__device__ void nm_rms_row(nm_row<T, NV, VEC> &r, const T *w, int64_t ws, int flags, double eps)
{
    typedef typename nm_c<T>::type C;
    C ss = 0;
#pragma unroll
    for (int i = 0; i < nm_row<T, NV, VEC>::S; i++)
        ss += r.v[i] * r.v[i]; /* slots past the end hold 0 */
    double ssd = wk_group_reduce<LW>(ss, wk_op_sum(), r.G);
    nm_normalize(r, (C)0, (C)0, (C)(1.0 / sqrt(ssd / (double)r.n + eps)), w, ws, (const T *)nullptr, 0, flags);
}

/* layer_norm's statistics of a row: y = (x - center - fix) * scale. The CPU's formula with a different centre:
 * f32 rows: center = the row's first element (any value of the row keeps the cancellation below small; it needs no
 * reduction, so both sums go in one pass), fix = mean(x - center), var = mean((x - center)^2) - fix^2 (biased),
 * scale = 1 / sqrt(var + eps); the CPU centres on the mean rounded to f32 instead. f64 rows: the mean, then
 * mean((x - mean)^2), fix 0. */
template <class C> struct nm_lstat {
    C center, fix, scale;
};
template <int LW, int NV, bool F32 = false, class R>
__device__ nm_lstat<typename R::C> nm_layer_stats(const R &r, double eps)
{
    typedef typename R::C C;
    constexpr int VW = R::VW;
    double n = (double)r.n;
    if constexpr (sizeof(C) == 4) {
        C m = r.first, s1 = 0, s2 = 0;
#pragma unroll
        for (int k = 0; k < NV; k++)
#pragma unroll
            for (int e = 0; e < VW; e++)
                if (r.in(k, e)) {
                    C d = r.val(k, e) - m;
                    s1 += d;
                    s2 += d * d;
                }
        nm_group2<LW>(s1, s2, r.G);
        if constexpr (F32) { /* the same in f32 (fewer registers live beside the row) */
            float f = s1 * r.inv_n, var = s2 * r.inv_n - f * f;
            var = var < 0 ? 0 : var;
            return {m, f, 1.0f / sqrtf(var + (float)eps)};
        }
        double f = s1 / n, var = s2 / n - f * f;
        var = var < 0 ? 0 : var; /* a NaN stays NaN */
        return {m, (C)f, (C)(1.0 / sqrt(var + eps))};
    } else {
        C s0 = 0;
#pragma unroll
        for (int k = 0; k < NV; k++)
#pragma unroll
            for (int e = 0; e < VW; e++)
                s0 += r.val(k, e); /* slots past the end hold 0 */
        C m = (C)((double)wk_group_reduce<LW>(s0, wk_op_sum(), r.G) / n), s2 = 0;
#pragma unroll
        for (int k = 0; k < NV; k++)
#pragma unroll
            for (int e = 0; e < VW; e++)
                if (r.in(k, e)) {
                    C d = r.val(k, e) - m;
                    s2 += d * d;
                }
        s2 = wk_group_reduce<LW>(s2, wk_op_sum(), r.G);
        return {m, (C)0, (C)(1.0 / sqrt(s2 / n + eps))};
    }
}

template <int LW, class T, int NV, bool VEC>
__device__ void nm_layer_row(nm_row<T, NV, VEC> &r, const T *w, int64_t ws, const T *b, int64_t bs, int flags,
                             double eps)
{
    nm_lstat<typename nm_c<T>::type> st = nm_layer_stats<LW, NV>(r, eps);
    nm_normalize(r, st.center, st.fix, st.scale, w, ws, b, bs, flags);
}

/* Row `row` of x starts at wk_offset(rows, row) and has n elements x[j * s]; out is contiguous. Groups of G lanes
 * as in wk_group_reduce: G <= LW: blockDim.x / G rows per block at a time; else one. The loop runs the same
 * number of times in every thread of the block (rows past the end take part with n = 0). */
template <int LW, class T, int NV, bool VEC, int KIND>
__device__ void nm_reg(const T *__restrict__ x, const wk_gpu_layout &rows, int64_t s, int64_t n, int64_t nrows,
                       const T *w, int64_t ws, const T *b, int64_t bs, double eps, T *out, int G, int flags,
                       const wk_gpu_norm_args &p)
{
    nm_row<T, NV, VEC> r;
    r.G = G;
    r.lane = (int)(threadIdx.x % (unsigned)G);
    r.s = s;
    int64_t per = G <= LW ? blockDim.x / G : 1, grp = threadIdx.x / G;
    for (int64_t base = (int64_t)blockIdx.x * per; base < nrows; base += (int64_t)gridDim.x * per) {
        int64_t row = base + grp;
        bool valid = row < nrows;
        r.n = valid ? (int)n : 0;
        r.x = x + (valid ? wk_offset(rows, row) : 0);
        if (KIND == NM_ADD_RMS)
            r.load_add((const T *)p.r + (valid ? wk_offset(p.rrows, row) : 0), p.rs, (T *)p.sum + row * n, flags);
        else
            r.load();
        if (KIND == NM_SOFTMAX)
            nm_softmax_row<LW>(r, flags & NM_LOG);
        else if (KIND == NM_RMS || KIND == NM_ADD_RMS)
            nm_rms_row<LW>(r, w, ws, flags, eps);
        else
            nm_layer_row<LW>(r, w, ws, b, bs, flags, eps);
        if (valid)
            r.store(out + row * n);
    }
}

/* Rows too long for registers: a block each. */
template <int LW, class T, int KIND>
__device__ void nm_long(const T *__restrict__ x, const wk_gpu_layout &rows, int64_t s, int64_t n, int64_t nrows,
                        const T *w, int64_t ws, const T *b, int64_t bs, double eps, T *out, int flags,
                        const wk_gpu_norm_args &p)
{
    for (int64_t row = blockIdx.x; row < nrows; row += gridDim.x)
        if constexpr (KIND == NM_ADD_RMS)
            nm_rms_mem<LW, T, true>(x + wk_offset(rows, row), s, (const T *)p.r + wk_offset(p.rrows, row), p.rs,
                                    (T *)p.sum + row * n, n, w, ws, eps, out + row * n, threadIdx.x, blockDim.x);
        else
            nm_row_mem<LW, T, KIND>(x + wk_offset(rows, row), s, n, w, ws, b, bs, eps, out + row * n, threadIdx.x,
                                    blockDim.x, flags);
}

/* ---------------------------------------------------------------- layer_norm with w and b held
 * Vector rows (NM_VEC), w and b vectors too (NM_WVEC, NM_BVEC) or absent, rows uniformly strided (rows.rank <= 1).
 * As nm_reg, but the row stays in registers as stored (16-byte words, converted where used: half the registers for
 * f16/bf16), and a lane's slots of w and b are loaded once, before the block's first row, and kept: a lane takes
 * the same columns of every row, so a row costs its own bytes and no reload of the parameters after its
 * statistics. Block b takes the row groups [b * iters, (b + 1) * iters) (a group: blockDim.x / G rows, or one
 * when G > LW). */
template <class T, int NV> struct nm_held {
    typedef typename nm_c<T>::type C;
    static constexpr int VW = 16 / sizeof(T);
    wk_w16 v[NV];
    C first; /* rows: the row's first element (0 without a row) */
    int lane, G, n;
    float inv_n; /* rows: 1 / the row's length, for the statistics in f32 */

    __device__ bool in(int k, int = 0) const { return (k * G + lane) * VW < n; }
    __device__ C val(int k, int e) const { return nm_cvt(wk_w16_get<T>(v[k], e)); }
    /* p (contiguous, 16-byte aligned, n elements) or zeros; slots past the end hold 0. */
    __device__ void load(const T *p)
    {
        first = p && n > 0 ? nm_cvt(wk_ldg(p)) : (C)0;
#pragma unroll
        for (int k = 0; k < NV; k++) {
            wk_w16 q = {{0, 0, 0, 0}};
            if (p && in(k))
                q = wk_ldg((const wk_w16 *)(p + (k * G + lane) * VW));
            v[k] = q;
        }
    }
};

template <int LW, class T, int NV> __device__ void nm_layer_held(const wk_gpu_norm_args &p)
{
    typedef typename nm_c<T>::type C;
    constexpr int VW = 16 / sizeof(T);
    const T *x = (const T *)p.x;
    T *out = (T *)p.out;
    const bool hw = p.w != nullptr, hb = p.b != nullptr;
    const int64_t rs = p.rows.rank > 0 ? p.rows.stride[0] : 0;
    nm_held<T, NV> r, w, b;
    r.G = w.G = b.G = p.G;
    r.lane = w.lane = b.lane = (int)(threadIdx.x % (unsigned)p.G);
    w.n = b.n = (int)p.n;
    r.inv_n = 1.0f / (float)p.n;
    w.load((const T *)p.w);
    b.load((const T *)p.b);
    int64_t per = p.G <= LW ? blockDim.x / p.G : 1, grp = threadIdx.x / p.G;
    int64_t g = (int64_t)blockIdx.x * p.iters;
    /* the bounds are the same in every thread of the block: all reach the reductions' barriers */
    for (int it = 0; it < p.iters && (g + it) * per < p.nrows; it++) {
        int64_t row = (g + it) * per + grp;
        bool valid = row < p.nrows;
        for (int i = 0; sizeof(T) == 2 && i < 4 * NV; i++) { /* keep w and b packed, not converted */
            wk_opaque(w.v[i / 4].w[i % 4]);
            wk_opaque(b.v[i / 4].w[i % 4]);
        }
        r.n = valid ? (int)p.n : 0;
        r.load(x + (valid ? row * rs : 0));
        nm_lstat<C> st = nm_layer_stats<LW, NV, true>(r, p.eps);
#pragma unroll
        for (int k = 0; k < NV; k++) {
            if (!r.in(k))
                continue;
            C y[VW];
#pragma unroll
            for (int e = 0; e < VW; e++) {
                y[e] = (r.val(k, e) - st.center - st.fix) * st.scale;
                if (hw)
                    y[e] *= w.val(k, e);
                if (hb)
                    y[e] += b.val(k, e);
            }
            *(wk_w16 *)(out + row * p.n + (k * p.G + r.lane) * VW) = nm_vec<T>(y);
        }
    }
}

template <int NV_> struct nm_held_shape { static constexpr int NV = NV_; };
typedef nm_held_shape<1> nm_held1;
typedef nm_held_shape<2> nm_held2;
typedef nm_held_shape<4> nm_held4;

/* TA: the slots a lane (nm_held_shape), TB: the dtype. */
template <class R, class T, int LW> __device__ __forceinline__ void norm_layer_held_run(const wk_gpu_norm_args &p)
{
    nm_layer_held<LW, T, R::NV>(p);
}

/* ---------------------------------------------------------------- entry points
 * norm_<kind>_v<NV>_<dtype>: rows in registers read as vectors (NM_VEC), NV 16-byte slots per lane;
 * norm_<kind>_s<NV>_<dtype>: the same by elements (strided or unaligned rows); norm_<kind>_long_<dtype>. */

/* The items of the row-shape axis (norm.h's NM_ROWS). */
template <int NV_, bool VEC_> struct nm_shape {
    static constexpr int NV = NV_;
    static constexpr bool VEC = VEC_, LONG = false;
};
struct nm_long_shape {
    static constexpr bool LONG = true;
};
typedef nm_shape<1, true> nm_rows_v1;
typedef nm_shape<2, true> nm_rows_v2;
typedef nm_shape<4, true> nm_rows_v4;
typedef nm_shape<1, false> nm_rows_s1;
typedef nm_shape<2, false> nm_rows_s2;
typedef nm_shape<4, false> nm_rows_s4;
typedef nm_long_shape nm_rows_long;

template <int KIND, class R, class T, int LW> __device__ __forceinline__ void nm_entry(const wk_gpu_norm_args &p)
{
    const T *x = (const T *)p.x, *w = (const T *)p.w, *b = (const T *)p.b;
    T *out = (T *)p.out;
    if constexpr (R::LONG)
        nm_long<LW, T, KIND>(x, p.rows, p.s, p.n, p.nrows, w, p.ws, b, p.bs, p.eps, out, p.flags, p);
    else
        nm_reg<LW, T, R::NV, R::VEC, KIND>(x, p.rows, p.s, p.n, p.nrows, w, p.ws, b, p.bs, p.eps, out, p.G,
                                           p.flags, p);
}

/* TA: the row shape, TB: the dtype. */
template <class R, class T, int LW> __device__ __forceinline__ void norm_softmax_run(const wk_gpu_norm_args &p)
{
    nm_entry<NM_SOFTMAX, R, T, LW>(p);
}
template <class R, class T, int LW> __device__ __forceinline__ void norm_rms_run(const wk_gpu_norm_args &p)
{
    nm_entry<NM_RMS, R, T, LW>(p);
}
template <class R, class T, int LW> __device__ __forceinline__ void norm_add_rms_run(const wk_gpu_norm_args &p)
{
    nm_entry<NM_ADD_RMS, R, T, LW>(p);
}
template <class R, class T, int LW> __device__ __forceinline__ void norm_layer_run(const wk_gpu_norm_args &p)
{
    nm_entry<NM_LAYER, R, T, LW>(p);
}

/* ---------------------------------------------------------------- channels: x as (N, C, S)
 * y = (x - center) * scale [* w[c]] [+ b[c]] in the compute type. */
template <class T>
__device__ __forceinline__ void nm_chan_put(const wk_gpu_norm_chan_args &p, int64_t i, int64_t c,
                                            typename nm_c<T>::type center, typename nm_c<T>::type scale)
{
    typedef typename nm_c<T>::type C;
    int64_t s = i % p.S, n = i / (p.S * p.C);
    C y = ((C)wk_ld_ro((const T *)p.x + n * p.sn + c * p.sc + s * p.ss) - center) * scale;
    if (p.w)
        y *= (C)wk_ld_ro((const T *)p.w + c * p.pw);
    if (p.b)
        y += (C)wk_ld_ro((const T *)p.b + c * p.pb);
    wk_st((T *)p.out + i, y);
}

/* batch_norm: a thread an element of out. */
template <class T, class TB, int LW> __device__ __forceinline__ void norm_batch_run(const wk_gpu_norm_chan_args &p)
{
    typedef typename nm_c<T>::type C;
    WK_GRID_LOOP(i, p.N * p.C * p.S)
    {
        int64_t c = i / p.S % p.C;
        C var = wk_ld_ro((const T *)p.var + c * p.pv);
        nm_chan_put<T>(p, i, c, wk_ld_ro((const T *)p.mean + c * p.pm), (C)(1.0 / sqrt((double)var + p.eps)));
    }
}

/* group_norm: a block a (sample, group); sums in f64, two passes (the mean, then the squared deviations). */
template <class T, class TB, int LW> __device__ __forceinline__ void norm_group_run(const wk_gpu_norm_chan_args &p)
{
    typedef typename nm_c<T>::type C;
    int64_t cpg = p.C / p.G, m = cpg * p.S;
    int G = blockDim.x;
    for (int64_t k = blockIdx.x; k < p.N * p.G; k += gridDim.x) {
        int64_t n = k / p.G, c0 = k % p.G * cpg;
        const T *x = (const T *)p.x + n * p.sn;
#define NM_GX(j) (double)wk_ld_ro(x + (c0 + (j) / p.S) * p.sc + (j) % p.S * p.ss)
        double sum = 0, sq = 0;
        for (int64_t j = threadIdx.x; j < m; j += G)
            sum += NM_GX(j);
        double mean = wk_group_reduce<LW>(sum, wk_op_sum(), G) / (double)m;
        for (int64_t j = threadIdx.x; j < m; j += G) {
            double d = NM_GX(j) - mean;
            sq += d * d;
        }
        sq = wk_group_reduce<LW>(sq, wk_op_sum(), G);
#undef NM_GX
        C scale = (C)(1.0 / sqrt(sq / (double)m + p.eps));
        for (int64_t j = threadIdx.x; j < m; j += G)
            nm_chan_put<T>(p, (n * p.C + c0) * p.S + j, c0 + j / p.S, (C)mean, scale);
    }
}

WK_NORM_KERNELS(WK_DEFINE_KERNELS)
