"""DLPack between wick (python/wick over libwick) and numpy 2.x on the CPU: zero-copy both ways (writes on either
side seen by the other), the deleter run exactly once (the producer's refcounts come back to where they
started), versioned and legacy capsules, read-only arrays, negative strides (refused, or copied with
copy=True: WK_DLPACK_ALLOW_COPY), strided and offset views, every dtype, unsupported dtypes, consumed capsules.
Runs with LIBWICK and PYTHONPATH=python set."""
import gc
import sys

import ml_dtypes
import numpy as np

import wick
from wick import _dlpack

from checks import check, run, summary

NP_DTYPES = {"u8": np.uint8, "u32": np.uint32, "i32": np.int32, "i64": np.int64, "f16": np.float16,
             "f32": np.float32, "f64": np.float64}


def raises(exc, fn, what, status=None, needle=None):
    try:
        fn()
    except exc as e:
        ok = status is None or (e.status == status and (needle is None or needle in e.message))
        return check(ok, f"{what}: {e!r}, expected {status} naming {needle!r}")
    except Exception as e:  # noqa: BLE001 (reported as a failure)
        return check(False, f"{what}: {e!r}, expected {exc.__name__}")
    check(False, f"{what}: nothing raised ({exc.__name__} expected)")


def wick_copy(t):
    """t's values read by wick itself (wk_contiguous, a new storage), as numpy."""
    return wick.contiguous(t).numpy().copy()


def rc(x):
    """x's reference count, measured the same way everywhere (this call's own references included)."""
    return sys.getrefcount(x)


def refcount_back(a, start, what):
    """a's count is start again (start from rc(a) in the caller: a parameter, like rc's own)."""
    gc.collect()
    now = sys.getrefcount(a)
    check(now == start, f"{what}: refcount {now} != {start} at the start")


def capsule_name(cap):
    return _dlpack._api.PyCapsule_GetName(cap)


def test_wick_to_numpy():
    t = wick.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    a = np.from_dlpack(t)
    check(a.shape == (3, 4) and a.dtype == np.float32 and a.flags.writeable, "np.from_dlpack(wick tensor)")
    a[1, 2] = -5
    check(wick_copy(t)[1, 2] == -5, "a write through numpy is seen by wick")
    wick.fill(wick.narrow(t, 0, 2, 1), 9)
    check(np.all(a[2] == 9), "a write through wick (fill) is seen by numpy")
    check(np.shares_memory(a, t.numpy()), "two exports share one memory")
    v = wick.narrow(wick.transpose(t, 0, 1), 0, 1, 2)  # offset and strides
    av = np.from_dlpack(v)
    check(av.shape == (2, 3) and av.strides == (4, 16) and np.shares_memory(av, a), f"strided view {av.strides}")
    check(np.array_equal(av, a.T[1:3]), "strided view values")
    e = np.from_dlpack(wick.zeros((0, 3)))
    check(e.shape == (0, 3), "empty tensor")
    s = np.from_dlpack(wick.full((), 2.5, "f64"))
    check(s.shape == () and s == 2.5, "0-d tensor")
    del t, v
    gc.collect()
    junk = [wick.ones((3, 4)) for _ in range(20)]  # reuse freed memory, if any was freed
    check(a[1, 2] == -5 and np.all(a[2] == 9), "the numpy array keeps the wick storage alive")
    del junk


