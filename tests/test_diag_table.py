"""The diagnostic table is the one home of the ids: the core's generated header, the
Python emitters and the docs' index all follow it."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cass_build.errors import TableError
from cass_build.rules.diag_table import DOCS, HEADER, enum_name
from cass_build.rules.diagnostics import rule, rule_id, table

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = [sys.executable, "-m", "cass_build.rules.diag_table"]
#: Strings that contain "cass-" and are no diagnostic id: the distribution's name (in
#: install hints), a build stamp's suffix and a placeholder for scratch paths.
NOT_IDS = {"cass-build", "cass-key", "cass-nvcc-client", "cass-scratch"}
#: The table's reader, which alone may spell ids.
READER = ROOT / "cass_build" / "rules" / "diagnostics.py"


def _checkout(tmp_path: Path) -> Path:
    """A copy of the generated files, laid out as a checkout for ``--root``."""
    for rel in (HEADER, DOCS):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    return tmp_path


def _edited_checkout(tmp_path: Path, rel: Path, old: str, new: str) -> Path:
    """A checkout (as ``_checkout``) whose file ``rel`` has ``old`` replaced by ``new``;
    returns that file. ``old`` must be there, or the test would check an unedited copy."""
    path = _checkout(tmp_path) / rel
    text = path.read_text()
    assert old in text, f"{rel} no longer holds {old!r}"
    path.write_text(text.replace(old, new))
    return path


def _generate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GENERATOR, *args], capture_output=True, text=True, check=False)


def test_the_committed_header_and_docs_index_match_the_table() -> None:
    proc = _generate("--check")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_check_names_a_stale_header_and_write_repairs_it(tmp_path: Path) -> None:
    root = tmp_path
    header = _edited_checkout(root, HEADER, "    TruncatedInput,\n", "")
    proc = _generate("--check", "--root", str(root))
    assert proc.returncode == 1
    assert proc.stdout == (
        f"{header}: error: stale; run python -m cass_build.rules.diag_table --write\n"
    )
    assert _generate("--write", "--root", str(root)).returncode == 0
    assert header.read_text() == (ROOT / HEADER).read_text()
    assert _generate("--check", "--root", str(root)).returncode == 0


def test_check_names_a_stale_docs_index(tmp_path: Path) -> None:
    root = tmp_path
    row = "| [cass-unverified](#cass-unverified) | warning"
    docs = _edited_checkout(root, DOCS, row, "|")
    proc = _generate("--check", "--root", str(root))
    assert (proc.returncode, proc.stdout.split(":")[0]) == (1, str(docs))


def test_outside_a_checkout_the_generator_says_so(tmp_path: Path) -> None:
    proc = _generate("--check", "--root", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr == (
        f"{tmp_path}: error: not a CASS source checkout (no cpp/src or docs/diagnostics.md)\n"
    )


def test_docs_without_the_index_markers_are_a_one_line_error(tmp_path: Path) -> None:
    root = tmp_path
    _edited_checkout(root, DOCS, "<!-- END diagnostic index -->", "")
    proc = _generate("--write", "--root", str(root))
    assert proc.returncode == 2
    assert proc.stderr.startswith("docs/diagnostics.md: error: the index markers are missing")
    assert proc.stderr.count("\n") == 1


def test_the_core_uses_each_of_its_ids_and_no_other() -> None:
    """Every core id of the table is reported somewhere in cpp/src, through the
    generated enum (a string literal would not compile), and every enum name used
    is one of the table's."""
    used: set[str] = set()
    for path in (ROOT / "cpp" / "src").glob("*.cpp"):
        used |= set(re.findall(r"\bDiagId::(\w+)", path.read_text()))
    core = {enum_name(k) for k in table().values() if k.side == "core"}
    assert len(core) >= 25
    assert used == core


