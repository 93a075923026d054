"""Finding and loading libwick, the ctypes prototypes of the functions the package calls, and errors.

libwick is found by, in order: the environment variable LIBWICK (a path), ctypes.util.find_library("wick")
(the system's loader paths, e.g. after `cmake --install`), then a libwick.so next to this package.
Every function returning a wk_status raises WickError on failure (ctypes errcheck), reading wk_last_error()
right after the failing call, on the same thread.
"""
import ctypes
import ctypes.util
import os
from ctypes import (POINTER, Structure, c_bool, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint,
                    c_uint32, c_uint64, c_void_p)


class WickError(Exception):
    """A wick call failed. .status is the status name ("WK_ERR_SHAPE", ...), .message wick's own text."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


def _find():
    path = os.environ.get("LIBWICK")
    if path:
        return path
    found = ctypes.util.find_library("wick")
    if found:
        return found
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libwick.so", "libwick.so.0", "libwick.dylib"):
        if os.path.exists(os.path.join(here, name)):
            return os.path.join(here, name)
    raise ImportError("wick: libwick not found: set LIBWICK to the path of libwick.so, or install the C "
                      "library (cmake --install) where the system's loader finds it")


lib = ctypes.CDLL(_find())
lib_path = lib._name

# ---------------------------------------------------------------- structs of wick.h
MAX_RANK = 8


class ConvParams(Structure):
    _fields_ = [("stride", c_int64 * 2), ("padding", c_int64 * 2), ("dilation", c_int64 * 2),
                ("output_padding", c_int64 * 2), ("groups", c_int64)]


class LinearParams(Structure):  # wk_linear_params
    _fields_ = [("norm", c_void_p), ("eps", c_double), ("bias", c_void_p), ("glu", c_bool), ("glu_kind", c_int),
                ("residual", c_void_p), ("rope_cos", c_void_p), ("rope_sin", c_void_p), ("rope_interleaved", c_bool),
                ("rope_cols", c_int64)]


class PoolParams(Structure):
    _fields_ = [("kernel", c_int64 * 2), ("stride", c_int64 * 2), ("padding", c_int64 * 2),
                ("ceil_mode", c_bool), ("count_include_pad", c_bool)]


class BackendInfo(Structure):
    _fields_ = [("name", c_char_p), ("available", c_bool), ("device_count", c_int), ("detail", c_char_p)]


class BuildInfo(Structure):
    _fields_ = [("version", c_char_p), ("build_type", c_char_p), ("options", c_char_p),
                ("cuda_targets", c_char_p), ("rocm_targets", c_char_p)]


class SafetensorsInfo(Structure):
    _fields_ = [("name", c_char_p), ("file_type_name", c_char_p), ("type", c_int), ("rank", c_int),
                ("shape", c_int64 * MAX_RANK), ("offset", c_uint64), ("bytes", c_uint64)]


class GGUFInfo(Structure):
    _fields_ = [("name", c_char_p), ("ggml_type", c_uint32), ("ggml_type_name", c_char_p), ("type", c_int),
                ("rank", c_int), ("ne", c_int64 * MAX_RANK), ("shape", c_int64 * MAX_RANK),
                ("offset", c_uint64), ("bytes", c_uint64)]


# ---------------------------------------------------------------- prototypes
def _errcheck(status, func, args):
    if status != 0:
        message = lib.wk_last_error().decode("utf-8", "replace")
        raise WickError(lib.wk_status_string(status).decode(), message)
    return status


def check(status):
    """Raises WickError for a failed status (for a wk_status obtained without the prototypes below)."""
    return _errcheck(status, None, None)


S = "status"          # returns a wk_status: checked
P = c_void_p          # an opaque wick object (wk_tensor *, wk_device *, files, values)
PP = POINTER(c_void_p)  # an out-parameter for one
I64P = POINTER(c_int64)
IP = POINTER(c_int)
CCP = POINTER(c_char_p)

_PROTOTYPES = {
    # errors, dtypes, devices, build
    "wk_status_string": (c_char_p, [c_int]),
    "wk_last_error": (c_char_p, []),
    "wk_dtype_size": (c_size_t, [c_int]),
    "wk_dtype_name": (c_char_p, [c_int]),
    "wk_dtype_from_name": (S, [c_char_p, IP]),
    "wk_dtype_block_size": (c_int64, [c_int]),
    "wk_dtype_block_bytes": (c_size_t, [c_int]),
    "wk_tensor_nbytes": (c_size_t, [P]),
    "wk_dequantize": (S, [P, c_int, PP]),
    "wk_quantize": (S, [P, c_int, PP]),
    "wk_matmul_q": (S, [P, P, PP]),
    "wk_linear": (S, [P, P, POINTER(LinearParams), PP]),
    "wk_index_select_dequant": (S, [P, P, c_int, PP]),
    "wk_device_get": (S, [c_char_p, PP]),
    "wk_device_name": (c_char_p, [P]),
    "wk_device_sync": (S, [P]),
    "wk_device_native_stream": (S, [P, POINTER(ctypes.c_size_t)]),
    "wk_backend_count": (c_int, []),
    "wk_backend_info_get": (S, [c_int, POINTER(BackendInfo)]),
    "wk_get_build_info": (None, [POINTER(BuildInfo)]),
    # tensors
    "wk_tensor_empty": (S, [P, c_int, c_int, I64P, PP]),
    "wk_tensor_from_host": (S, [P, c_int, c_int, I64P, c_void_p, PP]),
    "wk_tensor_to_host": (S, [P, c_void_p, c_size_t]),
    "wk_tensor_retain": (None, [P]),
    "wk_tensor_release": (None, [P]),
    "wk_tensor_dtype": (c_int, [P]),
    "wk_tensor_rank": (c_int, [P]),
    "wk_tensor_shape": (I64P, [P]),
    "wk_tensor_strides": (I64P, [P]),
    "wk_tensor_offset": (c_int64, [P]),
    "wk_tensor_numel": (c_int64, [P]),
    "wk_tensor_device": (P, [P]),
    "wk_tensor_is_contiguous": (c_bool, [P]),
    "wk_tensor_is_read_only": (c_bool, [P]),
    # streams, events, graphs (_streams.py), asynchronous copies
    "wk_stream_default": (P, [P]),
    "wk_stream_create": (S, [P, PP]),
    "wk_stream_from_native": (S, [P, c_size_t, PP]),
    "wk_stream_destroy": (S, [P]),
    "wk_stream_device": (P, [P]),
    "wk_stream_native": (c_size_t, [P]),
    "wk_stream_current": (P, [P]),
    "wk_stream_set_current": (S, [P, P]),
    "wk_stream_sync": (S, [P]),
    "wk_stream_query": (S, [P, POINTER(c_bool)]),
    "wk_stream_wait": (S, [P, P]),
    "wk_event_create": (S, [P, c_uint, PP]),
    "wk_event_destroy": (None, [P]),
    "wk_event_record": (S, [P, P]),
    "wk_event_sync": (S, [P]),
    "wk_event_query": (S, [P, POINTER(c_bool)]),
    "wk_event_elapsed_ms": (S, [P, P, POINTER(ctypes.c_float)]),
    "wk_stream_begin_capture": (S, [P]),
    "wk_stream_end_capture": (S, [P, PP]),
    "wk_graph_launch": (S, [P, P]),
    "wk_graph_destroy": (None, [P]),
    "wk_tensor_write_async": (S, [P, c_void_p, c_size_t]),
    "wk_tensor_to_host_async": (S, [P, c_void_p, c_size_t]),
    # views
    "wk_reshape": (S, [P, c_int, I64P, PP]),
    "wk_transpose": (S, [P, c_int, c_int, PP]),
    "wk_permute": (S, [P, IP, PP]),
    "wk_narrow": (S, [P, c_int, c_int64, c_int64, PP]),
    "wk_broadcast_to": (S, [P, c_int, I64P, PP]),
    "wk_squeeze": (S, [P, c_int, PP]),
    "wk_unsqueeze": (S, [P, c_int, PP]),
    "wk_flatten": (S, [P, c_int, c_int, PP]),
    "wk_as_strided": (S, [P, c_int, I64P, I64P, c_int64, PP]),
    # creation and transfer
    "wk_zeros": (S, [P, c_int, c_int, I64P, PP]),
    "wk_ones": (S, [P, c_int, c_int, I64P, PP]),
    "wk_full": (S, [P, c_int, c_int, I64P, c_double, PP]),
    "wk_fill": (S, [P, c_double]),
    "wk_arange": (S, [P, c_int, c_double, c_double, c_double, PP]),
    "wk_rand_uniform": (S, [P, c_int, c_int, I64P, c_uint64, c_double, c_double, PP]),
    "wk_rand_normal": (S, [P, c_int, c_int, I64P, c_uint64, c_double, c_double, PP]),
    "wk_contiguous": (S, [P, PP]),
    "wk_to_device": (S, [P, P, PP]),
    "wk_cast": (S, [P, c_int, PP]),
    "wk_copy2d": (S, [P, P, c_int64, c_int64, c_int64, c_int64, c_int64, c_int64]),
    "wk_copy_into": (S, [P, P]),
    "wk_slice_set": (S, [P, P, c_int, c_int64]),
    "wk_cat": (S, [PP, c_int, c_int, PP]),
    # element-wise, reductions, linear algebra
    "wk_unary_name": (c_char_p, [c_int]),
    "wk_unary": (S, [c_int, P, PP]),
    "wk_affine": (S, [P, c_double, c_double, PP]),
    "wk_powf": (S, [P, c_double, PP]),
    "wk_elu": (S, [P, c_double, PP]),
    "wk_leaky_relu": (S, [P, c_double, PP]),
    "wk_glu_name": (c_char_p, [c_int]),
    "wk_glu": (S, [c_int, P, PP]),
    "wk_tril": (S, [P, c_int64, PP]),
    "wk_triu": (S, [P, c_int64, PP]),
    "wk_masked_fill": (S, [P, P, c_double, PP]),
    "wk_clamp": (S, [P, c_double, c_double, PP]),
    "wk_binary": (S, [c_int, P, P, PP]),
    "wk_compare": (S, [c_int, P, P, PP]),
    "wk_where": (S, [P, P, P, PP]),
    "wk_reduce": (S, [c_int, P, IP, c_int, c_bool, PP]),
    "wk_argmin": (S, [P, c_int, c_bool, PP]),
    "wk_argmax": (S, [P, c_int, c_bool, PP]),
    "wk_softmax_last_dim": (S, [P, PP]),
    "wk_log_softmax_last_dim": (S, [P, PP]),
    "wk_rms_norm": (S, [P, P, c_double, PP]),
    "wk_add_rms_norm": (S, [P, P, P, c_double, PP, PP]),
    "wk_layer_norm": (S, [P, P, P, c_double, PP]),
    "wk_argsort": (S, [P, c_bool, PP]),
    "wk_sort": (S, [P, c_bool, PP, PP]),
    "wk_matmul_ex": (S, [P, P, c_uint, PP]),
    # convolution, pooling, resampling
    "wk_conv_params_default": (ConvParams, []),
    "wk_conv1d": (S, [P, P, P, POINTER(ConvParams), PP]),
    "wk_conv2d": (S, [P, P, P, POINTER(ConvParams), PP]),
    "wk_conv_transpose1d": (S, [P, P, P, POINTER(ConvParams), PP]),
    "wk_conv_transpose2d": (S, [P, P, P, POINTER(ConvParams), PP]),
    "wk_max_pool2d": (S, [P, POINTER(PoolParams), PP]),
    "wk_avg_pool2d": (S, [P, POINTER(PoolParams), PP]),
    "wk_upsample_nearest1d": (S, [P, c_int64, PP]),
    "wk_upsample_nearest2d": (S, [P, c_int64, c_int64, PP]),
    "wk_upsample_bilinear2d": (S, [P, c_int64, c_int64, c_bool, c_double, c_double, PP]),
    # indexing, transformer pieces
    "wk_index_select": (S, [P, c_int, P, PP]),
    "wk_gather": (S, [P, c_int, P, PP]),
    "wk_scatter": (S, [P, c_int, P, P, PP]),
    "wk_scatter_inplace": (S, [P, c_int, P, P]),
    "wk_scatter_add": (S, [P, c_int, P, P, PP]),
    "wk_scatter_add_inplace": (S, [P, c_int, P, P]),
    "wk_index_add": (S, [P, c_int, P, P, PP]),
    "wk_index_add_inplace": (S, [P, c_int, P, P]),
    "wk_rope": (S, [P, P, P, PP]),
    "wk_rope_i": (S, [P, P, P, PP]),
    "wk_rope_thd": (S, [P, P, P, PP]),
    # DLPack (struct pointers as void *: _dlpack.py casts them)
    "wk_to_dlpack": (S, [P, c_int64, PP]),
    "wk_to_dlpack_legacy": (S, [P, c_int64, PP]),
    "wk_from_dlpack": (S, [c_void_p, c_uint, PP]),
    "wk_from_dlpack_legacy": (S, [c_void_p, c_uint, PP]),
    # safetensors
    "wk_file_type_name": (c_char_p, [c_int]),
    "wk_safetensors_open": (S, [c_char_p, PP]),
    "wk_safetensors_close": (None, [P]),
    "wk_safetensors_count": (c_int64, [P]),
    "wk_safetensors_tensor_info_get": (S, [P, c_int64, POINTER(SafetensorsInfo)]),
    "wk_safetensors_find": (S, [P, c_char_p, I64P]),
    "wk_safetensors_metadata_count": (c_int64, [P]),
    "wk_safetensors_metadata_get": (S, [P, c_int64, CCP, CCP]),
    "wk_safetensors_load": (S, [P, c_char_p, P, PP]),
    "wk_safetensors_load_as": (S, [P, c_char_p, P, c_int, PP]),
    "wk_safetensors_load_many": (S, [P, CCP, c_int64, P, PP]),
    "wk_safetensors_save": (S, [c_char_p, c_int64, CCP, PP, c_int64, CCP, CCP]),
    # GGUF
    "wk_gguf_open": (S, [c_char_p, PP]),
    "wk_gguf_close": (None, [P]),
    "wk_gguf_version": (c_uint32, [P]),
    "wk_gguf_alignment": (c_uint32, [P]),
    "wk_gguf_metadata_count": (c_int64, [P]),
    "wk_gguf_metadata_get": (S, [P, c_int64, CCP, PP]),
    "wk_gguf_value_type": (c_int, [P]),
    "wk_gguf_value_int": (S, [P, I64P]),
    "wk_gguf_value_uint": (S, [P, POINTER(c_uint64)]),
    "wk_gguf_value_float": (S, [P, POINTER(c_double)]),
    "wk_gguf_value_bool": (S, [P, POINTER(c_bool)]),
    "wk_gguf_value_string": (S, [P, POINTER(c_void_p), POINTER(c_uint64)]),
    "wk_gguf_value_array": (S, [P, IP, POINTER(c_uint64)]),
    "wk_gguf_value_array_get": (S, [P, c_uint64, PP]),
    "wk_gguf_tensor_count": (c_int64, [P]),
    "wk_gguf_tensor_info_get": (S, [P, c_int64, POINTER(GGUFInfo)]),
    "wk_gguf_find": (S, [P, c_char_p, I64P]),
    "wk_gguf_load": (S, [P, c_char_p, P, PP]),
    "wk_gguf_load_as": (S, [P, c_char_p, P, c_int, PP]),
    "wk_gguf_load_raw": (S, [P, c_char_p, P, PP]),
    "wk_gguf_writer_new": (S, [PP]),
    "wk_gguf_writer_free": (None, [P]),
    "wk_gguf_writer_set_int": (S, [P, c_char_p, c_int, c_int64]),
    "wk_gguf_writer_set_uint": (S, [P, c_char_p, c_int, c_uint64]),
    "wk_gguf_writer_set_float": (S, [P, c_char_p, c_int, c_double]),
    "wk_gguf_writer_set_bool": (S, [P, c_char_p, c_bool]),
    "wk_gguf_writer_set_string": (S, [P, c_char_p, c_char_p, c_uint64]),
    "wk_gguf_writer_set_array": (S, [P, c_char_p, c_int, c_uint64, c_void_p, POINTER(c_uint64)]),
    "wk_gguf_writer_add_tensor": (S, [P, c_char_p, P]),
    "wk_gguf_writer_save": (S, [P, c_char_p]),
    # .npy
    "wk_npy_load": (S, [c_char_p, P, PP]),
    "wk_npy_load_as": (S, [c_char_p, P, c_int, PP]),
    "wk_npy_save": (S, [c_char_p, P]),
}

missing = []  # functions this libwick lacks (an older build): calling one raises WickError


def _absent(name):
    def stub(*args):
        raise WickError("WK_ERR_UNSUPPORTED", f"{name}: not exported by {lib_path}")
    return stub


for _name, (_res, _args) in _PROTOTYPES.items():
    try:
        _fn = getattr(lib, _name)
    except AttributeError:
        missing.append(_name)
        setattr(lib, _name, _absent(_name))
        continue
    _fn.argtypes = _args
    if _res == S:
        _fn.restype = c_int
        _fn.errcheck = _errcheck
    else:
        _fn.restype = _res


def out():
    """A fresh out-parameter for one wick object (pass it by ctypes.byref)."""
    return c_void_p()


class FileHandle:
    """An open wick file (self._h, a wk_* handle): close() releases it once through the wk_*_close function
    that the subclass's _close names; so do __del__ and the end of a with block. _handle() refuses a closed
    file with ValueError("<class name>: the file is closed")."""
    _close = None  # the C function's name, e.g. "wk_gguf_close"
    _h = None

    def close(self):
        if self._h:
            getattr(lib, self._close)(self._h)
            self._h = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._h:
            raise ValueError(f"{type(self).__name__}: the file is closed")
        return self._h


def i64_array(values):
    values = [int(v) for v in values]
    return (c_int64 * max(len(values), 1))(*values)


def device(name):
    """The wk_device * called name ("cpu", "cuda:0", ...); devices live until the process ends."""
    name = "cpu" if name is None else str(name)
    dev = _devices.get(name)
    if dev is None:
        h = out()
        lib.wk_device_get(name.encode(), ctypes.byref(h))
        dev = _devices[name] = h.value
    return dev


_devices = {}
