"""The HIP-on-CUDA layer (tables inverted) and the differential runner `cass compare`."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cass_build import Settings, include_dir, translate_file
from cass_build.cli import main
from cass_build.errors import ToolchainError
from cass_build.runcheck.compare import compare, gpu_backend
from cass_build.runcheck.hip_on_cuda import (
    covered_rows,
    generate,
    hand_provided,
    inversions,
    layer_dir,
    poison_after_includes,
    poisoned_names,
    render,
)

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "fixtures" / "programs"
GOLDEN = ROOT / "tests" / "fixtures" / "golden"
HAND = ROOT / "cass_build" / "data" / "hip_on_cuda" / "hand.h"
NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc (CUDA toolkit) is not installed")


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("layer"))


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".complete"
    }


def test_generation_is_deterministic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = render()
    assert render() == first
    one, two = generate(tmp_path / "one"), generate(tmp_path / "two")
    assert _tree(one) == _tree(two) == first
    # The cached copy is the same tree, generated once and found again.
    monkeypatch.setenv("CASS_CACHE_DIR", str(tmp_path / "cache"))
    cached = layer_dir()
    assert _tree(cached) == first
    stamp = (cached / ".complete").stat().st_mtime_ns
    assert layer_dir() == cached and (cached / ".complete").stat().st_mtime_ns == stamp


def test_every_supported_row_is_covered(layer: Path) -> None:
    names_h = (layer / "cass_hip_on_cuda" / "names.h").read_text()
    defined = set(re.findall(r"^#define (\w+)", names_h, re.MULTILINE))
    provided = hand_provided()
    uncovered = {}
    checked = 0
    for cov in covered_rows():
        for inv in cov.names:
            checked += 1
            if inv.how in ("macro", "driver-call", "error-cast", "defined-if"):
                assert inv.hip in defined, inv
            elif inv.how == "header":
                text = (layer / inv.hip).read_text()
                assert all(f"#include <{h}>" in text for h in inv.cuda.split()), inv
                assert "#include <cass_hip_on_cuda/layer.h>" in text
            elif inv.how == "hand":
                assert inv.hip in provided, inv
            elif inv.how == "namespace":
                assert f"namespace {inv.hip} = {inv.cuda};" in "".join(
                    (layer / p).read_text() for p in ("hipcub/hipcub.hpp",)
                )
            elif inv.how == "skipped":
                assert inv.reason, inv
                uncovered[inv.hip] = inv.reason
            else:
                assert inv.how == "identity", inv
    assert checked > 4000
    # Exactly the names the layer settings leave out on purpose, each with its reason:
    # two by name, and the compiler's atomic builtins by prefix ([skip_prefixes]).
    builtins = ("__atomic_", "__ATOMIC_", "__hip_atomic_", "__HIP_MEMORY_SCOPE_")
    by_name = {n for n in uncovered if not n.startswith(builtins)}
    assert by_name == {"abort", "hip_rocprim"}, uncovered
    assert {"__atomic_fetch_add", "__ATOMIC_RELAXED", "__hip_atomic_load"} <= set(uncovered)


def test_hand_part_declares_what_it_provides() -> None:
    text = HAND.read_text()
    code = re.sub(r"//[^\n]*", "", text)
    for name in hand_provided():
        leaf = name.split("::")[-1]
        assert re.search(rf"\b{re.escape(leaf)}\b", code), f"hand.h provides {name} but lacks it"
    # A provided name is never also generated: the hand-written meaning wins.
    generated = {i.hip for i in inversions().values() if i.how not in ("hand", "identity")}
    assert not generated & hand_provided()


def test_driver_and_runtime_names_pick_the_runtime_spelling() -> None:
    inv = inversions()
    assert (inv["hipMalloc"].how, inv["hipMalloc"].cuda) == ("macro", "cudaMalloc")
    assert (inv["hipError_t"].how, inv["hipError_t"].cuda) == ("macro", "cudaError_t")
    assert (inv["hipSuccess"].how, inv["hipSuccess"].cuda) == ("macro", "cudaSuccess")
    assert (inv["hipHostMalloc"].how, inv["hipHostMalloc"].cuda) == ("macro", "cudaMallocHost")
    assert (inv["hipModuleLoad"].how, inv["hipModuleLoad"].cuda) == ("driver-call", "cuModuleLoad")
    assert inv["hipHostFree"].cuda == "cudaFreeHost"  # the pre-6.3 spelling of hipFreeHost
    assert (inv["__HIP_DEVICE_COMPILE__"].how, inv["__HIP_DEVICE_COMPILE__"].cuda) == (
        "defined-if",
        "__CUDA_ARCH__",
    )


@needs_nvcc
def test_names_preprocess_to_cuda_names(layer: Path, tmp_path: Path) -> None:
    """Through nvcc's preprocessor each HIP name becomes exactly what its CUDA name is."""
    inv = [
        i
        for i in inversions().values()
        if i.how in ("macro", "driver-call") and i.family in ("runtime", "driver", "complex")
    ]
    lines = []
    for n, i in enumerate(inv):
        call = "()" if i.how == "driver-call" else ""
        lines += [f"HIP_{n}: {i.hip}{call}", f"CUDA_{n}: {i.cuda}"]
    src = tmp_path / "names.hip"
    head = "#include <hip/hip_runtime.h>\n#include <hip/hip_complex.h>\n"
    src.write_text(head + "\n".join(lines) + "\n")
    proc = subprocess.run(
        [str(NVCC), "-std=c++17", "-E", "-x", "cu", "-I", str(layer), str(src)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = {k: re.sub(r"\s+", "", v) for k, v in re.findall(r"^(\w+_\d+): (.*)$", proc.stdout, re.M)}
    assert len(out) == 2 * len(inv)
    for n, i in enumerate(inv):
        want = out[f"CUDA_{n}"]
        if i.how == "driver-call":
            want = f"::cass_hip_on_cuda::driver(&{want})()"
        assert out[f"HIP_{n}"] == want, i


# Diverse translations, each exercising a different part of the layer.
COMPILED = [
    ("a06_constant_stencil", "7.1"),  # HIP_SYMBOL, hipMemcpyToSymbol/FromSymbol
    ("a20_pinned_async", "5.2"),  # hipHostMalloc, hipPointerAttribute_t::memoryType
    ("a21_managed_prefetch", "7.1"),  # hipMemPrefetchAsync/hipMemAdvise with device numbers
    ("a31_driver_api", "7.1"),  # driver calls, hipDeviceptr_t as a pointer
    ("b07_activemask_partial_warp", "5.2"),  # maskless __shfl_down, __ballot
    ("b28_bf16_convert_scale", "5.2"),  # hip_bfloat16 and <hip/hip_bfloat16.h>
    ("b26_half_scalar_math", "5.2"),  # <cass/fp16.h>'s names, mapped to CUDA's by the layer
    ("a23_streams_events", "5.2"),  # <cass/runtime.h>'s __cass_rt_hipLaunchHostFunc
    ("c01_warp_full_vote", "7.1"),  # 64-bit masks, 64-bit ballot
]


@needs_nvcc
@pytest.mark.slow
@pytest.mark.parametrize(("name", "version"), COMPILED, ids=[f"{n}@{v}" for n, v in COMPILED])
def test_translated_fixture_compiles_with_nvcc(
    name: str, version: str, layer: Path, tmp_path: Path
) -> None:
    source = PROGRAMS / f"{name}.cu"
    major, minor = (int(x) for x in version.split("."))
    hip = tmp_path / f"{name}.hip"
    # --warp native: HIP's own warp operations are what these exercise in the layer.
    settings = Settings(hip_version=(major, minor), warp="native")
    hip.write_bytes(translate_file(source, options=settings).data)
    if version == "5.2":  # the goldens are pinned to 5.2: the translation must match them
        assert hip.read_text() == (GOLDEN / f"{name}.hip").read_text()
    driver = "driver" in source.read_text().splitlines()[1]
    # As compare builds it: with CUDA-only names poisoned after the includes.
    poisoned = poison_after_includes(hip, tmp_path / "poisoned")
    # As compare does (include_flags): the layer, then CASS's own headers (<cass/fp16.h>).
    cmd = [str(NVCC), "-std=c++17", "-arch=sm_90", "-I", str(layer), "-I", include_dir()]
    cmd += ["-x", "cu", str(poisoned)]
    cmd += ["-c", "-o", str(tmp_path / "x.o")] if driver else ["-o", str(tmp_path / "x")]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-4000:]
    assert "warning" not in proc.stderr, proc.stderr[-4000:]


# A translation that kept CUDA-only builtins (issue 20's CUDA_VERSION case): hipcc rejects
# it, and nvcc, which knows the names, must reject it too in the layer's HIP build.
LEFTOVER = """\
#include <hip/hip_runtime.h>
__global__ void k(int *p, int *q) {
  *q = __nv_atomic_load_n(p, __NV_ATOMIC_RELAXED);
}
"""


@needs_nvcc
def test_layer_build_rejects_cuda_only_leftovers(layer: Path, tmp_path: Path) -> None:
    assert {"__nv_atomic_load_n", "__NV_ATOMIC_RELAXED", "cudaMalloc"} <= set(poisoned_names())
    assert not {"hipMalloc", "__shfl_down", "__CUDACC__", "thrust"} & set(poisoned_names())
    hip = tmp_path / "left.hip"
    hip.write_text(LEFTOVER)
    base = [str(NVCC), "-std=c++17", "-arch=sm_90", "-I", str(layer), "-c", "-x", "cu"]
    plain = subprocess.run([*base, str(hip), "-o", str(tmp_path / "a.o")], capture_output=True)
    assert plain.returncode == 0, plain.stderr  # what the layer accepted before
    poisoned = poison_after_includes(hip, tmp_path / "p")
    proc = subprocess.run(
        [*base, str(poisoned), "-o", str(tmp_path / "b.o")], capture_output=True, text=True
    )
    assert proc.returncode != 0
    # At the translation's own line, as hipcc would say it.
    assert (
        f'{hip.resolve()}:3:8: error: attempt to use poisoned "__nv_atomic_load_n"' in proc.stderr
    )
    assert '"__NV_ATOMIC_RELAXED"' in proc.stderr


def test_compare_without_gpu_is_one_clean_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASS_GPU_BACKEND", "none")
    assert gpu_backend() is None
    cuda = PROGRAMS / "a01_vector_add.cu"
    with pytest.raises(ToolchainError) as info:
        compare(cuda, GOLDEN / "a01_vector_add.hip", workdir=tmp_path)
    assert str(info.value).startswith(f"{cuda}: cannot compare: no GPU")
    assert "\n" not in str(info.value) and "nvidia" in info.value.hint.lower()
    err = io.StringIO()
    assert main(["compare", str(cuda)], err=err) == 2
    out = err.getvalue()
    assert "Traceback" not in out
    assert out.splitlines()[0].startswith("cass: error: ") and "no GPU" in out
    assert out.splitlines()[1].startswith("cass: hint: ") and len(out.splitlines()) == 2


def test_compare_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "--help"]) == 0
    text = capsys.readouterr().out
    assert "usage: cass compare" in text and "HIP-on-CUDA" in text and "--hip-version" in text


