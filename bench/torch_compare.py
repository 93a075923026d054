#!/usr/bin/env python3
"""torch_compare.py: the GPU cases of `wick bench` through wick (ctypes on the built libwick.so) and PyTorch
on the same GPU, in one process, timed the same way, after checking wick's result against PyTorch's.

Run on the GPU machine: python3 bench/torch_compare.py --lib build-gpu/libwick.so [--json out.json]
Timing, the same for both: a warm-up call, a timed call to size the batches, then the median over runs of
the wall time of a batch of calls (a few ms of work) ended by a device synchronize (wk_device_sync /
torch.cuda.synchronize), divided by the batch. Inputs are far larger than the L2 cache where the case is
about memory bandwidth. f32 matmul and conv are true f32 in both (TF32 off); cuDNN may benchmark its
algorithms (torch.backends.cudnn.benchmark, on unless --no-cudnn-benchmark), as a tuned PyTorch program does.
The tiny-op case: wick's time per 1-element add comes from `wick bench --op tiny_add --json` (C, 20,000
calls back to back; from Python the ctypes overhead would dominate); PyTorch's from the same 20,000 adds in
Python, which is how PyTorch eager is used.
ratio = torch time / wick time: > 1 means wick is faster. Exit status: 1 when a case failed or wick's result
did not match PyTorch's (with --strict, also when a target was missed), else 0.
"""
import argparse
import ctypes
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit("torch_compare.py needs PyTorch (the GPU machine's /opt/torch/.venv/bin/python3 has it)")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Enum values of include/wick.h.
WK_DTYPE = {torch.uint8: 0, torch.int32: 2, torch.int64: 3, torch.float16: 4, torch.bfloat16: 5,
            torch.float32: 6, torch.float64: 7}
TORCH_DTYPE = {v: k for k, v in WK_DTYPE.items()}
WK_BINARY_ADD = 0
WK_UNARY_EXP = 0
WK_REDUCE_SUM, WK_REDUCE_MAX = 0, 2
WK_PAD_MODE = {"constant": 0, "reflect": 1, "replicate": 2, "circular": 3}
WK_GLU_SWIGLU = 1

# The targets (torch time / wick time).
ELEMENTWISE, FAST, MATMUL, CONV = 0.95, 1.3, 0.97, 0.95


class PoolParams(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_int64 * 2), ("stride", ctypes.c_int64 * 2), ("padding", ctypes.c_int64 * 2),
                ("ceil_mode", ctypes.c_bool), ("count_include_pad", ctypes.c_bool)]


class SampleParams(ctypes.Structure):
    _fields_ = [("count", ctypes.c_int64), ("temperature", ctypes.POINTER(ctypes.c_float)),
                ("top_k", ctypes.POINTER(ctypes.c_int64)), ("top_p", ctypes.POINTER(ctypes.c_float)),
                ("min_p", ctypes.POINTER(ctypes.c_float)), ("repetition_penalty", ctypes.POINTER(ctypes.c_float)),
                ("presence_penalty", ctypes.POINTER(ctypes.c_float)), ("seed", ctypes.POINTER(ctypes.c_uint64)),
                ("offset", ctypes.c_uint64)]


class ConvParams(ctypes.Structure):
    _fields_ = [("stride", ctypes.c_int64 * 2), ("padding", ctypes.c_int64 * 2), ("dilation", ctypes.c_int64 * 2),
                ("output_padding", ctypes.c_int64 * 2), ("groups", ctypes.c_int64)]


class WickError(RuntimeError):
    pass


