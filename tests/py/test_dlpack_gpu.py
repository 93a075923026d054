#!/usr/bin/env python3
"""test_dlpack_gpu.py: DLPack exchange on cuda:0 with PyTorch, CuPy and JAX through the Python package (a device
run: bench/results/ holds its output). Both sides see writes through the shared memory; the producer's memory
is handed back exactly once (PyTorch's allocator returns to its baseline only when wick released the import;
a second release would crash or corrupt it); wick's queued work on an exported tensor is ordered before the
consumer's stream reads it. Run it under compute-sanitizer --leak-check full for the leak check.
Prints "N passed, M failed"; exit status 1 on any failure."""
import gc
import os
import sys

import numpy as np

import wick

from checks import check, fail, summary


def with_torch():
    import torch
    dev = torch.device("cuda:0")
    t = torch.arange(12, dtype=torch.float32, device=dev).reshape(3, 4)
    w = wick.from_dlpack(t)
    check(w.device == "cuda:0" and w.shape == (3, 4) and w.dtype == "f32", "torch -> wick: device, shape, dtype")
    t[1, 2] = 100.0
    torch.cuda.synchronize()
    check(w.numpy()[1, 2] == 100.0, "wick sees torch's write")
    # wick -> torch, and torch's write seen by wick
    x = wick.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3), device="cuda:0")
    tt = torch.from_dlpack(x)
    check(tt.device == dev and tt.shape == (2, 3), "wick -> torch: device, shape")
    check(torch.equal(tt.cpu(), torch.arange(6, dtype=torch.float32).reshape(2, 3)), "torch reads wick's values")
    tt.add_(1)
    torch.cuda.synchronize()
    check(np.array_equal(x.numpy(), np.arange(1, 7, dtype=np.float32).reshape(2, 3)), "wick sees torch's write")
    # transposed and sliced views keep their strides both ways
    v = torch.from_dlpack(wick.transpose(x, 0, 1))
    check(v.stride() == (1, 3) and torch.equal(v.cpu(), tt.cpu().t()), "a transposed wick view in torch")
    s = wick.from_dlpack(t[:, 1::2])
    check(s.shape == (3, 2) and np.array_equal(s.numpy(), t[:, 1::2].cpu().numpy()), "a strided torch view in wick")
    # stream order: wick's queued exp of a large tensor, read at once by torch on its own stream
    for dt in ("f32", "bf16"):
        a = wick.rand_uniform((4096, 8192), dtype=dt, seed=7, device="cuda:0")
        e = wick.exp(a)
        te = torch.from_dlpack(e)
        ref = torch.exp(torch.from_dlpack(a).float())
        tol = 1e-6 if dt == "f32" else 1e-2
        check(torch.allclose(te.float(), ref, rtol=tol, atol=tol), f"{dt}: torch reads wick's queued result")
        del a, e, te, ref  # nothing of wick's is left for the leak check but what the library keeps on purpose
    # the deleter runs once: torch's allocator gets the memory back only after wick lets go
    torch.cuda.synchronize()
    gc.collect()
    base = torch.cuda.memory_allocated()
    big = torch.ones(64 << 20, device=dev)  # 256 MiB
    wb = wick.from_dlpack(big)
    del big
    gc.collect()
    check(torch.cuda.memory_allocated() >= base + (256 << 20), "the import keeps torch's memory alive")
    check(float(wick.sum(wb).numpy()) == float(64 << 20), "wick reads the imported tensor")
    del wb
    gc.collect()
    torch.cuda.synchronize()
    check(torch.cuda.memory_allocated() == base, "torch's memory comes back once wick releases the import")
    # refusals: a capsule consumed twice; a tensor on a device wick lacks
    cap = torch.ones(3, device=dev).__dlpack__()
    wick.from_dlpack(cap)
    try:
        wick.from_dlpack(cap)
        check(False, "a consumed capsule is refused")
    except Exception:
        check(True, "a consumed capsule is refused")


def with_cupy():
    import cupy as cp
    a = cp.arange(10, dtype=cp.float64)
    w = wick.from_dlpack(a)
    a[3] = -1
    cp.cuda.Device(0).synchronize()
    check(w.numpy()[3] == -1 and w.dtype == "f64", "wick sees cupy's write")
    x = wick.from_numpy(np.linspace(0, 1, 8, dtype=np.float32), device="cuda:0")
    c = cp.from_dlpack(x)
    check(cp.allclose(c, cp.linspace(0, 1, 8, dtype=cp.float32)), "cupy reads wick's tensor")
    c *= 2
    cp.cuda.Device(0).synchronize()
    check(np.allclose(x.numpy(), np.linspace(0, 2, 8, dtype=np.float32)), "wick sees cupy's write")


def with_jax():
    import jax
    import jax.numpy as jnp
    dev = [d for d in jax.devices() if d.platform == "gpu"][0]
    j = jax.device_put(jnp.arange(16, dtype=jnp.float32).reshape(4, 4), dev)
    w = wick.from_dlpack(j)
    check(w.device == "cuda:0" and np.array_equal(w.numpy(), np.arange(16, dtype=np.float32).reshape(4, 4)),
          "wick reads a jax array")
    x = wick.from_numpy(np.arange(5, dtype=np.int32), device="cuda:0")
    jx = jax.dlpack.from_dlpack(x)
    check(np.array_equal(np.asarray(jx), np.arange(5, dtype=np.int32)), "jax reads wick's tensor")


# WICK_DLPACK_LIBS (default "torch,cupy,jax") picks the libraries, e.g. fewer under compute-sanitizer.
wanted = os.environ.get("WICK_DLPACK_LIBS", "torch,cupy,jax").split(",")
for name, fn in (("torch", with_torch), ("cupy", with_cupy), ("jax", with_jax)):
    if name not in wanted:
        continue
    try:
        fn()
    except Exception as e:  # a library missing or broken is a failure here, never a skip
        fail(f"{name}: {type(e).__name__}: {e}")
gc.collect()
sys.exit(summary())
