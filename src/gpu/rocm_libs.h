/* rocm_libs.h: wick's own declarations of the rocBLAS and MIOpen types, enum values and function-pointer types
 * that rocblas.c and miopen.c resolve with dlsym. Only what we call; tests/abi/rocm_libs_abi.c checks the rocBLAS
 * part against the real headers (Debian trixie's librocblas-dev); the MIOpen part has no header to check here. */
#ifndef WK_GPU_ROCM_LIBS_H
#define WK_GPU_ROCM_LIBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enum parameters are declared as the integer type GCC and Clang make the enum compatible with: unsigned int,
 * as every value in these enums is non-negative. Handles and descriptors point to the vendors' own struct tags,
 * so the pointer types are the real ones and declaring them next to the vendor headers is harmless. */
struct ihipStream_t;
typedef struct ihipStream_t *wk_hipStream_t;

/* ---------------------------------------------------------------- rocBLAS (LP64: rocblas_int is 32-bit) */
struct _rocblas_handle;
typedef struct _rocblas_handle *wk_rocblas_handle;
typedef int32_t wk_rocblas_int;
typedef int64_t wk_rocblas_stride;
typedef unsigned int wk_rocblas_status;
typedef unsigned int wk_rocblas_operation;
typedef unsigned int wk_rocblas_datatype;
typedef unsigned int wk_rocblas_pointer_mode;
typedef unsigned int wk_rocblas_atomics_mode;
typedef unsigned int wk_rocblas_gemm_algo;

/* rocBLAS numbers its enums apart from cuBLAS's (operations from 111, data types from 150). */
enum {
    WK_ROCBLAS_STATUS_SUCCESS = 0,
    WK_ROCBLAS_STATUS_NOT_IMPLEMENTED = 2,
    WK_ROCBLAS_STATUS_INVALID_SIZE = 4,
    WK_ROCBLAS_STATUS_MEMORY_ERROR = 5,
    WK_ROCBLAS_STATUS_PERF_DEGRADED = 7, /* the call ran, with less workspace than it wanted */
    WK_ROCBLAS_OPERATION_NONE = 111,
    WK_ROCBLAS_OPERATION_TRANSPOSE = 112,
    WK_ROCBLAS_DATATYPE_F16_R = 150,
    WK_ROCBLAS_DATATYPE_F32_R = 151,
    WK_ROCBLAS_DATATYPE_F64_R = 152,
    WK_ROCBLAS_DATATYPE_BF16_R = 168,
    WK_ROCBLAS_POINTER_MODE_HOST = 0,
    WK_ROCBLAS_ATOMICS_NOT_ALLOWED = 0,
    WK_ROCBLAS_GEMM_ALGO_STANDARD = 0,
    WK_ROCBLAS_GEMM_FLAGS_NONE = 0
};

typedef wk_rocblas_status (*wk_rocblas_create_handle_fn)(wk_rocblas_handle *handle);
typedef wk_rocblas_status (*wk_rocblas_destroy_handle_fn)(wk_rocblas_handle handle);
typedef wk_rocblas_status (*wk_rocblas_set_stream_fn)(wk_rocblas_handle handle, wk_hipStream_t stream);
typedef wk_rocblas_status (*wk_rocblas_set_pointer_mode_fn)(wk_rocblas_handle handle,
                                                            wk_rocblas_pointer_mode pointer_mode);
typedef wk_rocblas_status (*wk_rocblas_set_atomics_mode_fn)(wk_rocblas_handle handle,
                                                            wk_rocblas_atomics_mode atomics_mode);
typedef const char *(*wk_rocblas_status_to_string_fn)(wk_rocblas_status status);
/* 29 arguments: C is read (scaled by beta), D is written; D may be C when d_type == c_type, ldd == ldc and
 * stride_d == stride_c (rocblas-functions.h), else the call fails. */
typedef wk_rocblas_status (*wk_rocblas_gemm_strided_batched_ex_fn)(
    wk_rocblas_handle handle, wk_rocblas_operation transA, wk_rocblas_operation transB, wk_rocblas_int m,
    wk_rocblas_int n, wk_rocblas_int k, const void *alpha, const void *a, wk_rocblas_datatype a_type,
    wk_rocblas_int lda, wk_rocblas_stride stride_a, const void *b, wk_rocblas_datatype b_type, wk_rocblas_int ldb,
    wk_rocblas_stride stride_b, const void *beta, const void *c, wk_rocblas_datatype c_type, wk_rocblas_int ldc,
    wk_rocblas_stride stride_c, void *d, wk_rocblas_datatype d_type, wk_rocblas_int ldd, wk_rocblas_stride stride_d,
    wk_rocblas_int batch_count, wk_rocblas_datatype compute_type, wk_rocblas_gemm_algo algo, int32_t solution_index,
    uint32_t flags);

