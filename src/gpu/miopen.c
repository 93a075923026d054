/* miopen.c: MIOpen loaded with dlopen on first use (MIOpen 2 or newer), its per-device handles bound to the
 * device's stream, and the meaning of its statuses (miopen.h). */
#include <stdio.h>

#include "gpu/miopen.h"

wk_miopen_api wk_miopen;

static const char *const sonames[] = {"libMIOpen.so.1", "libMIOpen.so", NULL};
static const wk_gpu_sym syms[] = {
    {"miopenGetErrorString", &wk_miopen.error_string, false},
    {"miopenCreate", &wk_miopen.create, false},
    {"miopenDestroy", &wk_miopen.destroy, false},
    {"miopenSetStream", &wk_miopen.set_stream, false},
    {"miopenCreateTensorDescriptor", &wk_miopen.create_tensor, false},
    {"miopenSetTensorDescriptor", &wk_miopen.set_tensor, false},
    {"miopenDestroyTensorDescriptor", &wk_miopen.destroy_tensor, false},
    {"miopenCreateConvolutionDescriptor", &wk_miopen.create_conv, false},
    {"miopenInitConvolutionDescriptor", &wk_miopen.init_conv, false},
    {"miopenSetConvolutionGroupCount", &wk_miopen.set_groups, false},
    {"miopenDestroyConvolutionDescriptor", &wk_miopen.destroy_conv, false},
    {"miopenConvolutionForwardGetWorkSpaceSize", &wk_miopen.fwd_workspace, false},
    {"miopenFindConvolutionForwardAlgorithm", &wk_miopen.fwd_find, false},
    {"miopenConvolutionForward", &wk_miopen.forward, false},
    {"miopenConvolutionBackwardDataGetWorkSpaceSize", &wk_miopen.bwd_workspace, false},
    {"miopenFindConvolutionBackwardDataAlgorithm", &wk_miopen.bwd_find, false},
    {"miopenConvolutionBackwardData", &wk_miopen.backward_data, false},
    {"miopenGetVersion", &wk_miopen.get_version, true},
};

/* The version only goes into messages (0.0.0 when unknown); a failure to report it costs nothing else. */
static bool read_version(char *error, size_t cap)
{
    (void)error, (void)cap;
    if (wk_miopen.get_version &&
        wk_miopen.get_version(&wk_miopen.major, &wk_miopen.minor, &wk_miopen.patch) != WK_MIOPEN_STATUS_SUCCESS)
        wk_miopen.major = wk_miopen.minor = wk_miopen.patch = 0;
    return true;
}

/* Statuses that mean MIOpen cannot take the case, so wick's own kernels should. */
bool wk_miopen_not_supported(wk_miopenStatus_t st)
{
    return st == WK_MIOPEN_STATUS_NOT_IMPLEMENTED || st == WK_MIOPEN_STATUS_UNSUPPORTED_OP;
}

/* Statuses of the workspace query and the find step after which the case is left to wick's kernels (and the
 * refusal cached): those of not_supported, a descriptor MIOpen rejects (bad parameter), and the unknown error,
 * which is how MIOpen's find reports that none of its solvers applies ("No suitable algorithm was found to
 * execute the required convolution" is thrown without a status: src/ocl/convolutionocl.cpp, MIOpen 2.x and
 * ROCm 6). A HIP failure inside find reads the same; that case too goes to wick's kernels, whose own launches
 * then meet the device's state and report it. */
bool wk_miopen_refused_at_find(wk_miopenStatus_t st)
{
    return wk_miopen_not_supported(st) || st == WK_MIOPEN_STATUS_BAD_PARM || st == WK_MIOPEN_STATUS_UNKNOWN_ERROR;
}

const char *wk_miopen_status_text(wk_miopenStatus_t st)
{
    const char *t = wk_miopen.error_string(st);
    return t ? t : "MIOpen error";
}

/* MIOpen binds a handle to the device current when it is made: wk_gpu_lib_handle's caller has made it so. */
static bool create(wk_gpu_dev *d, void *stream, void **handle, const char **call, const char **text)
{
    (void)d;
    wk_miopenHandle_t h = NULL;
    *call = "miopenCreate";
    wk_miopenStatus_t st = wk_miopen.create(&h);
    if (st == WK_MIOPEN_STATUS_SUCCESS) {
        *call = "miopenSetStream";
        st = wk_miopen.set_stream(h, (wk_miopenAcceleratorQueue_t)stream);
    }
    if (st != WK_MIOPEN_STATUS_SUCCESS) {
        if (h)
            (void)wk_miopen.destroy(h); /* already failing: the first error is the one reported */
        *text = wk_miopen_status_text(st);
        return false;
    }
    *handle = h;
    return true;
}

wk_gpu_lib wk_miopen_lib = {.name = "MIOpen", .env = "WICK_MIOPEN_LIBRARY", .names = sonames, .syms = syms,
                            .nsyms = sizeof syms / sizeof syms[0], .needs = "MIOpen 2 or newer",
                            .check = read_version, .create = create, WK_GPU_LIB_STATE};
