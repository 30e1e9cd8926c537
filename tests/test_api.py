"""The Python API: ``translate``, ``translate_file``, ``Settings`` and the error tree."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cass_build
from cass_build import CassError, Settings, Translation, translate, translate_file
from cass_build.errors import InputError, OutputError, TableError, UsageError
from cass_build.rules.diagnostics import Diagnostic
from cass_build.rules.stats import FamilyCount, Stats

SOURCE = (
    "#include <cuda_runtime.h>\n"
    "__global__ void k(float *x) {\n"
    "  int lane = threadIdx.x & 31;\n"
    "  x[lane] = 0;\n"
    "}\n"
    "void run(float *d) {\n"
    "  cudaMalloc(&d, 64);\n"
    "  cudaFree(d);\n"
    "}\n"
)
LANE_MESSAGE = "'& 31' assumes 32-lane warps; AMD wavefronts have 64 lanes (use warpSize)"
# --warp native: its warp-size warning is these tests' example diagnostic.
V64 = Settings(hip_version=(6, 4), warp="native")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CASS_HIP_VERSION", "CASS_LAUNCH_SYNTAX", "CASS_WARP"):
        monkeypatch.delenv(name, raising=False)


# --- translate ----------------------------------------------------------------------------


def test_translate_returns_a_translation() -> None:
    t = translate(SOURCE, path="k.cu", options=V64)
    assert isinstance(t, Translation)
    assert t.text == (
        SOURCE.replace("cuda_runtime.h", "hip/hip_runtime.h")
        .replace("cudaMalloc", "hipMalloc")
        .replace("cudaFree", "hipFree")
    )
    assert t.path == "k.cu"
    assert t.strategy == "rules"
    assert t.diagnostics == (
        Diagnostic("k.cu", 3, 28, "warning", "cass-warp-lane-arith", LANE_MESSAGE),
    )
    assert (t.errors, t.warnings) == (0, 1)
    assert t.stats.families["runtime"] == FamilyCount(converted=3, unconverted=0)
    assert t.stats.lines == 9
    assert t.stats.bytes == len(SOURCE.encode())
    assert t.stats.converted >= 3
    assert t.stats.unconverted == 0


def test_diagnostic_str_is_the_compiler_format() -> None:
    [d] = translate(SOURCE, path="dir/k.cu", options=V64).diagnostics
    assert isinstance(d, Diagnostic)
    assert str(d) == f"dir/k.cu:3:28: warning: {LANE_MESSAGE} [cass-warp-lane-arith]"
    assert str(d.promoted()) == f"dir/k.cu:3:28: error: {LANE_MESSAGE} [cass-warp-lane-arith]"
    assert d.promoted().promoted() == d.promoted()
    note = Diagnostic("a.cu", 1, 2, "note", "cass-x", "m")
    assert note.promoted() is note


def test_default_path_is_string() -> None:
    [d] = translate("int lane = threadIdx.x & 31;\n", options=V64).diagnostics
    assert str(d).startswith("<string>:1:26: warning: ")


def test_translation_is_immutable() -> None:
    t = translate("int x;\n", options=V64)
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.text = "changed"  # type: ignore[misc]


def test_empty_source_warns() -> None:
    for source in ("", " \n\t\n"):
        t = translate(source, path="e.cu", options=V64)
        assert t.text == source
        assert [str(d) for d in t.diagnostics] == [
            "e.cu:1:1: warning: empty source file; nothing to do [cass-empty-input]"
        ]


def test_comments_and_strings_keep_cuda_names() -> None:
    source = (
        "// cudaMalloc(&p, 4);\n"
        "/* cudaMalloc\n   cudaFree */\n"
        'const char *s = "cudaMalloc", *t = "call cudaFree(p)";\n'
        "char c = 'c'; cudaMalloc(&p, 4); // it's cudaFree\n"
        "#define CHECK(x) x /* cudaFree */\n"
        "cudaFree(p);\n"
    )
    assert translate(source, options=V64).text == (
        "// cudaMalloc(&p, 4);\n"
        "/* cudaMalloc\n   cudaFree */\n"
        'const char *s = "cudaMalloc", *t = "call cudaFree(p)";\n'
        "char c = 'c'; hipMalloc(&p, 4); // it's cudaFree\n"
        "#define CHECK(x) x /* cudaFree */\n"
        "hipFree(p);\n"
    )


def test_raw_strings_keep_cuda_names() -> None:
    source = (
        'auto a = R"(cudaMalloc)";\n'
        'auto b = R"x(cudaFree )" cudaMalloc)x";\n'
        'auto c = u8R"d(\ncudaMalloc\n)d"; cudaFree(p);\n'
        'auto d = LR"(cudaMalloc)"; auto e = u8"cudaMalloc";\n'
    )
    assert translate(source, options=V64).text == (
        'auto a = R"(cudaMalloc)";\n'
        'auto b = R"x(cudaFree )" cudaMalloc)x";\n'
        'auto c = u8R"d(\ncudaMalloc\n)d"; hipFree(p);\n'
        'auto d = LR"(cudaMalloc)"; auto e = u8"cudaMalloc";\n'
    )


def test_only_whole_identifiers_are_renamed() -> None:
    source = "mycudaMalloc(1); cudaMallocX(2); p->cudaMalloc(3); s.cudaFree(4); cudaMalloc(5);\n"
    assert translate(source, options=V64).text == (
        "mycudaMalloc(1); cudaMallocX(2); p->cudaMalloc(3); s.cudaFree(4); hipMalloc(5);\n"
    )


def test_line_endings_and_utf8_are_kept() -> None:
    source = "// héllo wörld\r\nint main() {\r\n  cudaFree(0); // ✓\r\n}\r\n"
    assert translate(source, options=V64).text == source.replace("cudaFree", "hipFree")


def test_cu_includes_follow_the_setting() -> None:
    source = '#include "kernels.cu"\n#include <kernels.cu>\n#include "k.cuh"\n'
    assert translate(source, options=V64).text == source
    renamed = translate(source, options=V64.replace(rename_cu_includes=True)).text
    assert renamed == '#include "kernels.hip"\n#include <kernels.cu>\n#include "k.cuh"\n'


def test_hip_version_setting() -> None:
    source = "v += __shfl_down_sync(0xffffffff, v, 1);\n"
    old = translate(source, options=Settings(hip_version=(5, 2), warp="native")).text
    new = translate(source, options=Settings(hip_version=(7, 0), warp="native")).text
    assert old == "v += __shfl_down(v, 1);\n"
    assert new == "v += __shfl_down_sync(0xffffffffffffffffull, v, 1);\n"


def test_environment_applies_only_without_options(monkeypatch: pytest.MonkeyPatch) -> None:
    source = "k<<<1, 2>>>(a);\n"
    monkeypatch.setenv("CASS_LAUNCH_SYNTAX", "ggl")
    assert translate(source).text == "hipLaunchKernelGGL(k, 1, 2, 0, 0, a);\n"
    assert translate(source, options=Settings()).text == source
    monkeypatch.setenv("CASS_HIP_VERSION", "5.2")
    monkeypatch.setenv("CASS_WARP", "native")
    shfl = "__shfl_xor_sync(0xffffffff, v, 1)"
    assert translate(shfl).text == "__shfl_xor(v, 1)"
    monkeypatch.setenv("CASS_HIP_VERSION", "7.1")
    assert translate(shfl).text == "__shfl_xor_sync(0xffffffffffffffffull, v, 1)"


def test_ggl_launches() -> None:
    ggl = Settings(hip_version=(6, 4), launch_syntax="ggl")
    cases = {
        "k<<<g, b>>>(x, y);": "hipLaunchKernelGGL(k, g, b, 0, 0, x, y);",
        "k<<<g, b, smem, stream>>>(x, y);": "hipLaunchKernelGGL(k, g, b, smem, stream, x, y);",
        "k<float, 4><<<1, 64>>>(p);": "hipLaunchKernelGGL((k<float, 4>), 1, 64, 0, 0, p);",
        "k<<<1, 1>>>();": "hipLaunchKernelGGL(k, 1, 1, 0, 0);",
        "k<<<g,\n  b>>>(x,\n  y);": "hipLaunchKernelGGL(k, g,\n  b, 0, 0, x,\n  y);",
    }
    for source, expected in cases.items():
        t = translate(source, options=ggl)
        assert t.text == expected, source
        assert t.diagnostics == (), source


def test_ggl_launch_through_a_pointer_expression_is_kept() -> None:
    ggl = Settings(hip_version=(6, 4), launch_syntax="ggl")
    t = translate("kernels[i]<<<1, 1>>>(a);", path="l.cu", options=ggl)
    assert t.text == "kernels[i]<<<1, 1>>>(a);"
    assert [d.rule for d in t.diagnostics] == ["cass-launch-syntax"]
    assert (t.diagnostics[0].line, t.diagnostics[0].column) == (1, 11)


# --- translate_file -----------------------------------------------------------------------


def test_translate_file(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    before = path.stat().st_mtime_ns
    for arg in (path, str(path)):
        t = translate_file(arg, options=V64)
        assert t.text == translate(SOURCE, options=V64).text
        assert t.path == str(path)
        assert [str(d) for d in t.diagnostics] == [
            f"{path}:3:28: warning: {LANE_MESSAGE} [cass-warp-lane-arith]"
        ]
    assert path.read_text() == SOURCE
    assert path.stat().st_mtime_ns == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]


def test_translate_file_reads_bytes_exactly(tmp_path: Path) -> None:
    # No newline translation on read: CRLF and a missing final newline survive.
    path = tmp_path / "k.cu"
    path.write_bytes(b"cudaFree(0);\r\nint x;")
    assert translate_file(path, options=V64).text == "hipFree(0);\r\nint x;"


@pytest.mark.parametrize(
    ("content", "message", "hint"),
    [
        (
            b"int x;\n// caf\xe9\n",
            "{path}:2:7: not UTF-8 text (byte 0xe9); CASS reads sources as UTF-8",
            "re-save the file as UTF-8 (iconv -f latin1 -t utf-8)",
        ),
        (
            b"\x7fELF\x02\x01\x01\x00\x00\x00",
            "{path}: binary file (NUL byte at offset 7); CASS translates CUDA source text",
            "pass the .cu/.cuh source, not an object file or archive",
        ),
        (
            b"/*" + b"x" * 2000 + b"*/",
            "{path}: 2004 bytes is over the 1000 bytes limit for one source",
            "split the file, or raise the limit with --max-bytes",
        ),
    ],
)
def test_translate_file_bad_input(tmp_path: Path, content: bytes, message: str, hint: str) -> None:
    path = tmp_path / "bad.cu"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        translate_file(path, options=Settings(max_bytes=1000))
    assert isinstance(info.value, CassError)
    assert str(info.value) == message.format(path=path)
    assert "\n" not in str(info.value)
    assert info.value.hint == hint


def test_translate_file_missing_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.cu: no such file$"):
        translate_file(tmp_path / "nope.cu")
    with pytest.raises(InputError, match=r"d\.cu: is a directory$") as info:
        (tmp_path / "d.cu").mkdir()
        translate_file(tmp_path / "d.cu")
    assert info.value.hint == "pass --out-dir to translate a whole tree"


def test_translate_bad_strings() -> None:
    with pytest.raises(InputError) as info:
        translate("int a;\x00", path="s.cu")
    assert str(info.value) == (
        "s.cu: binary file (NUL byte at offset 6); CASS translates CUDA source text"
    )
    # Text decoded with surrogateescape keeps the byte that was not UTF-8.
    latin = b"int x;\n// caf\xe9\n".decode("utf-8", "surrogateescape")
    with pytest.raises(InputError, match=r"^s\.cu:2:7: not UTF-8 text \(byte 0xe9\)"):
        translate(latin, path="s.cu")
    # A lone surrogate is not text either: an InputError, not a UnicodeEncodeError.
    with pytest.raises(InputError) as info:
        translate("int é;\nint x\ud800y;\n", path="s.cu")
    assert str(info.value) == "s.cu:2:6: not UTF-8 text (lone surrogate U+D800)"
    with pytest.raises(InputError, match=r"^<string>: 21 bytes is over the 20 bytes limit"):
        translate("x" * 21, options=Settings(max_bytes=20))


def test_error_tree() -> None:
    for cls in (InputError, OutputError, TableError, UsageError):
        assert issubclass(cls, CassError)
    assert cass_build.CassError is CassError
    err = InputError("a.cu: bad", hint="fix it")
    assert (str(err), err.hint) == ("a.cu: bad", "fix it")
    assert CassError("x").hint == ""


# --- settings -----------------------------------------------------------------------------


def test_settings() -> None:
    s = Settings()
    assert s.hip_version is None
    assert s.launch_syntax == "chevrons"
    assert s.rename_cu_includes is False
    assert s.max_bytes == 64 * 1024 * 1024
    t = s.replace(hip_version=(6, 2), launch_syntax="ggl")
    assert (t.hip_version, t.launch_syntax) == ((6, 2), "ggl")
    assert s.hip_version is None
    assert t.resolved_hip_version() == (6, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.max_bytes = 1  # type: ignore[misc]


def test_settings_from_env() -> None:
    env = {"CASS_HIP_VERSION": "6.2.41133", "CASS_LAUNCH_SYNTAX": "ggl", "OTHER": "x"}
    s = Settings.from_env(env)
    assert (s.hip_version, s.launch_syntax) == ((6, 2), "ggl")
    assert Settings.from_env({}) == Settings()
    assert Settings.from_env({"CASS_HIP_VERSION": ""}) == Settings()
    with pytest.raises(UsageError, match=r"^CASS_HIP_VERSION: invalid HIP version 'x'"):
        Settings.from_env({"CASS_HIP_VERSION": "x"})
    with pytest.raises(UsageError, match=r"^CASS_LAUNCH_SYNTAX='x': expected chevrons or ggl$"):
        Settings.from_env({"CASS_LAUNCH_SYNTAX": "x"})


def test_stats_add() -> None:
    a = Stats({"runtime": FamilyCount(2, 1)}, lines=3, bytes=10)
    b = Stats({"runtime": FamilyCount(1, 0), "math": FamilyCount(0, 4)}, lines=1, bytes=5)
    total = a + b
    assert total.families == {"runtime": FamilyCount(3, 1), "math": FamilyCount(0, 4)}
    assert (total.converted, total.unconverted, total.lines, total.bytes) == (3, 5, 4, 15)


# --- import cost --------------------------------------------------------------------------


def run_python(code: str, tmp_path: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASS_")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_is_cheap(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import cass_build\n"
        "assert cass_build.__version__\n"
        "cass_build.Settings, cass_build.CassError\n"
        "new = set(sys.modules) - before\n"
        "print(' '.join(sorted(new)))\n"
        "cass_build.translate('cudaFree(0);')\n"
        "print('cass_build._core' in sys.modules)\n"
    )
    first, second = run_python(code, tmp_path).splitlines()
    loaded = set(first.split())
    assert "cass_build" in loaded
    for heavy in ("cass_build._core", "onnxruntime", "setuptools", "numpy", "torch"):
        assert not any(m == heavy or m.startswith(heavy + ".") for m in loaded), heavy
    # The check above can fail: translating does load the core.
    assert second == "True"


def test_lazy_attributes() -> None:
    assert set(cass_build.__all__) <= set(dir(cass_build))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = cass_build.nope  # type: ignore[attr-defined]


# --- regressions: core bugs found while writing these tests --------------------------------


def test_bom_does_not_hide_the_first_token() -> None:
    bom = "\ufeff"
    assert translate(bom + "#include <cuda_runtime.h>\n", options=V64).text == (
        bom + "#include <hip/hip_runtime.h>\n"
    )
    assert translate(bom + "cudaFree(0);\n", options=V64).text == bom + "hipFree(0);\n"
    assert [d.rule for d in translate(bom + 'asm("x");\n', options=V64).diagnostics] == [
        "cass-inline-ptx"
    ]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("::k<<<1, 1>>>(a);", "hipLaunchKernelGGL(::k, 1, 1, 0, 0, a);"),
        ("::ns::k<<<1, 1>>>(a);", "hipLaunchKernelGGL(::ns::k, 1, 1, 0, 0, a);"),
        # A kernel pointer in a struct is not a kernel name GGL can take: the chevrons
        # stay (HIP accepts them), rather than half of the expression being moved.
        ("s.fn<<<1, 1>>>(a);", "s.fn<<<1, 1>>>(a);"),
        ("p->fn<<<1, 1>>>(a);", "p->fn<<<1, 1>>>(a);"),
    ],
)
def test_ggl_launch_keeps_the_whole_kernel_expression(source: str, expected: str) -> None:
    ggl = Settings(hip_version=(6, 4), launch_syntax="ggl")
    assert translate(source, options=ggl).text == expected


# --- one copy of the text: ASCII str read in place, the header put in front in place ------

# Outputs that need each of warp_include's headers, none, or already include them; the
# header's lines are worked out in C++ on the output where it lies (python/warp_header.cpp)
# and must be what rules.warp_include adds to the same output.
HEADER_CASES = [
    SOURCE,
    "__global__ void k(int* o) { o[0] = __ballot_sync(0xffffffff, 1); }\n",
    "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
    "__global__ void k() { cg::thread_block b = cg::this_thread_block(); b.sync(); }\n",
    "#include <cuda_fp16.h>\n__global__ void k(__half2* h) { h[0] = __hmax2(h[0], h[1]); }\n",
    "#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat162* p, float2 f) {\n"
    "  p[0] = __float22bfloat162_rn(f);\n}\n",
    "#include <cass/warp.h>\n__global__ void k(int* o) { o[0] = __ballot_sync(~0u, 1); }\n",
    '  # include "cass/cooperative_groups.h"\n__global__ void k() { __syncwarp(); }\n',
    "// __cass_ named in a comment, x__cass_y not at a word's start\nint x__cass_y;\n",
    "// __cass_cg in a comment\nint __cass_fp16_x, __cass_rt_y, __cass_bf16_z;\n",
    "int x;\r\n__global__ void k(int* o) {\r\n  o[0] = __activemask();\r\n}\r\n",
    "\ufeff__global__ void k(int* o) { o[0] = __ballot_sync(0xffffffff, 1); }\n",
    "\ufeff#include <cass/warp.h>\nint y = __cass_warp_size;\n",
    "",
]


@pytest.mark.parametrize("source", HEADER_CASES)
def test_header_in_place_is_warp_include(source: str) -> None:
    from cass_build.rules import translate_bytes, warp_include

    settings = Settings(hip_version=(5, 2))
    data = source.encode()
    plain = translate_bytes(data, "h.cu", settings)
    expected = warp_include(plain.data)
    placed = translate_bytes(data, "h.cu", settings, warp_header=True)
    assert placed.data == expected
    assert placed.diagnostics == plain.diagnostics
    assert translate(source, path="h.cu", options=settings).data == expected


def test_header_cases_cover_every_header() -> None:
    """The cases above are only worth as much as the headers they make the output need."""
    from cass_build.rules import translate_bytes, warp_include

    settings = Settings(hip_version=(5, 2))
    heads = b"".join(
        warp_include(translate_bytes(s.encode(), "h.cu", settings).data)[:200] for s in HEADER_CASES
    )
    for header in (b"warp", b"cooperative_groups", b"fp16", b"bf16", b"runtime"):
        assert b"#include <cass/" + header + b".h>\n" in heads, header


@pytest.mark.parametrize("source", [*HEADER_CASES, "\x1c\n", " \x0b\x0c\r\n", "\t"])
def test_ascii_text_is_translated_as_its_bytes(source: str) -> None:
    """translate() hands an ASCII str to the core as it lies, a str with other
    characters encoded: both must give what translate_file gives for the same bytes."""
    from cass_build.rules import translate_bytes

    for options in (Settings(hip_version=(5, 2)), V64):
        t = translate(source, path="a.cu", options=options)
        ruled = translate_bytes(source.encode(), "a.cu", options, warp_header=True)
        assert t.data == ruled.data
        assert t.stats == ruled.stats
        # Blank as bytes see it: \x1c-\x1f are blank to str.isspace(), not to bytes.
        empty = [d for d in t.diagnostics if d.rule == "cass-empty-input"]
        assert bool(empty) == (not source.encode() or source.encode().isspace())
        assert t.diagnostics == (*empty, *ruled.diagnostics)


def test_translate_file_matches_translate(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    for source in HEADER_CASES:
        path.write_bytes(source.encode())
        by_file = translate_file(path)
        by_text = translate(source, path=str(path))
        assert (by_file.data, by_file.diagnostics) == (by_text.data, by_text.diagnostics)


def test_core_takes_only_bytes_or_ascii_text() -> None:
    from cass_build.rules import translate_bytes

    assert translate_bytes("cudaFree(0);\n", "a.cu", V64).data == b"hipFree(0);\n"
    with pytest.raises(TypeError, match="ASCII"):
        translate_bytes("cudaFree(0); // é\n", "a.cu", V64)


def test_repeated_messages_share_one_object() -> None:
    """Diagnostics saying the same thing share their message: the objects are
    immutable, and a file with a warning per kernel would otherwise hold a copy each."""
    kernel = "__global__ void k{i}(int* o) {{ o[threadIdx.x & 31] = 0; }}\n"
    t = translate("".join(kernel.format(i=i) for i in range(50)), options=V64)
    messages = [d.message for d in t.diagnostics]
    assert len(messages) == 50 and set(messages) == {LANE_MESSAGE}
    assert len({id(m) for m in messages}) == 1
    assert [d.line for d in t.diagnostics] == list(range(1, 51))


def test_a_workspace_lent_back_gives_the_same_translations() -> None:
    """After a large translation the thread's workspace lends its buffers back to the
    kernel (MADV_FREE) and keeps them mapped: the pages may come back zeroed or as the
    last file left them. Either way the next files translate as in a fresh workspace."""
    from cass_build import _core
    from cass_build.rules import core_options, core_table
    from cass_build.rules.diagnostics import SEVERITIES

    unit = "__global__ void k{i}(int* o) {{ o[threadIdx.x & 31] = __ballot_sync(~0u, {i}); }}\n"
    big = "".join(unit.format(i=i) for i in range(30_000)).encode()  # > 16 MiB of tokens
    other = big.replace(b"__ballot_sync", b"cudaMalloc").replace(b"& 31", b"% 7")
    small = SOURCE.encode()
    table, options = core_table(), core_options(Settings(hip_version=(5, 2)))

    def run(data: bytes, workspace: object) -> tuple[object, ...]:
        args = (table, options, "w.cu", Diagnostic, SEVERITIES, workspace, True)
        return tuple(_core.translate_result(data, *args))

    reused = _core.Workspace()
    for data in (big, other, small, big, small):
        assert run(data, reused) == run(data, _core.Workspace())
