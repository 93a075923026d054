/* rocblas.c: gpu.h's BLAS table on AMD through rocBLAS, loaded with dlopen on first use (never linked): one
 * handle per device bound to the device's stream, and the row-major GEMM mapped onto column-major rocBLAS. */
#include "gpu/rocm_libs.h"
#include "gpu/runtime.h"
#include "gpu/vendor_lib.h"

static struct {
    wk_rocblas_create_handle_fn create;
    wk_rocblas_destroy_handle_fn destroy;
    wk_rocblas_set_stream_fn set_stream;
    wk_rocblas_set_pointer_mode_fn set_pointer_mode;
    wk_rocblas_set_atomics_mode_fn set_atomics_mode;
    wk_rocblas_status_to_string_fn status_string; /* optional: the text of a status */
    wk_rocblas_gemm_strided_batched_ex_fn gemm;
} rocblas;

/* .so.5 (ROCm 7), .so.4 (ROCm 6), .so.3 (ROCm 5.x), .so.0 (Debian's and older ROCm): the entry points used here
 * have the same signatures in all of them. */
static const char *const sonames[] = {"librocblas.so.5", "librocblas.so.4", "librocblas.so.3", "librocblas.so.0",
                                      "librocblas.so", NULL};
static const wk_gpu_sym syms[] = {
    {"rocblas_create_handle", &rocblas.create, false},
    {"rocblas_destroy_handle", &rocblas.destroy, false},
    {"rocblas_set_stream", &rocblas.set_stream, false},
    {"rocblas_set_pointer_mode", &rocblas.set_pointer_mode, false},
    {"rocblas_set_atomics_mode", &rocblas.set_atomics_mode, false},
    {"rocblas_gemm_strided_batched_ex", &rocblas.gemm, false},
    {"rocblas_status_to_string", &rocblas.status_string, true},
};

static const char *status_text(wk_rocblas_status st)
{
    const char *t = rocblas.status_string ? rocblas.status_string(st) : NULL;
    return t ? t : "rocBLAS error";
}

/* Configured once and never changed: the stream is the device's, scalars come from the host, and atomics are
 * off so that results do not vary between runs (rocBLAS's split-K kernels otherwise sum partial products in
 * whatever order their atomics land). */
static bool create(wk_gpu_dev *d, void *stream, void **handle, const char **call, const char **text)
{
    (void)d;
    wk_rocblas_handle h = NULL;
    *call = "rocblas_create_handle";
    wk_rocblas_status st = rocblas.create(&h);
    if (st == WK_ROCBLAS_STATUS_SUCCESS) {
        *call = "rocblas_set_stream";
        st = rocblas.set_stream(h, (wk_hipStream_t)stream);
    }
    if (st == WK_ROCBLAS_STATUS_SUCCESS) {
        *call = "rocblas_set_pointer_mode";
        st = rocblas.set_pointer_mode(h, WK_ROCBLAS_POINTER_MODE_HOST);
    }
    if (st == WK_ROCBLAS_STATUS_SUCCESS) {
        *call = "rocblas_set_atomics_mode";
        st = rocblas.set_atomics_mode(h, WK_ROCBLAS_ATOMICS_NOT_ALLOWED);
    }
    if (st != WK_ROCBLAS_STATUS_SUCCESS) {
        if (h)
            rocblas.destroy(h);
        *text = status_text(st);
        return false;
    }
    *handle = h;
    return true;
}

/* One handle per device, never destroyed (devices live as long as the process). A rocBLAS handle owns the device
 * workspace its calls borrow, and rocBLAS fails a call that finds that workspace in use: unlike cuBLAS's, a
 * handle must not serve two threads at once, so calls on one device's handle are serialised under the
 * library's per-device lock (they only enqueue work). */
static wk_gpu_lib lib = {.name = "rocBLAS", .env = "WICK_ROCBLAS_LIBRARY", .names = sonames, .syms = syms,
                         .nsyms = sizeof syms / sizeof syms[0], .needs = "ROCm 5 or newer", .create = create,
                         WK_GPU_LIB_STATE};

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: a row-major matrix read column-major is
 * its transpose, so B goes first with its own flag, then A, with m and n swapped. rocBLAS reads C and writes
 * D; both are g->c, allowed as type, leading dimension and stride agree, and beta = 0 leaves C unread. */
