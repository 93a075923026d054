"""test_npy.py: wick's .npy reader and writer against numpy itself, through tests/io/npy_tool.c (argv[1]):
files numpy writes (every dtype, 0-d, empty, Fortran order, NaN payloads and -0.0, versions 1.0 / 2.0 / 3.0)
are copied by wick (wk_npy_load then wk_npy_save) and read back by numpy bit-exact; the types wick lacks
convert with wk_npy_load_as; what wick refuses (big-endian, objects, structured, complex, bfloat16) fails
with a message saying why. Plain script: exits 1 on any failure, prints "N passed, M failed"."""
import os
import subprocess
import sys
import tempfile

import numpy as np

from checks import check, summary

TOOL = sys.argv[1]


def tool(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True)


def header_of(path):
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read(f)
        return version, shape, fortran, dtype, f.tell()


def same_bits(a, b):
    """Equal dtype, shape and bytes (so NaN payloads and -0.0 count)."""
    return a.dtype == b.dtype and a.shape == b.shape and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def copy_check(arr, what, dtype=None, expect=None, writer=None):
    """arr saved by numpy (or writer), copied by wick, loaded by numpy: equal to expect (default arr)."""
    src, dst = os.path.join(tmp, "in.npy"), os.path.join(tmp, "out.npy")
    if writer:
        with open(src, "wb") as f:
            writer(f, arr)
    else:
        np.save(src, arr)
    if os.path.exists(dst):
        os.remove(dst)
    r = tool("copy", src, dst, *([dtype] if dtype else []))
    check(r.returncode == 0, f"{what}: npy_tool copy exit {r.returncode}: {r.stderr.strip()}")
    if r.returncode != 0:
        return
    got = np.load(dst)
    want = arr if expect is None else expect
    check(same_bits(got, want), f"{what}: numpy reads back {got.dtype}{got.shape} {got.ravel()[:8]}, "
                                f"want {want.dtype}{want.shape} {want.ravel()[:8]}")
    version, shape, fortran, _, offset = header_of(dst)
    check(version == (1, 0) and not fortran and offset % 64 == 0 and shape == want.shape,
          f"{what}: wick writes version 1.0, C order, a 64-byte aligned header (got {version} {fortran} {offset})")
    check(np.array_equal(np.load(dst, mmap_mode="r"), want, equal_nan=want.dtype.kind == "f"),
          f"{what}: numpy maps wick's file")


def refuse_check(arr, part, what, allow_pickle=False, dtype=None):
    src, dst = os.path.join(tmp, "in.npy"), os.path.join(tmp, "out.npy")
    np.save(src, arr, allow_pickle=allow_pickle)
    r = tool("copy", src, dst, *([dtype] if dtype else []))
    check(r.returncode == 1 and part in r.stderr and "in.npy" in r.stderr,
          f"{what}: exit {r.returncode}, message {r.stderr.strip()!r} should contain {part!r}")


rng = np.random.default_rng(7)
tmp = tempfile.mkdtemp(prefix="wick_npy_")

# Every wick dtype numpy has, several shapes, C and Fortran order.
WICK_TYPES = [np.float16, np.float32, np.float64, np.uint8, np.uint32, np.int32, np.int64]
SHAPES = [(), (0,), (1,), (7,), (0, 3), (3, 0), (3, 4), (2, 3, 4), (1, 2, 1, 2, 1, 2, 1, 3)]
for t in WICK_TYPES:
    for shape in SHAPES:
        if np.dtype(t).kind == "f":
            a = rng.standard_normal(shape).astype(t)
        else:
            info = np.iinfo(t)
            a = rng.integers(info.min, info.max, size=shape, dtype=t, endpoint=True)
        copy_check(a, f"{np.dtype(t).name} {shape}")
        if len(shape) > 1:
            f = np.asfortranarray(a)
            copy_check(f, f"{np.dtype(t).name} {shape} Fortran order")

# Fortran files as wick sees them: the same values, read-only, row-major bytes from hex.
a = np.asfortranarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
src = os.path.join(tmp, "f.npy")
np.save(src, a)
check(header_of(src)[2], "numpy wrote a Fortran-order file")
r = tool("hex", src)
lines = dict(line.split(" ", 1) for line in r.stdout.strip().split("\n")) if r.returncode == 0 else {}
check(lines.get("dtype") == "f32" and lines.get("shape") == "2 3 4" and lines.get("readonly") == "1" and
      lines.get("hex") == np.ascontiguousarray(a).tobytes().hex(), f"hex of a Fortran file: {r.stdout} {r.stderr}")

