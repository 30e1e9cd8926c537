#!/usr/bin/env bash
# The inline-PTX programs (bench/ptx_programs) on an NVIDIA GPU: each CUDA original as
# written, and its CASS translation through the HIP-on-CUDA layer in wave32 and wave64
# modes, in both warp modes (cuda: the logical 32-lane warps; native: plain HIP, where
# the 32-lane programs are expected to differ in wave64). From a bare checkout, no network.
# Usage: bench/device/ptx.sh OUTDIR      Writes OUTDIR/{cuda,native}/ptx_programs.{md,json}
# and OUTDIR/summary.txt.
set -euo pipefail
out=${1:?usage: bench/device/ptx.sh OUTDIR}
mkdir -p "$out"
cd "$(dirname "$0")/../.."
if ! python -c "import cass_build._core" 2>/dev/null; then
  timeout 900 pip install --no-build-isolation --no-deps -q -e . >"$out/pip.log" 2>&1
fi
for warp in cuda native; do
  CASS_WARP=$warp timeout 1200 python -m cass_build bench bench/ptx_programs --wave 32,64 -j 4 \
    --out "$out/$warp" --name ptx_programs >"$out/$warp.log" 2>&1 || echo "bench ($warp) exited $?" >>"$out/summary.txt"
done
for warp in cuda native; do
  echo "== CASS_WARP=$warp" >>"$out/summary.txt"
  grep -E "^\| ptx_" "$out/$warp/ptx_programs.md" >>"$out/summary.txt" 2>/dev/null ||
    tail -20 "$out/$warp.log" >>"$out/summary.txt"
done
cat "$out/summary.txt"
