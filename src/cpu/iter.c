/* iter.c: strided iteration with dim merging, and the thread split behind every CPU kernel (OpenMP). */
#include "cpu/iter.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

int wk_cpu_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

void wk_cpu_parallel_for(int64_t n, int64_t grain, wk_range_fn body, void *ctx)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    int64_t chunks = n / grain;
    int threads = wk_cpu_threads();
    if (chunks > threads)
        chunks = threads;
    if (chunks <= 1) {
        body(ctx, 0, n);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads((int)chunks) schedule(static, 1)
#endif
    for (int64_t c = 0; c < chunks; c++)
        body(ctx, n * c / chunks, n * (c + 1) / chunks);
}

typedef struct iter_plan {
    int rank, nops;
    int64_t shape[WK_MAX_RANK];
    int64_t strides[WK_ITER_MAX_OPS][WK_MAX_RANK]; /* bytes */
    char *base[WK_ITER_MAX_OPS];
    wk_iter_fn fn;
    void *ctx;
} iter_plan;

static void iter_range(void *arg, int64_t begin, int64_t end)
{
    const iter_plan *p = arg;
    int r = p->rank, last = r - 1;
    int64_t idx[WK_MAX_RANK];
    char *ptr[WK_ITER_MAX_OPS];
    int64_t inner[WK_ITER_MAX_OPS];
    /* multi-index of `begin` */
    int64_t rem = begin;
    for (int d = last; d >= 0; d--) {
        idx[d] = rem % p->shape[d];
        rem /= p->shape[d];
    }
    for (int k = 0; k < p->nops; k++) {
        ptr[k] = p->base[k];
        for (int d = 0; d < r; d++)
            ptr[k] += idx[d] * p->strides[k][d];
        inner[k] = p->strides[k][last];
    }
    int64_t pos = begin;
    while (pos < end) {
        int64_t n = p->shape[last] - idx[last];
        if (n > end - pos)
            n = end - pos;
        p->fn(p->ctx, n, ptr, inner);
        pos += n;
        if (pos >= end)
            break;
        /* advance the multi-index by n along the last dim, carrying into outer dims */
        for (int k = 0; k < p->nops; k++)
            ptr[k] += n * inner[k];
        idx[last] += n;
        for (int d = last; d > 0 && idx[d] == p->shape[d]; d--) {
            idx[d] = 0;
            idx[d - 1]++;
            for (int k = 0; k < p->nops; k++)
                ptr[k] += p->strides[k][d - 1] - p->shape[d] * p->strides[k][d];
        }
    }
}

void wk_cpu_foreach(int rank, const int64_t *shape, int nops, const wk_tensor *const *ops, int64_t grain,
                    wk_iter_fn fn, void *ctx)
{
    iter_plan p;
    int64_t numel = wk_numel(rank, shape);
    if (numel == 0)
        return;
    memset(&p, 0, sizeof p);
    p.nops = nops;
    p.fn = fn;
    p.ctx = ctx;
    for (int k = 0; k < nops; k++)
        p.base[k] = wk_tensor_data(ops[k]);
    /* drop size-1 dims, then merge dim d into d+1 when every operand is contiguous across the pair */
    int r = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1)
            continue;
        if (r > 0) {
            bool merge = true;
            for (int k = 0; k < nops && merge; k++) {
                int64_t es = (int64_t)wk_dtype_size(ops[k]->dtype);
                merge = p.strides[k][r - 1] == ops[k]->strides[d] * shape[d] * es;
            }
            if (merge) {
                p.shape[r - 1] *= shape[d];
                for (int k = 0; k < nops; k++)
                    p.strides[k][r - 1] = ops[k]->strides[d] * (int64_t)wk_dtype_size(ops[k]->dtype);
                continue;
            }
        }
        p.shape[r] = shape[d];
        for (int k = 0; k < nops; k++)
            p.strides[k][r] = ops[k]->strides[d] * (int64_t)wk_dtype_size(ops[k]->dtype);
        r++;
    }
    if (r == 0) {
        p.shape[0] = 1;
        r = 1;
    }
    p.rank = r;
    wk_cpu_parallel_for(numel, grain, iter_range, &p);
}
