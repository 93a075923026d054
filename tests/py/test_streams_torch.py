#!/usr/bin/env python3
"""test_streams_torch.py: wick on PyTorch's own CUDA stream (issue 15), a device test on cuda:0 with PyTorch.

wick adopts a non-default torch.cuda.Stream s (wick.Stream.from_native) and work of both libraries is queued on
it without any synchronisation between them. Every DLPack exchange here asks for no stream ordering (stream=-1),
so the order comes from the shared stream alone:
 - shared: torch writes x at the end of a long run of matmuls on s, wick reads x on s (y = tanh(x) @ c, imported
   zero-copy), torch reads wick's y on s (z = y @ d + 1); z against float64 on the host. Checked, 3 rounds.
 - own stream: the same with wick on a stream of its own and no event: wick should read x before torch wrote it
   (stale data). Reported, not checked (a race has no guaranteed outcome).
 - own stream + event: a wick.Event recorded on the adopted stream and waited for by wick's own stream: correct.
 - timing: wick.Event and torch.cuda.Event pairs around the same matmuls on s: both positive, within a factor 2.
 - graph: y = tanh(x) @ w captured once on the adopted stream, replayed in a loop on s while torch writes x
   before each replay and copies y after it, all on s; every copy against float64.
Skipped (exit 77) without PyTorch, without a CUDA device, or with a libwick that has no cuda:0.
Run: LIBWICK=build-gpu/libwick.so PYTHONPATH=python python3 tests/py/test_streams_torch.py
(WICK_BUSY_MATMULS, default 40: the 4096x4096 f32 matmuls that keep s busy, about 2.5 ms each on an H100).
Prints "N passed, M failed"; exit status 1 on any failure."""
import math
import os
import sys
import time

try:
    import torch
except ImportError:
    print("PyTorch is missing: skipped")
    sys.exit(77)
if not torch.cuda.is_available():
    print("PyTorch finds no CUDA device: skipped")
    sys.exit(77)

import wick

from checks import check, run, summary

if "cuda:0" not in wick.device_names():
    print(f"{wick._lib.lib_path} has no cuda:0 (a build without -DWICK_CUDA=ON, or no driver): skipped")
    sys.exit(77)

DEV, TDEV = "cuda:0", torch.device("cuda:0")
N = 512
BUSY = int(os.environ.get("WICK_BUSY_MATMULS", "40"))
torch.backends.cuda.matmul.allow_tf32 = False  # float32 products on both sides
SEED = int(os.environ.get("WICK_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"seed {SEED} (WICK_SEED repeats it)")
gen = torch.Generator(device=TDEV).manual_seed(SEED)
BIG = torch.randn(4096, 4096, device=TDEV, generator=gen) / 64
JUNK = torch.empty_like(BIG)


def randn(*shape):
    return torch.randn(*shape, device=TDEV, generator=gen) / math.sqrt(shape[-1])


def to_wick(t):
    """t in wick, zero-copy, with no stream ordering (stream=-1)."""
    return wick.from_dlpack(t.__dlpack__(stream=-1))


def to_torch(w):
    """w in torch, zero-copy, with no stream ordering (stream=-1)."""
    return torch.from_dlpack(w.__dlpack__(stream=-1))


def busy(n=BUSY):
    """n large matmuls on torch's current stream: s stays busy long after the host has queued what follows."""
    for _ in range(n):
        torch.mm(BIG, BIG, out=JUNK)


def wick_step(xw, cw):
    return wick.matmul(wick.tanh(xw), cw)


def max_err(got, ref):
    """max |got - ref| relative to max |ref| (float64 on the host)."""
    got = got.double().cpu()
    return float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30))


def flow(s, ws, wick_stream, event=False):
    """torch writes x after a long run on s; wick reads it on wick_stream; torch reads wick's y on s.
    Returns (relative error of z against float64, whether s was still busy when the host had queued it all)."""
    a, b, c, d = randn(N, N), randn(N, N), randn(N, N), randn(N, N)
    x = torch.zeros(N, N, device=TDEV)
    torch.cuda.synchronize()
    xw, cw = to_wick(x), to_wick(c)
    with torch.cuda.stream(s):
        busy()
        torch.mm(a, b, out=x)  # the long work ends writing x
    if event:
        wick_stream.wait(ws.record())  # a wick.Event on the adopted stream orders wick's own stream after it
    with wick_stream:
        yw = wick_step(xw, cw)
        done = wick_stream.record()
    if wick_stream is not ws:
        ws.wait(done)  # torch's read of y waits for wick's stream (only x's read is left unordered)
    with torch.cuda.stream(s):
        z = to_torch(yw) @ d + 1
    busy_after = not s.query()
    s.synchronize()
    a64, b64, c64, d64 = (t.double().cpu() for t in (a, b, c, d))
    ref = torch.tanh(a64 @ b64) @ c64 @ d64 + 1
    return max_err(z, ref), busy_after


