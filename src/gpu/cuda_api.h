/* cuda_api.h: our declarations of the CUDA driver API functions, types and constants wick calls,
 * under wk_ names so they coexist with the real cuda.h. tests/abi/cuda_driver_abi.c checks each one
 * against cuda.h at build time whenever that header is present. */
#ifndef WK_GPU_CUDA_API_H
#define WK_GPU_CUDA_API_H

#include <stddef.h>

/* Opaque handle types: same struct tags as cuda.h, so the pointer types are identical. */
struct CUctx_st;
struct CUstream_st;
struct CUmod_st;
struct CUfunc_st;
struct CUmemPoolHandle_st;
struct CUevent_st;
struct CUgraph_st;
struct CUgraphExec_st;

typedef unsigned int wk_CUresult;          /* enum cudaError_enum: its values are non-negative */
typedef int wk_CUdevice;
typedef unsigned long long wk_CUdeviceptr;
typedef struct CUctx_st *wk_CUcontext;
typedef struct CUstream_st *wk_CUstream;
typedef struct CUmod_st *wk_CUmodule;
typedef struct CUfunc_st *wk_CUfunction;
typedef struct CUmemPoolHandle_st *wk_CUmemoryPool;
typedef struct CUevent_st *wk_CUevent;
typedef unsigned int wk_CUdevice_attribute; /* enum CUdevice_attribute_enum */
typedef unsigned int wk_CUmemPool_attribute; /* enum CUmemPool_attribute_enum */
typedef struct CUgraph_st *wk_CUgraph;
typedef struct CUgraphExec_st *wk_CUgraphExec;
typedef unsigned int wk_CUstreamCaptureMode;   /* enum CUstreamCaptureMode_enum */
typedef unsigned int wk_CUstreamCaptureStatus; /* enum CUstreamCaptureStatus_enum */

enum {
    WK_CUDA_SUCCESS = 0,
    WK_CUDA_ERROR_NOT_READY = 600,
    WK_CUDA_ERROR_OUT_OF_MEMORY = 2,
    WK_CUDA_ERROR_NOT_FOUND = 500,
    WK_CU_STREAM_NON_BLOCKING = 1,
    WK_CU_EVENT_DISABLE_TIMING = 2,
    WK_CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    WK_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    WK_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    WK_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    WK_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
    WK_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
    WK_CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
    WK_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    WK_CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
    WK_CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH = 1,
    WK_CU_MEMHOSTREGISTER_PORTABLE = 1,
    WK_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
    WK_CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901
};

/* X(name, parameters): every driver function wick calls (all return CUresult), named by the exact
 * exported symbol (versioned _v2 names spelled out; never the per-thread-stream _ptsz variants). */
