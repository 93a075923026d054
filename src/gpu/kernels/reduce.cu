/* reduce.cu: sum/min/max (mean is sum with a division at the store) and argmin/argmax kernels (reduce.h): runs
 * along the reduced dims (a group of lanes per run), columns of outputs (a thread per output), merge of partials.
 * Warp width (wave64, wave32): the runs and merge kernels combine lanes only through wk_group_reduce at the
 * width LW they are built for (WK_WIDTHS, common.cuh), and a group of G <= 32 lanes fits in a warp of every
 * target; the column kernels combine through shared memory with a barrier after every step and never rely on
 * the lanes of a warp running together, so they are the same code at any width. */
#include "common.cuh"
#include "reduce.h"

/* ---------------------------------------------------------------- types and operators
 * Accumulators: sums wrap in u32 (u8, u32, i32) or u64 (i64), f16/bf16/f32 sum in f32, f64 in f64; min/max
 * and argmin/argmax compare in the compute type (u8 widened to u32 so that shuffles see a 32-bit value). */
template <class T> struct red_sum_acc { typedef T type; };
template <> struct red_sum_acc<uint8_t> { typedef uint32_t type; };
template <> struct red_sum_acc<int32_t> { typedef uint32_t type; };
template <> struct red_sum_acc<int64_t> { typedef uint64_t type; };
template <> struct red_sum_acc<wk_f16> { typedef float type; };
template <> struct red_sum_acc<wk_bf16> { typedef float type; };
template <class T> struct red_cmp_acc { typedef typename wk_compute<T>::type type; };
template <> struct red_cmp_acc<uint8_t> { typedef uint32_t type; };

/* The host sizes partials by WK_RED_ACC_BYTES. */
#define RED_ACC_CHECK(sfx, T, ...)                                                                                \
    static_assert(sizeof(red_sum_acc<T>::type) == WK_RED_ACC_BYTES(sizeof(T)), "sum partial size");              \
    static_assert(sizeof(red_cmp_acc<T>::type) == WK_RED_ACC_BYTES(sizeof(T)), "compare partial size");
WK_AX_DT_ALL(RED_ACC_CHECK, RED_ACC_CHECK, ~)
#undef RED_ACC_CHECK
static_assert(sizeof(wk_w16) == WK_RED_VEC, "vector load size");

/* The largest and smallest value of each compare type: the identities of min and max. */
template <class A> struct red_lim;
template <> struct red_lim<uint32_t> {
    static __device__ uint32_t lo() { return 0; }
    static __device__ uint32_t hi() { return 0xffffffffu; }
};
template <> struct red_lim<int32_t> {
    static __device__ int32_t lo() { return (int32_t)0x80000000u; }
    static __device__ int32_t hi() { return 0x7fffffff; }
};
template <> struct red_lim<int64_t> {
    static __device__ int64_t lo() { return (int64_t)0x8000000000000000ull; }
    static __device__ int64_t hi() { return 0x7fffffffffffffffll; }
};
template <> struct red_lim<float> {
    static __device__ float lo() { return -(float)INFINITY; }
    static __device__ float hi() { return (float)INFINITY; }
};
template <> struct red_lim<double> {
    static __device__ double lo() { return -(double)INFINITY; }
    static __device__ double hi() { return (double)INFINITY; }
};

template <class A> __device__ __forceinline__ bool red_isnan(A v) { return v != v; } /* false for integers */

/* A sum of floats in f32 over a long run: values go into a block accumulator that is added into the total
 * every RED_FLUSH steps, so no term passes through a long chain of f32 adds (the CPU's two-level scheme). */
#define RED_FLUSH 16

template <class A> struct red_sum {
    typedef A acc;
    static constexpr bool two_level = sizeof(A) == 4 && (A)0.5f != 0; /* f32 only: integers wrap exactly */
    static __device__ A ident() { return (A)0; }
    __device__ A operator()(A a, A b) const { return a + b; }
};
/* NaN wins from either side (PyTorch); otherwise ties keep a. */
template <class A> struct red_max {
    typedef A acc;
    static constexpr bool two_level = false;
    static __device__ A ident() { return red_lim<A>::lo(); }
    __device__ A operator()(A a, A b) const { return (b > a || red_isnan(b)) ? b : a; }
};
template <class A> struct red_min {
    typedef A acc;
    static constexpr bool two_level = false;
    static __device__ A ident() { return red_lim<A>::hi(); }
    __device__ A operator()(A a, A b) const { return (b < a || red_isnan(b)) ? b : a; }
};

