"""``auto --warp native``: the model's agnostic declarations stand where they pass; every
other flagged declaration, with what it is linked to, falls back to its ``--warp cuda``
translation, never to the broken native text (docs/model.md, "auto in native mode").

These run the real ONNX model and real hipcc. Where a test needs the model to refuse
every rewrite, it sets the installed model's departure limit to 0 (``max_departures``,
``CASS_MODEL_MAX_DEPARTURES``): any output that leaves the rules' draft is then refused,
whichever model is installed. Where it needs one accepted, it lifts the limit.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cass_build.model import Trace, UnitStats, load
from cass_build.model import translate_bytes as model_translate
from cass_build.model.native import FALLBACK_RULE
from cass_build.pipeline import PipelineOptions, translate_file
from cass_build.pipeline.strategies import ModelStrategy, implicit_runtime, parse_chain
from cass_build.rules import translate_bytes as rules_translate
from cass_build.settings import Settings

NATIVE = Settings(warp="native")
needs_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")

# A 32-lane warp sum (flagged: the loop starts at 16), a kernel using it with a `& 31`
# lane test (flagged), a kernel with no warp operation, one written for any warp size
# (not flagged), and host code that launches all three without warp arithmetic.
MIXED = b"""\
#include <cstdio>

__device__ int warp_total(int v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void block_sum(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = warp_total(i < n ? in[i] : 0);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

__global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

__global__ void any_width_max(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = warpSize / 2; o > 0; o /= 2) v = max(v, __shfl_down_sync(0xffffffffu, v, o));
  if (threadIdx.x % warpSize == 0) atomicMax(out, v);
}

int main() {
  const int n = 1024;
  int *in, *out;
  float* x;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, 2 * sizeof(int));
  cudaMalloc(&x, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(int));
  cudaMemset(out, 0, 2 * sizeof(int));
  block_sum<<<n / 256, 256>>>(in, out, n);
  any_width_max<<<n / 256, 256>>>(in, out + 1, n);
  scale<<<n / 256, 256>>>(x, 2.0f, n);
  int host[2];
  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
  printf("%d %d\\n", host[0], host[1]);
  return 0;
}
"""


@pytest.fixture
def refuse_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """The installed model, refusing every output that departs from the rules' draft."""
    monkeypatch.setattr(load(), "max_departures", 0)


def _opts(**kw: object) -> PipelineOptions:
    base: dict[str, object] = {
        "strategy": "auto",
        "verify": "compile",
        "archs": ("gfx90a",),
        "use_cache": False,
        "settings": NATIVE,
    }
    return PipelineOptions(**{**base, **kw})  # type: ignore[arg-type]


def _body(hip: bytes, name: bytes) -> bytes:
    """The text of the declaration that starts with ``... name(`` up to its closing brace."""
    found = re.search(rb"\n[^\n]*\b" + name + rb"\(.*?\n}\n", hip, re.S)
    assert found is not None, name
    return found.group(0)


def _fallbacks(diagnostics: object) -> dict[int, str]:
    return {d.line: d.message for d in diagnostics if d.rule == FALLBACK_RULE}  # type: ignore[attr-defined]


@needs_hipcc
@pytest.mark.usefixtures("refuse_all")
def test_refused_declarations_fall_back_to_cuda_mode_and_the_file_builds(tmp_path: Path) -> None:
    src = tmp_path / "mixed.cu"
    src.write_bytes(MIXED)
    result = translate_file(src, _opts())
    assert result.strategy == "model" and result.verified and result.level == "compile"
    hip = result.data
    # The two flagged declarations (linked: block_sum calls warp_total) are cuda-mode...
    assert b"#include <cass/warp.h>" in hip
    cuda = rules_translate(MIXED, str(src), Settings(warp="cuda")).data
    for name in (b"warp_total", b"block_sum"):
        assert _body(hip, name) == _body(cuda, name)
    assert b"__cass_shfl_down_sync" in _body(hip, b"warp_total")
    # ... the agnostic kernel and the plain one stay as the native rules wrote them.
    native = rules_translate(MIXED, str(src), NATIVE).data
    for name in (b"any_width_max", b"scale"):
        assert _body(hip, name) == _body(native, name)
    assert b"__shfl_down(v, o)" in _body(hip, b"any_width_max")
    notes = _fallbacks(result.diagnostics)
    assert set(notes) == {3, 8}  # warp_total and block_sum, nothing else
    assert notes[3].startswith("'warp_total' falls back to its --warp cuda translation: ")
    assert "refused: rewrites too much of the draft" in notes[3] or "no change" in notes[3]
    shown = [str(d) for d in result.diagnostics if d.rule == FALLBACK_RULE]
    assert len(shown) == 2
    for line in shown:  # compiler-style: file:line:col: warning: message [rule]
        assert re.fullmatch(rf".*mixed\.cu:(3|8):1: warning: .* \[{FALLBACK_RULE}\]", line), line


