/* cuda_blas.c: gpu.h's BLAS table on NVIDIA through cuBLAS, loaded with dlopen on first use (never linked):
 * one handle per device bound to the device's stream, and the row-major GEMM mapped onto column-major cuBLAS. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "gpu/cuda_libs.h"
#include "gpu/runtime.h"

static struct {
    char error[512]; /* why loading failed; "" once loaded */
    wk_cublasCreate_v2_fn create;
    wk_cublasDestroy_v2_fn destroy;
    wk_cublasSetStream_v2_fn set_stream;
    wk_cublasSetPointerMode_v2_fn set_pointer_mode;
    wk_cublasSetMathMode_fn set_math_mode;
    wk_cublasGetStatusString_fn status_string; /* NULL before cuBLAS 11.4 */
    wk_cublasGemmStridedBatchedEx_fn gemm;
    wk_cublasGemmStridedBatchedEx_64_fn gemm64; /* NULL before cuBLAS 12 */
} cublas;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
/* Created once per device under handle_lock, never destroyed (devices live as long as the process), read
 * without the lock afterwards. */
static _Atomic(wk_cublasHandle_t) handles[WK_GPU_MAX_DEVICES];
/* Why handle creation failed on this thread (the `why` handed out must outlive the call). */
static _Thread_local char handle_error[256];

static void load(void)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so",
                                        NULL};
    char tried[384];
    void *lib = wk_gpu_dlopen_first("WICK_CUBLAS_LIBRARY", names, tried, sizeof tried);
    if (!lib) {
        snprintf(cublas.error, sizeof cublas.error, "cuBLAS not found (WICK_CUBLAS_LIBRARY names its path): %s", tried);
        return;
    }
    const char *missing = NULL;
#define NEED(field, sym)                                     \
    if (!missing && !wk_gpu_dlsym(lib, sym, &cublas.field)) \
        missing = sym;
    NEED(create, "cublasCreate_v2")
    NEED(destroy, "cublasDestroy_v2")
    NEED(set_stream, "cublasSetStream_v2")
    NEED(set_pointer_mode, "cublasSetPointerMode_v2")
    NEED(set_math_mode, "cublasSetMathMode")
    NEED(gemm, "cublasGemmStridedBatchedEx")
#undef NEED
    if (missing) {
        snprintf(cublas.error, sizeof cublas.error, "the cuBLAS found lacks %s (cuBLAS 11 or newer is needed)",
                 missing);
        dlclose(lib);
        return;
    }
    wk_gpu_dlsym(lib, "cublasGetStatusString", &cublas.status_string);
    wk_gpu_dlsym(lib, "cublasGemmStridedBatchedEx_64", &cublas.gemm64);
    cublas.error[0] = '\0';
}

static const char *status_text(wk_cublasStatus_t st)
{
    const char *t = cublas.status_string ? cublas.status_string(st) : NULL;
    return t ? t : "cuBLAS error";
}

