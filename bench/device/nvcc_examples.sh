#!/usr/bin/env bash
# The zero-edit examples (issue 18 tests 6c, 6f) built with the REAL nvcc and run on an
# NVIDIA GPU: the trees that `cass nvcc` builds for AMD are working CUDA as they stand.
# Usage: bash bench/device/nvcc_examples.sh OUT_DIR   (from a bare checkout; needs nvcc,
# make, g++ and python3 with setuptools; no network). Writes OUT_DIR/nvcc_examples.txt.
set -uo pipefail
out="${1:?usage: nvcc_examples.sh OUT_DIR}"
mkdir -p "$out"
log="$out/nvcc_examples.txt"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
cuda_home="$(dirname "$(dirname "$(readlink -f "$nvcc")")")"
{
  echo "nvcc: $nvcc ($("$nvcc" --version | tail -1))"
  nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -1
  cp -r "$root/examples/zero_edit/make_openmp" "$work/make_openmp"
  echo "== make_openmp: make NVCC=$nvcc"
  (cd "$work/make_openmp" && timeout 300 make NVCC="$nvcc" && timeout 60 ./scale_omp)
  echo "make_openmp exit: $?"
  cp -r "$root/examples/zero_edit/setup_py_nvcc" "$work/setup_py_nvcc"
  echo "== setup_py_nvcc: CUDA_HOME=$cuda_home python3 setup.py build_ext --inplace"
  (cd "$work/setup_py_nvcc" && CUDA_HOME="$cuda_home" timeout 300 python3 setup.py -q build_ext --inplace \
    && timeout 60 python3 -c "import scaler; print(scaler.scale([1.0, 2.0, 4.0], 3.0))")
  echo "setup_py_nvcc exit: $?"
} > "$log" 2>&1
cat "$log"
rm -rf "$work"
