"""bench/table_coverage.py: HIPIFY's documented lists against the tables, and its report."""

from __future__ import annotations

from pathlib import Path

from bench.table_coverage import LISTS, REPORT, read_list, render, tally
from cass_build.tables import load_tables

ROWS = {r.cuda: r for f in load_tables() for r in f.rows}


def test_lists_read_shorthand_and_sources(tmp_path: Path) -> None:
    path = tmp_path / "demo.tsv"
    path.write_text(
        "# source: somewhere, section 1\n# cuda\thip\tadded\n# rename: cuda hip\n"
        "cudaMalloc\t~\t1.5\ncudaDevAttrPciDomainId\thipDeviceAttributePciDomainId\t4.3\n"
        "cudaOccupancyMaxPotentialClusterSize\t~\t7.13\n"
        "cudaNoSuchThing\thipNoSuchThing\t6.0\ncudaWGLGetDevice\t\t\n",
        encoding="utf-8",
    )
    source, rows = read_list(path)
    assert source == "somewhere, section 1"
    assert [(r.cuda, r.hip) for r in rows][:1] == [("cudaMalloc", "hipMalloc")]
    t = tally("demo", source, rows, ROWS)
    assert (t.mapped, t.same, len(t.missing), t.none_documented) == (4, 1, 1, 1)
    assert [d.cuda for d in t.missing] == ["cudaNoSuchThing"]
    # The HIP headers spell it ...DomainID: another name, never counted the same.
    assert [(d.cuda, r.hip) for d, r in t.differs] == [
        ("cudaDevAttrPciDomainId", "hipDeviceAttributePciDomainID")
    ]
    assert [d.cuda for d, _ in t.unsupported] == ["cudaOccupancyMaxPotentialClusterSize"]


def test_every_list_names_its_source() -> None:
    lists = sorted(LISTS.glob("*.tsv"))
    assert {p.stem for p in lists} >= {"driver", "runtime", "cusparse", "cudnn", "cublaslt"}
    for path in lists:
        source, rows = read_list(path)
        assert "HIPIFY" in source and rows, path.name


def test_committed_report_is_current() -> None:
    tallies = [tally(p.stem, *read_list(p), ROWS) for p in sorted(LISTS.glob("*.tsv"))]
    assert REPORT.read_text(encoding="utf-8") == render(tallies) + "\n", (
        "rerun: python bench/table_coverage.py"
    )
