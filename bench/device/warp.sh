#!/usr/bin/env bash
# Issue 19's warp mode on an NVIDIA GPU (the H200): the bench's warp programs and the main
# bench programs, translated in --warp cuda and --warp native, run through the HIP-on-CUDA
# layer in its wave32 and wave64 modes (cass bench --wave 32,64).
#
#   bash bench/device/warp.sh OUT_DIR
#
# From a bare checkout with nvcc, python 3.12, onnxruntime, scikit-build-core and pybind11
# (no network). Writes OUT_DIR/{install.log, warp-cuda.md/.json, warp-native.md/.json,
# bench-cuda.md/.json, bench-native.md/.json, summary.txt}. Each step is bounded in time;
# a step that fails or times out is recorded in summary.txt and the script goes on.
set -u
out=$(realpath -m "${1:?usage: bash bench/device/warp.sh OUT_DIR}")
mkdir -p "$out"
cd "$(dirname "$0")/../.."
summary="$out/summary.txt"
: >"$summary"

step() {  # step NAME SECONDS CMD...: run, log, and note the exit status in the summary
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc after $((SECONDS - start)) s: $*" >>"$summary"
  return $rc
}

step install 600 python -m pip install --no-build-isolation --no-deps -q -e . || exit 1
python -c "import cass_build._core" || { echo "install: _core missing" >>"$summary"; exit 1; }

for mode in cuda native; do
  export CASS_WARP=$mode
  step "warp-$mode" 900 \
    python -m cass_build bench bench/warp_programs --wave 32,64 --runs 1 \
      --out "$out" --name "warp-$mode"
done
for mode in cuda native; do
  export CASS_WARP=$mode
  step "bench-$mode" 1800 \
    python -m cass_build bench bench/programs --wave 32,64 --runs 3 \
      --out "$out" --name "bench-$mode"
done
# The verdict lines of every report, for a quick look.
grep -h -E "^\| " "$out"/warp-*.md "$out"/bench-*.md >>"$summary" 2>/dev/null || true
unset CASS_WARP
cat "$summary"
