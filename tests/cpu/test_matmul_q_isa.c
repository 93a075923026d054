/* test_matmul_q_isa.c: the CPU's integer block dots (src/cpu/matmul_q_dot.h) on every instruction set this machine
 * has, on random blocks of every type with a dot (edge scales among them: 0, -0, subnormal, 65504) against x's rows
 * of ordinary, zero, tiny, subnormal, huge, one-spike and all-equal blocks: x's quantization (|x - d q| <= d / 2, the
 * sums), each dot against the float64 product of gguf-style dequantized w (quant_ref.c) and x within the bound
 * that x's rounding allows, and against the portable dot; the 8-row dots against the one-row ones; NaN and infinity
 * in x refused (the op then takes the float path: checked through wk_matmul_q); WICK_CPU_ISA's choice. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cases/quant_ref.h"
#include "cpu/matmul_q_dot.h"

#define NB 9                /* blocks a row: odd, past the 2-block unroll */
#define MAXK (NB * WK_QK_K) /* values a row at most */

/* Row r of x's test rows (k values): kind r % 8 picks ordinary, zero, tiny, subnormal, huge, a spike, equal or
 * mixed blocks (each block its own kind in the last). */
static void fill_x(wkt_rng *rng, int kind, int bs, int k, float *x)
{
    for (int i = 0; i < k; i++) {
        int kd = kind == 7 ? (i / bs) % 7 : kind;
        double u = wkt_rng_uniform(rng, -2, 2);
        switch (kd) {
        case 1: x[i] = 0.0f; break;
        case 2: x[i] = (float)(u * 1e-30); break;
        case 3: x[i] = (float)(u * 1e-39); break; /* subnormal f32 */
        case 4: x[i] = (float)(u * 1e25); break;
        case 5: x[i] = i % bs == 3 ? 1000.0f : (float)(u * 1e-3); break;
        case 6: x[i] = -1.5f; break;
        default: x[i] = (float)u; break;
        }
    }
}

/* x's quantized blocks: every value within d / 2 of d q (d = amax / 127), and the stored sums right. */
static void check_quantized(const float *x, int k, int bs, const void *xq)
{
    for (int b = 0; b < k / bs; b++) {
        const wk_mq_x32 *b32 = (const wk_mq_x32 *)xq + b;
        const wk_mq_x256 *b256 = (const wk_mq_x256 *)xq + b;
        float d = bs == WK_QK ? b32->d : b256->d;
        const int8_t *q = bs == WK_QK ? b32->q : b256->q;
        double amax = 0, worst = 0;
        int sum = 0, bsum_bad = 0;
        for (int j = 0; j < bs; j++)
            amax = fmax(amax, fabs(x[b * bs + j]));
        for (int j = 0; j < bs; j++) {
            worst = fmax(worst, fabs(x[b * bs + j] - (double)d * q[j]));
            sum += q[j];
            if (q[j] < -127)
                bsum_bad = 1;
        }
        for (int g = 0; bs == WK_QK_K && g < 16; g++) {
            int s = 0;
            for (int j = 0; j < 16; j++)
                s += q[16 * g + j];
            bsum_bad |= s != b256->bsum[g];
        }
        /* a subnormal d is off by up to half its last place (2^-150), which 127 q's multiply */
        CHECK(fabs(d - amax / 127) <= amax / 127 * 1e-6 + 0x1p-150, "block %d: d %g, amax / 127 %g", b, d, amax / 127);
        CHECK(worst <= amax / 254 * (1 + 1e-5) + 127 * 0x1p-150, "block %d: |x - d q| %g over d / 2 %g", b, worst,
              amax / 254);
        CHECK(bs == WK_QK_K || sum == b32->sum, "block %d: sum %d, stored %d", b, sum, b32->sum);
        CHECK(!bsum_bad, "block %d: q of -128 or a wrong 16-sum", b);
    }
}

/* One row of w (NB blocks of type qi) against one row of x on isa: the float64 product with the error x's rounding
 * allows (sum |w| amax / 254 a block, plus f32 sums of the partials), and the portable dot within f32 sums. */
static void check_dot(const wk_mq_kernels *k, int qi, const uint8_t *w, const float *x, const void *xq)
{
    int bs = wk_qi_block(qi), bb = wk_qi_bytes(qi);
    double want = 0, mag = 0, bound = 0;
    for (int b = 0; b < NB; b++) {
        double amax = 0, wabs = 0;
        for (int j = 0; j < bs; j++) {
            double wv = wkt_q_ref_value(qi, w + b * bb, j), xv = x[b * bs + j];
            want += wv * xv;
            mag += fabs(wv * xv);
            wabs += fabs(wv);
            amax = fmax(amax, fabs(xv));
        }
        bound += wabs * amax / 254;
    }
    double got = k->dot[qi](w, xq, NB), port = wk_mq_kernels_of(WK_MQ_PORTABLE)->dot[qi](w, xq, NB);
    double tol = bound * (1 + 1e-4) + 1e-5 * (mag + bound) + 1e-37;
    CHECK(fabs(got - want) <= tol, "%s type %d: got %.9g, float64 %.9g, bound %.3g", k->name, qi, got, want, tol);
    CHECK(fabs(got - port) <= 1e-5 * (mag + bound) + 1e-37, "%s type %d: got %.9g, portable %.9g", k->name, qi, got,
          port);
}

