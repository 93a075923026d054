/* hip_api.h: our declarations of the HIP runtime API functions, types and constants wick calls, under
 * wk_ names so they coexist with the real hip_runtime_api.h. tests/abi/hip_abi.c checks each one against
 * that header (Debian's libamdhip64-dev, HIP 5.2) at build time whenever it is present. */
#ifndef WK_GPU_HIP_API_H
#define WK_GPU_HIP_API_H

#include <stddef.h>

/* Opaque handle types: same struct tags as hip_runtime_api.h, so the pointer types are identical. */
struct ihipStream_t;
struct ihipModule_t;
struct ihipModuleSymbol_t;
struct ihipMemPoolHandle_t;
struct ihipEvent_t;
struct ihipGraph;
struct hipGraphExec;

/* enum hipError_t: all its values are non-negative (0 .. hipErrorTbd, 1054 in HIP 5.2), so gcc gives the
 * enum the type unsigned int; the same holds for the two attribute enums. */
typedef unsigned int wk_hipError_t;
typedef int wk_hipDevice_t;
typedef void *wk_hipDeviceptr_t;                        /* driver_types.h: typedef void *hipDeviceptr_t */
typedef struct ihipStream_t *wk_hipStream_t;
typedef struct ihipModule_t *wk_hipModule_t;
typedef struct ihipModuleSymbol_t *wk_hipFunction_t;
typedef struct ihipMemPoolHandle_t *wk_hipMemPool_t;
typedef struct ihipEvent_t *wk_hipEvent_t;
typedef struct ihipGraph *wk_hipGraph_t;
typedef struct hipGraphExec *wk_hipGraphExec_t;
typedef unsigned int wk_hipDeviceAttribute_t;           /* enum hipDeviceAttribute_t */
typedef unsigned int wk_hipMemPoolAttr;                 /* enum hipMemPoolAttr */
typedef unsigned int wk_hipStreamCaptureMode;           /* enum hipStreamCaptureMode */

/* Values from HIP 5.2's hip_runtime_api.h. The device attribute numbers are NOT CUDA's: HIP numbers its
 * CUDA-compatible attributes alphabetically from 0. 0..88 are the same from ROCm 5.0 to 7.x (compared entry by
 * entry with ROCm 7's header): ROCm 6 did not renumber them, the attributes it removed (hipDeviceAttributeName,
 * ...Uuid) left hipDeviceAttributeUnused1/2 in their places, and new ones are appended after
 * hipDeviceAttributeMemoryPoolsSupported. (Only the AMD-specific range from 10000 lost entries to UnusedN.)
 * The error codes and hipMemPoolAttrReleaseThreshold are CUDA's numbers, unchanged across these releases. */
enum {
    WK_HIP_SUCCESS = 0,
    WK_HIP_ERROR_NOT_READY = 600,
    WK_HIP_ERROR_OUT_OF_MEMORY = 2,      /* hipErrorOutOfMemory (hipErrorMemoryAllocation is the same) */
    WK_HIP_ERROR_NO_DEVICE = 100,        /* hipErrorNoDevice: hipGetDeviceCount without a GPU */
    WK_HIP_ERROR_INVALID_DEVICE = 101,   /* hipErrorInvalidDevice: HIP 5.2's hipInit without a GPU (/dev/kfd) */
    WK_HIP_ERROR_NOT_FOUND = 500,        /* hipErrorNotFound: hipModuleGetFunction of a missing kernel */
    WK_HIP_STREAM_NON_BLOCKING = 1,      /* #define hipStreamNonBlocking 0x01 */
    WK_HIP_EVENT_DEFAULT = 0,            /* #define hipEventDefault 0x0 */
    WK_HIP_EVENT_DISABLE_TIMING = 2,     /* #define hipEventDisableTiming 0x2 */
    WK_HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 63,
    WK_HIP_DEVICE_ATTRIBUTE_WARP_SIZE = 87,
    WK_HIP_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 88,
    WK_HIP_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
    WK_HIP_HOST_REGISTER_PORTABLE = 1,             /* #define hipHostRegisterPortable 0x1 */
    WK_HIP_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,   /* hipStreamCaptureModeThreadLocal */
    WK_HIP_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH = 1 /* hipGraphInstantiateFlagAutoFreeOnLaunch */
};

