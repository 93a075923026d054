"""test_tokenizer.py: models/tokenizer.h (through tok_tool) against the reference packages, on the texts of
sentences.txt (ASCII, punctuation, accents, combining marks, other scripts, CJK, emoji, numbers, code, control
characters, whitespace runs) and the extra texts below (code, line breaks, contractions, long digit runs):
- GPT-2 byte-level BPE: a small BPE trained in-process by `tokenizers` (BpeTrainer) with GPT-2's ByteLevel
  pre-tokenizer, with Llama 3's Split regex (ignore_merges, BOS by TemplateProcessing) and with llama.cpp's
  "default" expressions as isolated Splits, each written as a GGUF (gguf-py's GGUFWriter, as llama.cpp's converter
  writes tokens, types and merges; tokenizer.ggml.pre gpt-2, llama-bpe, default) and, the first two, as
  tokenizer.json: ids identical to tokenizers' encode (special tokens written in the text included), text identical
  to its decode (and to the input);
- SentencePiece: a tiny BPE model trained in-process by `sentencepiece` (byte fallback, identity normalization,
  with and without the dummy prefix) written into a GGUF as the converter writes it (tokens, scores, types): ids
  identical to sentencepiece's encode (BOS first), text identical to its decode;
- decode of random id sequences (byte tokens split inside characters included) against both decoders;
- errors: a vocabulary it does not support, damaged vocabularies (wrong types, counts, ids, merges), no vocabulary.

Usage: test_tokenizer.py TOK_TOOL SENTENCES_TXT"""
import io
import json
import pathlib
import random
import subprocess
import sys
import tempfile

import gguf
import sentencepiece as spm
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
          r"\s*[\r\n]+|\s+(?!\S)|\s+")
# llama.cpp's "default" pre-tokenizer (llama-vocab.cpp): each expression splits the pieces of the one before.
DEFAULT = [r"[\p{P}\$\+<=>\^~\|]+", r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)",
           r"\p{N}+", r"[0-9][0-9][0-9]"]
EXTRA = [
    "def f(x):\n    return x * 2\n\n\nprint(f(21))",
    "for (int i = 0; i < n; i++) {\n\tsum += a[i];\n}",
    "if x == 1:\r\n    pass\r\n",
    "I'm sure they'll say it's what we've done; I'D SAY IT'S FINE, YOU'RE RIGHT",
    "1234567890 12345 3.14159 -42 1e-10 0x1F 2026-11-26",
    "   leading spaces and trailing spaces   ",
    "tabs\tand\t\ttabs \t mixed \n\n newlines \n",
    "  \n  ",
    " ",
    "\n",
    "a",
    "multiple     internal      spaces",
    "émigré naïve café Ünïcödé ß Æsir ŒUVRE",
    "日本語のテキストと English の混在。中文句子，还有标点！한국어 문장도 있습니다.",
    "emoji 👍🏽 family 👨‍👩‍👧‍👦 flags 🇫🇷🇯🇵 and ✨ sparkles ✨",
    "math: ∑_{i=1}^{n} x_i² ≤ ∞ ≠ ∅ → λx.x",
    "<html><body class=\"main\">Hello &amp; welcome</body></html>",
    "SELECT name, COUNT(*) FROM users WHERE age >= 21 GROUP BY name;",
    "path/to/file_name-v2.tar.gz and C:\\Windows\\System32",
    "email me at someone@example.com or visit https://example.org/a?b=c&d=e#frag",
    "$$$ %%% ^^^ &&& *** ((( ))) ___ +++ === ||| ~~~ ``` '''",
    "Ünïcode\u00a0non-breaking\u2003em\u3000ideographic spaces",
    "zero\u200bwidth\u200cjoiners\u200d and \ufeff BOM",
    "mixed 42abc abc42 4a2b 1,000,000.00 ١٢٣ ٤٥٦ Ⅻ ½",
    "don't won't can't shouldn't y'all 'quoted' ''double''",
    "Καλημέρα κόσμε, Здравствуй мир, שלום עולם, مرحبا بالعالم",
]


