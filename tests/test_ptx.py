"""Inline PTX translated to HIP (cpp/src/ptx.cpp, docs/ptx.md): the text, and real hipcc builds."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cass_build import Settings, include_dir, translate
from tests.build_helpers import ARCHS, HIPCC, require
from tests.core_invariants import OPTIONS, check_invariants

FORMS = Path(__file__).parent / "fixtures" / "ptx" / "forms.cu"
NATIVE = Settings(hip_version=(5, 2), warp="native")
CUDA = Settings(hip_version=(5, 2), warp="cuda")


# What --warp cuda puts before a translation that calls <cass/warp.h> (rules.warp_include).
WARP_PROLOGUE = "#include <cass/warp.h>\n#line 1\n"


def hip(source: str, settings: Settings = NATIVE) -> str:
    """The translation without the warp header's include: the statements alone."""
    return translate(source, options=settings).text.removeprefix(WARP_PROLOGUE)


def diags(source: str, settings: Settings = NATIVE) -> list[tuple[str, str, str]]:
    return [
        (d.severity, d.rule, d.message) for d in translate(source, options=settings).diagnostics
    ]


def test_lane_id_in_each_warp_mode() -> None:
    src = 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(x));'
    body = "{ unsigned _ptx_0 = 0; _ptx_0 = (LANE); (x) = _ptx_0; }"
    assert hip(src) == body.replace("LANE", "__lane_id()")
    assert hip(src, CUDA) == body.replace("LANE", "__cass_lane_id()")
    assert diags(src, CUDA) == [
        (
            "note",
            "cass-inline-ptx-translated",
            "inline PTX translated to HIP (32-lane logical warps): mov.u32",
        )
    ]


def test_inputs_are_copied_in_and_outputs_out() -> None:
    # "+r" is read then written; an input that names the output's variable keeps its value.
    out = hip('asm("add.u32 %0, %0, %1;\\n\\tadd.u32 %0, %0, %1;" : "+r"(x) : "r"(x));')
    assert out == (
        "{ unsigned _ptx_0 = ((unsigned)(x)); unsigned _ptx_1 = ((unsigned)(x)); "
        "_ptx_0 = (((unsigned)(_ptx_0)) + ((unsigned)(_ptx_1))); "
        "_ptx_0 = (((unsigned)(_ptx_0)) + ((unsigned)(_ptx_1))); (x) = _ptx_0; }"
    )


def test_shuffle_width_comes_from_the_c_operand() -> None:
    src = 'asm("shfl.sync.down.b32 %0, %1, %2, 0x101f, 0xffff;" : "=r"(r) : "r"(v), "r"(d));'
    assert "__shfl_down(_ptx_1, (int)_ptx_2, 16)" in hip(src)
    assert "__cass_shfl_down_sync(((unsigned)(0xffffull)), _ptx_1, (int)_ptx_2, 16)" in hip(
        src, CUDA
    )
    # A clamp that is not the width's own stays untranslated, named.
    bad = 'asm("shfl.sync.down.b32 %0, %1, %2, 0x1003, 0xffff;" : "=r"(r) : "r"(v), "r"(d));'
    assert diags(bad)[0][2] == "inline PTX instruction 'shfl.sync.down.b32' has no HIP translation"


def test_statement_keeps_its_lines_comments_and_else() -> None:
    src = (
        "if (c)\n"
        '  asm("{\\n"  // scope\n'
        '      " .reg .pred p;\\n"\n'
        '      " setp.eq.u32 p, %1, 0;\\n"\n'
        '      " selp.u32 %0, 1, 2, p;\\n"\n'
        '      "}" : "=r"(r) : "r"(v));\n'
        "else\n"
        "  r = 3;\n"
    )
    out = hip(src)
    assert out.count("\n") == src.count("\n")
    assert "// scope" in out
    assert re.search(r"\}// scope\n\n\n\n\nelse\n", out), out  # the ';' went with the asm
    assert "bool _ptx__p_2 = 0;" in out and "_ptx_0 = (_ptx__p_2 ? " in out


def test_named_operands_labels_and_unique_ids() -> None:
    src = (
        'asm("{ .reg .pred p; setp.eq.u32 p, %[a], 0; @p bra L%=; add.u32 %[o], %[o], 1; L%=: }"'
        ' : [o] "+r"(r) : [a] "r"(v));'
    )
    out = hip(src)
    label = re.search(r"goto (_ptx_L\d+_L\d+);", out)
    assert label and f"{label.group(1)}:;" in out
    assert diags(src)[0][0] == "note"


