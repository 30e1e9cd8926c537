"""The ``cass`` command line: outputs, exit codes, bad input, diagnostics, stats.

Most tests call ``cass_build.cli.main`` in-process; a few run the installed
``cass`` script and ``python -m cass_build`` to check the entry points themselves.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cass_build import __version__
from cass_build.cli import SUBCOMMANDS, main
from cass_build.rules.tables import load_tables
from tests.build_helpers import loaded_after

DIAG = re.compile(r"^[^:]+:\d+:\d+: (note|warning|error): .+ \[cass-[a-z0-9-]+\]$")
SUMMARY = re.compile(r"^cass: \d+ file\(s\) translated: \d+ error\(s\), \d+ warning\(s\)$")

# A small clean program: only runtime calls whose rows are stable.
CLEAN = (
    "#include <cuda_runtime.h>\n"
    "int main() {\n"
    "  float *d;\n"
    "  cudaMalloc(&d, 64);\n"
    "  cudaMemcpy(d, d, 64, dir);\n"
    "  cudaFree(d);\n"
    "  return 0;\n"
    "}\n"
)
CLEAN_HIP = (
    "#include <hip/hip_runtime.h>\n"
    "int main() {\n"
    "  float *d;\n"
    "  hipMalloc(&d, 64);\n"
    "  hipMemcpy(d, d, 64, dir);\n"
    "  hipFree(d);\n"
    "  return 0;\n"
    "}\n"
)
# nvcc includes the runtime into every .cu file; translated .cu files that do not
# include it get it explicitly, and a #line keeps the original line numbers.
RT = "#include <hip/hip_runtime.h>\n#line 1\n"
# Line 3, column 28 is the '31'.
LANE = (
    "__global__ void k(float *x) {\n"
    "  // lane id\n"
    "  int lane = threadIdx.x & 31;\n"
    "  x[lane] = 0;\n"
    "}\n"
)
LANE_DIAG = (
    "{path}:3:28: {severity}: '& 31' assumes 32-lane warps; AMD wavefronts have 64 lanes "
    "(use warpSize) [cass-warp-lane-arith]"
)
# HIP has masked shuffles from 7.0; older HIP gets the maskless form.
SHFL = "v += __shfl_down_sync(0xffffffff, v, 1);\n"
SHFL_OLD = "v += __shfl_down(v, 1);\n"
SHFL_NEW = "v += __shfl_down_sync(0xffffffffffffffffull, v, 1);\n"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("CASS_HIP_VERSION", "CASS_LAUNCH_SYNTAX"):
        monkeypatch.delenv(name, raising=False)
    # --warp native: its warp-size warning (LANE_DIAG) is these tests' example diagnostic.
    monkeypatch.setenv("CASS_WARP", "native")
    monkeypatch.chdir(tmp_path)


def cass(*args: object) -> tuple[int, str]:
    """Run ``cass`` in-process; returns the exit code and what went to stderr."""
    err = io.StringIO()
    code = main([str(a) for a in args], err=err)
    text = err.getvalue()
    assert "Traceback" not in text
    return code, text


def lines(text: str) -> list[str]:
    return text.splitlines()


def write(path: str | Path, text: str | bytes) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        p.write_text(text, encoding="utf-8")
    else:
        p.write_bytes(text)
    return p


def files_under(root: Path) -> list[str]:
    """Every file and directory under ``root``, hidden ones included, as sorted posix paths."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def unsupported_function() -> str:
    names = [
        r.cuda
        for f in load_tables()
        for r in f.rows
        if r.status == "unsupported" and r.kind == "function"
    ]
    assert names, "the tables have no unsupported function to test with"
    return names[0]


def check_stderr_shape(text: str) -> None:
    """Each stderr line is a diagnostic, a 'cass: error/hint' line, or the summary."""
    for line in lines(text):
        assert (
            DIAG.match(line)
            or line.startswith(("cass: error: ", "cass: hint: "))
            or SUMMARY.match(line)
        ), line


# --- outputs ------------------------------------------------------------------------------


def test_translate_file_to_output(tmp_path: Path) -> None:
    write("a.cu", CLEAN)
    code, err = cass("translate", "a.cu", "-o", "out.hip")
    assert code == 0
    assert (tmp_path / "out.hip").read_text() == CLEAN_HIP
    assert lines(err) == ["cass: 1 file(s) translated: 0 error(s), 0 warning(s)"]
    assert (tmp_path / "a.cu").read_text() == CLEAN


def test_output_to_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    write("a.cu", CLEAN)
    code, err = cass("translate", "a.cu", "-o", "-")
    assert code == 0
    out = capsysbinary.readouterr().out
    assert out == CLEAN_HIP.encode()
    assert not Path("-").exists()
    assert lines(err) == ["cass: 1 file(s) translated: 0 error(s), 0 warning(s)"]


def test_output_into_new_directories(tmp_path: Path) -> None:
    write("a.cu", CLEAN)
    code, _ = cass("translate", "a.cu", "-o", "x/y/out.hip")
    assert code == 0
    assert (tmp_path / "x/y/out.hip").read_text() == CLEAN_HIP


