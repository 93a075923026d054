/* cuda_libs.h: wick's own declarations of the cuBLAS and cuDNN types, enum values and function-pointer types
 * that cublas.c and cudnn.c resolve with dlsym. Only what we call; tests/abi/cuda_libs_abi.c checks
 * every item against the real headers. */
#ifndef WK_GPU_CUDA_LIBS_H
#define WK_GPU_CUDA_LIBS_H

#include <stddef.h>
#include <stdint.h>

/* Enum parameters are declared as the integer type GCC and Clang make the enum compatible with: unsigned int
 * when every value is non-negative, int otherwise (cublasGemmAlgo_t holds -1). The ABI test proves each one.
 * Handles and descriptors point to the vendors' own incomplete struct tags, so the pointer types are the real
 * ones and declaring them again next to the vendor headers is harmless. */
struct CUstream_st;
struct cublasContext;
struct cudnnContext;
struct cudnnTensorStruct;
struct cudnnFilterStruct;
struct cudnnConvolutionStruct;

typedef struct CUstream_st *wk_cudaStream_t;
typedef unsigned int wk_cudaDataType;

/* ---------------------------------------------------------------- cuBLAS */
typedef struct cublasContext *wk_cublasHandle_t;
typedef unsigned int wk_cublasStatus_t;
typedef unsigned int wk_cublasOperation_t;
typedef unsigned int wk_cublasPointerMode_t;
typedef unsigned int wk_cublasMath_t;
typedef unsigned int wk_cublasComputeType_t;
typedef int wk_cublasGemmAlgo_t;

enum {
    WK_CUBLAS_STATUS_SUCCESS = 0,
    WK_CUBLAS_STATUS_NOT_SUPPORTED = 15,
    WK_CUBLAS_OP_N = 0,
    WK_CUBLAS_OP_T = 1,
    WK_CUBLAS_POINTER_MODE_HOST = 0,
    WK_CUBLAS_DEFAULT_MATH = 0,
    WK_CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16,
    WK_CUBLAS_COMPUTE_32F = 68,
    WK_CUBLAS_COMPUTE_64F = 70,
    WK_CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    WK_CUBLAS_GEMM_DEFAULT = -1,
    WK_CUDA_R_32F = 0,
    WK_CUDA_R_64F = 1,
    WK_CUDA_R_16F = 2,
    WK_CUDA_R_16BF = 14
};

typedef wk_cublasStatus_t (*wk_cublasCreate_v2_fn)(wk_cublasHandle_t *handle);
typedef wk_cublasStatus_t (*wk_cublasDestroy_v2_fn)(wk_cublasHandle_t handle);
typedef wk_cublasStatus_t (*wk_cublasSetStream_v2_fn)(wk_cublasHandle_t handle, wk_cudaStream_t stream);
typedef wk_cublasStatus_t (*wk_cublasSetWorkspace_v2_fn)(wk_cublasHandle_t handle, void *workspace,
                                                         size_t workspaceSizeInBytes);
typedef wk_cublasStatus_t (*wk_cublasSetPointerMode_v2_fn)(wk_cublasHandle_t handle, wk_cublasPointerMode_t mode);
typedef wk_cublasStatus_t (*wk_cublasSetMathMode_fn)(wk_cublasHandle_t handle, wk_cublasMath_t mode);
typedef const char *(*wk_cublasGetStatusString_fn)(wk_cublasStatus_t status);
typedef wk_cublasStatus_t (*wk_cublasGemmStridedBatchedEx_fn)(
    wk_cublasHandle_t handle, wk_cublasOperation_t transa, wk_cublasOperation_t transb, int m, int n, int k,
    const void *alpha, const void *A, wk_cudaDataType Atype, int lda, long long int strideA, const void *B,
    wk_cudaDataType Btype, int ldb, long long int strideB, const void *beta, void *C, wk_cudaDataType Ctype, int ldc,
    long long int strideC, int batchCount, wk_cublasComputeType_t computeType, wk_cublasGemmAlgo_t algo);
