/* hip_abi.c: compile-time proof that src/gpu/hip_api.h matches the real hip_runtime_api.h (Debian's
 * libamdhip64-dev): every function type, handle type and constant wick declares for itself. Built only where
 * that header is found; compiling is the test (any mismatch is a _Static_assert failure). */
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ /* the header refuses to pick a platform by itself outside hipcc */
#endif
#include <hip/hip_runtime_api.h>

#include "gpu/hip_api.h"

#define SAME_TYPE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " differs from " #b)
#define SAME_VALUE(ours, theirs) _Static_assert((long long)(ours) == (long long)(theirs), #ours " != " #theirs)

SAME_TYPE(wk_hipError_t, hipError_t);
SAME_TYPE(wk_hipDevice_t, hipDevice_t);
SAME_TYPE(wk_hipDeviceptr_t, hipDeviceptr_t);
SAME_TYPE(wk_hipStream_t, hipStream_t);
SAME_TYPE(wk_hipModule_t, hipModule_t);
SAME_TYPE(wk_hipFunction_t, hipFunction_t);
SAME_TYPE(wk_hipMemPool_t, hipMemPool_t);
SAME_TYPE(wk_hipEvent_t, hipEvent_t);
SAME_TYPE(wk_hipDeviceAttribute_t, hipDeviceAttribute_t);
SAME_TYPE(wk_hipMemPoolAttr, hipMemPoolAttr);
SAME_TYPE(wk_hipGraph_t, hipGraph_t);
SAME_TYPE(wk_hipGraphExec_t, hipGraphExec_t);
SAME_TYPE(wk_hipStreamCaptureMode, hipStreamCaptureMode);

SAME_VALUE(WK_HIP_SUCCESS, hipSuccess);
SAME_VALUE(WK_HIP_ERROR_NOT_READY, hipErrorNotReady);
SAME_VALUE(WK_HIP_ERROR_OUT_OF_MEMORY, hipErrorOutOfMemory);
SAME_VALUE(WK_HIP_ERROR_OUT_OF_MEMORY, hipErrorMemoryAllocation);
SAME_VALUE(WK_HIP_ERROR_NO_DEVICE, hipErrorNoDevice);
SAME_VALUE(WK_HIP_ERROR_INVALID_DEVICE, hipErrorInvalidDevice);
SAME_VALUE(WK_HIP_ERROR_NOT_FOUND, hipErrorNotFound);
SAME_VALUE(WK_HIP_STREAM_NON_BLOCKING, hipStreamNonBlocking);
SAME_VALUE(WK_HIP_EVENT_DEFAULT, hipEventDefault);
SAME_VALUE(WK_HIP_EVENT_DISABLE_TIMING, hipEventDisableTiming);
SAME_VALUE(WK_HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, hipDeviceAttributeMultiprocessorCount);
SAME_VALUE(WK_HIP_DEVICE_ATTRIBUTE_WARP_SIZE, hipDeviceAttributeWarpSize);
SAME_VALUE(WK_HIP_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, hipDeviceAttributeMemoryPoolsSupported);
SAME_VALUE(WK_HIP_MEMPOOL_ATTR_RELEASE_THRESHOLD, hipMemPoolAttrReleaseThreshold);
SAME_VALUE(WK_HIP_HOST_REGISTER_PORTABLE, hipHostRegisterPortable);
SAME_VALUE(WK_HIP_STREAM_CAPTURE_MODE_THREAD_LOCAL, hipStreamCaptureModeThreadLocal);
SAME_VALUE(WK_HIP_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, hipGraphInstantiateFlagAutoFreeOnLaunch);

/* Each function: our pointer type equals the type of the real function's address. The X-macro's name is
 * the exported symbol, which the header declares under that exact name. */
#define SAME_FUNCTION(name, params) SAME_TYPE(wk_##name##_fn, __typeof__(&name));
WK_HIP_FUNCTIONS(SAME_FUNCTION)
WK_HIP_OPTIONAL_FUNCTIONS(SAME_FUNCTION)
WK_HIP_GRAPH_FUNCTIONS(SAME_FUNCTION)
WK_HIP_TEXT_FUNCTIONS(SAME_FUNCTION)
/* Not checked: hipGraphAddMemAllocNode (gpu/hip.h), only looked up, never called; HIP 5.2's header lacks it. */

/* The host-to-device copy: ours (HIP 5.2's) takes `void *src`; later headers (ROCm 6.x, 7.x in /opt/rocm)
 * say `const void *src`. Either is the same call; anything else is a mismatch. */
typedef wk_hipError_t (*wk_abi_const_src_fn)(wk_hipDeviceptr_t, const void *, size_t, wk_hipStream_t);
#define SAME_FUNCTION_ANY_SRC(name, params)                                                                   \
    _Static_assert(__builtin_types_compatible_p(wk_##name##_fn, __typeof__(&name)) ||                          \
                       __builtin_types_compatible_p(wk_abi_const_src_fn, __typeof__(&name)),                   \
                   #name " differs from the header");
WK_HIP_COPY_IN_FUNCTIONS(SAME_FUNCTION_ANY_SRC)

int main(void) { return 0; }