def test_out_dir_with_several_files(tmp_path: Path) -> None:
    write("src/a.cu", "void a() { cudaFree(0); }\n")
    write("src/b.cuh", "void b() { cudaMalloc(&p, 4); }\n")
    write("src/c.cpp", "#include <cuda_runtime.h>\n")
    write("src/d.h", "int d;\n")
    code, err = cass(
        "translate", "src/a.cu", "src/b.cuh", "src/c.cpp", "src/d.h", "--out-dir", "out"
    )
    assert code == 0, err
    assert files_under(tmp_path / "out") == ["a.hip", "b.cuh", "c.cpp", "d.h"]
    assert (tmp_path / "out/a.hip").read_text() == RT + "void a() { hipFree(0); }\n"
    assert (tmp_path / "out/b.cuh").read_text() == "void b() { hipMalloc(&p, 4); }\n"
    assert (tmp_path / "out/c.cpp").read_text() == "#include <hip/hip_runtime.h>\n"
    assert (tmp_path / "out/d.h").read_text() == "int d;\n"
    assert lines(err)[-1] == "cass: 4 file(s) translated: 0 error(s), 0 warning(s)"


def test_out_dir_rejects_two_inputs_with_one_output_name() -> None:
    write("x/k.cu", "int a;\n")
    write("y/k.cu", "int b;\n")
    code, err = cass("translate", "x/k.cu", "y/k.cu", "--out-dir", "out")
    assert code == 2
    assert lines(err) == [
        "cass: error: two inputs have the same file name; translate them into separate dirs"
    ]
    assert not Path("out").exists()


def make_tree(root: Path) -> None:
    write(
        root / "main.cu",
        '#include "kernels.cu"\n#include "util/math.cuh"\nint main() { cudaMalloc(&p, 4); }\n',
    )
    write(root / "kernels.cu", "__global__ void k(float *p) { p[0] = 1; }\n")
    write(
        root / "util/math.cuh",
        '#pragma once\n#include "../kernels.cu"\ninline void f() { cudaFree(0); }\n',
    )
    write(root / "util/deep/er/types.h", "struct S { int x; };\n")
    write(root / "util/deep/wrap.hpp", "#include <cuda_runtime.h>\n")
    write(root / "host/app.cpp", "void g() { cudaFree(p); } // cudaFree\n")
    write(root / "host/old.cc", 'const char *s = "kernels.cu";\n')
    write(root / "host/more.cu", '#include <kernels.cu>\n#include "kernels.cuh"\n')
    write(root / "README.txt", "cudaMalloc\n")
    write(root / "util/notes.md", "notes\n")
    write(root / "Makefile", "all:\n")


def test_tree_is_mirrored(tmp_path: Path) -> None:
    make_tree(tmp_path / "src")
    code, err = cass("translate", "src", "--out-dir", "dst")
    assert code == 0, err
    assert files_under(tmp_path / "dst") == [
        "host",
        "host/app.cpp",
        "host/more.hip",
        "host/old.cc",
        "kernels.hip",
        "main.hip",
        "util",
        "util/deep",
        "util/deep/er",
        "util/deep/er/types.h",
        "util/deep/wrap.hpp",
        "util/math.cuh",
    ]
    dst = tmp_path / "dst"
    assert (dst / "main.hip").read_text() == RT + (
        '#include "kernels.hip"\n#include "util/math.cuh"\nint main() { hipMalloc(&p, 4); }\n'
    )
    assert (dst / "kernels.hip").read_text() == RT + "__global__ void k(float *p) { p[0] = 1; }\n"
    assert (dst / "util/math.cuh").read_text() == (
        '#pragma once\n#include "../kernels.hip"\ninline void f() { hipFree(0); }\n'
    )
    assert (dst / "util/deep/er/types.h").read_text() == "struct S { int x; };\n"
    assert (dst / "util/deep/wrap.hpp").read_text() == "#include <hip/hip_runtime.h>\n"
    assert (dst / "host/app.cpp").read_text() == "void g() { hipFree(p); } // cudaFree\n"
    # A string that names a .cu file is not an include.
    assert (dst / "host/old.cc").read_text() == 'const char *s = "kernels.cu";\n'
    # Only quoted includes of .cu files are renamed.
    assert (
        dst / "host/more.hip"
    ).read_text() == RT + '#include <kernels.cu>\n#include "kernels.cuh"\n'
    assert lines(err)[-1] == "cass: 8 file(s) translated: 0 error(s), 0 warning(s)"
    # The source tree is untouched.
    assert "main.hip" not in files_under(tmp_path / "src")


def test_single_file_keeps_cu_includes(tmp_path: Path) -> None:
    write("main.cu", '#include "kernels.cu"\n')
    assert cass("translate", "main.cu", "-o", "main.hip")[0] == 0
    assert (tmp_path / "main.hip").read_text() == RT + '#include "kernels.cu"\n'


def test_jobs_do_not_change_the_result(tmp_path: Path) -> None:
    for i in range(24):
        write(f"src/f{i:02}.cu", f"// {i}\n" + CLEAN + LANE * (i % 3))
    code1, err1 = cass("translate", "src", "--out-dir", "one", "-j", "1")
    code8, err8 = cass("translate", "src", "--out-dir", "eight", "-j", "8")
    assert (code1, code8) == (0, 0)
    assert err1 == err8
    names = files_under(tmp_path / "one")
    assert len(names) == 24
    assert names == files_under(tmp_path / "eight")
    for name in names:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "eight" / name).read_bytes()
    # Diagnostics come in input order whatever the threads did.
    paths = [line.split(":")[0] for line in lines(err8) if DIAG.match(line)]
    assert paths == sorted(paths)
    assert len(paths) == 24
    assert paths[0] == "src/f01.cu"


# --- exit codes ---------------------------------------------------------------------------