/* cuBLAS 12+: the same with 64-bit sizes. */
typedef wk_cublasStatus_t (*wk_cublasGemmStridedBatchedEx_64_fn)(
    wk_cublasHandle_t handle, wk_cublasOperation_t transa, wk_cublasOperation_t transb, int64_t m, int64_t n,
    int64_t k, const void *alpha, const void *A, wk_cudaDataType Atype, int64_t lda, long long int strideA,
    const void *B, wk_cudaDataType Btype, int64_t ldb, long long int strideB, const void *beta, void *C,
    wk_cudaDataType Ctype, int64_t ldc, long long int strideC, int64_t batchCount,
    wk_cublasComputeType_t computeType, wk_cublasGemmAlgo_t algo);

/* ---------------------------------------------------------------- cuDNN (legacy descriptor API) */
typedef struct cudnnContext *wk_cudnnHandle_t;
typedef struct cudnnTensorStruct *wk_cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *wk_cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *wk_cudnnConvolutionDescriptor_t;
typedef unsigned int wk_cudnnStatus_t;
typedef unsigned int wk_cudnnDataType_t;
typedef unsigned int wk_cudnnTensorFormat_t;
typedef unsigned int wk_cudnnConvolutionMode_t;
typedef unsigned int wk_cudnnMathType_t;
typedef unsigned int wk_cudnnDeterminism_t;
typedef unsigned int wk_cudnnConvolutionFwdAlgo_t;
typedef unsigned int wk_cudnnConvolutionBwdDataAlgo_t;

/* Status values are cuDNN 9's (categories of 1000: NOT_SUPPORTED is 3000..3999). cuDNN 8 numbered them
 * 0..n; its ALLOC_FAILED, INTERNAL_ERROR and NOT_SUPPORTED, not in the headers here, are 2, 4 and 9. */
enum {
    WK_CUDNN_STATUS_SUCCESS = 0,
    WK_CUDNN_STATUS_NOT_INITIALIZED = 1001,
    WK_CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH = 1002,
    WK_CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED = 1008,
    WK_CUDNN_STATUS_NOT_SUPPORTED = 3000,
    WK_CUDNN_STATUS_INTERNAL_ERROR = 4000,
    WK_CUDNN8_STATUS_ALLOC_FAILED = 2,
    WK_CUDNN8_STATUS_INTERNAL_ERROR = 4,
    WK_CUDNN8_STATUS_NOT_SUPPORTED = 9,
    WK_CUDNN_DATA_FLOAT = 0,
    WK_CUDNN_DATA_DOUBLE = 1,
    WK_CUDNN_DATA_HALF = 2,
    WK_CUDNN_DATA_BFLOAT16 = 9,
    WK_CUDNN_TENSOR_NCHW = 0,
    WK_CUDNN_TENSOR_NHWC = 1,
    WK_CUDNN_CROSS_CORRELATION = 1,
    WK_CUDNN_DEFAULT_MATH = 0,
    WK_CUDNN_TENSOR_OP_MATH = 1,
    WK_CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
    WK_CUDNN_FMA_MATH = 3,
    WK_CUDNN_NON_DETERMINISTIC = 0,
    WK_CUDNN_DETERMINISTIC = 1,
    WK_CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8,
    WK_CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6
};

/* The records the _v7 algorithm queries fill (identical in cuDNN 8 and 9). */
typedef struct wk_cudnnConvolutionFwdAlgoPerf {
    wk_cudnnConvolutionFwdAlgo_t algo;
    wk_cudnnStatus_t status;
    float time;
    size_t memory;
    wk_cudnnDeterminism_t determinism;
    wk_cudnnMathType_t mathType;
    int reserved[3];
} wk_cudnnConvolutionFwdAlgoPerf_t;

typedef struct wk_cudnnConvolutionBwdDataAlgoPerf {
    wk_cudnnConvolutionBwdDataAlgo_t algo;
    wk_cudnnStatus_t status;
    float time;
    size_t memory;
    wk_cudnnDeterminism_t determinism;
    wk_cudnnMathType_t mathType;
    int reserved[3];
} wk_cudnnConvolutionBwdDataAlgoPerf_t;