/* The items of the op axis (reduce.h): the operator for storage type T. */
struct red_op_sum { template <class T> using op = red_sum<typename red_sum_acc<T>::type>; };
struct red_op_min { template <class T> using op = red_min<typename red_cmp_acc<T>::type>; };
struct red_op_max { template <class T> using op = red_max<typename red_cmp_acc<T>::type>; };

template <class A> __device__ __forceinline__ A red_mean(A v, int64_t count) { return v / (A)count; }
__device__ __forceinline__ uint32_t red_mean(uint32_t v, int64_t) { return v; } /* mean: float only */
__device__ __forceinline__ uint64_t red_mean(uint64_t v, int64_t) { return v; }
__device__ __forceinline__ int32_t red_mean(int32_t v, int64_t) { return v; }
__device__ __forceinline__ int64_t red_mean(int64_t v, int64_t) { return v; }

/* out = the accumulator in the storage type; integer sums wrap to the dtype; mean of nothing: 0/0 = NaN. */
template <class T, class A> __device__ __forceinline__ void red_store(T *p, A v, int64_t count, int mean)
{
    if (mean)
        v = red_mean(v, count);
    wk_st(p, (typename wk_compute<T>::type)v);
}

template <class T, class A> __device__ __forceinline__ A red_load(const T *p) { return (A)wk_ld(p); }
template <class T, class A> __device__ __forceinline__ A red_conv(T v) { return (A)wk_ld(&v); }

/* ---------------------------------------------------------------- one run, spread over a group's lanes */

/* op over the elements of one vector, pairwise. */
template <class T, class Op> __device__ __forceinline__ typename Op::acc red_vreduce(const wk_w16 &v, Op op)
{
    typedef typename Op::acc A;
    constexpr int V = WK_RED_VEC / sizeof(T);
    A e[V];
#pragma unroll
    for (int k = 0; k < V; k++)
        e[k] = red_conv<T, A>(wk_w16_get<T>(v, k));
    if constexpr (V >= 16) {
#pragma unroll
        for (int k = 0; k < 8; k++)
            e[k] = op(e[k], e[k + 8]);
    }
    if constexpr (V >= 8) {
#pragma unroll
        for (int k = 0; k < 4; k++)
            e[k] = op(e[k], e[k + 4]);
    }
    if constexpr (V >= 4) {
        e[0] = op(e[0], e[2]);
        e[1] = op(e[1], e[3]);
    }
    return op(e[0], e[1]);
}

/* Lane `lane` of G: op over p[0], p[s], ..., p[(n-1)s], its share. A contiguous run is read as a scalar
 * head up to 16-byte alignment, 16-byte vectors (four in flight per lane), and a scalar tail. */
template <class T, class Op>
__device__ typename Op::acc red_run(const T *__restrict__ p, int64_t n, int64_t s, int lane, int G, Op op)
{
    typedef typename Op::acc A;
    constexpr int V = WK_RED_VEC / sizeof(T);
    A tot = Op::ident(), blk = Op::ident();
    int steps = 0;
    if (s != 1) {
        int64_t i = lane;
        for (; i + G < n; i += 2 * (int64_t)G) {
            A a = op(red_load<T, A>(p + i * s), red_load<T, A>(p + (i + G) * s));
            blk = op(blk, a);
            if (Op::two_level && ++steps == RED_FLUSH) {
                tot = op(tot, blk);
                blk = Op::ident();
                steps = 0;
            }
        }
        if (i < n)
            blk = op(blk, red_load<T, A>(p + i * s));
        return op(tot, blk);
    }
    int64_t h = (int64_t)(((16 - ((uintptr_t)p & 15)) & 15) / sizeof(T));
    h = h < n ? h : n;
    for (int64_t i = lane; i < h; i += G)
        tot = op(tot, red_load<T, A>(p + i));
    const wk_w16 *q = (const wk_w16 *)(p + h);
    int64_t nv = (n - h) / V, j = lane;
    for (; j + 3 * (int64_t)G < nv; j += 4 * (int64_t)G) {
        wk_w16 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = q[j + u * (int64_t)G];
        A e0 = red_vreduce<T>(v[0], op), e1 = red_vreduce<T>(v[1], op), e2 = red_vreduce<T>(v[2], op);
        blk = op(blk, op(op(e0, e1), op(e2, red_vreduce<T>(v[3], op))));
        if (Op::two_level && ++steps == RED_FLUSH) {
            tot = op(tot, blk);
            blk = Op::ident();
            steps = 0;
        }
    }
    for (; j < nv; j += G) {
        wk_w16 v = q[j];
        blk = op(blk, red_vreduce<T>(v, op));
    }
    for (int64_t i = h + nv * V + lane; i < n; i += G)
        tot = op(tot, red_load<T, A>(p + i));
    return op(tot, blk);
}