def test_unsupported_api_exits_1(tmp_path: Path) -> None:
    name = unsupported_function()
    source = f"__device__ float f(float x) {{\n  return {name}(x);\n}}\n"
    write("u.cu", source)
    code, err = cass("translate", "u.cu", "-o", "u.hip")
    assert code == 1
    diags = [line for line in lines(err) if DIAG.match(line)]
    assert len(diags) == 1
    assert diags[0].startswith(f"u.cu:2:10: error: '{name}' has no HIP equivalent")
    assert diags[0].endswith("[cass-unsupported-api]")
    # The output is still written, with the name left as it is.
    assert (tmp_path / "u.hip").read_text() == RT + source
    assert lines(err)[-1] == "cass: 1 file(s) translated: 1 error(s), 0 warning(s)"


def test_inline_ptx_exits_1(tmp_path: Path) -> None:
    source = (
        'int smem() {\n  int x;\n  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(x));\n'
        "  return x;\n}\n"
    )
    write("p.cu", source)
    code, err = cass("translate", "p.cu", "-o", "p.hip")
    assert code == 1
    assert lines(err) == [
        "p.cu:3:3: error: inline PTX instruction 'mov.u32' has no HIP translation (it reads the "
        "special register %dynamic_smem_size) [cass-inline-ptx]",
        "cass: 1 file(s) translated: 1 error(s), 0 warning(s)",
    ]
    assert (tmp_path / "p.hip").read_text() == RT + source


NVCC_ONLY_PTX = """\
__global__ void k(unsigned *p) {
#ifndef __HIPCC__
  asm volatile("brkpt;");
#endif
#if defined(__NVCC__)
  asm("mov.u32 %0, %%laneid;" : "=r"(p[0]));
#elif !defined(__CUDACC__)
  asm("nop;");
#else
  p[0] = 0;
#endif
}
"""


@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed (.ci/setup)")
def test_inline_ptx_in_a_branch_hip_never_takes_is_a_note(tmp_path: Path) -> None:
    write("n.cu", NVCC_ONLY_PTX)
    argv = ("translate", "n.cu", "-o", "n.hip", "--verify", "syntax", "--offload-arch", "gfx90a")
    code, err = cass(*argv, "--no-cache")
    assert code == 0, err  # notes only, and hipcc agrees: it never sees the asm
    notes = [ln for ln in lines(err) if "[cass-inline-ptx]" in ln]
    assert [ln.split(": ")[0:2] for ln in notes] == [["n.cu:3:3", "note"], ["n.cu:6:3", "note"],
                                                     ["n.cu:8:3", "note"]]  # fmt: skip
    # The same asm where HIP compiles it stays an error.
    write("e.cu", NVCC_ONLY_PTX.replace("#ifndef __HIPCC__", "#ifdef __HIPCC__"))
    code, err = cass("translate", "e.cu", "-o", "e.hip", "--verify", "none")
    assert code == 1 and "e.cu:3:3: error: inline PTX" in err, err


def test_asm_in_comments_and_strings_is_not_ptx() -> None:
    write("p.cu", '// asm("x");\nconst char *s = "asm(\\"x\\")";\nint asm_count = my_asm(1);\n')
    code, err = cass("translate", "p.cu", "-o", "p.hip")
    assert code == 0
    assert lines(err) == ["cass: 1 file(s) translated: 0 error(s), 0 warning(s)"]


def test_warning_exits_0_and_werror_exits_1(tmp_path: Path) -> None:
    write("w.cu", LANE)
    code, err = cass("translate", "w.cu", "-o", "w.hip")
    assert code == 0
    assert lines(err) == [
        LANE_DIAG.format(path="w.cu", severity="warning"),
        "cass: 1 file(s) translated: 0 error(s), 1 warning(s)",
    ]
    code, err = cass("translate", "w.cu", "-o", "w.hip", "--werror")
    assert code == 1
    assert lines(err) == [
        LANE_DIAG.format(path="w.cu", severity="error"),
        "cass: 1 file(s) translated: 1 error(s), 0 warning(s)",
    ]
    assert (tmp_path / "w.hip").read_text() == RT + LANE


