"""test_gguf.py: wick's GGUF reader and writer against gguf-py, through tests/io/gguf_tool.c (argv[1]): files
gguf.GGUFWriter writes (metadata of every value type, nested arrays of ints and strings, a 32k-string array,
F32/F16/BF16/F64/I8..I64 tensors, tensors of every GGML block type, some quantized by gguf.quants, custom
alignment, version 2) are dumped by wick and must equal what gguf.GGUFReader reads (values, types, ne, offsets,
raw bytes); gguf_tool copy re-writes them with wk_gguf_writer and gguf.GGUFReader must read the same metadata and
tensors back; damaged files fail with WK_ERR_FILE. Plain script: exits 1 on any failure, prints "N passed, M
failed"."""
import math
import os
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np

import gguf
from gguf import GGMLQuantizationType as Q
from gguf import GGUFValueType as VT

from checks import check, summary

TOOL = sys.argv[1]
WICK_TYPES = {Q.F32, Q.F16, Q.BF16, Q.F64, Q.I32, Q.I64}


def tool(*args):
    return subprocess.run([TOOL, *args], capture_output=True)


def esc(b):
    return '"' + "".join(chr(c) if 0x20 <= c < 0x7F and c not in (0x22, 0x5C) else "\\x%02x" % c for c in b) + '"'


