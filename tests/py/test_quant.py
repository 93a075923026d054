"""test_quant.py: wick's block-quantized dtypes against gguf-py (gguf.quants), on every device this build finds.
Dequantize: random blocks of every type (random bits with finite scales: zero, subnormal f16, huge, negative)
must give gguf.quants.dequantize's f32 bit for bit (and its f16/bf16 roundings); Q8_K, which gguf-py lacks, is
checked against ggml's formula in numpy. Quantize: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 of random and edge blocks (all
zero, all equal, huge, tiny, equal magnitudes of both signs, f16/bf16 input) must give gguf.quants.quantize's bytes;
Q4_K, Q5_K, Q6_K (not in gguf-py) must round-trip N(0,1) data no worse than a plain per-sub-block min/max scheme of
the same bits (RMSE printed). matmul_q against x @ gguf-py's dequantized w^T in numpy float64. NaN/inf refused;
GGUF files with quantized tensors load as the block dtypes.
Skipped (exit 77) without gguf. Plain script: exits 1 on any failure, prints "N passed, M failed"."""
import os
import sys
import tempfile

import numpy as np

try:
    import gguf
    from gguf import GGMLQuantizationType as Q
except ImportError:
    print("gguf-py is missing: skipped")
    sys.exit(77)
import ml_dtypes

import wick
from checks import check, run, summary

rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
TYPES = {"q4_0": Q.Q4_0, "q4_1": Q.Q4_1, "q5_0": Q.Q5_0, "q5_1": Q.Q5_1, "q8_0": Q.Q8_0, "q2_k": Q.Q2_K,
         "q3_k": Q.Q3_K, "q4_k": Q.Q4_K, "q5_k": Q.Q5_K, "q6_k": Q.Q6_K, "q8_k": Q.Q8_K, "iq4_nl": Q.IQ4_NL,
         "iq4_xs": Q.IQ4_XS}
# byte offsets of each type's f16 scales in a block
F16_FIELDS = {"q4_0": [0], "q4_1": [0, 2], "q5_0": [0], "q5_1": [0, 2], "q8_0": [0], "q2_k": [80, 82],
              "q3_k": [108], "q4_k": [0, 2], "q5_k": [0, 2], "q6_k": [208], "iq4_nl": [0], "iq4_xs": [0]}
DEVICES = wick.device_names()
EDGE_F16 = np.array([0.0, -0.0, 6e-8, -6e-8, 3e-5, 65504.0, -65504.0, 1.0, -2.5], np.float16)


def scales(n):
    """n finite f16 scales: N(0, 0.05) mostly, the edge values often."""
    s = (rng.standard_normal(n) * 0.05).astype(np.float16)
    pick = rng.random(n) < 0.3
    s[pick] = rng.choice(EDGE_F16, int(pick.sum()))
    return s


def random_blocks(name, nblocks):
    bs, bb = gguf.GGML_QUANT_SIZES[TYPES[name]]
    b = rng.integers(0, 256, (nblocks, bb), dtype=np.uint8)
    for off in F16_FIELDS.get(name, []):
        b[:, off:off + 2] = scales(nblocks).view(np.uint8).reshape(nblocks, 2)
    if name == "q8_k":
        d = (rng.standard_normal(nblocks) * 0.01).astype(np.float32)
        d[::5] = 0
        b[:, 0:4] = d.view(np.uint8).reshape(nblocks, 4)
    return b, bs


def ref_dequant(name, blocks):
    if name == "q8_k":  # ggml: d * q (gguf-py has no Q8_K)
        d = blocks[:, 0:4].copy().view(np.float32)
        return d * blocks[:, 4:260].view(np.int8).astype(np.float32)
    return gguf.quants.dequantize(blocks, TYPES[name]).reshape(blocks.shape[0], -1)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    ua, ub = a.view(np.uint16 if a.itemsize == 2 else np.uint32), b.view(np.uint16 if b.itemsize == 2 else np.uint32)
    both_nan = np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32))
    return bool(np.all((ua == ub) | both_nan))


def test_dequantize():
    for name in TYPES:
        blocks, bs = random_blocks(name, 96)
        want = ref_dequant(name, blocks)                     # (rows=96/3 ... ) below: 3 blocks a row
        rows = blocks.reshape(32, -1)
        for dev in DEVICES:
            t = wick.from_blocks(rows, name, (32, 3 * bs), dev)
            check(t.dtype == name and t.numpy().tobytes() == rows.tobytes(), f"{name} {dev}: blocks round trip")
            for dt, conv in (("f32", lambda v: v), ("f16", lambda v: v.astype(np.float16)),
                             ("bf16", lambda v: v.astype(ml_dtypes.bfloat16))):
                got = wick.dequantize(t, dt).numpy().reshape(96, bs)
                check(same_bits(got, conv(want)), f"{name} {dev}: dequantize to {dt} differs from gguf-py")


