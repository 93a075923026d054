/* quant.cu: kernels of GGML's block formats: dequantize (one thread per run of 8 elements, decoding its block's scales,
 * so the writes coalesce) and quantize (one thread per block). The arithmetic is core/quant_blocks.h's, the CPU's own. */
#include "common.cuh"
#include "quant.cuh"

/* out[8g .. 8g + 8) = elements 8g .. 8g + 8 of the blocks at x (n elements, whole blocks), a run of 8 a thread
 * (wk_q_value8: the scales the run shares decoded once), stored as 16-byte vectors where out is aligned so. */
template <class QT, class T, int> __device__ __forceinline__ void quant_dequantize_run(const wk_gpu_quant_args &p)
{
    const uint8_t *x = (const uint8_t *)p.x;
    T *out = (T *)p.out;
    const int bs = wk_qi_block(QT::qi), bb = wk_qi_bytes(QT::qi);
    WK_GRID_LOOP(g, p.n / 8)
    {
        const int64_t e = g * 8, b = e / bs;
        float v[8];
        wk_q_value8(QT::qi, x + b * bb, (int)(e - b * bs), v);
        T t[8];
#pragma unroll
        for (int i = 0; i < 8; i++)
            wk_st(t + i, v[i]);
        if ((uintptr_t)(out + e) % 16 == 0) {
#pragma unroll
            for (int c = 0; c < (int)sizeof t / 16; c++) {
                uint4 u;
                memcpy(&u, (const char *)t + 16 * c, 16);
                ((uint4 *)(out + e))[c] = u;
            }
        } else {
#pragma unroll
            for (int i = 0; i < 8; i++)
                out[e + i] = t[i];
        }
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