@pytest.mark.usefixtures("refuse_all")
def test_a_kernel_calling_a_fallen_back_helper_falls_back_with_it(tmp_path: Path) -> None:
    # The agnostic kernel now sums with the 32-lane helper: native, it would mix widths.
    loop = b"for (int o = warpSize / 2; o > 0; o /= 2) "
    linked = MIXED.replace(
        loop + b"v = max(v, __shfl_down_sync(0xffffffffu, v, o));", b"v = warp_total(v);"
    )
    assert linked != MIXED
    src = tmp_path / "linked.cu"
    candidate = ModelStrategy(fallback=True).translate(src, linked, NATIVE)
    assert b"__cass_" in _body(candidate.data, b"warp_total")
    notes = _fallbacks(candidate.diagnostics)
    kernel_line = linked[: linked.index(b"__global__ void any_width_max")].count(b"\n") + 1
    assert "linked to 'warp_total', which falls back" in notes[kernel_line]
    # Host code without warp arithmetic serves both modes: it is not rewritten or noted.
    assert b"hipMalloc(&in" in candidate.data
    assert not any("'main'" in m for m in notes.values())


@needs_hipcc
@pytest.mark.usefixtures("refuse_all")
def test_a_fallback_in_a_local_header_takes_the_whole_unit_to_cuda_mode(tmp_path: Path) -> None:
    helper = MIXED[MIXED.index(b"__device__") : MIXED.index(b"__global__ void block_sum")]
    (tmp_path / "sum.cuh").write_bytes(b"#pragma once\n" + helper)
    src = tmp_path / "main.cu"
    src.write_bytes(b'#include "sum.cuh"\n' + MIXED[MIXED.index(b"__global__ void block_sum") :])
    out = tmp_path / "out"
    result = translate_file(src, _opts(include_dirs=(tmp_path,), mirror=((tmp_path, out),)))
    assert result.strategy == "rules-cuda" and result.verified
    model = next(a for a in result.attempts if a.strategy == "model")
    assert model.reason == "a declaration fell back to --warp cuda in a file with local headers"
    [header] = result.headers.values()
    assert b"__cass_shfl_down_sync" in header


# A ballot kept in 32 bits and counted with __popc: the model widens it.
BALLOT = b"""\
__global__ void count_hits(const float* x, int* hits, int n, float cut) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool hit = i < n && x[i] > cut;
  unsigned mask = __ballot_sync(0xffffffffu, hit);
  if ((threadIdx.x & 31) == 0) atomicAdd(hits, __popc(mask));
}
"""


def test_an_accepted_proposal_is_kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(load(), "max_departures", 10_000)
    trace = Trace()
    model_translate(BALLOT, "ballot.cu", NATIVE, trace=trace)
    [decision] = trace.units
    assert decision.translated is not None, decision.reason  # the model changed something
    candidate = ModelStrategy(fallback=True).translate(tmp_path / "ballot.cu", BALLOT, NATIVE)
    assert decision.translated in candidate.data
    assert _fallbacks(candidate.diagnostics) == {}
    assert b"__cass_" not in candidate.data


# A native translation that does not compile on HIP 5.2 (no __reduce_add_sync there), in a
# kernel the rules do not flag, beside a flagged one: whatever the model does with the
# flagged kernel, the file's native text fails its check.
NATIVE_FAILS = b"""\
__global__ void lane_flags(int* out) {
  out[threadIdx.x] = (threadIdx.x & 31) == 0;
}

__global__ void warp_sums(const int* in, int* out) {
  int s = __reduce_add_sync(0xffffffffu, in[threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
"""


@needs_hipcc
def test_a_failed_check_takes_the_whole_file_to_cuda_mode(tmp_path: Path) -> None:
    src = tmp_path / "fails.cu"
    src.write_bytes(NATIVE_FAILS)
    native_check = translate_file(src, _opts(strategy="rules", allow_unverified=True))
    if native_check.verified:
        pytest.skip("this HIP declares __reduce_add_sync in native mode")
    result = translate_file(src, _opts())
    assert result.strategy == "rules-cuda" and result.verified
    statuses = {a.strategy: a.status for a in result.attempts}
    assert statuses["model"] == "failed" and statuses["rules"] == "failed"
    assert b"#include <cass/warp.h>" in result.data and b"__cass_" in result.data
    file_notes = [d.message for d in result.diagnostics if d.rule == FALLBACK_RULE and d.line == 0]
    assert len(file_notes) == 1
    # The compiler's first error on the model's file, and why the native rules were refused.
    assert re.search(r"\(model: .*fails\.cu:\d+:\d+: error: ", file_notes[0]), file_notes[0]
    assert "rules: the native translation keeps warp-size hazards" in file_notes[0]
    assert _fallbacks(result.diagnostics).get(1, "").startswith("'lane_flags' falls back")


