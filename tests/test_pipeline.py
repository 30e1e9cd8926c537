"""The pipeline: verification gates with the real hipcc, fallback, cache, reports.

Compiles are kept small and to one arch where the test is not about archs: the
machine running the suite has two cores.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cass_build.cli import main
from cass_build.errors import ToolchainError, VerificationError
from cass_build.pipeline import PipelineOptions, translate_file, translate_to
from cass_build.pipeline.cache import Cache
from cass_build.settings import Settings

PROGRAMS = Path(__file__).parent / "fixtures" / "programs"
HAVE_HIPCC = shutil.which("hipcc") is not None
needs_hipcc = pytest.mark.skipif(not HAVE_HIPCC, reason="hipcc is not installed (.ci/setup)")

KERNEL = """\
#include <cuda_runtime.h>
#include "scale.cuh"

int launch(float *p, int n) {
  scale<<<(n + 255) / 256, 256>>>(p, 2.0f, n);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
"""
HEADER = """\
#pragma once
#include <cuda_runtime.h>
__global__ void scale(float *p, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= a;
}
"""
BROKEN = """\
#include <cuda_runtime.h>

int f(float *p) {
  cudaMemset(p, 0, 4);
  return not_declared_anywhere(p);
}
"""


# A real translator that the cache keeps at --verify none, run as exec:CMD: an unverified
# rules translation is not cached (the core translates faster than a lookup).
SED = "exec:sed -e s|<cuda_runtime.h>|<hip/hip_runtime.h>|"


def cass(*args: object) -> tuple[int, str]:
    err = io.StringIO()
    code = main([str(a) for a in args], err=err)
    return code, err.getvalue()


def options(**changes: object) -> PipelineOptions:
    base = PipelineOptions(verify="compile", archs=("gfx90a",), settings=Settings())
    return base.replace(**changes)


def project(root: Path) -> Path:
    (root / "src" / "inc").mkdir(parents=True)
    (root / "src" / "inc" / "scale.cuh").write_text(HEADER)
    (root / "src" / "k.cu").write_text(KERNEL)
    return root / "src" / "k.cu"


def env_without_cass_overrides() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("CASS_VERIFY", "CASS_HIPCC")}


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_compile_gate_records_evidence() -> None:
    src = PROGRAMS / "a04_matmul_tiled.cu"
    result = translate_file(src, options())
    assert result.verified and result.level == "compile" and result.strategy == "rules"
    [evidence] = result.evidence
    # The clang command hipcc would run (cass_build.pipeline._driver), with hipcc's flags.
    assert evidence.tool == "clang" and evidence.archs == ("gfx90a",)
    assert evidence.command.startswith("HIP_PLATFORM=amd ")
    assert "--hip-version=" in evidence.command and "--offload-arch=gfx90a" in evidence.command
    assert " -c -x hip " in evidence.command
    assert [(a.strategy, a.status) for a in result.attempts if a.status != "skipped"] == [
        ("rules", "verified")
    ]


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_mirror_translates_headers_and_depfile_lists_them(tmp_path: Path) -> None:
    src = project(tmp_path)
    out_root = tmp_path / "build" / "cass"
    opts = options(
        include_dirs=(src.parent / "inc",), mirror=((src.parent, out_root),), use_cache=False
    )
    result = translate_to(src, out_root / "k.hip", opts, depfile=tmp_path / "build" / "k.d")
    header = out_root / "inc" / "scale.cuh"
    assert header.read_text().startswith("#pragma once\n#include <hip/hip_runtime.h>\n")
    assert (out_root / "k.hip").read_text().count("hipDeviceSynchronize") == 1
    assert result.headers == {header: header.read_bytes()}
    depfile = (tmp_path / "build" / "k.d").read_text()
    assert depfile.startswith(f"{out_root / 'k.hip'}:")
    assert (
        str(src.resolve()) in depfile and str((src.parent / "inc/scale.cuh").resolve()) in depfile
    )
    # Unchanged outputs keep their timestamps on a second run.
    before = header.stat().st_mtime_ns
    translate_to(src, out_root / "k.hip", opts)
    assert header.stat().st_mtime_ns == before


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_header_in_a_local_include_dir_is_translated_for_the_check(tmp_path: Path) -> None:
    """Without --mirror a header under the user's -I directory is still translated for the
    check (a sibling Common/ of real projects), said in a note; its errors point at it."""
    src = project(tmp_path)
    inc = src.parent / "inc"
    result = translate_file(src, options(verify="syntax", include_dirs=(inc,)))
    assert result.verified and result.headers == {}  # checked, not written
    [note] = [d for d in result.diagnostics if d.rule == "cass-header-not-written"]
    assert note.severity == "note"
    assert f"pass --mirror {inc.resolve()}=OUT_DIR" in note.message
    # System and toolkit directories are never the user's.
    from cass_build.pipeline.includes import local_dirs

    cuda = Path("/usr/local/cuda-13.0/targets/x86_64-linux/include")
    assert local_dirs([inc, Path("/usr/include"), cuda]) == (inc.resolve(),)
    (inc / "scale.cuh").write_text(HEADER.replace("p[i] *= a;", "p[i] *= not_declared(a);"))
    with pytest.raises(VerificationError) as info:
        translate_file(src, options(verify="syntax", include_dirs=(inc,)))
    header = (inc / "scale.cuh").resolve()
    assert str(info.value) == (
        f"{header}:5:22: error: use of undeclared identifier 'not_declared' [cass-verify-failed]"
    )
    assert info.value.hint.startswith("fix the CUDA source at that line")


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_failure_names_the_cu_line(tmp_path: Path) -> None:
    src = tmp_path / "broken.cu"
    src.write_text(BROKEN)
    argv = ("translate", src, "-o", tmp_path / "broken.hip", "--verify", "syntax")
    argv += ("--offload-arch", "gfx90a")
    code, err = cass(*argv)
    assert code == 1
    first = err.splitlines()[0]
    assert first == (
        f"{src}:5:10: error: use of undeclared identifier 'not_declared_anywhere' "
        "[cass-verify-failed]"
    )
    assert "  note: rules: syntax check failed for gfx90a (1 error(s))" in err.splitlines()
    assert "cass: hint: " in err
    assert not (tmp_path / "broken.hip").exists()
    # --allow-unverified keeps the translation, with a warning that says why.
    code, err = cass(*argv, "--allow-unverified")
    assert code == 0, err
    assert "hipMemset(p, 0, 4)" in (tmp_path / "broken.hip").read_text()
    assert "warning: no candidate passed the syntax check; using rules unverified" in err
    assert "[cass-unverified]" in err


@needs_hipcc
@pytest.mark.parametrize("program", ["a01_vector_add", "a05_transpose_padded"])
@pytest.mark.usefixtures("cache_dir")
def test_failing_strategy_falls_back_to_rules(tmp_path: Path, program: str) -> None:
    """An 'identity' translator hands back the CUDA source, which cannot build for AMD."""
    src = PROGRAMS / f"{program}.cu"
    report = tmp_path / "report.json"
    code, err = cass(
        "translate",
        src,
        "-o",
        tmp_path / "out.hip",
        "--strategy",
        "exec:cat {in},rules",
        "--verify",
        "compile",
        "--offload-arch",
        "gfx90a",
        "--report",
        report,
        "-q",
    )
    assert code == 0, err
    [entry] = json.loads(report.read_text())["files"]
    assert entry["strategy"] == "rules" and entry["level"] == "compile" and entry["verified"]
    first, second = entry["attempts"]
    assert first["strategy"] == "exec:cat {in}" and first["status"] == "failed"
    assert first["reason"] == "compile check failed for gfx90a (1 error(s))"
    assert "'cuda_runtime.h' file not found" in first["messages"][0]
    assert first["messages"][0].startswith(f"{src.resolve()}:")
    assert second == {**second, "strategy": "rules", "status": "verified"}
    assert (tmp_path / "out.hip").read_text() == translate_file(src, options()).text


@pytest.mark.usefixtures("cache_dir")
def test_strategy_that_cannot_run_is_reported(tmp_path: Path) -> None:
    src = tmp_path / "a.cu"
    src.write_text("int x;\n")
    code, err = cass(
        "translate",
        src,
        "-o",
        "-",
        "--strategy",
        "exec:false,rules",
        "--verify",
        "none",
        "--report",
        tmp_path / "r.json",
    )
    assert code == 0, err
    attempts = json.loads((tmp_path / "r.json").read_text())["files"][0]["attempts"]
    assert attempts[0] == {**attempts[0], "status": "failed", "reason": "false exited with 1"}
    code, err = cass("translate", src, "-o", "-", "--strategy", "magic")
    assert code == 2
    assert err.startswith("cass: error: --strategy 'magic': expected auto, model, rules")


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_object_holds_code_for_every_arch(tmp_path: Path) -> None:
    src = PROGRAMS / "a02_reduce_shared.cu"
    obj = tmp_path / "a.o"
    code, err = cass(
        "translate",
        src,
        "-o",
        tmp_path / "a.hip",
        "--object",
        obj,
        "--offload-arch",
        "gfx90a",
        "--offload-arch",
        "gfx1030",
        "--verify",
        "compile",
    )
    assert code == 0, err
    blob = obj.read_bytes()
    assert blob.startswith(b"\x7fELF")
    for arch in ("gfx90a", "gfx1030"):
        assert f"hipv4-amdgcn-amd-amdhsa--{arch}".encode() in blob


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_object_is_compiled_at_verify_none(tmp_path: Path) -> None:
    """A build's object is its only compile: asking for one compiles at any level."""
    obj = tmp_path / "a.o"
    argv = ["translate", PROGRAMS / "a02_reduce_shared.cu", "-o", tmp_path / "a.hip"]
    code, err = cass(*argv, "--object", obj, "--offload-arch", "gfx90a", "--verify", "none")
    assert code == 0, err
    assert b"hipv4-amdgcn-amd-amdhsa--gfx90a" in obj.read_bytes()
    before = obj.stat().st_mtime_ns
    code, err = cass(*argv, "--object", obj, "--offload-arch", "gfx90a", "--verify", "none")
    assert code == 0, err
    assert obj.stat().st_mtime_ns == before  # a cache hit, same bytes: nothing to relink


def test_translate_step_loads_only_what_it_needs(tmp_path: Path, cache_dir: Path) -> None:
    """A build runs one process per file: no other subcommand's modules, and the core's
    table comes ready-made: from the build's packed tables in the first process (an
    empty cache), from the cache from the second on."""
    src = PROGRAMS / "a02_reduce_shared.cu"
    argv = [sys.executable, "-X", "importtime", "-m", "cass_build", "translate", str(src)]
    argv += ["-o", str(tmp_path / "a.hip"), "--verify", "none", "--no-cache"]
    env = {**os.environ, "CASS_CACHE_DIR": str(cache_dir)}
    outputs = []
    for _ in range(2):
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stderr)
    tooling = ("cass_build.runcheck", "cass_build.asm", "cass_build.train", "concurrent")
    for name in tooling:
        assert f" {name}" not in outputs[1], name
    assert "tomllib" not in outputs[0]  # the tables were not parsed (ship_tables.py)
    assert "tomllib" not in outputs[1]
    assert list(cache_dir.glob("core-table-*.bin"))