def _strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module, docstrings (of modules, classes, functions and
    attributes: a string standing as a statement) left out, since prose may name ids."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_no_diagnostic_id_is_spelt_outside_the_table_and_its_reader() -> None:
    """Emitters name ids through ``rule("...")``; a ``"cass-..."`` literal would be an
    id the table does not know of. Temporary-directory prefixes (ending in "-") and
    the names in NOT_IDS are not ids."""
    found = []
    for path in sorted((ROOT / "cass_build").rglob("*.py")):
        if path == READER:
            continue
        for line, text in _strings(path):
            for word in re.findall(r"cass-[a-z0-9-]*", text):
                if not word.endswith("-") and word not in NOT_IDS:
                    found.append(f"{path.relative_to(ROOT)}:{line}: {word}")
    assert found == []


def _python_names() -> dict[str, list[str]]:
    """The names passed to rule(), rule_id() and rule_ids() in cass_build, by module."""
    calls: dict[str, list[str]] = {}
    for path in sorted((ROOT / "cass_build").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if node.func.id in ("rule", "rule_id", "rule_ids"):
                names = [a.value for a in node.args if isinstance(a, ast.Constant)]
                calls.setdefault(str(path.relative_to(ROOT)), []).extend(map(str, names))
    return calls


def test_the_python_side_reports_each_of_its_ids_and_names_only_known_ones() -> None:
    from cass_build.model import hazard_rules

    calls = _python_names()
    named = {f"cass-{n}" for names in calls.values() for n in names}
    kinds = table()
    assert named - set(kinds) == set()
    python = {k.id for k in kinds.values() if k.side == "python"}
    assert python - named == set(), "python-side ids that nothing reports"
    assert len(hazard_rules()) == 10 and hazard_rules() <= set(kinds)


def test_a_kind_fills_in_the_tables_message_and_severity() -> None:
    empty = rule("empty-input")
    assert str(empty.at("e.cu", 1, 1)) == (
        "e.cu:1:1: warning: empty source file; nothing to do [cass-empty-input]"
    )
    note = rule("unverified").at("a.cu", 0, 0, "kept as it is", severity="note")
    assert str(note) == "a.cu: note: kept as it is [cass-unverified]"


def test_a_kind_without_a_fixed_message_needs_one() -> None:
    with pytest.raises(ValueError, match="cass-unverified has no fixed message"):
        rule("unverified").at("a.cu", 0, 0)


def test_an_id_missing_from_the_table_is_an_error_naming_the_table() -> None:
    with pytest.raises(TableError, match=r"diagnostics/ids\.toml: no diagnostic cass-warp-mask64"):
        rule_id("warp-mask64")


def test_the_core_reports_the_ids_as_the_table_spells_them() -> None:
    """Through the real core: the generated names reach Python as the table's ids."""
    from cass_build.rules import translate_bytes
    from cass_build.settings import Settings

    src = b"__global__ void k(int* o) { o[threadIdx.x & 31] = 0; }\n__shared__ float s[warpSize];\n"
    found = translate_bytes(src, "k.cu", Settings(warp="native")).diagnostics
    assert [(d.rule, d.severity) for d in found] == [
        ("cass-warp-lane-arith", "warning"),
        ("cass-warpsize-constant", "warning"),
        ("cass-behavior-differs", "warning"),
    ]
    assert found[1].message == rule("warpsize-constant").message
    assert found[1].message.startswith("HIP's warpSize is not a compile-time constant; ")


def test_the_table_is_part_of_the_code_fingerprint(tmp_path: Path) -> None:
    """Cached results carry its messages, so editing it must miss the cache."""
    from cass_build.pipeline.fingerprint import code_digest

    copy = tmp_path / "cass_build"
    skip = shutil.ignore_patterns("__pycache__", "models", "*.so")
    shutil.copytree(ROOT / "cass_build", copy, ignore=skip)
    before = code_digest(copy)
    toml = copy / "data" / "diagnostics" / "ids.toml"
    toml.write_text(toml.read_text().replace("nothing to do", "nothing to translate"))
    assert code_digest(copy) != before