def warm_up(ws):
    """Loads wick's kernels and makes its cuBLAS state on the adopted stream before anything is timed or raced."""
    a, b = randn(N, N), randn(N, N)
    torch.cuda.synchronize()  # made on torch's default stream, read by wick on s
    with ws:
        wick_step(to_wick(a), to_wick(b))
    ws.sync()
    busy(2)
    torch.cuda.synchronize()


def test_shared_stream():
    s = torch.cuda.Stream()
    ws = wick.Stream.from_native(DEV, s)
    check(ws.native == s.cuda_stream and ws.device == DEV, "the adopted stream's handle is torch's")
    warm_up(ws)
    for r in range(3):
        err, busy_after = flow(s, ws, ws)
        check(err < 2e-3, f"round {r}: torch -> wick -> torch on one stream matches float64 (error {err:.2e})")
        print(f"round {r}: error {err:.2e}; s still busy once everything was queued: {busy_after}"
              f"{'' if busy_after else ' (NOTE: the host may have waited somewhere, or the matmuls were short)'}")
    own = wick.Stream(DEV)
    err, _ = flow(s, ws, own)
    print(f"own stream, no event: error {err:.2e}: "
          f"{'stale data read, as expected of the race' if err > 2e-3 else 'no stale read this time (a race)'}")
    err, _ = flow(s, ws, own, event=True)
    check(err < 2e-3, f"own stream ordered by a wick.Event on the adopted stream (error {err:.2e})")
    own.close()
    ws.close()


def test_timing():
    s = torch.cuda.Stream()
    ws = wick.Stream.from_native(DEV, s.cuda_stream)
    warm_up(ws)
    w0, w1 = wick.Event(DEV, timing=True), wick.Event(DEV, timing=True)
    t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(s):
        w0.record(ws)
        t0.record(s)
        busy()
        t1.record(s)
        w1.record(ws)
    pending = not w1.query()
    w1.sync()
    check(w1.query(), "the wick event is reached after its sync")
    wms, tms = w0.elapsed_ms(w1), t0.elapsed_time(t1)
    print(f"timing of {BUSY} matmuls on s: wick.Event {wms:.3f} ms, torch.cuda.Event {tms:.3f} ms "
          f"(pending at first query: {pending})")
    check(wms > 0 and tms > 0, f"both timings positive ({wms:.3f}, {tms:.3f} ms)")
    check(0.5 <= wms / tms <= 2.0, f"wick's and torch's timings within a factor 2 ({wms:.3f} vs {tms:.3f} ms)")
    ws.close()


def test_graph():
    s = torch.cuda.Stream()
    ws = wick.Stream.from_native(DEV, s)
    warm_up(ws)
    x, w = torch.zeros(N, N, device=TDEV), randn(N, N)
    inputs = [randn(N, N) * 4 for _ in range(8)]
    torch.cuda.synchronize()
    xw, ww = to_wick(x), to_wick(w)
    with wick.capture(ws) as g:  # on the adopted stream: recorded, not run
        yw = wick_step(xw, ww)
    y = to_torch(yw)  # the graph's output, at a fixed address for every replay
    outs = []
    t = time.perf_counter()
    with torch.cuda.stream(s):
        for i, inp in enumerate(inputs):
            busy(2)
            x.copy_(inp)  # torch writes the graph's input on s...
            g.launch(ws)  # ...wick replays on s...
            outs.append(y.clone())  # ...torch reads the output on s
    queued = time.perf_counter() - t
    s.synchronize()
    w64 = w.double().cpu()
    errs = [max_err(o, torch.tanh(inp.double().cpu()) @ w64) for o, inp in zip(outs, inputs)]
    check(max(errs) < 2e-3, f"{len(inputs)} replays between torch's writes and reads on s (worst error "
          f"{max(errs):.2e})")
    print(f"graph: {len(inputs)} replays queued in {queued * 1e3:.1f} ms, errors {['%.1e' % e for e in errs]}")
    g.launch()  # the current stream (the default here): one more replay, then read through wick
    last = yw.numpy()
    check(abs(last - outs[-1].cpu().numpy()).max() <= 1e-6, "a replay on wick's default stream reads x again")
    g.close()
    ws.close()


run([test_shared_stream, test_timing, test_graph])
torch.cuda.synchronize()
sys.exit(summary())
