/* rocm_libs_abi.c: compile-time proof that the rocBLAS part of src/gpu/rocm_libs.h matches the real rocBLAS
 * headers (Debian trixie's librocblas-dev, fetched by cmake/rocblas_headers.cmake): every function-pointer
 * type, integer stand-in for an enum and enum value. Build only.
 * MIOpen is not checked: it has no Debian package, so there is no header here to check its declarations
 * against; rocm_libs.h says they follow MIOpen's documented C API, unverified. */
#include <stddef.h>

/* HIP's own header first where it is installed (Debian's libamdhip64-dev): rocBLAS's forward typedef of
 * hipStream_t must then agree with HIP's, or this does not compile. */
#if defined(__has_include)
#if __has_include(<hip/hip_runtime_api.h>)
#include <hip/hip_runtime_api.h>
#endif
#endif
#include <rocblas/rocblas.h>

#include "gpu/rocm_libs.h"

#if !defined(__GNUC__)
#error "rocm_libs_abi.c needs __builtin_types_compatible_p (GCC or Clang)"
#endif

#define SAME_TYPE(ours, real) \
    _Static_assert(__builtin_types_compatible_p(ours, real), #ours " is not compatible with " #real)
#define SAME_FN(real) SAME_TYPE(wk_##real##_fn, __typeof__(&real))
#define SAME_VALUE(ours, real) _Static_assert((long long)(ours) == (long long)(real), #ours " != " #real)

/* rocm_libs.h assumes the LP64 rocBLAS every ROCm release ships (32-bit rocblas_int). */
#if defined(rocblas_ILP64)
#error "rocm_libs.h declares the LP64 rocBLAS API"
#endif

/* ---- types */
SAME_TYPE(wk_hipStream_t, hipStream_t);
SAME_TYPE(wk_rocblas_handle, rocblas_handle);
SAME_TYPE(wk_rocblas_int, rocblas_int);
SAME_TYPE(wk_rocblas_stride, rocblas_stride);
SAME_TYPE(wk_rocblas_status, rocblas_status);
SAME_TYPE(wk_rocblas_operation, rocblas_operation);
SAME_TYPE(wk_rocblas_datatype, rocblas_datatype);
SAME_TYPE(wk_rocblas_pointer_mode, rocblas_pointer_mode);
SAME_TYPE(wk_rocblas_atomics_mode, rocblas_atomics_mode);
SAME_TYPE(wk_rocblas_gemm_algo, rocblas_gemm_algo);

/* ---- enum values */
SAME_VALUE(WK_ROCBLAS_STATUS_SUCCESS, rocblas_status_success);
SAME_VALUE(WK_ROCBLAS_STATUS_NOT_IMPLEMENTED, rocblas_status_not_implemented);
SAME_VALUE(WK_ROCBLAS_STATUS_INVALID_SIZE, rocblas_status_invalid_size);
SAME_VALUE(WK_ROCBLAS_STATUS_MEMORY_ERROR, rocblas_status_memory_error);
SAME_VALUE(WK_ROCBLAS_STATUS_PERF_DEGRADED, rocblas_status_perf_degraded);
SAME_VALUE(WK_ROCBLAS_OPERATION_NONE, rocblas_operation_none);
SAME_VALUE(WK_ROCBLAS_OPERATION_TRANSPOSE, rocblas_operation_transpose);
SAME_VALUE(WK_ROCBLAS_DATATYPE_F16_R, rocblas_datatype_f16_r);
SAME_VALUE(WK_ROCBLAS_DATATYPE_F32_R, rocblas_datatype_f32_r);
SAME_VALUE(WK_ROCBLAS_DATATYPE_F64_R, rocblas_datatype_f64_r);
SAME_VALUE(WK_ROCBLAS_DATATYPE_BF16_R, rocblas_datatype_bf16_r);
SAME_VALUE(WK_ROCBLAS_POINTER_MODE_HOST, rocblas_pointer_mode_host);
SAME_VALUE(WK_ROCBLAS_ATOMICS_NOT_ALLOWED, rocblas_atomics_not_allowed);
SAME_VALUE(WK_ROCBLAS_GEMM_ALGO_STANDARD, rocblas_gemm_algo_standard);
SAME_VALUE(WK_ROCBLAS_GEMM_FLAGS_NONE, rocblas_gemm_flags_none);

/* ---- functions (rocblas_gemm_strided_batched_ex is also a function-like macro in rocblas-functions.h; the
 * name not followed by "(" is the function itself) */
SAME_FN(rocblas_create_handle);
SAME_FN(rocblas_destroy_handle);
SAME_FN(rocblas_set_stream);
SAME_FN(rocblas_set_pointer_mode);
SAME_FN(rocblas_set_atomics_mode);
SAME_FN(rocblas_status_to_string);
SAME_FN(rocblas_gemm_strided_batched_ex);

/* Compiling is the test (the checks above); ctest runs the program so the check shows in its report. */
int main(void) { return 0; }