def test_quiet_prints_errors_only() -> None:
    write("w.cu", LANE)
    assert cass("translate", "w.cu", "-o", "w.hip", "-q") == (0, "")
    code, err = cass("translate", "w.cu", "-o", "w.hip", "-q", "--werror")
    assert code == 1
    assert lines(err) == [LANE_DIAG.format(path="w.cu", severity="error")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["translate", "a.cu"], "one of the arguments -o/--output --out-dir is required"),
        (
            ["translate", "a.cu", "b.cu", "-o", "x.hip"],
            "-o takes one input; use --out-dir for several",
        ),
        (
            ["translate", "a.cu", "-o", "x", "--out-dir", "y"],
            "argument --out-dir: not allowed with argument -o/--output",
        ),
        (
            ["translate", "src", "-o", "x"],
            "src: is a directory; a directory input must be alone, with --out-dir",
        ),
        (
            ["translate", "src", "a.cu", "--out-dir", "y"],
            "src: is a directory; a directory input must be alone, with --out-dir",
        ),
        (["translate", "src", "--out-dir", "src"], "--out-dir src must be outside src"),
        (
            ["translate", "src", "--out-dir", "src/sub/out"],
            "--out-dir src/sub/out must be outside src",
        ),
        (
            ["translate", "a.cu", "-o", "x", "--hip-version", "banana"],
            "--hip-version: invalid HIP version 'banana': expected MAJOR.MINOR such as 6.2",
        ),
        (
            ["translate", "a.cu", "-o", "x", "--launch-syntax", "triple"],
            "argument --launch-syntax: invalid choice: 'triple' (choose from 'chevrons', 'ggl')",
        ),
        (
            ["translate", "a.cu", "-o", "x", "--stats", "xml"],
            "argument --stats: invalid choice: 'xml' (choose from 'text', 'json', 'csv')",
        ),
        (
            ["translate", "a.cu", "-o", "x", "--max-bytes", "lots"],
            "argument --max-bytes: invalid int value: 'lots'",
        ),
        (
            ["translate", "a.cu", "-o", "x", "--hip-vers", "6.4"],
            "unrecognized arguments: --hip-vers 6.4",
        ),
        (
            ["frobnicate"],
            "argument command: invalid choice: 'frobnicate' (choose from 'translate', "
            "'cache', 'doctor', 'compare', 'bench', 'tables', 'env', 'asm', 'dataset', 'nvcc')",
        ),
        (["tables", "--family", "nope"], "--family nope: no such family"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    write("a.cu", CLEAN)
    write("b.cu", CLEAN)
    write("src/k.cu", CLEAN)
    before = files_under(tmp_path)
    code, err = cass(*args)
    assert code == 2
    assert lines(err)[0] == f"cass: error: {message}"
    assert len(lines(err)) <= 2
    assert all(line.startswith("cass: hint: ") for line in lines(err)[1:])
    assert files_under(tmp_path) == before


def test_bad_hip_version_variable_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    write("a.cu", CLEAN)
    monkeypatch.setenv("CASS_HIP_VERSION", "six")
    code, err = cass("translate", "a.cu", "-o", "a.hip")
    assert code == 2
    assert lines(err) == [
        "cass: error: CASS_HIP_VERSION: invalid HIP version 'six': expected MAJOR.MINOR such as 6.2"
    ]
    # The option wins over the variable, even a malformed one.
    assert cass("translate", "a.cu", "-o", "a.hip", "--hip-version", "6.4")[0] == 0


def test_no_command_prints_help_and_exits_2() -> None:
    code, err = cass()
    assert code == 2
    assert err.startswith("usage: cass ")
    assert "translate" in err
    assert "tables" in err


def test_version_alone_loads_no_subcommand() -> None:
    """``cass --version`` is answered by the top-level parser: no subcommand's module
    (each imports its own tooling) is loaded for it (what it prints: the next test)."""
    code = "from cass_build.cli import main\nassert main(['--version']) == 0"
    assert loaded_after(code, sorted(SUBCOMMANDS)) == []


def test_version_and_help_return_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert cass("--version") == (0, "")
    assert capsys.readouterr().out == f"cass {__version__}\n"
    assert cass("translate", "--help") == (0, "")
    assert "--launch-syntax" in capsys.readouterr().out


# --- inputs are never overwritten ---------------------------------------------------------


def snapshot(path: Path) -> tuple[bytes, int, int]:
    st = path.stat()
    return path.read_bytes(), st.st_mtime_ns, st.st_ino


@pytest.mark.parametrize("spelling", ["a.cu", "./a.cu", "sub/../a.cu", "{tmp}/a.cu", "link.cu"])
def test_output_onto_the_input_is_refused(tmp_path: Path, spelling: str) -> None:
    a = write("a.cu", CLEAN)
    Path("sub").mkdir()
    Path("link.cu").symlink_to("a.cu")
    before = snapshot(a)
    target = spelling.format(tmp=tmp_path)
    code, err = cass("translate", "a.cu", "-o", target)
    assert code == 2
    assert lines(err) == [
        f"cass: error: {Path(target)}: refusing to overwrite an input file",
        "cass: hint: choose another -o path or --out-dir",
        "cass: 0 file(s) translated: 1 error(s), 0 warning(s)",
    ]
    assert snapshot(a) == before
    assert Path("link.cu").is_symlink()
    assert files_under(tmp_path) == ["a.cu", "link.cu", "sub"]


def test_out_dir_onto_the_inputs_directory_is_refused(tmp_path: Path) -> None:
    h = write("inc/h.cuh", "void f() { cudaFree(0); }\n")
    k = write("inc/k.cu", "void g() { cudaFree(0); }\n")
    before = snapshot(h)
    code, err = cass("translate", "inc/h.cuh", "inc/k.cu", "--out-dir", "inc")
    assert code == 2
    errors = [line for line in lines(err) if line.startswith("cass: error:")]
    assert errors == ["cass: error: inc/h.cuh: refusing to overwrite an input file"]
    assert snapshot(h) == before
    # The .cu file's output does not collide with anything: it is still written.
    assert (tmp_path / "inc/k.hip").read_text() == RT + "void g() { hipFree(0); }\n"
    assert k.read_text() == "void g() { cudaFree(0); }\n"
    assert files_under(tmp_path / "inc") == ["h.cuh", "k.cu", "k.hip"]


def test_stats_file_onto_an_input_is_refused() -> None:
    a = write("a.cu", CLEAN)
    before = snapshot(a)
    code, err = cass("translate", "a.cu", "-o", "a.hip", "--stats", "json", "--stats-file", "a.cu")
    assert code == 2
    assert "cass: error: a.cu: refusing to overwrite an input file" in lines(err)
    assert snapshot(a) == before


# --- atomic outputs -----------------------------------------------------------------------


def test_outputs_leave_no_temporary_files(tmp_path: Path) -> None:
    make_tree(tmp_path / "src")
    assert cass("translate", "src", "--out-dir", "dst")[0] == 0
    assert cass("translate", "src", "--out-dir", "dst")[0] == 0  # over existing outputs
    assert not [n for n in files_under(tmp_path / "dst") if Path(n).name.startswith(".")]
    write("a.cu", CLEAN)
    assert (
        cass("translate", "a.cu", "-o", "out/a.hip", "--stats", "--stats-file", "out/s.txt")[0] == 0
    )
    assert files_under(tmp_path / "out") == ["a.hip", "s.txt"]


def test_output_permissions(tmp_path: Path) -> None:
    write("a.cu", CLEAN)
    assert cass("translate", "a.cu", "-o", "new.hip")[0] == 0
    assert stat.S_IMODE((tmp_path / "new.hip").stat().st_mode) == 0o644
    # An existing output keeps its mode when it is replaced.
    old = write("old.hip", "stale\n")
    old.chmod(0o640)
    assert cass("translate", "a.cu", "-o", "old.hip")[0] == 0
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
    assert old.read_text() == CLEAN_HIP


def test_output_that_is_a_directory_is_an_error(tmp_path: Path) -> None:
    write("a.cu", CLEAN)
    Path("out").mkdir()
    code, err = cass("translate", "a.cu", "-o", "out")
    assert code == 2
    errors = [line for line in lines(err) if line.startswith("cass: error:")]
    assert len(errors) == 1
    assert errors[0] == "cass: error: -o out: is a directory; -o names a file"
    assert files_under(tmp_path) == ["a.cu", "out"]


# --- bad input ----------------------------------------------------------------------------

ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(8) + b"\x02\x00\x3e\x00"


@pytest.mark.parametrize(
    ("name", "content", "extra", "error", "hint"),
    [
        (
            "lat.cu",
            b"int x;\n// caf\xe9 au lait\n",
            [],
            "lat.cu:2:7: not UTF-8 text (byte 0xe9); CASS reads sources as UTF-8",
            "re-save the file as UTF-8 (iconv -f latin1 -t utf-8)",
        ),
        (
            "obj.cu",
            ELF,
            [],
            "obj.cu: binary file (NUL byte at offset 7); CASS translates CUDA source text",
            "pass the .cu/.cuh source, not an object file or archive",
        ),
        (
            "big.cu",
            b"int x;\n" * 300,
            ["--max-bytes", "1000"],
            "big.cu: 2100 bytes is over the 1000 bytes limit for one source",
            "split the file, or raise the limit with --max-bytes",
        ),
        ("nope.cu", None, [], "nope.cu: no such file", None),
        (
            "dir.cu",
            "dir",
            [],
            "dir.cu: is a directory; a directory input must be alone, with --out-dir",
            "cass translate SRC_DIR --out-dir DST_DIR",
        ),
    ],
)
def test_bad_input_is_one_line(
    tmp_path: Path,
    name: str,
    content: bytes | str | None,
    extra: list[str],
    error: str,
    hint: str | None,
) -> None:
    if content == "dir":
        (tmp_path / name).mkdir()
    elif isinstance(content, bytes):
        write(name, content)
    before = files_under(tmp_path)
    code, err = cass("translate", name, "-o", "out.hip", *extra)
    assert code == 2
    errors = [line for line in lines(err) if line.startswith("cass: error:")]
    assert errors == [f"cass: error: {error}"]
    hints = [line for line in lines(err) if line.startswith("cass: hint:")]
    assert hints == ([f"cass: hint: {hint}"] if hint else [])
    check_stderr_shape(err)
    assert files_under(tmp_path) == before


def test_big_file_message_in_mib() -> None:
    write("big.cu", b"/" * (3 * 2**20 + 100))
    code, err = cass("translate", "big.cu", "-o", "out.hip", "--max-bytes", str(2**20))
    assert code == 2
    assert lines(err)[0] == "cass: error: big.cu: 3.0 MiB is over the 1.0 MiB limit for one source"


def test_empty_file(tmp_path: Path) -> None:
    write("e.cu", b"")
    code, err = cass("translate", "e.cu", "-o", "e.hip")
    assert code == 0
    assert lines(err) == [
        "e.cu:1:1: warning: empty source file; nothing to do [cass-empty-input]",
        "cass: 1 file(s) translated: 0 error(s), 1 warning(s)",
    ]
    assert (tmp_path / "e.hip").read_bytes() == b""
    write("blank.cu", b"  \n\n\t\n")
    code, err = cass("translate", "blank.cu", "-o", "blank.hip")
    assert code == 0
    assert "[cass-empty-input]" in lines(err)[0]
    assert (tmp_path / "blank.hip").read_bytes() == b"  \n\n\t\n"


@pytest.mark.parametrize(
    ("source", "output", "diagnostic"),
    [
        (
            "int x;\n/* cut short\ncudaMalloc(&p, 4);\n",
            "int x;\n/* cut short\ncudaMalloc(&p, 4);\n",
            "t.cu:2:1: warning: unterminated comment; is the file truncated? "
            "[cass-truncated-input]",
        ),
        (
            "void f() {\n  cudaMalloc(&p, 4);\n",
            "void f() {\n  hipMalloc(&p, 4);\n",
            "t.cu:1:10: warning: this '{' is never closed; is the file truncated? "
            "[cass-truncated-input]",
        ),
    ],
)
def test_truncated_input_is_translated_with_a_warning(
    tmp_path: Path, source: str, output: str, diagnostic: str
) -> None:
    write("t.cu", source)
    code, err = cass("translate", "t.cu", "-o", "t.hip")
    assert code == 0
    assert lines(err) == [diagnostic, "cass: 1 file(s) translated: 0 error(s), 1 warning(s)"]
    assert (tmp_path / "t.hip").read_text() == (RT + output if output.strip() else output)


def test_one_bad_file_does_not_stop_the_others(tmp_path: Path) -> None:
    write("good.cu", CLEAN)
    write("lat.cu", b"// \xff\n")
    write("trunc.cu", "void f() {\n")
    write("obj.cu", ELF)
    code, err = cass(
        "translate", "good.cu", "lat.cu", "trunc.cu", "obj.cu", "missing.cu", "--out-dir", "out"
    )
    assert code == 2
    check_stderr_shape(err)
    errors = [line for line in lines(err) if line.startswith("cass: error:")]
    assert errors == [
        "cass: error: lat.cu:1:4: not UTF-8 text (byte 0xff); CASS reads sources as UTF-8",
        "cass: error: obj.cu: binary file (NUL byte at offset 7); CASS translates CUDA source text",
        "cass: error: missing.cu: no such file",
    ]
    # Each failed file is one error, as the exit status says.
    assert lines(err)[-1] == "cass: 2 file(s) translated: 3 error(s), 1 warning(s)"
    assert files_under(tmp_path / "out") == ["good.hip", "trunc.hip"]
    assert (tmp_path / "out/good.hip").read_text() == CLEAN_HIP
    assert (tmp_path / "out/trunc.hip").read_text() == RT + "void f() {\n"


def test_bad_file_in_a_tree(tmp_path: Path) -> None:
    write("src/a.cu", CLEAN)
    write("src/sub/bad.cuh", b"\xc3\x28\n")
    code, err = cass("translate", "src", "--out-dir", "dst")
    assert code == 2
    [error] = [line for line in lines(err) if line.startswith("cass: error:")]
    assert error.endswith("bad.cuh:1:1: not UTF-8 text (byte 0xc3); CASS reads sources as UTF-8")
    assert files_under(tmp_path / "dst") == ["a.hip"]


# --- diagnostics --------------------------------------------------------------------------


def test_every_diagnostic_has_the_compiler_format() -> None:
    name = unsupported_function()
    source = (
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float *x) {\n"
        "  int lane = threadIdx.x & 31;\n"
        "  int warp = threadIdx.x / 32;\n"
        f"  x[lane] = {name}(x[warp]);\n"
        '  asm volatile("brkpt;");\n'
        "  k<<<1, 1>>>(x);\n"
        "/* never closed\n"
    )
    write("all.cu", source)
    code, err = cass("translate", "all.cu", "-o", "all.hip")
    assert code == 1
    diags = [line for line in lines(err) if not line.startswith("cass: ")]
    assert len(diags) >= 5
    for line in diags:
        assert DIAG.match(line), line
        assert line.startswith("all.cu:")
    rules = {line.rsplit("[", 1)[1].rstrip("]") for line in diags}
    assert {
        "cass-warp-lane-arith",
        "cass-unsupported-api",
        "cass-inline-ptx",
        "cass-truncated-input",
    } <= rules
    assert LANE_DIAG.format(path="all.cu", severity="warning") in diags
    assert (
        "all.cu:6:3: error: inline PTX instruction 'brkpt' has no HIP translation [cass-inline-ptx]"
    ) in diags
    assert any(line.startswith("all.cu:5:13: error: ") for line in diags)
    assert (
        "all.cu:8:1: warning: unterminated comment; is the file truncated? "
        "[cass-truncated-input]" in diags
    )


def test_diagnostic_position_is_exact() -> None:
    write("w.cu", LANE)
    _, err = cass("translate", "w.cu", "-o", "w.hip")
    line = lines(err)[0]
    assert line == LANE_DIAG.format(path="w.cu", severity="warning")
    path, lineno, col, _rest = line.split(":", 3)
    assert (path, lineno, col) == ("w.cu", "3", "28")
    source_line = LANE.splitlines()[int(lineno) - 1]
    assert source_line[int(col) - 1 :].startswith("31;")


def test_columns_count_bytes() -> None:
    # 'é' is two bytes: the '31' is at character 34 but byte 35.
    write("u.cu", "/* é */ int lane = threadIdx.x & 31;\n")
    _, err = cass("translate", "u.cu", "-o", "u.hip")
    assert lines(err)[0].startswith("u.cu:1:35: warning: '& 31'")


def test_diagnostics_name_the_path_as_given(tmp_path: Path) -> None:
    write("deep/er/w.cu", LANE)
    _, err = cass("translate", "deep/er/w.cu", "-o", "w.hip")
    assert lines(err)[0] == LANE_DIAG.format(path="deep/er/w.cu", severity="warning")
    _, err = cass("translate", tmp_path / "deep/er/w.cu", "-o", "w.hip")
    assert lines(err)[0] == LANE_DIAG.format(path=tmp_path / "deep/er/w.cu", severity="warning")


# --- stats --------------------------------------------------------------------------------


def stats_sources() -> None:
    write("a.cu", CLEAN)
    write("b.cu", "void f() { cudaFree(p); }\n")


def test_stats_json() -> None:
    stats_sources()
    code, err = cass("translate", "a.cu", "b.cu", "--out-dir", "out", "--stats", "json")
    assert code == 0
    start, end = err.index("{"), err.rindex("}") + 1
    doc = json.loads(err[start:end])
    assert set(doc) == {"files", "total"}
    assert set(doc["files"]) == {"a.cu", "b.cu"}
    a = doc["files"]["a.cu"]
    assert a == {
        "converted": 4,
        "unconverted": 0,
        "lines": 8,
        "bytes": len(CLEAN.encode()),
        "families": {"runtime": {"converted": 4, "unconverted": 0}},
    }
    assert doc["files"]["b.cu"]["families"] == {"runtime": {"converted": 1, "unconverted": 0}}
    assert doc["total"]["converted"] == 5
    assert doc["total"]["lines"] == 9
    assert doc["total"]["families"]["runtime"] == {"converted": 5, "unconverted": 0}


def test_stats_count_unconverted(tmp_path: Path) -> None:
    name = unsupported_function()
    family = next(r.family for f in load_tables() for r in f.rows if r.cuda == name)
    write("u.cu", f"float f(float x) {{ return {name}(x); }}\n")
    code, _ = cass("translate", "u.cu", "-o", "u.hip", "--stats", "json", "--stats-file", "s.json")
    assert code == 1
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["files"]["u.cu"]["families"][family] == {"converted": 0, "unconverted": 1}
    assert doc["total"]["unconverted"] == 1


def test_stats_csv() -> None:
    stats_sources()
    code, err = cass("translate", "a.cu", "b.cu", "--out-dir", "out", "--stats", "csv")
    assert code == 0
    body = err[: err.index("cass: ")]
    rows = list(csv.reader(io.StringIO(body)))
    assert rows == [
        ["file", "family", "converted", "unconverted"],
        ["a.cu", "runtime", "4", "0"],
        ["b.cu", "runtime", "1", "0"],
        ["TOTAL", "runtime", "5", "0"],
    ]


def test_stats_text() -> None:
    stats_sources()
    code, err = cass("translate", "a.cu", "b.cu", "--out-dir", "out", "--stats")
    assert code == 0
    got = lines(err)
    assert got[0] == f"a.cu: 4 converted, 0 unconverted (8 lines, {len(CLEAN)} bytes)"
    assert got[1].split() == ["runtime", "4", "converted", "0", "unconverted"]
    assert got[2] == "b.cu: 1 converted, 0 unconverted (1 lines, 26 bytes)"
    assert got[3].split() == ["runtime", "1", "converted", "0", "unconverted"]
    assert got[4] == f"total: 5 converted, 0 unconverted (9 lines, {len(CLEAN) + 26} bytes)"
    assert got[5].split() == ["runtime", "5", "converted", "0", "unconverted"]
    assert got[6:] == ["cass: 2 file(s) translated: 0 error(s), 0 warning(s)"]


def test_stats_file(tmp_path: Path) -> None:
    stats_sources()
    code, err = cass(
        "translate",
        "a.cu",
        "b.cu",
        "--out-dir",
        "out",
        "--stats",
        "csv",
        "--stats-file",
        "reports/stats.csv",
    )
    assert code == 0
    assert lines(err) == ["cass: 2 file(s) translated: 0 error(s), 0 warning(s)"]
    text = (tmp_path / "reports/stats.csv").read_text()
    assert text.splitlines()[0] == "file,family,converted,unconverted"
    assert "TOTAL,runtime,5,0" in text.splitlines()


def test_stats_skip_failed_files(tmp_path: Path) -> None:
    stats_sources()
    write("bad.cu", ELF)
    code, _ = cass(
        "translate",
        "a.cu",
        "bad.cu",
        "--out-dir",
        "out",
        "--stats",
        "json",
        "--stats-file",
        "s.json",
    )
    assert code == 2
    doc = json.loads((tmp_path / "s.json").read_text())
    assert set(doc["files"]) == {"a.cu"}


# --- launch syntax and HIP versions -------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("k<<<g, b>>>(x, y);", "hipLaunchKernelGGL(k, g, b, 0, 0, x, y);"),
        ("k<<<g, b, smem>>>(x);", "hipLaunchKernelGGL(k, g, b, smem, 0, x);"),
        ("k<<<g, b, smem, stream>>>(x, y);", "hipLaunchKernelGGL(k, g, b, smem, stream, x, y);"),
        ("k<float, 4><<<1, 64>>>(p);", "hipLaunchKernelGGL((k<float, 4>), 1, 64, 0, 0, p);"),
        ("k<<<1, 1>>>();", "hipLaunchKernelGGL(k, 1, 1, 0, 0);"),
        (
            "ns::k<<<dim3(n / 256, 1), dim3(256)>>>(f(a, b), c);",
            "hipLaunchKernelGGL(ns::k, dim3(n / 256, 1), dim3(256), 0, 0, f(a, b), c);",
        ),
    ],
)
def test_launch_syntax_ggl(tmp_path: Path, source: str, expected: str) -> None:
    write("l.cu", f"void run() {{\n  {source}\n}}\n")
    code, err = cass("translate", "l.cu", "-o", "l.hip", "--launch-syntax", "ggl")
    assert code == 0, err
    assert (tmp_path / "l.hip").read_text() == RT + f"void run() {{\n  {expected}\n}}\n"
    # Chevrons are the default, and HIP accepts them.
    assert cass("translate", "l.cu", "-o", "c.hip")[0] == 0
    assert (tmp_path / "c.hip").read_text() == RT + f"void run() {{\n  {source}\n}}\n"