/* ---------------------------------------------------------------- runs: a group of G lanes per run
 * The reduced elements of output o are nq runs (the outer reduced dims, layout Q) of L elements, stride rs;
 * each run may be cut into `splits` pieces. Item t = (o * nq + q) * splits + piece. With one item per output
 * the group stores the result; otherwise part[t] takes the item's partial for reduce_finish.
 * G <= LW (the logical warp width): blockDim.x / G groups per block; G > LW: G == blockDim.x. */
template <int LW, class T, class Op>
__device__ void red_rows(const T *__restrict__ x, const wk_gpu_layout &K, const wk_gpu_layout &Q, int64_t nq,
                         int64_t L, int64_t rs, int64_t splits, int64_t nitems, int G, typename Op::acc *part,
                         T *out, int64_t count, int mean)
{
    typedef typename Op::acc A;
    Op op;
    int lane = (int)(threadIdx.x % (unsigned)G);
    int64_t per = G <= LW ? blockDim.x / G : 1, grp = threadIdx.x / G;
    for (int64_t base = (int64_t)blockIdx.x * per; base < nitems; base += (int64_t)gridDim.x * per) {
        int64_t t = base + grp;
        A v = Op::ident();
        if (t < nitems) {
            int64_t o = t, q = 0, a = 0, e = L; /* no 64-bit divisions in the common case */
            if (splits > 1) {
                o = t / splits;
                int64_t piece = t - o * splits;
                a = L * piece / splits;
                e = L * (piece + 1) / splits;
            }
            if (nq > 1) {
                q = o % nq;
                o /= nq;
            }
            const T *p = x + wk_offset(K, o) + wk_offset(Q, q) + a * rs;
            v = red_run(p, e - a, rs, lane, G, op);
        }
        v = wk_group_reduce<LW>(v, op, G);
        if (t < nitems && lane == 0) {
            if (nq * splits == 1)
                red_store(out + t, v, count, mean);
            else
                part[t] = v;
        }
    }
}

/* ---------------------------------------------------------------- columns: a thread per V outputs
 * For reductions over leading dims: neighbouring threads take neighbouring outputs, so every load of a warp
 * is one contiguous stretch of x. Block (bx, by), by a power of two. The reduced range is cut into `splits`
 * pieces; an item is (piece, tile of bx columns), item = piece * ntiles + tile, taken by the blocks in turn
 * (many small items keep the SMs evenly busy to the end). The by threads of a column split the piece into
 * contiguous chunks, merged through shared memory. V > 1: each thread reads V neighbouring outputs with one
 * 16-byte load (the host checked that the innermost kept dim is contiguous, a multiple of V long, and that
 * every other stride keeps 16-byte alignment). One piece: the result goes to out; several:
 * part[piece * nout + o]. */
/* This thread's share of its V columns from c * V on: op over rows r0 .. r1 - 1 of the reduced range, into
 * mine[0 .. V - 1] (the identity when it has none). Apart from red_cols so that each stays short; tot and blk
 * stay local here, as arrays passed by reference would go to the stack. */
