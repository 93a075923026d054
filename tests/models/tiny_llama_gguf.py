"""tiny_llama_gguf.py: GGUF twins of the tiny Llama (make_tiny_llama.py's Hugging Face directory), written the way
llama.cpp's converter writes a Llama: its tensor names, the rows of the Q and K projections permuted for its
interleaved rope, the Llama-3 rope scaling as a rope_freqs tensor, norms in F32, tied embeddings (no
output.weight). One file per type: F32, F16, Q8_0, Q4_0 (every 2-D weight in that type, gguf-py's quantizer), and
Q4_0_V8: Q4_0 but the v projections in Q8_0, as a Q4_K_M file mixes Q4_K and Q6_K in a layer's q, k, v.

Usage: tiny_llama_gguf.py MODEL_DIR OUT_DIR        (needs numpy, safetensors and gguf: scripts/py-env.sh)"""
import json
import pathlib
import sys

import numpy as np
from safetensors.numpy import load_file

import gguf

TYPES = {"F32": gguf.GGMLQuantizationType.F32, "F16": gguf.GGMLQuantizationType.F16,
         "Q8_0": gguf.GGMLQuantizationType.Q8_0, "Q4_0": gguf.GGMLQuantizationType.Q4_0,
         "Q4_0_V8": gguf.GGMLQuantizationType.Q4_0}


def tensor_type(kind, name):
    """The file kind's type for a 2-D weight."""
    if kind == "Q4_0_V8" and name.endswith("attn_v.weight"):
        return gguf.GGMLQuantizationType.Q8_0
    return TYPES[kind]


def interleave_rows(w, heads):
    """llama.cpp's row order for rope on adjacent pairs: in each head, rows (i, i + d/2) become (2i, 2i + 1)."""
    d = w.shape[0] // heads
    return w.reshape(heads, 2, d // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def llama3_freq_factors(cfg):
    """The per-frequency divisors of Llama-3 rope scaling (transformers' _compute_llama3_parameters, as factors)."""
    rs, dim = cfg["rope_scaling"], cfg["head_dim"]
    inv = 1.0 / (cfg["rope_theta"] ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
    low_wl = rs["original_max_position_embeddings"] / rs["low_freq_factor"]
    high_wl = rs["original_max_position_embeddings"] / rs["high_freq_factor"]
    out = []
    for f in inv:
        wl = 2 * np.pi / f
        if wl < high_wl:
            out.append(1.0)
        elif wl > low_wl:
            out.append(rs["factor"])
        else:
            smooth = (rs["original_max_position_embeddings"] / wl - rs["low_freq_factor"]) / (
                rs["high_freq_factor"] - rs["low_freq_factor"])
            out.append(1.0 / ((1 - smooth) / rs["factor"] + smooth))
    return np.array(out, dtype=np.float32)


def gguf_tensors(cfg, w):
    """(name, f32 array, is_norm) in llama.cpp's names and layout."""
    nh, nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    yield "token_embd.weight", w["model.embed_tokens.weight"], False
    for i in range(cfg["num_hidden_layers"]):
        p, b = f"model.layers.{i}.", f"blk.{i}."
        yield b + "attn_norm.weight", w[p + "input_layernorm.weight"], True
        yield b + "attn_q.weight", interleave_rows(w[p + "self_attn.q_proj.weight"], nh), False
        yield b + "attn_k.weight", interleave_rows(w[p + "self_attn.k_proj.weight"], nkv), False
        yield b + "attn_v.weight", w[p + "self_attn.v_proj.weight"], False
        yield b + "attn_output.weight", w[p + "self_attn.o_proj.weight"], False
        yield b + "ffn_norm.weight", w[p + "post_attention_layernorm.weight"], True
        yield b + "ffn_gate.weight", w[p + "mlp.gate_proj.weight"], False
        yield b + "ffn_up.weight", w[p + "mlp.up_proj.weight"], False
        yield b + "ffn_down.weight", w[p + "mlp.down_proj.weight"], False
    yield "output_norm.weight", w["model.norm.weight"], True
    yield "rope_freqs.weight", llama3_freq_factors(cfg), True


def write(cfg, w, kind, path):
    out = gguf.GGUFWriter(str(path), "llama")
    out.add_block_count(cfg["num_hidden_layers"])
    out.add_context_length(cfg["max_position_embeddings"])
    out.add_embedding_length(cfg["hidden_size"])
    out.add_feed_forward_length(cfg["intermediate_size"])
    out.add_head_count(cfg["num_attention_heads"])
    out.add_head_count_kv(cfg["num_key_value_heads"])
    out.add_rope_freq_base(cfg["rope_theta"])
    out.add_layer_norm_rms_eps(cfg["rms_norm_eps"])
    out.add_rope_dimension_count(cfg["head_dim"])
    out.add_vocab_size(cfg["vocab_size"])
    for name, a, is_norm in gguf_tensors(cfg, w):
        qtype = tensor_type(kind, name)
        a = np.ascontiguousarray(a, dtype=np.float32)
        if is_norm or qtype == gguf.GGMLQuantizationType.F32:
            out.add_tensor(name, a)
        elif qtype == gguf.GGMLQuantizationType.F16:
            out.add_tensor(name, a.astype(np.float16))
        else:
            out.add_tensor(name, gguf.quants.quantize(a, qtype), raw_dtype=qtype)
    out.write_header_to_file()
    out.write_kv_data_to_file()
    out.write_tensors_to_file()
    out.close()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    dst.mkdir(parents=True, exist_ok=True)
    cfg = json.loads((src / "config.json").read_text())
    cfg.setdefault("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    if "rope_parameters" in cfg:  # transformers 5 keeps rope_theta and the scaling together
        cfg["rope_scaling"] = cfg["rope_parameters"]
        cfg["rope_theta"] = cfg["rope_parameters"]["rope_theta"]
    w = load_file(str(src / "model.safetensors"))
    for kind in TYPES:
        path = dst / f"tiny-llama-{kind}.gguf"
        write(cfg, w, kind, path)
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
