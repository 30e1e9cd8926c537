"""CASS's mapping tables against HIPIFY's documented CUDA->HIP lists, per family.

The lists are bench/hipify/<family>.tsv: one CUDA name a line, its HIP name and
the HIP release that added it, transcribed from HIPIFY's documentation tables
(each file's header names the table and the sections it holds). An empty HIP
column is a name HIPIFY documents with no HIP counterpart; "~" is shorthand for
the CUDA name with its prefix renamed ("cu" to "hip", or as a "# rename: A B"
line in the file says). For every listed
name this counts what CASS's tables do with it:

- same: CASS emits HIPIFY's HIP name (of those, gated: only from a HIP release on);
- differs: CASS emits another name (listed with --gaps);
- unsupported: CASS keeps the name and reports it, with the row's reason;
- missing: no CASS row (the name would be reported as cass-unknown-api).

The report goes to bench/reports/tables.md.

    python bench/table_coverage.py
    python bench/table_coverage.py --gaps driver   # the rows behind the numbers
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT / "bench" / "hipify"
REPORT = ROOT / "bench" / "reports" / "tables.md"
sys.path.insert(0, str(ROOT))

from cass_build.tables import Row, load_tables  # noqa: E402


@dataclass(frozen=True)
class Documented:
    """One row of a HIPIFY list: a CUDA name and HIPIFY's HIP name (or none)."""

    cuda: str
    hip: str
    added: str


@dataclass
class Tally:
    family: str
    source: str
    mapped: int = 0  # HIPIFY documents a HIP name
    same: int = 0
    gated: int = 0
    differs: list[tuple[Documented, Row]] = field(default_factory=list)
    unsupported: list[tuple[Documented, Row]] = field(default_factory=list)
    missing: list[Documented] = field(default_factory=list)
    none_documented: int = 0  # HIPIFY documents no HIP name
    none_agreed: int = 0  # ... and CASS flags it unsupported
    none_cass_maps: list[tuple[Documented, Row]] = field(default_factory=list)
    none_missing: list[Documented] = field(default_factory=list)


def read_list(path: Path) -> tuple[str, list[Documented]]:
    """The rows of one list and its source line (the first comment)."""
    source = ""
    rename = ("cu", "hip")  # what "~" in the HIP column stands for; "# rename: A B" changes it
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# rename: "):
            old, new = line.removeprefix("# rename: ").split()
            rename = (old, new)
            continue
        if line.startswith("#"):
            if not source:
                source = line.lstrip("# ").removeprefix("source: ")
            continue
        if not line.strip():
            continue
        cuda, hip, added = [*line.split("\t"), "", ""][:3]
        cuda, hip = cuda.strip(), hip.strip()
        if hip == "~":  # the list's shorthand: the CUDA name with its prefix renamed
            hip = rename[1] + cuda.removeprefix(rename[0])
        rows.append(Documented(cuda, hip, added.strip()))
    return source, rows