template <class T, class Op, int V>
__device__ __forceinline__ void red_cols_share(const T *__restrict__ x, const wk_gpu_layout &K,
                                               const wk_gpu_layout &Q, int64_t L, int64_t rs, int64_t c,
                                               int64_t ncols, int64_t r0, int64_t r1, typename Op::acc *mine)
{
    typedef typename Op::acc A;
    constexpr int U = V == 2 || V == 4 ? 8 : 4; /* rows whose loads go out together (8: 128 bytes a thread) */
    Op op;
    A tot[V], blk[V];
#pragma unroll
    for (int k = 0; k < V; k++)
        tot[k] = blk[k] = Op::ident();
    if (c < ncols && r0 < r1) {
        const T *xc = x + wk_offset(K, c * V);
        int64_t q = r0 / L, i = r0 - q * L, left = r1 - r0;
        int steps = 0;
        for (; left > 0; q++, i = 0) { /* runs of the innermost reduced dim, pointer stepped by rs */
            int64_t run = L - i < left ? L - i : left;
            const T *p = xc + wk_offset(Q, q) + i * rs;
            left -= run;
            for (; run >= U; run -= U, p += U * rs) {
                A e[U][V];
                if constexpr (V > 1) {
                    wk_w16 v[U];
#pragma unroll
                    for (int u = 0; u < U; u++)
                        v[u] = *(const wk_w16 *)(p + u * rs);
#pragma unroll
                    for (int u = 0; u < U; u++)
#pragma unroll
                        for (int m = 0; m < V; m++)
                            e[u][m] = red_conv<T, A>(wk_w16_get<T>(v[u], m));
                } else {
#pragma unroll
                    for (int u = 0; u < U; u++)
                        e[u][0] = red_load<T, A>(p + u * rs);
                }
#pragma unroll
                for (int m = 0; m < V; m++) {
                    A t = op(op(e[0][m], e[1][m]), op(e[2][m], e[3][m]));
                    if constexpr (U == 8)
                        t = op(t, op(op(e[4][m], e[5][m]), op(e[6][m], e[7][m])));
                    blk[m] = op(blk[m], t);
                }
                if (Op::two_level && ++steps == RED_FLUSH * 2 / U) {
#pragma unroll
                    for (int m = 0; m < V; m++) {
                        tot[m] = op(tot[m], blk[m]);
                        blk[m] = Op::ident();
                    }
                    steps = 0;
                }
            }
            for (; run > 0; run--, p += rs) {
                if constexpr (V > 1) {
                    wk_w16 v = *(const wk_w16 *)p;
#pragma unroll
                    for (int m = 0; m < V; m++)
                        blk[m] = op(blk[m], red_conv<T, A>(wk_w16_get<T>(v, m)));
                } else {
                    blk[0] = op(blk[0], red_load<T, A>(p));
                }
            }
        }
    }
#pragma unroll
    for (int m = 0; m < V; m++)
        mine[m] = op(tot[m], blk[m]);
}

template <class T, class Op, int V>
__device__ void red_cols(const T *__restrict__ x, const wk_gpu_layout &K, const wk_gpu_layout &Q, int64_t L,
                         int64_t rs, int64_t nout, int64_t count, int64_t splits, typename Op::acc *part, T *out,
                         int mean)
{
    typedef typename Op::acc A;
    __shared__ A sh[WK_RED_THREADS * V];
    Op op;
    int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
    int64_t ncols = nout / V, ntiles = (ncols + bx - 1) / bx;
    for (int64_t item = blockIdx.x; item < ntiles * splits; item += gridDim.x) {
        int64_t piece = item / ntiles, tile = item - piece * ntiles, c = tile * bx + tx;
        int64_t a = count * piece / splits, len = count * (piece + 1) / splits - a;
        int64_t r0 = a + len * ty / by, r1 = a + len * (ty + 1) / by;
        A *mine = sh + ((int64_t)ty * bx + tx) * V;
        red_cols_share<T, Op, V>(x, K, Q, L, rs, c, ncols, r0, r1, mine);
        __syncthreads();
        for (int h = by / 2; h > 0; h >>= 1) {
            if (ty < h) {
                const A *other = mine + (int64_t)h * bx * V;
#pragma unroll
                for (int m = 0; m < V; m++)
                    mine[m] = op(mine[m], other[m]);
            }
            __syncthreads();
        }
        if (ty == 0 && c < ncols) {
#pragma unroll
            for (int m = 0; m < V; m++) {
                if (splits == 1)
                    red_store(out + c * V + m, mine[m], count, mean);
                else
                    part[piece * nout + c * V + m] = mine[m];
            }
        }
        __syncthreads(); /* sh is reused by the next item */
    }
}

/* ---------------------------------------------------------------- merging partials
 * Output o = op over part[o * so + i * ss], i < np (np 0: the identity, an empty sum or mean); G lanes
 * per output as in red_rows. */