/* The ABI test defines these as the real record types, so that the two prototypes taking them are checked
 * whole against the real ones; the records themselves are checked field by field. */
#ifndef WK_CUDNN_FWD_PERF_T
#define WK_CUDNN_FWD_PERF_T wk_cudnnConvolutionFwdAlgoPerf_t
#endif
#ifndef WK_CUDNN_BWD_DATA_PERF_T
#define WK_CUDNN_BWD_DATA_PERF_T wk_cudnnConvolutionBwdDataAlgoPerf_t
#endif

typedef size_t (*wk_cudnnGetVersion_fn)(void);
typedef const char *(*wk_cudnnGetErrorString_fn)(wk_cudnnStatus_t status);
typedef wk_cudnnStatus_t (*wk_cudnnCreate_fn)(wk_cudnnHandle_t *handle);
typedef wk_cudnnStatus_t (*wk_cudnnDestroy_fn)(wk_cudnnHandle_t handle);
typedef wk_cudnnStatus_t (*wk_cudnnSetStream_fn)(wk_cudnnHandle_t handle, wk_cudaStream_t stream);
typedef wk_cudnnStatus_t (*wk_cudnnCreateTensorDescriptor_fn)(wk_cudnnTensorDescriptor_t *desc);
typedef wk_cudnnStatus_t (*wk_cudnnSetTensorNdDescriptor_fn)(wk_cudnnTensorDescriptor_t desc,
                                                             wk_cudnnDataType_t dataType, int nbDims,
                                                             const int dimA[], const int strideA[]);
typedef wk_cudnnStatus_t (*wk_cudnnDestroyTensorDescriptor_fn)(wk_cudnnTensorDescriptor_t desc);
typedef wk_cudnnStatus_t (*wk_cudnnCreateFilterDescriptor_fn)(wk_cudnnFilterDescriptor_t *desc);
typedef wk_cudnnStatus_t (*wk_cudnnSetFilterNdDescriptor_fn)(wk_cudnnFilterDescriptor_t desc,
                                                             wk_cudnnDataType_t dataType,
                                                             wk_cudnnTensorFormat_t format, int nbDims,
                                                             const int filterDimA[]);
typedef wk_cudnnStatus_t (*wk_cudnnDestroyFilterDescriptor_fn)(wk_cudnnFilterDescriptor_t desc);
typedef wk_cudnnStatus_t (*wk_cudnnCreateConvolutionDescriptor_fn)(wk_cudnnConvolutionDescriptor_t *desc);
typedef wk_cudnnStatus_t (*wk_cudnnSetConvolutionNdDescriptor_fn)(wk_cudnnConvolutionDescriptor_t desc,
                                                                  int arrayLength, const int padA[],
                                                                  const int filterStrideA[], const int dilationA[],
                                                                  wk_cudnnConvolutionMode_t mode,
                                                                  wk_cudnnDataType_t computeType);
typedef wk_cudnnStatus_t (*wk_cudnnSetConvolutionGroupCount_fn)(wk_cudnnConvolutionDescriptor_t desc,
                                                                int groupCount);
typedef wk_cudnnStatus_t (*wk_cudnnSetConvolutionMathType_fn)(wk_cudnnConvolutionDescriptor_t desc,
                                                              wk_cudnnMathType_t mathType);
typedef wk_cudnnStatus_t (*wk_cudnnDestroyConvolutionDescriptor_fn)(wk_cudnnConvolutionDescriptor_t desc);
typedef wk_cudnnStatus_t (*wk_cudnnGetConvolutionForwardAlgorithm_v7_fn)(
    wk_cudnnHandle_t handle, wk_cudnnTensorDescriptor_t srcDesc, wk_cudnnFilterDescriptor_t filterDesc,
    wk_cudnnConvolutionDescriptor_t convDesc, wk_cudnnTensorDescriptor_t destDesc, int requestedAlgoCount,
    int *returnedAlgoCount, WK_CUDNN_FWD_PERF_T *perfResults);
