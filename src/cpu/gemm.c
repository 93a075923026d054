/* gemm.c: the OpenBLAS call behind matmul and convolution, plus the packing of strided operands into the
 * compute type and the rounding store back to f16/bf16 (declared in gemm.h). */
#include "cpu/gemm.h"

#include <cblas.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void wk_gemm(wk_dtype ct, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
             const void *b, int64_t ldb, void *c, int64_t ldc, bool accumulate)
{
    enum CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
    if (ct == WK_F64)
        cblas_dgemm(CblasRowMajor, ta, tb, (blasint)m, (blasint)n, (blasint)k, 1.0, a, (blasint)lda, b,
                    (blasint)ldb, accumulate ? 1.0 : 0.0, c, (blasint)ldc);
    else
        cblas_sgemm(CblasRowMajor, ta, tb, (blasint)m, (blasint)n, (blasint)k, 1.0f, a, (blasint)lda, b,
                    (blasint)ldb, accumulate ? 1.0f : 0.0f, c, (blasint)ldc);
}

void wk_gemm_for(int64_t n, int64_t grain, wk_range_fn body, void *ctx)
{
    bool threaded = openblas_get_parallel() == OPENBLAS_OPENMP;
#ifdef _OPENMP
    threaded = threaded && !omp_in_parallel(); /* called from a task that is already one of many */
#endif
    if (threaded)
        wk_cpu_parallel_for(n, grain, body, ctx);
    else if (n > 0)
        body(ctx, 0, n);
}

typedef struct pack_job {
    wk_dtype dt;
    const char *src;
    int64_t cols, rs, cs;
    char *dst;
} pack_job;

static void pack_rows(void *arg, int64_t begin, int64_t end)
{
    const pack_job *j = arg;
    size_t es = wk_dtype_size(j->dt), ces = wk_dtype_size(wk_gemm_compute_dtype(j->dt));
    for (int64_t r = begin; r < end; r++)
        wk_load_run(j->dt, j->src + (size_t)(r * j->rs) * es, j->cs, j->cols, j->dst + (size_t)(r * j->cols) * ces);
}

void wk_gemm_pack(wk_dtype dt, const void *src, int64_t rows, int64_t cols, int64_t rs, int64_t cs, void *dst)
{
    pack_job j = {.dt = dt, .src = src, .cols = cols, .rs = rs, .cs = cs, .dst = dst};
    wk_gemm_for(rows, WK_CPU_GRAIN / (cols > 0 ? cols : 1) + 1, pack_rows, &j);
}

/* dst[i] = round(src[i] + b) for i in [begin, end). */
static void store_run(wk_dtype dt, const void *src, void *dst, int64_t begin, int64_t end, double b)
{
    switch (dt) {
    case WK_F16:
        for (int64_t i = begin; i < end; i++)
            wk_st_f16((wk_f16_t *)dst + i, ((const float *)src)[i] + (float)b);
        break;
    case WK_BF16:
        for (int64_t i = begin; i < end; i++)
            wk_st_bf16((wk_bf16_t *)dst + i, ((const float *)src)[i] + (float)b);
        break;
    case WK_F32:
        for (int64_t i = begin; i < end; i++)
            ((float *)dst)[i] = ((const float *)src)[i] + (float)b;
        break;
    default:
        for (int64_t i = begin; i < end; i++)
            ((double *)dst)[i] = ((const double *)src)[i] + b;
    }
}

typedef struct store_job {
    wk_dtype dt;
    const void *src;
    void *dst;
    const void *bias;
    int64_t per_bias, nbias;
} store_job;

/* Elements [begin, end), cut at bias boundaries. */
static void store_range(void *arg, int64_t begin, int64_t end)
{
    const store_job *j = arg;
    if (!j->bias) {
        store_run(j->dt, j->src, j->dst, begin, end, 0);
        return;
    }
    for (int64_t i = begin; i < end;) {
        int64_t row = i / j->per_bias, stop = (row + 1) * j->per_bias < end ? (row + 1) * j->per_bias : end;
        int64_t bi = row % j->nbias;
        store_run(j->dt, j->src, j->dst, i, stop,
                  j->dt == WK_F64 ? ((const double *)j->bias)[bi] : ((const float *)j->bias)[bi]);
        i = stop;
    }
}

