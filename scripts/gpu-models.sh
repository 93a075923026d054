#!/usr/bin/env bash
# gpu-models.sh: the models' checks on the GPU machine of the device kit (PyTorch, sentence-transformers, no
# network): all-MiniLM-L6-v2's reference embeddings (sentence-transformers, f32, CPU), `wick embed` against them
# on the CPU and the GPU, and sentences per second side by side with sentence-transformers.
#
# The f32 weights (91 MB) are more than one device call carries, so they travel in two parts: a first call runs
# `stage` with .minilm-a/ carried (model.part.aa, kept in /tmp while the machine stays warm), the next runs the
# rest with .minilm/ carried (model.part.ab, model.sha256 and the small files). Make both folders with
#   scripts/gpu-models.sh split MODEL_DIR        (on this machine: MODEL_DIR is the extracted model.zip)
# Usage: scripts/gpu-models.sh [STEP...]   steps: split stage assemble build reference test bench
# Environment: OUT (./gpu-out), BUILD_DIR (build-gpu), PYTHON (/opt/torch/.venv/bin/python3), CMAKE_ARGS.
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=${BUILD_DIR:-build-gpu}
PARTS=/tmp/wick-minilm-parts
MODEL=/tmp/wick-minilm
LOG=$OUT/models.log
SUMMARY=$OUT/models-summary.md
[ -d /usr/local/cuda/bin ] && PATH=/usr/local/cuda/bin:$PATH
if [ -z "${PYTHON:-}" ]; then
    if [ -x /opt/torch/.venv/bin/python3 ]; then PYTHON=/opt/torch/.venv/bin/python3; else PYTHON=python3; fi
fi

if [ "${1:-}" = split ]; then
    src=${2:?usage: gpu-models.sh split MODEL_DIR}
    mkdir -p .minilm .minilm-a
    (cd "$src" && find . -type f ! -name model.safetensors | cpio -pdm --quiet "$OLDPWD/.minilm")
    split -b 46000000 "$src/model.safetensors" .minilm/model.part.
    mv .minilm/model.part.aa .minilm-a/
    (cd "$src" && sha256sum model.safetensors) >.minilm/model.sha256
    exit 0
fi

steps=("$@")
source scripts/gpu-steps.sh
wick_steps_init assemble build reference test bench
[ -f "$SUMMARY" ] || printf '# Models on %s\n\n| step | result | time |\n|---|---|---|\n' \
    "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" >"$SUMMARY"

if wanted stage; then
    step stage 60 sh -c "mkdir -p $PARTS && cp .minilm-a/model.part.aa $PARTS/"
fi
if wanted assemble; then
    step assemble 60 sh -c "rm -rf $MODEL && mkdir -p $MODEL && cp -r .minilm/. $MODEL/ && \
        cat $PARTS/model.part.aa .minilm/model.part.ab >$MODEL/model.safetensors && rm -f $MODEL/model.part.* && \
        (cd $MODEL && sha256sum -c model.sha256)"
fi
if wanted build; then
    # The device kit lacks jansson and utf8proc: their Debian packages travel in .jansson/ (carried).
    if ! ldconfig -p | grep -q libutf8proc && ls .jansson/*.deb >/dev/null 2>&1; then
        for f in .jansson/*.deb; do dpkg -x "$f" /; done
        ldconfig
    fi
    step configure 120 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DWICK_CUDA=ON ${CMAKE_ARGS:-}
    step build 400 cmake --build "$BUILD" -j "$(nproc)" --target wick_cli embed_bench
fi
if wanted reference; then
    step reference 300 "$PYTHON" tests/models/make_minilm_reference.py $MODEL tests/models/sentences.txt \
        "$OUT/minilm_reference.npz"
fi
REF=${REFERENCE:-$OUT/minilm_reference.npz}
[ -f "$REF" ] || REF=tests/models/minilm_reference.npz
if wanted test; then
    for dev in cpu cuda:0; do
        for dt in f32 f16 bf16; do
            step "embed $dev $dt" 300 "$PYTHON" tests/models/test_embed.py "$BUILD/wick" $MODEL "$REF" \
                --device $dev --dtype $dt
        done
    done
fi
if wanted bench; then
    step "bench wick cpu" 600 sh -c "'$BUILD/models/embed_bench' $MODEL --device cpu >>'$OUT/embed-wick.jsonl'"
    step "bench torch cpu" 600 sh -c "'$PYTHON' bench/torch_embed.py $MODEL --device cpu >>'$OUT/embed-torch.jsonl'"
    for dt in f32 f16; do
        step "bench wick cuda $dt" 300 sh -c "'$BUILD/models/embed_bench' $MODEL --device cuda:0 --dtype $dt \
            >>'$OUT/embed-wick.jsonl'"
    done
    step "bench torch cuda" 300 sh -c "'$PYTHON' bench/torch_embed.py $MODEL --device cuda --dtype f32 f16 \
        >>'$OUT/embed-torch.jsonl'"
    { echo; "$PYTHON" bench/torch_embed.py --compare "$OUT/embed-wick.jsonl" "$OUT/embed-torch.jsonl"; } \
        >>"$SUMMARY" 2>>"$LOG"
fi
cat "$SUMMARY"
exit $failed
