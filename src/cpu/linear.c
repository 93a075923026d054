/* linear.c: the CPU's linear slot: x (M, K) @ w^T with the bias and the residual added by the GEMM itself. out's
 * rows are first set to residual + bias (one pass), then OpenBLAS accumulates the product into them (beta 1), so the
 * call makes one pass over out besides the GEMM, where the composition makes three (the product's beta pass, the
 * bias add, the residual add) and two more tensors. f32 with a float w of x's dtype; the norm, rotary embedding,
 * gated unit, f16/bf16 (which round between the steps) and block-quantized w are WK_ERR_UNSUPPORTED: ops/linear.c
 * composes them. */
#include <string.h>

#include "cpu/gemm.h"
#include "cpu/vmath.h"

typedef struct fill_job {
    int64_t n;
    const float *bias, *res;
    float *out;
} fill_job;

/* Rows [r0, r1) of out = residual + bias (either may be absent: 0). */
WK_VEC_CLONES static void fill_rows(void *arg, int64_t r0, int64_t r1)
{
    const fill_job *j = arg;
    int64_t n = j->n;
    const float *b = j->bias;
    for (int64_t r = r0; r < r1; r++) {
        float *o = j->out + r * n;
        const float *s = j->res ? j->res + r * n : NULL;
        if (s && b)
            for (int64_t i = 0; i < n; i++)
                o[i] = s[i] + b[i];
        else if (s || b)
            memcpy(o, s ? s : b, sizeof(float) * (size_t)n);
        else
            memset(o, 0, sizeof(float) * (size_t)n);
    }
}

wk_status wk_cpu_linear(const wk_linear_job *j)
{
    const wk_tensor *x = j->x, *w = j->w;
    int64_t M = x->shape[0], N = w->shape[0], K = w->shape[1], ld = w->strides[0];
    if (x->dtype != WK_F32 || w->dtype != WK_F32 || j->norm || j->glu || j->rope_cos || M > WK_GEMM_MAX_DIM ||
        N > WK_GEMM_MAX_DIM || K > WK_GEMM_MAX_DIM || ld > WK_GEMM_MAX_DIM)
        return WK_ERR_UNSUPPORTED;
    fill_job f = {.n = N, .bias = j->bias ? wk_tensor_data(j->bias) : NULL,
                  .res = j->residual ? wk_tensor_data(j->residual) : NULL, .out = wk_tensor_data(j->out)};
    wk_gemm_for(M, WK_CPU_GRAIN / N + 1, fill_rows, &f);
    if (M > 0)
        wk_gemm(WK_F32, false, true, M, N, K, wk_tensor_data(x), K, wk_tensor_data(w), ld, f.out, N, true);
    return WK_OK;
}