typedef wk_cudnnStatus_t (*wk_cudnnGetConvolutionBackwardDataAlgorithm_v7_fn)(
    wk_cudnnHandle_t handle, wk_cudnnFilterDescriptor_t filterDesc, wk_cudnnTensorDescriptor_t diffDesc,
    wk_cudnnConvolutionDescriptor_t convDesc, wk_cudnnTensorDescriptor_t gradDesc, int requestedAlgoCount,
    int *returnedAlgoCount, WK_CUDNN_BWD_DATA_PERF_T *perfResults);
/* Trial runs of every algorithm on the real buffers (y / dx overwritten), fastest first. */
typedef wk_cudnnStatus_t (*wk_cudnnFindConvolutionForwardAlgorithmEx_fn)(
    wk_cudnnHandle_t handle, wk_cudnnTensorDescriptor_t xDesc, const void *x, wk_cudnnFilterDescriptor_t wDesc,
    const void *w, wk_cudnnConvolutionDescriptor_t convDesc, wk_cudnnTensorDescriptor_t yDesc, void *y,
    int requestedAlgoCount, int *returnedAlgoCount, WK_CUDNN_FWD_PERF_T *perfResults, void *workSpace,
    size_t workSpaceSizeInBytes);
typedef wk_cudnnStatus_t (*wk_cudnnFindConvolutionBackwardDataAlgorithmEx_fn)(
    wk_cudnnHandle_t handle, wk_cudnnFilterDescriptor_t wDesc, const void *w, wk_cudnnTensorDescriptor_t dyDesc,
    const void *dy, wk_cudnnConvolutionDescriptor_t convDesc, wk_cudnnTensorDescriptor_t dxDesc, void *dx,
    int requestedAlgoCount, int *returnedAlgoCount, WK_CUDNN_BWD_DATA_PERF_T *perfResults, void *workSpace,
    size_t workSpaceSizeInBytes);
typedef wk_cudnnStatus_t (*wk_cudnnGetConvolutionForwardWorkspaceSize_fn)(
    wk_cudnnHandle_t handle, wk_cudnnTensorDescriptor_t xDesc, wk_cudnnFilterDescriptor_t wDesc,
    wk_cudnnConvolutionDescriptor_t convDesc, wk_cudnnTensorDescriptor_t yDesc, wk_cudnnConvolutionFwdAlgo_t algo,
    size_t *sizeInBytes);
typedef wk_cudnnStatus_t (*wk_cudnnGetConvolutionBackwardDataWorkspaceSize_fn)(
    wk_cudnnHandle_t handle, wk_cudnnFilterDescriptor_t wDesc, wk_cudnnTensorDescriptor_t dyDesc,
    wk_cudnnConvolutionDescriptor_t convDesc, wk_cudnnTensorDescriptor_t dxDesc,
    wk_cudnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes);
typedef wk_cudnnStatus_t (*wk_cudnnConvolutionForward_fn)(
    wk_cudnnHandle_t handle, const void *alpha, wk_cudnnTensorDescriptor_t xDesc, const void *x,
    wk_cudnnFilterDescriptor_t wDesc, const void *w, wk_cudnnConvolutionDescriptor_t convDesc,
    wk_cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
    wk_cudnnTensorDescriptor_t yDesc, void *y);
typedef wk_cudnnStatus_t (*wk_cudnnConvolutionBackwardData_fn)(
    wk_cudnnHandle_t handle, const void *alpha, wk_cudnnFilterDescriptor_t wDesc, const void *w,
    wk_cudnnTensorDescriptor_t dyDesc, const void *dy, wk_cudnnConvolutionDescriptor_t convDesc,
    wk_cudnnConvolutionBwdDataAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
    wk_cudnnTensorDescriptor_t dxDesc, void *dx);
typedef wk_cudnnStatus_t (*wk_cudnnAddTensor_fn)(wk_cudnnHandle_t handle, const void *alpha,
                                                 wk_cudnnTensorDescriptor_t aDesc, const void *A, const void *beta,
                                                 wk_cudnnTensorDescriptor_t cDesc, void *C);


