"""DLPack through ctypes: the structs of dlpack.h v1.x (as include/wick_dlpack.h declares them) and the
capsules of the DLPack Python protocol.

A capsule named "dltensor_versioned" (DLManagedTensorVersioned) or "dltensor" (the legacy DLManagedTensor)
owns its struct until a consumer takes it and renames it "used_dltensor_versioned" / "used_dltensor". The
capsule destructor below calls the struct's deleter only when the capsule was never consumed, so the
deleter runs exactly once whichever side ends up owning the tensor.
"""
import ctypes
import datetime
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_int, c_int32, c_int64, c_uint8, c_uint16,
                    c_uint32, c_uint64, c_void_p, py_object)

# The version wick speaks (include/wick_dlpack.h); wick imports any 1.x.
DLPACK_VERSION = (1, 1)
kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLROCMHost, kDLCUDAManaged = 1, 2, 3, 10, 11, 13
FLAG_READ_ONLY, FLAG_IS_COPIED = 1, 2
ALLOW_COPY = 1  # WK_DLPACK_ALLOW_COPY


class DLDevice(Structure):
    _fields_ = [("device_type", c_int), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensor(Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p),
                            ("deleter", CFUNCTYPE(None, POINTER(DLManagedTensor)))]


class DLManagedTensorVersioned(Structure):
    pass


DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", c_void_p),
                                     ("deleter", CFUNCTYPE(None, POINTER(DLManagedTensorVersioned))),
                                     ("flags", c_uint64), ("dl_tensor", DLTensor)]

# ---------------------------------------------------------------- capsules
# The names must outlive every capsule: module-level bytes, never freed.
NAME_VERSIONED, USED_VERSIONED = b"dltensor_versioned", b"used_dltensor_versioned"
NAME_LEGACY, USED_LEGACY = b"dltensor", b"used_dltensor"

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = py_object
_api.PyCapsule_New.argtypes = [c_void_p, c_char_p, c_void_p]
_api.PyCapsule_IsValid.restype = c_int
_api.PyCapsule_IsValid.argtypes = [c_void_p, c_char_p]
_api.PyCapsule_GetPointer.restype = c_void_p
_api.PyCapsule_GetPointer.argtypes = [c_void_p, c_char_p]
_api.PyCapsule_SetName.restype = c_int
_api.PyCapsule_SetName.argtypes = [py_object, c_char_p]
_api.PyCapsule_GetName.restype = c_char_p
_api.PyCapsule_GetName.argtypes = [py_object]
_CapsuleType = type(datetime.datetime_CAPI)  # PyCapsule's type (PyCapsule_CheckExact is a macro)


def delete(ptr, versioned):
    """Calls the deleter of the managed struct at address ptr (if it has one)."""
    kind = DLManagedTensorVersioned if versioned else DLManagedTensor
    m = ctypes.cast(ptr, POINTER(kind))
    if m.contents.deleter:
        m.contents.deleter(m)


# A consumer that refuses a capsule (numpy for a CUDA tensor, say) drops it with its exception set, and Python
# code cannot run under a pending exception: the destructor sets it aside first (PyErr_Fetch, called with
# ready-made byref arguments and no argtypes, so that nothing runs before it), frees the tensor, then raises it
# again, which ctypes can only report as unraisable (stderr): the consumer then raises SystemError. Keeping
# the consumer's own exception takes a destructor in C (numpy's saves and restores it).
_fetch, _restore = _api.PyErr_Fetch, _api.PyErr_Restore
_fetch.restype = _restore.restype = None
_restore.argtypes = [c_void_p, c_void_p, c_void_p]
_pending = (c_void_p(), c_void_p(), c_void_p())
_pending_refs = tuple(ctypes.byref(p) for p in _pending)


# The capsule is being deallocated: it arrives as a raw address (a py_object would resurrect it).
@CFUNCTYPE(None, c_void_p)
def _capsule_destructor(cap):
    _fetch(*_pending_refs)
    pending = tuple(p.value for p in _pending)
    for name, versioned in ((NAME_VERSIONED, True), (NAME_LEGACY, False)):
        if _api.PyCapsule_IsValid(cap, name):
            delete(_api.PyCapsule_GetPointer(cap, name), versioned)
            break
    if pending[0]:
        _restore(*pending)  # raises it here (ctypes checks the error after a pythonapi call)


_DESTRUCTOR = ctypes.cast(_capsule_destructor, c_void_p)


def make_capsule(ptr, versioned):
    """A capsule owning the managed struct at ptr; on failure the struct is deleted."""
    try:
        return _api.PyCapsule_New(ptr, NAME_VERSIONED if versioned else NAME_LEGACY, _DESTRUCTOR)
    except BaseException:
        delete(ptr, versioned)
        raise


def is_capsule(obj):
    return type(obj) is _CapsuleType


def open_capsule(cap):
    """(address of the managed struct, versioned) of an unconsumed DLPack capsule; ValueError otherwise."""
    if not is_capsule(cap):
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got "
                        f"{type(cap).__name__}")
    addr = id(cap)  # CPython: the PyObject * (ctypes.pythonapi is CPython's anyway)
    for name, versioned in ((NAME_VERSIONED, True), (NAME_LEGACY, False)):
        if _api.PyCapsule_IsValid(addr, name):
            return _api.PyCapsule_GetPointer(addr, name), versioned
    name = _api.PyCapsule_GetName(cap)
    raise ValueError(f"from_dlpack: the capsule is named {name!r}, not 'dltensor_versioned' or 'dltensor' "
                     f"(a consumed capsule cannot be consumed again)")


def mark_used(cap, versioned):
    """Renames cap "used_dltensor[_versioned]": its struct belongs to the consumer now."""
    _api.PyCapsule_SetName(cap, USED_VERSIONED if versioned else USED_LEGACY)


def dl_tensor(ptr, versioned):
    """The DLTensor of the managed struct at ptr, and its flags (0 for the legacy struct)."""
    if versioned:
        m = ctypes.cast(ptr, POINTER(DLManagedTensorVersioned)).contents
        return m.dl_tensor, m.flags
    return ctypes.cast(ptr, POINTER(DLManagedTensor)).contents.dl_tensor, 0


def has_negative_strides(t):
    if not t.strides:
        return False
    return any(t.strides[i] < 0 and t.shape[i] > 1 for i in range(t.ndim))
