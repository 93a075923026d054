/* quant.c: the GPU's block quantization slots: one kernel per block type and float dtype, dequantizing 8 elements
 * a thread, quantizing one block a thread (kernels/quant.cu, core/quant_blocks.h's arithmetic). */
#include "gpu/gpu.h"

_Static_assert(WK_Q4_0 == WK_DTYPE_COUNT, "kernels/quant.h's type axis counts from WK_Q4_0");

wk_status wk_gpu_dequantize(const wk_tensor *x, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t n = wk_tensor_numel(out);
    wk_gpu_quant_args q = {.x = wk_tensor_data(x), .out = wk_tensor_data(out), .n = n};
    unsigned threads = 256;
    wk_gpu_dim grid = {wk_gpu_blocks(d, n / 8, threads), 1, 1}, block = {threads, 1, 1}; /* runs of 8 a thread */
    return WK_GPU_LAUNCH(d, quant_dequantize, (int)x->dtype - WK_Q4_0, out->dtype, 0, grid, block, 0, q);
}

wk_status wk_gpu_quantize(const wk_tensor *x, wk_tensor *out)
{
    wk_gpu_dev *d = wk_gpu_dev_of(out);
    int64_t n = wk_tensor_numel(out) / wk_dtype_block_size(out->dtype);
    wk_gpu_quant_args q = {.x = wk_tensor_data(x), .out = wk_tensor_data(out), .n = n};
    unsigned threads = 64; /* a K block's search keeps ~1 KB of locals a thread */
    wk_gpu_dim grid = {wk_gpu_blocks(d, n, threads), 1, 1}, block = {threads, 1, 1};
    return WK_GPU_LAUNCH(d, quant_quantize, (int)out->dtype - WK_Q4_0, x->dtype, 0, grid, block, 0, q);
}