/* The 8-row dots against the one-row dots of the same set, row by row (f32 sums in another order). */
static void check_dot8(const wk_mq_kernels *k, wkt_rng *rng)
{
    static uint8_t w[8 * NB * WK_QBLOCK_MAX_BYTES];
    static float x[MAXK];
    static wk_mq_x256 xq[NB * 8];
    for (int qi = 0; qi < WK_QI_COUNT; qi++) {
        if (!k->dot8[qi])
            continue;
        int bs = wk_qi_block(qi), rb = NB * wk_qi_bytes(qi);
        wkt_q_random_blocks(qi, 8 * NB, rng, w, 1.0, true);
        for (int kind = 0; kind < 8; kind++) {
            float v[8];
            fill_x(rng, kind, bs, NB * bs, x);
            wk_mq_quantize_x(x, NB * bs, bs, xq);
            k->dot8[qi](w, rb, xq, NB, v);
            for (int r = 0; r < 8; r++) {
                double one = k->dot[qi](w + r * rb, xq, NB), mag = 0;
                for (int b = 0; b < NB; b++) {
                    const uint8_t *blk = w + r * rb + b * wk_qi_bytes(qi);
                    double wmax = 128 * fabs(wk_q_f16(blk)), xsum = 0; /* the offsets' terms (to 128 |d|) */
                    for (int j = 0; j < bs; j++) {
                        wmax = fmax(wmax, fabs(wkt_q_ref_value(qi, blk, j)));
                        xsum += fabs(x[b * bs + j]);
                    }
                    mag += wmax * xsum;
                }
                CHECK(fabs(v[r] - one) <= 1e-6 * mag + 1e-37, "%s type %d x kind %d row %d: 8 rows %.9g, one %.9g",
                      k->name, qi, kind, r, v[r], one);
            }
        }
    }
}

static void check_isa(const wk_mq_kernels *k, wkt_rng *rng)
{
    static uint8_t w[4 * NB * WK_QBLOCK_MAX_BYTES];
    static float x[8][MAXK];
    static wk_mq_x256 xq[8][NB * 8]; /* NB 32-blocks or NB 256-blocks a row: both fit */
    int tested = 0;
    for (int qi = 0; qi < WK_QI_COUNT; qi++) {
        if (!k->dot[qi])
            continue;
        int bs = wk_qi_block(qi);
        tested++;
        for (int r = 0; r < 4; r++) /* the first rows with edge scales, the others ordinary */
            wkt_q_random_blocks(qi, NB, rng, w + r * NB * wk_qi_bytes(qi), r < 2 ? 1.0 : 0.05, r < 2);
        for (int m = 0; m < 8; m++) {
            fill_x(rng, m, bs, NB * bs, x[m]);
            CHECK(wk_mq_quantize_x(x[m], NB * bs, bs, xq[m]), "%s type %d: x row %d refused", k->name, qi, m);
            check_quantized(x[m], NB * bs, bs, xq[m]);
            for (int r = 0; r < 4; r++)
                check_dot(k, qi, w + r * NB * wk_qi_bytes(qi), x[m], xq[m]);
        }
    }
    check_dot8(k, rng);
    CHECK(tested >= 4 && k->dot[WK_QI_Q4_0] && k->dot[WK_QI_Q8_0] && k->dot[WK_QI_Q4_K] && k->dot[WK_QI_Q6_K],
          "%s: %d types, Llama's four not all among them", k->name, tested);
}

/* NaN and infinity refuse the row (matmul_q then takes the float path). */
static void check_refusals(void)
{
    float x[WK_QK_K];
    wk_mq_x256 xq;
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++)
        for (int bs = WK_QK; bs <= WK_QK_K; bs *= 8) {
            for (int j = 0; j < bs; j++)
                x[j] = 0.5f;
            x[bs - 1] = bad[i];
            CHECK(!wk_mq_quantize_x(x, bs, bs, &xq), "block of %d with %g accepted", bs, bad[i]);
        }
}

