"""make_tiny_llama.py: the tiny random-weight Llama that wick's generator is checked against (issue 18), made with
transformers: 2 layers, hidden 64, 4 query heads over 2 key/value heads (GQA), head dim 16, SwiGLU 128, RMSNorm,
Llama-3 rope scaling, tied embeddings, a 256-token vocabulary. Writes into OUT_DIR:
  config.json, model.safetensors      the Hugging Face model (f32)
  reference.npz                       prompt (i64), logits of every prompt position (f32, float32 forward on the CPU),
                                      greedy continuation of 32 tokens (i64), and the smallest top-1/top-2 logit
                                      margin along it (so a tie cannot make the greedy check flaky)
The GGUF twins (F32, F16, Q8_0, Q4_0) come from tiny_llama_gguf.py, which needs only numpy and gguf.
Weights are drawn with std 0.2 (transformers' default 0.02 gives near-uniform logits, whose greedy path a rounding
difference could change). Usage (where torch and transformers are installed): make_tiny_llama.py OUT_DIR"""
import json
import pathlib
import sys

import numpy as np

PROMPT = [1, 15, 100, 42, 7, 200, 3, 99]
STEPS = 32


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    import torch
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM

    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=256,
                      rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=True, initializer_range=0.2,
                      rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                    "high_freq_factor": 4.0, "original_max_position_embeddings": 32},
                      bos_token_id=1, eos_token_id=2, torch_dtype="float32")
    model = LlamaForCausalLM(cfg).eval().float()
    with torch.no_grad():  # RMSNorm weights are ones at init: make them matter
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
    model.save_pretrained(out, safe_serialization=True)
    ids = torch.tensor([PROMPT])
    with torch.no_grad():
        logits = model(ids).logits[0].float().numpy()
        gen = model.generate(ids, do_sample=False, max_new_tokens=STEPS, min_new_tokens=STEPS,
                             output_scores=True, return_dict_in_generate=True, pad_token_id=0)
    cont = gen.sequences[0, len(PROMPT):].numpy().astype(np.int64)
    margins = []
    for s in gen.scores:
        top = torch.topk(s[0].float(), 2).values
        margins.append(float(top[0] - top[1]))
    np.savez(out / "reference.npz", prompt=np.array(PROMPT, np.int64), logits=logits.astype(np.float32),
             greedy=cont, min_margin=np.array(min(margins), np.float32))
    print(f"tiny llama: {sum(p.numel() for p in model.parameters())} parameters, greedy {cont.tolist()}, "
          f"smallest top-2 margin {min(margins):.4f}, transformers {transformers.__version__}, torch {torch.__version__}")
    print(json.dumps(json.loads((out / "config.json").read_text()), indent=None)[:400])


if __name__ == "__main__":
    main()