class Wick:
    """The entry points of libwick.so the cases need, with statuses turned into exceptions."""

    def __init__(self, path, device):
        os.environ.pop("WICK_POISON", None)  # a test aid that would add a memset to every op
        self.lib = lib = ctypes.CDLL(path)
        vp, pvp, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64)
        i32, dbl, intp = ctypes.c_int, ctypes.c_double, ctypes.POINTER(ctypes.c_int)
        sigs = {
            "wk_device_get": [ctypes.c_char_p, pvp],
            "wk_device_sync": [vp],
            "wk_tensor_from_host": [vp, i32, i32, i64p, vp, pvp],
            "wk_tensor_to_host": [vp, vp, ctypes.c_size_t],
            "wk_transpose": [vp, i32, i32, pvp],
            "wk_contiguous": [vp, pvp],
            "wk_binary": [i32, vp, vp, pvp],
            "wk_unary": [i32, vp, pvp],
            "wk_cast": [vp, i32, pvp],
            "wk_where": [vp, vp, vp, pvp],
            "wk_glu": [i32, vp, pvp],
            "wk_tril": [vp, ctypes.c_int64, pvp],
            "wk_masked_fill": [vp, vp, dbl, pvp],
            "wk_reduce": [i32, vp, intp, i32, ctypes.c_bool, pvp],
            "wk_softmax_last_dim": [vp, pvp],
            "wk_cumsum": [vp, i32, pvp],
            "wk_layer_norm": [vp, vp, vp, dbl, pvp],
            "wk_rms_norm": [vp, vp, dbl, pvp],
            "wk_add_rms_norm": [vp, vp, vp, dbl, pvp, pvp],
            "wk_argsort": [vp, ctypes.c_bool, pvp],
            "wk_topk": [vp, ctypes.c_int64, i32, ctypes.c_bool, ctypes.c_bool, pvp, pvp],
            "wk_sample": [vp, ctypes.POINTER(SampleParams), vp, pvp],
            "wk_index_select": [vp, i32, vp, pvp],
            "wk_gather": [vp, i32, vp, pvp],
            "wk_scatter_add": [vp, i32, vp, vp, pvp],
            "wk_index_add": [vp, i32, vp, vp, pvp],
            "wk_max_pool2d": [vp, ctypes.POINTER(PoolParams), pvp],
            "wk_avg_pool2d": [vp, ctypes.POINTER(PoolParams), pvp],
            "wk_upsample_nearest2d": [vp, ctypes.c_int64, ctypes.c_int64, pvp],
            "wk_upsample_bilinear2d": [vp, ctypes.c_int64, ctypes.c_int64, ctypes.c_bool, dbl, dbl, pvp],
            "wk_conv2d": [vp, vp, vp, ctypes.POINTER(ConvParams), pvp],
            "wk_pad": [vp, i64p, i32, i32, dbl, pvp],
            "wk_flip": [vp, intp, i32, pvp],
            "wk_roll": [vp, i64p, intp, i32, pvp],
            "wk_repeat": [vp, i64p, i32, pvp],
            "wk_matmul": [vp, vp, pvp],
            "wk_matmul_q": [vp, vp, pvp],
        }
        for name, args in sigs.items():
            getattr(lib, name).argtypes = args
            getattr(lib, name).restype = ctypes.c_int
        lib.wk_tensor_release.argtypes = [vp]
        lib.wk_tensor_release.restype = None
        lib.wk_tensor_dtype.argtypes = [vp]
        lib.wk_tensor_dtype.restype = ctypes.c_int
        lib.wk_tensor_rank.argtypes = [vp]
        lib.wk_tensor_rank.restype = ctypes.c_int
        lib.wk_tensor_shape.argtypes = [vp]
        lib.wk_tensor_shape.restype = i64p
        lib.wk_last_error.restype = ctypes.c_char_p
        lib.wk_status_string.argtypes = [ctypes.c_int]
        lib.wk_status_string.restype = ctypes.c_char_p
        self.dev = ctypes.c_void_p()
        self.check(lib.wk_device_get(device.encode(), ctypes.byref(self.dev)), "wk_device_get(%s)" % device)

    def check(self, status, what):
        if status != 0:
            raise WickError("%s: %s: %s" % (what, self.lib.wk_status_string(status).decode(),
                                            self.lib.wk_last_error().decode(errors="replace")))

    def sync(self):
        self.check(self.lib.wk_device_sync(self.dev), "wk_device_sync")

    def release(self, t):
        self.lib.wk_tensor_release(t)

    def call(self, fn, *args):
        """fn(*args, &out) -> out, without waiting for the device."""
        out = ctypes.c_void_p()
        status = fn(*args, ctypes.byref(out))
        if status != 0:
            self.check(status, fn.__name__)
        return out

    def upload(self, t):
        """A wick tensor holding t's values: contiguous, or a transposed view of a contiguous matrix (the same
        strides as t), or bool as u8."""
        if t.dim() == 2 and not t.is_contiguous() and t.stride() == (1, t.shape[0]):
            base = self.upload(t.t())
            try:
                return self.call(self.lib.wk_transpose, base, 0, 1)
            finally:
                self.release(base)
        if t.dtype == torch.bool:
            t = t.to(torch.uint8)
        host = t.detach().contiguous().cpu()
        shape = (ctypes.c_int64 * max(host.dim(), 1))(*host.shape)
        out = ctypes.c_void_p()
        self.check(self.lib.wk_tensor_from_host(self.dev, WK_DTYPE[host.dtype], host.dim(), shape,
                                                ctypes.c_void_p(host.data_ptr()), ctypes.byref(out)),
                   "wk_tensor_from_host")
        return out

    def download(self, t, device):
        """wick tensor -> torch tensor on device."""
        dt = TORCH_DTYPE[self.lib.wk_tensor_dtype(t)]
        rank = self.lib.wk_tensor_rank(t)
        shape = [self.lib.wk_tensor_shape(t)[d] for d in range(rank)]
        host = torch.empty(shape, dtype=dt, pin_memory=device.type == "cuda")
        self.check(self.lib.wk_tensor_to_host(t, ctypes.c_void_p(host.data_ptr()),
                                              host.numel() * host.element_size()), "wk_tensor_to_host")
        return host.to(device)


# ---------------------------------------------------------------- timing (the same for both libraries)

def clamp(v, lo, hi):
    return max(lo, min(hi, v))


def time_op(run, release, sync, budget_s, batch_s, min_runs, max_runs, max_batch=1000):
    """Median seconds per call: warm-up, a timed call to size the batches, then runs of batch calls + sync."""
    release(run())
    sync()
    t0 = time.perf_counter()
    release(run())
    sync()
    one = time.perf_counter() - t0
    batch = clamp(math.ceil(batch_s / one), 1, max_batch) if one > 0 else max_batch
    runs = clamp(math.ceil(budget_s / (one * batch)), min_runs, max_runs) if one > 0 else max_runs
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(batch):
            release(run())
        sync()
        times.append((time.perf_counter() - t0) / batch)
    return statistics.median(times), batch


