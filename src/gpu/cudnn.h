/* cudnn.h: cuDNN as wick calls it (loaded with dlopen on first use by cudnn.c): its functions (the legacy
 * descriptor API for convolution, the graph API for attention), its per-device handles, and what its statuses
 * mean. The DNN paths (conv_cudnn.c, attention_cudnn.c through cudnn_graph.h) use only this. */
#ifndef WK_GPU_CUDNN_H
#define WK_GPU_CUDNN_H

#include "gpu/cuda_libs.h"
#include "gpu/vendor_lib.h"

typedef struct wk_cudnn_api {
    size_t version;  /* 90100 for 9.1.0 */
    wk_cudnnGetVersion_fn get_version;
    wk_cudnnGetErrorString_fn error_string;
    wk_cudnnCreate_fn create;
    wk_cudnnDestroy_fn destroy;
    wk_cudnnSetStream_fn set_stream;
    wk_cudnnCreateTensorDescriptor_fn create_tensor;
    wk_cudnnSetTensorNdDescriptor_fn set_tensor;
    wk_cudnnDestroyTensorDescriptor_fn destroy_tensor;
    wk_cudnnCreateFilterDescriptor_fn create_filter;
    wk_cudnnSetFilterNdDescriptor_fn set_filter;
    wk_cudnnDestroyFilterDescriptor_fn destroy_filter;
    wk_cudnnCreateConvolutionDescriptor_fn create_conv;
    wk_cudnnSetConvolutionNdDescriptor_fn set_conv;
    wk_cudnnSetConvolutionGroupCount_fn set_groups;
    wk_cudnnSetConvolutionMathType_fn set_math;
    wk_cudnnDestroyConvolutionDescriptor_fn destroy_conv;
    wk_cudnnGetConvolutionForwardAlgorithm_v7_fn fwd_algos;
    wk_cudnnGetConvolutionBackwardDataAlgorithm_v7_fn bwd_algos;
    wk_cudnnFindConvolutionForwardAlgorithmEx_fn fwd_find;
    wk_cudnnFindConvolutionBackwardDataAlgorithmEx_fn bwd_find;
    wk_cudnnGetConvolutionForwardWorkspaceSize_fn fwd_workspace;
    wk_cudnnGetConvolutionBackwardDataWorkspaceSize_fn bwd_workspace;
    wk_cudnnConvolutionForward_fn forward;
    wk_cudnnConvolutionBackwardData_fn backward_data;
    wk_cudnnAddTensor_fn add_tensor;
    /* The graph API (cudnn_graph.c), optional: NULL in a library without it. */
    wk_cudnnBackendCreateDescriptor_fn be_create;
    wk_cudnnBackendDestroyDescriptor_fn be_destroy;
    wk_cudnnBackendFinalize_fn be_finalize;
    wk_cudnnBackendSetAttribute_fn be_set;
    wk_cudnnBackendGetAttribute_fn be_get;
    wk_cudnnBackendExecute_fn be_execute;
} wk_cudnn_api;

extern wk_cudnn_api wk_cudnn;
/* The library and its handles: one per device, used under the device's lock (wk_gpu_lib_lock), since cuDNN
 * forbids two threads using one handle at once. */
extern wk_gpu_lib wk_cudnn_lib;

/* Forward convolution of f16/bf16 through the graph API (conv_cudnn_graph.c), the device's cuDNN lock held: x as
 * xstride describes it, w, y and the bias (O values; NULL: none) packed, the bias added too; WK_ERR_UNSUPPORTED
 * where it does not take the case (y may then hold trial results: the legacy path that follows writes all of it).
 * WICK_CUDNN_GRAPH=0 turns it off. */
wk_status wk_cudnn_conv_graph(wk_gpu_dev *d, wk_cudnnHandle_t h, wk_dtype dt, const wk_gpu_conv_shape *sh,
                              const int xstride[4], const void *x, const void *w, const void *bias, void *y);
/* gpu.h's DNN attention slot (attention_cudnn.c). */
wk_status wk_cudnn_attention(wk_gpu_dev *d, const wk_attn *a, bool strict);

/* True for statuses that mean cuDNN cannot take the case here, so wick's own kernels should. */
bool wk_cudnn_not_supported(wk_cudnnStatus_t st);
/* cuDNN's text for a status. */
const char *wk_cudnn_status_text(wk_cudnnStatus_t st);

#endif
