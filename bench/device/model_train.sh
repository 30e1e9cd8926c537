#!/usr/bin/env bash
# Train, export and check the CASS model on one GPU (issue 21), in one command under
# 9.5 minutes, from a bare checkout with build/model_prep carried in (it is made here,
# on the CPU machine: `python -m cass_build.train.prepare build/model_data build/model_prep`).
#
#   bash bench/device/model_train.sh OUT
#
# Needs python3 with torch (CUDA), numpy and onnxruntime; tokenizers is optional (without
# it export's --check decodes with plain ONNX greedy instead of the drafted runtime). No
# network. Writes OUT/model.tar: model/{encoder.onnx,tokenizer.json,config.json},
# fit.json, agreement.json and logs/ (pip, fit, export), plus OUT/decoder.onnx and OUT/summary.txt.
#
# Knobs (environment): MODEL_MINUTES (training minutes, 6), MODEL_STEPS (a fixed step
# count, reproducible; unset: calibrated to fill MODEL_MINUTES), MODEL_SEED (0), MODEL_CHECK
# (test units export decodes both ways, 30), MODEL_DEADLINE (seconds from the start by
# which the tar is written, 565), FRESH=1 (start over instead of resuming), MODEL_COPY=1
# (train the copying model: fit --copy), MODEL_SAMPLE (fit --sample: scheduled sampling),
# MODEL_PREP (the prepared data, build/model_prep).
# The fit directory is build/model_fit inside the checkout (ignored by git): a warm
# machine keeps it between calls, and a run finds its ckpt_last.pt and resumes from it
# (the same schedule, the optimizer and the batch order included).
set -uo pipefail

OUT=${1:?usage: model_train.sh OUT}
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"

START=$(date +%s)
MINUTES=${MODEL_MINUTES:-6}
SEED=${MODEL_SEED:-0}
CHECK=${MODEL_CHECK:-30}
DEADLINE=${MODEL_DEADLINE:-565}
PY=${PYTHON:-python3}
PREP=${MODEL_PREP:-build/model_prep}
FIT=build/model_fit
LOGS=$OUT/logs
say() { echo "model_train: $*" | tee -a "$LOGS/steps.log" >&2; }
left() { echo $((DEADLINE - ($(date +%s) - START))); }

if [ ! -f "$PREP/tokens.npz" ] || [ ! -f "$PREP/tokenizer.json" ]; then
    say "$PREP/tokens.npz or tokenizer.json missing: carry build/model_prep (made by cass_build.train.prepare)"
    exit 2
fi
[ "${FRESH:-0}" = 1 ] && rm -rf "$FIT"
mkdir -p "$FIT"
export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH}

# The editable install (C++ core included) runs beside training: fit and export need only
# the pure-Python modules, found through PYTHONPATH, so a slow or failed build costs no time.
(timeout 240 "$PY" -m pip install --no-build-isolation --no-deps -q -e . >"$LOGS/pip.log" 2>&1;
    echo "pip exit $?" >>"$LOGS/pip.log") &
PIP=$!

RESUME=()
if [ -f "$FIT/ckpt_last.pt" ]; then
    RESUME=(--resume)
    say "resuming from $FIT/ckpt_last.pt"
fi
# Training stops itself at --minutes (a hard stop); the timeout is a backstop that leaves
# export its share of the deadline.
FIT_LIMIT=$(($(left) - 150))
[ "$FIT_LIMIT" -gt $((MINUTES * 60 + 90)) ] && FIT_LIMIT=$((MINUTES * 60 + 90))
# fit's own hard stop comes first: it saves a checkpoint and fit.json when it stops, which
# the timeout's kill does not (start-up and data loading take about 10 s on the H200).
FIT_MINUTES=$(awk -v m="$MINUTES" -v l="$FIT_LIMIT" 'BEGIN { c = (l - 30) / 60; print (m < c ? m : c) }')
say "fit: $FIT_MINUTES min, seed $SEED, limit ${FIT_LIMIT}s"
STEPS=()
[ -n "${MODEL_STEPS:-}" ] && STEPS=(--steps "$MODEL_STEPS")
[ "${MODEL_COPY:-0}" = 1 ] && STEPS+=(--copy)
[ -n "${MODEL_SAMPLE:-}" ] && STEPS+=(--sample "$MODEL_SAMPLE")
timeout "$FIT_LIMIT" "$PY" -m cass_build.train.fit "$PREP" "$FIT" --seed "$SEED" \
    --minutes "$FIT_MINUTES" "${STEPS[@]}" "${RESUME[@]}" >"$LOGS/fit.log" 2>&1
FIT_RC=$?
say "fit exit $FIT_RC after $(($(date +%s) - START))s"
if [ ! -f "$FIT/ckpt_last.pt" ]; then
    say "no checkpoint written: see logs/fit.log"
    tail -20 "$LOGS/fit.log" >&2
    tar -cf "$OUT/model.tar" -C "$OUT" logs
    exit 1
fi

EXPORT_LIMIT=$(($(left) - 15))
say "export: check $CHECK units, limit ${EXPORT_LIMIT}s"
rm -rf "$OUT/model"
timeout "$EXPORT_LIMIT" "$PY" -m cass_build.train.export "$FIT/ckpt_last.pt" "$PREP" \
    "$OUT/model" --check "$CHECK" >"$LOGS/export.log" 2>&1
EXPORT_RC=$?
say "export exit $EXPORT_RC after $(($(date +%s) - START))s"

wait "$PIP" 2>/dev/null  # bounded by its own timeout, which started with the script
cp "$FIT/fit.json" "$OUT/fit.json" 2>/dev/null || say "no fit.json (fit was cut off: rerun to resume)"
# The fp32 decoder alone is near the 16 MiB a returned file may have: it comes back
# beside the tar, not inside it.
[ -f "$OUT/model/decoder.onnx" ] && mv "$OUT/model/decoder.onnx" "$OUT/decoder.onnx"
MEMBERS=(logs)
for m in model fit.json agreement.json; do
    [ -e "$OUT/$m" ] && MEMBERS+=("$m")
done
tar -cf "$OUT/model.tar" -C "$OUT" "${MEMBERS[@]}"
{
    echo "fit exit $FIT_RC, export exit $EXPORT_RC, $(($(date +%s) - START)) s"
    echo "tar: ${MEMBERS[*]} ($(du -h "$OUT/model.tar" | cut -f1))"
    [ -f "$OUT/fit.json" ] && "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); \
print({k: d[k] for k in ('steps', 'steps_planned', 'resumed_from_step', 'train_seconds', 'valid_loss', 'train_units', 'device')})" "$OUT/fit.json"
    [ -f "$OUT/agreement.json" ] && cat "$OUT/agreement.json"
} | tee "$OUT/summary.txt"
# One copy of the model comes back: the tar and decoder.onnx.
rm -rf "$OUT/model" "$OUT/fit.json" "$OUT/agreement.json" "$OUT/logs"
[ "$EXPORT_RC" = 0 ] && [ -f "$OUT/summary.txt" ]