# Special tokens written in the text: tokenizers splits them out (tok_tool encode-special, as `wick generate`).
SPECIAL = ["<|begin_of_text|>Hello<|end_of_text|> world", "x<|end_of_text|><|end_of_text|>y",
           " <|begin_of_text|> spaced <|end_of_text|>\n", "<|begin_of_text|", "<|end_of_text|>"]


def check_spm_special(exe, path, sp):
    """llama.cpp's parse_special on a SentencePiece vocabulary: control tokens' texts become their ids, the text
    between them encoded on its own (with its own space prefix); plain encode keeps them as text."""
    cases = [("<s>hello world</s>", [1, 1] + sp.encode("hello world") + [2]),
             ("hi<s>there", [1] + sp.encode("hi") + [1] + sp.encode("there")),
             ("<unk></s></s>", [1, 0, 2, 2])]
    rc, got, err = tool(exe, path, "encode-special", [json.dumps(t) for t, _ in cases])
    rc2, plain, _ = tool(exe, path, "encode", [json.dumps(cases[0][0])])
    ok = rc == 0 and [parse_ids(g) for g in got] == [w for _, w in cases] and rc2 == 0 and \
        parse_ids(plain[0]) == [1] + sp.encode(cases[0][0])
    print(f"{'ok  ' if ok else 'FAIL'} SentencePiece GGUF: control tokens written in the text become their ids" +
          ("" if ok else f": {got} {plain} {err}"))
    return 0 if ok else 1


def load_texts(path):
    out = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("# ") or not line.strip() and not line:
            continue
        if line.startswith("esc: "):
            line = line[5:].encode("latin-1", "backslashreplace").decode("unicode_escape")
        out.append(line)
    return out + EXTRA


def corpus(texts):
    rnd = random.Random(7)
    words = " ".join(texts).split()
    gen = [" ".join(rnd.choice(words) for _ in range(rnd.randint(3, 20))) for _ in range(3000)]
    return [t for t in texts if "\n" not in t] + gen


def tool(exe, model, mode, lines):
    r = subprocess.run([exe, str(model), mode], input="".join(l + "\n" for l in lines), capture_output=True,
                       text=True, encoding="utf-8")
    return r.returncode, r.stdout.splitlines(), r.stderr.strip()


def parse_ids(line):
    return [int(x) for x in line.split(",")] if line else []


def compare(name, exe, model, texts, encode, decode, mode="encode"):
    """Encode every text with tok_tool and the reference; decode the reference's ids with both (and to the text
    again, special tokens aside)."""
    rc, got, err = tool(exe, model, mode, [json.dumps(t) for t in texts])
    if rc != 0 or len(got) != len(texts):
        print(f"FAIL {name}: encode exit {rc}: {err}")
        return 1
    want = [encode(t) for t in texts]
    bad = [(t, g, w) for t, g, w in zip(texts, got, want) if parse_ids(g) != w]
    for t, g, w in bad[:3]:
        print(f"  {name}: {t!r}\n    wick {g}\n    ref  {w}")
    rc, dec, err = tool(exe, model, "decode", [",".join(map(str, w)) for w in want])
    dbad = [(t, d, w) for t, d, w in zip(texts, dec, want) if bytes.fromhex(d).decode("utf-8", "replace") != decode(w)
            or decode(w) != t and "<|" not in t] if rc == 0 else texts
    for t, d, w in dbad[:3] if rc == 0 else []:
        print(f"  {name} decode: {t!r}: wick {bytes.fromhex(d)!r} ref {decode(w)!r}")
    ok = not bad and not dbad and rc == 0
    ntok = sum(len(w) for w in want)
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {len(texts)} texts ({ntok} tokens): encode {len(texts) - len(bad)} "
          f"identical, decode {len(texts) - len(dbad)} identical{'' if rc == 0 else ': ' + err}")
    return 0 if ok else 1


