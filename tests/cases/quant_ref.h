/* quant_ref.h: what the block-quantization cases share (quant.c, matmul_q.c): GGML's block sizes, a plain float64
 * decoding of the GGUF layouts (quant_ref.c) and random blocks. Types are counted from WK_Q4_0. */
#ifndef WKT_QUANT_REF_H
#define WKT_QUANT_REF_H

#include "harness.h"

#define WKT_NQT 13
extern const int wkt_qblock[WKT_NQT]; /* elements a block */
extern const int wkt_qbytes[WKT_NQT]; /* bytes a block */

/* Element j of block b of type qi, as f32 (each f32 rounding of gguf-py's arithmetic applied to an exact double). */
double wkt_q_ref_value(int qi, const uint8_t *b, int j);
/* nblocks random blocks of type qi at p: random bytes, f16 scales uniform in [-amp, amp); edges: a quarter of them
 * 0, -0, tiny, subnormal, 65504 or -1; else one in eight 0 (a block of zeros). */
void wkt_q_random_blocks(int qi, int64_t nblocks, wkt_rng *rng, uint8_t *p, double amp, bool edges);
/* out (M, N) = x (M, K) w^T in float64: a linear layer's reference product (matmul_q.c, linear.c). */
void wkt_ref_xwt(const double *x, const double *w, int64_t M, int64_t N, int64_t K, double *out);
/* The block size of x's values a matmul_q of M rows of x by type qi rounds to 8 bits together on dev (the CPU's
 * integer dots, a GPU's dot kernels), or 0 where it stays in float (WICK_CPU_MATMUL_Q / WICK_GPU_MATMUL_Q=f32). */
int64_t wkt_q_int8_block(wk_device *dev, int qi, int64_t M);
/* That path's tolerance for want (M, N) = xv (M, K) wv^T (matmul_q.c's comment says why). */
double wkt_q_int8_tolerance(wk_dtype dt, int64_t bs, const double *xv, const double *wv, const double *want, int64_t M,
                            int64_t N, int64_t K);

#endif