/* X(name, parameters): every HIP function wick calls that returns hipError_t, named by the exact exported
 * symbol (HIP exports the plain names, versioned hip_4.2 in libamdhip64.so.5; never the per-thread-stream
 * _spt variants, nor the R0600-suffixed ones ROCm 6 added for the versioned hipDeviceProp_t, which wick does
 * not use). Parameter types follow HIP 5.2's header. */
#define WK_HIP_FUNCTIONS(X)                                                                               \
    X(hipInit, (unsigned int flags))                                                                      \
    X(hipDriverGetVersion, (int *driverVersion))                                                          \
    X(hipRuntimeGetVersion, (int *runtimeVersion))                                                        \
    X(hipGetDeviceCount, (int *count))                                                                    \
    X(hipDeviceGet, (wk_hipDevice_t * device, int ordinal))                                               \
    X(hipDeviceGetName, (char *name, int len, wk_hipDevice_t device))                                     \
    X(hipDeviceGetAttribute, (int *pi, wk_hipDeviceAttribute_t attr, int deviceId))                       \
    X(hipDeviceTotalMem, (size_t * bytes, wk_hipDevice_t device))                                         \
    X(hipSetDevice, (int deviceId))                                                                       \
    X(hipGetDevice, (int *deviceId))                                                                      \
    X(hipStreamCreateWithFlags, (wk_hipStream_t * stream, unsigned int flags))                            \
    X(hipStreamSynchronize, (wk_hipStream_t stream))                                                      \
    X(hipStreamDestroy, (wk_hipStream_t stream))                                                          \
    X(hipStreamQuery, (wk_hipStream_t stream))                                                            \
    X(hipStreamCreateWithPriority, (wk_hipStream_t * stream, unsigned int flags, int priority))          \
    X(hipDeviceGetStreamPriorityRange, (int *leastPriority, int *greatestPriority))                       \
    X(hipEventCreateWithFlags, (wk_hipEvent_t * event, unsigned flags))                                   \
    X(hipEventRecord, (wk_hipEvent_t event, wk_hipStream_t stream))                                       \
    X(hipEventDestroy, (wk_hipEvent_t event))                                                             \
    X(hipStreamWaitEvent, (wk_hipStream_t stream, wk_hipEvent_t event, unsigned int flags))               \
    X(hipEventSynchronize, (wk_hipEvent_t event))                                                         \
    X(hipEventQuery, (wk_hipEvent_t event))                                                               \
    X(hipEventElapsedTime, (float *ms, wk_hipEvent_t start, wk_hipEvent_t stop))                          \
    X(hipHostRegister, (void *hostPtr, size_t sizeBytes, unsigned int flags))                             \
    X(hipHostUnregister, (void *hostPtr))                                                                 \
    X(hipHostMalloc, (void **ptr, size_t size, unsigned int flags))                                       \
    X(hipHostFree, (void *ptr))                                                                           \
    X(hipMalloc, (void **ptr, size_t size))                                                               \
    X(hipFree, (void *ptr))                                                                               \
    X(hipMemcpyDtoHAsync, (void *dst, wk_hipDeviceptr_t src, size_t sizeBytes, wk_hipStream_t stream))    \
    X(hipMemcpyDtoDAsync,                                                                                 \
      (wk_hipDeviceptr_t dst, wk_hipDeviceptr_t src, size_t sizeBytes, wk_hipStream_t stream))            \
    X(hipMemsetD8Async, (wk_hipDeviceptr_t dest, unsigned char value, size_t count, wk_hipStream_t stream)) \
    X(hipModuleLoadData, (wk_hipModule_t * module, const void *image))                                    \
    X(hipModuleGetFunction, (wk_hipFunction_t * function, wk_hipModule_t module, const char *kname))      \
    X(hipModuleLaunchKernel,                                                                              \
      (wk_hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,           \
       unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, \
       wk_hipStream_t stream, void **kernelParams, void **extra))