def test_build_path_imports_no_tooling() -> None:
    """The pipeline package, as a build hook imports it: no tooling, no rich, no ONNX."""
    code = (
        "import sys, cass_build.pipeline\n"
        "from cass_build.pipeline import translate_file\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(proc.stdout.split())
    assert "cass_build.pipeline.chain" in loaded
    heavy = {"rich", "onnxruntime", "tokenizers", "setuptools", "cass_build._core"}
    tooling = {"cass_build.runcheck", "cass_build.runcheck.compare", "cass_build.compare"}
    tooling |= {"cass_build.asm", "cass_build.train", "cass_build.cli", "cass_build.model"}
    assert loaded & (heavy | tooling) == set()


def test_cache_hit_and_corruption(cache_dir: Path) -> None:
    src = PROGRAMS / "a03_scan_blelloch.cu"
    opts = options(verify="none", strategy=SED)
    first = translate_file(src, opts)
    second = translate_file(src, opts)
    assert (first.cached, second.cached) == (False, True)
    assert second.data == first.data and second.diagnostics == first.diagnostics
    assert second.stats == first.stats
    [entry] = list((cache_dir / "entries").glob("*/*"))
    raw = bytearray(entry.read_bytes())
    raw[-10] ^= 0x20  # one flipped bit in the body
    entry.write_bytes(bytes(raw))
    cache = Cache()
    assert cache.get(entry.name) is None and cache.damaged == [entry]
    entry.write_bytes(bytes(raw))
    third = translate_file(src, opts)
    assert not third.cached and third.data == first.data
    assert Cache().get(entry.name) is not None  # rebuilt and valid again
    # A changed header misses the cache.
    assert translate_file(src, opts.replace(defines=("X=1",))).cached is False


def test_cache_commands(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "a.cu"
    src.write_text("void f() { cudaDeviceReset(); }\n")
    translate_file(src, options(verify="none", strategy=SED))
    assert main(["cache", "info"]) == 0
    assert capsys.readouterr().out == f"{cache_dir}: 1 entries, 0.0 MiB\n"
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == f"cass: removed 1 entries from {cache_dir}\n"
    assert not list(cache_dir.glob("entries/*/*"))


@pytest.mark.usefixtures("cache_dir")
def test_header_edit_misses_the_cache(tmp_path: Path) -> None:
    src = project(tmp_path)
    opts = options(verify="none", strategy=SED, include_dirs=(src.parent / "inc",))
    assert translate_file(src, opts).cached is False
    assert translate_file(src, opts).cached is True
    (src.parent / "inc" / "scale.cuh").write_text(HEADER + "// edited\n")
    assert translate_file(src, opts).cached is False


HAMMER = """\
import json, sys
from pathlib import Path
from cass_build.pipeline import PipelineOptions, translate_file
verify, strategy, files = sys.argv[1], sys.argv[2], sys.argv[3:]
out = []
for name in files:
    opts = PipelineOptions(strategy=strategy, verify=verify, archs=("gfx90a",))
    r = translate_file(name, opts)
    out.append([name, r.cached, r.data.decode()])
print(json.dumps(out))
"""


@needs_hipcc
def test_parallel_processes_share_one_cache(tmp_path: Path, cache_dir: Path) -> None:
    sources = [str(p) for p in sorted(PROGRAMS.glob("a0*.cu"))[:6]]
    script = tmp_path / "hammer.py"
    script.write_text(HAMMER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), "none", SED, *sources[i % 3 :], *sources[: i % 3]],
            stdout=subprocess.PIPE,
            env=os.environ | {"CASS_CACHE_DIR": str(cache_dir)},
        )
        for i in range(8)
    ]
    # And four processes verifying the same file: the lock lets one compile it.
    verify_procs = [
        subprocess.Popen(
            [sys.executable, str(script), "compile", "auto", sources[0]],
            stdout=subprocess.PIPE,
            env=os.environ | {"CASS_CACHE_DIR": str(cache_dir)},
        )
        for _ in range(4)
    ]
    results = [json.loads(p.communicate(timeout=600)[0]) for p in procs]
    verified = [json.loads(p.communicate(timeout=600)[0]) for p in verify_procs]
    assert all(p.returncode == 0 for p in procs + verify_procs)
    texts: dict[str, set[str]] = {}
    for run in results:
        for name, _, text in run:
            texts.setdefault(name, set()).add(text)
    assert all(len(t) == 1 for t in texts.values()) and len(texts) == 6
    assert sorted(run[0][1] for run in verified) == [False, True, True, True]
    assert Cache().info().entries == 7
    assert not list(cache_dir.glob("entries/*/.*.tmp"))


