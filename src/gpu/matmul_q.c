/* matmul_q.c: the GPU's quantized matmul slot: up to MQ_GEMV_MAX_M rows of x (decode) by mat-vec kernels that read
 * w's blocks once (kernels/matmul_q_dot.cu, in integers, for the types Llama GGUFs use; kernels/matmul_q.cu's gemv, in
 * float, for the others); more rows (prefill) by slices of w dequantized to x's dtype in bounded scratch
 * (kernels/quant.cu) and the vendor BLAS, or by the gemv kernel when the BLAS cannot take the product. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/quant_blocks.h"
#include "gpu/gpu.h"

#define MQ_GEMV_MAX_M 8
#define MQ_SCRATCH_BYTES ((int64_t)64 << 20) /* the dequantized slice of w */

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t row_bytes_of(const wk_tensor *w)
{
    return w->shape[1] / wk_dtype_block_size(w->dtype) * (int64_t)wk_dtype_block_bytes(w->dtype);
}

/* The kernels' arguments for out = x w^T, x (M, K) and w (N, K); kc, lpr, xq as the kernel needs them. */
static wk_gpu_matmul_q_args args_of(const wk_tensor *x, const wk_tensor *w, wk_tensor *out)
{
    return (wk_gpu_matmul_q_args){.w = wk_tensor_data(w), .x = wk_tensor_data(x), .out = wk_tensor_data(out),
                                  .M = x->shape[0], .N = w->shape[0], .K = x->shape[1], .row_bytes = row_bytes_of(w)};
}

/* Blocks of `threads` for ceil(N / rows) groups of lpr lanes; WK_ERR_UNSUPPORTED past one launch's grid. */
static wk_status blocks_of(int64_t N, int64_t rows, int64_t lpr, int64_t threads, unsigned *blocks)
{
    int64_t b = cdiv(cdiv(N, rows) * lpr, threads);
    if (b > 0x7fffffff)
        return wk_error(WK_ERR_UNSUPPORTED, "matmul_q: w has %lld rows, more than one launch covers", (long long)N);
    *blocks = (unsigned)b;
    return WK_OK;
}

static wk_status gemv(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, wk_tensor *out)
{
    wk_gpu_matmul_q_args q = args_of(x, w, out);
    int64_t mt = q.M < MQ_MT ? q.M : MQ_MT, kc = MQ_XS_FLOATS / mt / 256 * 256;
    q.kc = kc < q.K ? kc : q.K;
    int64_t ytiles = cdiv(q.M, MQ_MT);
    wk_gpu_dim grid = {0, (unsigned)(ytiles < 65535 ? ytiles : 65535), 1};
    WK_TRY(blocks_of(q.N, MQ_BLOCK / wk_gpu_logical_warp(d), 1, 1, &grid.x));
    wk_gpu_dim block = {MQ_BLOCK, 1, 1};
    size_t smem = (size_t)(mt * q.kc) * sizeof(float);
    return WK_GPU_LAUNCH(d, matmul_q_gemv, (int)w->dtype - WK_Q4_0, x->dtype, wk_gpu_width_slot(d), grid, block, smem,
                         q);
}

/* WICK_GPU_MATMUL_Q: "f32" keeps x unrounded (the vec kernels); "rounded" sends one row of x through the scratch
 * path too (what K past MQD_MAX_K takes), for the tests. */
enum { MODE_DOT, MODE_F32, MODE_ROUNDED };
static int mode(void)
{
    static atomic_int m = -1; /* (two threads may both read the environment: the same answer) */
    int v = atomic_load(&m);
    if (v < 0) {
        const char *e = getenv("WICK_GPU_MATMUL_Q");
        v = !e ? MODE_DOT : strcmp(e, "f32") == 0 ? MODE_F32 : strcmp(e, "rounded") == 0 ? MODE_ROUNDED : MODE_DOT;
        atomic_store(&m, v);
    }
    return v;
}

/* Lanes a group of rows of w: the logical warp, halved while half of it would still cover a row's `units`. */
static int64_t lanes_per_row(wk_gpu_dev *d, int64_t units)
{
    int64_t lpr = wk_gpu_logical_warp(d);
    while (lpr > 1 && lpr / 2 >= units)
        lpr /= 2;
    return lpr;
}

/* Lanes a group of rows of w for the integer kernels: a row's slices (blocks of Q4_0 and Q8_0, quarters of Q4_K and
 * Q6_K super-blocks) over the lanes, so that matmul_q_dot_1's lanes, which hold MQD_UN slices of each row in flight,
 * get that many each where the row has them: a Llama-1B decode's Q6_K head (K 2048) went from 148.9 to 113.4 us and
 * its Q4_K gate/up from 16.1 to 10.2 us on an H100 with 16 lanes a row instead of 32 (its o product, on 64 blocks
 * instead of 128, from 3.70 to 3.99 us; session 34). */
