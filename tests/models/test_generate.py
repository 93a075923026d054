"""test_generate.py: `wick generate`'s text and sampling (tools/cmd_generate.c, models/tokenizer.h, llama sampling)
on the tiny Llama of tests/models/tiny_llama/, with vocabularies attached in a temporary directory: a GGUF copy of
tiny-llama-F32.gguf with a SentencePiece vocabulary of 256 tokens, and a copy of the Hugging Face directory with a
byte-level BPE tokenizer.json (the 256 byte tokens). Checks:
- a text prompt gives the ids tok_tool's encoding gives, and the text out is tok_tool's decoding of the ids out
  (after the prompt, to the vocabulary's EOS), for one sequence and for a batch;
- sampling: the same seed gives the same tokens, other seeds other tokens, temperature 0 (with any top-k/p/min-p)
  is greedy, top-k 1 is greedy at any temperature, a batch of copies draws apart and greedy copies agree;
- errors: bad sampling values, --prompt on a model without a vocabulary, an unsupported vocabulary (with --prompt;
  with --prompt-ids it prints ids after one warning line), an empty prompt, both or neither prompt option.

Usage: test_generate.py WICK TOK_TOOL [--device D]   (on a GPU, decoding replays the graph and samples after it)"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

from safetensors.numpy import load_file

import gguf

HERE = pathlib.Path(__file__).resolve().parent
TINY = HERE / "tiny_llama"
sys.path.insert(0, str(HERE))
import tiny_llama_gguf  # noqa: E402

DEVICE = "cpu"
TEXT = "the quick brown fox jumps over the lazy dog while hello world waits"


def spm_vocab(writer):
    """A SentencePiece vocabulary of 256 tokens (the model's): specials, "▁" and printable ASCII, then pieces of
    TEXT's words (scored shortest and most frequent first), then letter pairs."""
    tokens = ["<unk>", "<s>", "</s>", "\u2581"] + [chr(c) for c in range(33, 127)]
    counts = {}
    for word in ("\u2581" + TEXT.replace(" ", " \u2581")).split(" "):
        for n in range(2, 6):
            for i in range(len(word) - n + 1):
                counts[word[i:i + n]] = counts.get(word[i:i + n], 0) + 1
    extra = sorted(counts, key=lambda p: (len(p), -counts[p], p))
    pairs = [a + b for a in "etaoinshrdlu" for b in "etaoinshrdlu"]
    tokens += [p for p in extra + pairs if p not in tokens][:256 - len(tokens)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.NORMAL] * 253
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * 3 + [-float(i) for i in range(253)])
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    writer.add_add_bos_token(True)


def bert_vocab(writer):
    writer.add_tokenizer_model("bert")
    writer.add_token_list(["[PAD]"] * 256)


