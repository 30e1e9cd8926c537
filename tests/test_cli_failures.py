"""How ``cass translate`` fails: unreadable entries, broken tools and models, output paths
checked first, cached verification failures, and summaries that agree with the exit code.

Real tools throughout: hipcc (behind a logging wrapper that execs it, to count the
compiles), ``/bin/false`` and a compiler that kills itself as broken tools, onnxruntime
with a real config file that lacks a key, and permissions enforced on root by running
the CLI without the capabilities that let root read anything (``setpriv``).
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
from cass_build.model import FILES, model_dir

HAVE_HIPCC = shutil.which("hipcc") is not None
needs_hipcc = pytest.mark.skipif(not HAVE_HIPCC, reason="hipcc is not installed (.ci/setup)")
HAVE_MODEL = (model_dir() / FILES[0]).is_file()
needs_model = pytest.mark.skipif(not HAVE_MODEL, reason="the packaged model is not installed")

GOOD = "#include <cuda_runtime.h>\n__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }\n"
BAD = (
    "#include <cuda_runtime.h>\n"
    "int f(float *p) {\n"
    "  cudaMemset(p, 0, 4);\n"
    "  return not_declared_anywhere(p);\n"
    "}\n"
)
# A lane computed with '& 31' is a warp-size hazard: auto asks the model about it.
HAZARD = (
    "__global__ void k(float *p) {\n  int lane = threadIdx.x & 31;\n"
    "  p[threadIdx.x] = p[lane] * 2.0f;\n}\n"
    "int main() { float *d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); return 0; }\n"
)
NO_ROOT_READ = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]


@pytest.fixture(autouse=True)
def _native_warps(monkeypatch: pytest.MonkeyPatch) -> None:
    """HAZARD's '& 31' is a warning (and a model prompt) only with --warp native."""
    monkeypatch.setenv("CASS_WARP", "native")


def cass(*args: object) -> tuple[int, str]:
    err = io.StringIO()
    code = main([str(a) for a in args], err=err)
    return code, err.getvalue()


