"""wick: Python access to the wick tensor library (libwick, through ctypes; no compiled extension).

Tensors are wick.Tensor; every op of wick.h is a function here (wick.exp, wick.add, wick.matmul, ...);
numpy and DLPack exchange (wick.from_numpy, Tensor.numpy, wick.from_dlpack, Tensor.__dlpack__); wick's
safetensors, GGUF and .npy readers and writers; streams, events and graph capture (wick.Stream, wick.Event,
wick.capture) with Tensor.write_async / to_host_async. A failed call raises wick.WickError carrying wick's status
name and message. libwick is found through $LIBWICK, then the system loader, then next to this package.
"""
import ctypes as _ctypes

from ._lib import WickError, check, lib as _lib
from ._tensor import DTYPES, QDTYPES, Tensor, from_blocks, from_dlpack, from_numpy
from ._ops import *  # noqa: F401,F403 (the op functions)
from ._ops import UNARY, BINARY, COMPARE, REDUCE, generated as _generated
from ._files import load_npy, load_safetensors, safe_open, save_npy, save_safetensors
from ._gguf import GGUFFile, GGUFWriter, load_gguf
from ._streams import Event, Graph, Stream, capture, current_stream

globals().update(_generated())
del _generated

__version__ = "0.1.0"


def build_info():
    """wick's wk_build_info as a dict (version, build_type, options, cuda_targets, rocm_targets)."""
    from ._lib import BuildInfo
    info = BuildInfo()
    _lib.wk_get_build_info(_ctypes.byref(info))
    return {f: getattr(info, f).decode() for f, _ in BuildInfo._fields_}


def device_names():
    """The devices this process can use: "cpu", then "cuda:N" / "rocm:N" for each GPU found."""
    from ._lib import BackendInfo
    names = []
    for i in range(_lib.wk_backend_count()):
        info = BackendInfo()
        _lib.wk_backend_info_get(i, _ctypes.byref(info))
        if not info.available:
            continue
        name = info.name.decode()
        names += ["cpu"] if name == "cpu" else [f"{name}:{d}" for d in range(info.device_count)]
    return names


def sync(device="cpu"):
    """Waits for the work queued on device; device-side errors (an index out of range) surface here."""
    from ._lib import device as _device
    _lib.wk_device_sync(_device(device))
