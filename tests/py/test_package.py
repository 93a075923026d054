"""The Python package (python/wick) against numpy float64 references: a sample of every op family in f32 and
one other dtype, errors as WickError, Tensor properties, numpy round trips of every dtype, the file wrappers,
and `pip install ./python` into a fresh virtual environment. Runs with LIBWICK and PYTHONPATH=python set;
a GPU device, when this build finds one, gets the transfer and a few ops too."""
import contextlib
import io
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np

import wick

from checks import check, run, summary, raises_wick as raises

RNG = np.random.default_rng(1234)
TOL = {"f16": (2e-3, 2e-3), "bf16": (1.6e-2, 1.6e-2), "f32": (2e-5, 2e-6), "f64": (1e-11, 1e-12)}


def close(got, ref, dtype, what, tol=None):
    """got (a wick.Tensor or array) equals ref within dtype's tolerance; NaN only where ref has NaN."""
    g = got.numpy() if isinstance(got, wick.Tensor) else np.asarray(got)
    g = g.astype(np.float64) if g.dtype.kind in "fV" or g.dtype == ml_dtypes.bfloat16 else g
    ref = np.asarray(ref)
    if g.shape != ref.shape:
        return check(False, f"{what}: shape {g.shape} != {ref.shape}")
    if dtype not in TOL:
        return check(np.array_equal(g, ref), f"{what}: {g.ravel()[:8]} != {ref.ravel()[:8]}")
    rtol, atol = tol or TOL[dtype]
    gn, rn = np.isnan(g), np.isnan(ref)
    ok = np.array_equal(gn, rn) and np.all(np.abs(g[~rn] - ref[~rn]) <= atol + rtol * np.abs(ref[~rn]))
    if not ok:
        bad = np.argmax(np.abs(np.nan_to_num(g - ref, nan=np.inf)))
        return check(False, f"{what} [{dtype}]: max error at {bad}: {g.ravel()[bad]} vs {ref.ravel()[bad]}")
    check(True, what)


def rand(shape, dtype="f32", lo=-2.0, hi=2.0):
    """(wick tensor, its values as float64) of random values exactly representable in dtype."""
    a = RNG.uniform(lo, hi, shape)
    if dtype in ("u8", "u32", "i32", "i64"):
        a = np.round(a)
    t = wick.from_numpy(a.astype(np.float64)).cast(dtype)
    return t, t.cast("f64").numpy()


# ---------------------------------------------------------------- element-wise
def test_unary():
    erf = np.vectorize(math.erf)
    refs = {"exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "erf": erf,
            "recip": lambda x: 1 / x, "sqrt": np.sqrt,
            "gelu": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
            "gelu_erf": lambda x: x * (1 + erf(x / math.sqrt(2))) / 2, "silu": lambda x: x / (1 + np.exp(-x)),
            "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "ceil": np.ceil, "floor": np.floor, "round": np.round,
            "sqr": np.square, "abs": np.abs, "neg": np.negative, "relu": lambda x: np.maximum(x, 0),
            "sign": np.sign, "softplus": lambda x: np.where(x > 20, x, np.log1p(np.exp(x))),
            "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))), "hardswish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
            "hardsigmoid": lambda x: np.clip(x + 3, 0, 6) / 6}
    check(set(refs) == set(wick.UNARY), f"unary names {wick.UNARY}")
    for dt in ("f32", "f16"):
        for name in wick.UNARY:
            positive = name in ("log", "sqrt", "recip")
            x, xv = rand((3, 17), dt, 0.1 if positive else -3, 3)
            close(getattr(wick, name)(x), refs[name](xv), dt, f"unary {name}")
    for name in ("sqr", "abs", "neg", "relu", "sign"):
        x, xv = rand((40,), "i32", -50, 50)
        close(getattr(wick, name)(x), refs[name](xv).astype(np.int32), "i32", f"unary {name} i32")
    # a non-contiguous input (a transposed view) and NaN propagation
    x, xv = rand((5, 4))
    close(wick.exp(x.T), np.exp(xv.T), "f32", "exp of a transposed view")
    nan = wick.from_numpy(np.array([np.nan, 1.0], np.float32))
    close(wick.sqrt(nan), [np.nan, 1.0], "f32", "sqrt keeps NaN")
    raises("WK_ERR_DTYPE", lambda: wick.exp(wick.zeros(3, "i32")), "exp of i32", "exp")


def test_parametric():
    for dt in ("f32", "f64"):
        x, xv = rand((4, 6), dt)
        close(wick.affine(x, 1.5, -0.25), xv * 1.5 - 0.25, dt, "affine")
        p, pv = rand((4, 6), dt, 0.1, 3)
        close(wick.powf(p, 2.5), pv ** 2.5, dt, "powf")
        close(wick.elu(x, 0.7), np.where(xv > 0, xv, 0.7 * np.expm1(xv)), dt, "elu")
        close(wick.clamp(x, -0.5, 0.75), np.clip(xv, -0.5, 0.75), dt, "clamp")
        close(wick.leaky_relu(x, 0.1), np.where(xv > 0, xv, 0.1 * xv), dt, "leaky_relu")
        g, gv = rand((3, 8), dt)
        sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
        close(wick.glu(g), gv[:, :4] * sig(gv[:, 4:]), dt, "glu")
        close(wick.glu(g, "swiglu"), gv[:, :4] * sig(gv[:, :4]) * gv[:, 4:], dt, "swiglu")
        close(wick.tril(x, 1), np.tril(xv, 1), dt, "tril")
        close(wick.triu(x, -1), np.triu(xv, -1), dt, "triu")
        m = np.arange(6) % 2 == 0
        close(wick.masked_fill(x, m, -1.5), np.where(m, -1.5, xv), dt, "masked_fill")
    raises("WK_ERR_SHAPE", lambda: wick.glu(wick.zeros(3, "f32")), "glu of an odd last dim", "glu")
    i, iv = rand((10,), "i64", -100, 100)
    close(wick.affine(i, 3, 7), (iv * 3 + 7).astype(np.int64), "i64", "affine i64")
    close(wick.clamp(i, -5, 5), np.clip(iv, -5, 5).astype(np.int64), "i64", "clamp i64")
    raises("WK_ERR_DTYPE", lambda: wick.powf(i, 2.0), "powf of i64", "pow")