def test_shared_addresses_from_cvta_become_pointers() -> None:
    src = (
        'asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: '
        '"r"((unsigned)__cvta_generic_to_shared(&tile[i])), "l"(g + i));'
    )
    out = hip(src)
    assert "*(uint4*)(((unsigned char*)((unsigned char*)(&tile[i]))))" in out
    assert [d[0] for d in diags(src)] == ["note"]  # no unsupported-api for the cvta
    # A 32-bit shared address from elsewhere cannot be turned back into a pointer.
    src = 'asm("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(addr));'
    assert diags(src)[0][2] == (
        "inline PTX instruction 'ld.shared.u32' has no HIP translation (a shared-memory address "
        "that is not __cvta_generic_to_shared(pointer))"
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('asm("tex.1d.v4.f32.s32 {%0,%1,%2,%3}, [%4, {%5}];" : "=f"(a), "=f"(b), "=f"(c), '
         '"=f"(d) : "l"(t), "r"(i));', "inline PTX instruction 'tex.1d.v4.f32.s32' has no HIP "
         "translation"),
        ('asm("mov.u32 %0, %%nsmid;" : "=r"(x));', "inline PTX instruction 'mov.u32' has no HIP "
         "translation (it reads the special register %nsmid)"),
        ('asm("add.rz.f32 %0, %1, %2;" : "=f"(x) : "f"(a), "f"(b));',
         "inline PTX instruction 'add.rz.f32' has no HIP translation"),
        ('asm(TEMPLATE : "=r"(x));', "inline PTX assembly has no meaning on AMD GPUs; rewrite it "
         "with HIP intrinsics (its template is not a string literal)"),
        ('asm("mov.u32 %0, %1;" : "=r"(x) : "m"(y));', "inline PTX assembly has no meaning on AMD "
         "GPUs; rewrite it with HIP intrinsics (the operand constraint \"m\")"),
        ('asm("mov.u32 %0, %3;" : "=r"(x));', "inline PTX instruction 'mov.u32' has no HIP "
         "translation (%3 names no operand)"),
    ],
)  # fmt: skip
def test_what_is_not_translated_is_an_error_naming_it(source: str, message: str) -> None:
    assert hip(source) == source  # left as it was
    assert diags(source) == [("error", "cass-inline-ptx", message)]


def test_an_asm_whose_operand_needs_its_own_rewrite_is_left_whole() -> None:
    # Renaming inside it would let a second pass translate it (a fuzz finding).
    src = 'asm("mov.u32 %0, %1;" : "=r"(x) : "r"(CUDNN_TYPE_FRACTION));'
    assert hip(src) == src
    assert diags(src)[0][2].endswith("(an operand that needs a rewrite of its own)")
    assert translate(src, options=Settings(hip_version=(7, 2), warp="native")).text == (
        "{ unsigned _ptx_0 = 0; unsigned _ptx_1 = ((unsigned)(MIOPEN_TYPE_FRACTION)); "
        "_ptx_0 = (_ptx_1); (x) = _ptx_0; }"
    )


def test_a_compiler_barrier_is_left_alone() -> None:
    src = 'asm volatile("" ::: "memory");'
    assert hip(src) == src
    assert diags(src) == []


def test_every_form_translates_in_both_modes_and_is_a_fixed_point() -> None:
    src = FORMS.read_text(encoding="utf-8")
    statements = len(re.findall(r"\basm\b", src)) - 1  # the barrier stays
    for settings in (NATIVE, CUDA):
        t = translate(src, options=settings)
        assert [str(d) for d in t.diagnostics if d.severity != "note"] == []
        notes = [d for d in t.diagnostics if d.rule == "cass-inline-ptx-translated"]
        assert len(notes) == statements
        assert translate(t.text, options=settings).text == t.text
        body = t.text.removeprefix(WARP_PROLOGUE)
        assert (body != t.text) == (settings is CUDA)
        assert body.count("\n") == src.count("\n")
    for options in OPTIONS:
        check_invariants(src.encode(), options)