def run_cass(
    *args: object, cwd: Path, env: dict[str, str] | None = None, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process: ``find_hip`` and the model are looked up afresh."""
    argv = [*prefix, sys.executable, "-m", "cass_build", *map(str, args)]
    return subprocess.run(
        argv, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True
    )


def lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln]


@pytest.fixture
def logged_hipcc(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The real hipcc behind a wrapper that logs each call; every compile runs hipcc."""
    log = tmp_path / "hipcc.log"
    wrapper = tmp_path / "bin" / "hipcc"
    wrapper.parent.mkdir()
    real = shutil.which("hipcc")
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    env = {"CASS_HIPCC": str(wrapper), "CASS_DIRECT_CLANG": "0", "ROCM_PATH": "/usr"}
    return env, log


def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


# --- unreadable entries -------------------------------------------------------------------


def _root_reads_anything(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.write_text("x")
    probe.chmod(0)
    try:
        done = subprocess.run([*NO_ROOT_READ, "cat", str(probe)], capture_output=True)
    finally:
        probe.chmod(0o644)
    return done.returncode == 0


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is missing")
def test_unreadable_directory_and_file_are_named_and_the_rest_is_translated(
    tmp_path: Path, cache_dir: Path
) -> None:
    if _root_reads_anything(tmp_path):
        pytest.skip("permissions are not enforced here even without CAP_DAC_OVERRIDE")
    src = tmp_path / "src"
    for name in ("a.cu", "locked/b.cu", "z/c.cu", "secret.cu"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(GOOD)
    (src / "locked").chmod(0)
    (src / "secret.cu").chmod(0)
    try:
        proc = run_cass(
            "translate", "src", "--out-dir", "out", "--verify", "none", cwd=tmp_path,
            prefix=tuple(NO_ROOT_READ),
        )  # fmt: skip
    finally:
        (src / "locked").chmod(0o755)
        (src / "secret.cu").chmod(0o644)
    assert proc.returncode == 2, proc.stderr
    errors = [ln for ln in lines(proc.stderr) if ln.startswith("cass: error:")]
    assert errors == [
        "cass: error: src/locked: cannot list this directory (Permission denied); "
        "its files were not translated",
        "cass: error: src/secret.cu: permission denied",
    ]
    out = tmp_path / "out"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.hip")) == ["a.hip", "z/c.hip"]
    assert lines(proc.stderr)[-1] == "cass: 2 file(s) translated: 2 error(s), 0 warning(s)"


def test_dangling_symlink_and_fifo_in_a_tree_are_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("src").mkdir()
    Path("src/a.cu").write_text(GOOD)
    Path("src/gone.cu").symlink_to("nowhere.cu")
    os.mkfifo("src/pipe.cu")  # reading it would block forever
    code, err = cass("translate", "src", "--out-dir", "out", "--verify", "none")
    assert code == 2
    assert lines(err) == [
        "cass: error: src/gone.cu: dangling symlink (its target is missing); not translated",
        "cass: error: src/pipe.cu: not a regular file; not translated",
        "cass: 1 file(s) translated: 2 error(s), 0 warning(s)",
    ]
    assert Path("out/a.hip").is_file()


# --- parallel trees -----------------------------------------------------------------------


def test_parallel_tree_prints_in_path_order_and_skips_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache_dir: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    names = [f"m{i % 3}/f{i:02d}.cu" for i in range(24)]
    for name in names:
        Path("src", name).parent.mkdir(parents=True, exist_ok=True)
        Path("src", name).write_text(HAZARD)
    Path("src/m1/obj.cu").write_bytes(b"\x7fELF\x00\x01")  # an error, hint and all, from a worker
    one = cass("translate", "src", "--out-dir", "one", "--verify", "none", "-j", "1")
    two = cass("translate", "src", "--out-dir", "two", "--verify", "none", "-j", "2")
    assert one[0] == two[0] == 2
    assert one[1] == two[1]
    assert (
        "cass: error: src/m1/obj.cu: binary file (NUL byte at offset 4); CASS translates " in two[1]
    )
    assert "cass: hint: pass the .cu/.cuh source, not an object file or archive" in two[1]
    files = [ln.split(":")[0] for ln in lines(two[1]) if ln.startswith("src/")]
    assert files == sorted(files) and len(set(files)) == len(names)
    for name in names:
        hip = Path(name).with_suffix(".hip")
        assert (Path("one") / hip).read_bytes() == (Path("two") / hip).read_bytes()
    # Unverified rules translations cost less than a lookup: nothing was cached.
    assert not list(cache_dir.glob("entries/*/*"))


# --- tool failures ------------------------------------------------------------------------


@needs_hipcc
def test_failing_hipcc_is_a_tool_failure_not_the_source(tmp_path: Path, cache_dir: Path) -> None:
    (tmp_path / "a.cu").write_text(GOOD)
    proc = run_cass(
        "translate", "a.cu", "-o", "a.hip", "--verify", "compile", "--offload-arch", "gfx90a",
        cwd=tmp_path, env={"CASS_HIPCC": "/bin/false"},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    first, hint, summary = lines(proc.stderr)
    assert first.startswith(
        "cass: error: a.cu: hipcc failed, not the source: exited with status 1: no output "
        "(command: HIP_PLATFORM=amd /bin/false "
    )
    assert hint.startswith("cass: hint: run that command to see why")
    assert "fix the CUDA source" not in proc.stderr
    assert summary == "cass: 0 file(s) translated: 1 error(s), 0 warning(s)"
    assert not (tmp_path / "a.hip").exists()
    # Not cached: a fixed toolchain is used at once.
    assert not list(cache_dir.glob("entries/*/*"))


@needs_hipcc
def test_killed_compiler_is_named(tmp_path: Path, cache_dir: Path) -> None:
    killer = tmp_path / "hipcc"
    killer.write_text('#!/bin/sh\necho "about to die" >&2\nkill -9 $$\n')
    killer.chmod(0o755)
    (tmp_path / "a.cu").write_text(GOOD)
    proc = run_cass(
        "translate", "a.cu", "-o", "a.hip", "--verify", "syntax", "--offload-arch", "gfx90a",
        cwd=tmp_path, env={"CASS_HIPCC": str(killer), "CASS_DIRECT_CLANG": "0"},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    first = lines(proc.stderr)[0]
    assert first.startswith(
        "cass: error: a.cu: hipcc failed, not the source: was killed by signal 9: about to die "
        "(command: HIP_PLATFORM=amd "
    )
    assert f" {killer} -fsyntax-only " in first


@needs_hipcc
def test_a_hip_flag_the_compiler_rejects_is_the_user_s_error(tmp_path: Path) -> None:
    # The CMake functions' route: a typo in --hip-flags is named as the user's flag,
    # not as hipcc failing "not the source" with a command of scratch paths.
    (tmp_path / "a.cu").write_text(GOOD)
    proc = run_cass(
        "translate", "a.cu", "-o", "a.hip", "--object", "a.o", "--offload-arch", "gfx90a",
        "--hip-flags=--use-fast-math", "--no-cache", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    first, hint = lines(proc.stderr)[:2]
    assert first.startswith(
        "cass: error: a.cu: the HIP compiler rejects '--use-fast-math', a flag of this "
        "command line (clang: error: "
    ), proc.stderr
    assert hint.startswith("cass: hint: ") and "fix or drop it" in hint
    assert "not the source" not in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "a.hip").exists() and not (tmp_path / "a.o").exists()


def test_external_translator_failure_is_a_tool_failure(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(GOOD)
    proc = run_cass(
        "translate", "a.cu", "-o", "a.hip", "--strategy", "exec:false", "--verify", "none",
        "--no-cache", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert lines(proc.stderr)[0] == (
        "cass: error: a.cu: false failed, not the source: false exited with 1 (command: false a.cu)"
    )


def test_external_translator_rejecting_a_line_blames_the_source(tmp_path: Path) -> None:
    tool = tmp_path / "picky"
    tool.write_text('#!/bin/sh\necho "$1:2:3: error: I do not like this line" >&2\nexit 1\n')
    tool.chmod(0o755)
    (tmp_path / "a.cu").write_text(GOOD)
    proc = run_cass(
        "translate", "a.cu", "-o", "a.hip", "--strategy", f"exec:{tool}", "--verify", "none",
        "--no-cache", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "cass-verify-failed" in proc.stderr and "not the source" not in proc.stderr


def test_missing_model_with_strategy_model_is_a_tool_failure(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(HAZARD)
    proc = run_cass(
        "translate", "a.cu", "-o", "a.hip", "--strategy", "model", "--verify", "none",
        "--no-cache", cwd=tmp_path, env={"CASS_MODEL_DIR": str(tmp_path / "nowhere")},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert lines(proc.stderr)[0] == (
        "cass: error: a.cu: model failed, not the source: no model installed "
        f"({tmp_path}/nowhere/encoder.onnx is missing) (command: onnxruntime on {tmp_path}/nowhere)"
    )
    assert "fix the CUDA source" not in proc.stderr


# --- a bad model config -------------------------------------------------------------------


def _model_with_config(tmp_path: Path, change: dict[str, object], drop: str = "") -> Path:
    """The packaged model's files, with a config.json written here from the real one."""
    directory = tmp_path / "model"
    directory.mkdir()
    for name in FILES[:-1]:
        (directory / name).symlink_to(model_dir() / name)
    config = json.loads((model_dir() / "config.json").read_text())
    config.update(change)
    config.pop(drop, None)
    (directory / "config.json").write_text(json.dumps(config))
    return directory


@needs_model
@pytest.mark.parametrize(
    ("change", "drop", "expected"),
    [
        ({}, "max_len", "missing key 'max_len'"),
        ({"heads": "four"}, "", "'heads' must be a positive whole number, not 'four'"),
        ({"d_model": 0}, "", "'d_model' must be a positive whole number, not 0"),
    ],
)
def test_bad_model_config_is_one_clean_error(
    tmp_path: Path, change: dict[str, object], drop: str, expected: str
) -> None:
    model = _model_with_config(tmp_path, change, drop)
    (tmp_path / "a.cu").write_text(HAZARD)
    proc = run_cass(
        "translate", "a.cu", "-o", "a.hip", "--strategy", "model", "--verify", "none",
        "--no-cache", cwd=tmp_path, env={"CASS_MODEL_DIR": str(model)},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    first = lines(proc.stderr)[0]
    assert first == (
        f"cass: error: a.cu: model failed, not the source: {model}/config.json: {expected} "
        f"(command: onnxruntime on {model})"
    )


@needs_model
@needs_hipcc
def test_auto_falls_back_to_rules_saying_why(tmp_path: Path, cache_dir: Path) -> None:
    model = _model_with_config(tmp_path, {}, "max_len")
    (tmp_path / "a.cu").write_text(HAZARD)
    proc = run_cass(
        "translate", "a.cu", "-o", "a.hip", "--verify", "syntax", "--offload-arch", "gfx90a",
        "--report", "r.json", cwd=tmp_path, env={"CASS_MODEL_DIR": str(model)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # --warp native: the native rules keep the hazard, so the --warp cuda file stands in.
    assert (
        f"a.cu: warning: the rules-cuda translation is used: the model could not run (model: "
        f"{model}/config.json: missing key 'max_len') [cass-model-fallback]"
    ) in lines(proc.stderr)
    [entry] = json.loads((tmp_path / "r.json").read_text())["files"]
    assert entry["strategy"] == "rules-cuda" and entry["level"] == "syntax"
    assert entry["attempts"][0]["strategy"] == "model"
    assert entry["attempts"][0]["status"] == "failed"
    assert "hipMalloc" in (tmp_path / "a.hip").read_text()


# --- output paths before any work ---------------------------------------------------------


@needs_hipcc
@pytest.mark.parametrize(
    ("option", "expected"),
    [
        (("-o", "adir"), "cass: error: -o adir: is a directory; -o names a file"),
        (("--out-dir", "afile"), "cass: error: --out-dir afile: is not a directory"),
        (("--out-dir", "afile/sub"), "cass: error: --out-dir afile/sub: afile is not a directory"),
        (("-o", "a.hip", "--report", "adir"), "cass: error: --report adir: is a directory; "
                                              "--report names a file"),
    ],
)  # fmt: skip
def test_output_paths_are_checked_before_any_work(
    tmp_path: Path,
    cache_dir: Path,
    logged_hipcc: tuple[dict[str, str], Path],
    option: tuple[str, ...],
    expected: str,
) -> None:
    env, log = logged_hipcc
    (tmp_path / "a.cu").write_text(GOOD)
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("")
    proc = run_cass(
        "translate", "a.cu", *option, "--verify", "compile", "--offload-arch", "gfx90a",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert lines(proc.stderr)[0] == expected
    assert calls(log) == 0  # nothing was compiled
    assert not cache_dir.exists()


# --- failed verifications: cached, counted, reported --------------------------------------


@needs_hipcc
def test_failed_verification_is_cached_counted_and_reported(
    tmp_path: Path, cache_dir: Path, logged_hipcc: tuple[dict[str, str], Path]
) -> None:
    env, log = logged_hipcc
    (tmp_path / "bad.cu").write_text(BAD)
    (tmp_path / "good.cu").write_text(GOOD)
    argv = ["translate", "bad.cu", "good.cu", "--out-dir", "out", "--verify", "compile"]
    argv += ["--offload-arch", "gfx90a", "--report", "r.json", "-j", "1"]
    first = run_cass(*argv, cwd=tmp_path, env=env)
    assert first.returncode == 1, first.stderr
    assert calls(log) == 2
    assert lines(first.stderr)[-1] == (
        "cass: 1 file(s) translated (1 verified to compile): 1 error(s), 0 warning(s)"
    )
    [failed, passed] = json.loads((tmp_path / "r.json").read_text())["files"]
    assert failed["file"] == "bad.cu" and failed["cached"] is False
    assert failed["failed"].endswith("use of undeclared identifier 'not_declared_anywhere' "
                                     "[cass-verify-failed]")  # fmt: skip
    rules = next(a for a in failed["attempts"] if a["strategy"] == "rules")
    assert rules["status"] == "failed"
    assert rules["reason"] == "compile check failed for gfx90a (1 error(s))"
    assert "not_declared_anywhere" in rules["messages"][0]
    assert passed["verified"] is True

    second = run_cass(*argv, cwd=tmp_path, env=env)
    assert (second.returncode, second.stderr) == (first.returncode, first.stderr.replace(
        "(1 verified to compile)", "(1 verified to compile, cached)"))  # fmt: skip
    assert calls(log) == 2  # neither file was compiled again
    [failed_again, _] = json.loads((tmp_path / "r.json").read_text())["files"]
    assert failed_again == {**failed, "cached": True}
    assert not (tmp_path / "out" / "bad.hip").exists()


# An API CASS flags itself (inline PTX) and a header no HIP package here provides.
UNMAPPED = (
    "#include <cuda_runtime.h>\n"
    "#include <cublas_v2.h>\n"
    "__global__ void k(float *p) {\n"
    '  asm volatile("brkpt;");\n'
    "  p[threadIdx.x] = 1.0f;\n"
    "}\n"
)
HIPBLAS_HERE = any(Path(d, "hipblas").is_dir() for d in ("/usr/include", "/opt/rocm/include"))


@needs_hipcc
@pytest.mark.skipif(HIPBLAS_HERE, reason="hipBLAS is installed: the header is found")
@pytest.mark.usefixtures("cache_dir")
def test_failed_check_keeps_the_candidate_and_shows_cass_errors_first(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text(UNMAPPED)
    out = tmp_path / "out" / "k.hip"
    argv = ("translate", src, "-o", out, "--verify", "syntax", "--offload-arch", "gfx90a")
    for _ in range(2):  # the second run reads the failure from the cache
        code, err = cass(*argv)
        lines = err.splitlines()
        assert code == 1, err
        # CASS's own diagnosis comes before the compiler's error.
        assert (
            lines[0].startswith(f"{src}:4:3: error: inline PTX") and "[cass-inline-ptx]" in lines[0]
        )
        assert lines[1] == (
            f"{src.resolve()}:2:10: error: 'hipblas/hipblas.h' file not found [cass-verify-failed]"
        )
        kept = tmp_path / "out" / "k.unverified.hip"
        assert f"  note: the best candidate, unverified, is in {kept}" in lines
        assert "#include <hipblas/hipblas.h>" in kept.read_text()
        assert not out.exists()  # a build still fails
        hint = next(ln for ln in lines if ln.startswith("cass: hint: "))
        assert "header 'hipblas/hipblas.h' was not found: apt-get install libhipblas-dev" in hint
        assert "hipblas-dev (AMD's ROCm repository)" in hint
    # Once the source translates and verifies, the stale candidate goes.
    src.write_text(
        UNMAPPED.replace("#include <cublas_v2.h>\n", "").replace('  asm volatile("brkpt;");\n', "")
    )
    code, err = cass(*argv)
    assert code == 0, err
    assert out.exists() and not kept.exists()


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_missing_pip_header_names_the_pip_package(tmp_path: Path) -> None:
    """A header that pip provides (torch's) and hipcc cannot see: the hint says pip."""
    src = tmp_path / "ext.cu"
    src.write_text("#include <torch/extension.h>\n__global__ void k(float *p) { p[0] = 1.0f; }\n")
    argv = ("translate", src, "-o", tmp_path / "ext.hip", "--verify", "syntax")
    code, err = cass(*argv, "--offload-arch", "gfx90a")
    assert code == 1, err
    assert "'torch/extension.h' file not found [cass-verify-failed]" in err
    hint = next(ln for ln in err.splitlines() if ln.startswith("cass: hint: "))
    assert "header 'torch/extension.h' was not found: pip install torch (a ROCm build" in hint
