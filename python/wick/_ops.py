"""The ops of wick.h as functions. The element-wise, comparison and reduction families are generated from
the tables below; arguments are Tensors (a numpy array is copied in with from_numpy), dims may be negative."""
import ctypes
from ctypes import byref

import numpy as np

from ._lib import LinearParams, PoolParams, device as _device, i64_array, lib, out
from ._tensor import Tensor, call, dtype_code, from_numpy, take


def _names(fn):
    names = []  # enum order, the names wick gives them (wk_unary_name, wk_glu_name), up to the first "invalid"
    while (name := fn(len(names)).decode()) != "invalid":
        names.append(name)
    return tuple(names)


UNARY = _names(lib.wk_unary_name)
GLU = _names(lib.wk_glu_name)                                 # wk_glu_kind order: glu, swiglu, geglu, geglu_tanh
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")  # wk_binary_op order
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")                # wk_compare_op order
REDUCE = ("sum", "min", "max", "mean")                        # wk_reduce_op order


def _t(x, like=None):
    """x as a Tensor: a Tensor itself, a numpy array copied in (to like's device), None stays None."""
    if x is None or isinstance(x, Tensor):
        return x
    return from_numpy(np.asarray(x), like.device if isinstance(like, Tensor) else "cpu")


def _make_unary(op, name):
    def f(x):
        return call("unary", op, _t(x))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"wk_unary(WK_UNARY_{name.upper()}, x)"
    return f


def _make_binary(kind, op, name):
    def f(a, b):
        a = _t(a)
        return call(kind, op, a, a._scalar(b))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"wk_{kind}({name}, a, b) with broadcasting; b may be a Python number"
    return f


def _dims(dims):
    if dims is None:
        return None, 0
    dims = [dims] if isinstance(dims, int) else list(dims)
    return (ctypes.c_int * max(len(dims), 1))(*dims), len(dims)


def _make_reduce(op, name):
    def f(x, dims=None, keepdim=False):
        arr, n = _dims(dims)
        return call("reduce", op, _t(x), arr, n, bool(keepdim))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"wk_reduce({name}) over dims (an int or a sequence; None: every dim)"
    return f


def generated():
    """name -> function for the table-made ops."""
    fns = {n: _make_unary(i, n) for i, n in enumerate(UNARY)}
    fns.update({n: _make_binary("binary", i, n) for i, n in enumerate(BINARY)})
    fns.update({n: _make_binary("compare", i, n) for i, n in enumerate(COMPARE)})
    fns.update({n: _make_reduce(i, n) for i, n in enumerate(REDUCE)})
    return fns


# ---------------------------------------------------------------- element-wise with parameters
def affine(x, mul=1.0, add=0.0): return call("affine", _t(x), float(mul), float(add))
def powf(x, e): return call("powf", _t(x), float(e))
def elu(x, alpha=1.0): return call("elu", _t(x), float(alpha))
def clamp(x, lo, hi): return call("clamp", _t(x), float(lo), float(hi))
def leaky_relu(x, negative_slope=0.01): return call("leaky_relu", _t(x), float(negative_slope))


def glu(x, kind="glu"):
    """wk_glu over the halves (a, b) of x's last dim: kind "glu" a*sigmoid(b), "swiglu" silu(a)*b, "geglu"
    gelu_erf(a)*b, "geglu_tanh" gelu(a)*b."""
    if kind not in GLU:
        raise ValueError(f"glu kind {kind!r}: one of {GLU}")
    return call("glu", GLU.index(kind), _t(x))


def tril(x, diagonal=0): return call("tril", _t(x), int(diagonal))
def triu(x, diagonal=0): return call("triu", _t(x), int(diagonal))


def masked_fill(x, mask, value):
    """x with value where mask (u8, or a numpy bool/int array) is non-zero; mask broadcasts to x's shape."""
    x = _t(x)
    if not isinstance(mask, Tensor):
        mask = from_numpy(np.asarray(mask).astype(np.uint8), x.device)
    return call("masked_fill", x, mask, float(value))
def where(cond, t, f): return call("where", _t(cond), _t(t), _t(f, t))


# ---------------------------------------------------------------- reductions, norms, sorting
def argmin(x, dim=-1, keepdim=False): return call("argmin", _t(x), dim, bool(keepdim))
def argmax(x, dim=-1, keepdim=False): return call("argmax", _t(x), dim, bool(keepdim))
def softmax(x): return call("softmax_last_dim", _t(x))
def log_softmax(x): return call("log_softmax_last_dim", _t(x))
def rms_norm(x, w, eps=1e-6): return call("rms_norm", _t(x), _t(w, x), float(eps))
def layer_norm(x, w=None, b=None, eps=1e-5): return call("layer_norm", _t(x), _t(w, x), _t(b, x), float(eps))
def argsort(x, descending=False): return call("argsort", _t(x), bool(descending))


