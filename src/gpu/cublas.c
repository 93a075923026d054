/* cublas.c: gpu.h's BLAS table on NVIDIA through cuBLAS, loaded with dlopen on first use (never linked):
 * one handle per device and stream, and the row-major GEMM mapped onto column-major cuBLAS. */

#include "gpu/cuda_libs.h"
#include "gpu/runtime.h"
#include "gpu/vendor_lib.h"

static struct {
    wk_cublasCreate_v2_fn create;
    wk_cublasDestroy_v2_fn destroy;
    wk_cublasSetStream_v2_fn set_stream;
    wk_cublasSetWorkspace_v2_fn set_workspace; /* NULL before cuBLAS 11.? */
    wk_cublasSetPointerMode_v2_fn set_pointer_mode;
    wk_cublasSetMathMode_fn set_math_mode;
    wk_cublasGetStatusString_fn status_string; /* NULL before cuBLAS 11.4 */
    wk_cublasGemmStridedBatchedEx_fn gemm;
    wk_cublasGemmStridedBatchedEx_64_fn gemm64; /* NULL before cuBLAS 12 */
} cublas;

static const char *const sonames[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so", NULL};
static const wk_gpu_sym syms[] = {
    {"cublasCreate_v2", &cublas.create, false},
    {"cublasDestroy_v2", &cublas.destroy, false},
    {"cublasSetStream_v2", &cublas.set_stream, false},
    {"cublasSetWorkspace_v2", &cublas.set_workspace, true},
    {"cublasSetPointerMode_v2", &cublas.set_pointer_mode, false},
    {"cublasSetMathMode", &cublas.set_math_mode, false},
    {"cublasGemmStridedBatchedEx", &cublas.gemm, false},
    {"cublasGetStatusString", &cublas.status_string, true},
    {"cublasGemmStridedBatchedEx_64", &cublas.gemm64, true},
};

static const char *status_text(wk_cublasStatus_t st)
{
    const char *t = cublas.status_string ? cublas.status_string(st) : NULL;
    return t ? t : "cuBLAS error";
}

/* The workspace a handle gets from wick (NVIDIA's advice: 32 MiB on Hopper and later, 4 MiB before): made before
 * any capture, so cuBLAS never allocates inside one; one per handle, so streams never share it. */
static size_t workspace_bytes(const wk_gpu_dev *d)
{
    return wk_gpu_dev_sm(d) >= 90 ? (size_t)32 << 20 : (size_t)4 << 20;
}

/* Configured once and never changed, so threads may share the handle: its stream is fixed (one handle per stream),
 * scalars come from the host, and f32 stays true f32 (TF32 only through the compute type of a call that allows
 * it); f16/bf16 reductions stay in f32 as the accumulation does. */
static bool create(wk_gpu_dev *d, void *stream, void **handle, const char **call, const char **text)
{
    wk_cublasHandle_t h = NULL;
    *call = "cublasCreate_v2";
    wk_cublasStatus_t st = cublas.create(&h);
    if (st == WK_CUBLAS_STATUS_SUCCESS) {
        *call = "cublasSetStream_v2";
        st = cublas.set_stream(h, (wk_cudaStream_t)stream);
    }
    void *ws = NULL;
    if (st == WK_CUBLAS_STATUS_SUCCESS && cublas.set_workspace &&
        wk_gpu_malloc(d, workspace_bytes(d), &ws) == WK_OK) {
        *call = "cublasSetWorkspace_v2";
        st = cublas.set_workspace(h, ws, workspace_bytes(d)); /* kept for the handle's life: the process's */
    }
    if (st == WK_CUBLAS_STATUS_SUCCESS) {
        *call = "cublasSetPointerMode_v2";
        st = cublas.set_pointer_mode(h, WK_CUBLAS_POINTER_MODE_HOST);
    }
    if (st == WK_CUBLAS_STATUS_SUCCESS) {
        *call = "cublasSetMathMode";
        st = cublas.set_math_mode(h, WK_CUBLAS_DEFAULT_MATH | WK_CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    }
    if (st != WK_CUBLAS_STATUS_SUCCESS) {
        if (h)
            cublas.destroy(h);
        wk_gpu_free(d, ws);
        *text = status_text(st);
        return false;
    }
    *handle = h;
    return true;
}

/* One handle per device, never destroyed (devices live as long as the process). */
static wk_gpu_lib lib = {.name = "cuBLAS", .env = "WICK_CUBLAS_LIBRARY", .names = sonames, .syms = syms,
                         .nsyms = sizeof syms / sizeof syms[0], .needs = "cuBLAS 11 or newer", .create = create,
                         WK_GPU_LIB_STATE};

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: a row-major matrix read column-major is
 * its transpose, so B goes first with its own flag, then A, with m and n swapped. */
static wk_status cuda_gemm(wk_gpu_dev *d, const wk_gpu_gemm *g)
{
    if (g->batch == 0 || g->m == 0 || g->n == 0)
        return WK_OK;
    const char *why = NULL;
    wk_cublasHandle_t h = wk_gpu_lib_handle(&lib, d, &why);
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
    return wk_gpu_lib_serves(&lib, d, why) ? &cuda_blas : NULL;
}
