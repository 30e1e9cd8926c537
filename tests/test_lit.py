"""Lit-style tests: tests/lit/<family>/*.cu, each run as its RUN line says and checked.

A file says how it is translated and what must come out, in the manner of HIPIFY's
lit tests (FileCheck's subset that these need, run in-process):

- ``// RUN: cass translate %s -o %t [options]``: the real ``cass`` command line,
  run in-process through ``cass_build.__main__.main`` with ``%s`` the file and
  ``%t`` a temporary output; it must exit 0. ``// RUN: not cass translate ...``
  expects a non-zero exit instead. Anything else on a RUN line fails the test;
- ``// REQUIRES: feature[, feature]``: skip, naming the missing feature, unless all
  hold (``hipcc``: a HIP toolchain is found; ``onnxruntime``: the model can run);
  an unknown feature fails the test;
- ``// CHECK: text`` above the line it checks: ``text`` occurs in the output on a
  later line than the previous match; ``// CHECK-NEXT: text`` on the line right
  after it; ``// CHECK-NOT: text`` on no line between the previous match and the next;
- ``// DIAG: text``: some line the command printed to stderr (its diagnostics, as
  ``file:line:col: severity: message [rule]``) contains ``text``; ``// DIAG-NOT:
  text``: none does.

The directive lines are comments, so they reach the output too; they are dropped
from it before matching, so that a pattern never matches itself.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cass_build.__main__ import main

LIT = Path(__file__).resolve().parent / "lit"
SOURCES = sorted(LIT.glob("*/*.cu"))
DIRECTIVE = re.compile(r"^\s*//\s*(RUN|REQUIRES|CHECK|CHECK-NEXT|CHECK-NOT|DIAG|DIAG-NOT):\s?(.*)$")


def _has_hipcc() -> bool:
    from cass_build.pipeline.toolchain import find_hip

    return find_hip() is not None


FEATURES: dict[str, Callable[[], bool]] = {
    "hipcc": _has_hipcc,
    "onnxruntime": lambda: importlib.util.find_spec("onnxruntime") is not None,
}


class LitError(Exception):
    """A lit file this runner cannot honour: a test failure, never a skip."""


def parse_run(body: str, source: Path, output: Path) -> tuple[list[str], bool]:
    """The argv of ``main`` for one RUN line, and whether it must fail."""
    words = shlex.split(body)
    expect_failure = bool(words) and words[0] == "not"
    if expect_failure:
        words = words[1:]
    if words[:2] != ["cass", "translate"]:
        msg = f"RUN: {body!r}: only 'cass translate ...' and 'not cass translate ...' run"
        raise LitError(msg)
    argv = words[1:]
    unknown = [w for w in argv if "%" in w and w not in ("%s", "%t")]
    if unknown:
        msg = f"RUN: {body!r}: unknown substitution {unknown[0]!r} (%s and %t exist)"
        raise LitError(msg)
    if "%s" not in argv or argv.count("-o") != 1 or argv[argv.index("-o") + 1 :][:1] != ["%t"]:
        msg = f"RUN: {body!r}: translate %s and write -o %t"
        raise LitError(msg)
    subst = {"%s": str(source), "%t": str(output)}
    return [subst.get(w, w) for w in argv], expect_failure


def requirements(bodies: list[str]) -> list[str]:
    """The features REQUIRES lines name that do not hold here."""
    missing = []
    for body in bodies:
        for feature in filter(None, (f.strip() for f in body.split(","))):
            if feature not in FEATURES:
                msg = f"REQUIRES: unknown feature {feature!r} (known: {', '.join(FEATURES)})"
                raise LitError(msg)
            if not FEATURES[feature]():
                missing.append(feature)
    return missing


def _check(output: list[str], checks: list[tuple[str, str]]) -> list[str]:
    """FileCheck's CHECK, CHECK-NEXT and CHECK-NOT over `output`; the failures."""
    failures: list[str] = []
    line = -1  # the line of the last match
    pending_not: list[str] = []
    for kind, text in checks:
        if kind == "CHECK-NOT":
            pending_not.append(text)
            continue
        if kind == "CHECK-NEXT":
            found = line + 1 if line + 1 < len(output) and text in output[line + 1] else -1
        else:
            found = next((k for k in range(line + 1, len(output)) if text in output[k]), -1)
        if found < 0:
            where = "on the next line" if kind == "CHECK-NEXT" else "after the previous match"
            failures.append(f"{kind}: {text!r} not found {where} (line {line + 2})")
            return failures
        failures += [
            f"CHECK-NOT: {n!r} found before {text!r}"
            for n in pending_not
            if any(n in output[k] for k in range(line + 1, found))
        ]
        pending_not = []
        line = found
    failures += [
        f"CHECK-NOT: {n!r} found after the last match"
        for n in pending_not
        if any(n in output[k] for k in range(line + 1, len(output)))
    ]
    return failures


