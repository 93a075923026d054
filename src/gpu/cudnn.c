/* cudnn.c: cuDNN loaded with dlopen on first use (8 or 9: the legacy descriptor API, and the graph API where
 * present), its per-device handles bound to the device's stream, and the meaning of its statuses (cudnn.h). */
#include <stdio.h>

#include "gpu/cudnn.h"

wk_cudnn_api wk_cudnn;

static const char *const sonames[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so", NULL};
static const wk_gpu_sym syms[] = {
    {"cudnnGetVersion", &wk_cudnn.get_version, false},
    {"cudnnGetErrorString", &wk_cudnn.error_string, false},
    {"cudnnCreate", &wk_cudnn.create, false},
    {"cudnnDestroy", &wk_cudnn.destroy, false},
    {"cudnnSetStream", &wk_cudnn.set_stream, false},
    {"cudnnCreateTensorDescriptor", &wk_cudnn.create_tensor, false},
    {"cudnnSetTensorNdDescriptor", &wk_cudnn.set_tensor, false},
    {"cudnnDestroyTensorDescriptor", &wk_cudnn.destroy_tensor, false},
    {"cudnnCreateFilterDescriptor", &wk_cudnn.create_filter, false},
    {"cudnnSetFilterNdDescriptor", &wk_cudnn.set_filter, false},
    {"cudnnDestroyFilterDescriptor", &wk_cudnn.destroy_filter, false},
    {"cudnnCreateConvolutionDescriptor", &wk_cudnn.create_conv, false},
    {"cudnnSetConvolutionNdDescriptor", &wk_cudnn.set_conv, false},
    {"cudnnSetConvolutionGroupCount", &wk_cudnn.set_groups, false},
    {"cudnnSetConvolutionMathType", &wk_cudnn.set_math, false},
    {"cudnnDestroyConvolutionDescriptor", &wk_cudnn.destroy_conv, false},
    {"cudnnGetConvolutionForwardAlgorithm_v7", &wk_cudnn.fwd_algos, false},
    {"cudnnGetConvolutionBackwardDataAlgorithm_v7", &wk_cudnn.bwd_algos, false},
    {"cudnnFindConvolutionForwardAlgorithmEx", &wk_cudnn.fwd_find, false},
    {"cudnnFindConvolutionBackwardDataAlgorithmEx", &wk_cudnn.bwd_find, false},
    {"cudnnGetConvolutionForwardWorkspaceSize", &wk_cudnn.fwd_workspace, false},
    {"cudnnGetConvolutionBackwardDataWorkspaceSize", &wk_cudnn.bwd_workspace, false},
    {"cudnnConvolutionForward", &wk_cudnn.forward, false},
    {"cudnnConvolutionBackwardData", &wk_cudnn.backward_data, false},
    {"cudnnAddTensor", &wk_cudnn.add_tensor, false},
    {"cudnnBackendCreateDescriptor", &wk_cudnn.be_create, true},
    {"cudnnBackendDestroyDescriptor", &wk_cudnn.be_destroy, true},
    {"cudnnBackendFinalize", &wk_cudnn.be_finalize, true},
    {"cudnnBackendSetAttribute", &wk_cudnn.be_set, true},
    {"cudnnBackendGetAttribute", &wk_cudnn.be_get, true},
    {"cudnnBackendExecute", &wk_cudnn.be_execute, true},
};

static bool check_version(char *error, size_t cap)
{
    wk_cudnn.version = wk_cudnn.get_version();
    if (wk_cudnn.version >= 8000)
        return true;
    snprintf(error, cap, "the cuDNN found is version %zu; 8 or newer is needed", wk_cudnn.version);
    return false;
}

/* Statuses that mean cuDNN cannot take the case here, so wick's own kernels should: NOT_SUPPORTED, and in
 * cuDNN 9 (statuses grouped by thousands; cuDNN 8 numbered them 0..n) a part of the library missing. */
bool wk_cudnn_not_supported(wk_cudnnStatus_t st)
{
    if (wk_cudnn.version < 90000)
        return st == WK_CUDNN8_STATUS_NOT_SUPPORTED;
    return st / 1000 * 1000 == WK_CUDNN_STATUS_NOT_SUPPORTED || st == WK_CUDNN_STATUS_NOT_INITIALIZED ||
           st == WK_CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH || st == WK_CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED;
}

const char *wk_cudnn_status_text(wk_cudnnStatus_t st)
{
    const char *t = wk_cudnn.error_string(st);
    return t ? t : "cuDNN error";
}

static bool create(wk_gpu_dev *d, void *stream, void **handle, const char **call, const char **text)
{
    (void)d;
    wk_cudnnHandle_t h = NULL;
    *call = "cudnnCreate";
    wk_cudnnStatus_t st = wk_cudnn.create(&h);
    if (st == WK_CUDNN_STATUS_SUCCESS) {
        *call = "cudnnSetStream";
        st = wk_cudnn.set_stream(h, (wk_cudaStream_t)stream);
    }
    if (st != WK_CUDNN_STATUS_SUCCESS) {
        if (h)
            wk_cudnn.destroy(h);
        *text = wk_cudnn_status_text(st);
        return false;
    }
    *handle = h;
    return true;
}

wk_gpu_lib wk_cudnn_lib = {.name = "cuDNN", .env = "WICK_CUDNN_LIBRARY", .names = sonames, .syms = syms,
                           .nsyms = sizeof syms / sizeof syms[0], .needs = "cuDNN 8 or 9, legacy API",
                           .check = check_version, .create = create, WK_GPU_LIB_STATE};