/* ---------------------------------------------------------------- MIOpen (HIP backend)
 * NOT COMPILE-CHECKED: MIOpen has no Debian package, so no test compiles these against miopen/miopen.h. They
 * were compared by reading with MIOpen's include/miopen/miopen.h (github.com/ROCm/MIOpen, ROCm 6 era), where
 * every entry point below has kept its signature since MIOpen 2.0; the enum values are that header's. */
struct miopenHandle;
struct miopenTensorDescriptor;
struct miopenConvolutionDescriptor;
typedef struct miopenHandle *wk_miopenHandle_t;
typedef struct miopenTensorDescriptor *wk_miopenTensorDescriptor_t;
typedef struct miopenConvolutionDescriptor *wk_miopenConvolutionDescriptor_t;
typedef wk_hipStream_t wk_miopenAcceleratorQueue_t; /* hipStream_t in the HIP build */
typedef unsigned int wk_miopenStatus_t;
typedef unsigned int wk_miopenDataType_t;
typedef unsigned int wk_miopenConvolutionMode_t;
typedef unsigned int wk_miopenConvFwdAlgorithm_t;
typedef unsigned int wk_miopenConvBwdDataAlgorithm_t;

enum {
    WK_MIOPEN_STATUS_SUCCESS = 0,
    WK_MIOPEN_STATUS_NOT_INITIALIZED = 1,
    WK_MIOPEN_STATUS_INVALID_VALUE = 2,
    WK_MIOPEN_STATUS_BAD_PARM = 3,
    WK_MIOPEN_STATUS_ALLOC_FAILED = 4,
    WK_MIOPEN_STATUS_INTERNAL_ERROR = 5,
    WK_MIOPEN_STATUS_NOT_IMPLEMENTED = 6,
    WK_MIOPEN_STATUS_UNKNOWN_ERROR = 7,
    WK_MIOPEN_STATUS_UNSUPPORTED_OP = 8,
    WK_MIOPEN_HALF = 0,
    WK_MIOPEN_FLOAT = 1,
    WK_MIOPEN_BFLOAT16 = 5,
    WK_MIOPEN_CONVOLUTION = 0 /* cross-correlation, as PyTorch's conv (1 is miopenTranspose, not used) */
};

/* What the Find calls fill: the chosen algorithm (a union of the three directions' enums, each 4 bytes), its
 * time in ms and the workspace it needs: 16 bytes, memory at offset 8, as miopenConvAlgoPerf_t. */
typedef struct wk_miopenConvAlgoPerf {
    union {
        wk_miopenConvFwdAlgorithm_t fwd_algo;
        unsigned int bwd_weights_algo;
        wk_miopenConvBwdDataAlgorithm_t bwd_data_algo;
    };
    float time;
    size_t memory;
} wk_miopenConvAlgoPerf_t;
/* MIOpen fills an array of these: a size off by a byte would misread every record after the first. */
_Static_assert(sizeof(wk_miopenConvAlgoPerf_t) == 2 * sizeof(size_t) &&
                   offsetof(wk_miopenConvAlgoPerf_t, time) == 4 && offsetof(wk_miopenConvAlgoPerf_t, memory) == 8,
               "miopenConvAlgoPerf_t is {4-byte union, float, size_t} on LP64");

typedef const char *(*wk_miopenGetErrorString_fn)(wk_miopenStatus_t error);
typedef wk_miopenStatus_t (*wk_miopenGetVersion_fn)(size_t *major, size_t *minor, size_t *patch);
typedef wk_miopenStatus_t (*wk_miopenCreate_fn)(wk_miopenHandle_t *handle);
typedef wk_miopenStatus_t (*wk_miopenDestroy_fn)(wk_miopenHandle_t handle);
typedef wk_miopenStatus_t (*wk_miopenSetStream_fn)(wk_miopenHandle_t handle, wk_miopenAcceleratorQueue_t streamID);
typedef wk_miopenStatus_t (*wk_miopenCreateTensorDescriptor_fn)(wk_miopenTensorDescriptor_t *tensorDesc);
typedef wk_miopenStatus_t (*wk_miopenSetTensorDescriptor_fn)(wk_miopenTensorDescriptor_t tensorDesc,
                                                             wk_miopenDataType_t dataType, int nbDims,
                                                             const int *dimsA, const int *stridesA);
