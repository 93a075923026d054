"""wick.Tensor (a wk_tensor * released by a finalizer), numpy conversion and DLPack exchange."""
import ctypes
import weakref
from ctypes import byref

import numpy as np

from . import _dlpack as dl
from ._lib import WickError, device as _device, i64_array, lib, out

DTYPES = ("u8", "u32", "i32", "i64", "f16", "bf16", "f32", "f64")  # wk_dtype order: the element dtypes,
QDTYPES = ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q8_k", "iq4_nl",
           "iq4_xs")  # then GGML's block-quantized ones
_ALL_DTYPES = DTYPES + QDTYPES
_NP_OF = {"u8": "uint8", "u32": "uint32", "i32": "int32", "i64": "int64", "f16": "float16", "f32": "float32",
          "f64": "float64"}
_WK_OF = {np.dtype(v): k for k, v in _NP_OF.items()}
_WK_OF[np.dtype(bool)] = "u8"
_DL_DEVICE = {"cpu": dl.kDLCPU, "cuda": dl.kDLCUDA, "rocm": dl.kDLROCM}


def _bfloat16():
    try:
        import ml_dtypes
    except ImportError:
        raise WickError("WK_ERR_DTYPE", "bf16 needs the ml_dtypes package for numpy") from None
    return np.dtype(ml_dtypes.bfloat16)


def dtype_code(name):
    """wk_dtype value of a dtype name ("f32", ...)."""
    try:
        return _ALL_DTYPES.index(str(name))
    except ValueError:
        raise WickError("WK_ERR_INVALID_ARGUMENT", f"unknown dtype {name!r}: one of {', '.join(_ALL_DTYPES)}") \
            from None


def numpy_dtype(name):
    return _bfloat16() if name == "bf16" else np.dtype(_NP_OF[name])