def test_numpy_to_wick():
    a = np.arange(10, dtype=np.int64)
    t = wick.from_dlpack(a)
    check(t.shape == (10,) and t.dtype == "i64" and not t.is_read_only, f"wick.from_dlpack(ndarray) {t}")
    a[3] = -7
    check(wick_copy(t)[3] == -7, "a write through numpy is seen by wick")
    wick.fill(wick.narrow(t, 0, 5, 2), 100)
    check(a[5] == 100 and a[6] == 100 and a[7] == 7, "a write through wick is seen by numpy")
    check(np.shares_memory(np.from_dlpack(t), a), "export back to numpy shares the original memory")
    base = np.arange(20.0).reshape(4, 5)
    view = base[1:, ::2]  # an offset and a stride
    tv = wick.from_dlpack(view)
    check(tv.shape == (3, 3) and tv.strides == (5, 2), f"strided import strides {tv.strides}")
    check(np.array_equal(wick_copy(tv), view), "strided import values")
    base[2, 2] = -1
    check(wick_copy(tv)[1, 1] == -1, "strided import shares memory")
    tb = wick.from_dlpack(np.broadcast_to(np.arange(3.0), (4, 3)))
    check(tb.strides == (0, 1) and np.array_equal(wick_copy(tb), np.broadcast_to(np.arange(3.0), (4, 3))),
          "a broadcast (stride 0) view imports as one")
    z = wick.from_dlpack(np.zeros((2, 0, 3), np.float32))
    check(z.shape == (2, 0, 3), "empty array")
    c = wick.from_dlpack(np.arange(4.0), copy=True)
    check(not np.shares_memory(c.numpy(), a), "copy=True gives wick's own memory")
    raises(wick.WickError, lambda: wick.from_dlpack(np.zeros((1,) * 9)), "rank 9", "WK_ERR_SHAPE", "ndim")
    raises(TypeError, lambda: wick.from_dlpack([1, 2]), "a list has no __dlpack__")


def test_deleter_once():
    a = np.arange(6, dtype=np.float32)
    start = rc(a)
    t = wick.from_dlpack(a)
    check(rc(a) == start + 1, "the wick tensor holds the producer (numpy's export, once)")
    b = np.from_dlpack(t)  # numpy -> wick -> numpy
    view = wick.transpose(wick.reshape(t, (2, 3)), 0, 1)
    del t
    refcount_back(a, start + 1, "numpy's deleter waits for every wick reference (b, view)")
    del view
    gc.collect()
    check(rc(a) == start + 1 and b[2] == 2, "b keeps the chain alive")
    del b
    refcount_back(a, start, "numpy -> wick -> numpy, all dropped: each deleter ran once")
    for versioned in (True, False):  # an unconsumed capsule: its destructor runs the deleter
        t = wick.from_dlpack(a)
        cap = t.__dlpack__(max_version=(1, 0) if versioned else None)
        check(capsule_name(cap) == (b"dltensor_versioned" if versioned else b"dltensor"), "capsule name")
        del t, cap
        refcount_back(a, start, f"unconsumed {'versioned' if versioned else 'legacy'} capsule deleted")
    cap = a.__dlpack__(max_version=(1, 0))  # consumed by wick: renamed, the deleter is wick's to run
    t = wick.from_dlpack(cap)
    check(capsule_name(cap) == b"used_dltensor_versioned", "wick renames a consumed capsule")
    del cap
    gc.collect()
    check(rc(a) == start + 1 and wick_copy(t)[5] == 5, "a used capsule deleted: wick still owns")
    del t
    refcount_back(a, start, "the wick tensor released: numpy's deleter ran")
    r = a[::-1]  # an import wick refuses: the capsule keeps the tensor and frees it
    rstart = rc(r)
    cap = r.__dlpack__(max_version=(1, 0))
    raises(wick.WickError, lambda: wick.from_dlpack(cap), "negative strides via a capsule",
           "WK_ERR_INVALID_ARGUMENT", "negative strides")
    check(capsule_name(cap) == b"dltensor_versioned", "a refused capsule is not renamed")
    del cap
    refcount_back(r, rstart, "a refused capsule deleted: the deleter ran")
    del r  # (a view of a)
    # a consumer that takes wick's capsule and refuses it drops it with its exception set: the deleter runs
    # all the same, and the consumer's message reaches sys.unraisablehook (pure Python cannot keep it pending)
    u = wick.from_dlpack(a)

    class Refused:
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, **kw):
            cap = u.__dlpack__(**kw)
            ptr = _dlpack._api.PyCapsule_GetPointer(id(cap), b"dltensor_versioned")
            _dlpack.dl_tensor(ptr, True)[0].dtype.code = 5  # complex64: numpy's import refuses it
            return cap
    seen, hook = [], sys.unraisablehook
    sys.unraisablehook = lambda info: seen.append(info.exc_value)
    try:
        raises(Exception, lambda: np.from_dlpack(Refused()), "numpy refuses the capsule")
    finally:
        sys.unraisablehook = hook
    check(len(seen) == 1 and "dtype" in str(seen[0]), f"the consumer's message is reported: {seen}")
    del u, seen  # (the exception's traceback holds frames)
    refcount_back(a, start, "a capsule numpy refused: the deleter ran once")
    for bad in (np.zeros(3, np.complex64), np.zeros(3, np.int16)):
        bstart = rc(bad)
        raises(wick.WickError, lambda: wick.from_dlpack(bad), f"{bad.dtype}", "WK_ERR_DTYPE", "has no wick dtype")
        refcount_back(bad, bstart, f"refused {bad.dtype}: the producer's tensor freed")


