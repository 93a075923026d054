#!/usr/bin/python3
"""make_golden.py: writes the PyTorch golden files (tests/golden/*.txt) that tests/test_golden.c checks wick
against, for the semantics PyTorch defines: conv, pooling, upsampling, gather/scatter, sort, round, casts,
softmax, pad and the reordering ops (flip, roll, repeat, repeat_interleave, one_hot), the activations (softplus,
mish, hardswish, hardsigmoid, leaky_relu, the glu kinds), tril/triu, masked_fill, topk/kthvalue/median, the
statistics (var, std, logsumexp, vector norm), the normalisation layers (layer_norm over the last k dims,
inference batch_norm, group_norm) and the cumulative ops (cumsum, cumprod, logcumsumexp).

Run with Debian's python3-torch (1.13): /usr/bin/python3 tests/golden/make_golden.py [outdir]
Deterministic: every golden draws from its own generator seeded by the CRC32 of its name. f16/bf16 goldens
take inputs rounded to the dtype and PyTorch's float64 result on them (tolerances 2e-3 / 1e-2 relative L2).
Left out on purpose: what PyTorch leaves undefined (scatter with duplicate indices, float->int out of range
or NaN), and the casts where PyTorch 1.13 rounds twice through f32 (f64->f16, f64->bf16, i64->bf16) instead
of once as wick.h (wk_cast) says; the script prints each value it leaves out.

File format (tokens separated by whitespace; '#' starts a comment that runs to the end of the line):
  golden NAME                       starts a record; NAME is "<op>.<dtype>.<what>", unique, no spaces
  op OP                             conv1d conv2d conv_transpose1d conv_transpose2d max_pool2d avg_pool2d
                                    upsample_nearest1d upsample_nearest2d upsample_bilinear2d gather scatter
                                    scatter_add index_add index_select sort argsort argmax argmin round cast
                                    softmax log_softmax pad flip roll repeat repeat_interleave one_hot
                                    softplus mish hardswish hardsigmoid leaky_relu glu
                                    swiglu geglu geglu_tanh tril triu masked_fill topk kthvalue median
                                    var std logsumexp norm layer_norm_dims batch_norm group_norm
                                    cumsum cumprod logcumsumexp
  int KEY N v1 .. vN                integer parameters (stride, padding, dim, size, descending, inplace, ...)
  real KEY N v1 .. vN               float parameters (scale)
  in KEY DTYPE RANK d1 .. dRANK v.. an input tensor, row-major; every value exactly representable in DTYPE
  out KEY DTYPE RANK d1 .. dRANK v..
                                    an expected output: wick must return DTYPE and this shape. Values are
                                    PyTorch's result computed in float64 from the inputs (already rounded to
                                    their dtype), so float outputs of arithmetic ops are not rounded to DTYPE;
                                    ops that only move values (and casts, round, sort) are exact.
  end                               ends the record
Values: integers in decimal; floats as C99 hex floats ("0x1.8p+1", as strtod reads them), nan, inf, -inf.
u32 has no PyTorch 1.13 dtype: its values go through int64 with the wrap written out (x mod 2**32).
"""
import math
import os
import sys
import zlib
from fractions import Fraction

import torch
import torch.nn.functional as F

TDT = {"u8": torch.uint8, "u32": torch.int64, "i32": torch.int32, "i64": torch.int64,
       "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64}
FLOATS = ("f16", "bf16", "f32", "f64")
INT_RANGE = {"u8": (0, 2**8 - 1), "u32": (0, 2**32 - 1), "i32": (-2**31, 2**31 - 1), "i64": (-2**63, 2**63 - 1)}


# ---------------------------------------------------------------- writing
def fmt(v, dt):
    if dt not in FLOATS:
        return str(int(v))
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    h = v.hex()  # '-0x1.8000000000000p+1': drop the mantissa's trailing zeros
    mant, exp = h.split("p")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return mant + "p" + exp


class Out:
    def __init__(self):
        self.lines = []
        self.names = set()

    def record(self, name, op, ints=(), reals=(), ins=(), outs=()):
        """ints/reals: [(key, [values])]; ins/outs: [(key, dtype, tensor)]."""
        assert name not in self.names, name
        self.names.add(name)
        w = self.lines.append
        w("golden %s" % name)
        w("op %s" % op)
        for k, vs in ints:
            w("int %s %d %s" % (k, len(vs), " ".join(str(int(v)) for v in vs)))
        for k, vs in reals:
            w("real %s %d %s" % (k, len(vs), " ".join(fmt(v, "f64") for v in vs)))
        for kind, group in (("in", ins), ("out", outs)):
            for k, dt, t in group:
                t = t.detach().contiguous()
                vals = t.reshape(-1).tolist()
                shape = list(t.shape)
                w("%s %s %s %d %s" % (kind, k, dt, len(shape), " ".join(str(d) for d in shape)))
                toks = [fmt(v, dt) for v in vals]
                for i in range(0, len(toks), 8):
                    w("  " + " ".join(toks[i:i + 8]))
        w("end")

    def save(self, path, title):
        with open(path, "w") as f:
            f.write("# %s\n# Generated by make_golden.py (PyTorch %s); do not edit.\n" % (title, torch.__version__))
            f.write("\n".join(self.lines) + "\n")


# ---------------------------------------------------------------- inputs
def gen(name):
    g = torch.Generator()
    g.manual_seed(zlib.crc32(name.encode()))
    return g


def rounded(t, dt):
    """t (float64) rounded to dt's values, returned as float64."""
    return t.to(TDT[dt]).to(torch.float64) if dt != "f64" else t


def randf(g, shape, dt, lo=-2.0, hi=2.0):
    return rounded(torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo, dt)


def randi(g, shape, lo, hi):
    return torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64)


def randv(g, shape, dt, full=False):
    """Values of dt (float64 or int64): floats in [-2, 2); ints in [-50, 50] ([0, 100] unsigned), or with
    full=True over the dtype's whole range (i64: +-2**53, still exact in float64)."""
    if dt in FLOATS:
        return randf(g, shape, dt)
    if full:
        lo, hi = (-2**53, 2**53) if dt == "i64" else INT_RANGE[dt]
        return randi(g, shape, lo, hi)
    return randi(g, shape, 0 if dt in ("u8", "u32") else -50, 100 if dt in ("u8", "u32") else 50)


def wrap(t, dt):
    """int64 results wrapped to an integer dtype like C unsigned conversion (identity for floats)."""
    if dt in FLOATS or dt == "i64":
        return t
    lo, hi = INT_RANGE[dt]
    return (t - lo) % (hi - lo + 1) + lo


def exact(t, dt):
    """Inputs for a PyTorch reference that is exact: float64 for floats, int64 for ints."""
    return t.to(torch.float64 if dt in FLOATS else torch.int64)


def as_f64(v):
    return v.to(torch.float64)


def check_native_f32(name, got64, native):
    """Warns when PyTorch's own f32 computation strays from the float64 golden (a f32-only semantic)."""
    native = native.to(torch.float64)
    fin = torch.isfinite(got64)
    same_nonfinite = torch.equal(native[~fin].nan_to_num(1, 2, 3), got64[~fin].nan_to_num(1, 2, 3))
    err = (native[fin] - got64[fin]).norm() / max(got64[fin].norm().item(), 1e-300)
    if not (err <= 1e-6 and same_nonfinite):
        print("warning: %s: PyTorch f32 differs from its f64 result by %.3g" % (name, err), file=sys.stderr)