def test_launch_syntax_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write("l.cu", "k<<<1, 2>>>(a);\n")
    monkeypatch.setenv("CASS_LAUNCH_SYNTAX", "ggl")
    assert cass("translate", "l.cu", "-o", "l.hip")[0] == 0
    assert (tmp_path / "l.hip").read_text() == RT + "hipLaunchKernelGGL(k, 1, 2, 0, 0, a);\n"
    assert cass("translate", "l.cu", "-o", "l.hip", "--launch-syntax", "chevrons")[0] == 0
    assert (tmp_path / "l.hip").read_text() == RT + "k<<<1, 2>>>(a);\n"
    monkeypatch.setenv("CASS_LAUNCH_SYNTAX", "bogus")
    code, err = cass("translate", "l.cu", "-o", "l.hip")
    assert code == 2
    assert lines(err) == ["cass: error: CASS_LAUNCH_SYNTAX='bogus': expected chevrons or ggl"]


@pytest.mark.parametrize(
    ("version", "expected"),
    [("5.2", SHFL_OLD), ("6.4", SHFL_OLD), ("7.0", SHFL_NEW), ("7.1.25424", SHFL_NEW)],
)
def test_hip_version_option(tmp_path: Path, version: str, expected: str) -> None:
    write("s.cu", SHFL)
    code, err = cass("translate", "s.cu", "-o", "s.hip", "--hip-version", version)
    assert code == 0, err
    assert (tmp_path / "s.hip").read_text() == RT + expected


