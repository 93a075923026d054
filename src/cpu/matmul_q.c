/* matmul_q.c: the CPU's quantized matmul, out (M, N) = x (M, K) @ w^T, threaded over w's rows. Up to MQ_INT_M rows of
 * x (decode): x's rows quantized to 8-bit blocks once and dotted with w's blocks in integers (matmul_q_dot.h: SIMD
 * chosen by CPUID; WICK_CPU_MATMUL_Q=f32 turns it off); the other types, and x holding NaN or infinity: w's rows
 * decoded to f32 a few at a time (core/quant_blocks.h's wk_q_value8, the GPU's decoder) and dotted with x's rows in
 * f32; from MQ_BLAS_M rows of x on, w decoded in bounded slices for OpenBLAS's sgemm. */
#include <stdatomic.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/quant_blocks.h"
#include "cpu/gemm.h"
#include "cpu/matmul_q_dot.h"

#define MQ_TILE 4                       /* w's rows decoded together: x's rows are read once for them */
#define MQ_BLAS_M 16                    /* rows of x from which sgemm on decoded slices of w is faster */
#define MQ_INT_M 8                      /* rows of x up to which the 8-bit integer dots run */
#define MQ_SLICE_BYTES (16u << 20)      /* the decoded slice of w for sgemm */

typedef struct mq_job {
    const uint8_t *w;
    const float *x;  /* (M, K) f32 */
    void *out;       /* (M, N) of dt; the sgemm path: its decoded slice (rows, K) f32 */
    const uint8_t *xq; /* the integer path: x's rows quantized, x_bytes apart */
    wk_mq_dot_fn dot;
    wk_mq_dot8_fn dot8;
    int64_t x_bytes;
    wk_dtype dt;
    int64_t M, N, K, row_bytes, n0;
    int qi, bs, bb;
    atomic_int failed;
} mq_job;

/* Row n of w as K floats; the loop is written once per common type so that wk_q_value8 is compiled for it. */
#define MQ_DECODE(QI, BS, BB)                                                                                   \
    for (int64_t k = 0; k < j->K; k += (BS), blk += (BB))                                                       \
        for (int e = 0; e < (BS); e += 8)                                                                       \
            wk_q_value8((QI), blk, e, dst + k + e);
static void decode_row(const mq_job *j, int64_t n, float *dst)
{
    const uint8_t *blk = j->w + n * j->row_bytes;
    switch (j->qi) {
    case WK_QI_Q4_0: MQ_DECODE(WK_QI_Q4_0, WK_QK, 18) break;
    case WK_QI_Q8_0: MQ_DECODE(WK_QI_Q8_0, WK_QK, 34) break;
    case WK_QI_Q4_K: MQ_DECODE(WK_QI_Q4_K, WK_QK_K, 144) break;
    case WK_QI_Q6_K: MQ_DECODE(WK_QI_Q6_K, WK_QK_K, 210) break;
    default: MQ_DECODE(j->qi, j->bs, j->bb) break;
    }
}
#undef MQ_DECODE

/* sum a[i] * b[i], n a multiple of 8, in 8 f32 partial sums (a vector's lanes). */
static float dot8(const float *a, const float *b, int64_t n)
{
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t k = 0; k < n; k += 8)
        for (int t = 0; t < 8; t++)
            s[t] += a[k + t] * b[k + t];
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

/* Tiles [begin, end) of MQ_TILE rows of w: decoded, then every row of x dotted with them. */
static void direct_tiles(void *ctx, int64_t begin, int64_t end)
{
    mq_job *j = ctx;
    float *wt = malloc(sizeof(float) * MQ_TILE * (size_t)j->K);
    if (!wt) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t t = begin; t < end; t++) {
        int64_t n0 = t * MQ_TILE, nt = j->N - n0 < MQ_TILE ? j->N - n0 : MQ_TILE;
        for (int64_t r = 0; r < nt; r++)
            decode_row(j, n0 + r, wt + r * j->K);
        for (int64_t m = 0; m < j->M; m++)
            for (int64_t r = 0; r < nt; r++)
                wk_cpu_st_float(j->dt, j->out, m * j->N + n0 + r, dot8(j->x + m * j->K, wt + r * j->K, j->K));
    }
    free(wt);
}

/* Groups [begin, end) of 8 rows of w by the integer dots (8 rows at once where the kernels have it), against every
 * quantized row of x. */
static void int_rows(void *ctx, int64_t begin, int64_t end)
{
    mq_job *j = ctx;
    int64_t nb = j->K / j->bs, last = end * 8 < j->N ? end * 8 : j->N;
    float v[8];
    for (int64_t n = begin * 8; n < last; n += 8)
        for (int64_t m = 0; m < j->M; m++) {
            const uint8_t *xq = j->xq + m * j->x_bytes;
            int rows = last - n < 8 ? (int)(last - n) : 8;
            if (j->dot8 && rows == 8)
                j->dot8(j->w + n * j->row_bytes, j->row_bytes, xq, nb, v);
            for (int r = 0; r < rows; r++)
                wk_cpu_st_float(j->dt, j->out, m * j->N + n + r,
                                j->dot8 && rows == 8 ? v[r] : j->dot(j->w + (n + r) * j->row_bytes, xq, nb));
        }
}