def rel_error(got, want, chunk=1 << 25):
    """||got - want|| / ||want|| in f64, in chunks (inputs may be GiB); 0 when both are zero."""
    g, w = got.reshape(-1), want.reshape(-1)
    num = den = 0.0
    for i in range(0, w.numel(), chunk):
        wc = w[i:i + chunk].double()
        num += float(((g[i:i + chunk].double() - wc) ** 2).sum())
        den += float((wc ** 2).sum())
    if den == 0:
        return 0.0 if num == 0 else math.inf
    return math.sqrt(num / den)


# ---------------------------------------------------------------- cases

class Case:
    """One op at one shape. inputs() -> torch tensors on the device (wick gets copies with the same values
    and strides); torch_fn(*tensors) and wick_fn(wick, *handles) run it once. tol: None for an exact match,
    else the largest relative L2 difference from PyTorch's result that counts as a match."""

    def __init__(self, name, shape, target, tol, inputs, torch_fn, wick_fn):
        self.name, self.shape, self.target, self.tol = name, shape, target, tol
        self.inputs, self.torch_fn, self.wick_fn = inputs, torch_fn, wick_fn


def cases(dev, quick):
    """The cases of `wick bench --device cuda:0` that have a PyTorch equivalent, same shapes and dtypes."""
    f32, f16, bf16, i64 = torch.float32, torch.float16, torch.bfloat16, torch.int64

    def rand(shape, dtype=f32, lo=-2.0, hi=2.0):
        return (torch.rand(shape, device=dev, dtype=f32) * (hi - lo) + lo).to(dtype)

    def ids(shape, size):
        return torch.randint(0, size, shape, device=dev, dtype=i64)

    def dims(*s):
        return "x".join(str(v) for v in s)

    n = (4 << 20) if quick else (256 << 20)
    sq = 2048 if quick else 16384
    rows4k, rows8k = (1024, 512) if quick else (32768, 16384)
    isel = 4096 if quick else 131072
    gat = 512 if quick else 8192
    pool_n, up_hw, conv_n = (2, 56, 2) if quick else (32, 128, 32)
    mm32, mm16 = (1024, 2048) if quick else (4096, 8192)
    L = None  # no target: shown for information

    # Element-wise, casts, copies.
    yield Case("add f32", str(n), ELEMENTWISE, None, lambda: [rand(n), rand(n)], torch.add,
               lambda w, a, b: w.call(w.lib.wk_binary, WK_BINARY_ADD, a, b))
    yield Case("exp f32", str(n), ELEMENTWISE, 1e-6, lambda: [rand(n)], torch.exp,
               lambda w, a: w.call(w.lib.wk_unary, WK_UNARY_EXP, a))
    for src, dst, name in ((f32, f16, "f32->f16"), (f32, bf16, "f32->bf16"), (f16, f32, "f16->f32")):
        yield Case("cast " + name, str(n), ELEMENTWISE, None, lambda s=src: [rand(n, s, -100, 100)],
                   lambda x, d=dst: x.to(d), lambda w, x, d=dst: w.call(w.lib.wk_cast, x, WK_DTYPE[d]))
    yield Case("copy f32 contiguous", str(n), ELEMENTWISE, None, lambda: [rand(n)], torch.clone,
               lambda w, x: w.call(w.lib.wk_contiguous, x))
    yield Case("where u8 ? f32 : f32", str(n), ELEMENTWISE, None,
               lambda: [torch.randint(0, 2, (n,), device=dev, dtype=torch.uint8).bool(), rand(n), rand(n)],
               torch.where, lambda w, c, a, b: w.call(w.lib.wk_where, c, a, b))
    yield Case("masked_fill f32, u8 mask", str(n), ELEMENTWISE, None,
               lambda: [rand(n), torch.randint(0, 2, (n,), device=dev, dtype=torch.uint8).bool()],
               lambda x, m: x.masked_fill(m, -1e4), lambda w, x, m: w.call(w.lib.wk_masked_fill, x, m, -1e4))
    bh, t = (4, 512) if quick else (64, 4096)
    yield Case("masked_fill f32, (T, T) u8 mask broadcast", dims(bh, t, t), ELEMENTWISE, None,
               lambda: [rand((bh, t, t)), torch.randint(0, 2, (t, t), device=dev, dtype=torch.uint8).bool()],
               lambda x, m: x.masked_fill(m, -1e4), lambda w, x, m: w.call(w.lib.wk_masked_fill, x, m, -1e4))
    yield Case("tril f32", dims(sq, sq), ELEMENTWISE, None, lambda: [rand((sq, sq))], torch.tril,
               lambda w, x: w.call(w.lib.wk_tril, x, 0))
    # A Llama-3-8B MLP's fused gate/up projection of 8192 tokens; PyTorch as models write it (silu, then mul).
    tok, ffn = (256, 1024) if quick else (8192, 14336)
    yield Case("swiglu bf16 fused gate/up", dims(tok, 2 * ffn), ELEMENTWISE, 1e-2,
               lambda: [rand((tok, 2 * ffn), bf16)], lambda x: F.silu(x[:, :ffn]) * x[:, ffn:],
               lambda w, x: w.call(w.lib.wk_glu, WK_GLU_SWIGLU, x))
    yield Case("index_select f32 dim 0 i64", dims(isel, 1024), ELEMENTWISE, None,
               lambda: [rand((isel, 1024)), ids((isel,), isel)], lambda x, i: torch.index_select(x, 0, i),
               lambda w, x, i: w.call(w.lib.wk_index_select, x, 0, i))

    # Reductions over the last and the first dim.
    for op, wop, tfn, tol in (("sum", WK_REDUCE_SUM, torch.sum, 1e-5), ("max", WK_REDUCE_MAX, torch.amax, None)):
        for dim, dname in ((-1, "last dim"), (0, "dim 0")):
            yield Case("%s f32 %s" % (op, dname), dims(sq, sq), ELEMENTWISE, tol, lambda: [rand((sq, sq))],
                       lambda x, f=tfn, d=dim: f(x, d),
                       lambda w, x, o=wop, d=dim: w.call(w.lib.wk_reduce, o, x, (ctypes.c_int * 1)(d), 1, False))

    # Layout, pooling, resampling, indexed accumulation.
    yield Case("contiguous f32 transposed", dims(sq, sq), FAST, None, lambda: [rand((sq, sq)).t()],
               lambda x: x.contiguous(), lambda w, x: w.call(w.lib.wk_contiguous, x))
    for k, s, p in ((3, 2, 1), (2, 2, 0)):
        params = PoolParams((k, k), (s, s), (p, p), False, True)
        shape = (pool_n, 64, 112, 112)
        tag = "f32 %dx%d s%d%s" % (k, k, s, " p%d" % p if p else "")
        yield Case("max_pool2d " + tag, dims(*shape), FAST, None, lambda sh=shape: [rand(sh)],
                   lambda x, k=k, s=s, p=p: F.max_pool2d(x, k, s, p),
                   lambda w, x, pp=params: w.call(w.lib.wk_max_pool2d, x, ctypes.byref(pp)))
        yield Case("avg_pool2d " + tag, dims(*shape), FAST, 1e-6, lambda sh=shape: [rand(sh)],
                   lambda x, k=k, s=s, p=p: F.avg_pool2d(x, k, s, p, False, True),
                   lambda w, x, pp=params: w.call(w.lib.wk_avg_pool2d, x, ctypes.byref(pp)))
    up = (pool_n, 64, up_hw, up_hw)
    yield Case("upsample_nearest2d f32 2x", dims(*up), FAST, None, lambda: [rand(up)],
               lambda x: F.interpolate(x, size=(2 * up_hw, 2 * up_hw), mode="nearest"),
               lambda w, x: w.call(w.lib.wk_upsample_nearest2d, x, 2 * up_hw, 2 * up_hw))
    yield Case("upsample_bilinear2d f32 2x", dims(*up), L, 1e-6, lambda: [rand(up)],
               lambda x: F.interpolate(x, size=(2 * up_hw, 2 * up_hw), mode="bilinear", align_corners=False),
               lambda w, x: w.call(w.lib.wk_upsample_bilinear2d, x, 2 * up_hw, 2 * up_hw, False, 0.0, 0.0))
    # Padding and reordering of an image batch: copies at computed indices.
    img = (1, 8, 128, 128) if quick else (8, 64, 512, 512)
    for mode in ("reflect", "constant", "replicate"):
        yield Case("pad f32 %s 3 last 2 dims" % mode, dims(*img), ELEMENTWISE, None, lambda: [rand(img)],
                   lambda x, m=mode: F.pad(x, (3, 3, 3, 3), mode=m),
                   lambda w, x, m=mode: w.call(w.lib.wk_pad, x, (ctypes.c_int64 * 4)(3, 3, 3, 3), 4, WK_PAD_MODE[m],
                                               0.0))
    for nd, tag in ((1, "last dim"), (2, "last 2 dims")):
        yield Case("flip f32 " + tag, dims(*img), ELEMENTWISE, None, lambda: [rand(img)],
                   lambda x, nd=nd: torch.flip(x, [-1, -2][:nd]),
                   lambda w, x, nd=nd: w.call(w.lib.wk_flip, x, (ctypes.c_int * 2)(-1, -2), nd))
    yield Case("roll f32 last 2 dims by (5, 7)", dims(*img), ELEMENTWISE, None, lambda: [rand(img)],
               lambda x: torch.roll(x, (5, 7), (-1, -2)),
               lambda w, x: w.call(w.lib.wk_roll, x, (ctypes.c_int64 * 2)(5, 7), (ctypes.c_int * 2)(-1, -2), 2))
    yield Case("repeat f32 (1, 2, 1, 1)", dims(*img), ELEMENTWISE, None, lambda: [rand(img)],
               lambda x: x.repeat(1, 2, 1, 1),
               lambda w, x: w.call(w.lib.wk_repeat, x, (ctypes.c_int64 * 4)(1, 2, 1, 1), 4))
    yield Case("scatter_add f32 dim 1 i64", dims(gat, gat), FAST, 1e-6,
               lambda: [rand((gat, gat)), ids((gat, gat), gat), rand((gat, gat))],
               lambda x, i, s: x.scatter_add(1, i, s), lambda w, x, i, s: w.call(w.lib.wk_scatter_add, x, 1, i, s))
    yield Case("index_add f32 dim 0 i64", dims(isel, 1024), FAST, 1e-6,
               lambda: [rand((isel, 1024)), ids((isel,), isel), rand((isel, 1024))],
               lambda x, i, s: x.index_add(0, i, s), lambda w, x, i, s: w.call(w.lib.wk_index_add, x, 0, i, s))
    yield Case("gather f32 dim 1 i64", dims(gat, gat), L, None, lambda: [rand((gat, gat)), ids((gat, gat), gat)],
               lambda x, i: torch.gather(x, 1, i), lambda w, x, i: w.call(w.lib.wk_gather, x, 1, i))

    # cumsum of (8192, 16384) f32 along the last dim and along dim 0 (issue 14's scan target).
    for dim in (1, 0):
        yield Case("cumsum f32 (8192, 16384) dim %d" % dim, dims(8192, 16384), FAST, 1e-4,
                   lambda: [rand((8192, 16384))], lambda x, d=dim: torch.cumsum(x, d),
                   lambda w, x, d=dim: w.call(w.lib.wk_cumsum, x, d))

    # Softmax and norms over rows of 4096 and 8192 elements.
    for rows, cols, dt in ((rows4k, 4096, f32), (rows8k, 8192, f32), (rows4k, 4096, bf16)):
        tname = "f32" if dt == f32 else "bf16"
        tol = 1e-5 if dt == f32 else 1e-2
        yield Case("softmax %s last dim" % tname, dims(rows, cols), FAST, tol,
                   lambda r=rows, c=cols, d=dt: [rand((r, c), d)],
                   lambda x: torch.softmax(x, -1), lambda w, x: w.call(w.lib.wk_softmax_last_dim, x))
        yield Case("layer_norm %s w b" % tname, dims(rows, cols), FAST, tol,
                   lambda r=rows, c=cols, d=dt: [rand((r, c), d), rand((c,), d, 0.5, 1.5), rand((c,), d, 0.5, 1.5)],
                   lambda x, g, b: F.layer_norm(x, (x.shape[-1],), g, b, 1e-5),
                   lambda w, x, g, b: w.call(w.lib.wk_layer_norm, x, g, b, 1e-5))
    if hasattr(F, "rms_norm"):
        yield Case("rms_norm f32 w", dims(rows4k, 4096), L, 1e-5,
                   lambda: [rand((rows4k, 4096)), rand((4096,), f32, 0.5, 1.5)],
                   lambda x, g: F.rms_norm(x, (x.shape[-1],), g, 1e-6),
                   lambda w, x, g: w.call(w.lib.wk_rms_norm, x, g, 1e-6))
        # the residual add and the norm after it (PyTorch: two ops), a decode step's row and a prefill's rows
        for rows, cols, suffix in ((rows4k, 4096, ""), (1, 2048, " decode")):
            yield Case("add_rms_norm bf16 w" + suffix, dims(rows, cols), L, 1e-2,
                       lambda r=rows, c=cols: [rand((r, c), bf16), rand((r, c), bf16), rand((c,), bf16, 0.5, 1.5)],
                       lambda x, r, g: F.rms_norm(x + r, (x.shape[-1],), g, 1e-6), wick_add_rms_norm)
    argsort_rows = 256 if quick else 16384
    yield Case("argsort f32 last dim", dims(argsort_rows, 4096), L, None, lambda: [rand((argsort_rows, 4096))],
               stable_argsort, lambda w, x: w.call(w.lib.wk_argsort, x, False))

    # Generation over Llama 3's vocabulary: topk of the logits, and sampling (ids differ from PyTorch's by design:
    # another random stream; only the shapes are compared)
    lrows, vocab = (8, 16384) if quick else (32, 128256)
    yield Case("topk f32 k=50 logits", dims(lrows, vocab), L, None, lambda: [rand((lrows, vocab))],
               lambda x: torch.topk(x, 50, dim=-1)[0], lambda w, x: wick_topk(w, x, 50))
    yield Case("sample f32 k50 p0.9 t0.8", dims(lrows, vocab), L, math.inf, lambda: [rand((lrows, vocab))],
               torch_sample, wick_sample)

    # Matmul and ResNet-50's convolutions (true f32 in both for f32).
    for size, dt in ((mm32, f32), (mm16, bf16)):
        yield Case("matmul %s" % ("f32" if dt == f32 else "bf16"), "%d^3" % size, MATMUL, 1e-4 if dt == f32 else 2e-2,
                   lambda s=size, d=dt: [rand((s, s), d, -1, 1), rand((s, s), d, -1, 1)], torch.matmul,
                   lambda w, a, b: w.call(w.lib.wk_matmul, a, b))
    # Linear layers at decode (x (M, K) times w^T, w (N, K) stored by rows: a transposed view in both), the shapes
    # of Llama-3.2-1B's projections and LM head: wick's mat-vec kernel (one row) or cuBLAS against PyTorch's cuBLAS.
    for dt, m, n, k in ((bf16, 1, 2048, 2048), (bf16, 1, 512, 2048), (bf16, 1, 8192, 2048), (bf16, 1, 2048, 8192),
                        (bf16, 1, 128256, 2048), (bf16, 8, 8192, 2048), (bf16, 8, 2048, 8192), (f16, 1, 8192, 2048),
                        (f16, 4, 8192, 2048), (f32, 1, 4096, 4096)):
        if quick:
            n, k = min(n, 1024), min(k, 1024)
        tname = {bf16: "bf16", f16: "f16", f32: "f32"}[dt]
        yield Case("linear %s M=%d" % (tname, m), "%dx%d @ %dx%d^T" % (m, k, n, k), None, 1e-4 if dt == f32 else 2e-2,
                   lambda m=m, n=n, k=k, d=dt: [rand((m, k), d, -1, 1), rand((n, k), d, -0.05, 0.05).t()],
                   torch.matmul, lambda w, a, b: w.call(w.lib.wk_matmul, a, b))
    # Linear layers with block-quantized weights (wick bench's matmul_q): wick reads the blocks; PyTorch multiplies
    # the same weights dequantized to f16 beforehand (F.linear), what a framework without quantized kernels runs.
    for qname, m, n, k in (("q4_0", 1, 4096, 4096), ("q8_0", 1, 4096, 4096), ("q4_0", 1, 14336, 4096),
                           ("q8_0", 1, 14336, 4096), ("q4_0", 8, 14336, 4096), ("q4_0", 512, 14336, 4096)):
        if quick:
            n, k = min(n, 1024), 1024
        yield matmul_q_case(dev, qname, m, n, k, rand)
    convs = ((64, 56, 64, 3, 1, 1), (256, 56, 64, 1, 1, 0), (128, 28, 128, 3, 1, 1), (512, 7, 512, 3, 1, 1),
             (3, 224, 64, 7, 2, 3))
    for dt in (f32, bf16):
        for c, hw, o, k, s, p in convs:
            params = ConvParams((s, s), (p, p), (1, 1), (0, 0), 1)
            tname = "f32" if dt == f32 else "bf16"
            name = "conv2d %s %dx%d %d->%d%s%s bias" % (tname, k, k, c, o, " s%d" % s if s > 1 else "",
                                                       " p%d" % p if p else "")
            yield Case(name, dims(conv_n, c, hw, hw), CONV, 1e-4 if dt == f32 else 2e-2,
                       lambda c=c, hw=hw, o=o, k=k, d=dt: [rand((conv_n, c, hw, hw), d),
                                                           rand((o, c, k, k), d, -0.1, 0.1), rand((o,), d, -0.1, 0.1)],
                       lambda x, wt, b, s=s, p=p: F.conv2d(x, wt, b, s, p),
                       lambda w, x, wt, b, pp=params: w.call(w.lib.wk_conv2d, x, wt, b, ctypes.byref(pp)))


