"""make_data.py: regenerates the small files `wick info` is tested on (tests/test_cli.cmake), with the real
Python libraries: tiny.safetensors (safetensors.numpy), tiny.gguf (gguf-py's GGUFWriter, with a Q8_0 tensor and
a long string array), tiny.npy and tiny_fortran.npy (numpy), and a damaged (truncated) copy of each format.
Run: .venv/bin/python3 tests/io/data/make_data.py  (writes next to itself)."""
import os

import gguf
import numpy as np
from gguf import quants
from safetensors.numpy import save_file

here = os.path.dirname(os.path.abspath(__file__))


def out(name):
    return os.path.join(here, name)


def truncate_copy(src, dst, keep):
    with open(out(src), "rb") as f:
        data = f.read()
    with open(out(dst), "wb") as f:
        f.write(data[:keep])


save_file({"weight": np.arange(12, dtype=np.float32).reshape(3, 4),
           "bias": np.array([0.5, -1, 2, 0], dtype=np.float16),
           "ids": np.array([-3, 7], dtype=np.int8)},
          out("tiny.safetensors"), metadata={"format": "pt", "note": "wick test"})

w = gguf.GGUFWriter(out("tiny.gguf"), "llama")
w.add_name("tiny wick test")
w.add_block_count(2)
w.add_layer_norm_rms_eps(1e-5)
w.add_bool("wick.flag", True)
w.add_array("tokenizer.ggml.tokens", [f"tok{i}" for i in range(20)])
w.add_array("wick.ints", [1, -2, 3])
w.add_tensor("token_embd.weight", np.arange(12, dtype=np.float32).reshape(3, 4))
w.add_tensor("output_norm.weight", np.ones(4, dtype=np.float16))
q = quants.quantize(np.linspace(-1, 1, 64, dtype=np.float32).reshape(2, 32), gguf.GGMLQuantizationType.Q8_0)
w.add_tensor("blk.0.attn_q.weight", q, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()

np.save(out("tiny.npy"), np.arange(6, dtype=np.float32).reshape(2, 3))
np.save(out("tiny_fortran.npy"), np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3)))

truncate_copy("tiny.safetensors", "damaged.safetensors", os.path.getsize(out("tiny.safetensors")) - 5)
truncate_copy("tiny.gguf", "damaged.gguf", 200)
truncate_copy("tiny.npy", "damaged.npy", os.path.getsize(out("tiny.npy")) - 3)