template <int LW, class T, class Op>
__device__ void red_finish(const typename Op::acc *part, int64_t np, int64_t so, int64_t ss, int64_t nout, int G,
                           T *out, int64_t count, int mean)
{
    typedef typename Op::acc A;
    Op op;
    int lane = (int)(threadIdx.x % (unsigned)G);
    int64_t per = G <= LW ? blockDim.x / G : 1, grp = threadIdx.x / G;
    for (int64_t base = (int64_t)blockIdx.x * per; base < nout; base += (int64_t)gridDim.x * per) {
        int64_t o = base + grp;
        A v = Op::ident();
        if (o < nout)
            for (int64_t i = lane; i < np; i += G)
                v = op(v, part[o * so + i * ss]);
        v = wk_group_reduce<LW>(v, op, G);
        if (o < nout && lane == 0)
            red_store(out + o, v, count, mean);
    }
}

/* ---------------------------------------------------------------- entry points (reduce.h's list)
 * OPT: the op axis's item; T: the storage type; LW: the logical warp width of the runs and merge kernels. */
template <class OPT, class T, int LW> __device__ __forceinline__ void reduce_rows_run(const wk_gpu_reduce_args &p)
{
    typedef typename OPT::template op<T> Op;
    const T *x = (const T *)p.x;
    red_rows<LW, T, Op>(x, p.K, p.Q, p.nq, p.L, p.rs, p.splits, p.nitems, p.G, (typename Op::acc *)p.part,
                        (T *)p.out, p.count, p.mean);
}
template <class OPT, class T, int LW> __device__ __forceinline__ void reduce_finish_run(const wk_gpu_reduce_args &p)
{
    typedef typename OPT::template op<T> Op;
    const typename Op::acc *part = (const typename Op::acc *)p.part;
    red_finish<LW, T, Op>(part, p.np, p.so, p.ss, p.nout, p.G, (T *)p.out, p.count, p.mean);
}
template <class OPT, class T, int> __device__ __forceinline__ void reduce_cols_run(const wk_gpu_reduce_args &p)
{
    typedef typename OPT::template op<T> Op;
    const T *x = (const T *)p.x;
    red_cols<T, Op, 1>(x, p.K, p.Q, p.L, p.rs, p.nout, p.count, p.splits, (typename Op::acc *)p.part, (T *)p.out,
                       p.mean);
}
template <class OPT, class T, int> __device__ __forceinline__ void reduce_colsv_run(const wk_gpu_reduce_args &p)
{
    typedef typename OPT::template op<T> Op;
    const T *x = (const T *)p.x;
    red_cols<T, Op, WK_RED_VEC / sizeof(T)>(x, p.K, p.Q, p.L, p.rs, p.nout, p.count, p.splits,
                                            (typename Op::acc *)p.part, (T *)p.out, p.mean);
}

/* ================================================================ argmin / argmax over the last dim
 * A candidate is (value, index); (v, i) beats (bv, bi) when it is strictly better, or equal with a smaller
 * index, where any NaN is better than every number and the NaN of the smaller index wins. The identity has
 * index INT64_MAX, so that any element, even one equal to the identity's value, replaces it. */
#define ARG_NONE 0x7fffffffffffffffll

struct arg_lt { template <class C> __device__ bool operator()(C a, C b) const { return a < b; } };
struct arg_gt { template <class C> __device__ bool operator()(C a, C b) const { return a > b; } };

template <class C, class Cmp> __device__ __forceinline__ bool arg_beats(C v, int64_t i, C bv, int64_t bi, Cmp cmp)
{
    if (red_isnan(bv))
        return red_isnan(v) && i < bi;
    if (red_isnan(v) || cmp(v, bv))
        return true;
    return v == bv && i < bi;
}

template <class C, class Cmp> __device__ __forceinline__ void arg_take(C &bv, int64_t &bi, C v, int64_t i, Cmp cmp)
{
    if (arg_beats(v, i, bv, bi, cmp)) {
        bv = v;
        bi = i;
    }
}

