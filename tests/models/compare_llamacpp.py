"""compare_llamacpp.py: models/tokenizer.h (tok_tool) against llama.cpp's own llama_tokenize / llama_detokenize
(llamacpp_tokenize.cpp, built from ../shared/anchors/llama-bench/llama.cpp, b11312) on the vocabularies and texts of
test_tokenizer.py: GPT-2 BPE GGUFs with tokenizer.ggml.pre gpt-2, default and llama-bpe (special tokens parsed), and
SentencePiece GGUFs with and without the space prefix (special tokens parsed and not). Not run by ctest (it needs
a llama.cpp build); prints each comparison. Decoding differs by design (llama.cpp keeps the space after a leading
BOS and, for BPE, removes the spaces tokenizers keeps before punctuation): decode counts are informational.

Usage: compare_llamacpp.py TOK_TOOL LLAMACPP_TOKENIZE"""
import json
import pathlib
import subprocess
import sys
import tempfile

import test_tokenizer as T


def run(cmd, lines):
    r = subprocess.run(cmd, input="".join(line + "\n" for line in lines), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{cmd}: {r.stderr}")
    return r.stdout.splitlines()


def compare(wick, lcpp, name, path, texts, special):
    mine = run([wick, path, "encode-special" if special else "encode"], [json.dumps(t) for t in texts])
    ref = run([lcpp, path, "encs" if special else "enc"], [t.encode().hex() for t in texts])
    bad = [(t, a, b) for t, a, b in zip(texts, mine, ref) if a != b]
    dec = sum(a == b for a, b in zip(run([wick, path, "decode"], ref), run([lcpp, path, "dec"], ref)))
    print(f"{'ok  ' if not bad else 'FAIL'} {name} (special {special}): encode {len(texts) - len(bad)}/{len(texts)} "
          f"identical; decode {dec}/{len(texts)} identical (informational)")
    for t, a, b in bad[:3]:
        print(f"  {t!r}\n    wick      {a}\n    llama.cpp {b}")
    return len(bad) > 0


def main():
    wick, lcpp = sys.argv[1], sys.argv[2]
    texts = T.load_texts(pathlib.Path(__file__).resolve().parent / "sentences.txt")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for pre in ("gpt-2", "default", "llama-bpe"):
            path = str(pathlib.Path(tmp, f"bpe-{pre}.gguf"))
            T.write_bpe_gguf(T.train_bpe(texts, pre), path, pre)
            bad += compare(wick, lcpp, f"BPE {pre}", path, texts + T.SPECIAL, True)
        for dummy in (True, False):
            path = str(pathlib.Path(tmp, f"spm-{dummy}.gguf"))
            T.write_spm_gguf(T.train_spm(texts, dummy), path, dummy)
            for special in (False, True):
                extra = ["<s>hello world</s>", "hi<s>there", "<unk></s></s>", " <s> x"] if special else []
                bad += compare(wick, lcpp, f"SentencePiece (space prefix {dummy})", path, texts + extra, special)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
