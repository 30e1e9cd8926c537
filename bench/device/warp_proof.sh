#!/usr/bin/env bash
# Issue 19's proof on an NVIDIA GPU, from a bare checkout: install CASS, then run
# bench/warp_proof.py (every bench program in --warp cuda and --warp native mode, each in the
# HIP-on-CUDA layer's wave32 and wave64 modes; the warp and PTX programs; the wave64 proof
# programs), within about 8 minutes on one H200 with 16 cores.
#
#   bash bench/device/warp_proof.sh OUTDIR [--build-only] [--only PREFIX]... [--part NAME]...
#
# Writes OUTDIR/warp_proof.md and .json (commit them as bench/reports/warp_proof.{md,json}),
# each part's own reports under OUTDIR/parts and OUTDIR/wave64, and OUTDIR/install.log;
# scratch goes to $WORK (default /tmp/cass-warp-proof).
# Needs nvcc, python3 with scikit-build-core, pybind11, cmake and ninja; no network.
# --build-only builds everything through the layer and runs nothing (no GPU needed).
set -u
if [ $# -lt 1 ]; then
    echo "usage: bash bench/device/warp_proof.sh OUTDIR [bench/warp_proof.py options]" >&2
    exit 2
fi
OUT=$(realpath -m "$1")
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
mkdir -p "$OUT"
PY=${PYTHON:-python3}
JOBS=$(nproc)
export CMAKE_BUILD_PARALLEL_LEVEL=$JOBS
# Builds, translations and the layer's cache stay out of OUTDIR, which holds reports only.
WORK=${WORK:-${TMPDIR:-/tmp}/cass-warp-proof}
rm -rf "$WORK"
mkdir -p "$WORK"
export CASS_CACHE_DIR=$WORK/cache

# 1. CASS itself, with its C++ core (scikit-build-core: cmake and ninja), from this checkout.
start=$(date +%s)
install() {
    timeout 300 "$PY" -m pip install --no-build-isolation --no-deps -e . "$@" >>"$OUT/install.log" 2>&1
}
if ! install; then
    if grep -q externally-managed "$OUT/install.log"; then
        install --break-system-packages || { tail -20 "$OUT/install.log" >&2; exit 2; }
    else
        tail -20 "$OUT/install.log" >&2
        exit 2
    fi
fi
took=$(($(date +%s) - start))
if ! "$PY" -c "import cass_build._core" 2>>"$OUT/install.log"; then
    echo "warp_proof.sh: CASS's C++ core did not build (see $OUT/install.log)" >&2
    exit 2
fi
echo "warp_proof.sh: installed in ${took} s" >&2

# 2. The runs, bounded: the parts past the budget are skipped and listed in the report.
"$PY" bench/warp_proof.py --out "$OUT" --work "$WORK" -j "$JOBS" --parallel-runs 4 --budget 400 \
    --install "pip install --no-build-isolation --no-deps -e . (${took} s, ${JOBS} build jobs)" "$@"