typedef wk_miopenStatus_t (*wk_miopenDestroyTensorDescriptor_fn)(wk_miopenTensorDescriptor_t tensorDesc);
typedef wk_miopenStatus_t (*wk_miopenCreateConvolutionDescriptor_fn)(wk_miopenConvolutionDescriptor_t *convDesc);
typedef wk_miopenStatus_t (*wk_miopenInitConvolutionDescriptor_fn)(wk_miopenConvolutionDescriptor_t convDesc,
                                                                   wk_miopenConvolutionMode_t c_mode, int pad_h,
                                                                   int pad_w, int stride_h, int stride_w,
                                                                   int dilation_h, int dilation_w);
typedef wk_miopenStatus_t (*wk_miopenSetConvolutionGroupCount_fn)(wk_miopenConvolutionDescriptor_t convDesc,
                                                                  int groupCount);
typedef wk_miopenStatus_t (*wk_miopenDestroyConvolutionDescriptor_fn)(wk_miopenConvolutionDescriptor_t convDesc);
/* Note the argument orders: the workspace queries take w before x (or dy before w), the runs take the
 * workspace last. */
typedef wk_miopenStatus_t (*wk_miopenConvolutionForwardGetWorkSpaceSize_fn)(
    wk_miopenHandle_t handle, wk_miopenTensorDescriptor_t wDesc, wk_miopenTensorDescriptor_t xDesc,
    wk_miopenConvolutionDescriptor_t convDesc, wk_miopenTensorDescriptor_t yDesc, size_t *workSpaceSize);
typedef wk_miopenStatus_t (*wk_miopenFindConvolutionForwardAlgorithm_fn)(
    wk_miopenHandle_t handle, wk_miopenTensorDescriptor_t xDesc, const void *x, wk_miopenTensorDescriptor_t wDesc,
    const void *w, wk_miopenConvolutionDescriptor_t convDesc, wk_miopenTensorDescriptor_t yDesc, void *y,
    int requestAlgoCount, int *returnedAlgoCount, wk_miopenConvAlgoPerf_t *perfResults, void *workSpace,
    size_t workSpaceSize, bool exhaustiveSearch);
typedef wk_miopenStatus_t (*wk_miopenConvolutionForward_fn)(
    wk_miopenHandle_t handle, const void *alpha, wk_miopenTensorDescriptor_t xDesc, const void *x,
    wk_miopenTensorDescriptor_t wDesc, const void *w, wk_miopenConvolutionDescriptor_t convDesc,
    wk_miopenConvFwdAlgorithm_t algo, const void *beta, wk_miopenTensorDescriptor_t yDesc, void *y,
    void *workSpace, size_t workSpaceSize);
typedef wk_miopenStatus_t (*wk_miopenConvolutionBackwardDataGetWorkSpaceSize_fn)(
    wk_miopenHandle_t handle, wk_miopenTensorDescriptor_t dyDesc, wk_miopenTensorDescriptor_t wDesc,
    wk_miopenConvolutionDescriptor_t convDesc, wk_miopenTensorDescriptor_t dxDesc, size_t *workSpaceSize);
typedef wk_miopenStatus_t (*wk_miopenFindConvolutionBackwardDataAlgorithm_fn)(
    wk_miopenHandle_t handle, wk_miopenTensorDescriptor_t dyDesc, const void *dy, wk_miopenTensorDescriptor_t wDesc,
    const void *w, wk_miopenConvolutionDescriptor_t convDesc, wk_miopenTensorDescriptor_t dxDesc, void *dx,
    int requestAlgoCount, int *returnedAlgoCount, wk_miopenConvAlgoPerf_t *perfResults, void *workSpace,
    size_t workSpaceSize, bool exhaustiveSearch);
typedef wk_miopenStatus_t (*wk_miopenConvolutionBackwardData_fn)(
    wk_miopenHandle_t handle, const void *alpha, wk_miopenTensorDescriptor_t dyDesc, const void *dy,
    wk_miopenTensorDescriptor_t wDesc, const void *w, wk_miopenConvolutionDescriptor_t convDesc,
    wk_miopenConvBwdDataAlgorithm_t algo, const void *beta, wk_miopenTensorDescriptor_t dxDesc, void *dx,
    void *workSpace, size_t workSpaceSize);

#endif
