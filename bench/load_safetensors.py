#!/usr/bin/env python3
"""load_safetensors.py: loading a 2 GiB safetensors file, side by side in one run (issue 11's speed target):
wick to the CPU (a zero-copy mapping: milliseconds, whatever the size), wick to cuda:0 against the
host-to-device bandwidth `wick bench` measures from page-locked memory, and safetensors.torch.load_file(...,
device="cuda:0") on the same file. The file is read once before timing, so every loader finds it in the page
cache (the same for all). Run on the GPU machine after a build:

  python3 bench/load_safetensors.py --build build-gpu [--size-gib 2] [--rounds 5] [--out DIR]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def make_file(path, size_gib):
    import numpy as np
    from safetensors.numpy import save_file
    rng = np.random.default_rng(0)
    per = 64 << 20  # 64 MiB tensors, f32 and f16 alternating
    tensors = {}
    for i in range(int(size_gib * (1 << 30)) // per):
        dt = np.float32 if i % 2 == 0 else np.float16
        n = per // np.dtype(dt).itemsize
        tensors[f"layer.{i}.weight"] = rng.standard_normal(n, dtype=np.float32).astype(dt).reshape(-1, 4096)
    save_file(tensors, path, metadata={"made_by": "bench/load_safetensors.py"})
    with open(path, "rb") as f:  # into the page cache
        while f.read(64 << 20):
            pass


def wick_load(tool, path, device, rounds):
    out = subprocess.run([tool, path, device, str(rounds)], capture_output=True, text=True, check=True).stdout
    _, dev, best, median, nbytes = out.split()
    return float(best), float(median), float(nbytes)


def torch_load(path, rounds):
    import torch
    from safetensors.torch import load_file
    times = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        ts = load_file(path, device="cuda:0")
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        del ts
    return 1e3 * min(times), 1e3 * statistics.median(times)


def h2d_peaks(wick_cli):
    out = subprocess.run([wick_cli, "bench", "--device", "cuda:0", "--op", "copy", "--json"], capture_output=True,
                         text=True).stdout
    peaks = {}
    for line in out.splitlines():
        rec = json.loads(line)
        if rec.get("record") == "peak" and rec.get("status") == "ok":
            peaks[rec["kind"]] = rec["rate"]
    return peaks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build-gpu")
    ap.add_argument("--size-gib", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    tool = os.path.join(tempfile.mkdtemp(), "load_safetensors")
    subprocess.run(["cc", "-O2", "-I", os.path.join(HERE, "..", "include"), os.path.join(HERE, "load_safetensors.c"),
                    "-o", tool, "-L", build, "-lwick", "-Wl,-rpath," + build], check=True)
    path = os.path.join(tempfile.mkdtemp(), "bench.safetensors")
    make_file(path, a.size_gib)
    peaks = h2d_peaks(os.path.join(build, "wick"))
    rows = {"cpu": wick_load(tool, path, "cpu", a.rounds)}
    rows["cuda:0"] = wick_load(tool, path, "cuda:0", a.rounds)
    torch_best, torch_median = torch_load(path, a.rounds)
    nbytes = rows["cuda:0"][2]
    gbs = lambda ms: nbytes / (ms * 1e-3) * 1e-9
    pinned = peaks.get("h2d_pinned", 0)
    lines = [f"# loading a {nbytes / (1 << 30):.2f} GiB safetensors file (page cache warm), best of {a.rounds}", "",
             "| loader | best ms | median ms | GB/s (best) | vs pinned h2d |", "| --- | --- | --- | --- | --- |"]
    for name, (best, median, _) in rows.items():
        lines.append(f"| wick -> {name} | {best:.2f} | {median:.2f} | {gbs(best):.1f} | "
                     f"{gbs(best) / pinned:.2f} |" if name != "cpu" else
                     f"| wick -> cpu (mapping) | {best:.3f} | {median:.3f} | - | - |")
    lines.append(f"| safetensors.torch.load_file(device='cuda:0') | {torch_best:.2f} | {torch_median:.2f} | "
                 f"{gbs(torch_best):.1f} | {gbs(torch_best) / pinned:.2f} |")
    lines += ["", f"wick bench h2d peaks (GB/s): pinned {pinned:.1f}, pageable {peaks.get('h2d_pageable', 0):.1f}",
              f"wick cuda:0 / torch: {torch_best / rows['cuda:0'][0]:.2f}x faster"]
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(a.out, "load_safetensors.md"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
