#!/usr/bin/env python3
"""torch_comm.py: bench/comm_bench.c's measurements with PyTorch and NCCL, and the table comparing the two.

Measure (one process per GPU, torch.multiprocessing.spawn, backend nccl on 127.0.0.1 and a free port):
    python3 bench/torch_comm.py [--devices N] [--warmup 5] [--iters 20] [--sizes 16,256,1024] [--other-mib 256] \
        > torch.jsonl
all_reduce SUM bf16 in place of each size, all_gather (all_gather_into_tensor) and reduce_scatter
(reduce_scatter_tensor, SUM) bf16 of --other-mib, the size being the full buffer (all_gather's output,
reduce_scatter's input). Each iteration is the collective then torch.cuda.synchronize(); after the warm-up and a
dist.barrier, time.perf_counter runs around the timed loop; the time reported is the slowest rank's. Rank 0
prints one JSON line per case, as comm_bench does but with "impl": "torch":
    {"impl": "torch", "case": "all_reduce", "dtype": "bf16", "mib": 16, "ranks": 2, "time_us": ...,
     "algbw_gbs": ..., "busbw_gbs": ...}
algbw = bytes / time (1e9 bytes per GB); busbw = algbw * 2 (n-1)/n for all_reduce, * (n-1)/n for the others.
The environment passes to the workers unchanged: run both programs under the same one (on the shared GPU machines
NCCL_NVLS_ENABLE=0 stays set, NVLink multicast off).

Compare:
    python3 bench/torch_comm.py --compare wick.jsonl torch.jsonl
prints a markdown table of both runs' times and bus bandwidths, with wick/torch = torch time / wick time
(above 1: wick is faster).
"""
import argparse
import json
import os
import socket
import sys
import time

CASES_FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
                "reduce_scatter": lambda n: (n - 1) / n}


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_case(torch, dist, kind, mib, n, device):
    """The buffers and the call of one case: (function of no arguments, bytes of the full buffer)."""
    per = (mib << 20) // 2 // n  # bf16 elements per rank
    full = per * n
    if kind == "all_reduce":
        x = torch.zeros(full, dtype=torch.bfloat16, device=device)
        return (lambda: dist.all_reduce(x, op=dist.ReduceOp.SUM)), full * 2
    if kind == "all_gather":
        x = torch.zeros(per, dtype=torch.bfloat16, device=device)
        out = torch.empty(full, dtype=torch.bfloat16, device=device)
        return (lambda: dist.all_gather_into_tensor(out, x)), full * 2
    x = torch.zeros(full, dtype=torch.bfloat16, device=device)
    out = torch.empty(per, dtype=torch.bfloat16, device=device)
    return (lambda: dist.reduce_scatter_tensor(out, x, op=dist.ReduceOp.SUM)), full * 2


def measure(torch, dist, call, warmup, iters, rank):
    """Seconds per iteration (collective + synchronize), the slowest rank's."""
    for _ in range(warmup):
        call()
        torch.cuda.synchronize()
    dist.barrier(device_ids=[rank])
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        call()
        torch.cuda.synchronize()
    secs = torch.tensor([(time.perf_counter() - t0) / iters], dtype=torch.float64, device=f"cuda:{rank}")
    dist.all_reduce(secs, op=dist.ReduceOp.MAX)
    return secs.item()


def worker(rank, n, port, args):
    import torch
    import torch.distributed as dist
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n)
    cases = [("all_reduce", mib) for mib in args.sizes]
    cases += [("all_gather", args.other_mib), ("reduce_scatter", args.other_mib)]
    try:
        for kind, mib in cases:
            call, nbytes = make_case(torch, dist, kind, mib, n, f"cuda:{rank}")
            secs = measure(torch, dist, call, args.warmup, args.iters, rank)
            del call
            torch.cuda.empty_cache()
            algbw = nbytes / secs * 1e-9
            if rank == 0:
                print(json.dumps({"impl": "torch", "case": kind, "dtype": "bf16", "mib": mib, "ranks": n,
                                  "time_us": round(secs * 1e6, 1), "algbw_gbs": round(algbw, 2),
                                  "busbw_gbs": round(algbw * CASES_FACTOR[kind](n), 2)}), flush=True)
    finally:
        dist.destroy_process_group()


def run(args):
    import torch
    import torch.multiprocessing as mp
    have = torch.cuda.device_count()
    n = args.devices or have
    if n < 1 or n > have:
        sys.exit(f"torch_comm: {n} GPUs asked, {have} here")
    print(f"torch_comm: {n} ranks, torch {torch.__version__}, NCCL {torch.cuda.nccl.version()}, "
          f"NCCL_NVLS_ENABLE={os.environ.get('NCCL_NVLS_ENABLE', '(unset)')}", file=sys.stderr)
    mp.spawn(worker, args=(n, free_port(), args), nprocs=n, join=True)


# ---------------------------------------------------------------- --compare
def read_rows(path):
    rows = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if "case" in r:
                rows[(r["case"], r["dtype"], r["mib"], r["ranks"])] = r
    return rows


def compare(wick_path, torch_path):
    wick, torch_rows = read_rows(wick_path), read_rows(torch_path)
    lines = ["| case | dtype | MiB | ranks | wick us | torch us | wick busbw GB/s | torch busbw GB/s | wick/torch |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for key in sorted(set(wick) | set(torch_rows), key=lambda k: (list(CASES_FACTOR).index(k[0]), k[2], k[3])):
        w, t = wick.get(key), torch_rows.get(key)
        cell = lambda r, f, fmt: fmt.format(r[f]) if r else "-"
        ratio = f"{t['time_us'] / w['time_us']:.2f}" if w and t and w["time_us"] > 0 else "-"
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {cell(w, 'time_us', '{:.1f}')} | "
                     f"{cell(t, 'time_us', '{:.1f}')} | {cell(w, 'busbw_gbs', '{:.1f}')} | "
                     f"{cell(t, 'busbw_gbs', '{:.1f}')} | {ratio} |")
    lines.append("")
    lines.append("wick/torch = torch time / wick time (the bandwidth ratio): above 1, wick is faster.")
    print("\n".join(lines))


def sizes(text):
    out = [int(v) for v in text.split(",") if v]
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"bad size list {text}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--devices", type=int, default=0, help="GPUs (default: all)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--sizes", type=sizes, default=[16, 256, 1024], help="all_reduce sizes, MiB")
    ap.add_argument("--other-mib", type=int, default=256, help="all_gather and reduce_scatter size, MiB")
    ap.add_argument("--compare", nargs=2, metavar=("WICK_JSONL", "TORCH_JSONL"))
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
    else:
        if args.iters < 1 or args.warmup < 0 or args.other_mib < 1:
            ap.error("--iters >= 1, --warmup >= 0, --other-mib >= 1")
        run(args)


if __name__ == "__main__":
    main()
