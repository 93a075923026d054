/* miopen.h: MIOpen as wick calls it (loaded with dlopen on first use by miopen.c): its functions, its per-device
 * handles, and what its statuses mean. The DNN paths (conv_miopen.c) use only this. The declarations used
 * (rocm_libs.h) were checked by reading MIOpen's include/miopen/miopen.h, not by compiling against it: MIOpen has
 * no Debian package, and no AMD GPU was reachable. */
#ifndef WK_GPU_MIOPEN_H
#define WK_GPU_MIOPEN_H

#include "gpu/rocm_libs.h"
#include "gpu/vendor_lib.h"

typedef struct wk_miopen_api {
    size_t major, minor, patch;
    wk_miopenGetErrorString_fn error_string;
    wk_miopenGetVersion_fn get_version; /* optional */
    wk_miopenCreate_fn create;
    wk_miopenDestroy_fn destroy;
    wk_miopenSetStream_fn set_stream;
    wk_miopenCreateTensorDescriptor_fn create_tensor;
    wk_miopenSetTensorDescriptor_fn set_tensor;
    wk_miopenDestroyTensorDescriptor_fn destroy_tensor;
    wk_miopenCreateConvolutionDescriptor_fn create_conv;
    wk_miopenInitConvolutionDescriptor_fn init_conv;
    wk_miopenSetConvolutionGroupCount_fn set_groups;
    wk_miopenDestroyConvolutionDescriptor_fn destroy_conv;
    wk_miopenConvolutionForwardGetWorkSpaceSize_fn fwd_workspace;
    wk_miopenFindConvolutionForwardAlgorithm_fn fwd_find;
    wk_miopenConvolutionForward_fn forward;
    wk_miopenConvolutionBackwardDataGetWorkSpaceSize_fn bwd_workspace;
    wk_miopenFindConvolutionBackwardDataAlgorithm_fn bwd_find;
    wk_miopenConvolutionBackwardData_fn backward_data;
} wk_miopen_api;

extern wk_miopen_api wk_miopen;
/* The library and its handles: one per device, bound to the device current when it is made, used under the
 * device's lock (wk_gpu_lib_lock): an MIOpen handle must not be used by two threads at once. */
extern wk_gpu_lib wk_miopen_lib;

/* True for statuses that mean MIOpen cannot take the case, so wick's own kernels should. */
bool wk_miopen_not_supported(wk_miopenStatus_t st);
/* The statuses of the workspace query and the find step after which the case is left to wick's kernels. */
bool wk_miopen_refused_at_find(wk_miopenStatus_t st);
/* MIOpen's text for a status. */
const char *wk_miopen_status_text(wk_miopenStatus_t st);

#endif
