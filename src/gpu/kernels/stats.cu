/* stats.cu: var, std, logsumexp and the 1-, 2- and inf-norms over rows, a block a row. var, std and the 1- and
 * 2-norms sum in f64 (var in two passes: the mean, then the squared deviations); logsumexp and the inf-norm take
 * the max with a NaN count, and logsumexp then sums exp(x - max) in the compute type (f32, f64 for f64). */
#include "common.cuh"
#include "stats.h"

__device__ __forceinline__ float st_exp(float v) { return expf(v); }
__device__ __forceinline__ double st_exp(double v) { return exp(v); }

/* (max of the numbers, count of NaN). */
struct st_maxnan {
    template <class C> __device__ wk_pair<C, C> operator()(wk_pair<C, C> x, wk_pair<C, C> y) const
    {
        return {x.a > y.a ? x.a : y.a, x.b + y.b};
    }
};

/* The statistic of one row, the block's threads striding over it; every thread returns it. */
template <int LW, class T> __device__ double st_row(const wk_gpu_stats_args &p, const T *xr)
{
    typedef typename wk_compute<T>::type C;
    int G = blockDim.x;
    int64_t n = p.n, s = p.s;
#define ST_EACH(j) for (int64_t j = threadIdx.x; j < n; j += G)
#define ST_X(j) wk_ld_ro(xr + (j) * s)
    if (p.op == ST_VAR || p.op == ST_STD) {
        double sum = 0, sq = 0;
        ST_EACH(j) sum += (double)ST_X(j);
        double mean = wk_group_reduce<LW>(sum, wk_op_sum(), G) / (double)n;
        ST_EACH(j) {
            double d = (double)ST_X(j) - mean;
            sq += d * d;
        }
        sq = wk_group_reduce<LW>(sq, wk_op_sum(), G);
        double div = (double)n - p.correction, var = sq / (div > 0 ? div : 0.0);
        return p.op == ST_STD ? sqrt(var) : var;
    }
    if (p.op == ST_NORM1 || p.op == ST_NORM2) {
        double acc = 0;
        ST_EACH(j) {
            double v = (double)ST_X(j);
            acc += p.op == ST_NORM1 ? (v < 0 ? -v : v) : v * v;
        }
        acc = wk_group_reduce<LW>(acc, wk_op_sum(), G);
        return p.op == ST_NORM1 ? acc : sqrt(acc);
    }
    wk_pair<C, C> mn = {-(C)INFINITY, (C)0};
    ST_EACH(j) {
        C v = ST_X(j);
        v = p.op == ST_NORM_INF && v < 0 ? -v : v;
        if (v != v)
            mn.b += 1;
        else
            mn.a = v > mn.a ? v : mn.a;
    }
    mn = wk_group_reduce<LW>(mn, st_maxnan(), G);
    if (mn.b > 0)
        return (double)NAN;
    if (p.op == ST_NORM_INF || mn.a == (C)INFINITY || mn.a == -(C)INFINITY)
        return (double)mn.a;
    C acc = 0;
    ST_EACH(j) acc += st_exp(ST_X(j) - mn.a);
    acc = wk_group_reduce<LW>(acc, wk_op_sum(), G);
    return (double)mn.a + log((double)acc);
#undef ST_EACH
#undef ST_X
}

template <class T, class TB, int LW> __device__ __forceinline__ void stats_row_run(const wk_gpu_stats_args &p)
{
    typedef typename wk_compute<T>::type C;
    const T *x = (const T *)p.x;
    T *out = (T *)p.out;
    for (int64_t row = blockIdx.x; row < p.nrows; row += gridDim.x) {
        double r = st_row<LW, T>(p, x + wk_offset(p.rows, row));
        if (threadIdx.x == 0)
            wk_st(out + row, (C)r);
    }
}

WK_STATS_KERNELS(WK_DEFINE_KERNELS)
