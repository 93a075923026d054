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
    int nops;
    wk_cpu_dims dims;
    char *base[WK_ITER_MAX_OPS];
    wk_iter_fn fn;
    void *ctx;
} iter_plan;

static void iter_range(void *arg, int64_t begin, int64_t end)
{
    const iter_plan *p = arg;
    const wk_cpu_dims *m = &p->dims;
    int r = m->rank, last = r - 1;
    int64_t idx[WK_MAX_RANK];
    char *ptr[WK_ITER_MAX_OPS];
    int64_t inner[WK_ITER_MAX_OPS];
    /* multi-index of `begin` */
    int64_t rem = begin;
    for (int d = last; d >= 0; d--) {
        idx[d] = rem % m->shape[d];
        rem /= m->shape[d];
    }
    for (int k = 0; k < p->nops; k++) {
        ptr[k] = p->base[k];
        for (int d = 0; d < r; d++)
            ptr[k] += idx[d] * m->strides[k][d];
        inner[k] = m->strides[k][last];
    }
    int64_t pos = begin;
    while (pos < end) {
        int64_t n = m->shape[last] - idx[last];
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
        for (int d = last; d > 0 && idx[d] == m->shape[d]; d--) {
            idx[d] = 0;
            idx[d - 1]++;
            for (int k = 0; k < p->nops; k++)
                ptr[k] += m->strides[k][d - 1] - m->shape[d] * m->strides[k][d];
        }
    }
}

void wk_cpu_merge_dims(int rank, const int64_t *shape, int nops, const wk_tensor *const *ops, wk_cpu_dims *out)
{
    memset(out, 0, sizeof *out);
    /* drop size-1 dims, then merge dim d into d+1 when every operand is contiguous across the pair */
    int r = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1)
            continue;
        if (r > 0) {
            bool merge = true;
            for (int k = 0; k < nops && merge; k++) {
                int64_t es = (int64_t)wk_dtype_size(ops[k]->dtype);
                merge = out->strides[k][r - 1] == ops[k]->strides[d] * shape[d] * es;
            }
            if (merge) {
                out->shape[r - 1] *= shape[d];
                for (int k = 0; k < nops; k++)
                    out->strides[k][r - 1] = ops[k]->strides[d] * (int64_t)wk_dtype_size(ops[k]->dtype);
                continue;
            }
        }
        out->shape[r] = shape[d];
        for (int k = 0; k < nops; k++)
            out->strides[k][r] = ops[k]->strides[d] * (int64_t)wk_dtype_size(ops[k]->dtype);
        r++;
    }
    if (r == 0) {
        out->shape[0] = 1;
        r = 1;
    }
    out->rank = r;
}

void wk_cpu_foreach(int rank, const int64_t *shape, int nops, const wk_tensor *const *ops, int64_t grain,
                    wk_iter_fn fn, void *ctx)
{
    iter_plan p;
    int64_t numel = wk_numel(rank, shape);
    if (numel == 0)
        return;
    p.nops = nops;
    p.fn = fn;
    p.ctx = ctx;
    for (int k = 0; k < nops; k++)
        p.base[k] = wk_tensor_data(ops[k]);
    wk_cpu_merge_dims(rank, shape, nops, ops, &p.dims);
    wk_cpu_parallel_for(numel, grain, iter_range, &p);
}