def wick_dtype(np_dtype):
    """The wick dtype name of a numpy dtype (bool as u8); WickError WK_ERR_DTYPE if none."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype in _WK_OF:
        return _WK_OF[np_dtype]
    if np_dtype.name == "bfloat16":
        return "bf16"
    raise WickError("WK_ERR_DTYPE", f"numpy dtype {np_dtype} has no wick dtype")


def take(handle):
    """A Tensor owning the reference handed back through an out-parameter."""
    t = Tensor.__new__(Tensor)
    t._h = handle.value if isinstance(handle, ctypes.c_void_p) else handle
    weakref.finalize(t, lib.wk_tensor_release, t._h)
    return t


def call(fname, *args):
    """Runs wk_<fname>(args..., &out) and returns the result as a Tensor."""
    h = out()
    getattr(lib, "wk_" + fname)(*args, byref(h))
    return take(h)


class Tensor:
    """A wick tensor: a strided view of storage on one device. Made by wick's functions, never directly."""
    __slots__ = ("_h", "__weakref__")

    @property
    def _as_parameter_(self):  # ctypes passes a Tensor argument as its handle, keeping it alive meanwhile
        return self._h

    def __init__(self):
        raise TypeError("wick.Tensor is made by wick's functions (wick.from_numpy, wick.zeros, ...)")

    # ---- metadata
    @property
    def ndim(self):
        return lib.wk_tensor_rank(self._h)

    @property
    def shape(self):
        return tuple(lib.wk_tensor_shape(self._h)[:self.ndim])

    @property
    def strides(self):
        """Strides in elements."""
        return tuple(lib.wk_tensor_strides(self._h)[:self.ndim])

    @property
    def offset(self):
        return lib.wk_tensor_offset(self._h)

    @property
    def numel(self):
        return lib.wk_tensor_numel(self._h)

    @property
    def dtype(self):
        return _ALL_DTYPES[lib.wk_tensor_dtype(self._h)]

    @property
    def device(self):
        return lib.wk_device_name(lib.wk_tensor_device(self._h)).decode()

    @property
    def is_contiguous(self):
        return lib.wk_tensor_is_contiguous(self._h)

    @property
    def is_read_only(self):
        return lib.wk_tensor_is_read_only(self._h)

    def __repr__(self):
        ro = ", read_only" if self.is_read_only else ""
        return f"wick.Tensor(shape={self.shape}, dtype={self.dtype}, device={self.device}{ro})"

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    # ---- conversion
    def numpy(self):
        """CPU: a zero-copy view (read-only for read-only tensors). GPU: a copy. A block-quantized tensor gives a
        copy of its raw blocks, uint8 of shape (leading dims, bytes a row)."""
        if self.dtype in QDTYPES:
            code = dtype_code(self.dtype)
            row = self.shape[-1] // lib.wk_dtype_block_size(code) * lib.wk_dtype_block_bytes(code)
            a = np.empty(self.shape[:-1] + (row,), np.uint8)
            lib.wk_tensor_to_host(self._h, a.ctypes.data, a.nbytes)
            return a
        if self.device != "cpu":
            a = np.empty(self.shape, numpy_dtype(self.dtype))
            lib.wk_tensor_to_host(self._h, a.ctypes.data, a.nbytes)
            return a
        if self.dtype == "bf16":  # numpy has no DLPack bfloat: the same bytes as u16, viewed as ml_dtypes'
            bf16 = _bfloat16()
            return np.from_dlpack(_AsU16(self)).view(bf16)
        return np.from_dlpack(self)

    # ---- asynchronous copies (queued on the calling thread's current stream of the tensor's device)
    def _host_array(self, a, what, writable):
        if self.dtype in QDTYPES:
            want = np.dtype(np.uint8)
        else:
            want = numpy_dtype(self.dtype)
        if not isinstance(a, np.ndarray) or a.dtype != want or not a.flags.c_contiguous or \
                (writable and not a.flags.writeable):
            kind = "a writable" if writable else "a"
            raise WickError("WK_ERR_INVALID_ARGUMENT", f"{what}: the host buffer must be {kind} C-contiguous numpy "
                            f"array of {want} (got {type(a).__name__}"
                            f"{' of ' + str(a.dtype) if isinstance(a, np.ndarray) else ''})")
        return a

    def write_async(self, a):
        """Queues a copy of the numpy array a (the tensor's dtype, C-contiguous, exactly its bytes) into this
        contiguous tensor and returns. a must stay alive and unchanged until the stream has passed the copy
        (Stream.sync, or an Event recorded after it): the caller keeps the reference; wick does not."""
        a = self._host_array(a, "write_async", False)
        lib.wk_tensor_write_async(self, a.ctypes.data, a.nbytes)

    def to_host_async(self, a=None):
        """Queues a copy of the tensor into the numpy array a (a new one of its shape and dtype when None; a
        block-quantized tensor's raw blocks as uint8) and returns a. Read a only after the stream has passed the
        copy (Stream.sync, or an Event recorded after it); keep it alive until then."""
        if a is None:
            if self.dtype in QDTYPES:
                a = np.empty(lib.wk_tensor_nbytes(self), np.uint8)
            else:
                a = np.empty(self.shape, numpy_dtype(self.dtype))
        a = self._host_array(a, "to_host_async", True)
        lib.wk_tensor_to_host_async(self, a.ctypes.data, a.nbytes)
        return a

    def to(self, device):
        return call("to_device", self._h, _device(device))

    def contiguous(self):
        return call("contiguous", self._h)

    def cast(self, dtype):
        return call("cast", self._h, dtype_code(dtype))

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return call("reshape", self._h, len(shape), i64_array(shape))

    @property
    def T(self):
        return call("transpose", self._h, -2, -1)

    # ---- DLPack
    def __dlpack_device__(self):
        name, _, ordinal = self.device.partition(":")
        return (_DL_DEVICE[name], int(ordinal or 0))

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self._export(stream, max_version, dl_device, copy, False)

    def _export(self, stream, max_version, dl_device, copy, as_u16):
        src, copied = self, False
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            if copy is False or tuple(dl_device) != (dl.kDLCPU, 0):
                raise BufferError(f"__dlpack__: the tensor is on {self.device}; it cannot be exported to DLPack "
                                  f"device {tuple(dl_device)}{' without a copy' if copy is False else ''}")
            src, copied = self.to("cpu"), True
        elif copy:
            src, copied = self.contiguous(), True
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        if not versioned and src.is_read_only:  # as numpy: the legacy struct cannot say read-only
            raise BufferError("__dlpack__: a read-only tensor cannot be exported as a legacy (pre-1.0) DLPack "
                              "capsule, which has no read-only flag; ask for max_version >= (1, 0) or copy=True")
        kind = self.__dlpack_device__()[0]
        if stream is None:
            stream = 1 if kind == dl.kDLCUDA else 0 if kind == dl.kDLROCM else -1
        h = out()
        (lib.wk_to_dlpack if versioned else lib.wk_to_dlpack_legacy)(src, int(stream), byref(h))
        cap = dl.make_capsule(h.value, versioned)  # owns the struct from here on
        if as_u16:  # kDLUInt, 16 bits: the struct is wick's own copy of the metadata
            dl.dl_tensor(h.value, versioned)[0].dtype.code = 1
        if versioned and copied:
            ctypes.cast(h.value, ctypes.POINTER(dl.DLManagedTensorVersioned)).contents.flags |= dl.FLAG_IS_COPIED
        return cap

    # ---- operators (wick.h's element-wise ops; a number, list or array operand takes the tensor's dtype)
    def _scalar(self, v):
        if isinstance(v, Tensor):
            return v
        if isinstance(v, (int, float, bool, np.number, np.bool_)):
            return call("full", _device(self.device), dtype_code(self.dtype), 0, None, float(v))
        return from_numpy(np.asarray(v, numpy_dtype(self.dtype)), self.device)

    def _bin(self, op, other, swap=False):
        other = self._scalar(other)
        a, b = (other, self) if swap else (self, other)
        return call("binary", op, a, b)

    def _cmp(self, op, other):
        return call("compare", op, self, self._scalar(other))

    __add__ = lambda s, o: s._bin(0, o)
    __radd__ = lambda s, o: s._bin(0, o, True)
    __sub__ = lambda s, o: s._bin(1, o)
    __rsub__ = lambda s, o: s._bin(1, o, True)
    __mul__ = lambda s, o: s._bin(2, o)
    __rmul__ = lambda s, o: s._bin(2, o, True)
    __truediv__ = lambda s, o: s._bin(3, o)
    __rtruediv__ = lambda s, o: s._bin(3, o, True)
    __matmul__ = lambda s, o: call("matmul_ex", s, s._scalar(o), 0)
    __eq__ = lambda s, o: s._cmp(0, o)
    __ne__ = lambda s, o: s._cmp(1, o)
    __lt__ = lambda s, o: s._cmp(2, o)
    __le__ = lambda s, o: s._cmp(3, o)
    __gt__ = lambda s, o: s._cmp(4, o)
    __ge__ = lambda s, o: s._cmp(5, o)
    __neg__ = lambda s: call("unary", 17, s)
    __hash__ = object.__hash__