def compare_random(name, exe, model, n_vocab, decode, skip=()):
    """Decode of random id sequences (byte tokens cut inside characters included), compared as lossy UTF-8."""
    rnd = random.Random(11)
    seqs = [[rnd.randrange(n_vocab) for _ in range(rnd.randint(1, 30))] for _ in range(200)]
    seqs = [[i for i in s if i not in skip] or [5] for s in seqs]
    rc, dec, err = tool(exe, model, "decode", [",".join(map(str, s)) for s in seqs])
    bad = [(s, d) for s, d in zip(seqs, dec) if bytes.fromhex(d).decode("utf-8", "replace") != decode(s)]
    for s, d in bad[:3]:
        print(f"  {name}: {s}: wick {bytes.fromhex(d)!r} ref {decode(s)!r}")
    ok = rc == 0 and not bad and len(dec) == len(seqs)
    print(f"{'ok  ' if ok else 'FAIL'} {name}: random decode of {len(seqs)} sequences, {len(seqs) - len(bad)} identical")
    return 0 if ok else 1


def train_bpe(texts, pre):
    """A byte-level BPE with the pre-tokenizer pre names in a GGUF: "gpt-2" (ByteLevel's own regex), "llama-bpe"
    (Llama 3's Split, ignore_merges, BOS added) or "default" (llama.cpp's four expressions as isolated Splits)."""
    llama3 = pre == "llama-bpe"
    tok = Tokenizer(models.BPE(ignore_merges=llama3))
    isolated = [pre_tokenizers.Split(Regex(r), behavior="isolated", invert=False)
                for r in ([LLAMA3] if llama3 else DEFAULT if pre == "default" else [])]
    if isolated:
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            isolated + [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    else:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    specials = ["<|begin_of_text|>", "<|end_of_text|>"]
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus(texts), trainer)
    if llama3:
        tok.post_processor = processors.TemplateProcessing(single="<|begin_of_text|> $A",
                                                           special_tokens=[("<|begin_of_text|>", 0)])
    return tok


def write_bpe_gguf(tok, path, pre):
    """As llama.cpp's convert_hf_to_gguf.py writes a GPT-2 vocabulary (get_vocab_base + SpecialVocab's merges)."""
    data = json.loads(tok.to_str())
    vocab = tok.get_vocab(with_added_tokens=True)
    rev = {i: t for t, i in vocab.items()}
    added = {a["id"]: a for a in data["added_tokens"]}
    tokens = [rev[i] for i in range(len(rev))]
    types = [gguf.TokenType.CONTROL if i in added and added[i]["special"] else gguf.TokenType.NORMAL
             for i in range(len(rev))]
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(vocab["<|begin_of_text|>"])
    w.add_eos_token_id(vocab["<|end_of_text|>"])
    w.add_add_bos_token(pre == "llama-bpe")
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def train_spm(texts, dummy_prefix):
    m = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus(texts)), model_writer=m, vocab_size=1600,
                                   model_type="bpe", byte_fallback=True, normalization_rule_name="identity",
                                   remove_extra_whitespaces=False, split_digits=True, add_dummy_prefix=dummy_prefix,
                                   allow_whitespace_only_pieces=True, character_coverage=0.98, unk_id=0, bos_id=1,
                                   eos_id=2, pad_id=-1, minloglevel=2)
    return spm.SentencePieceProcessor(model_proto=m.getvalue())


