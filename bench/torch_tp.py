#!/usr/bin/env python3
"""torch_tp.py: bench/tp_bench.c's tensor-parallel measurements with PyTorch and NCCL, and the table comparing the two.

Measure (one process per GPU, torch.multiprocessing.spawn, backend nccl on 127.0.0.1 and a free port):
    python3 bench/torch_tp.py [--devices N] [--warmup 3] [--iters 10] [--scale 1] > torch.jsonl
Cases, bf16, x (M, K), W (N, K), out = x W^T, W split over the N ranks as in tp_bench.c:
    tp_column_gather  M 8192, K 8192, N 16384: each rank y_r^T = W_r x^T (N/n, M), then
                      dist.all_gather_into_tensor into (N, M), whose transposed view is x W^T (M, N): the layout
                      wick's gathered output has, and the same product and bytes as x @ W_r.T gathered
    tp_column         the same without the gather: y_r = x @ W_r.T
    tp_row            M 8192, K 16384, N 8192: y = x_r @ W_r.T over this rank's K columns, then dist.all_reduce
The collective follows the product (no overlap), as a plain PyTorch layer does. The baseline ("layer": "matmul",
ranks 1) is x @ W.T of the whole layer on GPU 0, measured by rank 0 while the others wait. Each call is followed by
torch.cuda.synchronize(); after WARMUP calls and a dist.barrier, time.perf_counter runs around ITERS calls; the
time reported is the slowest rank's mean. Rank 0 prints one JSON line per case, as tp_bench does with
"impl": "torch":
    {"impl": "torch", "case": "tp_column_gather", "layer": "tp", "dtype": "bf16", "m": 8192, "k": 8192,
     "n": 16384, "ranks": 2, "time_ms": ..., "tflops": ..., "speedup_vs_1gpu": ...}
The environment passes to the workers unchanged: run both programs under the same one (on the shared GPU machines
NCCL_NVLS_ENABLE=0 stays set, NVLink multicast off).

Compare:
    python3 bench/torch_tp.py --compare wick.jsonl torch.jsonl
prints a markdown table of both runs' times, TFLOP/s and speed-ups over one GPU, with wick/torch = torch time /
wick time (above 1: wick is faster).
"""
import argparse
import json
import os
import socket
import sys
import time

