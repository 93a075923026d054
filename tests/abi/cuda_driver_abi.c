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

/* Each function: our pointer type equals the type of the real function's address. The X-macro's
 * name is the exported symbol, which cuda.h declares under that exact name. */
#define SAME_FUNCTION(name, params) SAME_TYPE(wk_##name##_fn, __typeof__(&name));
WK_CUDA_FUNCTIONS(SAME_FUNCTION)

int main(void) { return 0; }