# ---------------------------------------------------------------- conv
def conv_family(o):
    # (op, name, N, C, O, spatial in, kernel, stride, padding, dilation, output_padding, groups, bias)
    cases = [
        ("conv1d", "basic", 2, 3, 4, (10,), (3,), (1,), (0,), (1,), (0,), 1, True),
        ("conv1d", "s2p1d2", 2, 3, 2, (11,), (3,), (2,), (1,), (2,), (0,), 1, False),
        ("conv1d", "g3", 1, 6, 9, (8,), (2,), (1,), (2,), (1,), (0,), 3, True),
        ("conv1d", "depthwise_s3", 1, 4, 4, (13,), (5,), (3,), (2,), (1,), (0,), 4, False),
        ("conv2d", "basic", 1, 3, 2, (6, 7), (3, 3), (1, 1), (0, 0), (1, 1), (0, 0), 1, True),
        ("conv2d", "s21p12d12", 1, 2, 3, (7, 8), (3, 2), (2, 1), (1, 2), (1, 2), (0, 0), 1, False),
        ("conv2d", "g2", 1, 4, 6, (7, 6), (2, 3), (2, 2), (0, 1), (2, 1), (0, 0), 2, True),
        ("conv2d", "depthwise_mult2", 1, 3, 6, (5, 5), (3, 3), (1, 1), (1, 1), (1, 1), (0, 0), 3, True),
        ("conv2d", "1x1_s2", 1, 4, 3, (5, 6), (1, 1), (2, 2), (0, 0), (1, 1), (0, 0), 1, False),
        ("conv_transpose1d", "basic", 2, 3, 2, (5,), (3,), (1,), (0,), (1,), (0,), 1, True),
        ("conv_transpose1d", "s2p1op1", 1, 2, 3, (6,), (4,), (2,), (1,), (1,), (1,), 1, True),
        ("conv_transpose1d", "s3p2d2op1g2", 1, 4, 6, (5,), (3,), (3,), (2,), (2,), (1,), 2, False),
        ("conv_transpose1d", "s1d3op2", 1, 2, 2, (4,), (2,), (1,), (0,), (3,), (2,), 1, True),
        ("conv_transpose2d", "s2p1op10", 1, 3, 2, (4, 3), (3, 3), (2, 2), (1, 1), (1, 1), (1, 0), 1, True),
        ("conv_transpose2d", "g2d21op11", 1, 4, 4, (3, 4), (3, 2), (1, 2), (2, 0), (2, 1), (1, 1), 2, False),
        ("conv_transpose2d", "depthwise_s2op1", 1, 3, 3, (3, 3), (3, 3), (2, 2), (0, 0), (1, 1), (1, 1), 3, True),
    ]
    f32_only = {"conv2d.1x1_s2", "conv2d.depthwise_mult2", "conv_transpose2d.depthwise_s2op1"}  # file size
    low_precision = {"conv1d.g3", "conv2d.g2", "conv_transpose1d.s2p1op1", "conv_transpose2d.s2p1op10"}
    for op, what, n, c, oc, sp, k, s, p, d, op_, g, has_bias in cases:
        dts = (["f64"] if op + "." + what not in f32_only else []) + ["f32"] + \
            (["f16", "bf16"] if op + "." + what in low_precision else [])
        for dt in dts:
            name = "%s.%s.%s" % (op, dt, what)
            r = gen(name)
            tr = op.startswith("conv_transpose")
            x = randf(r, (n, c) + sp, dt)
            w = randf(r, ((c, oc // g) if tr else (oc, c // g)) + k, dt)
            b = randf(r, (oc,), dt) if has_bias else None
            fn = {"conv1d": F.conv1d, "conv2d": F.conv2d, "conv_transpose1d": F.conv_transpose1d,
                  "conv_transpose2d": F.conv_transpose2d}[op]
            kw = dict(stride=s, padding=p, dilation=d, groups=g)
            if tr:
                kw["output_padding"] = op_
            y = fn(x, w, b, **kw)
            if dt == "f32":
                check_native_f32(name, y, fn(x.float(), w.float(), None if b is None else b.float(), **kw))
            ins = [("x", dt, x), ("w", dt, w)] + ([("bias", dt, b)] if has_bias else [])
            ints = [("stride", s), ("padding", p), ("dilation", d), ("groups", [g])]
            if tr:
                ints.append(("output_padding", op_))
            o.record(name, op, ints=ints, ins=ins, outs=[("out", dt, y)])


# ---------------------------------------------------------------- pooling
def pool_out(h, k, s, p, ceil):
    n = h + 2 * p - k
    o = (-(-n // s) if ceil else n // s) + 1
    if ceil and (o - 1) * s >= h + p:
        o -= 1
    return o


def pool_family(o):
    # (what, N, C, H, W, kernel, stride, padding, ceil_mode)
    cases = [
        ("k2s2", 1, 2, 6, 6, (2, 2), (2, 2), (0, 0), False),
        ("k3s2p1", 2, 1, 7, 8, (3, 3), (2, 2), (1, 1), False),
        ("k23s2p1_ceil_lastwin", 1, 2, 5, 6, (2, 3), (2, 2), (1, 1), True),
        ("k3s2_ceil", 1, 2, 6, 8, (3, 3), (2, 2), (0, 0), True),
        ("k32s23p10_ceil", 1, 1, 9, 7, (3, 2), (2, 3), (1, 0), True),
        ("k23s12p11", 1, 2, 4, 6, (2, 3), (1, 2), (1, 1), False),
        ("k3s3p1_ceil_lastwin", 1, 1, 11, 12, (3, 3), (3, 3), (1, 1), True),
        ("k4s3p2_ceil_lastwin", 1, 1, 7, 8, (4, 4), (3, 3), (2, 2), True),
    ]
    for what, n, c, h, wd, k, s, p, ceil in cases:
        # the ceil cases are chosen so that ceil_mode changes the size; *_lastwin ones hit the rule that the
        # last window must start inside the input or left padding
        if ceil:
            assert any(pool_out(dim, k[i], s[i], p[i], True) != pool_out(dim, k[i], s[i], p[i], False)
                       for i, dim in enumerate((h, wd))), what
        if what.endswith("lastwin"):
            assert any(pool_out(dim, k[i], s[i], p[i], True) < -(-(dim + 2 * p[i] - k[i]) // s[i]) + 1
                       for i, dim in enumerate((h, wd))), what
        common = [("kernel", k), ("stride", s), ("padding", p), ("ceil_mode", [int(ceil)])]
        for dt in ("f64", "f32", "f16", "bf16", "i32", "u8", "i64", "u32"):
            if dt in ("f16", "bf16", "i64", "u32", "f64") and what not in ("k3s2p1", "k23s2p1_ceil_lastwin"):
                continue
            name = "max_pool2d.%s.%s" % (dt, what)
            r = gen(name)
            x = randv(r, (n, c, h, wd), dt, full=True)
            y = F.max_pool2d(as_f64(x), k, s, p, ceil_mode=ceil)
            assert y.shape[2:] == (pool_out(h, k[0], s[0], p[0], ceil), pool_out(wd, k[1], s[1], p[1], ceil))
            o.record(name, "max_pool2d", ints=common, ins=[("x", dt, x)], outs=[("out", dt, y)])
        for dt in ("f64", "f32", "f16", "bf16"):
            for cip in (True, False):
                if dt in ("f16", "bf16") and (what != "k23s2p1_ceil_lastwin" or not cip):
                    continue
                if dt == "f64" and not ceil and what != "k3s2p1":
                    continue
                name = "avg_pool2d.%s.%s_%s" % (dt, what, "cip" if cip else "nocip")
                r = gen(name)
                x = randf(r, (n, 1, h, wd), dt)
                y = F.avg_pool2d(x, k, s, p, ceil_mode=ceil, count_include_pad=cip)
                if dt == "f32":
                    check_native_f32(name, y, F.avg_pool2d(x.float(), k, s, p, ceil_mode=ceil, count_include_pad=cip))
                o.record(name, "avg_pool2d", ints=common + [("count_include_pad", [int(cip)])],
                         ins=[("x", dt, x)], outs=[("out", dt, y)])
    # NaN propagates through max pooling (PyTorch: a NaN in the window wins)
    for dt in ("f32", "f64"):
        name = "max_pool2d.%s.nan" % dt
        r = gen(name)
        x = randf(r, (1, 2, 5, 6), dt)
        x[0, 0, 1, 2] = math.nan
        x[0, 1, 4, 5] = math.nan
        x[0, 1, 0, 0] = -math.inf
        k, s, p = (3, 3), (2, 2), (1, 1)
        y = F.max_pool2d(x, k, s, p, ceil_mode=True)
        o.record(name, "max_pool2d", ints=[("kernel", k), ("stride", s), ("padding", p), ("ceil_mode", [1])],
                 ins=[("x", dt, x)], outs=[("out", dt, y)])


# ---------------------------------------------------------------- upsampling
def nearest_sources(l_in, l_out):
    """PyTorch's nearest source index per output index for a float32 tensor (its rule for f32, for every 2-D
    dtype, u8 and CUDA): floorf(dst * (float)(in/out)). PyTorch 1.13 computes f64 1-D upsampling in double,
    which differs in rare cases (3 -> 123: dst 41); wick follows the float rule for every dtype."""
    probe = torch.arange(l_in, dtype=torch.float32).view(1, 1, l_in)
    idx = F.interpolate(probe, size=l_out, mode="nearest").view(-1).long()
    scale = torch.tensor(l_in, dtype=torch.float32) / l_out
    rule = torch.clamp(torch.floor(torch.arange(l_out, dtype=torch.float32) * scale).long(), max=l_in - 1)
    assert torch.equal(idx, rule), (l_in, l_out)
    return idx


def nearest(x, size):
    """x upsampled to size (one or two entries) by nearest_sources, whatever x's dtype."""
    if len(size) == 1:
        return x[..., nearest_sources(x.shape[-1], size[0])]
    return x[..., nearest_sources(x.shape[-2], size[0]), :][..., nearest_sources(x.shape[-1], size[1])]


def upsample_family(o):
    sizes1 = [(4, 8), (5, 3), (7, 10), (3, 7), (6, 6), (10, 4), (1, 5), (5, 1), (3, 123)]
    for i, (l_in, l_out) in enumerate(sizes1):
        for dt in ("f32", "i64", "f64", "u8", "i32", "u32", "f16", "bf16"):
            if (i >= 3 and dt not in ("f32", "i32")) or (l_out > 100 and dt != "i32"):
                continue
            name = "upsample_nearest1d.%s.%dto%d" % (dt, l_in, l_out)
            x = randv(gen(name), (1, 2, l_in) if l_out < 100 else (1, 1, l_in), dt, full=True)
            y = nearest(x, [l_out])
            if dt in ("f32", "u8"):
                assert torch.equal(y.double(), F.interpolate(x.to(TDT[dt]), size=l_out).double())
            o.record(name, "upsample_nearest1d", ints=[("size", [l_out])], ins=[("x", dt, x)], outs=[("out", dt, y)])
    sizes2 = [((3, 4), (6, 8)), ((5, 7), (3, 4)), ((4, 3), (7, 5)), ((2, 6), (5, 6)), ((6, 5), (6, 13)),
              ((3, 2), (123, 5))]
    for i, (hw_in, hw_out) in enumerate(sizes2):
        for dt in ("f32", "f64", "u8", "i32", "i64", "u32", "f16", "bf16"):
            if (i >= 2 and dt not in ("f32", "u8")) or (hw_out[0] > 100 and dt != "f32"):
                continue
            name = "upsample_nearest2d.%s.%dx%dto%dx%d" % ((dt,) + hw_in + hw_out)
            x = randv(gen(name), (1, 2) + hw_in, dt, full=True)
            y = nearest(x, hw_out)
            if dt in ("f32", "u8"):
                assert torch.equal(y.double(), F.interpolate(x.to(TDT[dt]), size=hw_out).double())
            o.record(name, "upsample_nearest2d", ints=[("size", list(hw_out))], ins=[("x", dt, x)],
                     outs=[("out", dt, y)])
    # Bilinear. With a scale factor (recompute_scale_factor=False) PyTorch sizes the output floor(in*scale)
    # and maps an output index back with 1/scale; wick takes that same scale factor (out/in) in scale_h/w.
    cases = [  # (what, in hw, out hw or None, scale or None, align_corners)
        ("up", (4, 5), (7, 9), None, False),
        ("up_ac", (4, 5), (7, 9), None, True),
        ("down", (6, 8), (3, 5), None, False),
        ("down_ac", (6, 8), (3, 5), None, True),
        ("scale1.7x2.3", (5, 4), None, (1.7, 2.3), False),
        ("scale0.6x0.75", (7, 8), None, (0.6, 0.75), False),
        ("scale2x3", (3, 3), None, (2.0, 3.0), False),
        ("scale1.5_ac", (4, 6), None, (1.5, 1.5), True),
        ("scale1.3x2_hsame", (3, 4), None, (1.3, 2.0), False),  # floor(3*1.3) == 3: that axis is copied
        ("out1_ac", (4, 5), (1, 1), None, True),
        ("out1", (4, 5), (1, 3), None, False),
        ("in1", (1, 3), (3, 5), None, False),
    ]
    for what, hw_in, hw_out, scale, ac in cases:
        for dt in ("f64", "f32", "f16", "bf16"):
            if dt in ("f16", "bf16") and what not in ("up", "scale1.7x2.3"):
                continue
            name = "upsample_bilinear2d.%s.%s" % (dt, what)
            x = randf(gen(name), (1, 2 if what == "up" else 1) + hw_in, dt)
            if scale:
                kw = dict(scale_factor=scale, recompute_scale_factor=False)
            else:
                kw = dict(size=hw_out)
            y = F.interpolate(x, mode="bilinear", align_corners=ac, **kw)
            if dt == "f32":
                check_native_f32(name, y, F.interpolate(x.float(), mode="bilinear", align_corners=ac, **kw))
            o.record(name, "upsample_bilinear2d",
                     ints=[("size", list(y.shape[2:])), ("align_corners", [int(ac)])],
                     reals=[("scale", list(scale) if scale else [0.0, 0.0])],
                     ins=[("x", dt, x)], outs=[("out", dt, y)])


# ---------------------------------------------------------------- indexing
def unique_ids(g, shape, dim, size):
    """Indices along dim, distinct within every line along dim (so each destination is written once)."""
    ids = torch.empty(shape, dtype=torch.int64)
    moved = ids.movedim(dim, -1)
    lines = moved.reshape(-1, shape[dim])
    for i in range(lines.shape[0]):
        lines[i] = torch.randperm(size, generator=g)[:shape[dim]]
    return lines.reshape(moved.shape).movedim(-1, dim).contiguous()


def index_family(o):
    idts = ("i64", "i32", "u8", "u32")
    # gather: (x shape, dim, ids shape)
    for j, (xs, dim, ishape) in enumerate([((3, 4, 5), 0, (2, 3, 4)), ((3, 4, 5), 1, (3, 6, 5)),
                                           ((3, 4, 5), 2, (2, 4, 7)), ((4, 6), -1, (3, 2))]):
        for dt in ("f32", "f64", "i64", "u8", "f16", "bf16", "i32", "u32"):
            if j and dt not in ("f32", "i32"):
                continue
            idt = idts[(j + len(dt)) % 4]
            name = "gather.%s.dim%d_%s" % (dt, dim, idt)
            r = gen(name)
            x = randv(r, xs, dt, full=True)
            ids = randi(r, ishape, 0, xs[dim] - 1)
            y = torch.gather(as_f64(x), dim, ids)
            o.record(name, "gather", ints=[("dim", [dim])], ins=[("x", dt, x), ("ids", idt, ids)],
                     outs=[("out", dt, y)])
    # scatter (set, unique destinations) and scatter_add (duplicates): (x shape, dim, ids shape, src shape)
    shapes = [((5, 4), 0, (3, 4), (4, 5)), ((3, 6), 1, (3, 4), (3, 5)), ((3, 4, 5), 1, (2, 3, 4), (3, 4, 5))]
    for opname in ("scatter", "scatter_add"):
        for j, (xs, dim, ishape, ss) in enumerate(shapes):
            for dt in ("f32", "f64", "i32", "i64", "u8", "f16", "bf16", "u32"):
                if j and dt not in ("f32", "i64"):
                    continue
                for inplace in (0, 1):
                    if inplace and dt != "f32":
                        continue
                    idt = idts[(j + len(dt) + inplace) % 4]
                    name = "%s.%s.dim%d_%s%s" % (opname, dt, dim, idt, "_inplace" if inplace else "")
                    r = gen(name)
                    x = randv(r, xs, dt, full=opname == "scatter")
                    src = randv(r, ss, dt, full=True)
                    if opname == "scatter":
                        ids = unique_ids(r, ishape, dim, xs[dim])
                        y = torch.scatter(as_f64(x), dim, ids, as_f64(src))
                    else:  # few targets: many duplicates; int sums wrap
                        ids = randi(r, ishape, 0, min(xs[dim] - 1, 2))
                        y = wrap(torch.scatter_add(exact(x, dt), dim, ids, exact(src, dt)), dt)
                    o.record(name, opname, ints=[("dim", [dim]), ("inplace", [inplace])],
                             ins=[("x", dt, x), ("ids", idt, ids), ("src", dt, src)], outs=[("out", dt, y)])
    # index_add with duplicate indices: (x shape, dim, n ids)
    for j, (xs, dim, n) in enumerate([((5, 3), 0, 8), ((3, 4), 1, 7), ((2, 4, 3), 1, 9)]):
        for dt in ("f32", "f64", "i32", "i64", "u8", "f16", "bf16", "u32"):
            if j and dt not in ("f64", "i32"):
                continue
            for inplace in (0, 1):
                if inplace and dt not in ("f32", "i32"):
                    continue
                idt = idts[(j + len(dt) + inplace) % 4]
                name = "index_add.%s.dim%d_%s%s" % (dt, dim, idt, "_inplace" if inplace else "")
                r = gen(name)
                x = randv(r, xs, dt)
                ss = list(xs)
                ss[dim] = n
                src = randv(r, tuple(ss), dt, full=dt in ("u8", "u32", "i32"))
                ids = randi(r, (n,), 0, xs[dim] - 1)
                ids[1] = ids[0]  # at least one duplicate
                y = wrap(torch.index_add(exact(x, dt), dim, ids, exact(src, dt)), dt)
                o.record(name, "index_add", ints=[("dim", [dim]), ("inplace", [inplace])],
                         ins=[("x", dt, x), ("ids", idt, ids), ("src", dt, src)], outs=[("out", dt, y)])
    for j, (xs, dim, n) in enumerate([((4, 3), 0, 6), ((2, 5, 3), 1, 4), ((3, 4), 1, 0)]):
        for dt in ("f32", "i64"):
            idt = idts[j]
            name = "index_select.%s.dim%d_%s_n%d" % (dt, dim, idt, n)
            r = gen(name)
            x = randv(r, xs, dt, full=True)
            ids = randi(r, (n,), 0, xs[dim] - 1)
            y = torch.index_select(as_f64(x), dim, ids)
            o.record(name, "index_select", ints=[("dim", [dim])], ins=[("x", dt, x), ("ids", idt, ids)],
                     outs=[("out", dt, y)])


# ---------------------------------------------------------------- sort, argmax
def tie_values(g, shape, dt):
    """Many ties; floats add NaN, infinities and both zeros (ties between -0 and +0 keep their order)."""
    if dt in FLOATS:
        pool = torch.tensor([-1.5, 0.0, -0.0, 1.0, 2.5, math.nan, math.inf, -math.inf, 1.0, 0.0], dtype=torch.float64)
    elif dt in ("u8", "u32"):
        pool = torch.tensor([0, 1, 7, 200, 255] if dt == "u8" else [0, 1, 7, 2**31, 2**32 - 1])
    else:
        lo = INT_RANGE[dt][0]
        pool = torch.tensor([-3, 0, 5, 1, lo, 100])
    return pool[torch.randint(0, len(pool), shape, generator=g)]


def sort_family(o):
    for dt in ("f32", "f64", "f16", "bf16", "i32", "i64", "u8", "u32"):
        for shape in ((3, 17), (1, 200)):
            if shape[1] == 200 and dt not in ("f32", "i64"):
                continue
            for desc in (0, 1):
                what = "%dx%d_%s" % (shape + ("desc" if desc else "asc",))
                r = gen("sort.%s.%s" % (dt, what))
                x = tie_values(r, shape, dt)
                v, i = torch.sort(x, dim=-1, descending=bool(desc), stable=True)
                o.record("sort.%s.%s" % (dt, what), "sort", ints=[("descending", [desc])], ins=[("x", dt, x)],
                         outs=[("values", dt, v), ("indices", "i64", i)])
                o.record("argsort.%s.%s" % (dt, what), "argsort", ints=[("descending", [desc])],
                         ins=[("x", dt, x)], outs=[("indices", "i64", i)])
    # argmax/argmin: first index on ties, NaN counts as the extreme
    for opname, fn in (("argmax", torch.argmax), ("argmin", torch.argmin)):
        for dt in ("f32", "f64", "i32", "u8"):
            for dim, keep in ((0, 0), (1, 1), (2, 0)):
                name = "%s.%s.dim%d%s" % (opname, dt, dim, "_keepdim" if keep else "")
                x = tie_values(gen(name), (3, 4, 5), dt)
                y = fn(x, dim=dim, keepdim=bool(keep))
                o.record(name, opname, ints=[("dim", [dim]), ("keepdim", [keep])], ins=[("x", dt, x)],
                         outs=[("out", "i64", y)])


# ---------------------------------------------------------------- round
def round_family(o):
    base = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, 0.49999999999999994, -0.3, 0.3, 0.0, -0.0, 1.0,
            0.5000001, 2.4999, -2.5001, 1023.5, 1024.5, -1024.5, 4194304.5, 8388607.5, 8388608.0, 1e30, -1e30,
            4503599627370495.5, 4503599627370497.0, 1.25, 2.75, 5e-324, math.inf, -math.inf, math.nan]
    for dt in ("f64", "f32", "f16", "bf16"):
        x = rounded(torch.tensor(base, dtype=torch.float64), dt)
        x = torch.cat([x, rounded(torch.round(torch.rand(40, generator=gen("round" + dt), dtype=torch.float64)
                                              * 80 - 40) + 0.5, dt)])
        # PyTorch 1.13 has no f16/bf16 round on the CPU: round their (exact) f32 values instead
        y = torch.round(x.to(torch.float32 if dt in ("f16", "bf16") else TDT[dt])).to(TDT[dt]).to(torch.float64)
        assert torch.allclose(y, torch.round(x), rtol=0, atol=0, equal_nan=True)
        o.record("round.%s.halves" % dt, "round", ins=[("x", dt, x)], outs=[("out", dt, y)])


# ---------------------------------------------------------------- casts
SRC_VALUES = {
    "u8": [0, 1, 2, 127, 128, 200, 255],
    "u32": [0, 1, 255, 256, 65535, 65536, 2**24, 2**24 + 1, 123456789, 2**31 - 1, 2**31, 3000000000, 2**32 - 1],
    "i32": [0, 1, -1, 127, -128, 255, 256, -129, 32767, -32768, 65504, -65504, 65535, 1000000, -1000000,
            2**24, -(2**24) - 1, 2**31 - 1, -2**31],
    "i64": [0, 1, -1, 255, -256, 65504, 2**24, -(2**24) - 3, 2**31 - 1, 2**31, -2**31 - 1, 2**32 + 5, -2**32 - 7,
            2**40 + 3, -2**53, 2**53 + 2, 2**62 + 1, -2**63, 2**63 - 1, 2**30 + 2**22 + 1],
    "f16": [0.0, -0.0, 1.0, -1.0, 1.5, -2.75, 0.1, -0.3, 3.999, -0.999, 127.9, 255.9, 254.5, -128.4, 1000.7,
            -1000.7, 65504.0, -65504.0, 6.1e-5, 5.96e-8, -6e-8, 3.14159, math.inf, -math.inf, math.nan],
    "bf16": [0.0, -0.0, 1.0, -1.0, 1.5, -2.75, 0.1, -0.3, 3.999, 127.9, 255.9, -128.4, 1000.7, 65504.0, 70000.0,
             1e10, -3e9, 1e30, -1e30, 1e-30, 1e-39, math.inf, -math.inf, math.nan],
    "f32": [0.0, -0.0, 1.0, -1.0, 1.5, -2.75, 0.1, -0.3, 3.999, 127.9, 255.9, 254.5, -128.4, 1000.7, 65504.0,
            65519.0, 65520.0, 70000.0, 1.0009765625, 1.00048828125, 1.00146484375, 3e9, -2147483520.0,
            4294967040.0, 1e10, -3e9, 1e30, 3e38, 5.96e-8, 2.98e-8, 1e-30, 1e-39, 1e-45, 33554431.0,
            math.inf, -math.inf, math.nan],
    "f64": [0.0, -0.0, 1.0, -1.0, 1.5, -2.75, 0.1, -0.3, 3.999, 127.9, 255.9, 254.5, -128.4, 1000.7, 65504.0,
            65519.99, 65520.0, 1.0009765625, 1.0009765625000002, 1.00048828125, 3e9, 2147483647.9, -2147483648.9,
            4294967295.5, 1e10, 9.2e18, -9.2e18, 1e30, 3.4028235e38, 3.5e38, 1e300, 1e-30, 1e-39, 1e-45, 1e-300,
            33554431.0, 16777217.0, 1.0000000596046448, 1.0004882812500002, 1.0039062500000002,
            math.inf, -math.inf, math.nan],
}


def exact_round(v, dt):
    """The float dt nearest to the real number v (a Fraction), ties to even; inf on overflow (IEEE)."""
    prec, emin, emax = {"f16": (11, -14, 15), "bf16": (8, -126, 127), "f32": (24, -126, 127),
                        "f64": (53, -1022, 1023)}[dt]
    if v == 0:
        return 0.0
    sign = -1 if v < 0 else 1
    a = abs(v)
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    ulp = Fraction(2) ** (max(e, emin) - prec + 1)
    q, rem = divmod(a, ulp)
    if rem * 2 > ulp or (rem * 2 == ulp and q % 2 == 1):
        q += 1
    r = q * ulp
    if r >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(r)


def cast_expect(v, s, d):
    """wick.h's rule (wk_cast) for one value (None where PyTorch leaves it undefined, so it gets no golden)."""
    if s in FLOATS and math.isnan(v):
        return math.nan if d in FLOATS else None
    if s in FLOATS and math.isinf(v):
        return v if d in FLOATS else None
    if d in FLOATS:
        r = exact_round(Fraction(v), d)
        return -0.0 if r == 0 and math.copysign(1, v) < 0 else r
    t = int(v)  # truncation toward zero
    lo, hi = INT_RANGE[d]
    if s in FLOATS:
        return t if lo <= t <= hi else None  # out of range: undefined in PyTorch (C++ UB), saturates in wick
    return ((t - lo) % 2**(64 if d == "i64" else int(d[1:]))) + lo if d[0] == "i" else t % (hi + 1)


def torch_cast(x, s, d):
    """PyTorch's conversion of x (values of s) to d; u32 (absent in 1.13) goes through int64."""
    src = x.to(TDT[s])
    if d == "u32":
        return src.to(torch.int64) & 0xFFFFFFFF
    return src.to(TDT[d])


def cast_family(o):
    dts = ("u8", "u32", "i32", "i64", "f16", "bf16", "f32", "f64")
    for s in dts:
        vals = SRC_VALUES[s]
        if s in FLOATS:
            vals = [float(rounded(torch.tensor([v], dtype=torch.float64), s)) for v in vals]
        for d in dts:
            keep, want = [], []
            for v in vals:
                e = cast_expect(v, s, d)
                if e is None:
                    continue
                if s in FLOATS:
                    src = torch.tensor([v], dtype=torch.float64)
                else:
                    src = torch.tensor([v], dtype=torch.int64)
                got = torch_cast(src, s, d)
                g = float(got) if d in FLOATS else int(got)
                same = (math.isnan(g) and math.isnan(e)) or (g == e and math.copysign(1, g) == math.copysign(1, e))
                if not same:
                    print("note: cast %s->%s of %r: PyTorch gives %r, the round-to-nearest rule %r; left out"
                          % (s, d, v, g, e), file=sys.stderr)
                    continue
                keep.append(v)
                want.append(e)
            if not keep:
                continue
            tin = torch.tensor(keep, dtype=torch.float64 if s in FLOATS else torch.int64)
            tout = torch.tensor(want, dtype=torch.float64 if d in FLOATS else torch.int64)
            o.record("cast.%s.to_%s" % (s, d), "cast", ins=[("x", s, tin)], outs=[("out", d, tout)])


# ---------------------------------------------------------------- softmax
def softmax_family(o):
    for opname, fn in (("softmax", F.softmax), ("log_softmax", F.log_softmax)):
        for dt in ("f64", "f32", "f16", "bf16"):
            name = "%s.%s.masked_large" % (opname, dt)
            r = gen(name)
            x = randf(r, (4, 9), dt, -4, 4)
            x[1, 2] = x[1, 7] = -math.inf  # masked entries give exactly 0 (-inf for log_softmax)
            x[2] = rounded(x[2] * 10 + 1000, dt)  # needs the max subtracted first
            x[3] = rounded(x[3] - 1000, dt)
            y = fn(x, dim=-1)
            if dt == "f32":
                check_native_f32(name, y, fn(x.float(), dim=-1))
            o.record(name, opname, ins=[("x", dt, x)], outs=[("out", dt, y)])


# ---------------------------------------------------------------- pad and reordering (values move: exact)
PAD_MODES = ("constant", "reflect", "replicate", "circular")  # wk_pad_mode order


def left_out(name, e):
    print("left out %s: PyTorch refused it (%s)" % (name, str(e).splitlines()[0]))


def pad_goldens(o):
    cases = [((2, 3, 5), (1, 2)), ((2, 3, 5, 6), (2, 1, 1, 3)), ((1, 2, 3, 4, 5), (1, 2, 2, 1, 3, 0)),
             ((3, 5, 7), (-1, 2)), ((2, 4, 6), (2, -1, -1, 2)), ((2, 3, 4), (4, 5))]
    for mi, mode in enumerate(PAD_MODES):
        for j, (xs, pads) in enumerate(cases):
            if j == 5 and mode == "reflect":
                continue  # pads past the dim: PyTorch's (and wick's) error
            for dt in ("f32", "i64", "u8", "bf16"):
                if j and dt not in ("f32", "i64"):
                    continue
                name = "pad.%s.%s_%d" % (dt, mode, j)
                r = gen(name)
                x = randv(r, xs, dt, full=True)
                value = 1.5 if dt in FLOATS else 3
                try:
                    if mode == "constant":
                        y = F.pad(as_f64(x), pads, mode=mode, value=float(value))
                    else:
                        y = F.pad(as_f64(x), pads, mode=mode)
                except Exception as e:  # an older PyTorch may lack a case (negative pads)
                    left_out(name, e)
                    continue
                ints = [("mode", [mi])] + [("pad%d" % k, list(pads[2 * k:2 * k + 2])) for k in range(len(pads) // 2)]
                o.record(name, "pad", ints=ints, reals=[("value", [value])], ins=[("x", dt, x)],
                         outs=[("out", dt, y)])


def reorder_family(o):
    pad_goldens(o)
    for j, (xs, dims) in enumerate([((3, 4, 5), (0, 2)), ((4, 6), (-1,)), ((2, 3, 4), (0, 1, 2))]):
        for dt in ("f32", "i32", "f16"):
            name = "flip.%s.%d" % (dt, j)
            x = randv(gen(name), xs, dt, full=True)
            o.record(name, "flip", ints=[("dims", list(dims))], ins=[("x", dt, x)],
                     outs=[("out", dt, torch.flip(as_f64(x), dims))])
    for j, (xs, shifts, dims) in enumerate([((3, 4, 5), (2, -3), (0, 2)), ((4, 6), (5,), None),
                                            ((3, 4), (1, 6), (1, 1))]):
        name = "roll.f32.%d" % j
        x = randv(gen(name), xs, "f32", full=True)
        y = torch.roll(as_f64(x), shifts, dims) if dims else torch.roll(as_f64(x), shifts[0])
        ints = [("shifts", list(shifts))] + ([("dims", list(dims))] if dims else [("flat", [1])])
        o.record(name, "roll", ints=ints, ins=[("x", "f32", x)], outs=[("out", "f32", y)])
    for j, (xs, reps) in enumerate([((2, 3), (2, 1, 3)), ((3,), (2, 2)), ((2, 1, 2), (1, 3, 2))]):
        name = "repeat.i64.%d" % j
        x = randv(gen(name), xs, "i64", full=True)
        o.record(name, "repeat", ints=[("repeats", list(reps))], ins=[("x", "i64", x)],
                 outs=[("out", "i64", as_f64(x).repeat(*reps))])
    for j, (xs, dim, reps) in enumerate([((3, 4), 1, 2), ((3, 4), 0, (1, 0, 3)), ((2, 5), -1, (2,))]):
        name = "repeat_interleave.f32.%d" % j
        r = gen(name)
        x = randv(r, xs, "f32", full=True)
        if isinstance(reps, int):
            o.record(name, "repeat_interleave", ints=[("dim", [dim]), ("repeats", [reps])], ins=[("x", "f32", x)],
                     outs=[("out", "f32", torch.repeat_interleave(as_f64(x), reps, dim))])
        else:
            counts = torch.tensor(reps, dtype=torch.int64)
            o.record(name, "repeat_interleave", ints=[("dim", [dim])], ins=[("x", "f32", x), ("counts", "i64", counts)],
                     outs=[("out", "f32", torch.repeat_interleave(as_f64(x), counts, dim))])
    for j, (shape, classes, hi) in enumerate([((5,), 4, 3), ((2, 3), -1, 6), ((2, 2, 2), 9, 8)]):
        name = "one_hot.i64.%d" % j
        ids = randi(gen(name), shape, 0, hi)
        o.record(name, "one_hot", ints=[("classes", [classes])], ins=[("x", "i64", ids)],
                 outs=[("out", "i64", F.one_hot(ids, classes))])
# ---------------------------------------------------------------- activations
ACT_SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 20.0, 20.5, 19.5, -3.0, 3.0, -20.0, 88.5, -88.5]


def act_input(name, dt, lo, hi):
    """Specials (NaN, infinities, signed zeros, the thresholds of softplus and hardswish), then random values."""
    return torch.cat([rounded(torch.tensor(ACT_SPECIAL, dtype=torch.float64), dt),
                      randf(gen(name), (60,), dt, lo, hi)])


def glu_ref(kind, x):
    a, b = x.chunk(2, dim=-1)
    if kind == "glu":
        return F.glu(x, dim=-1)
    if kind == "swiglu":
        return F.silu(a) * b
    return F.gelu(a, approximate="tanh" if kind == "geglu_tanh" else "none") * b


def activation_family(o):
    for dt in FLOATS:
        for opname, fn in (("softplus", F.softplus), ("mish", F.mish), ("hardswish", F.hardswish),
                           ("hardsigmoid", F.hardsigmoid)):
            name = "%s.%s.range" % (opname, dt)
            x = act_input(name, dt, -25, 25)
            o.record(name, opname, ins=[("x", dt, x)], outs=[("out", dt, fn(x))])
        name = "leaky_relu.%s.slope" % dt
        x = act_input(name, dt, -4, 4)
        o.record(name, "leaky_relu", reals=[("negative_slope", [0.2])], ins=[("x", dt, x)],
                 outs=[("out", dt, F.leaky_relu(x, 0.2))])
        for kind in ("glu", "swiglu", "geglu", "geglu_tanh"):
            name = "%s.%s.halves" % (kind, dt)
            x = randf(gen(name), (5, 14), dt, -4, 4)
            x[0, :] = rounded(torch.tensor(ACT_SPECIAL + [1.0], dtype=torch.float64), dt)  # specials in a and b
            o.record(name, kind, ins=[("x", dt, x)], outs=[("out", dt, glu_ref(kind, x))])


# ---------------------------------------------------------------- masks
def mask_family(o):
    for dt in TDT:
        for op, fn in (("tril", torch.tril), ("triu", torch.triu)):
            for d in (-2, 0, 3):
                name = "%s.%s.diag%d" % (op, dt, d)
                x = randv(gen(name), (2, 5, 7), dt, full=True)
                o.record(name, op, ints=[("diagonal", [d])], ins=[("x", dt, x)], outs=[("out", dt, fn(x, d))])
        name = "masked_fill.%s.broadcast" % dt
        r = gen(name)
        x = randv(r, (3, 4, 6), dt, full=True)
        mask = randi(r, (4, 1), 0, 1)
        value = -math.inf if dt in FLOATS else (9 if dt in ("u8", "u32") else -7)
        o.record(name, "masked_fill", reals=[("value", [value])], ins=[("x", dt, x), ("mask", "u8", mask)],
                 outs=[("out", dt, x.masked_fill(mask.bool(), value))])


def topk_family(o):
    """topk, kthvalue and median on distinct values (PyTorch leaves the order of ties unspecified); topk largest
    with one NaN a row (NaN is the largest)."""
    for dt in ("f32", "f64", "f16", "bf16", "i32", "i64"):
        for shape, dim in (((4, 37), 1), ((6, 5, 3), 0), ((2, 600), -1)):
            if shape[-1] == 600 and dt not in ("f32", "i64"):
                continue
            n = shape[dim]
            base = "%s.%s_dim%d" % (dt, "x".join(map(str, shape)), dim)
            g = gen("topk." + base)
            # distinct values, exact in every dtype listed (f16/bf16 only on the small shapes: |v| <= 93)
            xt = torch.randperm(math.prod(shape), generator=g).reshape(shape) - math.prod(shape) // 2
            xt = xt.to(torch.float64) if dt in FLOATS else xt
            for k, largest in ((1, 1), (min(5, n), 0), (min(50, n), 1)):
                v, i = torch.topk(xt, k, dim=dim, largest=bool(largest), sorted=True)
                o.record("topk.%s_k%d_%s" % (base, k, "largest" if largest else "smallest"), "topk",
                         ints=[("k", [k]), ("dim", [dim]), ("largest", [largest])], ins=[("x", dt, xt)],
                         outs=[("values", dt, v), ("indices", "i64", i)])
            for keep in (0, 1):
                k = (n + 2) // 3
                v, i = torch.kthvalue(xt, k, dim=dim, keepdim=bool(keep))
                o.record("kthvalue.%s_k%d_keep%d" % (base, k, keep), "kthvalue",
                         ints=[("k", [k]), ("dim", [dim]), ("keepdim", [keep])], ins=[("x", dt, xt)],
                         outs=[("values", dt, v), ("indices", "i64", i)])
                v, i = torch.median(xt, dim=dim, keepdim=bool(keep))
                o.record("median.%s_keep%d" % (base, keep), "median", ints=[("dim", [dim]), ("keepdim", [keep])],
                         ins=[("x", dt, xt)], outs=[("values", dt, v), ("indices", "i64", i)])
    x = torch.randperm(40, generator=gen("topk.nan")).reshape(4, 10).to(torch.float64)
    x[torch.arange(4), torch.tensor([3, 0, 9, 5])] = math.nan
    v, i = torch.topk(x, 3, dim=1, largest=True, sorted=True)
    o.record("topk.f32.nan_largest", "topk", ints=[("k", [3]), ("dim", [1]), ("largest", [1])],
             ins=[("x", "f32", x)], outs=[("values", "f32", v), ("indices", "i64", i)])

# ---------------------------------------------------------------- statistics (var, std, logsumexp, norm)
STAT_CASES = [((4, 7), (1,), 0), ((3, 4, 5), (0, 2), 1), ((2, 3, 4), None, 0), ((5, 6), (-2,), 0)]


def stat_ops(x, dims, keep):
    """(name suffix, op, extra params, PyTorch's result) for every statistic of x over dims (None: every dim)."""
    d = tuple(range(x.dim())) if dims is None else dims
    res = []
    for unb in (0, 1):
        res.append(("unb%d" % unb, "var", [("unbiased", [unb])], [], torch.var(x, d, unbiased=bool(unb), keepdim=bool(keep))))
        res.append(("unb%d" % unb, "std", [("unbiased", [unb])], [], torch.std(x, d, unbiased=bool(unb), keepdim=bool(keep))))
    res.append(("", "logsumexp", [], [], torch.logsumexp(x, d, keepdim=bool(keep))))
    for p, pn in ((1, "p1"), (2, "p2"), (math.inf, "pinf")):
        if p == math.inf and x.numel() == 0:
            continue  # no identity: wick's error (PyTorch's too)
        res.append((pn, "norm", [], [("p", [p])], torch.linalg.vector_norm(x, p, d, keepdim=bool(keep))))
    return res


def stat_record(o, name, op, x, dt, dims, keep, ints, reals, y):
    dp = [("dims", list(dims))] if dims is not None else [("all", [1])]
    o.record(name, op, ints=dp + [("keepdim", [keep])] + ints, reals=reals, ins=[("x", dt, x)], outs=[("out", dt, y)])


def stats_family(o):
    for j, (shape, dims, keep) in enumerate(STAT_CASES):
        for dt in FLOATS:
            if dt in ("f16", "bf16") and j > 1:
                continue
            base = "%s.%s_%d" % (dt, "x".join(map(str, shape)), j)
            x = randf(gen("stats." + base), shape, dt, -4, 4)
            if j == 0:
                x[2] = rounded(x[2] + 100, dt)  # a mean far from 0 (var's two passes; logsumexp's max)
            for suf, op, ints, reals, y in stat_ops(x, dims, keep):
                stat_record(o, "%s.%s%s" % (op, base, "_" + suf if suf else ""), op, x, dt, dims, keep, ints, reals, y)
    for dt in ("f32", "f64"):
        # NaN, +inf, all -inf and +inf with finite rows: var/std NaN, logsumexp NaN/inf/-inf, norm NaN/inf
        x = randf(gen("stats.specials." + dt), (5, 6), dt)
        x[0, 2] = math.nan
        x[1, 4] = math.inf
        x[2] = -math.inf
        x[3, 0] = x[3, 5] = math.inf
        for suf, op, ints, reals, y in stat_ops(x, (1,), 0):
            stat_record(o, "%s.%s.specials%s" % (op, dt, "_" + suf if suf else ""), op, x, dt, (1,), 0, ints, reals, y)
        # one element with unbiased (NaN), and empty reductions (var NaN, logsumexp -inf, norm 0 for p 1 and 2)
        for shape in ((3, 1), (3, 0)):
            x = randf(gen("stats.edge.%s.%d" % (dt, shape[1])), shape, dt)
            for suf, op, ints, reals, y in stat_ops(x, (1,), 1):
                stat_record(o, "%s.%s.n%d%s" % (op, dt, shape[1], "_" + suf if suf else ""), op, x, dt, (1,), 1,
                            ints, reals, y)


# ---------------------------------------------------------------- normalisation layers
def norm_layers_family(o):
    eps = 1e-5
    # layer_norm over the last k dims: (shape, k, weight, bias)
    for j, (shape, k, hw, hb) in enumerate([((2, 3, 4), 2, True, True), ((2, 3, 4, 5), 3, False, False),
                                            ((3, 5), 2, True, False), ((4, 6), 1, True, True),
                                            ((2, 3, 4), 3, False, True)]):
        for dt in FLOATS:
            if dt in ("f16", "bf16") and j > 1:
                continue
            name = "layer_norm_dims.%s.k%d_%d" % (dt, k, j)
            r = gen(name)
            x = randf(r, shape, dt, -3, 3)
            if j == 0 and dt in ("f32", "f64"):
                x[1] = rounded(x[1] + 50, dt)
            ns = shape[len(shape) - k:]
            w = randf(r, ns, dt) if hw else None
            b = randf(r, ns, dt) if hb else None
            y = F.layer_norm(x, ns, w, b, eps)
            ins = [("x", dt, x)] + ([("w", dt, w)] if hw else []) + ([("b", dt, b)] if hb else [])
            o.record(name, "layer_norm_dims", ints=[("k", [k])], reals=[("eps", [eps])], ins=ins,
                     outs=[("out", dt, y)])
    # batch norm, inference: (shape, weight, bias, eps)
    for j, (shape, hw, hb, e) in enumerate([((2, 3, 4), True, True, 1e-5), ((2, 4, 3, 3), False, False, 1e-3),
                                            ((5, 3), True, False, 0.0), ((1, 2, 2, 2, 3), False, True, 0.1)]):
        for dt in FLOATS:
            if dt in ("f16", "bf16") and j > 1:
                continue
            name = "batch_norm.%s.%d" % (dt, j)
            r = gen(name)
            c = shape[1]
            x = randf(r, shape, dt, -3, 3)
            mean = randf(r, (c,), dt, -1, 1)
            var = randf(r, (c,), dt, 0.25, 2)
            w = randf(r, (c,), dt) if hw else None
            b = randf(r, (c,), dt) if hb else None
            y = F.batch_norm(x, mean, var, w, b, training=False, eps=e)
            ins = [("x", dt, x), ("mean", dt, mean), ("var", dt, var)] + ([("w", dt, w)] if hw else []) + \
                ([("b", dt, b)] if hb else [])
            o.record(name, "batch_norm", reals=[("eps", [e])], ins=ins, outs=[("out", dt, y)])
    # group norm: (shape, groups, weight, bias)
    for j, (shape, groups, hw, hb) in enumerate([((2, 6, 5), 3, True, True), ((2, 4, 3, 3), 2, False, False),
                                                 ((3, 8), 4, True, False), ((2, 3, 4), 1, False, True),
                                                 ((1, 6, 2, 2), 6, True, True)]):
        for dt in FLOATS:
            if dt in ("f16", "bf16") and j > 1:
                continue
            name = "group_norm.%s.g%d_%d" % (dt, groups, j)
            r = gen(name)
            c = shape[1]
            x = randf(r, shape, dt, -3, 3)
            w = randf(r, (c,), dt) if hw else None
            b = randf(r, (c,), dt) if hb else None
            y = F.group_norm(x, groups, w, b, eps)
            ins = [("x", dt, x)] + ([("w", dt, w)] if hw else []) + ([("b", dt, b)] if hb else [])
            o.record(name, "group_norm", ints=[("groups", [groups])], reals=[("eps", [eps])], ins=ins,
                     outs=[("out", dt, y)])


# ---------------------------------------------------------------- cumulative ops
SCAN_CASES = [((4, 9), 1), ((3, 5, 4), 0), ((2, 3, 6), -1), ((7,), 0), ((), 0)]


def scan_family(o):
    for j, (shape, dim) in enumerate(SCAN_CASES):
        tag = "%s_dim%d" % ("x".join(map(str, shape)) or "scalar", dim)
        for dt in ("f64", "f32", "f16", "bf16", "u8", "u32", "i32", "i64"):
            if dt in ("f16", "bf16", "u32") and j > 2:
                continue
            odt = dt if dt in FLOATS else "i64"  # PyTorch promotes integers to int64
            name = "cumsum.%s.%s" % (dt, tag)
            x = randv(gen(name), shape, dt)
            o.record(name, "cumsum", ints=[("dim", [dim])], ins=[("x", dt, x)],
                     outs=[("out", odt, torch.cumsum(x, dim))])
            name = "cumprod.%s.%s" % (dt, tag)
            r = gen(name)
            x = randf(r, shape, dt) if dt in FLOATS else randi(r, shape, 0 if dt in ("u8", "u32") else -4, 4)
            o.record(name, "cumprod", ints=[("dim", [dim])], ins=[("x", dt, x)],
                     outs=[("out", odt, torch.cumprod(x, dim))])
            if dt not in FLOATS:
                continue
            name = "logcumsumexp.%s.%s" % (dt, tag)
            x = randf(gen(name), shape, dt, -4, 4)
            if j == 0:
                x[1] = rounded(x[1] + 500, dt) if dt in ("f32", "f64") else x[1]  # exp overflows f32: max first
                x[2] = rounded(x[2] - 500, dt) if dt in ("f32", "f64") else x[2]
            o.record(name, "logcumsumexp", ints=[("dim", [dim])], ins=[("x", dt, x)],
                     outs=[("out", dt, torch.logcumsumexp(x, dim))])
    for dt in ("f32", "f64"):
        # NaN, infinities: cumsum/cumprod spread them (0 * inf = NaN); logcumsumexp keeps -inf, +inf wins
        x = randf(gen("scan.specials." + dt), (5, 6), dt)
        x[0, 2] = math.nan
        x[1, 1] = math.inf
        x[1, 4] = -math.inf
        x[2, :3] = -math.inf
        x[3, 0] = 0.0
        x[3, 3] = math.inf
        x[4, 5] = math.nan
        for op, fn in (("cumsum", torch.cumsum), ("cumprod", torch.cumprod), ("logcumsumexp", torch.logcumsumexp)):
            o.record("%s.%s.specials" % (op, dt), op, ints=[("dim", [1])], ins=[("x", dt, x)],
                     outs=[("out", dt, fn(x, 1))])


FAMILIES = [("conv", conv_family), ("pool", pool_family), ("upsample", upsample_family), ("index", index_family),
            ("sort", sort_family), ("round", round_family), ("cast", cast_family), ("softmax", softmax_family),
            ("reorder", reorder_family), ("activation", activation_family), ("mask", mask_family),
            ("topk", topk_family), ("stats", stats_family), ("norm_layers", norm_layers_family),
            ("scan", scan_family)]


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    torch.set_num_threads(1)
    total = 0
    for fname, fam in FAMILIES:
        o = Out()
        fam(o)
        path = os.path.join(outdir, fname + ".txt")
        o.save(path, "wick golden file: %s (format: see make_golden.py)" % fname)
        total += len(o.names)
        print("%-12s %4d goldens %8d bytes" % (fname + ".txt", len(o.names), os.path.getsize(path)))
    print("%d goldens" % total)


if __name__ == "__main__":
    main()
