/* sample.c: the GPU's sampling slots (backend.h): penalties, the pick among sorted candidates and multinomial,
 * a block per row (kernels/sample.cu), with scratch for the blocks' running totals. */
#include "core/numerics.h"
#include "gpu/gpu.h"

_Static_assert(SAMPLE_NPARAM == WK_SAMPLE_NPARAM && WK_SP_TEMP == 0 && WK_SP_TOPK == 1 && WK_SP_TOPP == 2 &&
                   WK_SP_MINP == 3 && WK_SP_REP == 4 && WK_SP_PRES == 5 && WK_SP_SEED_LO == 6 && WK_SP_SEED_HI == 7,
               "kernels/sample.h's parameter columns");

static wk_gpu_dim rows_grid(int64_t rows)
{
    int64_t cap = (int64_t)1 << 20;
    return (wk_gpu_dim){(unsigned)(rows < cap ? rows : cap), 1, 1};
}

wk_status wk_gpu_sample_penalize(wk_tensor *z, const wk_tensor *prev, const wk_tensor *params)
{
    wk_gpu_dev *d = wk_gpu_dev_of(z);
    wk_gpu_sample_args q = {.rows = z->shape[0], .n = z->shape[1], .params = wk_tensor_data(params),
                            .z = wk_tensor_data(z), .prev = wk_tensor_data(prev), .np = prev->shape[1],
                            .prev64 = prev->dtype == WK_I64};
    wk_gpu_dim block = {SAMPLE_THREADS, 1, 1};
    return WK_GPU_LAUNCH(d, sample_penalize, 0, 0, 0, rows_grid(q.rows), block, 0, q);
}

wk_status wk_gpu_sample_pick(const wk_tensor *cand, const wk_tensor *cand_ids, const wk_tensor *params,
                             uint64_t offset, wk_tensor *ids)
{
    wk_gpu_dev *d = wk_gpu_dev_of(ids);
    int64_t rows = cand->shape[0], n = cand->shape[1], nb = (n + WK_CDF_BLOCK - 1) / WK_CDF_BLOCK;
    wk_gpu_sample_args q = {.rows = rows, .n = n, .params = wk_tensor_data(params), .cand = wk_tensor_data(cand),
                            .cand_ids = wk_tensor_data(cand_ids), .nb = nb, .offset = offset,
                            .out = wk_tensor_data(ids)};
    wk_gpu_dim block = {SAMPLE_THREADS, 1, 1};
    wk_status st = wk_gpu_malloc(d, (size_t)(rows * (nb + 1)) * sizeof(double), (void **)&q.prefix);
    if (st == WK_OK)
        st = WK_GPU_LAUNCH(d, sample_pick, 0, 0, 0, rows_grid(rows), block, 0, q);
    if (q.prefix)
        wk_gpu_free(d, q.prefix);
    return st;
}

wk_status wk_gpu_multinomial(const wk_tensor *probs, int64_t n, bool replacement, uint64_t seed, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t rows = probs->shape[0], V = probs->shape[1], nb = (V + WK_CDF_BLOCK - 1) / WK_CDF_BLOCK;
    wk_gpu_sample_args q = {.rows = rows, .n = V, .replacement = replacement, .probs = wk_tensor_data(probs),
                            .nb = nb, .seed = seed, .samples = n, .out = wk_tensor_data(out)};
    wk_gpu_dim block = {SAMPLE_THREADS, 1, 1};
    wk_status st = wk_gpu_malloc(d, (size_t)(rows * (nb + 1)) * sizeof(double), (void **)&q.prefix);
    if (st == WK_OK && !replacement)
        st = wk_gpu_malloc(d, (size_t)(rows * V) * sizeof(double), (void **)&q.w);
    if (st == WK_OK)
        st = WK_GPU_LAUNCH(d, multinomial, probs->dtype, 0, 0, rows_grid(rows), block, 0, q);
    if (q.prefix)
        wk_gpu_free(d, q.prefix);
    if (q.w)
        wk_gpu_free(d, q.w);
    return st;
}