def test_binary_compare_where():
    refs = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "maximum": np.maximum,
            "minimum": np.minimum}
    for dt in ("f32", "bf16"):
        a, av = rand((3, 1, 5), dt)
        b, bv = rand((4, 1), dt, 0.5, 2)
        for name in wick.BINARY:
            close(getattr(wick, name)(a, b), refs[name](av, bv), dt, f"binary {name} broadcast")
    a, av = rand((30,), "i32", -20, 20)
    b, bv = rand((30,), "i32", -3, 3)
    with np.errstate(all="ignore"):
        q = np.where(bv == 0, 0, np.trunc(av / np.where(bv == 0, 1, bv)))
    close(wick.div(a, b), q.astype(np.int32), "i32", "int div truncates, /0 gives 0")
    close(wick.add(a, b), (av + bv).astype(np.int32), "i32", "int add")
    cmp = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal}
    x = np.array([1.0, np.nan, 2.0, -1.0, 3.0], np.float32)
    y = np.array([1.0, 1.0, np.nan, 0.0, 3.0], np.float32)
    for name in wick.COMPARE:
        got = getattr(wick, name)(wick.from_numpy(x), wick.from_numpy(y))
        check(got.dtype == "u8", f"compare {name} gives u8")
        close(got, cmp[name](x, y).astype(np.uint8), "u8", f"compare {name} with NaN")
    xi, yi = rand((2, 6), "i64", -3, 3)[0], rand((6,), "i64", -3, 3)[0]
    close(wick.le(xi, yi), (xi.numpy() <= yi.numpy()).astype(np.uint8), "u8", "compare le i64 broadcast")
    cond = wick.from_numpy(np.array([[1], [0]], np.uint8))
    t, tv = rand((2, 3))
    f, fv = rand((3,))
    close(wick.where(cond, t, f), np.where([[1], [0]], tv, fv), "f32", "where broadcast")
    raises("WK_ERR_DTYPE", lambda: wick.add(t, wick.zeros(3, "f64")), "add f32 + f64", "add")
    raises("WK_ERR_SHAPE", lambda: wick.mul(t, wick.zeros(4)), "mul shapes", "mul")


# ---------------------------------------------------------------- reductions, norms, sort
def test_reductions():
    for dt in ("f32", "f64"):
        x, xv = rand((3, 4, 5), dt)
        close(wick.sum(x), xv.sum(), dt, "sum all")
        close(wick.sum(x, (0, 2)), xv.sum((0, 2)), dt, "sum dims")
        close(wick.mean(x, -1, keepdim=True), xv.mean(-1, keepdims=True), dt, "mean keepdim")
        close(wick.max(x, 1), xv.max(1), dt, "max")
        close(wick.min(x, [0, 1]), xv.min((0, 1)), dt, "min")
        close(wick.argmax(x, 1), xv.argmax(1), "i64", "argmax")
        close(wick.argmin(x, -1, keepdim=True), xv.argmin(-1)[..., None], "i64", "argmin keepdim")
        sm = np.exp(xv - xv.max(-1, keepdims=True))
        sm /= sm.sum(-1, keepdims=True)
        close(wick.softmax(x), sm, dt, "softmax")
        close(wick.log_softmax(x), np.log(sm), dt, "log_softmax")
        w, wv = rand((5,), dt)
        b, bv = rand((5,), dt)
        close(wick.rms_norm(x, w, 1e-5), xv / np.sqrt((xv ** 2).mean(-1, keepdims=True) + 1e-5) * wv, dt, "rms_norm")
        ln = (xv - xv.mean(-1, keepdims=True)) / np.sqrt(xv.var(-1, keepdims=True) + 1e-5)
        close(wick.layer_norm(x, w, b, 1e-5), ln * wv + bv, dt, "layer_norm")
        close(wick.layer_norm(x), ln, dt, "layer_norm without w, b")
    i, iv = rand((6, 7), "i32", -10, 10)
    close(wick.sum(i, 1), iv.sum(1).astype(np.int32), "i32", "sum i32")
    raises("WK_ERR_DTYPE", lambda: wick.mean(i), "mean of i32", "mean")
    raises("WK_ERR_SHAPE", lambda: wick.max(wick.zeros((0, 3)), 0), "max of nothing", "max")


def test_add_rms_norm():
    """sum = x + r rounded to the dtype (numpy's own add, exact), out = the rms_norm of that sum; r transposed."""
    for dt, npt in (("f32", np.float32), ("f64", np.float64), ("f16", np.float16)):
        x, xv = rand((3, 4, 5), dt)
        rt, rv = rand((3, 5, 4), dt)
        w, wv = rand((5,), dt)
        s, o = wick.add_rms_norm(x, wick.transpose(rt, 1, 2), w, 1e-5)
        sv = (xv.astype(npt) + rv.transpose(0, 2, 1).astype(npt)).astype(np.float64)
        check(np.array_equal(s.numpy().astype(np.float64), sv), f"add_rms_norm sum {dt}: exact")
        close(o, sv / np.sqrt((sv ** 2).mean(-1, keepdims=True) + 1e-5) * wv, dt, f"add_rms_norm {dt}")
        check(np.array_equal(o.numpy(), wick.rms_norm(s, w, 1e-5).numpy()), f"add_rms_norm {dt}: rms_norm of sum")
    x, _ = rand((2, 4))
    s, o = wick.add_rms_norm(x, np.ones((2, 4), np.float32), np.ones(4, np.float32))
    check(s.shape == (2, 4) and o.shape == (2, 4) and s.dtype == "f32", "add_rms_norm of numpy arrays")
    raises("WK_ERR_SHAPE", lambda: wick.add_rms_norm(x, wick.zeros((4, 2)), wick.ones(4)), "add_rms_norm r shape",
           "add_rms_norm")
    raises("WK_ERR_DTYPE", lambda: wick.add_rms_norm(x, wick.zeros((2, 4), "f64"), wick.ones(4)),
           "add_rms_norm r dtype", "add_rms_norm")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.add_rms_norm(x, x, wick.ones(4), -1.0), "add_rms_norm eps",
           "add_rms_norm")


