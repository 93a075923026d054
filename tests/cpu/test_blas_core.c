/* test_blas_core.c: OpenBLAS's kernel set as wick leaves it (src/cpu/gemm.c, switched at load). Run without
 * OPENBLAS_CORETYPE on an x86-64 CPU with AVX2 and FMA: never an SSE-era set (OpenBLAS's fallback on a model it does
 * not know, which wick replaces: then by SkylakeX or Haswell, and the set it replaced is reported; exit 77, ctest's
 * skip, where this OpenBLAS cannot be switched). Run with OPENBLAS_CORETYPE set (ctest: test_blas_core_env, x86-64,
 * Prescott): nothing replaced, and a build that picks its set at run time runs the user's. A product through the
 * chosen kernels matches a float64 one either way. */
#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "check.h"
#include "cpu/gemm.h"

/* C (m x n) = A (m x k) B^T (n x k) through wk_gemm against float64. */
static void check_product(void)
{
    enum { M = 37, N = 29, K = 300 };
    static float a[M * K], b[N * K], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)((i * 7 % 23) - 11) / 8;
    for (int i = 0; i < N * K; i++)
        b[i] = (float)((i * 5 % 19) - 9) / 4;
    wk_gemm(WK_F32, false, true, M, N, K, a, K, b, K, c, N, false);
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double want = 0;
            for (int k = 0; k < K; k++)
                want += (double)a[i * K + k] * b[j * K + k];
            worst = fmax(worst, fabs(c[i * N + j] - want)); /* every term a multiple of 1/32: sums exact in f32 */
        }
    CHECK(worst == 0, "sgemm through the chosen kernels: off by %g", worst);
}

int main(void)
{
    const char *env = getenv("OPENBLAS_CORETYPE"), *replaced = NULL, *core = wk_gemm_core(&replaced);
    printf("OpenBLAS kernels: %s%s%s\n", core, replaced ? ", replacing " : "", replaced ? replaced : "");
    if (env) {
        CHECK(replaced == NULL, "OPENBLAS_CORETYPE=%s, and wick replaced %s", env, replaced);
        if (wk_gemm_switchable()) /* a build that picks its set at run time: it took the user's */
            CHECK(strcasecmp(core, env) == 0, "OPENBLAS_CORETYPE=%s, kernels %s", env, core);
    } else if (wk_gemm_old_core(core) && !wk_gemm_switchable()) {
        printf("SKIPPED: OpenBLAS's %s kernels, and this OpenBLAS cannot be switched (no run-time kernel choice, or "
               "no set for this CPU's features)\n", core);
        return 77;
    } else {
#if defined(__x86_64__) && defined(__GNUC__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            CHECK(!wk_gemm_old_core(core), "an AVX2 CPU runs OpenBLAS's %s kernels", core);
#endif
        bool modern = strcasecmp(core, "SkylakeX") == 0 || strcasecmp(core, "Haswell") == 0;
        CHECK(!replaced || (wk_gemm_old_core(replaced) && modern), "replaced %s by %s", replaced ? replaced : "",
              core);
    }
    check_product();
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