def test_missing_toolchain_gives_the_install_hint(tmp_path: Path) -> None:
    src = tmp_path / "a.cu"
    src.write_text("void f() { cudaDeviceReset(); }\n")
    env = env_without_cass_overrides() | {"CASS_HIPCC": str(tmp_path / "no" / "hipcc")}
    run = [sys.executable, "-m", "cass_build"]
    done = subprocess.run(
        [*run, "translate", "a.cu", "-o", "a.hip", "--verify", "compile"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "cass: error: --verify compile: no HIP toolchain found (hipcc)",
        "cass: hint: apt-get install -y hipcc libamdhip64-dev rocm-device-libs   "
        "(or install ROCm into /opt/rocm)",
    ]
    assert "Traceback" not in done.stderr
    # Left to choose (--verify auto), CASS translates and says it did not verify.
    done = subprocess.run(
        [*run, "translate", "a.cu", "-o", "a.hip"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "a.cu: warning: not verified: no HIP toolchain found (hipcc) [cass-unverified]" in (
        done.stderr
    )
    assert (tmp_path / "a.hip").read_text() == (
        "#include <hip/hip_runtime.h>\n#line 1\nvoid f() { hipDeviceReset(); }\n"
    )
    done = subprocess.run([*run, "doctor"], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "--  hipcc" in done.stdout and "apt-get install -y hipcc" in done.stdout


def test_pipeline_api_raises_toolchain_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cass_build.pipeline import toolchain

    src = tmp_path / "a.cu"
    src.write_text("int x;\n")
    monkeypatch.setenv("CASS_HIPCC", str(tmp_path / "missing"))
    toolchain.find_hip.cache_clear()
    try:
        with pytest.raises(ToolchainError, match="no HIP toolchain found"):
            translate_file(src, options(use_cache=False))
    finally:
        monkeypatch.delenv("CASS_HIPCC")
        toolchain.find_hip.cache_clear()


@pytest.mark.usefixtures("cache_dir")
def test_header_input_is_not_compiled_alone(tmp_path: Path) -> None:
    src = tmp_path / "h.cuh"
    src.write_text(HEADER)
    result = translate_file(src, options())
    assert result.level == "none" and result.evidence == ()


def test_archs_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from cass_build.pipeline.toolchain import default_archs

    monkeypatch.delenv("CASS_ARCHS", raising=False)
    monkeypatch.delenv("CMAKE_HIP_ARCHITECTURES", raising=False)
    monkeypatch.setenv("PYTORCH_ROCM_ARCH", "gfx906;gfx90a")
    assert default_archs() == ("gfx906", "gfx90a")
    monkeypatch.setenv("CMAKE_HIP_ARCHITECTURES", "gfx1030")
    assert default_archs() == ("gfx1030",)
    monkeypatch.setenv("CASS_ARCHS", "gfx942,gfx1100")
    assert default_archs() == ("gfx942", "gfx1100")
    monkeypatch.setenv("CASS_ARCHS", "sm_90")
    code, err = cass("translate", "x.cu", "-o", "-", "--offload-arch", "sm_90")
    assert code == 2
    assert err.startswith("cass: error: --offload-arch: 'sm_90' is not an AMD GPU architecture")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_keeps_every_message(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"f{i}.cu").write_text(
            f"__global__ void k{i}(int *p) {{ p[threadIdx.x & 31] = 0; }}\n"
        )
    term = _Terminal()
    code = main(
        [
            "translate",
            *(str(tmp_path / f"f{i}.cu") for i in range(3)),
            "--out-dir",
            str(tmp_path / "out"),
            "--verify",
            "none",
            "--warp",
            "native",
        ],
        err=term,
    )
    assert code == 0
    shown = term.getvalue()
    assert "\x1b[" in shown  # the bar drew itself
    assert shown.count("[cass-warp-lane-arith]") == 3
    assert "cass: 3 file(s) translated: 0 error(s), 3 warning(s)" in shown


@pytest.mark.usefixtures("cache_dir")
def test_a_second_build_directory_reuses_the_cache(tmp_path: Path) -> None:
    src = project(tmp_path)
    first, second = tmp_path / "build-a", tmp_path / "build-b"
    for out, cached in ((first, False), (second, True)):
        opts = options(
            verify="none",
            strategy=SED,
            include_dirs=(src.parent / "inc",),
            mirror=((src.parent, out),),
        )
        result = translate_to(src, out / "k.hip", opts)
        assert result.cached is cached
        assert (out / "inc" / "scale.cuh").read_text().startswith("#pragma once\n#include <hip/")
        assert list(result.headers) == [out / "inc" / "scale.cuh"]


# std::optional exists only from C++17 on: hipcc's own default dialect rejects it.
NEEDS_CXX17 = """\
#include <cuda_runtime.h>
#include <optional>
__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }
int f(float *p) {
  std::optional<int> n = 4;
  k<<<1, *n>>>(p);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
"""


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_check_defaults_to_nvcc_dialect_and_takes_space_form_flags(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text(NEEDS_CXX17)
    base = ("translate", src, "-o", tmp_path / "k.hip", "--verify", "syntax")
    base += ("--offload-arch", "gfx90a", "--no-cache")
    code, err = cass(*base)
    assert code == 0, err  # C++17, as nvcc 13 compiles it
    # The space form reaches the compiler: an older dialect then fails the check.
    code, err = cass(*base, "--hip-flags", "-std=c++14")
    assert code == 1 and "optional" in err.splitlines()[0], err
    code, err = cass(*base, "--hip-flags=-std=c++14 -O1")
    assert code == 1, err


INCLUDER = """\
#include <cuda_runtime.h>
struct Pair { float a, b; };
#include "part.cu"
int main() {
  Pair *p;
  cudaMalloc(&p, sizeof(Pair));
  run(p);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
"""
INCLUDED = "__global__ void k(Pair *p) { p->a = p->b; }\nvoid run(Pair *p) { k<<<1, 1>>>(p); }\n"


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_included_cu_file_is_checked_through_its_includer(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "main.cu").write_text(INCLUDER)
    (tree / "part.cu").write_text(INCLUDED)
    flags = ("--verify", "syntax", "--offload-arch", "gfx90a", "--no-cache")
    # Alone it cannot compile: Pair is its includer's.
    code, err = cass("translate", tree / "part.cu", "-o", tmp_path / "alone.hip", *flags)
    assert code == 1 and "unknown type name 'Pair'" in err, err
    code, err = cass("translate", tree, "--out-dir", tmp_path / "out", *flags)
    assert code == 0, err
    assert "1 included source(s), checked with their includers, 1 verified to syntax" in err
    assert '#include "part.hip"' in (tmp_path / "out" / "main.hip").read_text()
    assert "k<<<1, 1>>>(p)" in (tmp_path / "out" / "part.hip").read_text()
    # A broken included file still fails, at its own line, through its includer.
    (tree / "part.cu").write_text(INCLUDED + "int g() { return missing_name; }\n")
    code, err = cass("translate", tree, "--out-dir", tmp_path / "out", *flags)
    assert code == 1 and f"{(tree / 'part.cu').resolve()}:3:" in err, err