def test_views_and_lookup():
    for name in ("q4_0", "q6_k", "iq4_nl"):
        blocks, bs = random_blocks(name, 24)
        want = ref_dequant(name, blocks).reshape(4, 3, 2 * bs)
        for dev in DEVICES:
            t = wick.from_blocks(blocks, name, (4, 3, 2 * bs), dev)
            nar = wick.narrow(t, 1, 1, 2)                   # rows not evenly spaced
            check(same_bits(wick.dequantize(nar).numpy(), want[:, 1:3]), f"{name} {dev}: narrowed view")
            flat = wick.reshape(t, (12, 2 * bs))
            ids = np.array([11, 0, 5, 5], np.int64)
            got = wick.index_select(flat, 0, wick.from_numpy(ids, dev)).numpy()
            check(same_bits(got, want.reshape(12, -1)[ids]), f"{name} {dev}: index_select of rows")
            got = wick.index_select_dequant(t, wick.from_numpy(np.array([3, 1], np.int32), dev), "bf16").numpy()
            check(same_bits(got, want[[3, 1]].astype(ml_dtypes.bfloat16)), f"{name} {dev}: 3-D lookup to bf16")


def edge_rows(bs):
    x = rng.standard_normal((12, bs)).astype(np.float32)
    x[0] = 0
    x[1] = 0.75
    x[2] = -3.0
    x[3] *= 1e30
    x[4] *= 1e-30
    x[5] = np.where(np.arange(bs) % 2, 2.0, -2.0)            # equal magnitudes, both signs
    x[6, 0], x[6, 7] = -5.0, 5.0
    x[7] *= 1e5                                             # f16 scale overflows to inf
    x[8] = np.float32(1e-6) * rng.integers(-3, 4, bs)
    return x


def test_quantize_exact():
    for name in ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0"):
        x = np.concatenate([rng.standard_normal((20, 64)).astype(np.float32) * 3, edge_rows(32).reshape(6, 64)])
        for dt, np_dt in (("f32", np.float32), ("f16", np.float16), ("bf16", ml_dtypes.bfloat16)):
            xi = (x if dt != "f16" else np.clip(x, -6e4, 6e4)).astype(np_dt)
            want = gguf.quants.quantize(xi.astype(np.float32), TYPES[name])
            for dev in DEVICES:
                got = wick.quantize(wick.from_numpy(xi, dev), name).numpy()
                check(got.tobytes() == want.tobytes(), f"{name} {dev}: quantize of {dt} differs from gguf-py")


def rmse(a, b):
    return float(np.sqrt(np.mean((a.astype(np.float64) - b) ** 2)))


def minmax_baseline(x, sub, bits, symmetric):
    """The plain scheme the K types must beat: per sub-block min/max on 2^bits levels (symmetric for Q6_K, whose
    format has no min: absmax / (2^(bits-1) - 1), levels -2^(bits-1) .. 2^(bits-1)-1), exact f32 scale and min."""
    s = x.reshape(-1, sub)
    if symmetric:
        d = np.abs(s).max(1, keepdims=True) / (2 ** (bits - 1) - 1)
        q = np.clip(np.round(s / np.where(d == 0, 1, d)), -2 ** (bits - 1), 2 ** (bits - 1) - 1)
        return (q * d).reshape(x.shape)
    lo, hi = s.min(1, keepdims=True), s.max(1, keepdims=True)
    d = (hi - lo) / (2 ** bits - 1)
    q = np.round((s - lo) / np.where(d == 0, 1, d))
    return (q * d + lo).reshape(x.shape)


