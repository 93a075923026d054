"""GGUF through wick's reader and writer (wk_gguf_*): GGUFFile, load_gguf, GGUFWriter."""
import ctypes
import os
from ctypes import byref, c_bool, c_double, c_int, c_int64, c_uint64, c_void_p

from ._lib import FileHandle, GGUFInfo, WickError, device as _device, lib, out
from ._tensor import QDTYPES, Tensor, call, dtype_code, from_numpy

# The GGUF metadata value types (wk_gguf_type), and the C type of each scalar one.
TYPES = ("uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array",
         "uint64", "int64", "float64")
_CTYPES = {"uint8": ctypes.c_uint8, "int8": ctypes.c_int8, "uint16": ctypes.c_uint16, "int16": ctypes.c_int16,
           "uint32": ctypes.c_uint32, "int32": ctypes.c_int32, "float32": ctypes.c_float, "bool": ctypes.c_uint8,
           "uint64": ctypes.c_uint64, "int64": ctypes.c_int64, "float64": ctypes.c_double}


def _value(v):
    """The Python value of a wk_gguf_value *: int, float, bool, str (utf-8, surrogateescape) or list."""
    kind = TYPES[lib.wk_gguf_value_type(v)]
    if kind.startswith("uint"):
        r = c_uint64()
        lib.wk_gguf_value_uint(v, byref(r))
    elif kind.startswith("int"):
        r = c_int64()
        lib.wk_gguf_value_int(v, byref(r))
    elif kind.startswith("float"):
        r = c_double()
        lib.wk_gguf_value_float(v, byref(r))
    elif kind == "bool":
        r = c_bool()
        lib.wk_gguf_value_bool(v, byref(r))
    elif kind == "string":
        s, n = c_void_p(), c_uint64()
        lib.wk_gguf_value_string(v, byref(s), byref(n))
        return ctypes.string_at(s, n.value).decode("utf-8", "surrogateescape") if n.value else ""
    else:
        et, n = c_int(), c_uint64()
        lib.wk_gguf_value_array(v, byref(et), byref(n))
        items = []
        for i in range(n.value):
            e = out()
            lib.wk_gguf_value_array_get(v, i, byref(e))
            items.append(_value(e.value))
        return items
    return r.value


class GGUFFile(FileHandle):
    """An open GGUF file: version, alignment, metadata (dict), tensor_infos (list of dicts), load, load_raw."""

    _close = "wk_gguf_close"

    def __init__(self, path):
        self._h = None
        h = out()
        lib.wk_gguf_open(os.fsencode(path), byref(h))
        self._h = h.value
        self.version = lib.wk_gguf_version(self._h)
        self.alignment = lib.wk_gguf_alignment(self._h)
        self.metadata = {}
        for i in range(lib.wk_gguf_metadata_count(self._h)):
            k, v = ctypes.c_char_p(), out()
            lib.wk_gguf_metadata_get(self._h, i, byref(k), byref(v))
            self.metadata[k.value.decode("utf-8", "surrogateescape")] = _value(v.value)
        self.tensor_infos = [self._info(i) for i in range(lib.wk_gguf_tensor_count(self._h))]

    def _info(self, i):
        info = GGUFInfo()
        lib.wk_gguf_tensor_info_get(self._h, i, byref(info))
        return {"name": info.name.decode("utf-8", "surrogateescape"), "ggml_type": info.ggml_type,
                "ggml_type_name": info.ggml_type_name.decode(), "type": lib.wk_file_type_name(info.type).decode(),
                "ne": tuple(info.ne[:info.rank]), "shape": tuple(info.shape[:info.rank]), "offset": info.offset,
                "bytes": info.bytes}

    def load(self, name, device="cpu", dtype=None):
        """A tensor of a wick dtype (dtype: convert on load, wk_gguf_load_as)."""
        key = os.fsencode(name)
        if dtype is None:
            return call("gguf_load", self._handle(), key, _device(device))
        return call("gguf_load_as", self._handle(), key, _device(device), dtype_code(dtype))

    def load_raw(self, name, device="cpu"):
        """Any tensor's bytes as u8 of shape (rows, bytes a row)."""
        return call("gguf_load_raw", self._handle(), os.fsencode(name), _device(device))


def load_gguf(path, device="cpu"):
    """(metadata, {name: Tensor}): tensors of wick dtypes as such (the GGML block types wick has as its
    block-quantized dtypes, q4_0 ...), i8/i16 converted to i32, the other GGML block types as raw u8 (rows, bytes a
    row) tensors (GGUFFile.tensor_infos says which type each is)."""
    with GGUFFile(path) as f:
        tensors = {}
        for info in f.tensor_infos:
            name = info["name"]
            if info["type"] == "quantized" and info["ggml_type_name"].lower() not in QDTYPES:
                tensors[name] = f.load_raw(name, device)
            elif info["type"] in ("i8", "i16"):
                tensors[name] = f.load(name, device, "i32")
            else:
                tensors[name] = f.load(name, device)
        return f.metadata, tensors


class GGUFWriter:
    """Metadata (add_<type>(key, value), add_string, add_array) and tensors (add_tensor), then save(path):
    one atomic write of a GGUF v3 file."""

    def __init__(self):
        self._h = None
        h = out()
        lib.wk_gguf_writer_new(byref(h))
        self._h = h.value

    def __del__(self):
        if self._h:
            lib.wk_gguf_writer_free(self._h)
            self._h = None

    def _scalar(self, key, kind, value):
        k, t = key.encode(), TYPES.index(kind)
        if kind == "bool":
            lib.wk_gguf_writer_set_bool(self._h, k, bool(value))
        elif kind.startswith("float"):
            lib.wk_gguf_writer_set_float(self._h, k, t, float(value))
        elif kind.startswith("uint"):
            lib.wk_gguf_writer_set_uint(self._h, k, t, int(value))
        else:
            lib.wk_gguf_writer_set_int(self._h, k, t, int(value))

    def add_string(self, key, value):
        b = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else bytes(value)
        lib.wk_gguf_writer_set_string(self._h, key.encode(), b, len(b))

    def add_array(self, key, values, elem_type):
        """values: numbers/bools of elem_type ("uint8" ... "float64", "bool"), or strings ("string")."""
        values = list(values)
        n, t = len(values), TYPES.index(elem_type)
        if elem_type == "string":
            bs = [v.encode("utf-8", "surrogateescape") if isinstance(v, str) else bytes(v) for v in values]
            ptrs = (ctypes.c_char_p * max(n, 1))(*bs)
            lens = (c_uint64 * max(n, 1))(*[len(b) for b in bs])
            lib.wk_gguf_writer_set_array(self._h, key.encode(), t, n, ptrs, lens)
            return
        if elem_type not in _CTYPES:
            raise WickError("WK_ERR_INVALID_ARGUMENT", f"gguf writer: {elem_type!r} is no array element type")
        arr = (_CTYPES[elem_type] * max(n, 1))(*values)
        lib.wk_gguf_writer_set_array(self._h, key.encode(), t, n, arr, None)

    def add_tensor(self, name, t):
        t = t if isinstance(t, Tensor) else from_numpy(t)
        lib.wk_gguf_writer_add_tensor(self._h, os.fsencode(name), t._h)

    def save(self, path):
        lib.wk_gguf_writer_save(self._h, os.fsencode(path))


def _adder(kind):
    def add(self, key, value):
        self._scalar(key, kind, value)
    add.__name__ = f"add_{kind}"
    add.__doc__ = f"metadata key = value, GGUF type {kind}"
    return add


for _kind in _CTYPES:
    setattr(GGUFWriter, f"add_{_kind}", _adder(_kind))