# A program that needs no GPU to run: the differential runner end to end on any machine.
HOST_ONLY = r"""
#include <cstdio>
#include <%s>
__global__ void unused(int* p) { p[threadIdx.x] = %s; }
int main() {
  FILE* f = std::fopen("result.txt", "w");
  std::fprintf(f, "value=%%d\n", 6 * 7);
  std::fclose(f);
  std::printf("VERDICT: PASS checksum=%%08x\n", 42u);
  return 0;
}
"""


@needs_nvcc
@pytest.mark.slow
def test_compare_builds_runs_and_diffs_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASS_GPU_BACKEND", "nvidia")
    monkeypatch.setenv("CASS_CACHE_DIR", str(tmp_path / "cache"))
    cuda = tmp_path / "prog.cu"
    cuda.write_text(HOST_ONLY % ("cuda_runtime.h", "warpSize"))
    same = tmp_path / "same.hip"
    same.write_text(HOST_ONLY % ("hip/hip_runtime.h", "warpSize"))
    result = compare(cuda, same, workdir=tmp_path / "w1")
    assert result.cuda.built and result.hip.built, result.hip.build_output
    assert "-x" in result.hip.build_command
    assert result.passed, result.reason
    assert result.cuda.files == result.hip.files and "result.txt" in result.cuda.files
    assert result.hip.verdicts == ("VERDICT: PASS checksum=0000002a",)
    # The same program writing another file content is caught by the file comparison.
    other = tmp_path / "other.hip"
    other.write_text(HOST_ONLY.replace("6 * 7", "6 * 8") % ("hip/hip_runtime.h", "warpSize"))
    result = compare(cuda, other, workdir=tmp_path / "w2")
    assert not result.passed
    assert result.reason == "output files differ in content: result.txt"
