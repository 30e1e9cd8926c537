#!/usr/bin/env bash
# Issue 19's proof on an NVIDIA GPU, from a bare checkout: install CASS, then run
# bench/warp_proof.py (every bench program in --warp cuda and --warp native mode, each in the
# HIP-on-CUDA layer's wave32 and wave64 modes; the warp and PTX programs; the wave64 proof
# programs), all of it within 8.5 minutes on one H200 with 16 cores.
#
#   bash bench/device/warp_proof.sh OUTDIR [--build-only] [--only PREFIX]... [--part NAME]...
#
# Writes one file, OUTDIR/warp_proof.tar.gz: warp_proof.md and .json (commit them as
# bench/reports/warp_proof.{md,json}), each part's own reports under parts/ and wave64/,
# and install.log. Failing runs keep the tails of what both sides printed (the JSON; the
# Markdown shows their first lines). Builds and scratch go to $WORK (default
# /tmp/cass-warp-proof). The tar is written however the run ends: a part that would start
# past the time budget is skipped and listed in the report, and the whole run is stopped
# at the deadline with what it did so far.
# Needs nvcc, python3 with scikit-build-core, pybind11, cmake and ninja; no network.
# --build-only builds everything through the layer and runs nothing (no GPU needed).
set -u
if [ $# -lt 1 ]; then
    echo "usage: bash bench/device/warp_proof.sh OUTDIR [bench/warp_proof.py options]" >&2
    exit 2
fi
DEST=$(realpath -m "$1")
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
mkdir -p "$DEST"
PY=${PYTHON:-python3}
JOBS=$(nproc)
export CMAKE_BUILD_PARALLEL_LEVEL=$JOBS
# Seconds from now until the tar must be written (a device command may run 10 minutes).
DEADLINE=${WARP_PROOF_SECONDS:-510}
begin=$(date +%s)
WORK=${WORK:-${TMPDIR:-/tmp}/cass-warp-proof}
rm -rf "$WORK"
OUT=$WORK/report # what the tar holds
mkdir -p "$WORK/scratch" "$OUT"
export CASS_CACHE_DIR=$WORK/cache

pack() {
    tar -C "$OUT" -czf "$DEST/warp_proof.tar.gz" . &&
        echo "warp_proof.sh: $DEST/warp_proof.tar.gz ($(($(date +%s) - begin)) s in all)" >&2
}

# 1. CASS itself, with its C++ core (scikit-build-core: cmake and ninja), from this checkout.
install() {
    timeout 240 "$PY" -m pip install --no-build-isolation --no-deps -e . "$@" >>"$OUT/install.log" 2>&1
}
if ! install; then
    if grep -q externally-managed "$OUT/install.log"; then
        install --break-system-packages || { tail -20 "$OUT/install.log" >&2; pack; exit 2; }
    else
        tail -20 "$OUT/install.log" >&2
        pack
        exit 2
    fi
fi
took=$(($(date +%s) - begin))
if ! "$PY" -c "import cass_build._core" 2>>"$OUT/install.log"; then
    echo "warp_proof.sh: CASS's C++ core did not build (see install.log in the tar)" >&2
    pack
    exit 2
fi
echo "warp_proof.sh: installed in ${took} s" >&2

# 2. The runs, bounded twice: no part starts past the budget (the longest part takes about
# 100 s), and the whole run stops at the deadline; the report is rewritten after each part.
left=$((DEADLINE - took - 10))
if [ "$left" -lt 30 ]; then
    echo "warp_proof.sh: the install left no time before the ${DEADLINE} s deadline" >&2
    pack
    exit 2
fi
budget=$((left - 110))
[ "$budget" -gt 0 ] || budget=1
timeout -k 5 "$left" "$PY" bench/warp_proof.py --out "$OUT" --work "$WORK/scratch" -j "$JOBS" \
    --parallel-runs 4 --budget "$budget" \
    --install "pip install --no-build-isolation --no-deps -e . (${took} s, ${JOBS} build jobs)" "$@"
rc=$?
if [ "$rc" -eq 124 ]; then
    echo "warp_proof.sh: stopped at the ${DEADLINE} s deadline" >&2
    printf '\n**Stopped at the %s s deadline**: the part running then did not finish.\n' \
        "$DEADLINE" >>"$OUT/warp_proof.md"
fi
pack
exit "$rc"
