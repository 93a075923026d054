/* quant.c: the CPU's block quantization: dequantize and quantize over contiguous blocks, in parallel over blocks,
 * with core/quant_blocks.h's arithmetic (the GPU's kernels run the same functions). */
#include "core/quant_blocks.h"
#include "cpu/cpu.h"

typedef struct quant_job {
    const wk_tensor *x;
    wk_tensor *out;
    int qi, bs, bb; /* the block type (counted from WK_Q4_0), its elements and bytes */
} quant_job;

static void dequant_blocks(void *ctx, int64_t begin, int64_t end)
{
    const quant_job *j = ctx;
    const uint8_t *x = (const uint8_t *)wk_tensor_data(j->x);
    void *o = wk_tensor_data(j->out);
    float v[WK_QK_K];
    for (int64_t b = begin; b < end; b++) {
        const uint8_t *blk = x + b * j->bb;
        for (int e = 0; e < j->bs; e++)
            v[e] = wk_q_value(j->qi, blk, e);
        int64_t at = b * j->bs;
        switch (j->out->dtype) {
        case WK_F16:
            for (int e = 0; e < j->bs; e++)
                ((wk_f16_t *)o)[at + e] = wk_f32_to_f16_bits(v[e]);
            break;
        case WK_BF16:
            for (int e = 0; e < j->bs; e++)
                ((wk_bf16_t *)o)[at + e] = wk_f32_to_bf16_bits(v[e]);
            break;
        default:
            for (int e = 0; e < j->bs; e++)
                ((float *)o)[at + e] = v[e];
            break;
        }
    }
}

static void quant_blocks(void *ctx, int64_t begin, int64_t end)
{
    const quant_job *j = ctx;
    const void *x = wk_tensor_data(j->x);
    uint8_t *o = (uint8_t *)wk_tensor_data(j->out);
    float v[WK_QK_K];
    for (int64_t b = begin; b < end; b++) {
        int64_t at = b * j->bs;
        for (int e = 0; e < j->bs; e++)
            v[e] = j->x->dtype == WK_F16    ? wk_f16_bits_to_f32(((const wk_f16_t *)x)[at + e])
                   : j->x->dtype == WK_BF16 ? wk_bf16_bits_to_f32(((const wk_bf16_t *)x)[at + e])
                                            : ((const float *)x)[at + e];
        wk_q_quantize_block(j->qi, v, o + b * j->bb);
    }
}

static quant_job job_of(const wk_tensor *x, wk_tensor *out, wk_dtype qt)
{
    int qi = (int)qt - WK_Q4_0;
    return (quant_job){.x = x, .out = out, .qi = qi, .bs = wk_qi_block(qi), .bb = wk_qi_bytes(qi)};
}

wk_status wk_cpu_dequantize(const wk_tensor *x, wk_tensor *out)
{
    quant_job j = job_of(x, out, x->dtype);
    wk_cpu_parallel_for(wk_tensor_numel(x) / j.bs, WK_CPU_GRAIN / j.bs + 1, dequant_blocks, &j);
    return WK_OK;
}

wk_status wk_cpu_quantize(const wk_tensor *x, wk_tensor *out)
{
    quant_job j = job_of(x, out, out->dtype);
    /* a K block's search costs some thousand operations an element: small grains */
    wk_cpu_parallel_for(wk_tensor_numel(x) / j.bs, 4, quant_blocks, &j);
    return WK_OK;
}
