#!/usr/bin/env python3
"""test_safetensors.py: wick's safetensors reader and writer against the real safetensors library, through
tests/io/st_tool (its path is the first argument; this test does not use wick's Python package).

Files written by safetensors.numpy.save_file (every wick dtype, bf16 through ml_dtypes, NaN/inf/-0.0 and random
values, scalars and zero-size tensors, metadata) are dumped by wick: the dtypes, shapes, header order, metadata
and every byte must match. Files copied by wick (st_tool copy: load, then wk_safetensors_save) must read back in
the real library bit-exact, with the same metadata. Types wick lacks (I8, I16, U16, U64, BOOL, F8) list with the
real library's names. Damaged files are refused with a message naming the file."""
import json
import os
import struct
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np
from safetensors import deserialize, safe_open
from safetensors.numpy import load_file, save_file

from checks import check, summary

TOOL = sys.argv[1]


def tool(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True)


def dump(path):
    r = tool("dump", path)
    if r.returncode != 0:
        raise RuntimeError(f"st_tool dump {path} failed: {r.stderr}")
    return json.loads(r.stdout)


def header(path):
    """The header's (key, value) pairs in file order (dicts keep it), and the header length."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return list(json.loads(f.read(n)).items()), n


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def specials(dtype):
    return np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -65504.0], dtype=np.float32).astype(dtype)


def make_tensors(rng):
    dtypes = {"u8": np.uint8, "u32": np.uint32, "i32": np.int32, "i64": np.int64, "f16": np.float16,
              "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}
    shapes = [(3, 5), (7,), (), (0, 4), (2, 3, 4), (1, 1, 1, 1, 1, 1, 1, 2)]
    out = {}
    for name, dt in dtypes.items():
        for k, shape in enumerate(shapes):
            if np.issubdtype(np.dtype(dt), np.integer):
                info = np.iinfo(dt)
                a = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
            else:
                a = (rng.standard_normal(size=shape) * 100).astype(dt)
            out[f"model.{name}.{k}"] = np.array(a, dtype=dt).reshape(shape)  # a scalar as a 0-d array
        if np.dtype(dt).kind == "f" or dt is ml_dtypes.bfloat16:
            out[f"special.{name}"] = specials(dt)
    out["caf\u00e9 \u2615"] = np.arange(5, dtype=np.uint8)  # a non-ASCII name, and odd sizes before aligned data
    out["big"] = rng.standard_normal(size=(64, 257)).astype(np.float32)
    return out


def test_read_and_copy(tmp, rng):
    tensors = make_tensors(rng)
    meta = {"format": "np", "unicode": "na\u00efve \u2615", "empty": "", "quote": "a\"b\\c\nd"}
    src = os.path.join(tmp, "src.safetensors")
    save_file(tensors, src, metadata=meta)
    d = dump(src)
    got = {t["name"]: t for t in d["tensors"]}
    check(set(got) == set(tensors), f"names: {sorted(set(got) ^ set(tensors))}")
    pairs, _ = header(src)
    order = [k for k, _ in pairs if k != "__metadata__"]
    check([t["name"] for t in d["tensors"]] == order, "wick keeps the header's order")
    raw = {name: info for name, info in deserialize(open(src, "rb").read())}
    for name, a in tensors.items():
        t = got.get(name)
        if t is None:
            continue
        check(t["dtype"] == raw[name]["dtype"], f"{name}: dtype {t['dtype']} vs {raw[name]['dtype']}")
        check(tuple(t["shape"]) == a.shape, f"{name}: shape {t['shape']} vs {a.shape}")
        check(t["bytes"] == a.nbytes, f"{name}: bytes")
        check(t.get("hex") == a.tobytes().hex(), f"{name}: wick's bytes differ from numpy's")
    check(d["metadata"] == meta, f"metadata {d['metadata']} vs {meta}")

    out = os.path.join(tmp, "copy.safetensors")
    r = tool("copy", src, out)
    check(r.returncode == 0, f"st_tool copy: {r.stderr}")
    if r.returncode != 0:
        return
    pairs, n = header(out)
    check((8 + n) % 8 == 0, f"wick's data section starts 8-byte aligned ({n})")
    check([k for k, _ in pairs if k != "__metadata__"] == order, "wick's file keeps the caller's order")
    esize = {"U8": 1, "F16": 2, "BF16": 2, "U32": 4, "I32": 4, "F32": 4, "I64": 8, "F64": 8}
    for k, v in pairs:
        if k != "__metadata__":
            b = v["data_offsets"][0]
            check((8 + n + b) % esize[v["dtype"]] == 0, f"{k}: wick's data is aligned for {v['dtype']}")
    back = load_file(out)  # the real library checks the data section is fully covered
    raw_back = {name: info for name, info in deserialize(open(out, "rb").read())}
    check(set(raw_back) == set(tensors), "copy holds every tensor")
    for name, a in tensors.items():
        if a.dtype == ml_dtypes.bfloat16:
            info = raw_back.get(name, {})
            check(info.get("dtype") == "BF16" and bytes(info.get("data", b"")) == a.tobytes() and
                  tuple(info.get("shape", ())) == a.shape, f"{name}: bf16 copy bit-exact")
        else:
            check(name in back and same_bits(back[name], a), f"{name}: copy bit-exact")
    with safe_open(out, framework="numpy") as f:
        check(f.metadata() == meta, f"copy metadata {f.metadata()}")


def test_types_wick_lacks(tmp, rng):
    tensors = {
        "i8": np.array([-128, -1, 0, 127], dtype=np.int8),
        "i16": np.array([[-32768, 7]], dtype=np.int16),
        "u16": np.array([65535, 1, 2], dtype=np.uint16),
        "u64": np.array([2**64 - 1], dtype=np.uint64),
        "bool": np.array([[True, False], [False, True]]),
        "e4m3": np.array([1, -2, 448, np.nan], dtype=ml_dtypes.float8_e4m3fn),
        "e5m2": np.array([1, np.inf, -3], dtype=ml_dtypes.float8_e5m2),
        "f32": np.array([1.5], dtype=np.float32),
    }
    want = {"i8": "I8", "i16": "I16", "u16": "U16", "u64": "U64", "bool": "BOOL", "e4m3": "F8_E4M3",
            "e5m2": "F8_E5M2", "f32": "F32"}
    path = os.path.join(tmp, "lacks.safetensors")
    save_file(tensors, path)
    d = dump(path)
    got = {t["name"]: t for t in d["tensors"]}
    for name, a in tensors.items():
        t = got.get(name, {})
        check(t.get("dtype") == want[name], f"{name}: listed as {t.get('dtype')}, want {want[name]}")
        check(tuple(t.get("shape", [-1])) == a.shape and t.get("bytes") == a.nbytes, f"{name}: shape and size")
        check(("hex" in t) == (name == "f32"), f"{name}: loaded only when wick has its dtype")
    out = os.path.join(tmp, "lacks_copy.safetensors")
    r = tool("copy", path, out)
    check(r.returncode == 0 and "skipping i8" in r.stderr, f"copy skips the types wick lacks: {r.stderr}")
    if r.returncode == 0:
        back = load_file(out)
        check(list(back) == ["f32"] and same_bits(back["f32"], tensors["f32"]), "copy keeps the f32")


def test_damaged(tmp, rng):
    path = os.path.join(tmp, "good.safetensors")
    save_file({"w": rng.standard_normal(size=(4, 4)).astype(np.float32)}, path)
    data = open(path, "rb").read()
    cases = {
        "truncated_data": data[:-1],
        "truncated_header": data[:20],
        "short": data[:5],
        "bad_length": struct.pack("<Q", len(data)) + data[8:],
        "bad_json": data[:8] + data[8:].replace(b"data_offsets", b"data_offsetz", 1),
    }
    for name, bad in cases.items():
        p = os.path.join(tmp, name + ".safetensors")
        with open(p, "wb") as f:
            f.write(bad)
        r = tool("dump", p)
        check(r.returncode == 1 and "WK_" not in r.stdout and p in r.stderr, f"{name}: refused naming the file: "
              f"{r.stderr.strip()}")


def main():
    rng = np.random.default_rng(1234)
    with tempfile.TemporaryDirectory() as tmp:
        test_read_and_copy(tmp, rng)
        test_types_wick_lacks(tmp, rng)
        test_damaged(tmp, rng)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
