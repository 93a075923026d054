/* test_gelu_erf.c: the CPU's exact gelu (wk_unary WK_UNARY_GELU_ERF in f32, src/cpu/vmath.h wk_vgelu_erff) element
 * by element against 0.5 v erfc(-v / sqrt 2) in float64, over a sweep of the f32 values in [-16, 16] (every 97th bit
 * pattern: about 23 million, tiny and subnormal ones among them) through the public op, so the vector code this CPU
 * runs is the one checked: relative error within 6e-7 (the kernel measures 4.6e-7 over every f32 there), results
 * below the normal range within 2 of their smallest steps; and the special values: gelu(inf) = inf,
 * gelu(-inf) = NaN (-inf * 0, as PyTorch), NaN, +-0, 16 <= |v| (v or -0). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define STEP 97u

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static double ref(double v) { return 0.5 * v * erfc(-v * 0.70710678118654752440); }

/* out[i] = gelu_erf(in[i]) through the op on the CPU; false on any failure. */
static bool run_gelu(wk_device *cpu, const float *in, int64_t n, float *out)
{
    wk_tensor *x = NULL, *y = NULL;
    bool ok = wk_tensor_from_host(cpu, WK_F32, 1, &n, in, &x) == WK_OK && wk_unary(WK_UNARY_GELU_ERF, x, &y) == WK_OK &&
              wk_tensor_to_host(y, out, sizeof(float) * (size_t)n) == WK_OK;
    wk_tensor_release(x);
    wk_tensor_release(y);
    return ok;
}

int main(void)
{
    wk_device *cpu = NULL;
    CHECK(wk_device_get("cpu", &cpu) == WK_OK, "no cpu device");
    const uint32_t top = 0x41800000u; /* 16.0f */
    int64_t n = 0, cap = 2 * (int64_t)(top / STEP) + 64;
    float *in = malloc(sizeof(float) * (size_t)cap), *out = malloc(sizeof(float) * (size_t)cap);
    CHECK(in && out, "out of memory");
    if (!cpu || !in || !out)
        return 1;
    for (uint32_t u = 0; u <= top; u += STEP) {
        in[n++] = bits_f32(u);
        in[n++] = bits_f32(u | 0x80000000u);
    }
    const float special[] = {INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 16.0f, -16.0f, 1e30f, -1e30f, FLT_MAX, -FLT_MAX};
    int64_t ns = (int64_t)(sizeof special / sizeof special[0]);
    memcpy(in + n, special, sizeof special);
    n += ns;
    CHECK(run_gelu(cpu, in, n, out), "gelu_erf failed");
    double worst = 0, worst_v = 0;
    int64_t bad = 0;
    for (int64_t i = 0; i < n - ns; i++) {
        double r = ref(in[i]), e = fabs(out[i] - r);
        bool ok = fabs(r) >= 0x1p-126 ? e <= 6e-7 * fabs(r) : e <= 0x1p-148;
        if (fabs(r) >= 0x1p-126 && e / fabs(r) > worst)
            worst = e / fabs(r), worst_v = in[i];
        if (!ok && bad++ < 5)
            CHECK(false, "gelu_erf(%.9g) = %.9g, want %.9g", in[i], out[i], r);
    }
    CHECK(bad == 0, "%lld of %lld values off", (long long)bad, (long long)(n - ns));
    printf("%lld values, worst relative error %.3g at %.9g\n", (long long)(n - ns), worst, worst_v);
    const float *o = out + n - ns;
    CHECK(o[0] == INFINITY && isnan(o[1]) && isnan(o[2]), "gelu_erf(inf, -inf, NaN) = %g, %g, %g", o[0], o[1], o[2]);
    CHECK(o[3] == 0 && !signbit(o[3]) && o[4] == 0 && signbit(o[4]), "gelu_erf(+-0) = %g, %g", o[3], o[4]);
    CHECK(o[5] == 16.0f && o[6] == 0 && signbit(o[6]), "gelu_erf(+-16) = %g, %g", o[5], o[6]);
    CHECK(o[7] == 1e30f && o[8] == 0 && o[9] == FLT_MAX && o[10] == 0, "gelu_erf of huge values: %g %g %g %g", o[7],
          o[8], o[9], o[10]);
    free(in);
    free(out);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