def test_hip_version_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write("s.cu", SHFL)
    monkeypatch.setenv("CASS_HIP_VERSION", "5.2")
    assert cass("translate", "s.cu", "-o", "s.hip")[0] == 0
    assert (tmp_path / "s.hip").read_text() == RT + SHFL_OLD
    monkeypatch.setenv("CASS_HIP_VERSION", "7.0")
    assert cass("translate", "s.cu", "-o", "s.hip")[0] == 0
    assert (tmp_path / "s.hip").read_text() == RT + SHFL_NEW
    # The option beats the variable.
    assert cass("translate", "s.cu", "-o", "s.hip", "--hip-version", "5.2")[0] == 0
    assert (tmp_path / "s.hip").read_text() == RT + SHFL_OLD


# --- tables -------------------------------------------------------------------------------


def test_tables_csv(capsys: pytest.CaptureFixture[str]) -> None:
    assert cass("tables", "--format", "csv") == (0, "")
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == [
        "family",
        "section",
        "cuda",
        "hip",
        "kind",
        "status",
        "since",
        "legacy",
        "rewrite",
        "note",
    ]
    body = rows[1:]
    assert len(body) == sum(len(f.rows) for f in load_tables())
    assert all(len(r) == 10 for r in body)
    by_name = {r[2]: r for r in body}
    assert by_name["cudaMalloc"][:6] == [
        "runtime",
        "Memory management",
        "cudaMalloc",
        "hipMalloc",
        "function",
        "supported",
    ]
    assert {r[5] for r in body} <= {"supported", "unsupported", "deprecated"}