WK_QTYPE = {"q4_0": 8, "q8_0": 12}
_Q_HANDLES = []  # the quantized weights of the last matmul_q case, released when the next one makes its own


def quant_blocks(dev, qname, n, k):
    """Random GGML blocks (N, K) of Q4_0 or Q8_0: (their bytes on the host, the weights dequantized, f16, on dev)."""
    nb = k // 32
    d = (torch.rand((n, nb), device=dev) * 0.02 - 0.01).to(torch.float16)
    if qname == "q4_0":
        qs = torch.randint(0, 256, (n, nb, 16), device=dev, dtype=torch.uint8)
        vals = torch.cat([(qs & 15).float() - 8, (qs >> 4).float() - 8], -1)  # element j < 16: low nibble of j
    else:
        qs = torch.randint(-128, 128, (n, nb, 32), device=dev, dtype=torch.int8).view(torch.uint8)
        vals = qs.view(torch.int8).float()
    raw = torch.cat([d.view(torch.uint8).reshape(n, nb, 2), qs], -1).reshape(n, -1)
    return raw.cpu().contiguous(), (d.float().unsqueeze(-1) * vals).reshape(n, k).to(torch.float16)


def matmul_q_case(dev, qname, m, n, k, rand):
    state = {}

    def inputs():
        for w, h in _Q_HANDLES:
            w.release(h)
        _Q_HANDLES.clear()
        state["raw"], deq = quant_blocks(dev, qname, n, k)
        return [rand((m, k), torch.float16, -1, 1), deq]

    def wick_fn(w, x, _deq):
        if "q" not in state:
            q, shape = ctypes.c_void_p(), (ctypes.c_int64 * 2)(n, k)
            w.check(w.lib.wk_tensor_from_host(w.dev, WK_QTYPE[qname], 2, shape,
                                              ctypes.c_void_p(state["raw"].data_ptr()), ctypes.byref(q)),
                    "wk_tensor_from_host")
            state["q"] = q
            _Q_HANDLES.append((w, q))
        return w.call(w.lib.wk_matmul_q, x, state["q"])

    # one row of x: the GPU rounds x to 8-bit blocks (gpu/matmul_q.c's dot kernel; about 4e-3 relative, tests/cases/
    # matmul_q.c says why), so the bound is that path's
    tol = 3e-2 if m == 1 else 2e-3
    return Case("matmul_q %s f16 M=%d" % (qname, m), "%dx%d @ %dx%d^T" % (m, k, n, k), None, tol, inputs,
                lambda x, deq: F.linear(x, deq), wick_fn)


