#!/usr/bin/env bash
# Issue 20 item 7: `cass compare` builds the HIP side through the HIP-on-CUDA layer with
# CUDA-only names poisoned after the translation's includes (cass_build/runcheck/
# hip_on_cuda.py, poison.h). This runs every fixture program as CUDA and as its
# translation on one NVIDIA GPU (bench/hip_on_cuda.py), so a poisoned name that a
# correct translation still uses shows up as a failed HIP build ("attempt to use
# poisoned"), and checks that a translation that kept __nv_atomic_load_n is rejected.
#
# Usage: bench/device/poison.sh OUT_DIR   (from a bare checkout on a machine with nvcc 13,
# python 3.12, scikit-build-core, pybind11, onnxruntime; no network needed)
# Writes: OUT_DIR/install.log, OUT_DIR/hip_on_cuda.{md,json}, OUT_DIR/leftover.txt,
# OUT_DIR/summary.txt.
set -u
out="${1:?usage: bench/device/poison.sh OUT_DIR}"
mkdir -p "$out"
cd "$(dirname "$0")/../.."
timeout 420 python -m pip install --no-build-isolation --no-deps -q -e . >"$out/install.log" 2>&1 \
  || { echo "install failed: see install.log" >"$out/summary.txt"; exit 1; }
export CASS_CACHE_DIR="$out/cache"
timeout 900 python bench/hip_on_cuda.py --out "$out" --hip-version 5.2 --hip-version 7.1 \
  >"$out/bench.log" 2>&1
bench=$?
layer="$(python -m cass_build.hip_on_cuda)"
printf '#include <hip/hip_runtime.h>\n__global__ void k(int *p, int *q) {\n  *q = __nv_atomic_load_n(p, __NV_ATOMIC_RELAXED);\n}\n' >"$out/left.hip"
python - "$out" "$layer" >"$out/leftover.txt" 2>&1 <<'PY'
import subprocess, sys
from pathlib import Path
from cass_build.runcheck.hip_on_cuda import poison_after_includes
out, layer = Path(sys.argv[1]), sys.argv[2]
copy = poison_after_includes(out / "left.hip", out / "poisoned")
cmd = ["nvcc", "-std=c++17", "-c", "-I", layer, "-x", "cu", str(copy), "-o", str(out / "left.o")]
done = subprocess.run(cmd, capture_output=True, text=True)
print("leftover rejected:", done.returncode != 0 and "poisoned" in done.stderr)
print(done.stderr[-2000:])
PY
poisoned=$(grep -c "attempt to use poisoned" "$out/hip_on_cuda.json" 2>/dev/null || true)
{
  echo "bench/hip_on_cuda.py exit status: $bench"
  echo "fixture HIP builds that hit a poisoned name: ${poisoned:-0} (want 0)"
  head -1 "$out/leftover.txt"
} >"$out/summary.txt"
cat "$out/summary.txt"
