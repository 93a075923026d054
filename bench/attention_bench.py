#!/usr/bin/env python3
"""attention_bench.py: wick's fused attention (wk_attention through ctypes, on torch's own tensors via DLPack)
against torch.nn.functional.scaled_dot_product_attention on the same GPU, in one process, for issue 12's cases.

Run on the GPU machine (PyTorch there: /opt/torch/.venv/bin/python3):
    LIBWICK=build-gpu/libwick.so PYTHONPATH=python python3 bench/attention_bench.py [--json out.json] [--quick]
        [--prefill] [--torch-backend default|flash|cudnn]
wick's prefill runs cuDNN's fused attention or its own kernels, whichever was faster for the shape (timed once);
WICK_ATTENTION_KERNEL=own times wick's own kernels alone (compare them with --torch-backend flash).
Each case first checks wick's output against PyTorch's (bf16: max |diff| <= 0.03), then times both the same way
(bench/torch_compare.py's method): a warm-up call, then the median over runs of the wall time of a batch of calls
ended by a device synchronize, divided by the batch. Prefill prints TFLOP/s (4 * B * H * Sq * Skv * D, halved
when causal); decode prints TB/s of K and V read. ratio = torch time / wick time (> 1: wick is faster). The paged
decode cases have no PyTorch op: their ratio is against wick's own contiguous decode of the same shape.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit("attention_bench.py needs PyTorch (the GPU machine's /opt/torch/.venv/bin/python3 has it)")
import wick
from wick._tensor import take


class AttnParams(ctypes.Structure):  # wk_attention_params of include/wick.h
    _fields_ = [("scale", ctypes.c_double), ("softcap", ctypes.c_double), ("causal", ctypes.c_bool),
                ("windowed", ctypes.c_bool), ("window_left", ctypes.c_int64), ("window_right", ctypes.c_int64),
                ("bias", ctypes.c_void_p), ("alibi", ctypes.c_void_p), ("seq_lens", ctypes.c_void_p),
                ("block_table", ctypes.c_void_p)]


_lib = sys.modules["wick._lib"]  # the module (the package binds the name _lib to its CDLL)
lib = _lib.lib
lib.wk_attention.argtypes = [ctypes.c_void_p] * 4 + [ctypes.POINTER(ctypes.c_void_p)] * 2
lib.wk_attention.restype = ctypes.c_int


def wk_attention(q, k, v, params):
    """out, as a wick tensor handle (released by the caller)."""
    o = ctypes.c_void_p()
    s = lib.wk_attention(q._h, k._h, v._h, ctypes.byref(params), ctypes.byref(o), None)
    if s != 0:
        raise RuntimeError(f"wk_attention: {lib.wk_last_error().decode()}")
    return o


def timed(fn, sync, target_s=0.02, runs=7):
    """Median seconds per call: a warm-up, a sizing call, then `runs` batches of about target_s each."""
    fn()
    sync()
    t = time.perf_counter()
    fn()
    sync()
    one = max(time.perf_counter() - t, 1e-6)
    batch = max(1, min(1000, int(target_s / one)))
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(batch):
            fn()
        sync()
        times.append((time.perf_counter() - t) / batch)
    return statistics.median(times)


def case_tensors(c, dev):
    g = torch.Generator(device=dev).manual_seed(0)
    mk = lambda *shape: torch.randn(*shape, device=dev, dtype=torch.bfloat16, generator=g)
    q = mk(c["B"], c["Hq"], c["Sq"], c["D"])
    k = mk(c["B"], c["Hkv"], c["Skv"], c["D"])
    v = mk(c["B"], c["Hkv"], c["Skv"], c["D"])
    return q, k, v


def paged(k, v, block):
    """k, v (B, Hkv, Skv, D) as pools (num_blocks, Hkv, block, D) with a shuffled table and full lengths."""
    B, H, S, D = k.shape
    nb = S // block
    perm = torch.randperm(B * nb, device=k.device)
    pool_k = torch.empty(B * nb, H, block, D, device=k.device, dtype=k.dtype)
    pool_v = torch.empty_like(pool_k)
    pool_k[perm] = k.reshape(B, H, nb, block, D).permute(0, 2, 1, 3, 4).reshape(B * nb, H, block, D)
    pool_v[perm] = v.reshape(B, H, nb, block, D).permute(0, 2, 1, 3, 4).reshape(B * nb, H, block, D)
    table = perm.reshape(B, nb).to(torch.int32).contiguous()
    lens = torch.full((B,), S, device=k.device, dtype=torch.int32)
    return pool_k, pool_v, table, lens


TORCH_BACKEND = "default"


def torch_sdpa(q, k, v, causal, gqa):
    """PyTorch's SDPA, on the backend --torch-backend names."""
    if TORCH_BACKEND == "default":
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = SDPBackend.FLASH_ATTENTION if TORCH_BACKEND == "flash" else SDPBackend.CUDNN_ATTENTION
    with sdpa_kernel(backend):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)


