"""Pairs from real code: agnostic kernels narrowed to 32 lanes, and the way back."""

from __future__ import annotations

from cass_build.rules import translate_bytes
from cass_build.train.dataset import WARP_RULES, data_settings
from cass_build.train.naivify import has_agnostic_idiom, naivify, widen

VOTES = """__device__ int warpVotes(bool p) {
  int lane = threadIdx.x % warpSize;
  unsigned long long b = __ballot_sync(0xffffffff, p);
  unsigned long long below = b & ((1ull << lane) - 1);
  if (__popcll(b) == warpSize) return -1;
  return __popcll(below) + __ffsll(b);
}
"""

ROWS = """__global__ void rowSums(const float* x, float* y, int rows, int cols) {
  int warps = (blockDim.x + warpSize - 1) / warpSize;
  int row = blockIdx.x * warps + threadIdx.x / warpSize;
  float s = 0.f;
  for (int c = threadIdx.x % warpSize; c < cols; c += warpSize) s += x[row * cols + c];
  for (int o = warpSize / 2; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
  if (threadIdx.x % warpSize == 0 && row < rows) y[row] = s;
}
"""

SOFTMAX = """__global__ void softmaxRows(const float* x, float* y, int cols) {
  int lane = threadIdx.x & 0x1f;
  int warp = threadIdx.x >> 5;
  int warps = blockDim.x / 32;
  float m = -1e30f;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[warp * cols + c]);
  for (int offset = 16; offset > 0; offset /= 2)
    m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, offset));
  unsigned hit = __ballot_sync(0xffffffff, m > 0.f);
  if (lane == 0) y[warp] = m + __popc(hit) + warps;
}
"""


def _warnings(text: str) -> set[str]:
    r = translate_bytes(text.encode("latin-1"), "unit.cu", data_settings())
    return {d.rule for d in r.diagnostics if d.rule in WARP_RULES and d.severity == "warning"}


def test_ballots_narrow_with_the_values_computed_from_them() -> None:
    assert naivify(VOTES, 0) == (
        "__device__ int warpVotes(bool p) {\n"
        "  int lane = (threadIdx.x & 31);\n"
        "  unsigned b = __ballot_sync(0xffffffff, p);\n"
        "  unsigned below = b & ((1u << lane) - 1);\n"
        "  if (b == 0xffffffffu) return -1;\n"
        "  return __popc(below) + __ffs(b);\n"
        "}\n"
    )


def test_seeds_draw_the_spellings_people_use() -> None:
    assert naivify(ROWS, 1) == (
        "__global__ void rowSums(const float* x, float* y, int rows, int cols) {\n"
        "  int warps = blockDim.x / 32;\n"
        "  int row = blockIdx.x * warps + threadIdx.x / 32;\n"
        "  float s = 0.f;\n"
        "  for (int c = threadIdx.x % 32; c < cols; c += 32) s += x[row * cols + c];\n"
        "  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);\n"
        "  if (threadIdx.x % 32 == 0 && row < rows) y[row] = s;\n"
        "}\n"
    )
    # The WARP_SIZE macro, & 0x1f lane masks (parenthesized: & binds looser than ==).
    assert naivify(ROWS, 2) == (
        "__global__ void rowSums(const float* x, float* y, int rows, int cols) {\n"
        "  int warps = blockDim.x / WARP_SIZE;\n"
        "  int row = blockIdx.x * warps + threadIdx.x / 32;\n"
        "  float s = 0.f;\n"
        "  for (int c = (threadIdx.x & 0x1f); c < cols; c += WARP_SIZE)"
        " s += x[row * cols + c];\n"
        "  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);\n"
        "  if ((threadIdx.x & 0x1f) == 0 && row < rows) y[row] = s;\n"
        "}\n"
    )
    forms = {naivify(ROWS, seed) for seed in range(12)}
    assert len(forms) >= 4
    assert all(f is not None and "warpSize" not in f for f in forms)
    assert naivify(ROWS, 5) == naivify(ROWS, 5)


def test_naive_forms_carry_the_hazards_the_rules_flag() -> None:
    assert _warnings(VOTES) == set() and _warnings(ROWS) == set()
    assert _warnings(naivify(VOTES, 0) or "") >= {"cass-ballot-width", "cass-warp-lane-arith"}
    assert _warnings(naivify(ROWS, 1) or "") >= {"cass-shfl-offset", "cass-warp-count"}


def test_host_reads_and_plain_code() -> None:
    host = "__host__ int lanesOf(const cudaDeviceProp& prop) { return prop.warpSize; }\n"
    assert naivify(host, 0) == "__host__ int lanesOf(const cudaDeviceProp& prop) { return 32; }\n"
    # A 64-bit value that is no ballot stays 64-bit; no idiom, no candidate.
    wide = "__device__ unsigned long long total(unsigned long long x) { return x * 3ull; }\n"
    assert not has_agnostic_idiom(wide) and naivify(wide, 0) is None
    counter = (
        "__global__ void k(unsigned long long* n, bool p) {\n"
        "  unsigned long long b = __ballot_sync(0xffffffff, p);\n"
        "  atomicAdd(n, (unsigned long long)__popcll(b));\n"
        "  unsigned long long big = 1ull << 40;\n"
        "  n[1] = big + warpSize;\n"
        "}\n"
    )
    out = naivify(counter, 0)
    assert out is not None
    assert "unsigned b = __ballot_sync" in out and "__popc(b)" in out
    assert "atomicAdd(n, (unsigned long long)" in out  # the counter is not narrowed


def test_widen_is_the_way_back_for_mechanical_cases() -> None:
    assert widen(SOFTMAX) == (
        "__global__ void softmaxRows(const float* x, float* y, int cols) {\n"
        "  int lane = (threadIdx.x % warpSize);\n"
        "  int warp = (threadIdx.x / warpSize);\n"
        "  int warps = (blockDim.x + warpSize - 1) / warpSize;\n"
        "  float m = -1e30f;\n"
        "  for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[warp * cols + c]);\n"
        "  for (int offset = warpSize / 2; offset > 0; offset /= 2)\n"
        "    m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, offset));\n"
        "  unsigned long long hit = __ballot_sync(0xffffffff, m > 0.f);\n"
        "  if (lane == 0) y[warp] = m + __popcll(hit) + warps;\n"
        "}\n"
    )
    assert _warnings(SOFTMAX) and not _warnings(widen(SOFTMAX) or "")
    # `n & 31` on a value that is no lane or thread index is left alone.
    assert widen("__device__ int f(int n) { return n & 31; }\n") is None