def test_linear():
    """wk_linear against numpy: the norm, the product, a bias, each gated unit and a residual (the composed ops; the
    GPU's fused kernel is tests/cases/linear.c's), an x with no rows, errors."""
    gates = {"glu": lambda a, b: a / (1 + np.exp(-b)), "swiglu": lambda a, b: a / (1 + np.exp(-a)) * b,
             "geglu": lambda a, b: 0.5 * a * np.vectorize(math.erfc)(-a / math.sqrt(2)) * b,
             "geglu_tanh": lambda a, b: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3))) * b}
    for dt in ("f32", "bf16"):
        for gate, ref in gates.items():
            x, xv = rand((3, 32), dt)
            w, wv = rand((10, 32), dt, -0.5, 0.5)
            n, nv = rand((32,), dt, 0.5, 1.5)
            b, bv = rand((10,), dt)
            r, rv = rand((3, 5), dt)
            got = wick.linear(x, w, norm=n, eps=1e-5, bias=b, glu=gate, residual=r)
            y = (xv / np.sqrt((xv ** 2).mean(-1, keepdims=True) + 1e-5) * nv) @ wv.T + bv
            tol = (1e-5, 1e-5) if dt == "f32" else (5e-2, 5e-2)
            close(got, ref(y[:, :5], y[:, 5:]) + rv, dt, f"linear {dt} {gate}", tol)
    x, xv = rand((2, 16))
    w, wv = rand((4, 16))
    close(wick.linear(x, w), xv @ wv.T, "f32", "linear plain")
    for inter in (False, True):  # rope over the first two heads of 4 of three (tokens: the tables' rows)
        xr, xrv = rand((1, 2, 16))
        wr, wrv = rand((12, 16))
        c, cv = rand((2, 2))
        s, sv = rand((2, 2))
        y = (xrv @ wrv.T).reshape(2, 3, 4)
        a, b = (y[:, :2, 0::2], y[:, :2, 1::2]) if inter else (y[:, :2, :2], y[:, :2, 2:])
        ra, rb = a * cv[:, None] - b * sv[:, None], a * sv[:, None] + b * cv[:, None]
        if inter:
            y[:, :2, 0::2], y[:, :2, 1::2] = ra, rb
        else:
            y[:, :2, :2], y[:, :2, 2:] = ra, rb
        got = wick.linear(xr, wr, rope=(c, s), rope_interleaved=inter, rope_cols=8)
        close(got, y.reshape(1, 2, 12), "f32", f"linear rope interleaved={inter}")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.linear(xr, wr, glu="swiglu", rope=(c, s)), "linear rope glu",
           "linear")
    x0 = wick.zeros((0, 16))
    got = wick.linear(x0, w, norm=wick.ones(16), glu="swiglu", residual=wick.zeros((0, 2)))
    check(got.shape == (0, 2), f"linear with no rows of x: shape {got.shape}")
    raises("WK_ERR_SHAPE", lambda: wick.linear(x, wick.zeros((3, 16)), glu="swiglu"), "linear glu odd", "linear")
    raises("WK_ERR_DTYPE", lambda: wick.linear(x, w.cast("f16")), "linear w dtype", "linear")
    raises("WK_ERR_SHAPE", lambda: wick.linear(x, w, residual=wick.zeros((2, 3))), "linear residual", "linear")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.linear(x, w, norm=wick.ones(16), eps=-1.0), "linear eps", "linear")
    try:
        wick.linear(x, w, glu="relu")
        check(False, "linear: unknown gate accepted")
    except ValueError:
        check(True, "linear: unknown gate refused")


def test_sort():
    for dt in ("f32", "i32"):
        x, xv = rand((4, 9), dt, -3, 3)  # rounded ints: ties, which a stable sort keeps in order
        x = wick.from_numpy(np.round(xv)).cast(dt)
        xv = np.round(xv)
        close(wick.argsort(x), np.argsort(xv, -1, kind="stable"), "i64", f"argsort {dt}")
        close(wick.argsort(x, descending=True), np.argsort(-xv, -1, kind="stable"), "i64", f"argsort desc {dt}")
        v, idx = wick.sort(x, True)
        close(v, -np.sort(-xv, -1), dt, f"sort values {dt}")
        close(idx, np.argsort(-xv, -1, kind="stable"), "i64", f"sort indices {dt}")
    n = wick.from_numpy(np.array([2.0, np.nan, -1.0], np.float32))
    close(wick.sort(n)[0], [-1.0, 2.0, np.nan], "f32", "sort puts NaN last")


def test_matmul():
    for dt in ("f32", "f64", "f16"):
        a, av = rand((2, 1, 3, 5), dt)
        b, bv = rand((4, 5, 6), dt)
        close(wick.matmul(a, b), av @ bv, dt, "matmul batch broadcast", (1e-2, 1e-2) if dt == "f16" else None)
    a, av = rand((3, 4))
    close(a @ a.T, av @ av.T, "f32", "@ operator with a transposed view")
    raises("WK_ERR_SHAPE", lambda: wick.matmul(a, a), "matmul (3,4)x(3,4)", "matmul")
    raises("WK_ERR_DTYPE", lambda: wick.matmul(a.cast("i32"), a.cast("i32").T), "matmul i32", "matmul")


# ---------------------------------------------------------------- convolution, pooling, resampling
def conv2d_ref(x, w, b, stride, pad, dil, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    ho = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out, og = np.zeros((n, o, ho, wo)), o // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i * dil[0]:i * dil[0] + stride[0] * (ho - 1) + 1:stride[0],
                           j * dil[1]:j * dil[1] + stride[1] * (wo - 1) + 1:stride[1]]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    return out if b is None else out + b[None, :, None, None]