/* ---------------------------------------------------------------- cuDNN (graph API: backend descriptors) */
/* Descriptors are opaque pointers; every enum these functions take is non-negative (unsigned int). */
typedef void *wk_cudnnBackendDescriptor_t;
typedef unsigned int wk_cudnnBackendDescriptorType_t;
typedef unsigned int wk_cudnnBackendAttributeName_t;
typedef unsigned int wk_cudnnBackendAttributeType_t;
typedef unsigned int wk_cudnnPointwiseMode_t;
typedef unsigned int wk_cudnnReduceTensorOp_t;
typedef unsigned int wk_cudnnBackendHeurMode_t;

enum {
    WK_CUDNN_BACKEND_POINTWISE_DESCRIPTOR = 0,
    WK_CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR = 1,
    WK_CUDNN_BACKEND_ENGINECFG_DESCRIPTOR = 3,
    WK_CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR = 4,
    WK_CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR = 5,
    WK_CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR = 10,
    WK_CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR = 13,
    WK_CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR = 15,
    WK_CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR = 16,
    WK_CUDNN_BACKEND_TENSOR_DESCRIPTOR = 17,
    WK_CUDNN_BACKEND_MATMUL_DESCRIPTOR = 18,
    WK_CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR = 19,
    WK_CUDNN_BACKEND_REDUCTION_DESCRIPTOR = 21,
    WK_CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR = 22,
    WK_CUDNN_ATTR_POINTWISE_MODE = 0,
    WK_CUDNN_ATTR_POINTWISE_MATH_PREC = 1,
    WK_CUDNN_ATTR_POINTWISE_AXIS = 9,
    WK_CUDNN_ATTR_CONVOLUTION_COMP_TYPE = 100,
    WK_CUDNN_ATTR_CONVOLUTION_CONV_MODE = 101,
    WK_CUDNN_ATTR_CONVOLUTION_DILATIONS = 102,
    WK_CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES = 103,
    WK_CUDNN_ATTR_CONVOLUTION_POST_PADDINGS = 104,
    WK_CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS = 105,
    WK_CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS = 106,
    WK_CUDNN_ATTR_ENGINEHEUR_MODE = 200,
    WK_CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH = 201,
    WK_CUDNN_ATTR_ENGINEHEUR_RESULTS = 202,
    WK_CUDNN_ATTR_EXECUTION_PLAN_HANDLE = 400,
    WK_CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401,
    WK_CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402,
    WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA = 700,
    WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA = 701,
    WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC = 702,
    WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W = 703,
    WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X = 704,
    WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y = 705,
    WK_CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR = 750,
    WK_CUDNN_ATTR_OPERATION_POINTWISE_XDESC = 751,
    WK_CUDNN_ATTR_OPERATION_POINTWISE_BDESC = 752,
    WK_CUDNN_ATTR_OPERATION_POINTWISE_YDESC = 753,
    WK_CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1 = 754,
    WK_CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2 = 755,
    WK_CUDNN_ATTR_OPERATION_POINTWISE_TDESC = 758,
    WK_CUDNN_ATTR_OPERATIONGRAPH_HANDLE = 800,
    WK_CUDNN_ATTR_OPERATIONGRAPH_OPS = 801,
    WK_CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT = 900,
    WK_CUDNN_ATTR_TENSOR_DATA_TYPE = 901,
    WK_CUDNN_ATTR_TENSOR_DIMENSIONS = 902,
    WK_CUDNN_ATTR_TENSOR_STRIDES = 903,
    WK_CUDNN_ATTR_TENSOR_UNIQUE_ID = 906,
    WK_CUDNN_ATTR_TENSOR_IS_VIRTUAL = 907,
    WK_CUDNN_ATTR_TENSOR_IS_BY_VALUE = 908,
    WK_CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000,
    WK_CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001,
    WK_CUDNN_ATTR_VARIANT_PACK_WORKSPACE = 1003,
    WK_CUDNN_ATTR_MATMUL_COMP_TYPE = 1500,
    WK_CUDNN_ATTR_OPERATION_MATMUL_ADESC = 1520,
    WK_CUDNN_ATTR_OPERATION_MATMUL_BDESC = 1521,
    WK_CUDNN_ATTR_OPERATION_MATMUL_CDESC = 1522,
    WK_CUDNN_ATTR_OPERATION_MATMUL_DESC = 1523,
    WK_CUDNN_ATTR_REDUCTION_OPERATOR = 1600,
    WK_CUDNN_ATTR_REDUCTION_COMP_TYPE = 1601,
    WK_CUDNN_ATTR_OPERATION_REDUCTION_XDESC = 1610,
    WK_CUDNN_ATTR_OPERATION_REDUCTION_YDESC = 1611,
    WK_CUDNN_ATTR_OPERATION_REDUCTION_DESC = 1612,
    WK_CUDNN_TYPE_HANDLE = 0,
    WK_CUDNN_TYPE_DATA_TYPE = 1,
    WK_CUDNN_TYPE_BOOLEAN = 2, /* C's bool */
    WK_CUDNN_TYPE_INT64 = 3,
    WK_CUDNN_TYPE_FLOAT = 4,
    WK_CUDNN_TYPE_DOUBLE = 5,
    WK_CUDNN_TYPE_VOID_PTR = 6,
    WK_CUDNN_TYPE_CONVOLUTION_MODE = 7,
    WK_CUDNN_TYPE_HEUR_MODE = 8,
    WK_CUDNN_TYPE_POINTWISE_MODE = 14,
    WK_CUDNN_TYPE_BACKEND_DESCRIPTOR = 15,
    WK_CUDNN_TYPE_REDUCTION_OPERATOR_TYPE = 18,
    WK_CUDNN_DATA_INT32 = 4,
    WK_CUDNN_DATA_BOOLEAN = 11,
    WK_CUDNN_POINTWISE_ADD = 0,
    WK_CUDNN_POINTWISE_MUL = 1,
    WK_CUDNN_POINTWISE_DIV = 6,
    WK_CUDNN_POINTWISE_SUB = 9,
    WK_CUDNN_POINTWISE_EXP = 13,
    WK_CUDNN_POINTWISE_LOG = 15,
    WK_CUDNN_POINTWISE_CMP_GE = 303,
    WK_CUDNN_POINTWISE_GEN_INDEX = 501,
    WK_CUDNN_POINTWISE_BINARY_SELECT = 601,
    WK_CUDNN_REDUCE_TENSOR_ADD = 0,
    WK_CUDNN_REDUCE_TENSOR_MAX = 3,
    WK_CUDNN_HEUR_MODE_INSTANT = 0,
    WK_CUDNN_HEUR_MODE_A = 3
};

