"""Lit-style tests: tests/lit/<family>/*.cu, each translated and checked against its comments.

A file says how it is translated and what must come out, in the manner of HIPIFY's
lit tests (FileCheck's subset that these need, run in-process):

- ``// RUN: cass translate %s --hip-version X.Y`` (the HIP version is read from it);
- ``// CHECK: text`` above the line it checks: ``text`` occurs in the output on a later
  line than the previous match; ``// CHECK-NEXT: text`` on the line right after it;
  ``// CHECK-NOT: text`` on no line between the previous match and the next one;
- ``// DIAG: text``: some diagnostic, as ``line:col: severity: message [rule]``, contains
  ``text``; ``// DIAG-NOT: text``: none does.

The directive lines are comments, so they reach the output too; they are dropped
from it before matching, so that a pattern never matches itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cass_build import Settings, translate
from cass_build.tables import parse_version

LIT = Path(__file__).resolve().parent / "lit"
SOURCES = sorted(LIT.glob("*/*.cu"))
DIRECTIVE = re.compile(r"^\s*//\s*(RUN|CHECK|CHECK-NEXT|CHECK-NOT|DIAG|DIAG-NOT):\s?(.*)$")


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


def test_there_are_lit_tests() -> None:
    assert len(SOURCES) >= 7


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lit(source: Path) -> None:
    text = source.read_text(encoding="utf-8")
    directives = [m.groups() for m in map(DIRECTIVE.match, text.splitlines()) if m]
    runs = [body for kind, body in directives if kind == "RUN"]
    assert runs, f"{source.name}: no RUN line"
    version = re.search(r"--hip-version (\S+)", runs[0])
    settings = Settings(hip_version=parse_version(version.group(1)) if version else (7, 1))
    result = translate(text, path=source.name, options=settings)
    output = [line for line in result.text.splitlines() if not DIRECTIVE.match(line)]
    checks = [(k, body) for k, body in directives if k.startswith("CHECK")]
    assert checks, f"{source.name}: no CHECK line"
    failures = _check(output, checks)
    shown = [str(d) for d in result.diagnostics]
    for kind, body in directives:
        if kind == "DIAG" and not any(body in d for d in shown):
            failures.append(f"DIAG: {body!r} not among the diagnostics")
        if kind == "DIAG-NOT" and any(body in d for d in shown):
            failures.append(f"DIAG-NOT: {body!r} is among the diagnostics")
    assert not failures, "\n".join([*failures, "diagnostics:", *shown])


def test_check_semantics() -> None:
    """The matcher itself fails where FileCheck would."""
    out = ["a", "b", "c"]
    assert _check(out, [("CHECK", "a"), ("CHECK-NEXT", "b")]) == []
    assert _check(out, [("CHECK", "a"), ("CHECK-NEXT", "c")]) != []
    assert _check(out, [("CHECK", "b"), ("CHECK", "a")]) != []
    assert _check(out, [("CHECK", "a"), ("CHECK-NOT", "b"), ("CHECK", "c")]) != []
    assert _check(out, [("CHECK-NOT", "x"), ("CHECK", "c")]) == []
    assert _check(out, [("CHECK", "a"), ("CHECK-NOT", "c")]) != []
