"""torch_streams.py: issue 15's host-overhead and copy measurements, wick (bench/stream_bench, C) next to PyTorch
(Python) on the same GPU in one run, as a table and JSON.

  python3 bench/torch_streams.py --wick build-gpu/stream_bench [--device cuda:0] [--json out.json]

PyTorch's numbers are measured the way stream_bench measures wick's: host time to queue one 1-element add in
batches of 100 between syncs (best batch of 200); 20,000 adds back to back with one sync; 100 chained adds
captured in a CUDA graph and replayed 200 times; 256 MiB copies from and to pinned and pageable memory
(non_blocking copies and a synchronize), best of 5. PyTorch's eager numbers include Python's own cost per call:
that is what its users pay, and why the issue compares graphs too."""
import argparse
import json
import subprocess
import time

import torch


def torch_numbers(dev):
    a = torch.ones(1, device=dev)
    b = torch.full((1,), 2.0, device=dev)
    for _ in range(2000):
        a + b
    torch.cuda.synchronize()
    best = 1e30
    for _ in range(200):
        t0 = time.perf_counter()
        for _ in range(100):
            a + b
        best = min(best, (time.perf_counter() - t0) / 100 * 1e6)
        torch.cuda.synchronize()
    out = {"tiny_add_host": best}
    t0 = time.perf_counter()
    for _ in range(20000):
        a + b
    torch.cuda.synchronize()
    out["tiny_add_stream"] = (time.perf_counter() - t0) / 20000 * 1e6
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = a + b
        for _ in range(99):
            y = y + b
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = a + b
        for _ in range(99):
            y = y + b
    for _ in range(20):
        g.replay()
    torch.cuda.synchronize()
    best = 1e30
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(200):
            g.replay()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / (200 * 100) * 1e6)
    out["graph_add"] = best
    n = 64 << 20
    d = torch.empty(n, device=dev)
    for kind, host in (("pinned", torch.ones(n).pin_memory()), ("pageable", torch.ones(n))):
        up = down = 1e30
        for _ in range(5):
            t0 = time.perf_counter()
            d.copy_(host, non_blocking=True)
            torch.cuda.synchronize()
            up = min(up, time.perf_counter() - t0)
            t0 = time.perf_counter()
            host.copy_(d, non_blocking=True)
            torch.cuda.synchronize()
            down = min(down, time.perf_counter() - t0)
        out["h2d_" + kind] = n * 4 / up * 1e-9
        out["d2h_" + kind] = n * 4 / down * 1e-9
    return out


def wick_numbers(binary, dev):
    p = subprocess.run([binary, dev], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit("stream_bench failed: " + p.stderr[-500:])
    out = {}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        if r["case"] in ("h2d", "d2h"):
            out[r["case"] + "_pinned"] = r["pinned_gbps"]
            out[r["case"] + "_pageable"] = r["pageable_gbps"]
        else:
            out[r["case"]] = r["us_per_op"]
            if "host_us_per_replay" in r:
                out["graph_host_us_per_replay"] = r["host_us_per_replay"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wick", required=True)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--json")
    args = ap.parse_args()
    w = wick_numbers(args.wick, args.device)
    t = torch_numbers(args.device)
    rows = [("tiny_add_host", "us/op, host, eager", "<= 2.5"), ("tiny_add_stream", "us/op, 20000 back to back", None),
            ("graph_add", "us/op in a replayed graph", "<= 1.0"), ("h2d_pinned", "GB/s", None),
            ("h2d_pageable", "GB/s", None), ("d2h_pinned", "GB/s", None), ("d2h_pageable", "GB/s", None)]
    print("%-18s %-28s %10s %10s %8s  %s" % ("case", "unit", "wick", "torch", "ratio", "target"))
    for key, unit, target in rows:
        wv, tv = w.get(key), t.get(key)
        ratio = (tv / wv if "us" in unit else wv / tv) if wv and tv else float("nan")
        print("%-18s %-28s %10.3f %10.3f %8.2f  %s" % (key, unit, wv, tv, ratio, target or "-"))
    print("wick graph host time per replay launch: %.3f us" % w.get("graph_host_us_per_replay", float("nan")))
    print("ratio: torch time / wick time (us rows), wick / torch bandwidth (GB/s rows); torch eager is Python")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"wick": w, "torch": t, "device": torch.cuda.get_device_name()}, f, indent=1)


if __name__ == "__main__":
    main()
