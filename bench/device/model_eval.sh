#!/usr/bin/env bash
# Issue 21's evaluation on the H200: wave64 agreement of model-only, rules-only and auto
# (--warp native) and of the --warp cuda reference, on bench/programs and the held-out
# synthesized programs. The translations were made (and compiled for gfx90a) on the
# machine with hipcc by `python bench/model_eval.py translate`; this script only runs
# them, through the HIP-on-CUDA layer in wave64 mode, against the CUDA originals.
#
#   bash bench/device/model_eval.sh OUT_DIR        # carry: build/model_eval
#
# From a bare checkout with nvcc, python 3.12, onnxruntime, scikit-build-core and pybind11
# (no network, no hipcc). The whole run is held under 9 minutes: each step gets at most
# what is left of that budget, and a step that fails or times out is recorded and the
# script goes on. Writes ONE file, OUT_DIR/model_eval_device.tar.gz, holding
# {bench,heldout}.{json,md} (cass bench reports: model, rules and auto in --warp native
# and the cuda reference as four strategies), the steps' logs and summary.json (each
# step's command, exit status and seconds). Feed it to
# `python bench/model_eval.py report --device OUT_DIR/model_eval_device.tar.gz`.
set -u
out=$(realpath -m "${1:?usage: bash bench/device/model_eval.sh OUT_DIR}")
mkdir -p "$out"
cd "$(dirname "$0")/../.."
eval_dir=build/model_eval
work=$(mktemp -d)
budget=${MODEL_EVAL_BUDGET:-530}  # seconds for everything, install included
steps=()

step() {  # step NAME CAP CMD...: run within min(CAP, budget left), log, record the status
  local name=$1 cap=$2
  shift 2
  local left=$((budget - SECONDS))
  local limit=$((cap < left ? cap : left))
  if ((limit < 10)); then
    steps+=("$name: skipped, the time budget is spent")
    return 1
  fi
  local start=$SECONDS
  timeout "$limit" "$@" >"$work/$name.log" 2>&1
  local rc=$?
  steps+=("$name: exit $rc after $((SECONDS - start)) s (limit $limit s): $*")
  return $rc
}

finish() {
  python3 - "$work/summary.json" "${steps[@]}" <<'EOF'
import json, sys
json.dump({"steps": sys.argv[2:]}, open(sys.argv[1], "w"), indent=2)
EOF
  tar -czf "$out/model_eval_device.tar.gz" -C "$work" --exclude=./trans .  # trans: links
  printf '%s\n' "${steps[@]}"
  rm -rf "$work"
}
trap finish EXIT

if [ ! -f "$eval_dir/local.json" ]; then
  steps+=("no $eval_dir/local.json: run bench/model_eval.py translate first and carry $eval_dir")
  exit 1
fi
if [ -z "${MODEL_EVAL_SKIP_INSTALL:-}" ]; then  # set it where the checkout is installed
  step install 200 python3 -m pip install --no-build-isolation --no-deps -q -e . || exit 1
fi

run_set() {  # run_set SET: every column of one set in one cass bench run (wave64)
  local set=$1
  [ -d "$eval_dir/trans/$set" ] || { steps+=("$set: no translations"); return; }
  step "$set" "$2" python3 bench/model_eval.py device --eval "$eval_dir" --set "$set" --out "$work"
}

run_set bench 240
run_set heldout 300