#define WK_CUDA_FUNCTIONS(X)                                                                              \
    X(cuInit, (unsigned int flags))                                                            \
    X(cuDriverGetVersion, (int *version))                                         \
    X(cuGetErrorName, (wk_CUresult error, const char **str))                          \
    X(cuGetErrorString, (wk_CUresult error, const char **str))                      \
    X(cuDeviceGetCount, (int *count))                                               \
    X(cuDeviceGet, (wk_CUdevice * device, int ordinal))                                  \
    X(cuDeviceGetName, (char *name, int len, wk_CUdevice dev))                       \
    X(cuDeviceGetAttribute, (int *pi, wk_CUdevice_attribute attrib, wk_CUdevice dev)) \
    X(cuDeviceTotalMem_v2, (size_t * bytes, wk_CUdevice dev))                    \
    X(cuDevicePrimaryCtxRetain, (wk_CUcontext * pctx, wk_CUdevice dev))     \
    X(cuCtxSetCurrent, (wk_CUcontext ctx))                                           \
    X(cuStreamCreate, (wk_CUstream * phStream, unsigned int Flags))                   \
    X(cuStreamSynchronize, (wk_CUstream hStream))                                \
    X(cuStreamDestroy_v2, (wk_CUstream hStream))                                 \
    X(cuStreamQuery, (wk_CUstream hStream))                                      \
    X(cuStreamBeginCapture_v2, (wk_CUstream hStream, wk_CUstreamCaptureMode mode)) \
    X(cuStreamEndCapture, (wk_CUstream hStream, wk_CUgraph * phGraph))            \
    X(cuStreamIsCapturing, (wk_CUstream hStream, wk_CUstreamCaptureStatus * captureStatus)) \
    X(cuGraphInstantiateWithFlags, (wk_CUgraphExec * phGraphExec, wk_CUgraph hGraph, unsigned long long flags)) \
    X(cuGraphLaunch, (wk_CUgraphExec hGraphExec, wk_CUstream hStream))            \
    X(cuGraphExecDestroy, (wk_CUgraphExec hGraphExec))                            \
    X(cuGraphDestroy, (wk_CUgraph hGraph))                                        \
    X(cuEventElapsedTime, (float *pMilliseconds, wk_CUevent hStart, wk_CUevent hEnd)) \
    X(cuMemHostRegister_v2, (void *p, size_t bytesize, unsigned int Flags))       \
    X(cuMemHostUnregister, (void *p))                                             \
    X(cuStreamCreateWithPriority, (wk_CUstream * phStream, unsigned int flags, int priority)) \
    X(cuCtxGetStreamPriorityRange, (int *leastPriority, int *greatestPriority))  \
    X(cuEventCreate, (wk_CUevent * phEvent, unsigned int Flags))                       \
    X(cuEventRecord, (wk_CUevent hEvent, wk_CUstream hStream))                         \
    X(cuEventDestroy_v2, (wk_CUevent hEvent))                                          \
    X(cuStreamWaitEvent, (wk_CUstream hStream, wk_CUevent hEvent, unsigned int Flags)) \
    X(cuEventSynchronize, (wk_CUevent hEvent))                                         \
    X(cuEventQuery, (wk_CUevent hEvent))                                               \
    X(cuMemAllocHost_v2, (void **pp, size_t bytesize))                                 \
    X(cuMemFreeHost, (void *p))                                                        \
    X(cuDeviceGetDefaultMemPool, (wk_CUmemoryPool * pool_out, wk_CUdevice dev)) \
    X(cuMemPoolSetAttribute,                                                   \
      (wk_CUmemoryPool pool, wk_CUmemPool_attribute attr, void *value))                                 \
    X(cuMemPoolTrimTo, (wk_CUmemoryPool pool, size_t minBytesToKeep))                 \
    X(cuMemAllocAsync, (wk_CUdeviceptr * dptr, size_t bytesize, wk_CUstream hStream)) \
    X(cuMemFreeAsync, (wk_CUdeviceptr dptr, wk_CUstream hStream))                     \
    X(cuMemcpyHtoDAsync_v2,                                                     \
      (wk_CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, wk_CUstream hStream))           \
    X(cuMemcpyDtoHAsync_v2,                                                     \
      (void *dstHost, wk_CUdeviceptr srcDevice, size_t ByteCount, wk_CUstream hStream))                 \
    X(cuMemcpyDtoDAsync_v2,                                                     \
      (wk_CUdeviceptr dstDevice, wk_CUdeviceptr srcDevice, size_t ByteCount, wk_CUstream hStream))      \
    X(cuMemcpyPeerAsync,                                                          \
      (wk_CUdeviceptr dstDevice, wk_CUcontext dstContext, wk_CUdeviceptr srcDevice, wk_CUcontext srcContext,   \
       size_t ByteCount, wk_CUstream hStream))                                                           \
    X(cuDeviceCanAccessPeer, (int *canAccessPeer, wk_CUdevice dev, wk_CUdevice peerDev))                  \
    X(cuMemsetD8Async,                                                               \
      (wk_CUdeviceptr dstDevice, unsigned char uc, size_t N, wk_CUstream hStream))                      \
    X(cuModuleLoadData, (wk_CUmodule * module, const void *image))                  \
    X(cuModuleGetFunction, (wk_CUfunction * hfunc, wk_CUmodule hmod, const char *name)) \
    X(cuLaunchKernel,                                                                 \
      (wk_CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,            \
       unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, \
       wk_CUstream hStream, void **kernelParams, void **extra))

/* Function-pointer types wk_<name>_fn. */
#define WK_CUDA_FN_TYPE(name, params) typedef wk_CUresult (*wk_##name##_fn) params;
WK_CUDA_FUNCTIONS(WK_CUDA_FN_TYPE)
#undef WK_CUDA_FN_TYPE

/* cuLaunchKernelEx (CUDA 12.0 drivers and later; optional: without it launches go through cuLaunchKernel) and its
 * configuration, laid out as cuda.h's CUlaunchConfig / CUlaunchAttribute (the ABI test compares sizes and offsets).
 * wick sets one attribute: programmatic stream serialization (runtime.h WK_GPU_LAUNCH_OVERLAP). */
typedef unsigned int wk_CUlaunchAttributeID; /* enum CUlaunchAttributeID_enum */
enum { WK_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };
typedef union wk_CUlaunchAttributeValue {
    char pad[64];
    int programmaticStreamSerializationAllowed;
} wk_CUlaunchAttributeValue;
typedef struct wk_CUlaunchAttribute {
    wk_CUlaunchAttributeID id;
    char pad[8 - sizeof(wk_CUlaunchAttributeID)];
    wk_CUlaunchAttributeValue value;
} wk_CUlaunchAttribute;
typedef struct wk_CUlaunchConfig {
    unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    wk_CUstream hStream;
    wk_CUlaunchAttribute *attrs;
    unsigned int numAttrs;
} wk_CUlaunchConfig;
typedef wk_CUresult (*wk_cuLaunchKernelEx_fn)(const wk_CUlaunchConfig *config, wk_CUfunction f, void **kernelParams,
                                              void **extra);

/* cuMemPoolSetAccess (resolved apart from the list above: its descriptor is a struct of cuda.h's) and that
 * descriptor, laid out as CUmemAccessDesc (the ABI test compares sizes and offsets): a device's access to the
 * memory of another device's pool, for the communicators' peer copies (comm_peers.c). */
typedef struct wk_CUmemAccessDesc {
    struct {
        unsigned int type; /* CUmemLocationType */
        int id;
    } location;
    unsigned int flags; /* CUmemAccess_flags */
} wk_CUmemAccessDesc;
enum { WK_CU_MEM_LOCATION_TYPE_DEVICE = 1, WK_CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3 };
typedef wk_CUresult (*wk_cuMemPoolSetAccess_fn)(wk_CUmemoryPool pool, const wk_CUmemAccessDesc *map, size_t count);

#endif