def conv_t2d_ref(x, w, b, stride, pad, dil, groups, opad):
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = c // groups
    hf = (h - 1) * stride[0] + dil[0] * (kh - 1) + 1 + opad[0]
    wf = (wd - 1) * stride[1] + dil[1] * (kw - 1) + 1 + opad[1]
    full = np.zeros((n, og * groups, hf, wf))
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,co->nohw", x[:, g * cg:(g + 1) * cg], w[g * cg:(g + 1) * cg, :, i, j])
                full[:, g * og:(g + 1) * og, i * dil[0]:i * dil[0] + stride[0] * (h - 1) + 1:stride[0],
                     j * dil[1]:j * dil[1] + stride[1] * (wd - 1) + 1:stride[1]] += contrib
    ho = (h - 1) * stride[0] - 2 * pad[0] + dil[0] * (kh - 1) + opad[0] + 1
    wo = (wd - 1) * stride[1] - 2 * pad[1] + dil[1] * (kw - 1) + opad[1] + 1
    out = full[:, :, pad[0]:pad[0] + ho, pad[1]:pad[1] + wo]
    return out if b is None else out + b[None, :, None, None]


def test_conv():
    for dt in ("f32", "f64"):
        x, xv = rand((2, 4, 7, 6), dt)
        w, wv = rand((6, 2, 3, 2), dt)
        b, bv = rand((6,), dt)
        close(wick.conv2d(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2),
              conv2d_ref(xv, wv, bv, (2, 1), (1, 0), (1, 2), 2), dt, "conv2d")
        x1, x1v = rand((2, 4, 9), dt)
        w1, w1v = rand((3, 4, 3), dt)
        close(wick.conv1d(x1, w1, stride=2, padding=1, dilation=2),
              conv2d_ref(x1v[:, :, None], w1v[:, :, None], None, (1, 2), (0, 1), (1, 2), 1)[:, :, 0], dt, "conv1d")
        wt, wtv = rand((4, 3, 3, 2), dt)
        bt, btv = rand((6,), dt)
        close(wick.conv_transpose2d(x, wt, bt, stride=2, padding=1, groups=2, output_padding=(1, 0)),
              conv_t2d_ref(xv, wtv, btv, (2, 2), (1, 1), (1, 1), 2, (1, 0)), dt, "conv_transpose2d")
        wt1, wt1v = rand((4, 5, 3), dt)
        close(wick.conv_transpose1d(x1, wt1, stride=3, padding=1, dilation=2, output_padding=1),
              conv_t2d_ref(x1v[:, :, None], wt1v[:, :, None], None, (1, 3), (0, 1), (1, 2), 1, (0, 1))[:, :, 0],
              dt, "conv_transpose1d")
    raises("WK_ERR_SHAPE", lambda: wick.conv2d(x, wick.zeros((6, 3, 3, 3), "f64")), "conv2d channels", "conv2d")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.conv1d(x1, w1, stride=0), "conv1d stride 0", "conv1d")


def pool_ref(x, k, s, p, kind, include_pad=True):
    n, c, h, w = x.shape
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=fill)
    ones = np.pad(np.ones((h, w)), ((p[0], p[0]), (p[1], p[1])))
    ho, wo = (h + 2 * p[0] - k[0]) // s[0] + 1, (w + 2 * p[1] - k[1]) // s[1] + 1
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            if kind == "max":
                out[:, :, i, j] = win.max((2, 3))
            else:
                cnt = k[0] * k[1] if include_pad else ones[i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].sum()
                out[:, :, i, j] = win.sum((2, 3)) / cnt
    return out


def test_pool_upsample():
    for dt in ("f32", "f64"):
        x, xv = rand((2, 3, 7, 8), dt)
        close(wick.max_pool2d(x, 3, 2, 1), pool_ref(xv, (3, 3), (2, 2), (1, 1), "max"), dt, "max_pool2d")
        close(wick.avg_pool2d(x, (3, 2), (2, 2), (1, 1)), pool_ref(xv, (3, 2), (2, 2), (1, 1), "avg"), dt,
              "avg_pool2d count_include_pad")
        close(wick.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
              pool_ref(xv, (3, 3), (1, 1), (1, 1), "avg", False), dt, "avg_pool2d excluding padding")
    i, iv = rand((1, 2, 4, 4), "i32", -9, 9)
    close(wick.max_pool2d(i, 2), pool_ref(iv, (2, 2), (2, 2), (0, 0), "max").astype(np.int32), "i32",
          "max_pool2d i32")
    x, xv = rand((1, 2, 3, 5))

    def nearest(n_in, n_out):
        scale = np.float32(n_in) / np.float32(n_out)
        return np.minimum(np.floor(np.arange(n_out, dtype=np.float32) * scale).astype(int), n_in - 1)
    close(wick.upsample_nearest2d(x, (7, 4)), xv[:, :, nearest(3, 7)][:, :, :, nearest(5, 4)], "f32",
          "upsample_nearest2d")
    close(wick.upsample_nearest1d(x.reshape(1, 6, 5), 12), xv.reshape(1, 6, 5)[:, :, nearest(5, 12)], "f32",
          "upsample_nearest1d")

    def bilinear_idx(n_in, n_out, align):
        d = np.arange(n_out, dtype=np.float64)
        if align:
            src = d * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
        else:
            src = np.maximum((d + 0.5) * (n_in / n_out) - 0.5, 0.0)
        i0 = np.floor(src).astype(int)
        return i0, np.minimum(i0 + 1, n_in - 1), src - i0
    for align in (False, True):
        h0, h1, lh = bilinear_idx(3, 6, align)
        w0, w1, lw = bilinear_idx(5, 8, align)
        rows = xv[:, :, h0] * (1 - lh)[:, None] + xv[:, :, h1] * lh[:, None]
        ref = rows[:, :, :, w0] * (1 - lw) + rows[:, :, :, w1] * lw
        close(wick.upsample_bilinear2d(x, (6, 8), align_corners=align), ref, "f32", f"bilinear align={align}")
    raises("WK_ERR_SHAPE", lambda: wick.max_pool2d(wick.zeros((2, 3)), 2), "max_pool2d rank 2", "max_pool2d")