template <class C, class Cmp> __device__ __forceinline__ C arg_ident(Cmp);
template <> __device__ __forceinline__ uint32_t arg_ident<uint32_t, arg_lt>(arg_lt) { return red_lim<uint32_t>::hi(); }
template <> __device__ __forceinline__ uint32_t arg_ident<uint32_t, arg_gt>(arg_gt) { return red_lim<uint32_t>::lo(); }
template <> __device__ __forceinline__ int32_t arg_ident<int32_t, arg_lt>(arg_lt) { return red_lim<int32_t>::hi(); }
template <> __device__ __forceinline__ int32_t arg_ident<int32_t, arg_gt>(arg_gt) { return red_lim<int32_t>::lo(); }
template <> __device__ __forceinline__ int64_t arg_ident<int64_t, arg_lt>(arg_lt) { return red_lim<int64_t>::hi(); }
template <> __device__ __forceinline__ int64_t arg_ident<int64_t, arg_gt>(arg_gt) { return red_lim<int64_t>::lo(); }
template <> __device__ __forceinline__ float arg_ident<float, arg_lt>(arg_lt) { return red_lim<float>::hi(); }
template <> __device__ __forceinline__ float arg_ident<float, arg_gt>(arg_gt) { return red_lim<float>::lo(); }
template <> __device__ __forceinline__ double arg_ident<double, arg_lt>(arg_lt) { return red_lim<double>::hi(); }
template <> __device__ __forceinline__ double arg_ident<double, arg_gt>(arg_gt) { return red_lim<double>::lo(); }

/* The better of two candidates, as a group reduction operator. */
template <class C, class Cmp> struct arg_best {
    Cmp cmp;
    __device__ wk_pair<C, int64_t> operator()(wk_pair<C, int64_t> x, wk_pair<C, int64_t> y) const
    {
        arg_take(x.a, x.b, y.a, y.b, cmp);
        return x;
    }
};

/* The best candidate of a group of G lanes (wk_group_reduce), given to every lane. */
template <int LW, class C, class Cmp> __device__ void arg_group(C &bv, int64_t &bi, int G, Cmp cmp)
{
    wk_pair<C, int64_t> r = wk_group_reduce<LW>(wk_pair<C, int64_t>{bv, bi}, arg_best<C, Cmp>{cmp}, G);
    bv = r.a;
    bi = r.b;
}

/* Rows: item t = o * splits + piece of the row of output o (n elements, stride s); as red_rows. */
template <int LW, class T, class C, class Cmp>
__device__ void arg_rows(const T *__restrict__ x, const wk_gpu_layout &K, int64_t n, int64_t s, int64_t splits,
                         int64_t nitems, int G, C *pv, int64_t *pi, int64_t *out, Cmp cmp)
{
    int lane = (int)(threadIdx.x % (unsigned)G);
    int64_t per = G <= LW ? blockDim.x / G : 1, grp = threadIdx.x / G;
    for (int64_t base = (int64_t)blockIdx.x * per; base < nitems; base += (int64_t)gridDim.x * per) {
        int64_t t = base + grp;
        C bv = arg_ident<C>(cmp);
        int64_t bi = ARG_NONE;
        if (t < nitems) {
            int64_t o = t, a = 0, e = n;
            if (splits > 1) {
                o = t / splits;
                int64_t piece = t - o * splits;
                a = n * piece / splits;
                e = n * (piece + 1) / splits;
            }
            const T *p = x + wk_offset(K, o);
            int64_t i = a + lane;
            for (; i + G < e; i += 2 * (int64_t)G) {
                C v0 = (C)wk_ld(p + i * s), v1 = (C)wk_ld(p + (i + G) * s);
                arg_take(bv, bi, v0, i, cmp);
                arg_take(bv, bi, v1, i + G, cmp);
            }
            if (i < e)
                arg_take(bv, bi, (C)wk_ld(p + i * s), i, cmp);
        }
        arg_group<LW>(bv, bi, G, cmp);
        if (t < nitems && lane == 0) {
            if (splits == 1) {
                out[t] = bi;
            } else {
                pv[t] = bv;
                pi[t] = bi;
            }
        }
    }
}

