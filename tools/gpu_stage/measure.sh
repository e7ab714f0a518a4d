#!/usr/bin/env bash
# Measure a checkpoint brought back from a GPU stage against the bundled model, here on the CPU, as a
# model change must be measured before it may replace assets/stickgen-default (README.md here):
#   bash tools/gpu_stage/measure.sh checkpoints/step-2000 [OUT]       (OUT: default runs/measure)
# In order, each step's output in OUT (a step whose file is already there is skipped, so an
# interrupted run picks up where it stopped; delete a file to run that step again):
#   data       data/synth, the evaluation's dataset (40,000 clips, seed 0), made and embedded if missing
#   size       the checkpoint's size and parameters
#   speed      benchmarks/generate.py --sizes 256x6: a 10 s clip's model time, the candidate beside a model
#              of the bundled shape, interleaved
#   promises   the README's five promises over seeds 0-4
#   actions    data/synth's val split from the text alone, the classifier and the physical checks,
#              for both models (benchmarks/actions.py --plans none --checks)
#   suite      the prompt suite over seeds 0-9 for both, the candidate's printed beside the bundled one
#   eval       the evaluation's report for the candidate (the bundled one's is docs/results/stickgen-default)
# About two hours on 2 cores, most of it the suite and the evaluation; run it in the project's virtual
# environment (`stickgen` on the PATH). Nothing here is kept in git.
set -o pipefail
CKPT=${1:?give the checkpoint folder to measure}
OUT=${2:-runs/measure}
[ -f "$CKPT/config.json" ] || { echo "$CKPT is not a checkpoint folder (no config.json)" >&2; exit 2; }
mkdir -p "$OUT"
export HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
step() { # step NAME COMMAND...: run unless OUT/NAME.txt exists; keep its output there
    local name=$1; shift
    if [ -s "$OUT/$name.txt" ]; then echo "[$name] done before: $OUT/$name.txt"; return 0; fi
    echo "[$name] $*"
    if "$@" > "$OUT/$name.part" 2> "$OUT/$name.err"; then
        mv "$OUT/$name.part" "$OUT/$name.txt"; tail -3 "$OUT/$name.txt"
    else
        echo "[$name] failed; see $OUT/$name.err" >&2; exit 1
    fi
}
make_data() {
    [ -f data/synth/manifest.json ] || stickgen data synth --out data/synth --clips 40000 --seed 0 || return 1
    stickgen data embed data/synth && echo "data/synth ready"
}
size() {
    du -b "$CKPT"/*.safetensors && python -c "
import sys; from stickgen.checkpoint import load_checkpoint
from stickgen.model import parameter_table
print(parameter_table(load_checkpoint(sys.argv[1]).model.config))" "$CKPT"
}
both() { # both SCRIPT ARGS...: a benchmark for the bundled model, then for the candidate
    local script=$1; shift
    echo "== bundled"; python "$script" "$@" || return 1
    echo "== $CKPT"; python "$script" --checkpoint "$CKPT" "$@"
}
suite() {
    python benchmarks/prompts.py --seeds 10 --json "$OUT/suite-bundled.json" > "$OUT/suite-bundled.log" || return 1
    python benchmarks/prompts.py --checkpoint "$CKPT" --seeds 10 --json "$OUT/suite-candidate.json" \
        --compare "$OUT/suite-bundled.json"
}
step data make_data
step size size
step speed python benchmarks/generate.py --checkpoint "$CKPT" --sizes 256x6
step promises python benchmarks/promises.py --checkpoint "$CKPT" --seeds 5
step actions both benchmarks/actions.py --data data/synth --plans none --checks
step suite suite
step eval stickgen eval run --data data/synth --out "$OUT/report" --checkpoint "$CKPT" \
    --max-clips 256 --seeds 3 --mm-texts 32 --mm-repeats 5
echo "all measured: $OUT"