/* The integer path, when w's type has one and M is small: false (nothing written) when x holds NaN or infinity, or
 * host memory for its quantized rows ran out; the float path then runs. */
static bool int_path(mq_job *j)
{
    const wk_mq_kernels *k = wk_mq_kernels_best();
    if (!k)
        return false;
    j->dot = k->dot[j->qi] ? k->dot[j->qi] : wk_mq_kernels_of(WK_MQ_PORTABLE)->dot[j->qi];
    j->dot8 = k->dot[j->qi] ? k->dot8[j->qi] : NULL;
    if (!j->dot || j->M > MQ_INT_M)
        return false;
    j->x_bytes = wk_mq_x_bytes(j->K, j->bs);
    uint8_t *xq = malloc((size_t)(j->M * j->x_bytes) + 1);
    bool ok = xq != NULL;
    for (int64_t m = 0; ok && m < j->M; m++)
        ok = wk_mq_quantize_x(j->x + m * j->K, j->K, j->bs, xq + m * j->x_bytes);
    if (ok) {
        j->xq = xq;
        wk_cpu_parallel_for((j->N + 7) / 8, WK_CPU_GRAIN / (8 * j->K * j->M + 1) + 1, int_rows, j);
    }
    free(xq);
    return ok;
}

/* Rows [begin, end) of the slice that starts at w's row n0, decoded into j->out. */
static void decode_slice(void *ctx, int64_t begin, int64_t end)
{
    mq_job *j = ctx;
    for (int64_t r = begin; r < end; r++)
        decode_row(j, j->n0 + r, (float *)j->out + r * j->K);
}

/* out (M, N) f32 = x w^T by sgemm over slices of w decoded to f32; c is out, or f32 scratch for f16/bf16. */
static wk_status blas_path(mq_job *j, float *c)
{
    int64_t rows = (int64_t)(MQ_SLICE_BYTES / sizeof(float)) / j->K;
    rows = rows < 1 ? 1 : rows > j->N ? j->N : rows;
    float *slice = malloc(sizeof(float) * (size_t)(rows * j->K));
    if (!slice)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "matmul_q: no host memory for a decoded slice of w (%lld x %lld f32)",
                        (long long)rows, (long long)j->K);
    mq_job d = *j;
    d.out = slice;
    for (int64_t n0 = 0; n0 < j->N; n0 += rows) {
        int64_t nc = j->N - n0 < rows ? j->N - n0 : rows;
        d.n0 = n0;
        wk_gemm_for(nc, 1, decode_slice, &d);
        wk_gemm(WK_F32, false, true, j->M, nc, j->K, j->x, j->K, slice, j->K, c + n0, j->N, false);
    }
    free(slice);
    return WK_OK;
}

static bool blas_fits(const mq_job *j)
{
    return j->M >= MQ_BLAS_M && j->M <= WK_GEMM_MAX_DIM && j->N <= WK_GEMM_MAX_DIM && j->K <= WK_GEMM_MAX_DIM;
}

wk_status wk_cpu_matmul_q(const wk_tensor *x, const wk_tensor *w, wk_tensor *out)
{
    int qi = (int)w->dtype - WK_Q4_0;
    mq_job j = {.w = wk_tensor_data(w), .out = wk_tensor_data(out), .dt = out->dtype, .M = x->shape[0],
                .N = w->shape[0], .K = x->shape[1], .qi = qi, .bs = wk_qi_block(qi), .bb = wk_qi_bytes(qi)};
    j.row_bytes = j.K / j.bs * j.bb;
    atomic_init(&j.failed, 0);
    size_t xn = (size_t)(j.M * j.K), on = (size_t)(j.M * j.N);
    float *xf = x->dtype == WK_F32 ? NULL : malloc(sizeof(float) * xn);
    float *cf = blas_fits(&j) && out->dtype != WK_F32 ? malloc(sizeof(float) * on) : NULL;
    wk_status s = WK_OK;
    if ((x->dtype != WK_F32 && !xf) || (blas_fits(&j) && out->dtype != WK_F32 && !cf))
        s = wk_error(WK_ERR_OUT_OF_MEMORY, "matmul_q: no host memory for f32 copies of x or out");
    if (s == WK_OK && xf)
        wk_load_run_f32(x->dtype, wk_tensor_data(x), 1, (int64_t)xn, xf);
    j.x = xf ? xf : wk_tensor_data(x);
    if (s == WK_OK && blas_fits(&j)) {
        s = blas_path(&j, cf ? cf : (float *)j.out);
        if (s == WK_OK && cf)
            wk_gemm_store(out->dtype, cf, j.out, (int64_t)on, NULL, 1, 1);
    } else if (s == WK_OK && !int_path(&j)) {
        int64_t tiles = (j.N + MQ_TILE - 1) / MQ_TILE, work = MQ_TILE * j.K * (j.M + 2);
        wk_cpu_parallel_for(tiles, WK_CPU_GRAIN / work + 1, direct_tiles, &j);
        if (atomic_load(&j.failed))
            s = wk_error(WK_ERR_OUT_OF_MEMORY, "matmul_q: no host memory for decoded rows of w");
    }
    free(xf);
    free(cf);
    return s;
}