def _compile(text: str, tmp_path: Path, name: str, *extra: str) -> None:
    source = tmp_path / f"{name}.hip"
    source.write_text(text, encoding="utf-8")
    arch = [f"--offload-arch={a}" for a in ARCHS]
    assert HIPCC is not None
    done = subprocess.run(
        [HIPCC, "-std=c++17", *arch, *extra, "-c", str(source), "-o", str(tmp_path / f"{name}.o")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HIP_PLATFORM": "amd"},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "warning" not in done.stderr, done.stderr[-4000:]


def test_every_native_form_compiles_for_amd(tmp_path: Path) -> None:
    require(hipcc=HIPCC)
    _compile(translate(FORMS.read_text(), options=NATIVE).text, tmp_path, "native")


def test_every_cuda_mode_form_compiles_for_amd(tmp_path: Path) -> None:
    require(hipcc=HIPCC)
    header = Path(include_dir()) / "cass" / "warp.h"
    if not header.is_file():
        pytest.skip("<cass/warp.h> is not in this tree yet (the warp branch adds it)")
    text = "#include <cass/warp.h>\n" + translate(FORMS.read_text(), options=CUDA).text
    _compile(text, tmp_path, "cuda", f"-I{include_dir()}")


# Float-to-integer cvt on NaN, infinities and values past the range (PTX ISA 9.0, cvt): NaN is
# 0 unless the source is .f64 or the destination 64 bits wide, then 1 << (bits - 1).
CVT_EDGES = [
    # (instruction, C++ source type, output constraint, C++ output type, {input: expected})
    ("cvt.rzi.s32.f32", "float", "=r", "int", {"NAN": "0", "INFINITY": "2147483647"}),
    ("cvt.rni.u32.f32", "float", "=r", "unsigned", {"NAN": "0", "-3.5f": "0"}),
    ("cvt.rzi.s32.f64", "double", "=r", "int", {"NAN": "-2147483648", "-1e300": "-2147483648"}),
    ("cvt.rpi.s32.f64", "double", "=r", "int", {"NAN": "-2147483648", "2.25": "3"}),
    ("cvt.rzi.s64.f32", "float", "=l", "long long", {"NAN": "-9223372036854775808"}),
    ("cvt.rzi.s64.f64", "double", "=l", "long long", {"NAN": "-9223372036854775808"}),
    ("cvt.rmi.u64.f64", "double", "=l", "unsigned long long", {"NAN": "9223372036854775808"}),
]


def test_float_to_integer_cvt_edges_run_as_ptx_defines_them(tmp_path: Path) -> None:
    """The translated statements are plain C++: built for the host with g++ and run."""
    gxx = shutil.which("g++")
    require(gxx=gxx)
    assert gxx is not None
    lines = ["#include <cmath>", "#include <cstdio>", "int main() { int bad = 0;"]
    for n, (insn, src, out, ctype, cases) in enumerate(CVT_EDGES):
        lines.append(f"auto f{n} = []({src} a) {{ {ctype} x;")
        lines.append(hip(f'asm("{insn} %0, %1;" : "{out}"(x) : "{src[0]}"(a));'))
        lines.append("return x; };")
        for given, want in cases.items():
            lines.append(
                f"if (f{n}(({src})({given})) != ({ctype})({want}ull)) {{ ++bad; "
                f'printf("{insn} {given}: %llx\\n", (unsigned long long)f{n}(({src})({given}))); }}'
            )
    lines.append("return bad; }")
    source = tmp_path / "cvt.cpp"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    built = subprocess.run(
        [gxx, "-std=c++17", "-O1", str(source), "-o", str(tmp_path / "cvt")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    ran = subprocess.run([str(tmp_path / "cvt")], capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stdout


HOST_MODEL = Path(__file__).parent / "fixtures" / "ptx" / "host"
PTX_PROGRAMS = Path(__file__).resolve().parents[1] / "bench" / "ptx_programs"
_LAUNCH = re.compile(r"(\w+)<<<([^,]+), ([^>]+)>>>\(([^)]*)\);")


def test_ptx_conversions_program_passes_its_own_check_as_a_host_model(tmp_path: Path) -> None:
    """bench/ptx_programs/ptx_conversions, translated, with its kernels run on the CPU: the
    translation is a C model of the PTX (it follows the ISA's cvt rules), so the program's own
    reference must accept it, as it must accept the CUDA original on an NVIDIA GPU."""
    gxx = shutil.which("g++")
    require(gxx=gxx)
    assert gxx is not None
    text = translate((PTX_PROGRAMS / "ptx_conversions" / "main.cu").read_text(), options=NATIVE)
    source = tmp_path / "conversions.cpp"
    source.write_text(_LAUNCH.sub(r"LAUNCH(\1, \2, \3, \4);", text.text), encoding="utf-8")
    built = subprocess.run(
        [gxx, "-std=c++17", "-O1", "-frounding-math", f"-I{HOST_MODEL}", str(source),
         "-o", str(tmp_path / "conversions")],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-4000:]
    ran = subprocess.run(
        [str(tmp_path / "conversions")], capture_output=True, text=True, check=False
    )
    assert ran.stdout.strip() == "VERDICT: PASS cases=2048", ran.stdout + ran.stderr
