"""Cache keys follow CASS's code by content: moving or editing a module changes them."""

from __future__ import annotations

import shutil
from pathlib import Path

import cass_build
from cass_build.pipeline.fingerprint import code_digest
from cass_build.pipeline.strategies import ModelStrategy, RulesStrategy

PACKAGE = Path(cass_build.__file__).resolve().parent


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "cass_build"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__", "models", "*.so"))
    return root


def test_digest_is_the_content_not_the_location(tmp_path: Path) -> None:
    first = code_digest(_copy(tmp_path / "a"))
    assert code_digest(_copy(tmp_path / "b")) == first


def test_moving_a_module_changes_the_digest(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    before = code_digest(root)
    module = next(p for p in sorted(root.rglob("*.py")) if p.name != "__init__.py")
    (root / "moved").mkdir()
    module.rename(root / "moved" / module.name)
    after = code_digest(root)
    assert len(after) == len(before) == 24 and after != before


def test_editing_a_module_changes_the_digest(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    before = code_digest(root)
    module = sorted(root.rglob("*.py"))[-1]
    module.write_bytes(module.read_bytes() + b"\n# changed\n")
    assert code_digest(root) != before


def test_strategy_fingerprints_hold_the_installed_code_digest() -> None:
    digest = code_digest()
    assert RulesStrategy().fingerprint().endswith(":" + digest)
    assert ModelStrategy().fingerprint().endswith(":" + digest)
    assert ":-" not in RulesStrategy().fingerprint()


def test_the_installed_digest_is_remembered_by_the_files_stamps(cache_dir: Path) -> None:
    """A build step reads the remembered digest instead of every module; it is the
    content digest, and what is remembered is what is used."""
    from cass_build.pipeline import fingerprint

    first = fingerprint._installed.__wrapped__()
    assert first == code_digest()
    [memo] = (cache_dir / "code").glob("*.txt")
    assert memo.read_text() == first
    memo.chmod(0o644)
    memo.write_text("0" * 24)
    assert fingerprint._installed.__wrapped__() == "0" * 24