def run_case(c, dev, wsync):
    q, k, v = case_tensors(c, dev)
    tsync = torch.cuda.synchronize
    p = AttnParams(causal=c.get("causal", False))
    keep = []
    if c.get("block"):
        pk, pv, table, lens = paged(k, v, c["block"])
        wt, wl = wick.from_dlpack(table), wick.from_dlpack(lens)
        keep += [wt, wl]
        p.block_table, p.seq_lens = wt._h, wl._h
        wk_k, wk_v = wick.from_dlpack(pk), wick.from_dlpack(pv)
    else:
        wk_k, wk_v = wick.from_dlpack(k), wick.from_dlpack(v)
    wk_q = wick.from_dlpack(q)
    tsync()
    gqa = c["Hq"] != c["Hkv"]
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=c.get("causal", False), enable_gqa=gqa)
    o = wk_attention(wk_q, wk_k, wk_v, p)
    wsync()
    got = take(o)
    diff = (torch.from_dlpack(got).float() - ref.float()).abs().max().item()
    del got
    call_w = lambda: lib.wk_tensor_release(wk_attention(wk_q, wk_k, wk_v, p))
    call_t = lambda: torch_sdpa(q, k, v, c.get("causal", False), gqa)
    t_w = timed(call_w, wsync)
    t_t = None if c.get("block") else timed(call_t, tsync)
    return diff, t_w, t_t


def measure(c, t):
    if c["Sq"] > 16:
        flop = 4.0 * c["B"] * c["Hq"] * c["Sq"] * c["Skv"] * c["D"] * (0.5 if c.get("causal") else 1.0)
        return flop / t / 1e12, "TFLOP/s"
    kv_bytes = 2.0 * c["B"] * c["Hkv"] * c["Skv"] * c["D"] * 2  # K and V, bf16
    return kv_bytes / t / 1e12, "TB/s"


CASES = [
    dict(name="prefill causal B8 H32 S4096 D128", B=8, Hq=32, Hkv=32, Sq=4096, Skv=4096, D=128, causal=True),
    dict(name="prefill non-causal B8 H32 S4096 D128", B=8, Hq=32, Hkv=32, Sq=4096, Skv=4096, D=128),
    dict(name="prefill causal GQA 32:8 B8 S4096 D128", B=8, Hq=32, Hkv=8, Sq=4096, Skv=4096, D=128, causal=True),
    dict(name="prefill causal GQA 32:8 B2 S16384 D128", B=2, Hq=32, Hkv=8, Sq=16384, Skv=16384, D=128, causal=True),
    dict(name="prefill causal B8 H32 S4096 D64", B=8, Hq=32, Hkv=32, Sq=4096, Skv=4096, D=64, causal=True),
    dict(name="prefill causal B8 H32 S4096 D256", B=8, Hq=32, Hkv=32, Sq=4096, Skv=4096, D=256, causal=True),
    dict(name="decode B1 Hq32 Hkv8 Skv32768 D128", B=1, Hq=32, Hkv=8, Sq=1, Skv=32768, D=128),
    dict(name="decode B8 Skv8192", B=8, Hq=32, Hkv=8, Sq=1, Skv=8192, D=128),
    dict(name="decode B32 Skv4096", B=32, Hq=32, Hkv=8, Sq=1, Skv=4096, D=128),
    dict(name="decode B64 Skv2048", B=64, Hq=32, Hkv=8, Sq=1, Skv=2048, D=128),
]
PAGED = [dict(c, name="paged(16) " + c["name"], block=16) for c in CASES if c["Sq"] == 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true", help="decode cases only")
    ap.add_argument("--prefill", action="store_true", help="prefill cases only")
    ap.add_argument("--torch-backend", choices=["default", "flash", "cudnn"], default="default",
                    help="PyTorch's SDPA backend to time (default: its own choice)")
    args = ap.parse_args()
    global TORCH_BACKEND
    TORCH_BACKEND = args.torch_backend
    dev = torch.device(args.device)
    wdev = _lib.out()
    lib.wk_device_get(args.device.encode(), ctypes.byref(wdev))
    wsync = lambda: lib.wk_device_sync(wdev)
    print(f"# {torch.cuda.get_device_name(dev)}, torch {torch.__version__}, {_lib.lib_path}")
    print(f"{'case':44s} {'wick':>10s} {'torch':>10s} {'unit':>8s} {'ratio':>6s} {'max|diff|':>9s}")
    rows, bad, contiguous = [], False, {}
    cases = [x for x in CASES if x["Sq"] == 1] if args.quick else CASES
    if args.prefill:
        cases = [x for x in CASES if x["Sq"] > 16]
    print(f"# torch backend: {TORCH_BACKEND}; WICK_ATTENTION_KERNEL={os.environ.get('WICK_ATTENTION_KERNEL', '')}")
    for c in cases + ([] if args.prefill else PAGED):
        try:
            diff, t_w, t_t = run_case(c, dev, wsync)
        except Exception as e:  # report and go on with the other cases
            print(f"{c['name']:44s} FAILED: {e}")
            bad = True
            continue
        w, unit = measure(c, t_w)
        base = t_t if t_t is not None else contiguous.get(c["name"].split(" ", 1)[1])
        ref = measure(c, t_t)[0] if t_t is not None else float("nan")
        ratio = base / t_w if base else float("nan")
        if not c.get("block"):
            contiguous[c["name"]] = t_w
        ok = diff <= 0.03
        bad = bad or not ok
        print(f"{c['name']:44s} {w:10.2f} {ref:10.2f} {unit:>8s} {ratio:6.2f} {diff:9.4f}{'' if ok else '  MISMATCH'}")
        rows.append(dict(case=c["name"], wick=w, torch=ref, unit=unit, ratio=ratio, max_diff=diff,
                         wick_ms=t_w * 1e3, torch_ms=t_t * 1e3 if t_t else None))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