static wk_status rocm_gemm(wk_gpu_dev *d, const wk_gpu_gemm *g)
{
    if (g->batch == 0 || g->m == 0 || g->n == 0)
        return WK_OK;
    const char *why = NULL;
    wk_rocblas_handle h = wk_gpu_lib_handle(&lib, d, &why);
    if (!h)
        return wk_error(WK_ERR_UNSUPPORTED, "gemm: %s", why);
    /* f16/bf16 multiply in f32 (the compute type), as gpu.h asks. f32 is true f32: rocBLAS has no TF32
     * compute type for gemm_ex, so allow_tf32 has no effect here. */
    wk_rocblas_datatype type, compute;
    switch (g->dtype) {
    case WK_F16: type = WK_ROCBLAS_DATATYPE_F16_R, compute = WK_ROCBLAS_DATATYPE_F32_R; break;
    case WK_BF16: type = WK_ROCBLAS_DATATYPE_BF16_R, compute = WK_ROCBLAS_DATATYPE_F32_R; break;
    case WK_F32: type = compute = WK_ROCBLAS_DATATYPE_F32_R; break;
    case WK_F64: type = compute = WK_ROCBLAS_DATATYPE_F64_R; break;
    default: return wk_error(WK_ERR_UNSUPPORTED, "gemm: rocBLAS has no %s product", wk_dtype_name(g->dtype));
    }
    /* rocblas_int is 32-bit (the LP64 build every ROCm release ships); strides are 64-bit. */
    if (!(wk_gpu_fits_int(g->m) && wk_gpu_fits_int(g->n) && wk_gpu_fits_int(g->k) && wk_gpu_fits_int(g->lda) &&
          wk_gpu_fits_int(g->ldb) && wk_gpu_fits_int(g->ldc) && wk_gpu_fits_int(g->batch)))
        return wk_error(WK_ERR_UNSUPPORTED,
                        "gemm: %lld x %lld x %lld (batch %lld, ld %lld/%lld/%lld) exceeds rocBLAS's 32-bit sizes",
                        (long long)g->m, (long long)g->k, (long long)g->n, (long long)g->batch, (long long)g->lda,
                        (long long)g->ldb, (long long)g->ldc);
    /* Host scalars of the compute type. */
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void *alpha = g->dtype == WK_F64 ? (const void *)&one_d : (const void *)&one_f;
    const void *beta = g->dtype == WK_F64 ? (const void *)&zero_d : (const void *)&zero_f;
    wk_rocblas_operation op_a = g->trans_b ? WK_ROCBLAS_OPERATION_TRANSPOSE : WK_ROCBLAS_OPERATION_NONE;
    wk_rocblas_operation op_b = g->trans_a ? WK_ROCBLAS_OPERATION_TRANSPOSE : WK_ROCBLAS_OPERATION_NONE;

    pthread_mutex_lock(wk_gpu_lib_lock(&lib, d));
    wk_rocblas_status st = rocblas.gemm(
        h, op_a, op_b, (wk_rocblas_int)g->n, (wk_rocblas_int)g->m, (wk_rocblas_int)g->k, alpha, g->b, type,
        (wk_rocblas_int)g->ldb, (wk_rocblas_stride)g->stride_b, g->a, type, (wk_rocblas_int)g->lda,
        (wk_rocblas_stride)g->stride_a, beta, g->c, type, (wk_rocblas_int)g->ldc, (wk_rocblas_stride)g->stride_c, g->c,
        type, (wk_rocblas_int)g->ldc, (wk_rocblas_stride)g->stride_c, (wk_rocblas_int)g->batch, compute,
        WK_ROCBLAS_GEMM_ALGO_STANDARD, 0, WK_ROCBLAS_GEMM_FLAGS_NONE);
    pthread_mutex_unlock(wk_gpu_lib_lock(&lib, d));
    /* perf_degraded: the product was computed, only with less workspace than rocBLAS wanted. */
    if (st == WK_ROCBLAS_STATUS_SUCCESS || st == WK_ROCBLAS_STATUS_PERF_DEGRADED)
        return WK_OK;
    wk_status code = st == WK_ROCBLAS_STATUS_NOT_IMPLEMENTED ? WK_ERR_UNSUPPORTED
                     : st == WK_ROCBLAS_STATUS_MEMORY_ERROR  ? WK_ERR_OUT_OF_MEMORY
                                                             : WK_ERR_BACKEND;
    return wk_error(code, "gemm: rocblas_gemm_strided_batched_ex failed on %s: %s (%s, %lld x %lld x %lld, batch %lld)",
                    wk_gpu_dev_name(d), status_text(st), wk_dtype_name(g->dtype), (long long)g->m, (long long)g->k,
                    (long long)g->n, (long long)g->batch);
}

static const wk_gpu_blas rocm_blas = {.name = "rocBLAS", .gemm = rocm_gemm};

const wk_gpu_blas *wk_rocm_blas_get(wk_gpu_dev *d, const char **why)
{
    return wk_gpu_lib_serves(&lib, d, why) ? &rocm_blas : NULL;
}