/* The device's handle, created on first use; d's context is current on this thread (wk_gpu_dev_of). */
static wk_cublasHandle_t handle_of(wk_gpu_dev *d, const char **why)
{
    pthread_once(&load_once, load);
    if (cublas.error[0]) {
        *why = cublas.error;
        return NULL;
    }
    int ord = wk_gpu_ordinal(d);
    if (ord < 0 || ord >= WK_GPU_MAX_DEVICES) {
        snprintf(handle_error, sizeof handle_error, "cuBLAS: device %s beyond the %d handles kept",
                 wk_gpu_dev_name(d), WK_GPU_MAX_DEVICES);
        *why = handle_error;
        return NULL;
    }
    wk_cublasHandle_t h = atomic_load_explicit(&handles[ord], memory_order_acquire);
    if (h)
        return h;
    pthread_mutex_lock(&handle_lock);
    h = atomic_load_explicit(&handles[ord], memory_order_relaxed);
    if (!h) {
        /* Configured once and never changed, so threads may share the handle: the stream is the device's,
         * scalars come from the host, and f32 stays true f32 (TF32 only through the compute type of a
         * call that allows it); f16/bf16 reductions stay in f32 as the accumulation does. */
        const char *call = "cublasCreate_v2";
        wk_cublasStatus_t st = cublas.create(&h);
        if (st == WK_CUBLAS_STATUS_SUCCESS) {
            call = "cublasSetStream_v2";
            st = cublas.set_stream(h, (wk_cudaStream_t)wk_gpu_stream(d));
        }
        if (st == WK_CUBLAS_STATUS_SUCCESS) {
            call = "cublasSetPointerMode_v2";
            st = cublas.set_pointer_mode(h, WK_CUBLAS_POINTER_MODE_HOST);
        }
        if (st == WK_CUBLAS_STATUS_SUCCESS) {
            call = "cublasSetMathMode";
            st = cublas.set_math_mode(h, WK_CUBLAS_DEFAULT_MATH | WK_CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
        }
        if (st == WK_CUBLAS_STATUS_SUCCESS) {
            atomic_store_explicit(&handles[ord], h, memory_order_release);
        } else {
            if (h)
                cublas.destroy(h);
            h = NULL;
            snprintf(handle_error, sizeof handle_error, "cuBLAS on %s: %s failed: %s", wk_gpu_dev_name(d), call,
                     status_text(st));
            *why = handle_error;
        }
    }
    pthread_mutex_unlock(&handle_lock);
    return h;
}

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: a row-major matrix read column-major is
 * its transpose, so B goes first with its own flag, then A, with m and n swapped. */
static wk_status cuda_gemm(wk_gpu_dev *d, const wk_gpu_gemm *g)
{
    if (g->batch == 0 || g->m == 0 || g->n == 0)
        return WK_OK;
    const char *why = NULL;
    wk_cublasHandle_t h = handle_of(d, &why);
    if (!h)
        return wk_error(WK_ERR_UNSUPPORTED, "gemm: %s", why);
    wk_cudaDataType type;
    wk_cublasComputeType_t compute;
    switch (g->dtype) {
    case WK_F16: type = WK_CUDA_R_16F, compute = WK_CUBLAS_COMPUTE_32F; break;
    case WK_BF16: type = WK_CUDA_R_16BF, compute = WK_CUBLAS_COMPUTE_32F; break;
    case WK_F32:
        type = WK_CUDA_R_32F;
        compute = g->allow_tf32 ? WK_CUBLAS_COMPUTE_32F_FAST_TF32 : WK_CUBLAS_COMPUTE_32F;
        break;
    case WK_F64: type = WK_CUDA_R_64F, compute = WK_CUBLAS_COMPUTE_64F; break;
    default: return wk_error(WK_ERR_UNSUPPORTED, "gemm: cuBLAS has no %s product", wk_dtype_name(g->dtype));
    }
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void *alpha = g->dtype == WK_F64 ? (const void *)&one_d : (const void *)&one_f;
    const void *beta = g->dtype == WK_F64 ? (const void *)&zero_d : (const void *)&zero_f;
    wk_cublasOperation_t op_a = g->trans_b ? WK_CUBLAS_OP_T : WK_CUBLAS_OP_N;
    wk_cublasOperation_t op_b = g->trans_a ? WK_CUBLAS_OP_T : WK_CUBLAS_OP_N;

    const char *call;
    wk_cublasStatus_t st;
    if (wk_gpu_fits_int(g->m) && wk_gpu_fits_int(g->n) && wk_gpu_fits_int(g->k) && wk_gpu_fits_int(g->lda) &&
        wk_gpu_fits_int(g->ldb) && wk_gpu_fits_int(g->ldc) && wk_gpu_fits_int(g->batch)) {
        call = "cublasGemmStridedBatchedEx";
        st = cublas.gemm(h, op_a, op_b, (int)g->n, (int)g->m, (int)g->k, alpha, g->b, type, (int)g->ldb,
                         (long long)g->stride_b, g->a, type, (int)g->lda, (long long)g->stride_a, beta, g->c, type,
                         (int)g->ldc, (long long)g->stride_c, (int)g->batch, compute, WK_CUBLAS_GEMM_DEFAULT);
    } else if (cublas.gemm64) {
        call = "cublasGemmStridedBatchedEx_64";
        st = cublas.gemm64(h, op_a, op_b, g->n, g->m, g->k, alpha, g->b, type, g->ldb, (long long)g->stride_b, g->a,
                           type, g->lda, (long long)g->stride_a, beta, g->c, type, g->ldc, (long long)g->stride_c,
                           g->batch, compute, WK_CUBLAS_GEMM_DEFAULT);
    } else {
        return wk_error(WK_ERR_UNSUPPORTED,
                        "gemm: %lld x %lld x %lld (batch %lld, ld %lld/%lld/%lld) exceeds this cuBLAS's 32-bit sizes",
                        (long long)g->m, (long long)g->k, (long long)g->n, (long long)g->batch, (long long)g->lda,
                        (long long)g->ldb, (long long)g->ldc);
    }
    if (st == WK_CUBLAS_STATUS_SUCCESS)
        return WK_OK;
    return wk_error(st == WK_CUBLAS_STATUS_NOT_SUPPORTED ? WK_ERR_UNSUPPORTED : WK_ERR_BACKEND,
                    "gemm: %s failed on %s: %s (%s, %lld x %lld x %lld, batch %lld)", call, wk_gpu_dev_name(d),
                    status_text(st), wk_dtype_name(g->dtype), (long long)g->m, (long long)g->k, (long long)g->n,
                    (long long)g->batch);
}

static const wk_gpu_blas cuda_blas = {.name = "cuBLAS", .gemm = cuda_gemm};

const wk_gpu_blas *wk_cuda_blas_get(wk_gpu_dev *d, const char **why)
{
    const char *w = NULL;
    if (!handle_of(d, &w)) {
        if (why)
            *why = w;
        return NULL;
    }
    return &cuda_blas;
}
