/* cuda_libs_abi.c: compile-time proof that src/gpu/cuda_libs.h matches the real cuBLAS and cuDNN headers:
 * every function-pointer type, integer stand-in for an enum, enum value and record layout. Build only. */
#include <stddef.h>

#include <cublas_v2.h>
#include <cudnn.h>

/* The prototypes taking the perf records are compiled with the real record types (see cuda_libs.h). */
#define WK_CUDNN_FWD_PERF_T cudnnConvolutionFwdAlgoPerf_t
#define WK_CUDNN_BWD_DATA_PERF_T cudnnConvolutionBwdDataAlgoPerf_t
#include "gpu/cuda_libs.h"

#if !defined(__GNUC__)
#error "cuda_libs_abi.c needs __builtin_types_compatible_p (GCC or Clang)"
#endif

#define SAME_TYPE(ours, real) \
    _Static_assert(__builtin_types_compatible_p(ours, real), #ours " is not compatible with " #real)
#define SAME_FN(real) SAME_TYPE(wk_##real##_fn, __typeof__(&real))
#define SAME_VALUE(ours, real) _Static_assert((long long)(ours) == (long long)(real), #ours " != " #real)
#define SAME_FIELD(ours, real, f)                                                                        \
    _Static_assert(offsetof(ours, f) == offsetof(real, f), #ours "." #f ": offset differs");            \
    _Static_assert(sizeof(((ours *)0)->f) == sizeof(((real *)0)->f), #ours "." #f ": size differs");    \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((ours *)0)->f), __typeof__(((real *)0)->f)), \
                   #ours "." #f ": type differs")

_Static_assert(CUDNN_MAJOR >= 9, "the status values in cuda_libs.h are cuDNN 9's");

/* ---- shared */
SAME_TYPE(wk_cudaStream_t, cudaStream_t);
SAME_TYPE(wk_cudaDataType, cudaDataType);
SAME_VALUE(WK_CUDA_R_32F, CUDA_R_32F);
SAME_VALUE(WK_CUDA_R_64F, CUDA_R_64F);
SAME_VALUE(WK_CUDA_R_16F, CUDA_R_16F);
SAME_VALUE(WK_CUDA_R_16BF, CUDA_R_16BF);

/* ---- cuBLAS */
SAME_TYPE(wk_cublasHandle_t, cublasHandle_t);
SAME_TYPE(wk_cublasStatus_t, cublasStatus_t);
SAME_TYPE(wk_cublasOperation_t, cublasOperation_t);
SAME_TYPE(wk_cublasPointerMode_t, cublasPointerMode_t);
SAME_TYPE(wk_cublasMath_t, cublasMath_t);
SAME_TYPE(wk_cublasComputeType_t, cublasComputeType_t);
SAME_TYPE(wk_cublasGemmAlgo_t, cublasGemmAlgo_t);

SAME_VALUE(WK_CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS);
SAME_VALUE(WK_CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_NOT_SUPPORTED);
SAME_VALUE(WK_CUBLAS_OP_N, CUBLAS_OP_N);
SAME_VALUE(WK_CUBLAS_OP_T, CUBLAS_OP_T);
SAME_VALUE(WK_CUBLAS_POINTER_MODE_HOST, CUBLAS_POINTER_MODE_HOST);
SAME_VALUE(WK_CUBLAS_DEFAULT_MATH, CUBLAS_DEFAULT_MATH);
SAME_VALUE(WK_CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
SAME_VALUE(WK_CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F);
SAME_VALUE(WK_CUBLAS_COMPUTE_64F, CUBLAS_COMPUTE_64F);
SAME_VALUE(WK_CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F_FAST_TF32);
SAME_VALUE(WK_CUBLAS_GEMM_DEFAULT, CUBLAS_GEMM_DEFAULT);

SAME_FN(cublasCreate_v2);
SAME_FN(cublasDestroy_v2);
SAME_FN(cublasSetStream_v2);
SAME_FN(cublasSetWorkspace_v2);
SAME_FN(cublasSetPointerMode_v2);
SAME_FN(cublasSetMathMode);
SAME_FN(cublasGetStatusString);
SAME_FN(cublasGemmStridedBatchedEx);
SAME_FN(cublasGemmStridedBatchedEx_64);

/* ---- cuDNN */
SAME_TYPE(wk_cudnnHandle_t, cudnnHandle_t);
SAME_TYPE(wk_cudnnTensorDescriptor_t, cudnnTensorDescriptor_t);
SAME_TYPE(wk_cudnnFilterDescriptor_t, cudnnFilterDescriptor_t);
SAME_TYPE(wk_cudnnConvolutionDescriptor_t, cudnnConvolutionDescriptor_t);
SAME_TYPE(wk_cudnnStatus_t, cudnnStatus_t);
SAME_TYPE(wk_cudnnDataType_t, cudnnDataType_t);
SAME_TYPE(wk_cudnnTensorFormat_t, cudnnTensorFormat_t);
SAME_TYPE(wk_cudnnConvolutionMode_t, cudnnConvolutionMode_t);
SAME_TYPE(wk_cudnnMathType_t, cudnnMathType_t);
SAME_TYPE(wk_cudnnDeterminism_t, cudnnDeterminism_t);
SAME_TYPE(wk_cudnnConvolutionFwdAlgo_t, cudnnConvolutionFwdAlgo_t);
SAME_TYPE(wk_cudnnConvolutionBwdDataAlgo_t, cudnnConvolutionBwdDataAlgo_t);

SAME_VALUE(WK_CUDNN_STATUS_SUCCESS, CUDNN_STATUS_SUCCESS);
SAME_VALUE(WK_CUDNN_STATUS_NOT_INITIALIZED, CUDNN_STATUS_NOT_INITIALIZED);
SAME_VALUE(WK_CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH);
SAME_VALUE(WK_CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED, CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED);
SAME_VALUE(WK_CUDNN_STATUS_NOT_SUPPORTED, CUDNN_STATUS_NOT_SUPPORTED);
SAME_VALUE(WK_CUDNN_STATUS_INTERNAL_ERROR, CUDNN_STATUS_INTERNAL_ERROR);
SAME_VALUE(WK_CUDNN_STATUS_INTERNAL_ERROR, CUDNN_STATUS_CATEGORY(CUDNN_STATUS_ALLOC_FAILED));
SAME_VALUE(WK_CUDNN_STATUS_NOT_SUPPORTED, CUDNN_STATUS_CATEGORY(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT));
SAME_VALUE(WK_CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT);
SAME_VALUE(WK_CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE);
SAME_VALUE(WK_CUDNN_DATA_HALF, CUDNN_DATA_HALF);
SAME_VALUE(WK_CUDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16);
SAME_VALUE(WK_CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW);
SAME_VALUE(WK_CUDNN_TENSOR_NHWC, CUDNN_TENSOR_NHWC);
SAME_VALUE(WK_CUDNN_CROSS_CORRELATION, CUDNN_CROSS_CORRELATION);
SAME_VALUE(WK_CUDNN_DEFAULT_MATH, CUDNN_DEFAULT_MATH);
SAME_VALUE(WK_CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_OP_MATH);
SAME_VALUE(WK_CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
SAME_VALUE(WK_CUDNN_FMA_MATH, CUDNN_FMA_MATH);
SAME_VALUE(WK_CUDNN_NON_DETERMINISTIC, CUDNN_NON_DETERMINISTIC);
SAME_VALUE(WK_CUDNN_DETERMINISTIC, CUDNN_DETERMINISTIC);
SAME_VALUE(WK_CUDNN_CONVOLUTION_FWD_ALGO_COUNT, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
SAME_VALUE(WK_CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);

_Static_assert(sizeof(wk_cudnnConvolutionFwdAlgoPerf_t) == sizeof(cudnnConvolutionFwdAlgoPerf_t), "fwd perf size");
SAME_FIELD(wk_cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgoPerf_t, algo);
SAME_FIELD(wk_cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgoPerf_t, status);
SAME_FIELD(wk_cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgoPerf_t, time);
SAME_FIELD(wk_cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgoPerf_t, memory);
SAME_FIELD(wk_cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgoPerf_t, determinism);
SAME_FIELD(wk_cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgoPerf_t, mathType);
SAME_FIELD(wk_cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgoPerf_t, reserved);
_Static_assert(sizeof(wk_cudnnConvolutionBwdDataAlgoPerf_t) == sizeof(cudnnConvolutionBwdDataAlgoPerf_t),
               "bwd data perf size");
SAME_FIELD(wk_cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgoPerf_t, algo);
SAME_FIELD(wk_cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgoPerf_t, status);
SAME_FIELD(wk_cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgoPerf_t, time);
SAME_FIELD(wk_cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgoPerf_t, memory);
SAME_FIELD(wk_cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgoPerf_t, determinism);
SAME_FIELD(wk_cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgoPerf_t, mathType);
SAME_FIELD(wk_cudnnConvolutionBwdDataAlgoPerf_t, cudnnConvolutionBwdDataAlgoPerf_t, reserved);

SAME_FN(cudnnGetVersion);
SAME_FN(cudnnGetErrorString);
SAME_FN(cudnnCreate);
SAME_FN(cudnnDestroy);
SAME_FN(cudnnSetStream);
SAME_FN(cudnnCreateTensorDescriptor);
SAME_FN(cudnnSetTensorNdDescriptor);
SAME_FN(cudnnDestroyTensorDescriptor);
SAME_FN(cudnnCreateFilterDescriptor);
SAME_FN(cudnnSetFilterNdDescriptor);
SAME_FN(cudnnDestroyFilterDescriptor);
SAME_FN(cudnnCreateConvolutionDescriptor);
SAME_FN(cudnnSetConvolutionNdDescriptor);
SAME_FN(cudnnSetConvolutionGroupCount);
SAME_FN(cudnnSetConvolutionMathType);
SAME_FN(cudnnDestroyConvolutionDescriptor);
SAME_FN(cudnnGetConvolutionForwardAlgorithm_v7);
SAME_FN(cudnnGetConvolutionBackwardDataAlgorithm_v7);
SAME_FN(cudnnFindConvolutionForwardAlgorithmEx);
SAME_FN(cudnnFindConvolutionBackwardDataAlgorithmEx);
SAME_FN(cudnnGetConvolutionForwardWorkspaceSize);
SAME_FN(cudnnGetConvolutionBackwardDataWorkspaceSize);
SAME_FN(cudnnConvolutionForward);
SAME_FN(cudnnConvolutionBackwardData);
SAME_FN(cudnnAddTensor);

/* Compiling is the test (the checks above); ctest runs the program so the check shows in its report. */
int main(void) { return 0; }