@needs_hipcc
def test_without_a_model_auto_native_is_the_cuda_mode_translation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASS_MODEL_DIR", str(tmp_path / "no-model"))
    src = tmp_path / "mixed.cu"
    src.write_bytes(MIXED)
    result = translate_file(src, _opts())
    assert result.strategy == "rules-cuda" and result.verified
    cuda = rules_translate(MIXED, str(src), Settings(warp="cuda")).data
    assert result.data.endswith(cuda)
    [note] = [d.message for d in result.diagnostics if d.rule == FALLBACK_RULE and d.line == 0]
    assert "model: no model installed" in note


def test_plain_rules_and_cuda_mode_and_unverified_auto_are_unchanged(tmp_path: Path) -> None:
    src = tmp_path / "mixed.cu"
    src.write_bytes(MIXED)
    native = rules_translate(MIXED, str(src), NATIVE)
    plain = implicit_runtime(src, native.data)
    result = translate_file(src, _opts(strategy="rules", verify="none"))
    assert result.data == plain  # today's plain native output, with its warnings

    assert {d.rule for d in result.diagnostics} >= {"cass-shfl-offset", "cass-warp-lane-arith"}
    unverified = translate_file(src, _opts(verify="none"))
    assert unverified.strategy == "rules" and unverified.data == plain
    chain, auto = parse_chain("auto")
    assert auto and [s.name for s in chain][:3] == ["model", "rules", "rules-cuda"]
    in_cuda = translate_file(src, _opts(verify="none", settings=Settings(warp="cuda")))
    assert in_cuda.strategy == "rules"
    assert not any(d.rule == FALLBACK_RULE for d in in_cuda.diagnostics)