/* X(name, parameters) like WK_HIP_FUNCTIONS, apart because headers differ on it: HIP 5.2 declares the source
 * `void *`, later ones `const void *` (one calling convention; tests/abi/hip_abi.c accepts either). */
#define WK_HIP_COPY_IN_FUNCTIONS(X)                                                                       \
    X(hipMemcpyHtoDAsync, (wk_hipDeviceptr_t dst, void *src, size_t sizeBytes, wk_hipStream_t stream))

/* Resolved when present: the stream-ordered allocator, exported since ROCm 5.1 (symbol version hip_5.1),
 * so a ROCm 5.0 libamdhip64.so.5 lacks it; wick then uses hipMalloc/hipFree. */
#define WK_HIP_OPTIONAL_FUNCTIONS(X)                                                                      \
    X(hipDeviceGetDefaultMemPool, (wk_hipMemPool_t * mem_pool, int device))                               \
    X(hipMemPoolSetAttribute, (wk_hipMemPool_t mem_pool, wk_hipMemPoolAttr attr, void *value))            \
    X(hipMemPoolTrimTo, (wk_hipMemPool_t mem_pool, size_t min_bytes_to_hold))                             \
    X(hipMallocAsync, (void **dev_ptr, size_t size, wk_hipStream_t stream))                               \
    X(hipFreeAsync, (void *dev_ptr, wk_hipStream_t stream))

/* Resolved when present: graph capture and replay (exported since ROCm 4.3, hipGraphInstantiateWithFlags since
 * 4.5). Only wk_hip_runtime's capture_begin checks for them: it refuses (naming what is missing) without them, so
 * capture_end, graph_launch and graph_free only run where all were found. */
#define WK_HIP_GRAPH_FUNCTIONS(X)                                                                         \
    X(hipStreamBeginCapture, (wk_hipStream_t stream, wk_hipStreamCaptureMode mode))                       \
    X(hipStreamEndCapture, (wk_hipStream_t stream, wk_hipGraph_t * pGraph))                               \
    X(hipGraphInstantiateWithFlags,                                                                       \
      (wk_hipGraphExec_t * pGraphExec, wk_hipGraph_t graph, unsigned long long flags))                    \
    X(hipGraphDestroy, (wk_hipGraph_t graph))                                                             \
    X(hipGraphLaunch, (wk_hipGraphExec_t graphExec, wk_hipStream_t stream))                               \
    X(hipGraphExecDestroy, (wk_hipGraphExec_t graphExec))

/* X(name, parameters): the functions that return text rather than a status. Unlike CUDA's
 * cuGetErrorName(r, &str), HIP returns the string itself (never NULL: unknown codes give a fixed text). */
#define WK_HIP_TEXT_FUNCTIONS(X)                                                                          \
    X(hipGetErrorName, (wk_hipError_t hip_error))                                                         \
    X(hipGetErrorString, (wk_hipError_t hipError))

/* Function-pointer types wk_<name>_fn. */
#define WK_HIP_FN_TYPE(name, params) typedef wk_hipError_t(*wk_##name##_fn) params;
WK_HIP_FUNCTIONS(WK_HIP_FN_TYPE)
WK_HIP_COPY_IN_FUNCTIONS(WK_HIP_FN_TYPE)
WK_HIP_OPTIONAL_FUNCTIONS(WK_HIP_FN_TYPE)
WK_HIP_GRAPH_FUNCTIONS(WK_HIP_FN_TYPE)
#undef WK_HIP_FN_TYPE
#define WK_HIP_TEXT_FN_TYPE(name, params) typedef const char *(*wk_##name##_fn) params;
WK_HIP_TEXT_FUNCTIONS(WK_HIP_TEXT_FN_TYPE)
#undef WK_HIP_TEXT_FN_TYPE

#endif