def wick_add_rms_norm(w, x, r, g):
    """add_rms_norm's normalised output (its sum, the new residual, is released: PyTorch's x + r is not timed
    apart either)."""
    s, out = ctypes.c_void_p(), ctypes.c_void_p()
    w.check(w.lib.wk_add_rms_norm(x, r, g, ctypes.c_double(1e-6), ctypes.byref(s), ctypes.byref(out)),
            "wk_add_rms_norm")
    w.release(s)
    return out


def wick_topk(w, x, k):
    values, indices = ctypes.c_void_p(), ctypes.c_void_p()
    w.check(w.lib.wk_topk(x, k, -1, True, True, ctypes.byref(values), ctypes.byref(indices)), "wk_topk")
    w.release(indices)
    return values


SAMPLE_T, SAMPLE_K, SAMPLE_P, SAMPLE_SEED = ctypes.c_float(0.8), ctypes.c_int64(50), ctypes.c_float(0.9), \
    ctypes.c_uint64(42)


def wick_sample(w, x):
    p = SampleParams(count=1, temperature=ctypes.pointer(SAMPLE_T), top_k=ctypes.pointer(SAMPLE_K),
                     top_p=ctypes.pointer(SAMPLE_P), seed=ctypes.pointer(SAMPLE_SEED))
    return w.call(w.lib.wk_sample, x, ctypes.byref(p), None)