def test_quantize_k():
    x = rng.standard_normal((256, 1024)).astype(np.float32)
    for name, sub, bits in (("q4_k", 32, 4), ("q5_k", 32, 5), ("q6_k", 16, 6)):
        base = rmse(minmax_baseline(x, sub, bits, name == "q6_k"), x)
        cpu_blocks = None
        for dev in DEVICES:
            q = wick.quantize(wick.from_numpy(x, dev), name)
            cpu_blocks = q.numpy() if cpu_blocks is None else cpu_blocks
            check(q.numpy().tobytes() == cpu_blocks.tobytes(), f"{name} {dev}: the same blocks as the CPU's")
            mine = rmse(wick.dequantize(q).numpy(), x)
            viagguf = gguf.quants.dequantize(q.numpy(), TYPES[name]).reshape(x.shape)
            check(same_bits(wick.dequantize(q).numpy(), viagguf), f"{name} {dev}: gguf-py reads our blocks alike")
            print(f"{name} {dev}: round-trip RMSE on N(0,1) {mine:.5f}; plain per-{sub} {bits}-bit min/max {base:.5f}")
            check(mine <= base, f"{name} {dev}: RMSE {mine} above the min/max scheme's {base}")
        edge = edge_rows(256)[:9]
        for dev in DEVICES:
            got = wick.dequantize(wick.quantize(wick.from_numpy(edge, dev), name)).numpy()
            check(np.all(np.isfinite(got[[0, 1, 2, 4, 5, 6, 8]])), f"{name} {dev}: edge blocks stay finite")
            check(np.all(got[0] == 0), f"{name} {dev}: a zero block stays zero")


def test_matmul_q():
    """wk_matmul_q against numpy: x @ gguf-py's dequantized w^T in float64, within the f32 matmul tolerance."""
    for name in ("q4_0", "q8_0", "q4_k", "q6_k", "iq4_nl"):
        blocks, bs = random_blocks(name, 16 * 2)
        for off in F16_FIELDS.get(name, []):  # moderate scales: 65504 would swamp the relative error
            blocks[:, off:off + 2] = (rng.standard_normal(32) * 0.01).astype(np.float16).view(np.uint8).reshape(32, 2)
        n, k = 16, 2 * bs
        w = ref_dequant(name, blocks).reshape(n, k).astype(np.float64)
        for m in (1, 9):
            x = rng.uniform(-2, 2, (m, k)).astype(np.float32)
            want = x.astype(np.float64) @ w.T
            for dev in DEVICES:
                got = wick.matmul_q(wick.from_numpy(x, dev), wick.from_blocks(blocks.reshape(n, -1), name, (n, k), dev))
                err = np.linalg.norm(got.numpy().astype(np.float64) - want) / np.linalg.norm(want)
                check(got.dtype == "f32" and err < 1e-5, f"{name} {dev} M={m}: matmul_q error {err:.2e} vs gguf-py")


