"""The core's fuzz target and regression fixtures (docs/fuzzing.md).

Every input that once crashed the core, corrupted its output or broke an invariant is
a file in tests/fixtures/core_regressions; each is checked here from Python under every
option set, and replayed through the fuzz target, built with clang-15, libFuzzer,
AddressSanitizer and UndefinedBehaviorSanitizer. A bounded campaign (40,000 runs from
seed 1) runs the target on a corpus seeded from the fixtures and the bench programs;
any finding fails.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.build_helpers import CMAKE, NINJA, ROOT, ok, require, run, tool
from tests.core_invariants import OPTIONS, check_invariants

REGRESSIONS = sorted((ROOT / "tests" / "fixtures" / "core_regressions").glob("*.cu"))
CLANGXX = tool("clang++-15")
FUZZER_LIB = next(
    Path("/usr/lib/llvm-15/lib/clang").glob("*/lib/linux/libclang_rt.fuzzer-x86_64.a"), None
)
SEEDS = (
    "tests/fixtures/programs",
    "tests/fixtures/wave64",
    "tests/lit",
    "bench/programs",
    "tests/fixtures/core_regressions",
)


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.stem)
def test_regression_fixture_keeps_the_invariants(path: Path) -> None:
    data = path.read_bytes()
    for options in OPTIONS:
        check_invariants(data, options)


def test_regressions_are_there() -> None:
    # The first fuzz finding and the generator's soups that crashed the old core.
    names = {p.stem for p in REGRESSIONS}
    assert "fuzz-include-inside-launch" in names
    assert {"soup6-negative-size", "soup40-lost-lines"} <= names


def test_malformed_calls_are_kept_with_a_diagnostic() -> None:
    import cass_build
    from cass_build.settings import Settings

    source = "__global__ void k(float v) {\n  v += __shfl_down_sync(0xffffffff,);\n}\n"
    t = cass_build.translate(source, options=Settings(hip_version=(5, 2), warp="native"))
    assert "__shfl_down(0xffffffff,)" in t.text  # renamed, arguments as they were
    assert [d.rule for d in t.diagnostics if d.line == 2] == ["cass-malformed-call"]


def test_launch_whose_kernel_spans_an_open_call_is_kept() -> None:
    # "Table<float ... T>" would be the kernel of the last launch: it holds the '(' of an
    # unclosed call and another launch, so GGL's closing ')' would pair with that '('.
    import cass_build
    from cass_build.settings import Settings

    source = "void h() {\n  Table<float\n  k<<<g, b>>>(k<<<g, b>>>(x) =\n  T><<<1, 32>>>(a);\n}\n"
    t = cass_build.translate(source, options=Settings(launch_syntax="ggl"))
    assert "T><<<1, 32>>>(a);" in t.text
    assert "hipLaunchKernelGGL(k, g, b, 0, 0, x)" in t.text
    assert [(d.line, d.rule) for d in t.diagnostics] == [(4, "cass-launch-syntax")]
    assert cass_build.translate(t.text, options=Settings(launch_syntax="ggl")).text == t.text


def test_erased_names_and_launches_never_make_or_break_a_directive() -> None:
    # Erasing CUDA_CB would leave a '#' first on its line, or rename a directive;
    # a launch in an #if is no code (GGL would put a '(' before __CUDA_ARCH__).
    import cass_build
    from cass_build.settings import Settings

    source = (
        "int i;\nCUDA_CB #include <cuda_runtime.h>\n#CUDA_CB include <cuda_runtime.h>\n"
        "#if T __CUDA_ARCH__<<<g, b>>>()\n#endif\n#define L k<<<g, b>>>(x)\n"
    )
    options = Settings(launch_syntax="ggl")
    t = cass_build.translate(source, options=options)
    assert t.text == source.replace("k<<<g, b>>>(x)", "hipLaunchKernelGGL(k, g, b, 0, 0, x)")
    assert (4, "cass-launch-syntax") in [(d.line, d.rule) for d in t.diagnostics]
    assert cass_build.translate(t.text, options=options).text == t.text


def test_asm_operand_drops_line_splices_and_keeps_the_line_break() -> None:
    import cass_build

    source = (
        "__global__ void k() {\n"
        '  asm volatile("atom.acq_rel.global.or.b32 %0,[1],2;" : "=r"("\\\n"));\n}\n'
    )
    t = cass_build.translate(source)
    assert [d.rule for d in t.diagnostics] == ["cass-inline-ptx-translated"]
    lines = t.text.split("\n")
    assert len(lines) == len(source.split("\n"))
    assert lines[1].endswith('("") = _ptx_0; }') and lines[2] == ""


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fuzz target, its table and its dictionary, built once for this module."""
    require(cmake=CMAKE, ninja=NINJA, **{"clang++-15": CLANGXX})
    if FUZZER_LIB is None:
        pytest.skip("libFuzzer (libclang_rt.fuzzer of clang 15) is not installed")
    build = tmp_path_factory.mktemp("fuzz-build")
    configure = [CMAKE, "-S", "cpp", "-B", str(build), "-G", "Ninja"]
    configure += ["-DCASS_BUILD_FUZZER=ON", f"-DCMAKE_CXX_COMPILER={CLANGXX}"]
    ok(run(configure, ROOT))
    ok(run([NINJA, "-C", str(build), "cass_core_fuzz"], ROOT))
    ok(run([sys.executable, "cpp/fuzz/dump_table.py", str(build)], ROOT))
    return build / "cass_core_fuzz"