def torch_sample(x):
    """Temperature, top-k 50, softmax, sort (topk's order), cumsum, top-p 0.9, one multinomial draw a row."""
    v, i = torch.topk(x / 0.8, 50, dim=-1)
    p = torch.softmax(v, dim=-1)
    c = torch.cumsum(p, dim=-1)
    p = p.masked_fill(c - p > 0.9, 0.0)
    return i.gather(-1, torch.multinomial(p, 1)).squeeze(-1)


def stable_argsort(x):
    try:
        return torch.argsort(x, dim=-1, stable=True)
    except TypeError:  # older PyTorch
        return torch.sort(x, dim=-1, stable=True)[1]


def run_case(case, wick, dev, sync_torch, timing):
    """-> dict with the check and both times; raises on a failure of either library."""
    tin = case.inputs()
    handles = []
    try:
        for t in tin:
            handles.append(wick.upload(t))
        want = case.torch_fn(*tin)
        out = case.wick_fn(wick, *handles)
        try:
            wick.sync()
            got = wick.download(out, dev)
        finally:
            wick.release(out)
        if got.shape != want.shape or got.dtype != want.dtype:
            rel, match = math.inf, False
            note = "shape/dtype %s %s, torch %s %s" % (tuple(got.shape), got.dtype, tuple(want.shape), want.dtype)
        else:
            rel = rel_error(got, want)
            match = torch.equal(got, want) if case.tol is None else rel <= case.tol
            note = ""
        del got, want
        t_wick, b_wick = time_op(lambda: case.wick_fn(wick, *handles), wick.release, wick.sync, *timing)
        t_torch, b_torch = time_op(lambda: case.torch_fn(*tin), lambda r: None, sync_torch, *timing)
        return {"wick_ms": 1e3 * t_wick, "torch_ms": 1e3 * t_torch, "rel_err": rel, "match": match, "note": note,
                "batch_wick": b_wick, "batch_torch": b_torch}
    finally:
        for h in handles:
            wick.release(h)
        tin.clear()


