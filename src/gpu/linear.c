/* linear.c: the GPU's linear slot (wk_linear for one row of x, the backend's linear_max_rows): the norm, the product
 * and the epilogue (bias, rotary embedding or gated unit, residual) in one launch of a mat-vec kernel, kernels/gemv.cu
 * for float w and kernels/matmul_q_dot.cu's matmul_q_dot_1 for Q4_0, Q8_0, Q4_K and Q6_K (their shared steps:
 * kernels/linear.cuh). Other calls are WK_ERR_UNSUPPORTED: ops/linear.c composes them. */
#include "gpu/gpu.h"

wk_status wk_gpu_linear(const wk_linear_job *j)
{
    if (j->x->shape[0] != 1)
        return WK_ERR_UNSUPPORTED; /* the mat-vec kernels take one row */
    wk_gpu_dev *d = wk_gpu_dev_of(j->out);
    wk_gpu_linear_epi e = {.norm = j->norm ? wk_tensor_data(j->norm) : NULL,
                           .bias = j->bias ? wk_tensor_data(j->bias) : NULL,
                           .res = j->residual ? wk_tensor_data(j->residual) : NULL,
                           .eps = (float)j->eps,
                           .glu = j->glu ? 1 + (int)j->glu_kind : 0,
                           .half = j->glu ? j->w->shape[0] / 2 : 0};
    if (j->rope_cos) {
        e.rope = j->rope_interleaved ? LIN_ROPE_PAIRS : LIN_ROPE_HALVES;
        e.head_dim = 2 * j->rope_cos->shape[1];
        e.rope_rows = j->rope_cols;
        e.cos = wk_tensor_data(j->rope_cos);
        e.sin = wk_tensor_data(j->rope_sin);
    }
    if (wk_dtype_is_quantized(j->w->dtype))
        return wk_gpu_matmul_q_fused(d, j->x, j->w, &e, j->out);
    return wk_gpu_gemv_fused(d, j->x, j->w, &e, j->out);
}