# ---------------------------------------------------------------- indexing, rope
def test_indexing():
    for dt in ("f32", "i64"):
        x, xv = rand((4, 5, 3), dt, -9, 9)
        ids = np.array([3, 0, 0, 2], np.int64)
        close(wick.index_select(x, 1, wick.from_numpy(ids)), xv[:, ids], dt, "index_select")
        g = RNG.integers(0, 5, (3, 4, 2)).astype(np.int32)
        close(wick.gather(x, 1, wick.from_numpy(g)), np.take_along_axis(xv[:3, :, :2], g, 1), dt, "gather")
        src, srcv = rand((3, 4, 2), dt, -9, 9)
        sc, sa, written = xv.copy(), xv.copy(), np.zeros(xv.shape, bool)
        for idx in np.ndindex(g.shape):
            dst = (idx[0], g[idx], idx[2])
            sc[dst] = srcv[idx]
            sa[dst] += srcv[idx]
            written[dst] = True
        close(wick.scatter(x, 1, g, src), sc, dt, "scatter (last write wins on the CPU)")
        close(wick.scatter_add(x, 1, g, src), sa, dt, "scatter_add")
        ia, iav = np.array([1, 1, 4], np.uint8), xv.copy()
        s3, s3v = rand((4, 3, 3), dt, -9, 9)
        np.add.at(iav, (slice(None), ia.astype(int)), s3v)
        close(wick.index_add(x, 1, ia, s3), iav, dt, "index_add with duplicates")
        y = x.contiguous()
        check(wick.index_add(y, 1, ia, s3, inplace=True) is y, "index_add inplace returns its target")
        close(y, iav, dt, "index_add inplace")
        close(x, xv, dt, "index_add leaves its input alone")
        z = x.contiguous()
        wick.scatter_add(z, 1, g, src, inplace=True)
        close(z, sa, dt, "scatter_add inplace")
        wick.scatter(z, 1, g, src, inplace=True)
        close(z, np.where(written, sc, sa), dt, "scatter inplace over the scatter_add result")
    bad = wick.from_numpy(np.array([0, 5], np.int64))
    raises("WK_ERR_INDEX_OUT_OF_RANGE", lambda: wick.index_select(x, 1, bad), "index 5 of 5", "index_select")
    raises("WK_ERR_DTYPE", lambda: wick.index_select(x, 1, bad.cast("f32")), "f32 ids", "index_select")


def test_rope():
    for dt in ("f32", "bf16"):
        x, xv = rand((2, 3, 4, 6), dt)
        c, cv = rand((4, 3), dt)
        s, sv = rand((4, 3), dt)
        x1, x2 = xv[..., :3], xv[..., 3:]
        close(wick.rope(x, c, s), np.concatenate([x1 * cv - x2 * sv, x1 * sv + x2 * cv], -1), dt, "rope")
        e, o = xv[..., 0::2], xv[..., 1::2]
        ri = np.stack([e * cv - o * sv, e * sv + o * cv], -1).reshape(xv.shape)
        close(wick.rope_i(x, c, s), ri, dt, "rope_i")
        xt, xtv = rand((2, 4, 3, 6), dt)  # (B, T, H, D)
        a, b = xtv[..., :3], xtv[..., 3:]
        ct, st = cv[None, :, None, :], sv[None, :, None, :]
        close(wick.rope_thd(xt, c, s), np.concatenate([a * ct - b * st, a * st + b * ct], -1), dt, "rope_thd")
    raises("WK_ERR_SHAPE", lambda: wick.rope(x, wick.zeros((4, 2), dt), s), "rope cos shape", "rope")


# ---------------------------------------------------------------- views, creation, transfer, in place
def test_views():
    x, xv = rand((2, 3, 4))
    close(wick.reshape(x, (4, -1)), xv.reshape(4, -1), "f32", "reshape")
    close(x.reshape(6, 4), xv.reshape(6, 4), "f32", "Tensor.reshape")
    close(wick.transpose(x, 0, 2), xv.transpose(2, 1, 0), "f32", "transpose")
    p = wick.permute(x, (1, 2, 0))
    close(p, xv.transpose(1, 2, 0), "f32", "permute")
    check(p.strides == (4, 1, 12) and not p.is_contiguous, f"permute is a view: strides {p.strides}")
    close(wick.narrow(x, 2, 1, 2), xv[:, :, 1:3], "f32", "narrow")
    close(wick.broadcast_to(wick.narrow(x, 0, 0, 1), (5, 3, 4)), np.broadcast_to(xv[:1], (5, 3, 4)), "f32",
          "broadcast_to")
    close(wick.squeeze(wick.unsqueeze(x, 1), 1), xv, "f32", "unsqueeze then squeeze")
    check(wick.unsqueeze(x, -1).shape == (2, 3, 4, 1), "unsqueeze -1")
    close(wick.flatten(x, 1), xv.reshape(2, 12), "f32", "flatten")
    close(wick.as_strided(x, (3, 2), (1, 4), 2), np.lib.stride_tricks.as_strided(
        xv.ravel()[2:], (3, 2), (8, 32)), "f32", "as_strided")
    raises("WK_ERR_SHAPE", lambda: wick.squeeze(x, 0), "squeeze a dim of 2", "squeeze")
    raises("WK_ERR_SHAPE", lambda: wick.permute(x, (0, 1)), "permute of 2 dims for rank 3")