def add_rms_norm(x, r, w, eps=1e-6):
    """(sum, out): sum = x + r rounded to x's dtype, out = rms_norm(sum, w, eps), in one pass."""
    s, o = out(), out()
    lib.wk_add_rms_norm(_t(x), _t(r, x), _t(w, x), float(eps), byref(s), byref(o))
    return take(s), take(o)


def sort(x, descending=False):
    """(values, indices) along the last dim, stable."""
    v, i = out(), out()
    lib.wk_sort(_t(x), bool(descending), byref(v), byref(i))
    return take(v), take(i)


def matmul(a, b, allow_tf32=False):
    return call("matmul_ex", _t(a), _t(b, a), 1 if allow_tf32 else 0)


# ---------------------------------------------------------------- convolution, pooling, resampling
def _pair(v):
    return (int(v), int(v)) if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)


def _conv(name, x, w, bias, stride, padding, dilation, groups, output_padding):
    p = lib.wk_conv_params_default()
    p.stride[:], p.padding[:], p.dilation[:] = _pair(stride), _pair(padding), _pair(dilation)
    p.output_padding[:], p.groups = _pair(output_padding), int(groups)
    return call(name, _t(x), _t(w, x), _t(bias, x), byref(p))


def conv1d(x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1):
    return _conv("conv1d", x, w, bias, stride, padding, dilation, groups, 0)


def conv2d(x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1):
    return _conv("conv2d", x, w, bias, stride, padding, dilation, groups, 0)


def conv_transpose1d(x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1, output_padding=0):
    return _conv("conv_transpose1d", x, w, bias, stride, padding, dilation, groups, output_padding)


def conv_transpose2d(x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1, output_padding=0):
    return _conv("conv_transpose2d", x, w, bias, stride, padding, dilation, groups, output_padding)


def _pool(name, x, kernel, stride, padding, ceil_mode, count_include_pad):
    p = PoolParams(kernel=_pair(kernel), stride=_pair(kernel if stride is None else stride),
                   padding=_pair(padding), ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad))
    return call(name, _t(x), byref(p))


def max_pool2d(x, kernel, stride=None, padding=0, ceil_mode=False):
    return _pool("max_pool2d", x, kernel, stride, padding, ceil_mode, False)