def int8_tolerance(x, w, want, bs):
    """The 8-bit path's tolerance for want = x @ w^T (tests/cases/quant_ref.c wkt_q_int8_tolerance, matmul_q.c's
    comment says why): x's blocks of bs values are rounded with step d = amax / 127, an error uniform in [-d/2, d/2],
    so the product's error has expected square sum w^2 d^2 / 12; allowed: f32's 1e-5 plus 6 times its root, relative
    to |want|. A fixed bound fails by luck where one row of large scales dominates |want| and happens to be small."""
    m, k = x.shape
    d = np.repeat(np.abs(x).reshape(m, k // bs, bs).max(axis=2) / 127, bs, axis=1)
    var = float(((w * w) @ (d * d).T).sum()) / 12
    norm = np.linalg.norm(want)
    return 1e-5 + (6 * np.sqrt(var) / norm if norm > 0 else 0)


def close_rows(got, x, w, want, bs):
    """Rows of a product finite and within the 8-bit path's tolerance of the reference (none: true)."""
    return got.size == 0 or (np.all(np.isfinite(got)) and
                             np.linalg.norm(got - want) <= int8_tolerance(x, w, want, bs) * np.linalg.norm(want))


def test_matmul_q_default():
    """The default path (--default-path, run without WICK_*_MATMUL_Q=f32): up to 8 rows of x rounded to 8-bit blocks
    on the CPU and, for Q4_0, Q8_0, Q4_K and Q6_K, on GPUs, within int8_tolerance (typically 4e-3 relative here; the
    step of the type's blocks, 32 or 256 values, bounds the GPUs' of 32); a block of x holding an infinity taken in
    float, as the exact path takes it: +-inf where the weight at that position is non-zero, NaN where it is zero; a
    NaN makes every output of its row NaN. The other rows stay finite and as close (the CPU takes them in float then,
    GPUs in integers)."""
    for name in ("q4_0", "q8_0", "q4_k", "q6_k"):
        blocks, bs = random_blocks(name, 16 * 4)
        n, k = 16, 4 * bs
        if name in ("q4_0", "q8_0"):
            blocks[:, 0:2] = (rng.standard_normal((64, 1)) * 0.01).astype(np.float16).view(np.uint8)
            for row in range(n):  # element 40 (block 1, value 8) zero on every row: inf * 0 there
                b = blocks[row * 4 + 1]
                b[2 + 8] = (b[2 + 8] & 0xF0) | 8 if name == "q4_0" else 0
        wb = blocks.reshape(n, -1)
        w = ref_dequant(name, blocks).reshape(n, k).astype(np.float64)
        if name in ("q4_0", "q8_0"):
            assert np.all(w[:, 40] == 0)
        for m in (1, 3):
            x = rng.uniform(-2, 2, (m, k)).astype(np.float32)
            want = x.astype(np.float64) @ w.T
            for dev in DEVICES:
                wt = wick.from_blocks(wb, name, (n, k), dev)
                got = wick.matmul_q(wick.from_numpy(x, dev), wt).numpy().astype(np.float64)
                err = np.linalg.norm(got - want) / np.linalg.norm(want)
                tol = int8_tolerance(x, w, want, bs)
                check(err < tol, f"{name} {dev} M={m} default path: error {err:.2e} (8-bit x: under {tol:.2e})")
                for col, sign in ((40, 1.0), (41, -1.0)):  # +-inf * sign(w) on each row, NaN where w is 0 there
                    xi = x.copy()
                    xi[m - 1, col] = sign * np.inf
                    with np.errstate(invalid="ignore"):
                        wanti = np.where(w[:, col] == 0, np.nan, sign * np.inf * np.sign(w[:, col]))
                    g = wick.matmul_q(wick.from_numpy(xi, dev), wt).numpy().astype(np.float64)
                    same = np.all(np.where(np.isnan(wanti), np.isnan(g[m - 1]), g[m - 1] == wanti))
                    check(same, f"{name} {dev} M={m}: inf in column {col} gives +-inf * sign(w), NaN at w = 0")
                    check(close_rows(g[: m - 1], x[: m - 1], w, want[: m - 1], bs),
                          f"{name} {dev} M={m}: inf leaves the other rows")
                xnan = x.copy()
                xnan[0, 100] = np.nan
                g = wick.matmul_q(wick.from_numpy(xnan, dev), wt).numpy().astype(np.float64)
                check(np.all(np.isnan(g[0])), f"{name} {dev} M={m}: a NaN in x makes its row's outputs NaN")
                check(close_rows(g[1:], x[1:], w, want[1:], bs), f"{name} {dev} M={m}: a NaN leaves the other rows")


def test_refusals():
    for dev in DEVICES:
        x = rng.standard_normal((3, 64)).astype(np.float32)
        x[2, 5] = np.nan
        for bad in (np.nan, np.inf, -np.inf):
            x[1, 7] = bad
            try:
                wick.quantize(wick.from_numpy(x, dev), "q4_0")
                check(False, f"{dev}: quantize of {bad} accepted")
            except wick.WickError as e:
                check(e.status == "WK_ERR_INVALID_ARGUMENT" and "row 1" in e.message, f"{dev}: {bad}: {e}")
        try:
            wick.quantize(wick.from_numpy(np.zeros((2, 48), np.float32), dev), "q8_0")
            check(False, "48 columns accepted for q8_0")
        except wick.WickError as e:
            check(e.status == "WK_ERR_SHAPE", str(e))


def test_gguf_file():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "q.gguf")
        w = gguf.GGUFWriter(path, "test")
        x = rng.standard_normal((8, 256)).astype(np.float32)
        blocks = {n: gguf.quants.quantize(x, TYPES[n]) for n in ("q4_0", "q8_0", "q5_1")}
        for n, b in blocks.items():
            w.add_tensor(n, b, raw_dtype=TYPES[n])
        kb, _ = random_blocks("q4_k", 8)
        w.add_tensor("q4_k", kb.reshape(4, -1), raw_dtype=Q.Q4_K)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        _, ts = wick.load_gguf(path)
        for n, b in list(blocks.items()) + [("q4_k", kb.reshape(4, -1))]:
            t = ts[n]
            check(t.dtype == n and t.numpy().tobytes() == b.tobytes(), f"gguf {n}: loads as the block dtype")
            want = gguf.quants.dequantize(b, TYPES[n])
            check(same_bits(wick.dequantize(t).numpy(), want), f"gguf {n}: dequantized")
        with wick.GGUFFile(path) as f:
            check(same_bits(f.load("q8_0", dtype="f32").numpy(), gguf.quants.dequantize(blocks["q8_0"], Q.Q8_0)),
                  "gguf load_as f32 dequantizes")


if "--default-path" in sys.argv:
    run([test_matmul_q_default])
else:
    run([test_dequantize, test_views_and_lookup, test_quantize_exact, test_quantize_k, test_matmul_q, test_refusals,
         test_gguf_file])
sys.exit(summary())