def test_creation():
    for dt in ("f32", "i32"):
        close(wick.zeros((2, 3), dt), np.zeros((2, 3)), dt, "zeros")
        close(wick.ones(4, dt), np.ones(4), dt, "ones")
        close(wick.full((2, 2), 7, dt), np.full((2, 2), 7), dt, "full")
        check(wick.empty((3, 0), dt).shape == (3, 0), "empty zero-size")
    close(wick.arange(5), np.arange(5), "i64", "arange(5) is i64")
    close(wick.arange(1.0, 2.0, 0.25), np.arange(1.0, 2.0, 0.25), "f32", "arange float")
    close(wick.arange(10, 0, -3, dtype="f64"), np.arange(10, 0, -3), "f64", "arange negative step")
    u = wick.rand_uniform((1000,), seed=5, lo=-1, hi=3)
    uv = u.numpy()
    check(uv.min() >= -1 and uv.max() <= 3 and abs(uv.mean() - 1) < 0.15, f"rand_uniform range {uv.min()}..")
    check(np.array_equal(uv, wick.rand_uniform((1000,), seed=5, lo=-1, hi=3).numpy()), "rand_uniform seeded")
    check(not np.array_equal(uv, wick.rand_uniform((1000,), seed=6, lo=-1, hi=3).numpy()), "seed matters")
    nv = wick.rand_normal((4000,), 1, 2.0, 0.5, "f64").numpy()
    check(abs(nv.mean() - 2) < 0.05 and abs(nv.std() - 0.5) < 0.05, f"rand_normal {nv.mean()} {nv.std()}")
    raises("WK_ERR_DTYPE", lambda: wick.rand_normal(3, dtype="i32"), "rand_normal i32", "rand")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.arange(0, 1, 0), "arange step 0", "arange")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.zeros(3, "f8"), "unknown dtype name", "f8")
    raises("WK_ERR_DEVICE", lambda: wick.zeros(3, device="tpu:0"), "unknown device", "tpu")


def test_copy_cast_cat():
    a, av = rand((2, 3))
    b, bv = rand((4, 3))
    close(wick.cat([a, b, a]), np.concatenate([av, bv, av]), "f32", "cat")
    close(wick.cat([a.T, b.T], 1), np.concatenate([av.T, bv.T], 1), "f32", "cat of views along 1")
    f = wick.from_numpy(np.array([-2.7, 2.7, 1e10, np.nan, -1e10], np.float32))
    close(wick.cast(f, "i32"), np.array([-2, 2, 2**31 - 1, 0, -2**31], np.int32), "i32", "cast truncates, saturates")
    close(f.cast("u8").cast("f64"), np.array([0, 2, 255, 0, 0], np.float64), "f64", "cast to u8 saturates")
    c = wick.contiguous(a.T)
    check(c.is_contiguous and c.shape == (3, 2), "contiguous of a transposed view")
    close(wick.to_device(a, "cpu"), av, "f32", "to_device cpu")
    z = wick.zeros((3, 4))
    wick.fill(wick.narrow(z, 1, 1, 2), 5)
    wick.copy_into(wick.narrow(z, 0, 2, 1), wick.arange(4, dtype="f32"))
    ref = np.zeros((3, 4))
    ref[:, 1:3] = 5
    ref[2] = np.arange(4)
    close(z, ref, "f32", "fill and copy_into views")
    wick.slice_set(z, wick.ones((3, 1)), 1, 0)
    ref[:, 0] = 1
    close(z, ref, "f32", "slice_set")
    wick.copy2d(wick.arange(8, dtype="f32"), z, 2, 2, 4, 4, 1, 0)
    ref[0, :2], ref[1, :2] = [1, 2], [5, 6]
    close(z, ref, "f32", "copy2d")
    raises("WK_ERR_SHAPE", lambda: wick.cat([a, wick.zeros((2, 4))]), "cat shapes", "cat")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.fill(wick.broadcast_to(wick.zeros(1), (3,)), 1),
           "fill an overlapping view", "fill")


def test_operators_and_properties():
    a, av = rand((2, 3))
    check(isinstance(a, wick.Tensor) and a.shape == (2, 3) and a.ndim == 2 and a.numel == 6, "shape/ndim/numel")
    check(a.dtype == "f32" and a.device == "cpu" and a.strides == (3, 1) and a.offset == 0, "dtype/device/strides")
    check(not a.is_read_only and a.is_contiguous and len(a) == 2, "is_read_only/is_contiguous/len")
    check(repr(a) == "wick.Tensor(shape=(2, 3), dtype=f32, device=cpu)", repr(a))
    check(a.__dlpack_device__() == (1, 0), "__dlpack_device__ of a CPU tensor")
    close(a + a * 2 - 1, av + av * 2 - 1, "f32", "+ * - operators")
    close(1 - a, 1 - av, "f32", "reflected -")
    close(a / 4, av / 4, "f32", "/ by a number")
    close(2 / (a * a + 1), 2 / (av * av + 1), "f32", "reflected /")
    close(-a, -av, "f32", "unary -")
    close(a < 0.5, (av.astype(np.float32) < 0.5).astype(np.uint8), "u8", "< a number")
    close(a == a, np.ones((2, 3)), "u8", "== is element-wise")
    close(a + np.float32(1) * np.ones(3, np.float32), av + 1, "f32", "+ a numpy array")
    try:
        wick.Tensor()
        check(False, "wick.Tensor() should raise")
    except TypeError:
        check(True, "wick.Tensor() raises TypeError")


def test_errors():
    a = wick.zeros((2, 3))
    try:
        wick.matmul(a, a)
        check(False, "matmul (2,3)x(2,3) should fail")
    except wick.WickError as e:
        check(e.status == "WK_ERR_SHAPE" and "matmul" in e.message and "WK_ERR_SHAPE" in str(e),
              f"WickError status/message: {e.status} {e.message}")
        check(isinstance(e, Exception), "WickError is an Exception")
    # the message is the failing call's own, not one left by an earlier failure
    raises("WK_ERR_SHAPE", lambda: wick.reshape(a, (4, 2)), "reshape 6 -> 8", "reshape")
    raises("WK_ERR_INVALID_ARGUMENT", lambda: wick.clamp(a, 1, -1), "clamp lo > hi", "clamp")
    raises("WK_ERR_IO", lambda: wick.load_npy("/nonexistent/dir/x.npy"), "missing .npy", "/nonexistent/dir/x.npy")


