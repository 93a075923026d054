#!/usr/bin/python3
"""cpu_vs_numpy.py: the same CPU work through wick (ctypes on the built libwick.so) and numpy, timed in
one process the same way (median of several runs after a warm-up), with the results compared.

Run with Debian's python3 (python3-numpy): /usr/bin/python3 bench/cpu_vs_numpy.py [--lib PATH] [--quick]
"""
import argparse
import ctypes
import math
import os
import platform
import statistics
import sys
import time

try:
    import numpy as np
except ImportError:
    sys.exit("cpu_vs_numpy.py needs numpy: sudo apt-get install python3-numpy, then run it with /usr/bin/python3")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Enum values of include/wick.h.
DTYPES = {"u8": 0, "u32": 1, "i32": 2, "i64": 3, "f16": 4, "bf16": 5, "f32": 6, "f64": 7}
NUMPY_DTYPES = {"u8": np.uint8, "u32": np.uint32, "i32": np.int32, "i64": np.int64, "f16": np.float16,
                "f32": np.float32, "f64": np.float64}
WK_BINARY_ADD, WK_UNARY_EXP, WK_REDUCE_SUM = 0, 0, 0


class Wick:
    """The few entry points of libwick.so the cases need, with statuses turned into exceptions."""

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        vp, pvp, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64)
        sigs = {
            "wk_device_get": [ctypes.c_char_p, pvp],
            "wk_device_sync": [vp],
            "wk_tensor_from_host": [vp, ctypes.c_int, ctypes.c_int, i64p, vp, pvp],
            "wk_tensor_to_host": [vp, vp, ctypes.c_size_t],
            "wk_binary": [ctypes.c_int, vp, vp, pvp],
            "wk_unary": [ctypes.c_int, vp, pvp],
            "wk_cast": [vp, ctypes.c_int, pvp],
            "wk_reduce": [ctypes.c_int, vp, ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_bool, pvp],
            "wk_matmul": [vp, vp, pvp],
        }
        for name, args in sigs.items():
            getattr(lib, name).argtypes = args
            getattr(lib, name).restype = ctypes.c_int
        lib.wk_tensor_release.argtypes = [vp]
        lib.wk_tensor_release.restype = None
        lib.wk_last_error.restype = ctypes.c_char_p
        lib.wk_status_string.argtypes = [ctypes.c_int]
        lib.wk_status_string.restype = ctypes.c_char_p
        self.dev = ctypes.c_void_p()
        self.check(lib.wk_device_get(b"cpu", ctypes.byref(self.dev)), "device_get")

    def check(self, status, what):
        if status != 0:
            raise RuntimeError("%s: %s: %s" % (what, self.lib.wk_status_string(status).decode(),
                                               self.lib.wk_last_error().decode()))

    def tensor(self, array):
        dt = {np.dtype(v): k for k, v in NUMPY_DTYPES.items()}[array.dtype]
        array = np.ascontiguousarray(array)
        shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        out = ctypes.c_void_p()
        self.check(self.lib.wk_tensor_from_host(self.dev, DTYPES[dt], array.ndim, shape,
                                                array.ctypes.data_as(ctypes.c_void_p), ctypes.byref(out)),
                   "from_host")
        return out

    def to_numpy(self, t, dtype, shape):
        out = np.empty(shape, dtype=dtype)
        self.check(self.lib.wk_tensor_to_host(t, out.ctypes.data_as(ctypes.c_void_p), out.nbytes), "to_host")
        return out

    def release(self, t):
        self.lib.wk_tensor_release(t)

    def call(self, fn, *args):
        """Runs fn(*args, &out), waits for the device, returns out."""
        out = ctypes.c_void_p()
        self.check(fn(*args, ctypes.byref(out)), fn.__name__)
        self.check(self.lib.wk_device_sync(self.dev), "device_sync")
        return out


def time_runs(run, release, budget_s, min_runs, max_runs):
    """Median seconds of run() over several runs after a warm-up; release(result) after each clock stop."""
    t0 = time.perf_counter()
    release(run())
    warm = time.perf_counter() - t0
    runs = max(min_runs, min(max_runs, math.ceil(budget_s / warm) if warm > 0 else max_runs))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - t0)
        release(result)
    return statistics.median(times)


