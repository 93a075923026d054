/* quant_ref.c: the plain float64 decoding of GGML's block layouts that the 'quant' and 'matmul_q' cases check against
 * (written from the GGUF layouts, never the backends' code), random blocks to decode, and the 8-bit path's tolerance
 * (matmul_q.c, linear.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quant_ref.h"

const int wkt_qblock[WKT_NQT] = {32, 32, 32, 32, 32, 256, 256, 256, 256, 256, 256, 32, 256};
const int wkt_qbytes[WKT_NQT] = {18, 20, 22, 24, 34, 84, 110, 144, 176, 210, 292, 18, 136};
/* offsets of the f16 scales in a block (-1: none) */
static const int f16_at[WKT_NQT][2] = {{0, -1}, {0, 2}, {0, -1}, {0, 2}, {0, -1}, {80, 82}, {108, -1},
                                   {0, 2},  {0, 2}, {208, -1}, {-1, -1}, {0, -1}, {0, -1}};
static const int iq4[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

static double f16v(const uint8_t *p) { return (double)wk_f16_to_f32((uint16_t)(p[0] | p[1] << 8)); }
static double f32r(double v) { return (double)(float)v; }
static unsigned nib(const uint8_t *qs, int j) { return j < 16 ? qs[j] & 15u : qs[j - 16] >> 4; }
static unsigned bit(const uint8_t *p, int j) { return (p[j / 8] >> (j % 8)) & 1u; }

static void sm_k4(const uint8_t *q, int s, int *sc, int *m)
{
    *sc = s < 4 ? q[s] & 63 : (q[s + 4] & 15) | ((q[s - 4] >> 6) << 4);
    *m = s < 4 ? q[s + 4] & 63 : (q[s + 4] >> 4) | ((q[s] >> 6) << 4);
}

double wkt_q_ref_value(int qi, const uint8_t *b, int j)
{
    int h = j / 128, sh = (j % 128) / 32, l = j % 32, sc, m;
    switch (qi) {
    case 0: return f16v(b) * ((int)nib(b + 2, j) - 8);
    case 1: return f32r(f16v(b) * nib(b + 4, j) + f16v(b + 2));
    case 2: return f16v(b) * ((int)(nib(b + 6, j) | bit(b + 2, j) << 4) - 16);
    case 3: return f32r(f16v(b) * (nib(b + 8, j) | bit(b + 4, j) << 4) + f16v(b + 2));
    case 4: return f16v(b) * (int8_t)b[2 + j];
    case 5: {
        int s = b[j / 16];
        return f32r(f16v(b + 80) * (s & 15) * ((b[16 + h * 32 + l] >> (2 * sh)) & 3) - f16v(b + 82) * (s >> 4));
    }
    case 6: {
        int i = j / 16, lo = i < 8 ? b[96 + i] & 15 : b[96 + i - 8] >> 4, hi = (b[104 + i % 4] >> (2 * (i / 4))) & 3;
        int q = ((b[32 + h * 32 + l] >> (2 * sh)) & 3) - (((b[j % 32] >> (j / 32)) & 1) ? 0 : 4);
        return f16v(b + 108) * ((lo | hi << 4) - 32) * q;
    }
    case 7:
    case 8: {
        sm_k4(b + 4, j / 32, &sc, &m);
        int q = (b[(qi == 7 ? 16 : 48) + (j / 64) * 32 + l] >> (4 * ((j / 32) & 1))) & 15;
        if (qi == 8)
            q |= ((b[16 + l] >> (j / 32)) & 1) << 4;
        return f32r(f16v(b) * sc * q - f16v(b + 2) * m);
    }
    case 9: {
        int r = j % 128, ql = (b[h * 64 + r % 64] >> (4 * (r / 64))) & 15, qh = (b[128 + h * 32 + l] >> (2 * sh)) & 3;
        return f32r(f16v(b + 208) * (int8_t)b[192 + j / 16] * ((ql | qh << 4) - 32));
    }
    case 10: {
        float d;
        memcpy(&d, b, 4);
        return f32r((double)d * (int8_t)b[4 + j]);
    }
    case 11: return f16v(b) * iq4[nib(b + 2, j)];
    default: {
        int ib = j / 32, r = j % 32, lo = (b[4 + ib / 2] >> (4 * (ib % 2))) & 15, hi = ((b[2] | b[3] << 8) >> (2 * ib)) & 3;
        return f32r(f16v(b) * ((lo | hi << 4) - 32) * iq4[(b[8 + ib * 16 + r % 16] >> (4 * (r / 16))) & 15]);
    }
    }
}

void wkt_q_random_blocks(int qi, int64_t nblocks, wkt_rng *rng, uint8_t *p, double amp, bool edges)
{
    static const float edge[] = {0.0f, -0.0f, 6e-8f, 3e-5f, 65504.0f, -1.0f};
    for (int64_t b = 0; b < nblocks; b++) {
        uint8_t *blk = p + b * wkt_qbytes[qi];
        for (int i = 0; i < wkt_qbytes[qi]; i++)
            blk[i] = (uint8_t)wkt_rng_int(rng, 0, 255);
        for (int k = 0; k < 2; k++)
            if (f16_at[qi][k] >= 0) {
                float v = edges ? (wkt_rng_int(rng, 0, 3) == 0 ? edge[wkt_rng_int(rng, 0, 5)]
                                                                : (float)wkt_rng_uniform(rng, -amp, amp))
                                : (wkt_rng_int(rng, 0, 7) == 0 ? 0.0f : (float)wkt_rng_uniform(rng, -amp, amp));
                uint16_t h = wk_f32_to_f16(v);
                blk[f16_at[qi][k]] = (uint8_t)h;
                blk[f16_at[qi][k] + 1] = (uint8_t)(h >> 8);
            }
        if (qi == 10) {
            float d = (float)wkt_rng_uniform(rng, -0.01, 0.01);
            memcpy(blk, &d, 4);
        }
    }
}

/* The values of x's blocks that this case rounds to 8 bits together, or 0 on a float path: the CPU's integer dots
 * (cpu/matmul_q_dot.c: blocks of the type's size) up to 8 rows, unless WICK_CPU_MATMUL_Q=f32 keeps the CPU on the
 * float path (then f32's tolerance holds); a GPU's dot kernels for Q4_0, Q8_0, Q4_K and Q6_K up to 8 rows
 * (gpu/matmul_q.c: blocks of 32), unless WICK_GPU_MATMUL_Q=f32. */
int64_t wkt_q_int8_block(wk_device *dev, int qi, int64_t M)
{
    static const bool has_dot[WKT_NQT] = {1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0};
    bool cpu = strcmp(wk_device_name(dev), "cpu") == 0;
    const char *mode = getenv(cpu ? "WICK_CPU_MATMUL_Q" : "WICK_GPU_MATMUL_Q");
    if (mode && strcmp(mode, "f32") == 0)
        return 0;
    wk_dtype t = (wk_dtype)(WK_Q4_0 + qi);
    if (cpu)
        return M <= 8 && has_dot[qi] ? wkt_qblock[qi] : 0;
    return M <= 8 && (t == WK_Q4_0 || t == WK_Q8_0 || t == WK_Q4_K || t == WK_Q6_K) ? 32 : 0;
}

/* The 8-bit path's tolerance (matmul_q.c's comment): the dtype's, plus 6 * sqrt(sum w^2 d^2 / 12) / |want|, d the
 * rounding step of x's block (of bs values) holding each value. */
double wkt_q_int8_tolerance(wk_dtype dt, int64_t bs, const double *xv, const double *wv, const double *want,
                             int64_t M, int64_t N, int64_t K)
{
    double var = 0, norm2 = 0;
    for (int64_t i = 0; i < M * N; i++) /* rows made NaN on purpose (a NaN scale) are compared by placement */
        norm2 += isfinite(want[i]) ? want[i] * want[i] : 0;
    for (int64_t m = 0; m < M; m++)
        for (int64_t k0 = 0; k0 < K; k0 += bs) {
            double amax = 0;
            for (int64_t k = k0; k < k0 + bs; k++)
                amax = fmax(amax, fabs(xv[m * K + k]));
            double d = amax / 127, w2 = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t k = k0; k < k0 + bs; k++)
                    w2 += isfinite(wv[n * K + k]) ? wv[n * K + k] * wv[n * K + k] : 0;
            var += w2 * d * d / 12;
        }
    return wkt_tol(dt, WKT_TOL_MATMUL) + (norm2 > 0 ? 6 * sqrt(var / norm2) : 0);
}

void wkt_ref_xwt(const double *x, const double *w, int64_t M, int64_t N, int64_t K, double *out)
{
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double acc = 0;
            for (int64_t k = 0; k < K; k++)
                acc += x[m * K + k] * w[n * K + k];
            out[m * N + n] = acc;
        }
}