# ---------------------------------------------------------------- numpy
def test_numpy_round_trips():
    for dt in wick.DTYPES:
        npdt = ml_dtypes.bfloat16 if dt == "bf16" else {"u8": np.uint8, "u32": np.uint32, "i32": np.int32,
                                                        "i64": np.int64, "f16": np.float16, "f32": np.float32,
                                                        "f64": np.float64}[dt]
        a = (RNG.uniform(0, 100, (3, 4))).astype(npdt)
        t = wick.from_numpy(a)
        check(t.dtype == dt and t.shape == (3, 4), f"from_numpy {dt}: {t}")
        back = t.numpy()
        check(back.dtype == np.dtype(npdt) and np.array_equal(back.view(np.uint8), a.view(np.uint8)),
              f"numpy round trip {dt}")
        check(not np.shares_memory(a, back), f"from_numpy copies ({dt})")
        v = t.T.numpy()  # a strided view: numpy sees the same strides, no copy
        check(np.array_equal(v.astype(np.float64), a.T.astype(np.float64)) and np.shares_memory(v, back),
              f"numpy of a transposed view {dt}")
    b = wick.from_numpy(np.array([[True, False]]))
    check(b.dtype == "u8" and b.numpy().tolist() == [[1, 0]], "bool -> u8")
    n = wick.from_numpy(np.arange(12.0).reshape(3, 4)[:, ::2])
    close(n, np.arange(12.0).reshape(3, 4)[:, ::2], "f64", "from_numpy of a strided view")
    close(wick.from_numpy(np.arange(4, dtype=">i4")), np.arange(4), "i32", "from_numpy big-endian")
    close(wick.from_numpy(np.float32(2.5)), np.float64(2.5), "f32", "from_numpy 0-d")
    close(wick.from_numpy(np.zeros((0, 3), np.float32)), np.zeros((0, 3)), "f32", "from_numpy empty")
    for bad in (np.complex64, np.int16, np.float128 if hasattr(np, "float128") else np.int8):
        raises("WK_ERR_DTYPE", lambda: wick.from_numpy(np.zeros(2, bad)), f"from_numpy {np.dtype(bad)}", "dtype")