CASES = {"tp_column_gather": (8192, 8192, 16384), "tp_column": (8192, 8192, 16384), "tp_row": (8192, 16384, 8192)}


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def shape(case, scale):
    return tuple(v // scale for v in CASES[case])


def make_call(torch, dist, case, m, k, n, ranks, rank, device):
    """The call of one case on this rank (a function of no arguments returning the output)."""
    gen = torch.Generator(device=device).manual_seed(10 + rank)
    bf16 = torch.bfloat16
    if case == "tp_row":
        x = torch.randn(m, k // ranks, dtype=bf16, device=device, generator=gen)
        w = torch.randn(n, k // ranks, dtype=bf16, device=device, generator=gen) * 0.01

        def row():
            y = x @ w.T
            dist.all_reduce(y)
            return y
        return row
    x = torch.randn(m, k, dtype=bf16, device=device, generator=gen)
    w = torch.randn(n // ranks, k, dtype=bf16, device=device, generator=gen) * 0.01
    if case == "tp_column":
        return lambda: x @ w.T

    def gathered():
        yt = w @ x.T  # (N/n, M), contiguous
        out = torch.empty(n, m, dtype=bf16, device=device)
        dist.all_gather_into_tensor(out, yt)
        return out.T  # (M, N)
    return gathered


def timed(torch, call, warmup, iters, barrier=None):
    """Mean seconds of `iters` calls, each followed by synchronize(), after `warmup` calls and the barrier."""
    for _ in range(warmup):
        call()
        torch.cuda.synchronize()
    if barrier:
        barrier()
    t0 = time.perf_counter()
    for _ in range(iters):
        call()
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters


def line(case, layer, m, k, n, ranks, secs, base):
    return json.dumps({"impl": "torch", "case": case, "layer": layer, "dtype": "bf16", "m": m, "k": k, "n": n,
                       "ranks": ranks, "time_ms": round(secs * 1e3, 3),
                       "tflops": round(2.0 * m * k * n / secs * 1e-12, 2), "speedup_vs_1gpu": round(base / secs, 3)})


def baseline(torch, m, k, n, args, device):
    gen = torch.Generator(device=device).manual_seed(1)
    x = torch.randn(m, k, dtype=torch.bfloat16, device=device, generator=gen)
    w = torch.randn(n, k, dtype=torch.bfloat16, device=device, generator=gen) * 0.01
    return timed(torch, lambda: x @ w.T, args.warmup, args.iters)


def worker(rank, ranks, port, args):
    import torch
    import torch.distributed as dist
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    device = f"cuda:{rank}"
    dist.init_process_group("nccl", rank=rank, world_size=ranks)
    try:
        for case in CASES:
            m, k, n = shape(case, args.scale)
            base = baseline(torch, m, k, n, args, device) if rank == 0 else 0.0
            torch.cuda.empty_cache()
            call = make_call(torch, dist, case, m, k, n, ranks, rank, device)
            secs = timed(torch, call, args.warmup, args.iters, lambda: dist.barrier(device_ids=[rank]))
            del call
            torch.cuda.empty_cache()
            slowest = torch.tensor([secs], dtype=torch.float64, device=device)
            dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
            if rank == 0:
                print(line(case, "matmul", m, k, n, 1, base, base), flush=True)
                print(line(case, "tp", m, k, n, ranks, slowest.item(), base), flush=True)
    finally:
        dist.destroy_process_group()


def run(args):
    import torch
    import torch.multiprocessing as mp
    have = torch.cuda.device_count()
    n = args.devices or have
    if n < 1 or n > have:
        sys.exit(f"torch_tp: {n} GPUs asked, {have} here")
    print(f"torch_tp: {n} ranks, torch {torch.__version__}, NCCL {torch.cuda.nccl.version()}, "
          f"NCCL_NVLS_ENABLE={os.environ.get('NCCL_NVLS_ENABLE', '(unset)')}", file=sys.stderr)
    mp.spawn(worker, args=(n, free_port(), args), nprocs=n, join=True)


# ---------------------------------------------------------------- --compare
def read_rows(path):
    rows = {}
    with open(path) as f:
        for text in f:
            text = text.strip()
            if text.startswith("{"):
                r = json.loads(text)
                if "case" in r:
                    rows[(r["case"], r["layer"], r["ranks"])] = r
    return rows


def compare(wick_path, torch_path):
    wick, torch_rows = read_rows(wick_path), read_rows(torch_path)
    out = ["| case | layer | ranks | wick ms | torch ms | wick TFLOP/s | torch TFLOP/s | wick speed-up | "
           "torch speed-up | wick/torch |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    order = list(CASES)
    for key in sorted(set(wick) | set(torch_rows), key=lambda k: (order.index(k[0]), k[1] != "matmul", k[2])):
        w, t = wick.get(key), torch_rows.get(key)

        def cell(r, field, fmt):
            return fmt.format(r[field]) if r else "-"
        ratio = f"{t['time_ms'] / w['time_ms']:.2f}" if w and t and w["time_ms"] > 0 else "-"
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {cell(w, 'time_ms', '{:.2f}')} | "
                   f"{cell(t, 'time_ms', '{:.2f}')} | {cell(w, 'tflops', '{:.0f}')} | {cell(t, 'tflops', '{:.0f}')} | "
                   f"{cell(w, 'speedup_vs_1gpu', '{:.2f}x')} | {cell(t, 'speedup_vs_1gpu', '{:.2f}x')} | {ratio} |")
    out.append("")
    out.append("speed-up: the one-GPU matmul's time / this row's time (each implementation its own); "
               "wick/torch = torch time / wick time: above 1, wick is faster.")
    print("\n".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--devices", type=int, default=0, help="GPUs (default: all)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--scale", type=int, default=1, help="divide M, K and N by this")
    ap.add_argument("--compare", nargs=2, metavar=("WICK_JSONL", "TORCH_JSONL"))
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.iters < 1 or args.warmup < 0 or args.scale < 1 or 8192 % args.scale:
        ap.error("--iters >= 1, --warmup >= 0, --scale a divisor of 8192")
    else:
        run(args)


if __name__ == "__main__":
    main()