def tally(family: str, source: str, documented: list[Documented], rows: dict[str, Row]) -> Tally:
    t = Tally(family, source)
    for doc in documented:
        row = rows.get(doc.cuda)
        if doc.hip:
            t.mapped += 1
            if row is None:
                t.missing.append(doc)
            elif row.status == "unsupported":
                t.unsupported.append((doc, row))
            elif row.hip == doc.hip:
                t.same += 1
                t.gated += row.since is not None
            else:
                t.differs.append((doc, row))
        else:
            t.none_documented += 1
            if row is None:
                t.none_missing.append(doc)
            elif row.status == "unsupported":
                t.none_agreed += 1
            else:
                t.none_cass_maps.append((doc, row))
    return t


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def render(tallies: list[Tally]) -> str:
    lines = [
        "# Mapping tables against HIPIFY's documented lists",
        "",
        "Produced by `python bench/table_coverage.py` from the lists in `bench/hipify/`",
        "(names and versions transcribed from HIPIFY's documentation tables; each list's",
        "header names its table and the sections it holds) and `cass_build/data/*.toml`.",
        "",
        "HIPIFY maps: names HIPIFY documents with a HIP counterpart. Of those, *same*:",
        "CASS emits HIPIFY's name (*gated*: only for `--hip-version` at or above the row's",
        "`since`); *differs*: CASS emits another name; *unsupported*: CASS keeps the name",
        "and reports `cass-unsupported-api` with the row's reason; *missing*: no CASS row",
        "(reported as `cass-unknown-api`). No HIP: names HIPIFY documents without a",
        "counterpart; *agreed*: CASS flags them unsupported too.",
        "",
        "| family | source | HIPIFY maps | same | gated | differs | unsupported | missing "
        "| no HIP | agreed | CASS maps | missing |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for t in tallies:
        found = re.search(r"(\w+)\.md", t.source)
        table = found.group(1) if found else "-"
        lines.append(
            f"| {t.family} | {table} | {t.mapped} | {t.same} ({_pct(t.same, t.mapped)}) "
            f"| {t.gated} | {len(t.differs)} | {len(t.unsupported)} | {len(t.missing)} "
            f"| {t.none_documented} | {t.none_agreed} | {len(t.none_cass_maps)} "
            f"| {len(t.none_missing)} |"
        )
    total_mapped = sum(t.mapped for t in tallies)
    total_same = sum(t.same for t in tallies)
    lines += [
        "",
        f"In all: {total_same} of {total_mapped} HIPIFY-mapped names "
        f"({_pct(total_same, total_mapped)}) map to the same HIP name in CASS.",
        "",
        "## Where CASS differs",
        "",
        "A different name is not necessarily wrong: some rows follow the HIP headers",
        "rather than HIPIFY (the header check in tests/test_tables.py proves each",
        "emitted name is declared). Each is listed so that it can be judged.",
        "",
    ]
    for t in tallies:
        shown = [*t.differs, *t.unsupported]
        if not shown:
            continue
        lines += [f"### {t.family}", "", "| CUDA | HIPIFY | CASS |", "|---|---|---|"]
        for doc, row in shown:
            cass = row.hip if row.status != "unsupported" else f"unsupported: {row.note or '-'}"
            lines.append(f"| `{doc.cuda}` | `{doc.hip}` ({doc.added}) | {cass} |")
        lines.append("")
    extra = [(t.family, d, r) for t in tallies for d, r in t.none_cass_maps]
    if extra:
        lines += ["## Names CASS maps that HIPIFY documents without a counterpart", ""]
        lines += [f"- {fam}: `{d.cuda}` -> `{r.hip}`" for fam, d, r in extra]
        lines.append("")
    missing = [(t.family, d) for t in tallies for d in t.missing]
    if missing:
        lines += ["## HIPIFY-mapped names CASS has no row for", ""]
        lines += [f"- {fam}: `{d.cuda}` -> `{d.hip}` ({d.added})" for fam, d in missing]
        lines.append("")
    lines += ["## Sources", ""]
    lines += [f"- `bench/hipify/{t.family}.tsv`: {t.source}" for t in tallies]
    lines += ["", _lit_summary()]
    return "\n".join(lines)


def _lit_summary() -> str:
    """How many lit checks tests/lit holds, and how many come from these lists."""
    lit = ROOT / "tests" / "lit"
    total = generated = files = 0
    for path in sorted(lit.glob("*/*.cu")):
        files += 1
        n = sum(
            1
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.lstrip().startswith(("// CHECK:", "// CHECK-NEXT:", "// CHECK-NOT:"))
        )
        total += n
        generated += n if path.name.startswith("hipify_") else 0
    return (
        f"The lit suite (`python -m pytest tests/test_lit.py`) has {files} files and {total} "
        f"CHECK lines; {generated} of them are written by `tests/lit/generate.py` from these "
        "lists (the expected HIP names are HIPIFY's), the rest by hand."
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPORT)
    parser.add_argument("--gaps", metavar="FAMILY", help="print one family's gaps, no report")
    args = parser.parse_args()
    families = {f.name: f for f in load_tables()}
    rows = {r.cuda: r for f in families.values() for r in f.rows}
    tallies = []
    for path in sorted(LISTS.glob("*.tsv")):
        source, documented = read_list(path)
        tallies.append(tally(path.stem, source, documented, rows))
    if args.gaps:
        for t in tallies:
            if t.family != args.gaps:
                continue
            for doc in t.missing:
                print(f"missing\t{doc.cuda}\t{doc.hip}\t{doc.added}")
            for doc, row in t.differs:
                print(f"differs\t{doc.cuda}\t{doc.hip}\t{doc.added}\tcass={row.hip}")
            for doc, row in t.unsupported:
                print(f"unsupported\t{doc.cuda}\t{doc.hip}\t{doc.added}\t{row.note}")
            for doc in t.none_missing:
                print(f"none-missing\t{doc.cuda}")
        return 0
    args.out.write_text(render(tallies) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