void wk_gemm_store(wk_dtype dt, const void *src, void *dst, int64_t n, const void *bias, int64_t per_bias,
                   int64_t nbias)
{
    store_job j = {.dt = dt, .src = src, .dst = dst, .bias = bias, .per_bias = per_bias, .nbias = nbias};
    wk_gemm_for(n, WK_CPU_GRAIN, store_range, &j);
}

/* ---- OpenBLAS's kernel set. Its DYNAMIC_ARCH build picks kernels by the CPU's model when it loads and falls back to
 * its SSE3 (Prescott) ones on a model it does not know: OpenBLAS 0.3.21 (Debian 12) on an Emerald Rapids (model 207)
 * or a virtual machine's masked model. Its sgemm then runs 4.7x slower than with the AVX-512 kernels on the same
 * cores (58 against 270 GFLOP/s on 2 cores, bench/results/cpu-2026-11-27-embed.md). Unless the user set
 * OPENBLAS_CORETYPE (which also keeps OpenBLAS's choice: the way to opt out), wick then has OpenBLAS take the set the
 * CPU's features allow: SkylakeX with AVX-512 (F, BW, DQ, VL), Haswell with AVX2 and FMA. It does so once, when
 * libwick loads (a constructor: before the program's own threads can be inside OpenBLAS through it), through the two
 * entry points OpenBLAS's own load runs (gotoblas_dynamic_quit, then gotoblas_dynamic_init, which reads
 * OPENBLAS_CORETYPE, set for that call and removed after), referenced weakly: a build without them keeps its kernels.
 * The switch is reported only where OpenBLAS then names the set asked for. */
bool wk_gemm_old_core(const char *core)
{
    static const char *const old[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom",
                                      "Katmai", "Northwood", "Banias", "Opteron", "Barcelona"};
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++)
        if (strcasecmp(core, old[i]) == 0)
            return true;
    return false;
}

#if defined(__x86_64__) && defined(__GNUC__)
extern void gotoblas_dynamic_init(void) __attribute__((weak));
extern void gotoblas_dynamic_quit(void) __attribute__((weak));
/* OpenBLAS's kernel tables, only their presence tested: an incomplete type, never read through. */
struct wk_openblas_table;
extern struct wk_openblas_table gotoblas_SKYLAKEX __attribute__((weak));
extern struct wk_openblas_table gotoblas_HASWELL __attribute__((weak));

/* The kernel set the CPU's features allow, where this OpenBLAS can be switched to it; else NULL. */
static const char *feature_core(void)
{
    if (!gotoblas_dynamic_init || !gotoblas_dynamic_quit)
        return NULL;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && &gotoblas_SKYLAKEX)
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && &gotoblas_HASWELL)
        return "Haswell";
    return NULL;
}
#else
static const char *feature_core(void) { return NULL; }
#endif

static char picked_by_openblas[32]; /* the set OpenBLAS took before wick switched it; "" if none */
static pthread_once_t core_once = PTHREAD_ONCE_INIT;

static void choose_core(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    const char *core = openblas_get_corename(), *want = NULL;
    if (!core || getenv("OPENBLAS_CORETYPE") || !wk_gemm_old_core(core) || !(want = feature_core()))
        return;
    char before[sizeof picked_by_openblas];
    snprintf(before, sizeof before, "%s", core);
    if (setenv("OPENBLAS_CORETYPE", want, 1) != 0)
        return;
    gotoblas_dynamic_quit();
    gotoblas_dynamic_init();
    unsetenv("OPENBLAS_CORETYPE");
    const char *now = openblas_get_corename();
    if (now && strcasecmp(now, want) == 0)
        memcpy(picked_by_openblas, before, sizeof before);
#endif
}

static void choose_core_once(void) { pthread_once(&core_once, choose_core); }

/* At libwick's load: the switch happens before any thread can reach OpenBLAS through wick. */
__attribute__((constructor)) static void choose_core_at_load(void) { choose_core_once(); }

bool wk_gemm_switchable(void) { return feature_core() != NULL; }

const char *wk_gemm_core(const char **replaced)
{
    choose_core_once(); /* done at load already: kept for a caller that could run before the constructors */
    const char *core = openblas_get_corename();
    *replaced = picked_by_openblas[0] ? picked_by_openblas : NULL;
    return core ? core : "unknown";
}