static int64_t dot_lanes(wk_gpu_dev *d, int qi, int64_t K, int64_t bs, bool one_row)
{
    int64_t slices = K / bs * (bs == WK_QK ? 1 : 4), un = MQD_UN(qi, one_row);
    return lanes_per_row(d, slices / un > 0 ? slices / un : 1);
}

/* The integer kernels (kernels/matmul_q_dot.cu): one row of x rounded by each block of matmul_q_dot_1, or rows of x
 * rounded into scratch by matmul_q_round for matmul_q_dot_8. Lanes take slices of w's rows: blocks of Q4_0 and Q8_0,
 * quarters of Q4_K and Q6_K super-blocks. */
static wk_status dot(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, wk_tensor *out)
{
    int qi = (int)w->dtype - WK_Q4_0;
    int64_t M = x->shape[0], K = x->shape[1], bs = wk_dtype_block_size(w->dtype);
    wk_gpu_matmul_q_args q = args_of(x, w, out);
    bool one_row = M == 1 && K <= MQD_MAX_K && mode() != MODE_ROUNDED; /* x rounded by each block, in shared memory */
    q.lpr = dot_lanes(d, qi, K, bs, one_row);
    int ws = wk_gpu_width_slot(d);
    wk_gpu_dim grid = {0, 1, 1}, block = {MQD_BLOCK, 1, 1};
    WK_TRY(blocks_of(q.N, MQD_ROWS, q.lpr, MQD_BLOCK, &grid.x));
    if (one_row)
        return WK_GPU_LAUNCH(d, matmul_q_dot_1, qi, x->dtype, ws, grid, block, (size_t)(K + K / WK_QK * 8), q);
    WK_TRY(wk_gpu_malloc(d, (size_t)(M * K + M * K / WK_QK * 8), &q.xq));
    wk_gpu_dim rgrid = {(unsigned)cdiv(M * K / 8, MQD_BLOCK), 1, 1};
    wk_status s = WK_GPU_LAUNCH(d, matmul_q_round, 0, x->dtype, 0, rgrid, block, 0, q);
    if (s == WK_OK)
        s = WK_GPU_LAUNCH(d, matmul_q_dot_8, qi, x->dtype, ws, grid, block, 0, q);
    wk_gpu_free(d, q.xq); /* stream-ordered: the queued kernels still read it */
    return s;
}

/* The float vec kernels (WICK_GPU_MATMUL_Q=f32). */
static wk_status vec(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, wk_tensor *out)
{
    int qi = (int)w->dtype - WK_Q4_0;
    wk_gpu_matmul_q_args q = args_of(x, w, out);
    int mt = q.M <= 1 ? 1 : q.M <= 4 ? 4 : 8;
    q.lpr = lanes_per_row(d, q.K / wk_dtype_block_size(w->dtype)); /* blocks a row */
    wk_gpu_dim grid = {0, 1, 1}, block = {MQ_BLOCK, 1, 1};
    WK_TRY(blocks_of(q.N, MQV_ROWS(qi, mt), q.lpr, MQ_BLOCK, &grid.x));
    int ws = wk_gpu_width_slot(d);
    if (mt == 1)
        return WK_GPU_LAUNCH(d, matmul_q_vec1, qi, x->dtype, ws, grid, block, 0, q);
    if (mt == 4)
        return WK_GPU_LAUNCH(d, matmul_q_vec4, qi, x->dtype, ws, grid, block, 0, q);
    return WK_GPU_LAUNCH(d, matmul_q_vec8, qi, x->dtype, ws, grid, block, 0, q);
}

/* Up to 8 rows of x by w of Q4_0, Q8_0, Q4_K or Q6_K, x and w 16-byte aligned: the dot kernels (the vec kernels under
 * WICK_GPU_MATMUL_Q=f32); WK_ERR_UNSUPPORTED otherwise. */
static wk_status few_rows(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, wk_tensor *out)
{
    int qi = (int)w->dtype - WK_Q4_0;
    if ((qi != WK_QI_Q4_0 && qi != WK_QI_Q8_0 && qi != WK_QI_Q4_K && qi != WK_QI_Q6_K) ||
        ((uintptr_t)wk_tensor_data(x) | (uintptr_t)wk_tensor_data(w)) % 16 != 0)
        return WK_ERR_UNSUPPORTED;
    return mode() == MODE_F32 ? vec(d, x, w, out) : dot(d, x, w, out);
}