def test_fuzz_target_replays_the_regressions(fuzzer: Path) -> None:
    out = ok(run([str(fuzzer), *map(str, REGRESSIONS)], ROOT, timeout=600))
    assert out.count("Executed ") == len(REGRESSIONS)


def test_fuzz_target_stops_without_its_table(fuzzer: Path, tmp_path: Path) -> None:
    # A target without its table would pass everything: it stops and says why instead.
    proc = subprocess.run(
        [str(fuzzer), str(REGRESSIONS[0])],
        env={"CASS_FUZZ_TABLE": str(tmp_path / "missing.tsv")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "cannot read the table" in proc.stderr


SETARCH = tool("setarch")


def no_aslr() -> list[str]:
    """A prefix that runs a command with address space randomization off, or [] where the
    system forbids it (a container's seccomp profile may)."""
    if SETARCH is None:
        return []
    prefix = [SETARCH, platform.machine(), "-R"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
    return prefix if probe.returncode == 0 else []


def campaign(
    fuzzer: Path, work: Path, runs: int = 40000
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """A bounded campaign in `work` (target, table, seeds, corpus and findings all in
    there): the process result and the names of the inputs it wrote as findings."""
    seeds, corpus, findings = work / "seeds", work / "corpus", work / "findings"
    for d in (seeds, corpus, findings):
        d.mkdir(parents=True)
    for root in SEEDS:
        for path in sorted((ROOT / root).rglob("*.cu*")):
            if path.is_file():
                shutil.copy(path, seeds / "_".join(path.relative_to(ROOT).parts))
    for name in ("table.tsv", "cuda.dict"):
        shutil.copy(fuzzer.parent / name, work / name)
    (work / fuzzer.name).symlink_to(fuzzer)
    # What it does is fixed by its arguments, not by the machine's speed or load nor by
    # where it runs. A seed and a run count, not a time budget. Addresses: libFuzzer
    # feeds the values of the target's comparisons back into its mutations, pointers
    # among them (docs/fuzzing.md), so two runs diverge after a few hundred inputs
    # unless randomization is off and the arguments and environment, which sit on the
    # stack, are the same bytes (relative paths, only PATH and the table). No
    # re-reading of the corpus directory on a wall-clock timer (-reload=0). Per-input
    # limits far above any real cost (a translation takes milliseconds), so that a
    # loaded machine (pytest -n 2 beside hipcc builds) slows the campaign down without
    # turning a slow input into a "timeout-" or "slow-unit-" finding, while a hang
    # still is one.
    argv = [*no_aslr(), f"./{fuzzer.name}", "-seed=1", f"-runs={runs}", "-max_len=2048"]
    argv += ["-reload=0", "-timeout=120", "-report_slow_units=120", "-rss_limit_mb=2048"]
    argv += ["-print_final_stats=1", "-dict=cuda.dict", "-artifact_prefix=findings/"]
    argv += ["corpus", "seeds"]
    env = {"PATH": os.environ.get("PATH", ""), "CASS_FUZZ_TABLE": "table.tsv"}
    # The process limit only stops a run that hangs: 40,000 runs take 40-260 s here.
    proc = run(argv, work, env=env, timeout=3600)
    return proc, sorted(p.name for p in findings.iterdir())


@pytest.mark.slow
def test_bounded_fuzz_campaign(fuzzer: Path, tmp_path: Path) -> None:
    proc, findings = campaign(fuzzer, tmp_path / "campaign")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and not findings, (findings, output[-4000:])
    assert "stat::number_of_executed_units: 40000" in output, output[-4000:]
    assert "Done 40000 runs" in output


@pytest.mark.slow
def test_bounded_fuzz_campaign_is_deterministic(fuzzer: Path, tmp_path: Path) -> None:
    # Two short campaigns in directories of different names add the same inputs to the
    # corpus in the same order (with randomization on they part after about 470 runs).
    if not no_aslr():
        pytest.skip("address space randomization cannot be turned off here (setarch -R)")
    trails = []
    for name in ("a", "a-longer-name"):
        proc, findings = campaign(fuzzer, tmp_path / name, runs=3000)
        assert proc.returncode == 0 and not findings, (findings, proc.stderr[-4000:])
        events = [ln.split("exec/s")[0] for ln in proc.stderr.splitlines() if "\tNEW " in ln]
        assert len(events) > 100, proc.stderr[-4000:]
        trails.append(events)
    assert trails[0] == trails[1]


def test_core_unit_tests(tmp_path: Path) -> None:
    """cpp/tests/core_tests.cpp, built without Python and without NDEBUG (CASS_CHECK traps)."""
    require(cmake=CMAKE, ninja=NINJA)
    configure = [CMAKE, "-S", "cpp", "-B", str(tmp_path), "-G", "Ninja"]
    ok(run([*configure, "-DCASS_BUILD_CORE_TESTS=ON", "-DCMAKE_BUILD_TYPE=Debug"], ROOT))
    ok(run([NINJA, "-C", str(tmp_path), "cass_core_tests"], ROOT))
    out = ok(run([str(tmp_path / "cass_core_tests")], ROOT))
    assert "0 failed" in out