def write_spm_gguf(sp, path, dummy_prefix):
    """As llama.cpp's converter (_create_vocab_sentencepiece) writes a SentencePiece vocabulary."""
    tokens, scores, types = [], [], []
    for i in range(sp.get_piece_size()):
        tokens.append(sp.id_to_piece(i).encode("utf-8"))
        scores.append(sp.get_score(i))
        types.append(gguf.TokenType.UNKNOWN if sp.is_unknown(i) else gguf.TokenType.CONTROL if sp.is_control(i)
                     else gguf.TokenType.UNUSED if sp.is_unused(i) else gguf.TokenType.BYTE if sp.is_byte(i)
                     else gguf.TokenType.NORMAL)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(sp.bos_id())
    w.add_eos_token_id(sp.eos_id())
    w.add_unk_token_id(sp.unk_id())
    w.add_add_bos_token(True)
    w.add_add_space_prefix(dummy_prefix)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def gguf_with(path, kv):
    """A GGUF holding only the given (key, writer method, value) metadata."""
    w = gguf.GGUFWriter(str(path), "llama")
    for key, kind, val in kv:
        if kind == "str":
            w.add_string(key, val)
        elif kind == "arr":
            w.add_array(key, val)
        elif kind == "u32":
            w.add_uint32(key, val)
        elif kind == "i32arr":
            w.add_key_value(key, val, gguf.GGUFValueType.ARRAY, sub_type=gguf.GGUFValueType.INT32)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def check_errors(exe, tmp):
    t = pathlib.Path(tmp)
    toks = ["<unk>", "<s>", "</s>", "a", "b"]
    base = [("tokenizer.ggml.model", "str", "llama"), ("tokenizer.ggml.tokens", "arr", toks)]
    cases = [
        ("no vocabulary", gguf_with(t / "none.gguf", [("general.name", "str", "x")]), "no vocabulary"),
        ("unsupported model", gguf_with(t / "bert.gguf", [("tokenizer.ggml.model", "str", "bert"),
                                                          ("tokenizer.ggml.tokens", "arr", toks)]), "--prompt-ids"),
        ("unsupported pre", gguf_with(t / "pre.gguf", [("tokenizer.ggml.model", "str", "gpt2"),
                                                       ("tokenizer.ggml.pre", "str", "qwen2"),
                                                       ("tokenizer.ggml.tokens", "arr", toks)]), "qwen2"),
        ("no tokens", gguf_with(t / "notok.gguf", base[:1]), "tokenizer.ggml.tokens"),
        ("tokens not strings", gguf_with(t / "tokint.gguf", [base[0], ("tokenizer.ggml.tokens", "arr", [1, 2])]),
         "tokenizer.ggml.tokens"),
        ("types of another count", gguf_with(t / "types.gguf", base + [("tokenizer.ggml.token_type", "i32arr",
                                                                        [1, 1])]), "elements"),
        ("type out of range", gguf_with(t / "type9.gguf", base + [("tokenizer.ggml.token_type", "i32arr",
                                                                   [2, 3, 3, 9, 1])]), "type 9"),
        ("bad byte token", gguf_with(t / "byte.gguf", base + [("tokenizer.ggml.token_type", "i32arr",
                                                               [2, 3, 3, 6, 1])]), "<0xNN>"),
        ("bos past the vocabulary", gguf_with(t / "bos.gguf", base + [("tokenizer.ggml.bos_token_id", "u32", 5)]),
         "bos_token_id"),
        ("BPE without merges", gguf_with(t / "nomerge.gguf", [("tokenizer.ggml.model", "str", "gpt2"),
                                                              ("tokenizer.ggml.tokens", "arr", toks)]), "merges"),
        ("bad merge", gguf_with(t / "merge.gguf", [("tokenizer.ggml.model", "str", "gpt2"),
                                                   ("tokenizer.ggml.tokens", "arr", toks),
                                                   ("tokenizer.ggml.merges", "arr", ["ab"])]), "merge 0"),
        ("missing file", t / "nope.gguf", "cannot open"),
        ("directory without tokenizer.json", t, "no tokenizer.json"),
    ]
    bl = {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}
    good = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}, "pre_tokenizer": bl}
    hf_cases = [
        ("WordPiece tokenizer.json", {"model": {"type": "WordPiece", "vocab": {"a": 0}}}, "byte-level BPE"),
        ("byte-fallback BPE (SentencePiece-style)", dict(good, model=dict(good["model"], byte_fallback=True)),
         "byte-level BPE"),
        ("a normalizer", dict(good, normalizer={"type": "NFC"}), "normalizer"),
        ("another pre-tokenizer", dict(good, pre_tokenizer={"type": "Whitespace"}), "pre_tokenizer"),
        ("ByteLevel with a prefix space", dict(good, pre_tokenizer=dict(bl, add_prefix_space=True)), "pre_tokenizer"),
        ("Split with another regex", dict(good, pre_tokenizer={"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated", "invert": False},
            dict(bl, use_regex=False)]}), "pre_tokenizer"),
        ("a negative id", dict(good, model=dict(good["model"], vocab={"a": -1})), "not in [0, 2^24)"),
        ("an id of 2^24", dict(good, model=dict(good["model"], vocab={"a": 1 << 24})), "not in [0, 2^24)"),
        ("a hole in the ids", dict(good, model=dict(good["model"], vocab={"a": 0, "b": 2})), "no token has id 1"),
        ("a merge that is not a pair", dict(good, model=dict(good["model"], merges=["ab"])), "merge 0"),
        ("a merge of three", dict(good, model=dict(good["model"], merges=[["a", "b", "c"]])), "merges[0]"),
        ("merges not an array", dict(good, model=dict(good["model"], merges="a b")), "model.merges"),
        ("an added token without an id", dict(good, added_tokens=[{"content": "<s>"}]), "added_tokens[0]"),
    ]
    for i, (what, tj, want) in enumerate(hf_cases):
        d = t / f"hf{i}"
        d.mkdir()
        (d / "tokenizer.json").write_text(json.dumps(tj))
        cases.append((what, d, want))
    d = t / "hfjunk"
    d.mkdir()
    (d / "tokenizer.json").write_text('{"model": {"type": "BPE", ')
    cases.append(("tokenizer.json cut short", d, "line 1"))
    d = t / "hfok"
    d.mkdir()
    (d / "tokenizer.json").write_text(json.dumps(good))
    rc, out, err = tool(exe, d, "encode", [json.dumps("abab ba")])
    ok_hf = rc == 0 and out == ["2,2,1,0"]
    print(f"{'ok  ' if ok_hf else 'FAIL'} a handmade tokenizer.json encodes 'abab ba' as 2,2,1,0: {out} {err}")
    bad = 0
    for what, path, want in cases:
        rc, _, err = tool(exe, path, "info", [])
        ok = rc == 1 and want in err and "\n" not in err
        print(f"{'ok  ' if ok else 'FAIL'} error: {what}: {err}")
        bad += not ok
    return bad + (not ok_hf), len(cases) + 1


