"""safetensors and .npy through wick's own readers and writers (wk_safetensors_*, wk_npy_*)."""
import os
from ctypes import byref, c_char_p, c_int64, c_void_p

import numpy as np

from ._lib import FileHandle, SafetensorsInfo, device as _device, lib, out
from ._tensor import Tensor, call, dtype_code, from_numpy, take


def _path(path):
    return os.fsencode(path)


def _tensor(x):
    return x if isinstance(x, Tensor) else from_numpy(np.asarray(x))


def _c_strings(strings):
    bs = [s.encode() if isinstance(s, str) else bytes(s) for s in strings]
    return (c_char_p * max(len(bs), 1))(*bs)


class safe_open(FileHandle):
    """An open safetensors file (wk_safetensors_open): keys(), metadata(), info(name), get_tensor(name).
    Loaded tensors stay valid after close(); a context manager closes the handle."""

    _close = "wk_safetensors_close"

    def __init__(self, path):
        self._h = None
        h = out()
        lib.wk_safetensors_open(_path(path), byref(h))
        self._h = h.value

    def _info(self, i):
        info = SafetensorsInfo()
        lib.wk_safetensors_tensor_info_get(self._handle(), i, byref(info))
        return info

    def keys(self):
        return [self._info(i).name.decode() for i in range(lib.wk_safetensors_count(self._handle()))]

    def metadata(self):
        h, meta = self._handle(), {}
        for i in range(lib.wk_safetensors_metadata_count(h)):
            k, v = c_char_p(), c_char_p()
            lib.wk_safetensors_metadata_get(h, i, byref(k), byref(v))
            meta[k.value.decode()] = v.value.decode()
        return meta

    def info(self, name):
        """name, dtype (the file's: "F32", "I8", ...), type (wick's name: "f32", "i8", ...), shape,
        offset (of the data in the file) and bytes."""
        i = c_int64()
        lib.wk_safetensors_find(self._handle(), name.encode(), byref(i))
        info = self._info(i.value)
        return {"name": info.name.decode(), "dtype": info.file_type_name.decode(),
                "type": lib.wk_file_type_name(info.type).decode(), "shape": tuple(info.shape[:info.rank]),
                "offset": info.offset, "bytes": info.bytes}

    def get_tensor(self, name, device="cpu", dtype=None):
        """The tensor called name on device (on the CPU a read-only view of the mapping where aligned);
        dtype: convert on load (wk_safetensors_load_as)."""
        if dtype is None:
            return call("safetensors_load", self._handle(), name.encode(), _device(device))
        return call("safetensors_load_as", self._handle(), name.encode(), _device(device), dtype_code(dtype))


def load_safetensors(path, device="cpu", names=None, dtype=None):
    """{name: Tensor} of every tensor (or of names), in the file's order; all or nothing."""
    with safe_open(path) as f:
        names = f.keys() if names is None else list(names)
        if dtype is not None:
            return {n: f.get_tensor(n, device, dtype) for n in names}
        outs = (c_void_p * max(len(names), 1))()
        lib.wk_safetensors_load_many(f._h, _c_strings(names), len(names), _device(device), outs)
        return {n: take(outs[i]) for i, n in enumerate(names)}


def save_safetensors(path, tensors, metadata=None):
    """Writes {name: Tensor or ndarray} and {str: str} metadata to path, atomically."""
    names = list(tensors)
    ts = [_tensor(tensors[n]) for n in names]
    meta = dict(metadata or {})
    handles = (c_void_p * max(len(ts), 1))(*[t._h for t in ts])
    lib.wk_safetensors_save(_path(path), len(ts), _c_strings(names), handles, len(meta), _c_strings(meta.keys()),
                            _c_strings(meta.values()))


def load_npy(path, device="cpu", dtype=None):
    if dtype is None:
        return call("npy_load", _path(path), _device(device))
    return call("npy_load_as", _path(path), _device(device), dtype_code(dtype))


def save_npy(path, t):
    lib.wk_npy_save(_path(path), _tensor(t))

