#!/usr/bin/env bash
# One stage of the bundled model on a GPU machine lent for minutes (README.md here). Run there, in the
# repository root, with the packed encoder beside this script and $OUT a folder that comes back:
#   CONFIG=configs/train/default-stage15.yaml DATA_SEED=4 STEPS=3000 CALL_SECONDS=560 bash tools/gpu_stage/stage.sh
# CALL_SECONDS is the call's time limit: the training gets what the data leave of it, less 100 s for
# loading the data (about 40 s) and writing the checkpoint out. MINUTES instead gives the training's
# minutes outright. A call killed at its limit brings back nothing, so leave the margin.
# It synthesizes and embeds the data, trains until STEPS or MINUTES (a checkpoint either way), and
# writes the checkpoint (weights, config, normalisation, card; not the optimizer state) with the run's
# config.yaml and metrics.csv to $OUT as ck.tar.aa, ck.tar.ab, ... (15 MB pieces):
#   cat ck.tar.* | tar xf -
# A second call on the same warm machine resumes the run: RESUME=1 (the data and the cache are kept).
# EXTRA adds options to `stickgen train` (a dry run here: EXTRA="--set batch_size=16 --set device=cpu").
# PARTS=1 also embeds each part of a description of several and trains with half the clips' runs of one
# action given their parts' sentences (`text_parts` 0.5 unless EXTRA sets it; docs/training.md).
# INIT=1 trains from the checkpoint packed in tools/gpu_stage/init/ (pack_init.py; carry that folder
# too, and leave the bundled checkpoint out of the tree with slim_tree.sh): it is rebuilt as runs/init
# and given to the run as its `init`, in place of the config's.
set -o pipefail
: "${CONFIG:?set CONFIG}" "${DATA_SEED:?set DATA_SEED}" "${STEPS:?set STEPS}"
[ -n "${MINUTES:-}" ] || [ -n "${CALL_SECONDS:-}" ] || { echo "set MINUTES or CALL_SECONDS" >&2; exit 2; }
OUT=${OUT:?set OUT}; CLIPS=${CLIPS:-40000}; RUN=${RUN:-runs/stage}; DATA=${DATA:-data/synth-s$DATA_SEED}
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
export STICKGEN_MODELS_DIR=${STICKGEN_MODELS_DIR:-/tmp/stickgen-models} STICKGEN_CACHE_DIR=${STICKGEN_CACHE_DIR:-/tmp/stickgen-cache}
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
if [ -z "${RESUME:-}" ]; then
    python3 tools/gpu_stage/unpack_encoder.py || exit 1; stamp encoder
    python3 -m stickgen data synth --out "$DATA" --clips "$CLIPS" --seed "$DATA_SEED" 2>&1 | tail -2 || exit 1; stamp synth
    # The coverage check (30 s in wide-stage1's session) runs beside the embedding, which needs its result
    # only to be trusted: read its line before the training.
    python3 tools/gpu_stage/coverage.py "$DATA" > "$OUT/coverage.txt" 2>&1 &
    python3 -m stickgen data embed "$DATA" --device auto ${PARTS:+--parts} 2>&1 | tail -2 || exit 1; stamp embed
    wait; cat "$OUT/coverage.txt"; stamp coverage
fi
if [ -n "${INIT:-}" ] && [ -z "${RESUME:-}" ]; then
    python3 tools/gpu_stage/pack_init.py --unpack runs/init || exit 1; stamp init
fi
[ -n "${INIT:-}" ] && EXTRA="--set init=runs/init ${EXTRA:-}"
[ -n "${PARTS:-}" ] && EXTRA="--set text_parts=0.5 ${EXTRA:-}"
if [ -z "${MINUTES:-}" ]; then
    MINUTES=$(python3 -c "print(round(max(0.5, ($CALL_SECONDS - ($(date +%s) - $t0) - 100) / 60), 2))")
fi
stamp "training for at most $MINUTES minutes"
python3 -m stickgen train --config "$CONFIG" --data "$DATA" --out "$RUN" --set steps="$STEPS" --minutes "$MINUTES" ${EXTRA:-} \
    2>&1 | tr '\r' '\n' | grep -v "step/s" | tee "$OUT/train.log"; stamp train
tail -3 "$RUN/metrics.csv" | cut -d, -f1,3,14,17
(cd "$RUN" && tar cf - --exclude=training_state.pt "$(readlink latest)" config.yaml metrics.csv) \
    | split -b 15M - "$OUT/ck.tar."
ls -la "$OUT"; stamp done