def test_capsules():
    a = np.arange(5, dtype=np.int32)
    cap = a.__dlpack__()  # numpy's legacy export
    check(capsule_name(cap) == b"dltensor", "numpy legacy capsule")
    t = wick.from_dlpack(cap)
    check(capsule_name(cap) == b"used_dltensor", "legacy capsule renamed")
    a[0] = 42
    check(wick_copy(t)[0] == 42, "legacy import shares memory")
    raises(ValueError, lambda: wick.from_dlpack(cap), "a consumed capsule consumed twice")

    class Legacy:  # a producer without max_version (before DLPack 1.0)
        def __init__(self, x):
            self.x = x

        def __dlpack_device__(self):
            return self.x.__dlpack_device__()

        def __dlpack__(self, stream=None):
            return self.x.__dlpack__(stream=stream)
    t = wick.from_dlpack(Legacy(a))
    check(wick_copy(t)[0] == 42, "an old producer (TypeError on max_version) falls back to legacy")
    w = wick.from_numpy(np.arange(4, dtype=np.float64))
    b = np.from_dlpack(Legacy(w))  # wick's legacy export, consumed by numpy (read-only: numpy cannot tell)
    wick.fill(wick.narrow(w, 0, 1, 1), 11)
    check(b[1] == 11 and np.shares_memory(b, np.from_dlpack(w)), "legacy export shares memory")
    cap = w.__dlpack__(max_version=(1, 3))
    m = _dlpack.DLManagedTensorVersioned.from_address(_dlpack._api.PyCapsule_GetPointer(id(cap), b"dltensor_versioned"))
    check(m.version.major == 1 and m.flags == 0 and m.dl_tensor.dtype.code == 2 and m.dl_tensor.dtype.bits == 64,
          f"versioned struct: version {m.version.major}.{m.version.minor} flags {m.flags}")
    del cap, m
    raises(BufferError, lambda: w.__dlpack__(dl_device=(2, 0)), "dl_device CUDA for a CPU tensor")
    c = np.from_dlpack(w, copy=True)
    check(not np.shares_memory(c, np.from_dlpack(w)) and c[1] == 11, "copy=True export is a copy")
    cap = w.__dlpack__(max_version=(1, 0), copy=True)
    m = _dlpack.DLManagedTensorVersioned.from_address(_dlpack._api.PyCapsule_GetPointer(id(cap), b"dltensor_versioned"))
    check(m.flags & _dlpack.FLAG_IS_COPIED, "a copy is flagged IS_COPIED")
    del cap, m
    check(np.shares_memory(np.from_dlpack(w, copy=False), np.from_dlpack(w)), "copy=False export shares")
    check(np.shares_memory(np.from_dlpack(w, device="cpu"), np.from_dlpack(w)), "device='cpu' export shares")