def main():
    exe, sentences = sys.argv[1], sys.argv[2]
    texts = load_texts(sentences)
    print(f"{len(texts)} texts")
    bad = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for pre in ("gpt-2", "llama-bpe", "default"):
            tok = train_bpe(texts, pre)
            path = pathlib.Path(tmp, f"bpe-{pre}.gguf")
            write_bpe_gguf(tok, path, pre)
            hf = pathlib.Path(tmp, f"hf-{pre}")
            hf.mkdir()
            tok.save(str(hf / "tokenizer.json"))
            (hf / "config.json").write_text(json.dumps({"eos_token_id": tok.token_to_id("<|end_of_text|>")}))
            enc = lambda t, tok=tok: tok.encode(t).ids
            dec = lambda ids, tok=tok: tok.decode(ids, skip_special_tokens=True)
            models_ = [(f"BPE {pre} GGUF", path)] + ([(f"BPE {pre} tokenizer.json", hf)] if pre != "default" else [])
            for name, model in models_:
                bad += compare(name, exe, model, texts + SPECIAL, enc, dec, "encode-special")
                bad += compare_random(name, exe, model, tok.get_vocab_size(), dec)
                total += 2
        for dummy in (True, False):
            sp = train_spm(texts, dummy)
            path = pathlib.Path(tmp, f"spm-{dummy}.gguf")
            write_spm_gguf(sp, path, dummy)
            name = f"SentencePiece GGUF ({'dummy prefix' if dummy else 'no dummy prefix'})"
            bad += compare(name, exe, path, texts, lambda t, sp=sp: [sp.bos_id()] + sp.encode(t), sp.decode)
            bad += compare_random(name, exe, path, sp.get_piece_size(), sp.decode, skip=(0,))
            total += 2
            if dummy:
                bad += check_spm_special(exe, path, sp)
                total += 1
        b, n = check_errors(exe, tmp)
    print(f"{total + n - bad - b} passed, {bad + b} failed")
    sys.exit(1 if bad or b else 0)


if __name__ == "__main__":
    main()