wk_status wk_gpu_matmul_q_fused(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, const wk_gpu_linear_epi *e,
                                wk_tensor *out)
{
    int qi = (int)w->dtype - WK_Q4_0;
    int64_t K = x->shape[1], bs = wk_dtype_block_size(w->dtype);
    if ((qi != WK_QI_Q4_0 && qi != WK_QI_Q8_0 && qi != WK_QI_Q4_K && qi != WK_QI_Q6_K) || mode() != MODE_DOT ||
        x->shape[0] != 1 || K > MQD_MAX_K ||
        ((uintptr_t)wk_tensor_data(x) | (uintptr_t)wk_tensor_data(w) | (uintptr_t)e->norm) % 16 != 0)
        return WK_ERR_UNSUPPORTED;
    wk_gpu_matmul_q_args q = args_of(x, w, out);
    q.epi = *e;
    q.lpr = dot_lanes(d, qi, K, bs, true);
    int64_t blocks = cdiv((e->glu ? e->half : cdiv(q.N, MQD_ROWS)) * q.lpr, MQD_BLOCK);
    if (blocks > 0x7fffffff)
        return WK_ERR_UNSUPPORTED; /* past one launch: the composed ops (no message: the slot's contract) */
    wk_gpu_dim grid = {(unsigned)blocks, 1, 1}, block = {MQD_BLOCK, 1, 1};
    return WK_GPU_LAUNCH(d, matmul_q_dot_1, qi, x->dtype, wk_gpu_width_slot(d), grid, block,
                         (size_t)(K + K / WK_QK * 8), q);
}

/* Rows [n0, n0 + nc) of w dequantized into scratch (nc, K) of x's dtype, then out[:, n0 .. n0 + nc) = x scratch^T. */
static wk_status slice(wk_gpu_dev *d, const wk_gpu_blas *blas, const wk_tensor *x, const wk_tensor *w, wk_tensor *out,
                       int64_t n0, int64_t nc, void *scratch)
{
    int64_t M = x->shape[0], K = x->shape[1], N = w->shape[0];
    size_t es = wk_dtype_size(x->dtype);
    wk_gpu_quant_args q = {.x = (const char *)wk_tensor_data(w) + n0 * row_bytes_of(w), .out = scratch, .n = nc * K};
    wk_gpu_dim grid = {wk_gpu_blocks(d, nc * K / 8, 256), 1, 1}, block = {256, 1, 1}; /* runs of 8 a thread */
    WK_TRY(WK_GPU_LAUNCH(d, quant_dequantize, (int)w->dtype - WK_Q4_0, x->dtype, 0, grid, block, 0, q));
    wk_gpu_gemm g = {.dtype = x->dtype, .trans_a = false, .trans_b = true, .allow_tf32 = false, .m = M, .n = nc,
                     .k = K, .batch = 1, .a = wk_tensor_data(x), .b = scratch,
                     .c = (char *)wk_tensor_data(out) + (size_t)n0 * es, .lda = K, .ldb = K, .ldc = N};
    return blas->gemm(d, &g);
}

/* The prefill path: WK_ERR_UNSUPPORTED when there is no BLAS, no scratch or the BLAS cannot take the product. */
static wk_status dequant_gemm(wk_gpu_dev *d, const wk_tensor *x, const wk_tensor *w, wk_tensor *out)
{
    const char *why = NULL;
    const wk_gpu_blas *blas = wk_gpu_blas_of(d, &why);
    if (!blas)
        return WK_ERR_UNSUPPORTED;
    int64_t K = x->shape[1], N = w->shape[0], es = (int64_t)wk_dtype_size(x->dtype);
    int64_t rows = MQ_SCRATCH_BYTES / (K * es);
    rows = rows >= 64 ? rows / 64 * 64 : rows < 1 ? 1 : rows; /* slices start 128-byte aligned in out's rows */
    rows = rows < N ? rows : N;
    void *scratch = NULL;
    if (wk_gpu_malloc(d, (size_t)(rows * K * es), &scratch) != WK_OK)
        return WK_ERR_UNSUPPORTED; /* the mat-vec kernel needs no scratch */
    wk_status s = WK_OK;
    for (int64_t n0 = 0; s == WK_OK && n0 < N; n0 += rows)
        s = slice(d, blas, x, w, out, n0, N - n0 < rows ? N - n0 : rows, scratch);
    wk_gpu_free(d, scratch);
    return s;
}

wk_status wk_gpu_matmul_q(const wk_tensor *x, const wk_tensor *w, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    if (x->shape[0] > MQ_GEMV_MAX_M) {
        wk_status s = dequant_gemm(d, x, w, out);
        if (s != WK_ERR_UNSUPPORTED)
            return s;
    } else {
        wk_status s = few_rows(d, x, w, out);
        if (s != WK_ERR_UNSUPPORTED)
            return s;
    }
    return gemv(d, x, w, out);
}
