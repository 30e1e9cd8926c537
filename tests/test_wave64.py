"""The HIP-on-CUDA layer's wave64 mode: 64-lane AMD wavefronts on NVIDIA's 32-lane warps.

Here (no GPU) the tests check that the mode is wired into the layer and the runners, that
its gathering protocol holds on real CPU threads (warps split into groups at random), that
the rules fix each hazard program and leave the agnostic ones alone, and that nvcc builds
every proof program's translation in wave64 mode. On a machine with an NVIDIA GPU, the
last test runs the proof programs both ways; bench/wave64.py does the same for the
committed report.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cass_build import Settings, include_dir, translate_file
from cass_build.cli import main
from cass_build.errors import UsageError
from cass_build.runcheck.compare import build_translation, compare, gpu_backend
from cass_build.runcheck.hip_on_cuda import generate, render
from cass_build.runcheck.wave64 import convergent_script, nvcc_flags, parse_waves
from cass_build.runcheck.wave64 import main as wave64_main

from .fixture_header import directives

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "cass_build" / "data" / "hip_on_cuda"
PROGRAMS = ROOT / "tests" / "fixtures" / "wave64"
NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc (CUDA toolkit) is not installed")


def _macros(text: str) -> list[str]:
    return re.findall(r"^#define (\w+) cass_wave64", text, re.MULTILINE)


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("layer"))


def test_suspend_and_resume_cover_every_macro() -> None:
    names = _macros((DATA / "wave64.h").read_text())
    assert {"warpSize", "__shfl_sync", "__ballot", "__syncthreads"} <= set(names)
    suspend = (DATA / "wave64_suspend.h").read_text()
    resume = (DATA / "wave64_resume.h").read_text()
    assert re.findall(r'push_macro\("(\w+)"\)', suspend) == names
    assert re.findall(r"^#undef (\w+)", suspend, re.MULTILINE) == names
    assert re.findall(r'pop_macro\("(\w+)"\)', resume) == names


def test_layer_ships_the_mode() -> None:
    files = render()
    for name in ("wave64.h", "wave64_suspend.h", "wave64_resume.h"):
        assert files[f"cass_hip_on_cuda/{name}"] == (DATA / name).read_bytes()
    core = files["cass_hip_on_cuda/layer.h"].decode()
    # After the generated names, which it redefines (hipDeviceProp_t, ...).
    assert core.index("names.h") < core.index("wave64.h")
    runtime = files["hip/hip_runtime.h"].decode()
    first, last = runtime.index("wave64_suspend.h"), runtime.index("wave64_resume.h")
    assert first < runtime.index("#include <cuda_runtime.h>") < last
    assert last < runtime.index("cass_hip_on_cuda/layer.h")


def test_parse_waves() -> None:
    assert parse_waves("32") == (32,)
    assert parse_waves("64, 32,64") == (32, 64)
    with pytest.raises(UsageError):
        parse_waves("32,48")


def test_bad_wave_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(PROGRAMS), "--wave", "48", "--no-gpu"]) == 2
    assert "--wave" in capsys.readouterr().err
    assert main(["compare", str(PROGRAMS / "ballot32.cu"), "--wave", "16"]) == 2


@pytest.mark.parametrize("scheduling", ["independent", "convergent"])
def test_protocol_on_cpu_threads(scheduling: str, tmp_path: Path) -> None:
    """CPU threads play the lanes of a wave through branches, loops, barriers, exits: with
    warps split at random (independent scheduling), or split only where the code branches
    (convergent builds, which add a branch inside a warp)."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    exe = tmp_path / "protocol"
    cmd = [gxx, "-std=c++20", "-O1", "-pthread", "-I", str(DATA)]
    if scheduling == "convergent":
        cmd.append("-DCASS_WAVE64_CONVERGENT=1")
    cmd += [str(PROGRAMS / "protocol_host.cpp"), "-o", str(exe)]
    built = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if built.returncode and "c++20" in built.stderr:
        pytest.skip(f"g++ lacks C++20: {built.stderr.strip()[:200]}")
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr[-3000:]
    assert ran.stdout.strip() == "protocol: all scenarios passed"
    assert ("partial: done" in ran.stderr) == (scheduling == "convergent")