typedef wk_cudnnStatus_t (*wk_cudnnBackendCreateDescriptor_fn)(wk_cudnnBackendDescriptorType_t descriptorType,
                                                               wk_cudnnBackendDescriptor_t *descriptor);
typedef wk_cudnnStatus_t (*wk_cudnnBackendDestroyDescriptor_fn)(wk_cudnnBackendDescriptor_t descriptor);
typedef wk_cudnnStatus_t (*wk_cudnnBackendFinalize_fn)(wk_cudnnBackendDescriptor_t descriptor);
typedef wk_cudnnStatus_t (*wk_cudnnBackendSetAttribute_fn)(wk_cudnnBackendDescriptor_t descriptor,
                                                           wk_cudnnBackendAttributeName_t attributeName,
                                                           wk_cudnnBackendAttributeType_t attributeType,
                                                           int64_t elementCount, const void *arrayOfElements);
typedef wk_cudnnStatus_t (*wk_cudnnBackendGetAttribute_fn)(wk_cudnnBackendDescriptor_t const descriptor,
                                                           wk_cudnnBackendAttributeName_t attributeName,
                                                           wk_cudnnBackendAttributeType_t attributeType,
                                                           int64_t requestedElementCount, int64_t *elementCount,
                                                           void *arrayOfElements);
typedef wk_cudnnStatus_t (*wk_cudnnBackendExecute_fn)(wk_cudnnHandle_t handle,
                                                      wk_cudnnBackendDescriptor_t executionPlan,
                                                      wk_cudnnBackendDescriptor_t variantPack);

#endif