def gguf_with_vocab(vocab, path):
    """tiny-llama-F32.gguf again (tiny_llama_gguf.write) with vocab(writer) adding a vocabulary."""
    cfg = json.loads((TINY / "config.json").read_text())
    cfg.setdefault("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    if "rope_parameters" in cfg:
        cfg["rope_scaling"] = cfg["rope_parameters"]
        cfg["rope_theta"] = cfg["rope_parameters"]["rope_theta"]
    plain = gguf.GGUFWriter

    class VocabWriter(plain):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            vocab(self)

    tiny_llama_gguf.gguf.GGUFWriter = VocabWriter
    try:
        tiny_llama_gguf.write(cfg, load_file(str(TINY / "model.safetensors")), "F32", path)
    finally:
        tiny_llama_gguf.gguf.GGUFWriter = plain
    return path


def hf_with_bytes(tmp):
    """The Hugging Face directory with a byte-level BPE tokenizer.json of the 256 byte tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    d = pathlib.Path(tmp, "hf-bpe")
    shutil.copytree(TINY, d, ignore=shutil.ignore_patterns("*.gguf", "*.npz"))
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    tok = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.save(str(d / "tokenizer.json"))
    return d


def wick(exe, model, *args):
    r = subprocess.run([exe, "generate", str(model), "--device", DEVICE, *map(str, args)], capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace").strip()


def tool(exe, model, mode, line):
    r = subprocess.run([exe, str(model), mode], input=(line + "\n").encode(), capture_output=True)
    return r.stdout.decode().strip()


def ids_of(out):
    return [[int(x) for x in line.split(",")] for line in out.decode().strip().split("\n")]


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok, what):
        print(f"{'ok  ' if ok else 'FAIL'} {what}")
        self.passed += bool(ok)
        self.failed += not ok


def expected_text(tok_exe, model, prompt, out, eos):
    """tok_tool's decoding of prompt + out (cut at EOS) less that of the prompt: what the CLI must print."""
    out = out[:out.index(eos)] if eos in out else out
    whole = bytes.fromhex(tool(tok_exe, model, "decode", ",".join(map(str, prompt + out))))
    head = bytes.fromhex(tool(tok_exe, model, "decode", ",".join(map(str, prompt))))
    return whole[len(head):]


def check_text(check, exe, tok_exe, model, text, name):
    prompt = [int(x) for x in tool(tok_exe, model, "encode", json.dumps(text)).split(",")]
    eos = int(tool(tok_exe, model, "info", "").split("|")[3])
    rc1, ids_text, e1 = wick(exe, model, "--prompt", text, "-n", 12, "--ids")
    rc2, ids_ids, e2 = wick(exe, model, "--prompt-ids", ",".join(map(str, prompt)), "-n", 12, "--ids")
    check(rc1 == 0 and rc2 == 0 and ids_text == ids_ids and len(prompt) > 1,
          f"{name}: --prompt {text!r} runs the ids tok_tool encodes ({len(prompt)} tokens)" +
          ("" if rc1 == 0 and rc2 == 0 else f": {e1} {e2}"))
    out = ids_of(ids_ids)[0] if rc2 == 0 else []
    rc, got, err = wick(exe, model, "--prompt", text, "-n", 12)
    want = expected_text(tok_exe, model, prompt, out, eos) + b"\n"
    check(rc == 0 and got == want, f"{name}: text out {got!r} is the decoding of {out} ({want!r})")
    rc, got, err = wick(exe, model, "--prompt", text, "-n", 6, "--batch", 3, "--temperature", 1, "--seed", 5)
    rcb, ids_b, _ = wick(exe, model, "--prompt", text, "-n", 6, "--batch", 3, "--temperature", 1, "--seed", 5, "--ids")
    parts = got.split(b"--- sequence ")
    ok = rc == 0 and rcb == 0 and len(parts) == 4 and all(
        p.split(b"\n", 1)[1] == expected_text(tok_exe, model, prompt, o, eos) + b"\n"
        for p, o in zip(parts[1:], ids_of(ids_b)))
    check(ok, f"{name}: a batch of 3 sampled copies prints each sequence's text" + (f": {err}" if rc else ""))


def check_sampling(check, exe, model):
    base = ["--prompt-ids", "1,15,100,42,7", "-n", 16, "--ids"]
    greedy = wick(exe, model, *base)
    runs = {s: wick(exe, model, *base, "--temperature", 1.0, "--seed", s) for s in (1, 2, 3)}
    again = wick(exe, model, *base, "--temperature", 1.0, "--seed", 1)
    check(greedy[0] == 0 and all(r[0] == 0 for r in runs.values()), "greedy and sampled runs succeed")
    check(again[1] == runs[1][1], f"the same seed gives the same tokens: {runs[1][1].decode().strip()}")
    check(len({r[1] for r in runs.values()}) == 3, "seeds 1, 2, 3 give three different continuations")
    check(runs[1][1] != greedy[1], "temperature 1 differs from greedy")
    t0 = wick(exe, model, *base, "--temperature", 0, "--top-k", 5, "--top-p", 0.5, "--min-p", 0.2, "--seed", 9)
    check(t0[1] == greedy[1], f"temperature 0 is greedy whatever the other options: {greedy[1].decode().strip()}")
    k1 = wick(exe, model, *base, "--temperature", 3.0, "--top-k", 1, "--seed", 4)
    check(k1[1] == greedy[1], "top-k 1 is greedy at temperature 3")
    mp = wick(exe, model, *base, "--temperature", 3.0, "--min-p", 1.0, "--seed", 4)
    check(mp[1] == greedy[1], "min-p 1 keeps only the most likely token (greedy)")
    tp = wick(exe, model, *base, "--temperature", 0.7, "--top-p", 0.9, "--top-k", 40, "--min-p", 0.01, "--seed", 8)
    check(tp[0] == 0 and all(0 <= i < 256 for i in ids_of(tp[1])[0]) and len(ids_of(tp[1])[0]) == 16,
          "top-k, top-p and min-p together give 16 ids in the vocabulary")
    gb = wick(exe, model, *base, "--batch", 3)
    check(gb[0] == 0 and ids_of(gb[1]) == ids_of(greedy[1]) * 3, "greedy copies of a batch of 3 agree with batch 1")
    sb = wick(exe, model, *base, "--batch", 3, "--temperature", 1.0, "--seed", 1)
    sb2 = wick(exe, model, *base, "--batch", 3, "--temperature", 1.0, "--seed", 1)
    rows = ids_of(sb[1]) if sb[0] == 0 else []
    check(len(rows) == 3 and len({tuple(r) for r in rows}) == 3 and sb2[1] == sb[1],
          "sampled copies of a batch of 3 draw apart, the same again with the same seed")


def check_errors(check, exe, spm, tmp):
    bert = gguf_with_vocab(bert_vocab, pathlib.Path(tmp, "bert.gguf"))
    one = ["--prompt-ids", "1,2"]
    cases = [("temperature -1", wick(exe, spm, *one, "--temperature", -1), 1, "temperature"),
             ("top-p 1.5", wick(exe, spm, *one, "--top-p", 1.5), 1, "top-p"),
             ("min-p -0.1", wick(exe, spm, *one, "--min-p", -0.1), 1, "min-p"),
             ("temperature nan", wick(exe, spm, *one, "--temperature", "nan"), 2, "usage"),
             ("top-k -1", wick(exe, spm, *one, "--top-k", -1), 2, "usage"),
             ("batch 0", wick(exe, spm, *one, "--batch", 0), 2, "usage"),
             ("--prompt and --prompt-ids", wick(exe, spm, *one, "--prompt", "hi"), 2, "usage"),
             ("--prompt on a model without a vocabulary", wick(exe, TINY / "tiny-llama-F32.gguf", "--prompt", "hi"),
              1, "no vocabulary"),
             ("--prompt on a directory without tokenizer.json", wick(exe, TINY, "--prompt", "hi"), 1, "--prompt-ids"),
             ("--prompt on an unsupported vocabulary", wick(exe, bert, "--prompt", "hi"), 1, "'bert' is not supported"),
             ("empty --prompt", wick(exe, spm, "--prompt", ""), 1, "empty")]
    for what, (rc, out, err), want_rc, want in cases:
        one_line = want_rc == 2 or err.count("\n") == 0
        check(rc == want_rc and want in err and one_line, f"error: {what}: exit {rc}: {err.splitlines()[0] if err else ''}")
    rc, out, err = wick(exe, bert, *one, "-n", 4)
    check(rc == 0 and len(ids_of(out)[0]) == 4 and "printing token ids" in err and err.count("\n") == 1,
          f"an unsupported vocabulary with --prompt-ids prints ids after one warning: {err.splitlines()[0]}")


def main():
    global DEVICE
    p = argparse.ArgumentParser()
    p.add_argument("wick")
    p.add_argument("tok_tool")
    p.add_argument("--device", default="cpu")
    a = p.parse_args()
    exe, tok_exe, DEVICE = a.wick, a.tok_tool, a.device
    check = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        spm = gguf_with_vocab(spm_vocab, pathlib.Path(tmp, "tiny-spm.gguf"))
        check_text(check, exe, tok_exe, spm, "hello world, the quick fox", "SentencePiece GGUF")
        check_text(check, exe, tok_exe, hf_with_bytes(tmp), "héllo wörld 👍 1234", "byte-level tokenizer.json")
        check_sampling(check, exe, spm)
        check_errors(check, exe, spm, tmp)
    print(f"{check.passed} passed, {check.failed} failed")
    sys.exit(1 if check.failed else 0)


if __name__ == "__main__":
    main()