def cases(wick, quick, rng):
    """(name, shape text, wick run, numpy run, output dtype, output shape, tolerance; None = exact)."""
    n = (4 << 20) if quick else (64 << 20)
    rows = 2048 if quick else 8192
    m = 1024 if quick else 2048
    x = rng.uniform(-100, 100, n).astype(np.float32)
    y = rng.uniform(-100, 100, n).astype(np.float32)
    small = rng.uniform(-2, 2, n).astype(np.float32)
    mat = rng.uniform(-1, 1, (rows, rows)).astype(np.float32)
    a = rng.uniform(-1, 1, (m, m)).astype(np.float32)
    b = rng.uniform(-1, 1, (m, m)).astype(np.float32)
    tx, ty, tsmall, tmat, ta, tb = (wick.tensor(v) for v in (x, y, small, mat, a, b))
    lib = wick.lib
    last = (ctypes.c_int * 1)(-1)
    yield ("add f32", str(n), lambda: wick.call(lib.wk_binary, WK_BINARY_ADD, tx, ty), lambda: x + y,
           np.float32, (n,), None)
    yield ("exp f32", str(n), lambda: wick.call(lib.wk_unary, WK_UNARY_EXP, tsmall), lambda: np.exp(small),
           np.float32, (n,), 1e-6)
    for name, dt in (("f16", np.float16), ("f64", np.float64), ("i32", np.int32)):
        yield ("cast f32->" + name, str(n), lambda d=DTYPES[name]: wick.call(lib.wk_cast, tx, d),
               lambda d=dt: x.astype(d), dt, (n,), None)
    yield ("sum f32 last dim", "%dx%d" % (rows, rows),
           lambda: wick.call(lib.wk_reduce, WK_REDUCE_SUM, tmat, last, 1, False), lambda: mat.sum(axis=-1),
           np.float32, (rows,), 1e-5)
    yield ("matmul f32", "%d^3" % m, lambda: wick.call(lib.wk_matmul, ta, tb), lambda: a @ b,
           np.float32, (m, m), 1e-5)
    for t in (tx, ty, tsmall, tmat, ta, tb):
        wick.release(t)


def machine():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return "%s, nproc %d, %s; numpy %s; OMP_NUM_THREADS=%s" % (
        model, cores, platform.platform(), np.__version__, os.environ.get("OMP_NUM_THREADS", "(unset)"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", default=os.environ.get("WICK_LIB", os.path.join(REPO, "build", "libwick.so")),
                    help="path to libwick.so (default: build/libwick.so, or $WICK_LIB)")
    ap.add_argument("--quick", action="store_true", help="small sizes, fewer runs")
    args = ap.parse_args()
    if not os.path.exists(args.lib):
        sys.exit("no %s: build first (scripts/run.sh or cmake --build build), or pass --lib" % args.lib)
    wick = Wick(args.lib)
    budget, min_runs, max_runs = (0.25, 3, 10) if args.quick else (2.0, 5, 25)
    print("machine: " + machine())
    print("wick:    %s (ctypes); times are medians after a warm-up; numpy element-wise ops use one thread,"
          % args.lib)
    print("         wick uses OpenMP threads; both matmuls call OpenBLAS")
    print("%-18s %-12s %12s %12s %12s  %s" % ("case", "shape", "wick ms", "numpy ms", "wick/numpy", "results"))
    failed = 0
    for name, shape, run_wick, run_numpy, dtype, out_shape, tol in cases(wick, args.quick, np.random.default_rng(1)):
        t_np = time_runs(run_numpy, lambda r: None, budget, min_runs, max_runs)
        try:
            t_wk = time_runs(run_wick, wick.release, budget, min_runs, max_runs)
            out = run_wick()
            got = wick.to_numpy(out, dtype, out_shape)
            wick.release(out)
            want = run_numpy()
            if tol is None:
                same = np.array_equal(got, want)
            else:
                same = np.linalg.norm(got.astype(np.float64) - want) <= tol * np.linalg.norm(want.astype(np.float64))
            verdict = "match" if same else "DIFFER"
            failed += not same
            print("%-18s %-12s %12.3f %12.3f %12.2f  %s" % (name, shape, 1e3 * t_wk, 1e3 * t_np, t_wk / t_np,
                                                          verdict))
        except RuntimeError as e:
            failed += 1
            print("%-18s %-12s %12s %12.3f %12s  error: %s" % (name, shape, "-", 1e3 * t_np, "-", e))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
