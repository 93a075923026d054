/* scan.cu: cumsum, cumprod and logcumsumexp. Accumulators: f32 for f16/bf16/f32, f64 for f64, 64-bit wrapping
 * for integers (out i64). scan_rows: a block a line along the last dim, chunk by chunk: the chunk is read
 * coalesced into shared memory, each thread scans SC_ITEMS consecutive elements, the threads' totals are scanned
 * across the block, and the chunk is written back coalesced; the carry goes on to the next chunk. scan_cols: a
 * thread a line along another dim (neighbouring threads read neighbouring elements), its loads batched. */
#include "common.cuh"
#include "scan.h"

template <class T> struct sc_acc { typedef float type; static constexpr bool INT = false; };
template <> struct sc_acc<double> { typedef double type; static constexpr bool INT = false; };
template <> struct sc_acc<uint8_t> { typedef uint64_t type; static constexpr bool INT = true; };
template <> struct sc_acc<uint32_t> { typedef uint64_t type; static constexpr bool INT = true; };
template <> struct sc_acc<int32_t> { typedef uint64_t type; static constexpr bool INT = true; };
template <> struct sc_acc<int64_t> { typedef uint64_t type; static constexpr bool INT = true; };
struct sc_u64 { typedef uint64_t type; static constexpr bool INT = true; }; /* the accumulator's own traits */
template <> struct sc_acc<uint64_t> : sc_u64 {};

/* The element as an accumulator: integers sign- or zero-extended to 64 bits. */
template <class T> __device__ __forceinline__ typename sc_acc<T>::type sc_load(const T *p)
{
    if constexpr (sc_acc<T>::INT)
        return (uint64_t)(int64_t)wk_ldg(p);
    else
        return (typename sc_acc<T>::type)wk_ld_ro(p);
}

template <class T> __device__ __forceinline__ void sc_store(T *out, int64_t i, typename sc_acc<T>::type v)
{
    if constexpr (sc_acc<T>::INT)
        ((int64_t *)(void *)out)[i] = (int64_t)v;
    else
        wk_st(out + i, v);
}

/* PyTorch's log-add-exp step: equal infinities stay, NaN spreads. */
__device__ __forceinline__ float sc_log1p_exp(float d) { return log1pf(expf(d)); }
__device__ __forceinline__ double sc_log1p_exp(double d) { return log1p(exp(d)); }
template <class A> __device__ __forceinline__ A sc_lae(A x, A y)
{
    bool y_nan = y != y; /* a NaN y must win either way, as in PyTorch's helper */
    A lo = y_nan ? y : y < x ? y : x, hi = y_nan ? y : x < y ? y : x;
    if (lo != hi || lo - lo == 0) /* lo - lo == 0: lo is finite */
        return hi + sc_log1p_exp(lo - hi);
    return x;
}

template <class A> __device__ __forceinline__ A sc_identity(int op)
{
    if constexpr (sc_acc<A>::INT)
        return op == SC_PROD ? 1 : 0;
    else
        return op == SC_SUM ? (A)0 : op == SC_PROD ? (A)1 : -(A)INFINITY;
}

/* a then b: the running value a followed by b. */
template <class A> __device__ __forceinline__ A sc_op(int op, A a, A b)
{
    if constexpr (sc_acc<A>::INT)
        return op == SC_SUM ? a + b : a * b;
    else
        return op == SC_SUM ? a + b : op == SC_PROD ? a * b : sc_lae(b, a);
}

/* Shared-memory slot of chunk element i, padded so that a thread's SC_ITEMS consecutive slots fall in different
 * banks across the warp. */
__device__ __forceinline__ int sc_slot(int i) { return i + (i >> 5); }

template <class T, class TB, int LW> __device__ void scan_rows_run(const wk_gpu_scan_args &p)
{
    typedef typename sc_acc<T>::type A;
    __shared__ A buf[SC_CHUNK + SC_CHUNK / 32];
    __shared__ A tot[SC_BLOCK];
    const T *x = (const T *)p.x;
    T *out = (T *)p.out;
    int t = threadIdx.x, op = p.op;
    for (int64_t L = blockIdx.x; L < p.nlines; L += gridDim.x) {
        const T *xl = x + wk_offset(p.lines, L);
        int64_t ol = L * p.n;
        A carry = sc_identity<A>(op);
        for (int64_t base = 0; base < p.n; base += SC_CHUNK) {
#pragma unroll
            for (int j = 0; j < SC_ITEMS; j++) {
                int i = j * SC_BLOCK + t;
                buf[sc_slot(i)] = base + i < p.n ? sc_load(xl + (base + i) * p.s) : sc_identity<A>(op);
            }
            __syncthreads();
            A v[SC_ITEMS];
            A run = sc_identity<A>(op);
#pragma unroll
            for (int j = 0; j < SC_ITEMS; j++)
                v[j] = run = sc_op(op, run, buf[sc_slot(t * SC_ITEMS + j)]);
            tot[t] = run;
            __syncthreads();
            for (int o = 1; o < SC_BLOCK; o <<= 1) { /* inclusive scan of the totals */
                A a = t >= o ? sc_op(op, tot[t - o], tot[t]) : tot[t];
                __syncthreads();
                tot[t] = a;
                __syncthreads();
            }
            A pre = t > 0 ? sc_op(op, carry, tot[t - 1]) : carry;
#pragma unroll
            for (int j = 0; j < SC_ITEMS; j++)
                buf[sc_slot(t * SC_ITEMS + j)] = sc_op(op, pre, v[j]);
            carry = sc_op(op, carry, tot[SC_BLOCK - 1]);
            __syncthreads();
#pragma unroll
            for (int j = 0; j < SC_ITEMS; j++) {
                int i = j * SC_BLOCK + t;
                if (base + i < p.n)
                    sc_store(out, ol + base + i, buf[sc_slot(i)]);
            }
            __syncthreads(); /* buf and tot are refilled by the next chunk */
        }
    }
}

#define SC_BATCH 8 /* loads a thread issues before it accumulates them (scan_cols) */

template <class T, class TB, int LW> __device__ void scan_cols_run(const wk_gpu_scan_args &p)
{
    typedef typename sc_acc<T>::type A;
    const T *x = (const T *)p.x;
    T *out = (T *)p.out;
    int op = p.op;
    WK_GRID_LOOP(L, p.nlines)
    {
        const T *xl = x + wk_offset(p.lines, L);
        int64_t ol = (L / p.inner) * p.n * p.inner + L % p.inner;
        A acc = sc_identity<A>(op);
        for (int64_t k0 = 0; k0 < p.n; k0 += SC_BATCH) {
            A v[SC_BATCH];
#pragma unroll
            for (int j = 0; j < SC_BATCH; j++)
                v[j] = k0 + j < p.n ? sc_load(xl + (k0 + j) * p.s) : sc_identity<A>(op);
#pragma unroll
            for (int j = 0; j < SC_BATCH; j++)
                if (k0 + j < p.n) {
                    acc = sc_op(op, acc, v[j]);
                    sc_store(out, ol + (k0 + j) * p.inner, acc);
                }
        }
    }
}

WK_SCAN_KERNELS(WK_DEFINE_KERNELS)