# ---------------------------------------------------------------- files (the wrappers; the formats' own tests
# are tests/py/test_safetensors.py etc.)
def test_files(tmp):
    a, av = rand((3, 4))
    b = wick.arange(5, dtype="i64")
    path = os.path.join(tmp, "t.safetensors")
    wick.save_safetensors(path, {"a": a, "b": b, "c": np.ones(2, np.float16)}, {"k": "v"})
    import safetensors.numpy
    st = safetensors.numpy.load_file(path)
    check(sorted(st) == ["a", "b", "c"] and np.array_equal(st["a"], av.astype(np.float32)), "save_safetensors")
    d = wick.load_safetensors(path)
    close(d["a"], av, "f32", "load_safetensors")
    check(d["a"].is_read_only, "safetensors CPU loads are read-only views")
    check(list(wick.load_safetensors(path, names=["c"], dtype="f32")) == ["c"], "load_safetensors names")
    with wick.safe_open(path) as f:
        check(f.keys() == ["a", "b", "c"] and f.metadata() == {"k": "v"}, f"safe_open {f.keys()}")
        info = f.info("b")
        check(info["dtype"] == "I64" and info["shape"] == (5,) and info["bytes"] == 40, f"info {info}")
        close(f.get_tensor("b", dtype="f64"), np.arange(5), "f64", "get_tensor dtype")
        raises("WK_ERR_INVALID_ARGUMENT", lambda: f.get_tensor("zz"), "absent tensor", "zz")
    raises("WK_ERR_IO", lambda: wick.load_safetensors(os.path.join(tmp, "none.safetensors")), "missing file",
           "none.safetensors")
    npy = os.path.join(tmp, "t.npy")
    wick.save_npy(npy, a.T)
    check(np.array_equal(np.load(npy), av.T.astype(np.float32)), "save_npy")
    close(wick.load_npy(npy, dtype="f64"), av.T, "f64", "load_npy")
    gg = os.path.join(tmp, "t.gguf")
    w = wick.GGUFWriter()
    w.add_string("general.name", "tiny")
    w.add_uint32("n", 7)
    w.add_float32("x", 0.5)
    w.add_bool("flag", True)
    w.add_int64("neg", -3)
    w.add_array("list", [1, 2, 3], "int32")
    w.add_array("words", ["a", "bc"], "string")
    w.add_tensor("w", a)
    w.save(gg)
    meta, ts = wick.load_gguf(gg)
    check(meta == {"general.name": "tiny", "n": 7, "x": 0.5, "flag": True, "neg": -3, "list": [1, 2, 3],
                   "words": ["a", "bc"]}, f"load_gguf metadata {meta}")
    close(ts["w"], av, "f32", "load_gguf tensor")
    import gguf
    r = gguf.GGUFReader(gg)
    check([t.name for t in r.tensors] == ["w"] and r.fields["n"].contents() == 7, "gguf-py reads the file")
    g = wick.GGUFFile(gg)
    check(g.version == 3 and g.alignment == 32, f"GGUFFile version {g.version}")
    ti = g.tensor_infos[0]
    check(ti["name"] == "w" and ti["ne"] == (4, 3) and ti["shape"] == (3, 4) and ti["ggml_type_name"] == "F32",
          f"tensor_infos {ti}")
    check(g.load_raw("w").shape == (3, 16), "load_raw shape (rows, bytes a row)")
    g.close()
    raises("WK_ERR_FILE", lambda: wick.load_gguf(path), "a safetensors file read as GGUF", path)
    # a file of gguf-py's: a block-quantized tensor (raw u8), i8 (loads as i32), nested arrays, UTF-8 strings
    gq = os.path.join(tmp, "q.gguf")
    w = gguf.GGUFWriter(gq, "llama")
    w.add_array("nested", [[1, 2], [3]])
    w.add_string("s", "h\u00e9llo")
    w.add_tensor("q", np.arange(136, dtype=np.uint8).reshape(2, 68), raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    w.add_tensor("i8", np.arange(-3, 3, dtype=np.int8).reshape(2, 3))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    meta, ts = wick.load_gguf(gq)
    check(meta == {"general.architecture": "llama", "nested": [[1, 2], [3]], "s": "h\u00e9llo"}, f"metadata {meta}")
    check(ts["q"].dtype == "q8_0" and ts["q"].shape == (2, 64) and
          np.array_equal(ts["q"].numpy(), np.arange(136).reshape(2, 68)),
          "a Q8_0 tensor loads as q8_0, its raw blocks (rows, bytes a row) from numpy()")
    close(ts["i8"], np.arange(-3, 3).reshape(2, 3), "i32", "an i8 tensor loads as i32")
    raises("WK_ERR_DTYPE", lambda: wick.GGUFFile(gq).load("q", dtype="i32"), "load_as i32 of a quantized tensor",
           "q")


# ---------------------------------------------------------------- GPU (where this build finds one)
def test_gpu():
    gpus = [d for d in wick.device_names() if d != "cpu"]
    check(wick.device_names()[0] == "cpu", f"device_names {wick.device_names()}")
    if not gpus:
        print("note: no GPU device: the GPU part is skipped")
        return
    dev = gpus[0]
    a, av = rand((5, 6))
    g = a.to(dev)
    check(g.device == dev and g.__dlpack_device__()[1] == int(dev.split(":")[1]), f"to({dev})")
    close(g.numpy(), av, "f32", "numpy() of a GPU tensor (a copy)")
    close(wick.softmax(g * 2).to("cpu"), wick.softmax(a * 2).numpy(), "f32", "softmax on the GPU")
    close((g @ g.T).numpy(), av @ av.T, "f32", "matmul on the GPU", (1e-3, 1e-3))
    close(wick.from_numpy(av.astype(np.float32), dev).cast("bf16").numpy(), av, "bf16", "from_numpy to GPU, bf16")
    bad = wick.from_numpy(np.array([9], np.int64), dev)
    try:
        wick.index_select(g, 0, bad).numpy()
        check(False, "an index out of range on the GPU should raise")
    except wick.WickError as e:
        check(e.status == "WK_ERR_INDEX_OUT_OF_RANGE", f"GPU index fault: {e}")
    raises("WK_ERR_DEVICE", lambda: a + g, "cpu + gpu", "add")
    r, _ = rand((5, 6))
    w, _ = rand((6,))
    s_cpu, o_cpu = wick.add_rms_norm(a, r, w)
    s_gpu, o_gpu = wick.add_rms_norm(g, r.to(dev), w.to(dev))
    check(np.array_equal(s_gpu.numpy(), s_cpu.numpy()), "add_rms_norm's sum on the GPU: the CPU's exactly")
    close(o_gpu.numpy(), o_cpu.numpy().astype(np.float64), "f32", "add_rms_norm on the GPU")
    raises("WK_ERR_DEVICE", lambda: wick.add_rms_norm(g, r, w.to(dev)), "add_rms_norm gpu + cpu", "add_rms_norm")


# ---------------------------------------------------------------- pip install ./python
def _build_backend_missing():
    """What this Python lacks to build the package offline (setuptools, and bdist_wheel: setuptools >= 70.1
    or the wheel package), or None."""
    try:
        import setuptools
    except ImportError:
        return "setuptools"
    if tuple(int(v) for v in setuptools.__version__.split(".")[:2]) >= (70, 1):
        return None
    try:
        import wheel  # noqa: F401
    except ImportError:
        return "wheel (or setuptools >= 70.1)"
    return None


def test_pip_install(tmp):
    missing = _build_backend_missing()
    if missing:  # scripts/py-env.sh installs them; offline without them the build cannot run
        print(f"note: pip install ./python SKIPPED: {sys.executable} lacks {missing} (run scripts/py-env.sh)")
        return
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
    pkg = shutil.copytree(src, os.path.join(tmp, "python"), ignore=shutil.ignore_patterns("__pycache__"))
    env_dir = os.path.join(tmp, "venv")
    # without pip: a new venv's own bundled pip and setuptools (65 on Python 3.11) would shadow this
    # environment's, and that setuptools cannot build a wheel offline without the `wheel` package
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", env_dir], check=True)
    py = os.path.join(env_dir, "bin", "python")
    # the new environment sees this one's site-packages (numpy, pip, setuptools) through a .pth file
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    with open(os.path.join(site, "parent.pth"), "w") as f:
        f.write(os.path.dirname(np.__path__[0]) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([py, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                        pkg], env=env, capture_output=True, text=True)
    check(r.returncode == 0, f"pip install ./python: {r.stdout}{r.stderr}")
    code = ("import wick; a = wick.from_numpy(__import__('numpy').arange(3.0)); "
            "print(wick.__file__); print((wick.exp(a) * 0 + a).numpy().tolist())")
    r = subprocess.run([py, "-c", code], env=env, capture_output=True, text=True, cwd=tmp)
    lines = r.stdout.split("\n")
    check(r.returncode == 0 and lines[0].startswith(env_dir) and lines[1] == "[0.0, 1.0, 2.0]",
          f"import wick from the installed package: {r.stdout}{r.stderr}")


def test_readme(tmp):
    """python/README.md's example runs."""
    readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "README.md")
    blocks = re.findall(r"```python\n(.*?)```", open(readme).read(), re.S)
    check(len(blocks) == 1, f"python/README.md has {len(blocks)} python blocks")
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        for code in blocks:
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                exec(compile(code, "python/README.md", "exec"), {"__name__": "__readme__"})
            check("(2, 3) f32 cpu" in printed.getvalue() and "WK_ERR_SHAPE" in printed.getvalue(),
                  f"the README example prints {printed.getvalue()!r}")
        check(os.path.exists("y.safetensors"), "the README example wrote its file")
    finally:
        os.chdir(cwd)


def main():
    tmp = tempfile.mkdtemp(prefix="wick-py-")
    tests = [test_unary, test_parametric, test_binary_compare_where, test_reductions, test_add_rms_norm, test_linear,
             test_sort, test_matmul, test_conv, test_pool_upsample, test_indexing, test_rope, test_views, test_creation,
             test_copy_cast_cat, test_operators_and_properties, test_errors, test_numpy_round_trips,
             lambda: test_files(tmp), test_gpu, lambda: test_readme(tmp), lambda: test_pip_install(tmp)]
    try:
        run(tests)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