def test_read_only():
    a = np.arange(6.0)
    a.flags.writeable = False
    t = wick.from_dlpack(a)
    check(t.is_read_only, "a non-writeable array imports read-only")
    back = np.from_dlpack(t)
    check(not back.flags.writeable and np.shares_memory(back, a), "and exports back read-only")
    check(not t.numpy().flags.writeable, "Tensor.numpy() of a read-only tensor is read-only")
    one = wick.ones((1,), "f64")
    ids = wick.from_numpy(np.array([0], np.int64))
    for name, fn in (("fill", lambda: wick.fill(t, 1)), ("copy_into", lambda: wick.copy_into(t, wick.zeros(6, "f64"))),
                     ("slice_set", lambda: wick.slice_set(t, one, 0, 2)),
                     ("copy2d", lambda: wick.copy2d(one, t, 1, 1, 1, 1, 0, 0)),
                     ("scatter", lambda: wick.scatter(t, 0, ids, one, inplace=True)),
                     ("scatter_add", lambda: wick.scatter_add(t, 0, ids, one, inplace=True)),
                     ("index_add", lambda: wick.index_add(t, 0, ids, one, inplace=True))):
        raises(wick.WickError, fn, f"in-place {name} on a read-only import", "WK_ERR_INVALID_ARGUMENT", "read-only")
    check(np.array_equal(a, np.arange(6.0)), "the read-only array is unchanged")
    check(np.array_equal((t * 2).numpy(), a * 2), "ops that make new tensors read it")
    c = wick.contiguous(t)
    check(not c.is_read_only, "wk_contiguous gives a writable copy")
    raises(BufferError, lambda: t.__dlpack__(), "legacy export of a read-only tensor (no flag to carry it)")
    lc = np.from_dlpack(_Legacy(t, copy=True))
    check(np.array_equal(lc, a) and not np.shares_memory(lc, a), "legacy export of a read-only tensor, copy=True")


class _Legacy:
    """Hands numpy wick's legacy capsule (with the given __dlpack__ keywords)."""

    def __init__(self, t, **kw):
        self.t, self.kw = t, kw

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()

    def __dlpack__(self, **_):
        return self.t.__dlpack__(**self.kw)


def test_negative_strides():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    for v in (a[::-1], a[:, ::-2], a[::-1, 1:]):
        raises(wick.WickError, lambda: wick.from_dlpack(v), f"negative strides {v.strides} without copy",
               "WK_ERR_INVALID_ARGUMENT", "negative strides")
        raises(wick.WickError, lambda: wick.from_dlpack(v, copy=False), "negative strides, copy=False",
               "WK_ERR_INVALID_ARGUMENT", "WK_DLPACK_ALLOW_COPY")
        c = wick.from_dlpack(v, copy=True)
        check(np.array_equal(c.numpy(), v) and c.is_contiguous, f"negative strides {v.strides}, copy=True")
        check(not np.shares_memory(c.numpy(), a), "the copy owns its memory")
    for one in (a[::-1][:1], a[::-1][:0]):  # a negative stride over a dim of size 1 or 0 reverses nothing
        try:
            check(np.array_equal(wick_copy(wick.from_dlpack(one)), one), "negative stride over a size-1 dim")
        except wick.WickError as e:
            check(False, f"negative stride over a dim of size {one.shape[0]} (strides {one.strides}): {e}")


def test_dtypes():
    for dt, npdt in NP_DTYPES.items():
        a = (np.arange(6) * 3).astype(npdt).reshape(2, 3)
        t = wick.from_dlpack(a)
        check(t.dtype == dt and np.array_equal(wick_copy(t), a), f"import {dt}")
        b = np.from_dlpack(t)
        check(b.dtype == np.dtype(npdt) and np.shares_memory(b, a), f"export {dt} back")
    bo = np.array([True, False, True])
    t = wick.from_dlpack(bo)
    check(t.dtype == "u8" and wick_copy(t).tolist() == [1, 0, 1], "bool imports as u8")
    bo[1] = True
    check(wick_copy(t)[1] == 1, "bool import shares memory")
    h = wick.from_numpy(np.array([1.5, -2.25], np.float32)).cast("bf16")
    hb = h.numpy()
    check(hb.dtype == ml_dtypes.bfloat16 and hb.astype(np.float32).tolist() == [1.5, -2.25], "bf16 numpy()")
    hb[0] = 3
    check(wick.cast(h, "f32").numpy()[0] == 3, "bf16 numpy() is a zero-copy view")
    for bad in (np.complex64, np.int16, np.uint16, np.int8, np.uint64):
        raises(wick.WickError, lambda: wick.from_dlpack(np.zeros(2, bad)), f"import {np.dtype(bad)}",
               "WK_ERR_DTYPE", "no wick dtype")


def main():
    tests = [test_wick_to_numpy, test_numpy_to_wick, test_deleter_once, test_capsules, test_read_only,
             test_negative_strides, test_dtypes]
    run(tests)
    gc.collect()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