def test_the_report_writer_fills_its_section_from_local_and_device_results(
    tmp_path: Path,
) -> None:
    """bench/model_eval.py report: compile rates from local.json, wave64 agreement counted
    from the device tar's cass bench rows, placed between the markers of the report."""
    import json
    import subprocess
    import sys
    import tarfile

    local = {
        "command": "python bench/model_eval.py translate",
        "data": "build/model_data",
        "commands": ["cass bench bench/programs --no-gpu --warp native --strategy rules"],
        "sets": {
            "bench": {
                "programs": 2,
                "asked": ["a"],
                "model": {"compiled": [2, 2], "per_hazard": {"cass-ballot-width": [1, 1]}},
                "rules": {"compiled": [1, 2], "per_hazard": {"cass-ballot-width": [0, 1]}},
                "auto": {"compiled": [2, 2], "per_hazard": {}},
                "cuda": {"compiled": [2, 2], "per_hazard": {}},
            }
        },
        "units": {
            "records": 1,
            "flagged_refused": 0,
            "groups": {"all": {"model": [1, 1], "rules": [0, 1]}},
        },
    }
    out = tmp_path / "eval"
    out.mkdir()
    (out / "local.json").write_text(json.dumps(local))

    def row(program: str, strategy: str, agreed: bool) -> dict[str, object]:
        wave = {"executed": agreed, "run_note": ""}
        return {
            "program": program,
            "strategy": strategy,
            "hazards": ["cass-ballot-width"],
            "wave64": wave,
        }

    device = tmp_path / "dev"
    device.mkdir()
    rows = [row("a", "model", True), row("a", "rules", False), row("b", "auto", True)]
    report_doc = {"totals": {}, "rows": [*rows, row("a", "cuda", True)]}
    (device / "bench.json").write_text(json.dumps(report_doc))  # model_eval.py device's
    (device / "bench_compile.json").write_text(json.dumps({"rows": rows}))  # its input
    tar = tmp_path / "device.tar.gz"
    with tarfile.open(tar, "w:gz") as archive:
        archive.add(device, arcname=".")
    report = tmp_path / "model.md"
    report.write_text("# head\n\n<!-- model_eval:begin -->\nold\n<!-- model_eval:end -->\n\ntail\n")
    script = Path(__file__).resolve().parents[1] / "bench" / "model_eval.py"
    cmd = [sys.executable, str(script), "report", "--eval", str(out), "--device", str(tar)]
    done = subprocess.run([*cmd, "--report", str(report)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = report.read_text()
    assert text.startswith("# head\n") and text.endswith("\ntail\n") and "old" not in text
    assert text.count("<!-- model_eval:begin -->") == 1
    lines = text.splitlines()
    compile_row = next(x for x in lines if x.startswith("| AMD compile rate"))
    assert compile_row.split(" | ")[1:] == [
        "100.0% (2/2)",
        "50.0% (1/2)",
        "100.0% (2/2)",
        "100.0% (2/2) |",
    ]
    wave = next(x for x in lines if x.startswith("| wave64 agreement"))
    assert wave.split(" | ")[1:] == ["100.0% (1/1)", "0.0% (0/1)", "100.0% (1/1)", "100.0% (1/1) |"]
    assert "| all | 100.0% (1/1) | 0.0% (0/1) |" in text


# One warp per row; the host computes `threads / 32` rows per block (cass-host-warp-count).
HOST_SIZED = b"""\
__global__ void row_sums(const int* a, int* out, int rows, int cols) {
  int lane = threadIdx.x % 32;
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;
  int v = 0;
  for (int c = lane; c < cols; c += 32) v += a[row * cols + c];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (lane == 0) out[row] = v;
}

int main() {
  const int rows = 100, cols = 64, threads = 128;
  int *a, *out;
  cudaMalloc(&a, rows * cols * sizeof(int));
  cudaMalloc(&out, rows * sizeof(int));
  const int per_block = threads / 32;
  row_sums<<<(rows + per_block - 1) / per_block, threads>>>(a, out, rows, cols);
  return 0;
}
"""


def test_host_code_sizing_for_32_lanes_takes_its_kernels_to_cuda_mode() -> None:
    """Even a kernel the model made agnostic goes back to cuda mode when the host that
    launches it sizes the grid for 32-lane warps: there, the kernel's warp is 32 lanes."""
    from cass_build.model import Decision
    from cass_build.model.native import mix

    native = rules_translate(HOST_SIZED, "rows.cu", NATIVE)
    assert any(d.rule == "cass-host-warp-count" for d in native.diagnostics)
    kernel_end = HOST_SIZED.index(b"\nint main")
    draft = rules_translate(HOST_SIZED[:kernel_end], "rows.cu", NATIVE).data
    agnostic = draft.replace(b"% 32", b"% warpSize").replace(b"/ 32", b"/ warpSize")
    assert agnostic != draft
    # What an accepted rewrite looks like to mix(): the kernel's agnostic text.
    mixed = mix(HOST_SIZED, "rows.cu", NATIVE, native, [Decision(0, kernel_end, draft, agnostic)])
    cuda = rules_translate(HOST_SIZED, "rows.cu", Settings(warp="cuda"))
    assert mixed.whole_file and mixed.data == cuda.data
    notes = _fallbacks(mixed.diagnostics)
    assert "host code sizes a launch for 32-lane warps" in notes[11]  # main
    assert notes[1] == (
        "'row_sums' falls back to its --warp cuda translation: linked to 'main', which falls back"
    )


# A kernel right after a directive: its unit starts at `__global__`, with no newline
# before it (training units all start with one).
AFTER_DEFINE = b"""\
#define BLOCK 256
__global__ void block_sum(int* out) {
  int lane = threadIdx.x % 32;
  if (lane == 0) atomicAdd(out, 1);
}
"""


def test_a_unit_without_a_leading_newline_decodes_as_one_with_it() -> None:
    runner = load()
    kernel = AFTER_DEFINE[AFTER_DEFINE.index(b"__global__") :]
    draft = rules_translate(kernel, "k.cu", NATIVE).data
    bare = runner.translate_unit(kernel, draft, UnitStats())
    with_newline = runner.translate_unit(b"\n" + kernel, b"\n" + draft, UnitStats())
    assert bare is None or with_newline is None or b"\n" + bare == with_newline
    trace = Trace()
    model_translate(AFTER_DEFINE, "after.cu", NATIVE, trace=trace)
    [decision] = trace.units
    assert decision.translated is None or decision.translated.startswith(b"__global__ void")


@needs_hipcc
def test_a_kernel_after_a_define_keeps_global_and_builds(tmp_path: Path) -> None:
    src = tmp_path / "after.cu"
    src.write_bytes(AFTER_DEFINE)
    result = translate_file(src, _opts())
    assert result.verified and result.level == "compile"
    assert b"__global__ void block_sum(int* out)" in result.data
    model = next(a for a in result.attempts if a.strategy == "model")
    assert model.status != "failed", model.reason  # the model's file compiled
