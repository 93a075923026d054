"""torch_embed.py: sentence-transformers' encode on the texts bench/embed_bench.c embeds (N texts that each fill
exactly T tokens), B at a time, best of several runs after a warm-up; one JSON line per (device, dtype).

Usage: torch_embed.py MODEL_DIR [--device cpu|cuda] [--dtype f32 f16 ...] [--batch 256] [--tokens 128]
                      [--texts 256] [--iters 5]
       torch_embed.py --compare WICK.jsonl TORCH.jsonl   (a markdown table: sentences/s and the ratio)"""
import argparse
import json
import sys
import time


def make_texts(n):
    base = " the quick brown fox jumps over the lazy dog"
    return [f"sentence {i}:" + base * 40 for i in range(n)]


def measure(args):
    import torch
    from sentence_transformers import SentenceTransformer

    texts = make_texts(args.texts)
    for dt in args.dtype:
        model = SentenceTransformer(args.model, device=args.device)
        model.max_seq_length = args.tokens
        if dt == "f16":
            model = model.half()
        elif dt == "bf16":
            model = model.to(torch.bfloat16)
        best = float("inf")
        for it in range(args.iters + 1):
            if args.device == "cuda":
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            model.encode(texts, batch_size=args.batch, convert_to_numpy=True)
            if args.device == "cuda":
                torch.cuda.synchronize()
            if it > 0:
                best = min(best, time.perf_counter() - t0)
        print(json.dumps({"impl": "torch", "device": args.device, "dtype": dt, "batch": args.batch,
                          "tokens": args.tokens, "texts": args.texts, "seconds": round(best, 4),
                          "sentences_per_s": round(args.texts / best, 1), "threads": torch.get_num_threads()}))


def compare(wick_path, torch_path):
    def rows(path):
        out = {}
        for line in open(path):
            if line.startswith("{"):
                r = json.loads(line)
                out[(r["device"].split(":")[0], r["dtype"])] = r
        return out
    w, t = rows(wick_path), rows(torch_path)
    print("| device | dtype | wick sentences/s | PyTorch sentences/s | wick/PyTorch |")
    print("|---|---|---:|---:|---:|")
    for key in sorted(w):
        tk = (key[0].replace("cuda", "cuda"), key[1])
        if tk in t:
            print(f"| {key[0]} | {key[1]} | {w[key]['sentences_per_s']:.0f} | {t[tk]['sentences_per_s']:.0f} | "
                  f"{w[key]['sentences_per_s'] / t[tk]['sentences_per_s']:.2f} |")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        return compare(sys.argv[2], sys.argv[3])
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--device", default="cpu")
    p.add_argument("--dtype", nargs="+", default=["f32"])
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--tokens", type=int, default=128)
    p.add_argument("--texts", type=int, default=256)
    p.add_argument("--iters", type=int, default=5)
    measure(p.parse_args())


if __name__ == "__main__":
    main()
