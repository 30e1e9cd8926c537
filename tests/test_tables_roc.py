"""`--roc`'s rocBLAS names against rocBLAS's documented API.

rocBLAS is not installable on Debian 12, so its names cannot be proven against headers as
rocRAND's and rocSPARSE's are (test_tables.py). bench/roc/rocblas.tsv is the check instead:
HIPIFY's cuBLAS -> rocBLAS table, transcribed (its header names the source).
"""

from __future__ import annotations

from pathlib import Path

from cass_build.rules.tables import load_tables

LIST = Path(__file__).resolve().parent.parent / "bench" / "roc" / "rocblas.tsv"


def _documented() -> dict[str, str]:
    """CUDA name -> rocBLAS name ("" where the table documents none)."""
    pairs: dict[str, str] = {}
    for line in LIST.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        cuda, roc, _added = line.split("\t")
        pairs[cuda] = "" if roc == "-" else roc
    return pairs


def _roc_rows() -> list[tuple[str, str]]:
    (cublas,) = [f for f in load_tables() if f.name == "cublas"]
    return [(r.cuda, r.roc) for r in cublas.rows if r.roc and r.kind != "include"]


def test_the_list_is_a_transcription() -> None:
    head = LIST.read_text(encoding="utf-8").splitlines()[0]
    assert head.startswith(
        "# source: ROCm/HIPIFY docs/reference/tables/CUBLAS_API_supported_by_ROC.md"
    )
    assert len(_documented()) > 200


def test_every_rocblas_target_is_documented() -> None:
    """Each --roc row maps its CUDA name to the rocBLAS name the documentation gives it."""
    documented = _documented()
    rows = _roc_rows()
    assert len(rows) > 150
    wrong = [
        f"{c} -> {r} (documented: {documented.get(c)!r})" for c, r in rows if documented.get(c) != r
    ]
    assert wrong == []


def test_documented_gaps_keep_hipblas() -> None:
    """A CUDA name the documentation gives no rocBLAS counterpart (the batched LAPACK-style
    routines, which are rocSOLVER's) has no --roc name."""
    documented = _documented()
    gaps = {c for c, r in documented.items() if not r}
    assert {"cublasSgetrfBatched", "cublasDgelsBatched"} <= gaps
    assert [c for c, _ in _roc_rows() if c in gaps] == []


def test_complex_routines_keep_hipblas() -> None:
    """rocBLAS takes rocblas_float_complex, which the hipComplex of a translation is not:
    routines with complex arguments keep their hipBLAS mapping under --roc."""
    complex_args = {"cublasScasum", "cublasDzasum", "cublasScnrm2", "cublasDznrm2", "cublasCgemm"}
    assert [c for c, _ in _roc_rows() if c.removesuffix("_v2") in complex_args] == []
