#!/usr/bin/env python3
"""make_tokenizer_seeds.py: the seed corpus of fuzz_tokenizer (fuzz/corpus/tokenizer/): small vocabularies as the
tokenizer reads them. A SentencePiece GGUF (scores, token types, <0xNN> byte tokens), a GPT-2 BPE GGUF (llama-bpe,
merges), and a byte-level BPE tokenizer.json trained by `tokenizers` (written after fuzz_tokenizer's 'J' byte).
Run with the scripts' venv: .venv/bin/python3 fuzz/make_tokenizer_seeds.py"""
import os
import sys

import gguf
from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "tokenizer")
TEXTS = ["Hello, world!", "the quick brown fox jumps over the lazy dog", "naïve café 東京 12345", "x = y + 1;"] * 8


def write(path, kv):
    w = gguf.GGUFWriter(path, "llama")
    kv(w)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def spm(w):
    tokens = [b"<unk>", b"<s>", b"</s>"] + [("<0x%02X>" % i).encode() for i in range(256)]
    words = ["\u2581", "\u2581the", "\u2581a", "e", "t", "h", "he", "\u2581he", "o", "l", "lo", "\u2581Hello", ","]
    tokens += [x.encode() for x in words]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.BYTE] * 256
    types += [gguf.TokenType.NORMAL] * len(words)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * 259 + [-float(i) for i in range(len(words))])
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(True)


def bpe_tokenizer():
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(TEXTS, trainers.BpeTrainer(vocab_size=300, special_tokens=["<|begin_of_text|>",
                                                                                        "<|end_of_text|>"],
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def bpe(w, tok):
    import json
    data = json.loads(tok.to_str())
    vocab = tok.get_vocab(with_added_tokens=True)
    rev = {i: t for t, i in vocab.items()}
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("llama-bpe")
    w.add_token_list([rev[i] for i in range(len(rev))])
    w.add_token_types([gguf.TokenType.CONTROL if i < 2 else gguf.TokenType.NORMAL for i in range(len(rev))])
    w.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]])
    w.add_bos_token_id(0)
    w.add_eos_token_id(1)


def main():
    os.makedirs(OUT, exist_ok=True)
    write(os.path.join(OUT, "spm.gguf"), spm)
    tok = bpe_tokenizer()
    write(os.path.join(OUT, "bpe.gguf"), lambda w: bpe(w, tok))
    with open(os.path.join(OUT, "tokenizer-json"), "wb") as f:
        f.write(b"J" + tok.to_str().encode())
    for name in sorted(os.listdir(OUT)):
        print(name, os.path.getsize(os.path.join(OUT, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