# NaN payloads, infinities, -0.0, subnormals survive bit for bit.
for t, bits in [(np.float32, [0x7FC12345, 0xFFC00001, 0x80000000, 0x7F800000, 0xFF800000, 0x00000001]),
                (np.float16, [0x7E01, 0xFC00, 0x8000, 0x0001, 0x7C00, 0xFE55]),
                (np.float64, [0x7FF8000000000123, 0x8000000000000000, 0xFFF0000000000000, 1])]:
    u = {np.float32: np.uint32, np.float16: np.uint16, np.float64: np.uint64}[t]
    a = np.array(bits, dtype=u).view(t)
    copy_check(a, f"{np.dtype(t).name} NaN payloads / -0.0 / inf / subnormals")
    copy_check(np.asfortranarray(np.stack([a, a[::-1]])), f"{np.dtype(t).name} NaN payloads, Fortran order")

# Versions 2.0 and 3.0 (numpy writes them only when asked or when the header needs it); wick writes 1.0.
for version in [(1, 0), (2, 0), (3, 0)]:
    def writer(f, arr, version=version):
        np.lib.format.write_array(f, arr, version=version)
    a = rng.standard_normal((5, 6)).astype(np.float32)
    copy_check(a, f"version {version}", writer=writer)
    copy_check(np.asfortranarray(a), f"version {version} Fortran order", writer=writer)
    src = os.path.join(tmp, "in.npy")
    with open(src, "wb") as f:
        writer(f, a)
    check(header_of(src)[0] == version, f"numpy wrote version {version}")

# Types wick lacks: a plain load refuses and names wk_npy_load_as; the _as load converts like numpy's astype.
for t, to, wick_to in [(np.bool_, np.int32, "i32"), (np.int8, np.int32, "i32"), (np.int16, np.int64, "i64"),
                       (np.uint16, np.float32, "f32"), (np.uint64, np.int64, "i64"), (np.int8, np.float64, "f64")]:
    if t is np.bool_:
        a = rng.integers(0, 2, size=(3, 5)).astype(bool)
    else:
        info = np.iinfo(t)
        a = rng.integers(info.min, info.max, size=(3, 5), dtype=t, endpoint=True)
    refuse_check(a, "wk_npy_load_as", f"{np.dtype(t).name} plain load")
    copy_check(a, f"{np.dtype(t).name} as {wick_to}", dtype=wick_to, expect=a.astype(to))
    copy_check(np.asfortranarray(a), f"{np.dtype(t).name} Fortran as {wick_to}", dtype=wick_to, expect=a.astype(to))
# Wick dtypes converted on load (wk_cast's rules: f32 -> f64 exact, i32 -> f32 rounds to nearest).
a = rng.standard_normal((4, 4)).astype(np.float32)
copy_check(a, "f32 as f64", dtype="f64", expect=a.astype(np.float64))
a = rng.integers(-2**31, 2**31 - 1, size=(9,), dtype=np.int32)
copy_check(a, "i32 as f32", dtype="f32", expect=a.astype(np.float32))

# What wick refuses, and says why.
refuse_check(np.arange(6, dtype=">f4"), "big-endian", "big-endian f4")
refuse_check(np.arange(6, dtype=">i8").reshape(2, 3), "big-endian", "big-endian i8")
refuse_check(np.array([1, "a", None], dtype=object), "object", "object array", allow_pickle=True)
refuse_check(np.zeros(3, dtype=[("a", "<f4"), ("b", "<i4")]), "structured", "structured array")
refuse_check(np.zeros(3, dtype=np.complex64), "complex", "complex64")
refuse_check(np.array(["ab", "c"]), "string", "unicode strings")
refuse_check(np.zeros(3, dtype=np.complex64), "complex", "complex64 as f32", dtype="f32")
try:
    import ml_dtypes
    refuse_check(np.zeros((2, 3), dtype=ml_dtypes.bfloat16), "bfloat16", "ml_dtypes bfloat16")
except ImportError:
    print("ml_dtypes not installed: its bfloat16 .npy files not tested")

# A damaged file numpy would also refuse: too short.
src = os.path.join(tmp, "in.npy")
np.save(src, np.arange(10, dtype=np.float32))
with open(src, "r+b") as f:
    f.truncate(os.path.getsize(src) - 1)
r = tool("copy", src, os.path.join(tmp, "out.npy"))
check(r.returncode == 1 and "WK_ERR_FILE" in r.stderr and "truncated" in r.stderr, f"truncated: {r.stderr}")

for name in os.listdir(tmp):
    os.remove(os.path.join(tmp, name))
os.rmdir(tmp)
sys.exit(summary())