def test_fixtures_declare_what_they_prove() -> None:
    sources = sorted(PROGRAMS.glob("*.cu"))
    hazards = [p for p in sources if "HAZARD" in directives(p)]
    assert len(hazards) >= 5
    for path in sources:
        info = directives(path)
        assert info.get("WAVE64") in ("pass", "fail"), path
        assert (info["WAVE64"] == "fail") == (path in hazards), path
    for path in hazards:
        info = directives(path)
        fixed = PROGRAMS / info["FIXED"]
        assert info["FIX"] and directives(fixed)["FIXES"] == info["HAZARD"], path
        assert directives(fixed)["WAVE64"] == "pass"


# What CASS's rules must make of each hazard program: lines of its translation.
FIXES = {
    "ballot32": [
        "unsigned long long bits = __ballot",
        "atomicAdd(&counts[blockIdx.x], __popcll(bits));",
    ],
    "blockdim32": ["int rowsPerBlock = (blockDim.x + warpSize - 1) / warpSize;"],
    "lane0_broadcast": ["start, 0, 32);", "length, 0, 32);"],
    "lane_and31": ["int lane = threadIdx.x % warpSize;"],
    "offset16": ["for (int offset = warpSize / 2; offset > 0; offset >>= 1)"],
}
VERSIONS = [(7, 1), (5, 2)]


def _naive(path: Path, version: tuple[int, int]) -> bytes:
    """The rules translation with the hazard fixes off, as bench/wave64.py makes it."""
    from cass_build import _core
    from cass_build.rules import core_table

    settings = Settings(hip_version=version)
    options = _core.Options(
        hip_version=version[0] * 100 + version[1],
        cuda_arch=settings.cuda_arch,
        cuda_version=settings.cuda_version,
        hazard_fixes=False,
        logical_warps=False,
    )
    text, _diags, _stats, _lines = _core.translate(path.read_bytes(), core_table(), options)
    return bytes(text)


@pytest.mark.parametrize("version", VERSIONS, ids=["hip7.1", "hip5.2"])
@pytest.mark.parametrize("name", sorted(FIXES))
def test_rules_fix_the_hazard_programs(name: str, version: tuple[int, int]) -> None:
    """Each hazard program's translation carries its fix, reported as a note of its rule."""
    path = PROGRAMS / f"{name}.cu"
    # The fixes are --warp native's (--warp cuda keeps 32-lane code as it is).
    result = translate_file(path, options=Settings(hip_version=version, warp="native"))
    text = result.data.decode()
    naive = _naive(path, version).decode()
    for line in FIXES[name]:
        assert line in text, f"{name}: {line!r} missing"
        assert line not in naive, f"{name}: {line!r} without the fixes"
    rule = directives(path)["HAZARD"]
    notes = [d for d in result.diagnostics if d.rule == rule and d.severity == "note"]
    assert notes, [str(d) for d in result.diagnostics]
    # The fixes change no line count and leave everything else as the naive rules do.
    assert text.count("\n") == naive.count("\n")
    changed = [(a, b) for a, b in zip(naive.splitlines(), text.splitlines(), strict=True) if a != b]
    assert 0 < len(changed) <= len(FIXES[name]) + 1, changed