def run_lit(source: Path, tmp_path: Path) -> list[str]:
    """Runs one lit file; the failures (empty when it passes)."""
    text = source.read_text(encoding="utf-8")
    directives = [m.groups() for m in map(DIRECTIVE.match, text.splitlines()) if m]
    runs = [body for kind, body in directives if kind == "RUN"]
    if len(runs) != 1:
        msg = f"{source.name}: {len(runs)} RUN lines; a lit file here has exactly one"
        raise LitError(msg)
    missing = requirements([body for kind, body in directives if kind == "REQUIRES"])
    if missing:
        pytest.skip(f"{source.name} REQUIRES {', '.join(missing)}, which is not available")
    out = tmp_path / f"{source.stem}.hip"
    argv, expect_failure = parse_run(runs[0], source, out)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    stderr = err.getvalue().splitlines()
    failures = []
    if (code != 0) != expect_failure:
        failures.append(f"exit status {code}, expected {'non-zero' if expect_failure else 0}")
    if not out.is_file():
        return [*failures, "no output written", *stderr]
    output = [ln for ln in out.read_text(encoding="utf-8").splitlines() if not DIRECTIVE.match(ln)]
    checks = [(k, body) for k, body in directives if k.startswith("CHECK")]
    if not checks:
        msg = f"{source.name}: no CHECK line"
        raise LitError(msg)
    failures += _check(output, checks)
    for kind, body in directives:
        if kind == "DIAG" and not any(body in line for line in stderr):
            failures.append(f"DIAG: {body!r} not among the diagnostics")
        if kind == "DIAG-NOT" and any(body in line for line in stderr):
            failures.append(f"DIAG-NOT: {body!r} is among the diagnostics")
    return [*failures, "stderr:", *stderr] if failures else []


def test_there_are_lit_tests() -> None:
    """Every table family has lit files, and the suite holds at least 3,000 checks."""
    from cass_build.tables import load_tables

    assert {f.name for f in load_tables()} <= {p.parent.name for p in SOURCES}
    checks = sum(
        1
        for source in SOURCES
        for line in source.read_text(encoding="utf-8").splitlines()
        if (m := DIRECTIVE.match(line)) and m.group(1).startswith("CHECK")
    )
    assert checks >= 3000, checks


def test_generated_lit_files_are_current() -> None:
    """tests/lit/hipify_*.cu are what tests/lit/generate.py writes from bench/hipify."""
    proc = subprocess.run(
        [sys.executable, str(LIT / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr + "rerun: python tests/lit/generate.py"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lit(source: Path, tmp_path: Path) -> None:
    failures = run_lit(source, tmp_path)
    assert not failures, "\n".join(failures)


def test_check_semantics() -> None:
    """The matcher itself fails where FileCheck would."""
    out = ["a", "b", "c"]
    assert _check(out, [("CHECK", "a"), ("CHECK-NEXT", "b")]) == []
    assert _check(out, [("CHECK", "a"), ("CHECK-NEXT", "c")]) != []
    assert _check(out, [("CHECK", "b"), ("CHECK", "a")]) != []
    assert _check(out, [("CHECK", "a"), ("CHECK-NOT", "b"), ("CHECK", "c")]) != []
    assert _check(out, [("CHECK-NOT", "x"), ("CHECK", "c")]) == []
    assert _check(out, [("CHECK", "a"), ("CHECK-NOT", "c")]) != []


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ("// RUN: hipify-perl %s\n", "only 'cass translate ...'"),
        ("// RUN: cass translate %s --verify none\n", "write -o %t"),
        ("// RUN: cass translate %s -o %t %hipify_args\n", "unknown substitution '%hipify_args'"),
        ("// RUN: cass translate %s -o %t --no-such-flag\n", "exit status 2"),
    ],
)
def test_unknown_run_syntax_fails(tmp_path: Path, run: str, message: str) -> None:
    path = tmp_path / "case.cu"
    path.write_text(run + "void f() { cudaDeviceSynchronize(); }\n// CHECK: hipDeviceSynchronize\n")
    try:
        failures = run_lit(path, tmp_path)
    except LitError as exc:
        failures = [str(exc)]
    assert any(message in f for f in failures), failures


def test_run_options_reach_the_translator(tmp_path: Path) -> None:
    """--hip-version on the RUN line decides the output: one source, two targets."""
    body = (
        "#include <cuda.h>\nvoid f(CUdevice d) {{ char n[64]; cuDeviceGetName(n, 64, d);"
        " const char* s; cuGetErrorString(CUDA_SUCCESS, &s); }}\n// CHECK: {check}\n"
    )
    run = "// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version {v}\n"
    path = tmp_path / "v.cu"
    path.write_text(run.format(v="6.2") + body.format(check="hipDrvGetErrorString(hipSuccess"))
    assert run_lit(path, tmp_path) == []
    path.write_text(run.format(v="5.2") + body.format(check="hipDrvGetErrorString(hipSuccess"))
    assert run_lit(path, tmp_path) != []


def test_not_expects_a_failing_exit(tmp_path: Path) -> None:
    path = tmp_path / "w.cu"
    source = "void f() { cudaDeviceSynchronize(); }\n// CHECK: hipDeviceSynchronize();\n"
    run = "// RUN: {neg}cass translate %s -o %t --strategy rules --verify none --werror\n"
    path.write_text(run.format(neg="") + "void g() { cudaThreadSynchronize(); }\n" + source)
    plain = run_lit(path, tmp_path)
    path.write_text(run.format(neg="not ") + "void g() { cudaThreadSynchronize(); }\n" + source)
    assert plain and "exit status 1" in plain[0]
    assert run_lit(path, tmp_path) == []


def test_requires_gates_and_unknown_features_fail(tmp_path: Path) -> None:
    assert requirements(["hipcc, onnxruntime"]) == [
        f for f in ("hipcc", "onnxruntime") if not FEATURES[f]()
    ]
    with pytest.raises(LitError, match="unknown feature 'gpu'"):
        requirements(["gpu"])