/* Columns: as red_cols with V = 1; several pieces leave (pv, pi)[piece * nout + o]. */
template <class T, class C, class Cmp>
__device__ void arg_cols(const T *__restrict__ x, const wk_gpu_layout &K, int64_t n, int64_t s, int64_t nout,
                         int64_t splits, C *pv, int64_t *pi, int64_t *out, Cmp cmp)
{
    __shared__ C sv[WK_RED_THREADS];
    __shared__ int64_t si[WK_RED_THREADS];
    int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
    int64_t ntiles = (nout + bx - 1) / bx;
    int me = ty * bx + tx;
    for (int64_t item = blockIdx.x; item < ntiles * splits; item += gridDim.x) {
        int64_t piece = item / ntiles, tile = item - piece * ntiles, o = tile * bx + tx;
        int64_t a = n * piece / splits, len = n * (piece + 1) / splits - a;
        int64_t r0 = a + len * ty / by, r1 = a + len * (ty + 1) / by;
        C bv = arg_ident<C>(cmp);
        int64_t bi = ARG_NONE;
        if (o < nout) {
            const T *p = x + wk_offset(K, o);
            int64_t r = r0;
            for (; r + 1 < r1; r += 2) {
                C v0 = (C)wk_ld(p + r * s), v1 = (C)wk_ld(p + (r + 1) * s);
                arg_take(bv, bi, v0, r, cmp);
                arg_take(bv, bi, v1, r + 1, cmp);
            }
            if (r < r1)
                arg_take(bv, bi, (C)wk_ld(p + r * s), r, cmp);
        }
        sv[me] = bv;
        si[me] = bi;
        __syncthreads();
        for (int h = by / 2; h > 0; h >>= 1) {
            if (ty < h) {
                C v = sv[me];
                int64_t i = si[me];
                arg_take(v, i, sv[me + h * bx], si[me + h * bx], cmp);
                sv[me] = v;
                si[me] = i;
            }
            __syncthreads();
        }
        if (ty == 0 && o < nout) {
            if (splits == 1) {
                out[o] = si[me];
            } else {
                pv[piece * nout + o] = sv[me];
                pi[piece * nout + o] = si[me];
            }
        }
        __syncthreads();
    }
}

/* out[o] = the index of the best of (pv, pi)[o * so + k * ss], k < np (np >= 1). */
template <int LW, class C, class Cmp>
__device__ void arg_finish(const C *pv, const int64_t *pi, int64_t np, int64_t so, int64_t ss, int64_t nout, int G,
                           int64_t *out, Cmp cmp)
{
    int lane = (int)(threadIdx.x % (unsigned)G);
    int64_t per = G <= LW ? blockDim.x / G : 1, grp = threadIdx.x / G;
    for (int64_t base = (int64_t)blockIdx.x * per; base < nout; base += (int64_t)gridDim.x * per) {
        int64_t o = base + grp;
        C bv = arg_ident<C>(cmp);
        int64_t bi = ARG_NONE;
        if (o < nout)
            for (int64_t k = lane; k < np; k += G)
                arg_take(bv, bi, pv[o * so + k * ss], pi[o * so + k * ss], cmp);
        arg_group<LW>(bv, bi, G, cmp);
        if (o < nout && lane == 0)
            out[o] = bi;
    }
}

/* Entry points (reduce.h's list): CMP, the op axis's item, picks min (arg_lt) or max (arg_gt); n is L, s is rs. */
template <class CMP, class T, int LW> __device__ __forceinline__ void argreduce_rows_run(const wk_gpu_reduce_args &p)
{
    typedef typename red_cmp_acc<T>::type C;
    const T *x = (const T *)p.x;
    arg_rows<LW, T, C>(x, p.K, p.L, p.rs, p.splits, p.nitems, p.G, (C *)p.part, (int64_t *)p.part_idx,
                       (int64_t *)p.out, CMP());
}
template <class CMP, class T, int LW>
__device__ __forceinline__ void argreduce_finish_run(const wk_gpu_reduce_args &p)
{
    typedef typename red_cmp_acc<T>::type C;
    const C *pv = (const C *)p.part;
    const int64_t *pi = (const int64_t *)p.part_idx;
    arg_finish<LW, C>(pv, pi, p.np, p.so, p.ss, p.nout, p.G, (int64_t *)p.out, CMP());
}
template <class CMP, class T, int> __device__ __forceinline__ void argreduce_cols_run(const wk_gpu_reduce_args &p)
{
    typedef typename red_cmp_acc<T>::type C;
    const T *x = (const T *)p.x;
    arg_cols<T, C>(x, p.K, p.L, p.rs, p.nout, p.splits, (C *)p.part, (int64_t *)p.part_idx, (int64_t *)p.out,
                   CMP());
}

WK_REDUCE_KERNELS(WK_DEFINE_KERNELS)