/* Through the public API on the CPU: a NaN or infinity in x sends the call to the float path, whose IEEE arithmetic
 * gives the row NaN (or infinity) and leaves the other rows within f32 rounding of float64 (the 8-bit path's error is
 * a thousand times larger); a clean x takes the integer path (its error within the rounding's bound). */
static void check_nonfinite(wkt_rng *rng)
{
    enum { M = 2, N = 13, K = 64 };
    static uint8_t w[N * (K / 32) * 18];
    float x[M * K];
    wk_device *cpu = NULL;
    wk_tensor *tx = NULL, *tw = NULL, *o = NULL;
    const int64_t xs[2] = {M, K}, wsh[2] = {N, K};
    wkt_q_random_blocks(WK_QI_Q4_0, N * (K / 32), rng, w, 1.0, false);
    for (int v = 0; v < 3; v++) {
        fill_x(rng, 0, 32, M * K, x);
        if (v)
            x[5] = v == 1 ? NAN : INFINITY;
        float got[M * N];
        bool ok = wk_device_get("cpu", &cpu) == WK_OK && wk_tensor_from_host(cpu, WK_F32, 2, xs, x, &tx) == WK_OK &&
                  wk_tensor_from_host(cpu, WK_Q4_0, 2, wsh, w, &tw) == WK_OK && wk_matmul_q(tx, tw, &o) == WK_OK &&
                  wk_tensor_to_host(o, got, sizeof got) == WK_OK;
        CHECK(ok, "matmul_q with x case %d failed", v);
        for (int n = 0; ok && n < N; n++) {
            double want = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double wv = wkt_q_ref_value(WK_QI_Q4_0, w + (n * (K / 32) + k / 32) * 18, k % 32);
                want += wv * x[K + k], mag += fabs(wv * x[K + k]);
            }
            bool float_path = v != 0 && fabs(got[N + n] - want) <= 1e-6 * mag;
            CHECK(v == 0 || !isfinite(got[n]), "x case %d: row 0 col %d %g, want NaN or infinity", v, n, got[n]);
            CHECK(v == 0 || float_path, "x case %d: row 1 col %d %.9g, f32 path %.9g", v, n, got[N + n], want);
            CHECK(v != 0 || fabs(got[n] - want) < mag, "clean x: col %d %g far from %g", n, got[n], want);
        }
        wk_tensor_release(tx), wk_tensor_release(tw), wk_tensor_release(o);
        tx = tw = o = NULL;
    }
}

/* WICK_CPU_ISA (as ctest sets it) caps the choice: the best set at most the one named that this CPU has; with
 * WICK_CPU_MATMUL_Q=f32 there is none. */
static void check_choice(void)
{
    static const char *const names[WK_MQ_ISA_COUNT] = {"portable", "avx2", "avxvnni", "avx512"};
    const char *env = getenv("WICK_CPU_ISA");
    int cap = WK_MQ_ISA_COUNT - 1, want = WK_MQ_PORTABLE;
    for (int i = 0; env && i < WK_MQ_ISA_COUNT; i++)
        cap = strcmp(env, names[i]) == 0 ? i : cap;
    for (int i = cap; i > WK_MQ_PORTABLE && want == WK_MQ_PORTABLE; i--)
        want = wk_mq_kernels_of(i) ? i : want;
    const char *mode = getenv("WICK_CPU_MATMUL_Q");
    const wk_mq_kernels *k = wk_mq_kernels_best();
    if (mode && strcmp(mode, "f32") == 0) {
        CHECK(k == NULL, "WICK_CPU_MATMUL_Q=f32 chose %s, want none", k ? k->name : "");
        return;
    }
    CHECK(k && strcmp(k->name, names[want]) == 0, "WICK_CPU_ISA=%s chose %s, want %s", env ? env : "(unset)",
          k ? k->name : "none", names[want]);
    printf("WICK_CPU_ISA=%s: %s\n", env ? env : "(unset)", k ? k->name : "none");
}

int main(void)
{
    wkt_rng rng;
    wkt_rng_seed(&rng, 20261126);
    for (int isa = 0; isa < WK_MQ_ISA_COUNT; isa++) {
        const wk_mq_kernels *k = wk_mq_kernels_of(isa);
        printf("%s: %s\n", isa == 0 ? "portable" : isa == 1 ? "avx2" : isa == 2 ? "avxvnni" : "avx512",
               k ? "tested" : "not on this CPU");
        if (k)
            check_isa(k, &rng);
    }
    CHECK(wk_mq_kernels_of(WK_MQ_PORTABLE) != NULL, "no portable kernels");
    CHECK(wk_mq_kernels_of(-1) == NULL && wk_mq_kernels_of(WK_MQ_ISA_COUNT) == NULL, "kernels of an unknown set");
    check_refusals();
    check_nonfinite(&rng);
    check_choice();
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