def test_tables_family_filter(capsys: pytest.CaptureFixture[str]) -> None:
    assert cass("tables", "--format", "csv", "--family", "runtime") == (0, "")
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))[1:]
    assert rows
    assert {r[0] for r in rows} == {"runtime"}


def test_tables_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert cass("tables", "--family", "runtime") == (0, "")
    out = capsys.readouterr().out
    assert out.startswith("# ")
    assert "| `cudaMalloc` | `hipMalloc` | function | supported |" in out


# --- the installed entry points -----------------------------------------------------------


def run_script(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    keep = ("CASS_VERIFY", "CASS_CACHE_DIR", "CASS_WARP")  # conftest.py and _clean_env set them
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASS_") or k in keep}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, timeout=120, check=False)


def test_console_script(tmp_path: Path) -> None:
    exe = shutil.which("cass")
    assert exe, "the cass console script is not installed"
    write("a.cu", CLEAN)
    write("w.cu", LANE)
    done = run_script([exe, "translate", "a.cu", "-o", "a.hip"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "a.hip").read_text() == CLEAN_HIP
    done = run_script([exe, "translate", "w.cu", "-o", "-", "--werror"], tmp_path)
    assert done.returncode == 1
    assert done.stdout == (RT + LANE).encode()
    assert done.stderr.decode().splitlines()[0] == LANE_DIAG.format(path="w.cu", severity="error")
    done = run_script([exe], tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(b"usage: cass")
    done = run_script([exe, "--version"], tmp_path)
    assert (done.returncode, done.stdout) == (0, f"cass {__version__}\n".encode())


def test_python_dash_m(tmp_path: Path) -> None:
    write("a.cu", CLEAN)
    write("bad.cu", b"// \xe9\n")
    done = run_script(
        [sys.executable, "-m", "cass_build", "translate", "a.cu", "-o", "-"], tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == CLEAN_HIP.encode()
    done = run_script(
        [sys.executable, "-m", "cass_build", "translate", "bad.cu", "-o", "bad.hip"], tmp_path
    )
    assert done.returncode == 2
    err = done.stderr.decode()
    assert "Traceback" not in err
    assert lines(err)[:2] == [
        "cass: error: bad.cu:1:4: not UTF-8 text (byte 0xe9); CASS reads sources as UTF-8",
        "cass: hint: re-save the file as UTF-8 (iconv -f latin1 -t utf-8)",
    ]
    assert not (tmp_path / "bad.hip").exists()
    done = run_script([sys.executable, "-m", "cass_build", "tables", "--format", "csv"], tmp_path)
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) > 1


def test_verbose_shows_the_traceback() -> None:
    err = io.StringIO()
    assert main(["-v", "translate", "a.cu", "b.cu", "-o", "x"], err=err) == 2
    text = err.getvalue()
    assert text.startswith("Traceback")
    assert "UsageError" in text
    assert text.splitlines()[-1] == "cass: error: -o takes one input; use --out-dir for several"