def avg_pool2d(x, kernel, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _pool("avg_pool2d", x, kernel, stride, padding, ceil_mode, count_include_pad)


def upsample_nearest1d(x, size): return call("upsample_nearest1d", _t(x), int(size))
def upsample_nearest2d(x, size): return call("upsample_nearest2d", _t(x), *_pair(size))


def upsample_bilinear2d(x, size, align_corners=False, scale_factor=None):
    sh, sw = (0.0, 0.0) if scale_factor is None else _pair_f(scale_factor)
    return call("upsample_bilinear2d", _t(x), *_pair(size), bool(align_corners), sh, sw)


def _pair_f(v):
    return (float(v), float(v)) if isinstance(v, (int, float)) else tuple(float(x) for x in v)


# ---------------------------------------------------------------- indexing, transformer pieces
def index_select(x, dim, ids): return call("index_select", _t(x), dim, _t(ids, x))


def index_select_dequant(x, ids, dtype="f32"):
    """Rows ids of the block-quantized table x, dequantized to dtype (f32, f16, bf16)."""
    return call("index_select_dequant", x, _t(ids, x), dtype_code(dtype))


def dequantize(x, dtype="f32"):
    """The block-quantized x as dtype (f32, f16, bf16), bit-exact with gguf-py's gguf.quants.dequantize."""
    return call("dequantize", x, dtype_code(dtype))


def matmul_q(x, w):
    """x (..., K) f32/f16/bf16 @ w^T with w (N, K) block-quantized: a linear layer on GGUF weights, in x's dtype."""
    return call("matmul_q", _t(x), w)


def linear(x, w, norm=None, eps=1e-6, bias=None, glu=None, residual=None, rope=None, rope_interleaved=False,
           rope_cols=0):
    """wk_linear: residual + glu(rope(rms_norm(x, norm, eps) @ w^T + bias)), each step optional (None: left out);
    w (N, K) of x's dtype or block-quantized; glu one of GLU, over the product's halves; rope (cos, sin), each
    (T, D/2): the first rope_cols columns (0: all) as heads of D rotated as wick.rope (halves) or, with
    rope_interleaved, wick.rope_i. One kernel for one row of x on a GPU."""
    if glu is not None and glu not in GLU:
        raise ValueError(f"glu kind {glu!r}: one of {GLU}")
    x = _t(x)
    cos, sin = (None, None) if rope is None else rope
    norm, bias, residual, cos, sin = (_t(t, x) for t in (norm, bias, residual, cos, sin))  # held while the call runs
    h = [None if t is None else t._h for t in (norm, bias, residual, cos, sin)]  # (a Tensor's truth is its length)
    p = LinearParams(norm=h[0], eps=float(eps), bias=h[1], glu=glu is not None,
                     glu_kind=GLU.index(glu) if glu is not None else 0, residual=h[2], rope_cos=h[3], rope_sin=h[4],
                     rope_interleaved=bool(rope_interleaved), rope_cols=int(rope_cols))
    return call("linear", x, _t(w, x), byref(p))


def quantize(x, qtype):
    """x (f32, f16, bf16) as the block type qtype ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q4_k", "q5_k",
    "q6_k")."""
    return call("quantize", _t(x), dtype_code(qtype))
def gather(x, dim, ids): return call("gather", _t(x), dim, _t(ids, x))


def _scatter_like(name, x, dim, ids, src, inplace):
    if inplace:
        getattr(lib, f"wk_{name}_inplace")(x, dim, _t(ids, x), _t(src, x))
        return x
    return call(name, _t(x), dim, _t(ids, x), _t(src, x))


def scatter(x, dim, ids, src, inplace=False): return _scatter_like("scatter", x, dim, ids, src, inplace)
def scatter_add(x, dim, ids, src, inplace=False): return _scatter_like("scatter_add", x, dim, ids, src, inplace)
def index_add(x, dim, ids, src, inplace=False): return _scatter_like("index_add", x, dim, ids, src, inplace)
def rope(x, cos, sin): return call("rope", _t(x), _t(cos, x), _t(sin, x))
def rope_i(x, cos, sin): return call("rope_i", _t(x), _t(cos, x), _t(sin, x))
def rope_thd(x, cos, sin): return call("rope_thd", _t(x), _t(cos, x), _t(sin, x))


# ---------------------------------------------------------------- views
def reshape(x, shape): return call("reshape", _t(x), len(shape), i64_array(shape))
def transpose(x, dim0, dim1): return call("transpose", _t(x), dim0, dim1)
def narrow(x, dim, start, length): return call("narrow", _t(x), dim, start, length)
def broadcast_to(x, shape): return call("broadcast_to", _t(x), len(shape), i64_array(shape))
def squeeze(x, dim): return call("squeeze", _t(x), dim)
def unsqueeze(x, dim): return call("unsqueeze", _t(x), dim)
def flatten(x, start_dim=0, end_dim=-1): return call("flatten", _t(x), start_dim, end_dim)


def permute(x, perm):
    x = _t(x)
    if len(perm) != x.ndim:  # wk_permute reads rank entries
        from ._lib import WickError
        raise WickError("WK_ERR_SHAPE", f"permute: {len(perm)} dims given for a tensor of rank {x.ndim}")
    return call("permute", x, (ctypes.c_int * max(len(perm), 1))(*perm))


def as_strided(x, shape, strides, offset=0):
    return call("as_strided", _t(x), len(shape), i64_array(shape), i64_array(strides), int(offset))


# ---------------------------------------------------------------- creation, transfer, in place
def _shape(shape):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return len(shape), i64_array(shape)


def empty(shape, dtype="f32", device="cpu"):
    return call("tensor_empty", _device(device), dtype_code(dtype), *_shape(shape))


def zeros(shape, dtype="f32", device="cpu"):
    return call("zeros", _device(device), dtype_code(dtype), *_shape(shape))


def ones(shape, dtype="f32", device="cpu"):
    return call("ones", _device(device), dtype_code(dtype), *_shape(shape))


def full(shape, value, dtype="f32", device="cpu"):
    return call("full", _device(device), dtype_code(dtype), *_shape(shape), float(value))


def arange(start, end=None, step=1, dtype=None, device="cpu"):
    """arange(end) or arange(start, end, step); dtype defaults to i64 for ints, else f32."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        dtype = "i64" if all(isinstance(v, (int, np.integer)) for v in (start, end, step)) else "f32"
    return call("arange", _device(device), dtype_code(dtype), float(start), float(end), float(step))


def rand_uniform(shape, seed=0, lo=0.0, hi=1.0, dtype="f32", device="cpu"):
    return call("rand_uniform", _device(device), dtype_code(dtype), *_shape(shape), int(seed), float(lo), float(hi))


def rand_normal(shape, seed=0, mean=0.0, std=1.0, dtype="f32", device="cpu"):
    return call("rand_normal", _device(device), dtype_code(dtype), *_shape(shape), int(seed), float(mean),
                float(std))


def cat(tensors, dim=0):
    ts = [_t(t) for t in tensors]
    arr = (ctypes.c_void_p * max(len(ts), 1))(*[t._h for t in ts])
    return call("cat", arr, len(ts), dim)


def cast(x, dtype): return call("cast", _t(x), dtype_code(dtype))
def contiguous(x): return call("contiguous", _t(x))
def to_device(x, device): return call("to_device", _t(x), _device(device))


def fill(x, value):
    lib.wk_fill(x, float(value))
    return x


def copy_into(dst, src):
    lib.wk_copy_into(dst, _t(src, dst))
    return dst


def slice_set(dst, src, dim, start):
    lib.wk_slice_set(dst, _t(src, dst), dim, start)
    return dst


def copy2d(src, dst, rows, cols, src_ld, dst_ld, src_offset=0, dst_offset=0):
    lib.wk_copy2d(_t(src), dst, rows, cols, src_ld, dst_ld, src_offset, dst_offset)
    return dst


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == __name__
           and n != "generated"]