class _AsU16:
    """Exports a bf16 tensor as u16 (numpy's DLPack import has no bfloat16)."""

    def __init__(self, t):
        self.t = t

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self.t._export(stream, max_version, dl_device, copy, True)


def from_numpy(a, device="cpu"):
    """A new wick tensor holding a copy of a (bool as u8, ml_dtypes.bfloat16 as bf16)."""
    a = np.asarray(a)
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    dt = wick_dtype(a.dtype)
    return call("tensor_from_host", _device(device), dtype_code(dt), a.ndim, i64_array(a.shape),
                a.ctypes.data)


def _producer_stream(dev_type, dev_id):
    """The stream a GPU producer orders its work before: wick's own stream on that device."""
    name = {dl.kDLCUDA: "cuda", dl.kDLROCM: "rocm"}.get(dev_type)
    if name is None:
        return None
    s = ctypes.c_size_t()
    lib.wk_device_native_stream(_device(f"{name}:{dev_id}"), byref(s))
    if s.value == 0 and dev_type == dl.kDLCUDA:
        return 1  # the legacy default stream (0 is ambiguous for CUDA in the protocol)
    return s.value


def from_dlpack(obj, *, device=None, copy=None):
    """A wick tensor sharing obj's memory (an object with __dlpack__, or a DLPack capsule).

    copy=None or False: never a copy; a layout wick's views cannot hold (negative strides) is a WickError.
    copy=True: always a copy (wk_from_dlpack with WK_DLPACK_ALLOW_COPY, then a contiguous copy unless that
    import already copied). device: a wick device name; a different device than the producer's is a copy
    (BufferError with copy=False)."""
    cap = obj
    if hasattr(obj, "__dlpack__"):
        dev_type, dev_id = obj.__dlpack_device__()
        stream = _producer_stream(int(dev_type), int(dev_id))
        try:
            cap = obj.__dlpack__(stream=stream, max_version=dl.DLPACK_VERSION)
        except TypeError:  # a producer older than the max_version keyword
            cap = obj.__dlpack__(stream=stream)
    ptr, versioned = dl.open_capsule(cap)
    tensor, _ = dl.dl_tensor(ptr, versioned)
    copied = bool(copy) and dl.has_negative_strides(tensor)
    h = out()
    flags = dl.ALLOW_COPY if copy else 0
    (lib.wk_from_dlpack if versioned else lib.wk_from_dlpack_legacy)(ptr, flags, byref(h))
    dl.mark_used(cap, versioned)  # only now: on failure the capsule still owns (and frees) the tensor
    t = take(h)
    if device is not None and str(device) != t.device:
        if copy is False:
            raise BufferError(f"from_dlpack: the tensor is on {t.device}, not {device}, and copy=False")
        return t.to(device)
    return t.contiguous() if copy and not copied else t


def from_blocks(a, qtype, shape, device="cpu"):
    """A block-quantized tensor of qtype ("q4_0", ...) and shape (in elements) holding a copy of the raw blocks a
    (bytes-like or a uint8 array of wk_tensor_nbytes bytes)."""
    a = np.ascontiguousarray(np.frombuffer(a, np.uint8) if isinstance(a, (bytes, bytearray)) else a, np.uint8)
    code = dtype_code(qtype)
    shape = tuple(int(s) for s in shape)
    need = int(np.prod(shape, dtype=np.int64)) // max(lib.wk_dtype_block_size(code), 1) * \
        lib.wk_dtype_block_bytes(code)
    if a.nbytes != need:
        raise WickError("WK_ERR_INVALID_ARGUMENT", f"from_blocks: {a.nbytes} bytes for {qtype} {shape}, which "
                        f"takes {need}")
    return call("tensor_from_host", _device(device), code, len(shape), i64_array(shape), a.ctypes.data)