def tiny_add(args, dev, sync_torch, calls=20000):
    """(wick us/op from the CLI, torch us/op from Python)."""
    wick_us, err = None, ""
    try:
        p = subprocess.run([args.wick, "bench", "--device", args.device, "--op", "tiny_add", "--json"],
                           capture_output=True, text=True, timeout=120)
        for line in p.stdout.splitlines():
            rec = json.loads(line)
            if rec.get("record") == "case" and rec.get("op") == "tiny_add":
                if rec.get("status") == "ok":
                    wick_us = rec["us_per_op"]
                else:
                    err = "%s: %s" % (rec.get("status"), rec.get("error"))
        if wick_us is None and not err:
            err = "no tiny_add record from %s (exit %d): %s" % (args.wick, p.returncode, p.stderr.strip()[-300:])
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        err = "%s: %s" % (args.wick, e)
    a = torch.ones(1, device=dev)
    b = torch.ones(1, device=dev)
    for _ in range(2000):
        c = a + b
    sync_torch()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            c = a + b
        sync_torch()
        times.append((time.perf_counter() - t0) / calls)
    del c
    return wick_us, 1e6 * statistics.median(times), err


# ---------------------------------------------------------------- report

def fmt_target(t):
    return "-" if t is None else ">=%.2f" % t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", default=os.environ.get("WICK_LIB", os.path.join(REPO, "build-gpu", "libwick.so")),
                    help="libwick.so (default build-gpu/libwick.so, or $WICK_LIB)")
    ap.add_argument("--wick", help="the wick CLI for the tiny-op case (default: next to --lib)")
    ap.add_argument("--device", default="cuda:0", help="wick and torch device (default cuda:0; cpu for a dry run)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--op", help="only cases whose name starts with one of these (comma-separated)")
    ap.add_argument("--quick", action="store_true", help="small sizes, few runs (checks the script)")
    ap.add_argument("--no-cudnn-benchmark", action="store_true", help="leave cudnn.benchmark off in PyTorch")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed too")
    args = ap.parse_args()
    if not os.path.exists(args.lib):
        sys.exit("no %s: build first (cmake --build build-gpu), or pass --lib" % args.lib)
    args.wick = args.wick or os.path.join(os.path.dirname(os.path.abspath(args.lib)), "wick")

    dev = torch.device(args.device)
    cuda = dev.type == "cuda"
    if cuda:
        torch.cuda.init()
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = not args.no_cudnn_benchmark
        sync_torch = lambda: torch.cuda.synchronize(dev)  # noqa: E731
    else:
        sync_torch = lambda: None  # noqa: E731
    torch.manual_seed(1)
    wick = Wick(args.lib, args.device)
    # budget per case and side, batch length, runs
    timing = (0.05, 0.002, 3, 5) if args.quick else (0.3, 0.005, 5, 25)

    gpu = torch.cuda.get_device_name(dev) if cuda else platform.processor() or platform.machine()
    header = {
        "device": args.device, "gpu": gpu, "torch": torch.__version__,
        "cuda": getattr(torch.version, "cuda", None),
        "cudnn": torch.backends.cudnn.version() if cuda else None, "lib": os.path.abspath(args.lib),
        "tf32": False, "cudnn_benchmark": cuda and not args.no_cudnn_benchmark, "quick": args.quick,
    }
    print("torch_compare: %s (%s); torch %s, CUDA %s, cuDNN %s; wick %s" % (
        gpu, args.device, header["torch"], header["cuda"], header["cudnn"], args.lib))
    print("times: median per call over batches ended by a sync; ratio = torch/wick (>1: wick faster); "
          "TF32 off; cudnn.benchmark %s" % ("on" if header["cudnn_benchmark"] else "off"))
    cols = "%-34s %-16s %10s %10s %7s %7s %-4s %9s %s"
    print(cols % ("case", "shape", "wick ms", "torch ms", "ratio", "target", "met", "rel err", "check"))
    sys.stdout.flush()

    prefixes = [p.strip() for p in args.op.split(",")] if args.op else None
    results, failed, missed = [], 0, 0
    for case in cases(dev, args.quick):
        if prefixes and not any(case.name.startswith(p) for p in prefixes):
            continue
        rec = {"case": case.name, "shape": case.shape, "target": case.target}
        try:
            rec.update(run_case(case, wick, dev, sync_torch, timing))
            rec["ratio"] = rec["torch_ms"] / rec["wick_ms"] if rec["wick_ms"] > 0 else None
            rec["met"] = None if case.target is None or rec["ratio"] is None else rec["ratio"] >= case.target
            check = "match" if rec["match"] else "MISMATCH (tol %s) %s" % (case.tol or "exact", rec["note"])
            failed += not rec["match"]
            missed += rec["met"] is False
            print(cols % (case.name, case.shape, "%.4f" % rec["wick_ms"], "%.4f" % rec["torch_ms"],
                          "%.2f" % rec["ratio"], fmt_target(case.target),
                          "-" if rec["met"] is None else "yes" if rec["met"] else "NO", "%.2e" % rec["rel_err"],
                          check))
        except Exception as e:  # noqa: BLE001 (one case's failure, reported, must not stop the others)
            failed += 1
            rec["error"] = str(e)
            print(cols % (case.name, case.shape, "-", "-", "-", fmt_target(case.target), "-", "-",
                          "ERROR " + str(e)[:300]))
        results.append(rec)
        sys.stdout.flush()
        if cuda:
            torch.cuda.empty_cache()  # leave the memory to wick's next inputs

    if not prefixes or any("tiny_add".startswith(p) or p.startswith("tiny") for p in prefixes):
        wick_us, torch_us, err = tiny_add(args, dev, sync_torch)
        rec = {"case": "tiny_add f32 (us/op)", "shape": "1, 20000 calls", "target": None, "wick_us": wick_us,
               "torch_us": torch_us, "ratio": torch_us / wick_us if wick_us else None, "met": None}
        if err:
            rec["error"] = err
            failed += 1
        print(cols % ("tiny_add f32 (us per op, host)", rec["shape"], "-" if wick_us is None else "%.3fus" % wick_us,
                      "%.3fus" % torch_us, "-" if rec["ratio"] is None else "%.2f" % rec["ratio"], "-", "-", "-",
                      ("ERROR " + err) if err else "wick: C CLI; torch: Python loop"))
        results.append(rec)

    met = sum(1 for r in results if r.get("met") is True)
    targeted = sum(1 for r in results if r.get("met") is not None)
    print("%d cases: %d failed or mismatched; targets met %d of %d" % (len(results), failed, met, targeted))
    if args.json:
        for r in results:  # strict JSON: no Infinity
            for k, v in r.items():
                if isinstance(v, float) and not math.isfinite(v):
                    r[k] = None
        with open(args.json, "w") as f:
            json.dump({"header": header, "cases": results, "failed": failed, "targets_met": met,
                       "targets": targeted}, f, indent=1)
    return 1 if failed or (args.strict and missed) else 0


if __name__ == "__main__":
    sys.exit(main())