@pytest.mark.parametrize("version", VERSIONS, ids=["hip7.1", "hip5.2"])
@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PROGRAMS.glob("*.cu")) if "HAZARD" not in directives(p)],
    ids=lambda p: p.stem,
)
def test_agnostic_programs_are_left_alone(path: Path, version: tuple[int, int]) -> None:
    """Fixed and warp-size-agnostic programs get no hazard fix: the naive rules' bytes."""
    result = translate_file(path, options=Settings(hip_version=version, warp="native"))
    assert result.data == _naive(path, version)
    fixes = {"cass-warp-lane-arith", "cass-warp-count", "cass-shfl-offset", "cass-ballot-width"}
    assert not [str(d) for d in result.diagnostics if d.severity == "note" and d.rule in fixes]
    assert "cass-warp-size-literal" not in {d.rule for d in result.diagnostics}


@needs_nvcc
def test_nvcc_flags_preinclude_cuda_library_headers(tmp_path: Path) -> None:
    (tmp_path / "util.h").write_text("#include <cuda/std/atomic>\n#include <vector>\n")
    source = tmp_path / "k.hip"
    source.write_text(
        '#include <hip/hip_runtime.h>\n#include "util.h"\n#include <thrust/sort.h>\n'
        "#include <cstdio>\n"
    )
    assert nvcc_flags(32, source) == []
    flags = nvcc_flags(64, source, nvcc=Path(str(NVCC)))
    assert flags[0] == "-DCASS_WAVE=64"
    assert "-maxrregcount=64" in flags  # 1024-thread blocks launch (H200 run 3)
    included = [flags[i + 1] for i, flag in enumerate(flags) if flag == "-include"]
    assert included == ["cuda/std/atomic", "thrust/sort.h"]


