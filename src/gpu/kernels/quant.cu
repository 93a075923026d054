/* quant.cu: kernels of GGML's block formats: dequantize (one thread per element, decoding its block's scales, so the
 * writes coalesce) and quantize (one thread per block). The arithmetic is core/quant_blocks.h's, the CPU's own. */
#include "common.cuh"
#include "quant.cuh"

/* out[e] = element e of the blocks at x, n elements. */
template <class QT, class T, int> __device__ __forceinline__ void quant_dequantize_run(const wk_gpu_quant_args &p)
{
    const uint8_t *x = (const uint8_t *)p.x;
    T *out = (T *)p.out;
    const int bs = wk_qi_block(QT::qi), bb = wk_qi_bytes(QT::qi);
    WK_GRID_LOOP(e, p.n)
    {
        int64_t b = e / bs;
        wk_st(out + e, wk_q_value(QT::qi, x + b * bb, (int)(e - b * bs)));
    }
}

/* Block b of out from the values x[b * bs ..], n blocks. */
template <class QT, class T, int> __device__ __forceinline__ void quant_quantize_run(const wk_gpu_quant_args &p)
{
    const T *x = (const T *)p.x;
    uint8_t *out = (uint8_t *)p.out;
    constexpr int bs = QT::qi <= WK_QI_Q8_0 ? WK_QK : WK_QK_K;
    const int bb = wk_qi_bytes(QT::qi);
    float v[bs];
    WK_GRID_LOOP(b, p.n)
    {
        for (int j = 0; j < bs; j++)
            v[j] = wk_ld(x + b * bs + j);
        wk_q_quantize_block(QT::qi, v, out + b * bb);
    }
}

WK_QUANT_KERNELS(WK_DEFINE_KERNELS)
