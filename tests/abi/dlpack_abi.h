/* dlpack_abi.h: the facts of the DLPack ABI that wick_dlpack.h must share with the published dlpack.h: every
 * struct's size and each field's offset and size, and the constants. dlpack_abi_real.c evaluates the list
 * under dlpack.h, dlpack_abi_ours.c under wick_dlpack.h (they cannot share one translation unit), and
 * dlpack_abi_main.c compares the two tables. */
#ifndef WK_DLPACK_ABI_H
#define WK_DLPACK_ABI_H

#include <stddef.h>

#define WK_FIELD(T, f) X(#T "." #f " offset", offsetof(T, f)) X(#T "." #f " size", sizeof(((T *)0)->f))
#define WK_DLPACK_FACTS                                                                                       \
    X("DLPackVersion size", sizeof(DLPackVersion)) WK_FIELD(DLPackVersion, major) WK_FIELD(DLPackVersion, minor) \
    X("DLDevice size", sizeof(DLDevice)) WK_FIELD(DLDevice, device_type) WK_FIELD(DLDevice, device_id)          \
    X("DLDataType size", sizeof(DLDataType)) WK_FIELD(DLDataType, code) WK_FIELD(DLDataType, bits)              \
    WK_FIELD(DLDataType, lanes)                                                                                \
    X("DLTensor size", sizeof(DLTensor)) WK_FIELD(DLTensor, data) WK_FIELD(DLTensor, device)                    \
    WK_FIELD(DLTensor, ndim) WK_FIELD(DLTensor, dtype) WK_FIELD(DLTensor, shape) WK_FIELD(DLTensor, strides)     \
    WK_FIELD(DLTensor, byte_offset)                                                                            \
    X("DLManagedTensor size", sizeof(DLManagedTensor)) WK_FIELD(DLManagedTensor, dl_tensor)                     \
    WK_FIELD(DLManagedTensor, manager_ctx) WK_FIELD(DLManagedTensor, deleter)                                   \
    X("DLManagedTensorVersioned size", sizeof(DLManagedTensorVersioned))                                        \
    WK_FIELD(DLManagedTensorVersioned, version) WK_FIELD(DLManagedTensorVersioned, manager_ctx)                 \
    WK_FIELD(DLManagedTensorVersioned, deleter) WK_FIELD(DLManagedTensorVersioned, flags)                       \
    WK_FIELD(DLManagedTensorVersioned, dl_tensor)                                                              \
    X("DLPACK_MAJOR_VERSION", DLPACK_MAJOR_VERSION) X("kDLCPU", kDLCPU) X("kDLCUDA", kDLCUDA)                   \
    X("kDLCUDAHost", kDLCUDAHost) X("kDLOpenCL", kDLOpenCL) X("kDLVulkan", kDLVulkan) X("kDLMetal", kDLMetal)  \
    X("kDLVPI", kDLVPI) X("kDLROCM", kDLROCM) X("kDLROCMHost", kDLROCMHost) X("kDLExtDev", kDLExtDev)          \
    X("kDLCUDAManaged", kDLCUDAManaged) X("kDLOneAPI", kDLOneAPI) X("kDLInt", kDLInt) X("kDLUInt", kDLUInt)    \
    X("kDLFloat", kDLFloat) X("kDLOpaqueHandle", kDLOpaqueHandle) X("kDLBfloat", kDLBfloat)                     \
    X("kDLComplex", kDLComplex) X("kDLBool", kDLBool)                                                          \
    X("DLPACK_FLAG_BITMASK_READ_ONLY", DLPACK_FLAG_BITMASK_READ_ONLY)                                           \
    X("DLPACK_FLAG_BITMASK_IS_COPIED", DLPACK_FLAG_BITMASK_IS_COPIED)

typedef struct wk_abi_fact {
    const char *what;
    unsigned long long value;
} wk_abi_fact;

extern const wk_abi_fact wk_dlpack_real[], wk_dlpack_ours[];
extern const int wk_dlpack_real_count, wk_dlpack_ours_count;

#endif