def _nvcc(layer: Path, source: Path, out: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    cmd = [str(NVCC), "-std=c++17", "-arch=sm_90", *flags, "-I", str(layer), "-I", include_dir()]
    cmd += ["-x", "cu", str(source), "-c", "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)


@needs_nvcc
def test_mode_is_chosen_at_build_time(layer: Path, tmp_path: Path) -> None:
    """One source, three builds: the mode sets warpSize and the wavefront size, or refuses."""
    source = tmp_path / "mode.hip"
    source.write_text(
        "#include <hip/hip_runtime.h>\n"
        "#include <hip/hip_cooperative_groups.h>\n"  # CUDA's header, after the macros
        "namespace cg = cooperative_groups;\n"
        "#if defined(CASS_WAVE) && CASS_WAVE == 64\n"
        "#if __AMDGCN_WAVEFRONT_SIZE != 64\n#error wave64 is off\n#endif\n"
        '__global__ void k(int* o) { static_assert(warpSize == 64, ""); '
        "o[0] = __shfl_down_sync(0xffffffffffffffffull, o[1], 32); "
        "o[2] = cg::tiled_partition<32>(cg::this_thread_block()).shfl_down(o[3], 1); }\n"
        "#else\n"
        "#ifdef __AMDGCN_WAVEFRONT_SIZE\n#error wave64 is on\n#endif\n"
        "__global__ void k(int* o) { o[0] = __shfl_down_sync(0xffffffffffffffffull, o[1], 1); }\n"
        "#endif\n"
    )
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(
            pool.map(
                lambda flags: _nvcc(layer, source, tmp_path / f"{len(flags)}.o", *flags),
                [(), ("-DCASS_WAVE=64",), ("-DCASS_WAVE=48",)],
            )
        )
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[1].returncode == 0, runs[1].stderr
    assert runs[2].returncode != 0 and "CASS_WAVE must be 32" in runs[2].stderr


@needs_nvcc
@pytest.mark.parametrize("version", [(7, 1), (5, 2)], ids=["hip7.1", "hip5.2"])
def test_translations_build_in_wave64_mode(
    version: tuple[int, int], layer: Path, tmp_path: Path
) -> None:
    """Every proof program, translated by the rules, compiles with the layer in wave64 mode."""
    sources = sorted(PROGRAMS.glob("*.cu"))
    if version == (5, 2):  # the maskless HIP 5 intrinsics: the emulation's other half
        sources = [p for p in sources if p.stem in ("selftest", "ballot32", "scan_agnostic")]
    jobs = []
    for path in sources:
        hip = tmp_path / f"{path.stem}.hip"
        hip.write_bytes(translate_file(path, options=Settings(hip_version=version)).data)
        jobs.append((hip, nvcc_flags(64, hip, nvcc=Path(str(NVCC)))))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(
            pool.map(lambda job: _nvcc(layer, job[0], job[0].with_suffix(".o"), *job[1]), jobs)
        )
    pairs = zip(jobs, results, strict=True)
    failed = {hip.name: r.stderr[-2000:] for (hip, _), r in pairs if r.returncode}
    assert not failed, failed


def _wave64_command(layer: Path, source: Path, out: Path) -> list[str]:
    flags = nvcc_flags(64, source, nvcc=Path(str(NVCC)))
    return [str(NVCC), "-std=c++17", "-arch=sm_90", *flags, "-I", str(layer), "-I",
            include_dir(), "-x", "cu", str(source), "-o", str(out)]  # fmt: skip


@needs_nvcc
def test_wave64_builds_with_convergent_warps(layer: Path, tmp_path: Path) -> None:
    """The selftest's HIP 5.2 translation (maskless shuffles after branches that split
    warps) builds from PTX relabelled for sm_60, with the layer's convergent protocol."""
    source = tmp_path / "selftest.hip"
    options = Settings(hip_version=(5, 2))
    source.write_bytes(translate_file(PROGRAMS / "selftest.cu", options=options).data)
    cmd = _wave64_command(layer, source, tmp_path / "selftest")
    record = build_translation(cmd, 64, tmp_path / "work", 600.0)
    assert record.built, record.build_output
    assert record.scheduling == "convergent"
    assert record.build_command == tuple(cmd)
    assert (tmp_path / "selftest").is_file()
    ptx = (tmp_path / "work" / "convergent" / "selftest.ptx").read_text()
    assert re.search(r"^\.target sm_60$", ptx, re.MULTILINE)
    # The ITS protocol's sm_70 instructions are out, the layer's gathering is in.
    assert "nanosleep" not in ptx and "match.any" not in ptx
    assert "atom.shared.cas.b64" in ptx


@needs_nvcc
def test_wave64_falls_back_to_independent_scheduling(
    layer: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Device code that needs sm_70's PTX builds as before, and the record says why."""
    source = tmp_path / "sleep.hip"
    source.write_text(
        "#include <hip/hip_runtime.h>\n"
        "__global__ void k(int* o) { __nanosleep(100); o[threadIdx.x] = __ballot(1) >> 32; }\n"
        "int main() { return 0; }\n"
    )
    cmd = _wave64_command(layer, source, tmp_path / "sleep")
    record = build_translation(cmd, 64, tmp_path / "work", 600.0)
    assert record.built, record.build_output
    assert record.scheduling.startswith("independent: ")
    assert "__nanosleep" in record.scheduling  # sm_70 and later only
    (tmp_path / "sleep").unlink()
    assert wave64_main(cmd) == 0  # the command-line form: a warning, then the plain build
    assert (tmp_path / "sleep").is_file()
    warning = capsys.readouterr().err
    assert "cass wave64: warning: the convergent build failed" in warning
    assert "[cass-wave64-independent]" in warning


def test_convergent_script_needs_a_real_architecture(tmp_path: Path) -> None:
    assert convergent_script(["nvcc", "-c", "k.cu"], tmp_path) is None
    assert convergent_script(["nvcc", "-arch=compute_90", "-c", "k.cu"], tmp_path) is None
    assert convergent_script(["nvcc", "-arch=native", "-c", "k.cu"], tmp_path) is None
    assert wave64_main(["nvcc", "-c", "k.cu"]) == 2


@pytest.mark.skipif(gpu_backend() != "nvidia", reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("path", sorted(PROGRAMS.glob("*.cu")), ids=lambda p: p.stem)
def test_proof_programs_on_the_gpu(path: Path, tmp_path: Path) -> None:
    """CASS's translation agrees with CUDA in both modes; a hazard program's naive one
    differs with 64 lanes."""
    hip = tmp_path / f"{path.stem}.hip"
    hip.write_bytes(translate_file(path, options=Settings(hip_version=(7, 1))).data)
    wave32 = compare(path, hip, workdir=tmp_path / "32")
    assert wave32.passed, wave32.reason
    wave64 = compare(path, hip, workdir=tmp_path / "64", wave=64)
    assert wave64.passed, wave64.reason
    if directives(path)["WAVE64"] == "fail":
        naive = tmp_path / f"{path.stem}.naive.hip"
        naive.write_bytes(_naive(path, (7, 1)))
        assert not compare(path, naive, workdir=tmp_path / "naive", wave=64).passed


_UNIT_A = """#include <hip/hip_runtime.h>
__device__ int votes(int v);
__global__ void first(int* o) {
    o[threadIdx.x] = votes(__shfl_xor(o[threadIdx.x], 1)) + __lane_id();
    __syncthreads();
}
int main() { return 0; }
"""
_UNIT_B = """#include <hip/hip_runtime.h>
__device__ int votes(int v) { return __any(v) + (__ballot(v > 2) >> 32) + __all(v); }
__global__ void second(int* o) {
    o[threadIdx.x] = __shfl_down_sync(0xffffffffffffffffull, o[threadIdx.x], 1);
    __syncthreads();
}
"""


@needs_nvcc
def test_programs_of_several_units_link_in_wave64_mode(tmp_path: Path) -> None:
    """Every definition in the layer's headers may be included by several translation
    units: two units, one calling the other's device function (relocatable device code,
    -dc, through the convergent build, then nvcc's device link), and the same two in one
    nvcc command as built with independent scheduling, both link."""
    from cass_build.runcheck.hip_on_cuda import include_flags
    from cass_build.runcheck.wave64 import build_convergent

    units = []
    for name, text in (("a", _UNIT_A), ("b", _UNIT_B)):
        (tmp_path / f"{name}.hip").write_text(text)
        units.append(tmp_path / f"{name}.hip")
    base = [str(NVCC), "-std=c++17", "-arch=sm_90", *nvcc_flags(64, units[0]), *include_flags()]

    def device_object(unit: Path) -> str:
        cmd = [*base, "-dc", "-x", "cu", str(unit), "-o", str(unit.with_suffix(".o"))]
        done = build_convergent(cmd, tmp_path / f"keep-{unit.stem}")
        assert done is not None and done.returncode == 0, done and done.stdout + done.stderr
        return str(unit.with_suffix(".o"))

    def whole() -> subprocess.CompletedProcess[str]:
        cmd = [*base, "-rdc=true", "-x", "cu", *map(str, units), "-o", str(tmp_path / "whole")]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)

    with ThreadPoolExecutor(max_workers=2) as pool:
        objects = list(pool.map(device_object, units))
        plain = pool.submit(whole).result()
    assert plain.returncode == 0, plain.stderr[-2000:]
    link = [str(NVCC), "-arch=sm_90", *objects, "-o", str(tmp_path / "linked")]
    linked = subprocess.run(link, capture_output=True, text=True, timeout=600, check=False)
    assert linked.returncode == 0, linked.stderr[-2000:]
    assert "Multiple definition" not in linked.stderr


@needs_nvcc
def test_bench_builds_every_mode_without_a_gpu(tmp_path: Path) -> None:
    """`cass bench --build-only --wave 32,64 --warp native`: the original and the translation
    in both wave modes built through the layer, nothing run, the mode in the report."""
    import json

    program = tmp_path / "programs" / "vote"
    program.mkdir(parents=True)
    (program / "manifest.toml").write_text('domain = "warp"\n')
    (program / "main.cu").write_text(
        "#include <cstdio>\n#include <cuda_runtime.h>\n"
        "__global__ void k(unsigned* o) {\n"
        "    unsigned b = __ballot_sync(0xffffffffu, threadIdx.x & 1);\n"
        "    o[threadIdx.x] = __shfl_xor_sync(0xffffffffu, b, 1);\n}\n"
        "int main() {\n    unsigned* o;\n    cudaMalloc(&o, 256);\n    k<<<1, 64>>>(o);\n"
        '    printf("VERDICT: PASS %d\\n", (int)cudaDeviceSynchronize());\n    return 0;\n}\n'
    )
    out = tmp_path / "out"
    args = ["bench", str(program.parent), "--wave", "32,64", "--build-only", "--warp", "native"]
    args += ["--out", str(out), "--name", "b", "-j", "1", "--offload-arch", "gfx90a"]
    assert main(args) == 0
    doc = json.loads((out / "b.json").read_text())
    assert doc["warp"] == "native" and doc["build_only"] is True
    (row,) = doc["rows"]
    assert row["translated"] and row["executed"] is None, row
    assert row["run_note"] == "both built; not run (build only)"
    assert row["wave64"]["executed"] is None and row["wave64"]["scheduling"] == "convergent"


_LOGICAL = """#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(unsigned* o) {
    int v = static_cast<int>(threadIdx.x);
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    const unsigned b = __ballot_sync(0xffffffffu, threadIdx.x & 1);
    o[threadIdx.x] = b + (threadIdx.x % warpSize) + __shfl_xor_sync(0xffffffffu, v, 1);
}
int main() { return 0; }
"""


@needs_nvcc
def test_logical_warps_build_in_wave64_mode(layer: Path, tmp_path: Path) -> None:
    """A `--warp cuda` translation builds through the layer in wave64 mode with convergent
    warps, <cass/warp.h> found in the package's include dir (its __lane_id, 64-bit __ballot
    and width-32 __shfl are the layer's)."""
    source = tmp_path / "logical.cu"
    source.write_text(_LOGICAL)
    hip = tmp_path / "logical.hip"
    hip.write_bytes(translate_file(source, options=Settings(warp="cuda")).data)
    cmd = _wave64_command(layer, hip, tmp_path / "logical")
    from cass_build import include_dir

    cmd[cmd.index("-x") : cmd.index("-x")] = ["-I", include_dir()]
    if b"<cass/warp.h>" not in hip.read_bytes():
        pytest.skip("this checkout's rules do not route warp operations through <cass/warp.h>")
    record = build_translation(cmd, 64, tmp_path / "work", 600.0)
    assert record.built, record.build_output
    assert record.scheduling == "convergent"


@needs_nvcc
def test_translations_made_alike_are_built_once(tmp_path: Path) -> None:
    """Build-only comparisons in one process: a translation with the same text and the same
    local headers in another folder (another warp mode's) reuses the first build; a changed
    local header builds again."""
    from cass_build.runcheck import compare as cmp

    (tmp_path / "k.cu").write_text('#include "k.h"\nint main() { return K; }\n')
    (tmp_path / "k.h").write_text("#define K 0\n")
    folders = []
    for name, value in (("a", 0), ("b", 0), ("c", 1)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "k.hip").write_text('#include "k.h"\nint main() { return K; }\n')
        (folder / "k.h").write_text(f"#define K {value}\n")
        folders.append(folder)
    before = len(cmp._BUILT)
    results = [
        compare(
            tmp_path / "k.cu", f / "k.hip", workdir=tmp_path / f"w{f.name}",
            translation_dirs=(f,), build_only=True,
        )
        for f in folders
    ]  # fmt: skip
    assert all(r.passed for r in results), [r.reason for r in results]
    assert all((tmp_path / f"w{f.name}" / "hip.exe").is_file() for f in folders)
    # One CUDA original, and two translations: a and b alike, c with another header.
    assert len(cmp._BUILT) - before == 3
    assert results[1].hip.build_seconds == results[0].hip.build_seconds
