/* cuda_driver_abi.c: compile-time proof that src/gpu/cuda_api.h matches the real cuda.h: every function
 * type, handle type and constant wick declares for itself. Built only where cuda.h is found; compiling
 * is the test (any mismatch is a _Static_assert failure). */
#include <cuda.h>

#include "gpu/cuda_api.h"

#define SAME_TYPE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " differs from " #b)
#define SAME_VALUE(ours, theirs) _Static_assert((long long)(ours) == (long long)(theirs), #ours " != " #theirs)

SAME_TYPE(wk_CUresult, CUresult);
SAME_TYPE(wk_CUdevice, CUdevice);
SAME_TYPE(wk_CUdeviceptr, CUdeviceptr);
SAME_TYPE(wk_CUcontext, CUcontext);
SAME_TYPE(wk_CUstream, CUstream);
SAME_TYPE(wk_CUmodule, CUmodule);
SAME_TYPE(wk_CUfunction, CUfunction);
SAME_TYPE(wk_CUmemoryPool, CUmemoryPool);
SAME_TYPE(wk_CUevent, CUevent);
SAME_TYPE(wk_CUdevice_attribute, CUdevice_attribute);
SAME_TYPE(wk_CUmemPool_attribute, CUmemPool_attribute);
SAME_TYPE(wk_CUgraph, CUgraph);
SAME_TYPE(wk_CUgraphExec, CUgraphExec);
SAME_TYPE(wk_CUstreamCaptureMode, CUstreamCaptureMode);
SAME_TYPE(wk_CUstreamCaptureStatus, CUstreamCaptureStatus);

SAME_VALUE(WK_CUDA_SUCCESS, CUDA_SUCCESS);
SAME_VALUE(WK_CUDA_ERROR_NOT_READY, CUDA_ERROR_NOT_READY);
SAME_VALUE(WK_CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY);
SAME_VALUE(WK_CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NOT_FOUND);
SAME_VALUE(WK_CU_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING);
SAME_VALUE(WK_CU_EVENT_DISABLE_TIMING, CU_EVENT_DISABLE_TIMING);
SAME_VALUE(WK_CU_DEVICE_ATTRIBUTE_WARP_SIZE, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
SAME_VALUE(WK_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME_VALUE(WK_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME_VALUE(WK_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME_VALUE(WK_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
SAME_VALUE(WK_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
SAME_VALUE(WK_CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES);
SAME_VALUE(WK_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
SAME_VALUE(WK_CU_STREAM_CAPTURE_STATUS_ACTIVE, CU_STREAM_CAPTURE_STATUS_ACTIVE);
SAME_VALUE(WK_CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
SAME_VALUE(WK_CU_MEMHOSTREGISTER_PORTABLE, CU_MEMHOSTREGISTER_PORTABLE);
SAME_VALUE(WK_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
SAME_VALUE(WK_CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

/* Each function: our pointer type equals the type of the real function's address. The X-macro's
 * name is the exported symbol, which cuda.h declares under that exact name. */
#define SAME_FUNCTION(name, params) SAME_TYPE(wk_##name##_fn, __typeof__(&name));
WK_CUDA_FUNCTIONS(SAME_FUNCTION)

/* cuLaunchKernelEx's configuration: our structs have cuda.h's layout, the function its result and arguments. */
#include <stddef.h>
#define SAME_FIELD(ours, theirs, field)                                                                       \
    _Static_assert(offsetof(ours, field) == offsetof(theirs, field), #ours "." #field " is elsewhere")
_Static_assert(sizeof(wk_CUlaunchConfig) == sizeof(CUlaunchConfig), "CUlaunchConfig's size");
_Static_assert(sizeof(wk_CUlaunchAttribute) == sizeof(CUlaunchAttribute), "CUlaunchAttribute's size");
_Static_assert(sizeof(wk_CUlaunchAttributeValue) == sizeof(CUlaunchAttributeValue), "CUlaunchAttributeValue's size");
SAME_TYPE(wk_CUlaunchAttributeID, CUlaunchAttributeID);
SAME_FIELD(wk_CUlaunchConfig, CUlaunchConfig, gridDimX);
SAME_FIELD(wk_CUlaunchConfig, CUlaunchConfig, blockDimZ);
SAME_FIELD(wk_CUlaunchConfig, CUlaunchConfig, sharedMemBytes);
SAME_FIELD(wk_CUlaunchConfig, CUlaunchConfig, hStream);
SAME_FIELD(wk_CUlaunchConfig, CUlaunchConfig, attrs);
SAME_FIELD(wk_CUlaunchConfig, CUlaunchConfig, numAttrs);
SAME_FIELD(wk_CUlaunchAttribute, CUlaunchAttribute, id);
SAME_FIELD(wk_CUlaunchAttribute, CUlaunchAttribute, value);
SAME_FIELD(wk_CUlaunchAttributeValue, CUlaunchAttributeValue, programmaticStreamSerializationAllowed);
SAME_VALUE(WK_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
SAME_TYPE(__typeof__(cuLaunchKernelEx((const CUlaunchConfig *)0, (CUfunction)0, (void **)0, (void **)0)), wk_CUresult);

/* cuMemPoolSetAccess's descriptor. */
_Static_assert(sizeof(wk_CUmemAccessDesc) == sizeof(CUmemAccessDesc), "CUmemAccessDesc's size");
SAME_FIELD(wk_CUmemAccessDesc, CUmemAccessDesc, location.type);
SAME_FIELD(wk_CUmemAccessDesc, CUmemAccessDesc, location.id);
SAME_FIELD(wk_CUmemAccessDesc, CUmemAccessDesc, flags);
SAME_VALUE(WK_CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_LOCATION_TYPE_DEVICE);
SAME_VALUE(WK_CU_MEM_ACCESS_FLAGS_PROT_READWRITE, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
SAME_TYPE(__typeof__(cuMemPoolSetAccess((CUmemoryPool)0, (const CUmemAccessDesc *)0, (size_t)0)), wk_CUresult);

int main(void) { return 0; }