def fmt_float(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return "%.17g" % x


def fnv(b):
    h = 14695981039346656037
    for c in b:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def render(parts, pos, vtype):
    """The canonical text of the value whose parts start at parts[pos] (gguf_tool's format); (text, next pos)."""
    vtype = VT(vtype)
    if vtype == VT.STRING:
        return "string:" + esc(bytes(parts[pos + 1])), pos + 2
    if vtype == VT.ARRAY:
        itype, n = int(parts[pos][0]), int(parts[pos + 1][0])
        pos += 2
        items = []
        for _ in range(n):
            text, pos = render(parts, pos, itype)
            items.append(text)
        return "array<%s>[%s]" % (VT(itype).name.lower(), ",".join(items)), pos
    val = parts[pos][0]
    if vtype == VT.BOOL:
        text = "true" if bool(val) else "false"
    elif vtype in (VT.FLOAT32, VT.FLOAT64):
        text = fmt_float(float(val))
    else:
        text = str(int(val))
    return vtype.name.lower() + ":" + text, pos + 1


def reader_dump(path):
    """What gguf_tool dump must print, from gguf.GGUFReader."""
    r = gguf.GGUFReader(path)
    lines = ["version %d" % int(r.fields["GGUF.version"].parts[0][0]), "alignment %d" % int(r.alignment)]
    for name, field in r.fields.items():
        if name.startswith("GGUF."):
            continue
        lines.append("kv %s %s" % (esc(name.encode()), render(field.parts, 3, field.types[0])[0]))
    for t in r.tensors:
        h = fnv(t.data.tobytes())
        line = "tensor %s %s %d ne=[%s] offset=%d bytes=%d fnv=%016x" % (
            esc(t.name.encode()), t.tensor_type.name, int(t.tensor_type), ",".join(str(int(x)) for x in t.shape),
            t.data_offset, t.n_bytes, h)
        if t.tensor_type in WICK_TYPES:
            line += " load_fnv=%016x" % h
        lines.append(line)
    return lines


def wick_dump(path, what):
    r = tool("dump", path)
    check(r.returncode == 0, f"{what}: gguf_tool dump exit {r.returncode}: {r.stderr.decode().strip()}")
    return r.stdout.decode().splitlines() if r.returncode == 0 else None


def compare_dump(path, what):
    got, want = wick_dump(path, what), reader_dump(path)
    if got is None:
        return
    check(len(got) == len(want), f"{what}: {len(got)} lines from wick, {len(want)} from gguf-py")
    for g, w in zip(got, want):
        check(g == w, f"{what}:\n  wick:    {g[:300]}\n  gguf-py: {w[:300]}")


def add_metadata(w):
    w.add_uint8("m.u8", 200)
    w.add_int8("m.i8", -128)
    w.add_uint16("m.u16", 65535)
    w.add_int16("m.i16", -300)
    w.add_uint32("m.u32", 4000000000)
    w.add_int32("m.i32", -2000000000)
    w.add_uint64("m.u64", 2**64 - 1)
    w.add_int64("m.i64", -(2**63))
    w.add_float32("m.f32", 0.1)
    w.add_float32("m.f32_inf", float("-inf"))
    w.add_float64("m.f64", math.pi)
    w.add_float64("m.f64_tiny", 5e-324)
    w.add_bool("m.true", True)
    w.add_bool("m.false", False)
    w.add_string("m.str", "héllo \"wörld\"\\ \n\t")
    w.add_string("m.nul", "a\0b")
    w.add_string("m.empty", "")
    w.add_array("m.ints", [1, -2, 3])
    w.add_array("m.floats", [0.5, -1e30, 3.0])
    w.add_array("m.bools", [True, False, True])
    w.add_array("m.strs", ["x", "", "ü\0z"])
    w.add_array("m.nested_ints", [[1, 2], [3], [-4, 5, 6]])
    w.add_array("m.nested_strs", [["a", "b"], ["c"]])
    w.add_array("m.deeper", [[[1], [2, 3]], [[4]]])
    w.add_key_value("m.u64s", [1, 2**64 - 1], VT.ARRAY, sub_type=VT.UINT64)
    w.add_key_value("m.i16s", [-1, 7], VT.ARRAY, sub_type=VT.INT16)
    w.add_key_value("m.f64s", [1.0 / 3, -0.0], VT.ARRAY, sub_type=VT.FLOAT64)
    w.add_key_value("m.u8s", [0, 255], VT.ARRAY, sub_type=VT.UINT8)


def add_tensors(w, rng, quantized=True):
    f = rng.standard_normal((3, 5)).astype(np.float32)
    w.add_tensor("t.f32", f)
    w.add_tensor("t.f16", rng.standard_normal((2, 3, 4)).astype(np.float16))
    bf = rng.standard_normal((4, 6)).astype(ml_dtypes.bfloat16).view(np.uint16)
    w.add_tensor("t.bf16", bf, raw_dtype=Q.BF16)
    w.add_tensor("t.f64", rng.standard_normal(7))
    w.add_tensor("t.i32", rng.integers(-(2**31), 2**31, (2, 2), dtype=np.int32))
    w.add_tensor("t.i64", rng.integers(-(2**63), 2**63 - 1, (3,), dtype=np.int64))
    w.add_tensor("t.i8", rng.integers(-128, 128, (5,), dtype=np.int8))
    w.add_tensor("t.i16", rng.integers(-(2**15), 2**15, (2, 3), dtype=np.int16))
    if not quantized:
        return
    x = rng.standard_normal((2, 256)).astype(np.float32)
    for qt in (Q.Q4_0, Q.Q8_0, Q.Q4_K, Q.Q6_K):
        try:
            q = gguf.quants.quantize(x, qt)
        except NotImplementedError:  # gguf-py lacks this quantizer: its bytes at random
            q = rng.integers(0, 256, gguf.quants.quant_shape_to_byte_shape((2, 256), qt), dtype=np.uint8)
        w.add_tensor("q." + qt.name, q, raw_dtype=qt)
    # every other block type gguf-py knows, as random blocks: the type table's sizes agree with gguf-py's
    for qt, (block, _) in gguf.GGML_QUANT_SIZES.items():
        if block > 1 and qt not in (Q.Q4_0, Q.Q8_0, Q.Q4_K, Q.Q6_K):
            shape = gguf.quants.quant_shape_to_byte_shape((3, 256), qt)
            w.add_tensor("r." + qt.name, rng.integers(0, 256, shape, dtype=np.uint8), raw_dtype=qt)


def write_gguf(path, build, alignment=None):
    w = gguf.GGUFWriter(path, "wicktest")
    if alignment:
        w.add_custom_alignment(alignment)
    build(w)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def fields_text(r):
    return [(n, render(f.parts, 3, f.types[0])[0]) for n, f in r.fields.items() if not n.startswith("GGUF.")]


def copy_check(src, what):
    """gguf_tool copy src -> dst; gguf-py reads dst: the same metadata, every wick-dtype tensor the same."""
    dst = src + ".copy.gguf"
    r = tool("copy", src, dst)
    check(r.returncode == 0, f"{what}: gguf_tool copy exit {r.returncode}: {r.stderr.decode().strip()}")
    if r.returncode != 0:
        return
    a, b = gguf.GGUFReader(src), gguf.GGUFReader(dst)
    check(fields_text(a) == fields_text(b), f"{what}: metadata differs after the copy")
    check(int(b.fields["GGUF.version"].parts[0][0]) == 3 and b.alignment == a.alignment, f"{what}: header")
    want = [t for t in a.tensors if t.tensor_type in WICK_TYPES]
    check([t.name for t in b.tensors] == [t.name for t in want], f"{what}: tensor names {[t.name for t in b.tensors]}")
    for ta, tb in zip(want, b.tensors):
        check(ta.tensor_type == tb.tensor_type and list(ta.shape) == list(tb.shape) and
              ta.data.tobytes() == tb.data.tobytes() and tb.data_offset % b.alignment == 0,
              f"{what}: tensor {ta.name} differs after the copy")
    compare_dump(dst, what + " (copy)")


def main():
    rng = np.random.default_rng(7)
    global tmp
    with tempfile.TemporaryDirectory() as tmp:
        rich = os.path.join(tmp, "rich.gguf")
        write_gguf(rich, lambda w: (add_metadata(w), add_tensors(w, rng)))
        compare_dump(rich, "rich file")
        copy_check(rich, "rich file")

        aligned = os.path.join(tmp, "aligned.gguf")
        write_gguf(aligned, lambda w: (add_metadata(w), add_tensors(w, rng, quantized=False)), alignment=128)
        compare_dump(aligned, "alignment 128")
        copy_check(aligned, "alignment 128")

        vocab = os.path.join(tmp, "vocab.gguf")
        toks = ["tok%d\u2581" % i for i in range(32 * 1024)]
        write_gguf(vocab, lambda w: (w.add_array("tokenizer.ggml.tokens", toks),
                                     w.add_array("tokenizer.ggml.scores", [float(i) for i in range(len(toks))])))
        compare_dump(vocab, "32k tokens")
        copy_check(vocab, "32k tokens")

        empty = os.path.join(tmp, "empty.gguf")
        write_gguf(empty, lambda w: None)
        compare_dump(empty, "no tensors, one key")

        v2 = os.path.join(tmp, "v2.gguf")
        with open(rich, "rb") as f:
            data = bytearray(f.read())
        data[4:8] = (2).to_bytes(4, "little")
        with open(v2, "wb") as f:
            f.write(data)
        compare_dump(v2, "version 2")

        damaged_checks(rich, data)
    sys.exit(summary())


def damaged_checks(rich, data):
    """Damaged copies of a gguf-py file: the dump fails with WK_ERR_FILE, never crashes."""
    bad = os.path.join(tmp, "bad.gguf")
    cases = {"truncated header": data[:20], "truncated metadata": data[:300], "truncated data": data[:-1000],
             "version 1": data[:4] + (1).to_bytes(4, "little") + data[8:]}
    for what, content in cases.items():
        with open(bad, "wb") as f:
            f.write(content)
        r = tool("dump", bad)
        err = r.stderr.decode()
        check(r.returncode == 1 and "gguf_tool: open:" in err and "bad.gguf" in err,
              f"{what}: exit {r.returncode}, stderr {err.strip()[:200]}")


if __name__ == "__main__":
    main()
