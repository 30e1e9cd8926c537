"""The HIP-on-CUDA layer: headers that let translated HIP build with nvcc and run on NVIDIA.

The layer is the mapping tables read backwards. Each HIP name the tables emit gets a
``#define hipX cudaX`` naming the CUDA spelling it came from; each HIP header gets a
file that includes the CUDA header it stands for. A program translated by CASS can then
run on the same NVIDIA GPU as its CUDA original, which is what ``cass compare`` does.

Where a rename is not enough (a signature, a handle type or a struct field differs) a
small hand-written header, ``data/hip_on_cuda/hand.h``, says how; its ``provides:``
lines name what it covers and the generator leaves those names alone. Facts the tables
cannot hold (which CUDA header a HIP header stands for when the first row is wrong, HIP
names to leave out) live in ``data/hip_on_cuda/layer.toml``.

The layer is generated on demand into the user cache directory (``CASS_CACHE_DIR``
overrides it), in a folder named for a hash of the tables, the hand-written part and
this generator, so it can never drift from the tables it was made from.
``python -m cass_build.hip_on_cuda`` prints that folder (``--out DIR`` writes a copy).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import cache_dir, publish_dir, write_if_changed
from .._version import __version__
from ..errors import OutputError, TableError
from ..rules.tables import Family, Row, data_dir, load_tables
from ..settings import NEWEST_HIP

__all__ = [
    "FORMAT",
    "Inversion",
    "RowCoverage",
    "covered_rows",
    "generate",
    "hand_provided",
    "include_flags",
    "inversions",
    "layer_dir",
    "main",
    "poison_after_includes",
    "poisoned_names",
    "render",
]

#: Bumped when the layout of the generated tree changes.
FORMAT = 1

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(")
_PROVIDES = re.compile(r"^//\s*provides:\s*(.*)$", re.MULTILINE)
_HAND_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_INTERNAL = "cass_hip_on_cuda"

#: Families whose macros name the compiler, not an API: the HIP macro is defined
#: whenever its CUDA counterpart is (``__HIPCC__`` with ``__CUDACC__``).
_COMPILER_FAMILY = "preprocessor"
#: Families whose CUDA names are not poisoned (see poisoned_names).
_UNPOISONED_FAMILIES = frozenset({_COMPILER_FAMILY, "thrust", "cub"})


@dataclass(frozen=True)
class Inversion:
    """One HIP name and how the layer provides it."""

    hip: str
    how: str
    """``macro`` (``#define hip cuda``), ``driver-call`` (a driver function whose
    CUresult becomes hipError_t), ``error-cast`` (a driver error code as hipError_t),
    ``defined-if`` (a compiler macro), ``namespace`` (an alias), ``header``, ``hand``,
    ``identity`` (CUDA has the same name) or ``skipped``."""
    cuda: str = ""
    """The CUDA spelling it stands for (for a header: the CUDA headers, space-separated)."""
    family: str = ""
    reason: str = ""


@dataclass(frozen=True)
class RowCoverage:
    """How one table row's HIP spelling (and its older-HIP spelling) is covered."""

    row: Row
    names: tuple[Inversion, ...]

    @property
    def covered(self) -> bool:
        return all(inv.how != "skipped" for inv in self.names)


def _layer_data() -> Path:
    return data_dir() / "hip_on_cuda"


def hand_provided(text: str | None = None) -> frozenset[str]:
    """Names the hand-written header covers: its ``provides:`` lines and its macros."""
    if text is None:
        text = (_layer_data() / "hand.h").read_text(encoding="utf-8")
    names = {n for line in _PROVIDES.findall(text) for n in line.split()}
    names |= {n for n in _HAND_DEFINE.findall(text) if not n.startswith("CASS_")}
    return frozenset(names)


def _layer_doc() -> dict[str, Any]:
    path = _layer_data() / "layer.toml"
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        msg = f"{path}: cannot read the HIP-on-CUDA settings: {exc}"
        raise TableError(msg) from None


def _layer_config() -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    doc: dict[str, Any] = _layer_doc()
    headers = {str(k): tuple(str(h) for h in v) for k, v in doc.get("headers", {}).items()}
    skip = {str(k): str(v) for k, v in doc.get("skip", {}).items()}
    return headers, skip


def _skipped_prefix(name: str, prefixes: dict[str, Any]) -> str | None:
    """Why ``name`` is left out of the layer by its prefix (layer.toml), or None."""
    for prefix, why in prefixes.items():
        if name.startswith(str(prefix)):
            return str(why)
    return None


def _legacy_name(row: Row) -> str:
    """The identifier an older HIP spells this row with, or "" (an expression, a type cast)."""
    if not row.legacy:
        return ""
    if _IDENT.match(row.legacy):
        return row.legacy
    if row.rewrite == "replace-call" and (m := _CALL.match(row.legacy)):
        return m.group(1)
    return ""


def _swap_match(hip: str, cuda: str) -> bool:
    """True when the CUDA name is the HIP one with its prefix swapped (hipError_t, cudaError_t)."""
    for hip_prefix, cuda_prefix in (("hip", "cuda"), ("HIP", "CUDA"), ("hip", "cu"), ("HIP", "CU")):
        if hip.startswith(hip_prefix) and cuda == cuda_prefix + hip[len(hip_prefix) :]:
            return True
    return False


def _is_driver_function(row: Row) -> bool:
    return (
        row.family == "driver"
        and row.kind == "function"
        and row.cuda.startswith("cu")
        and not row.cuda.startswith("cuda")
    )


def inversions(families: Sequence[Family] | None = None) -> dict[str, Inversion]:
    """Every HIP identifier the tables emit, mapped to how the layer provides it."""
    families = tuple(load_tables() if families is None else families)
    provided = hand_provided()
    _, skip = _layer_config()
    prefixes: dict[str, Any] = _layer_doc().get("skip_prefixes", {})
    cuda_names = {row.cuda for family in families for row in family.rows}
    # Candidates per HIP name, in the order that decides which CUDA name wins:
    # current spellings before older-HIP ones, supported before deprecated, runtime
    # before driver (HIP's API follows the runtime), a name with just the prefix
    # swapped (hipError_t -> cudaError_t), then table order.
    candidates: dict[str, list[tuple[tuple[int, int, int, int, int], Row]]] = {}
    index = 0
    for family in families:
        for row in family.rows:
            index += 1
            if row.status == "unsupported" or row.kind in ("include", "member", "namespace"):
                continue
            spellings = [(row.hip, 0), (_legacy_name(row), 1), (row.alt, 0)]
            for name, legacy in spellings:
                if not name or not _IDENT.match(name):
                    continue
                key = (
                    legacy,
                    int(row.status == "deprecated"),
                    int(row.family == "driver"),
                    int(not _swap_match(name, row.cuda)),
                    index,
                )
                candidates.setdefault(name, []).append((key, row))
    result: dict[str, Inversion] = {}
    for name, found in candidates.items():
        found.sort(key=lambda item: item[0])
        row = found[0][1]
        if name in provided:
            result[name] = Inversion(name, "hand", family=row.family)
        elif name in skip:
            result[name] = Inversion(name, "skipped", family=row.family, reason=skip[name])
        elif (why := _skipped_prefix(name, prefixes)) is not None:
            result[name] = Inversion(name, "skipped", family=row.family, reason=why)
        elif name in cuda_names:
            result[name] = Inversion(name, "identity", name, row.family)
        elif row.family == _COMPILER_FAMILY:
            result[name] = Inversion(name, "defined-if", row.cuda, row.family)
        elif _is_driver_function(row):
            result[name] = Inversion(name, "driver-call", row.cuda, row.family)
        elif row.family == "driver" and row.kind == "enum" and name.startswith("hipError"):
            result[name] = Inversion(name, "error-cast", row.cuda, row.family)
        else:
            result[name] = Inversion(name, "macro", row.cuda, row.family)
    for family in families:
        for row in family.rows:
            if row.kind == "namespace" and row.status != "unsupported" and row.hip:
                if row.hip == row.cuda:
                    result.setdefault(
                        row.hip, Inversion(row.hip, "identity", row.cuda, family.name)
                    )
                elif row.hip in skip:
                    result[row.hip] = Inversion(
                        row.hip, "skipped", family=family.name, reason=skip[row.hip]
                    )
                else:
                    result[row.hip] = Inversion(row.hip, "namespace", row.cuda, family.name)
    return dict(sorted(result.items()))


def poisoned_names(families: Sequence[Family] | None = None) -> tuple[str, ...]:
    """CUDA names that no HIP release spells: a translation that kept one cannot build
    with hipcc, so the layer's HIP build must reject it too, though nvcc knows it.

    Every table row's CUDA identifier that is not also a HIP spelling (of any row, at
    any release), apart from compiler macros (``#ifdef __CUDACC__`` is legal HIP),
    struct members, namespaces and the template libraries (rocThrust and hipCUB keep
    many of CUDA's spellings); plus ``[poison] names`` of ``layer.toml`` (CUDA-only
    builtins the tables do not list one by one), less its ``keep`` list.
    """
    families = tuple(load_tables() if families is None else families)
    hip_names: set[str] = set()
    for family in families:
        for row in family.rows:
            hip_names.update(n for n in (row.hip, _legacy_name(row), row.alt) if n)
            if row.rewrite or row.cuda == row.hip:
                hip_names.add(row.cuda)  # kept, with its arguments rewritten
    names: set[str] = set()
    for family in families:
        if family.name in _UNPOISONED_FAMILIES:
            continue
        for row in family.rows:
            if row.kind in ("include", "member", "namespace") or not _IDENT.match(row.cuda):
                continue
            if row.cuda not in hip_names:
                names.add(row.cuda)
    poison: dict[str, Any] = _layer_doc().get("poison", {})
    names.update(str(n) for n in poison.get("names", ()))
    names.difference_update(str(n) for n in poison.get("keep", ()))
    return tuple(sorted(names))


def _poison_header(names: Sequence[str]) -> str:
    lines = [
        _banner("CUDA-only names, poisoned: the HIP build must fail where hipcc would."),
        "#pragma once\n",
        "// Included after the translation's own #include lines (poison_after_includes):\n",
        "// CUDA's headers, read earlier, may use these names; the translation may not.\n",
    ]
    # A name CUDA's headers define as a macro stays usable: poisoning it would warn, and
    # the layer's own macros that expand to it would stop working.
    for name in names:
        lines.append(f"#ifndef {name}\n#pragma GCC poison {name}\n#endif\n")
    return "".join(lines)


_INCLUDE_LINE = re.compile(rb"^[ \t]*#[ \t]*include\b")


def poison_after_includes(source: Path, out_dir: Path) -> Path:
    """A copy of ``source`` in ``out_dir`` that includes the poison header after its last
    ``#include`` line, with ``#line`` markers so messages name ``source``'s own lines.

    Quoted includes beside ``source`` need ``-I`` of its directory (``#line`` does not
    move the search): :func:`cass_build.runcheck.compare.compare` passes it.
    """
    data = source.read_bytes()
    lines = data.splitlines(keepends=True)
    last = max((i for i, ln in enumerate(lines) if _INCLUDE_LINE.match(ln)), default=-1)
    where = str(source.resolve()).replace("\\", "\\\\").replace('"', '\\"').encode()
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    head = b"".join(lines[: last + 1])
    tail = b"".join(lines[last + 1 :])
    text = (
        b'#line 1 "' + where + b'"\n' + head
        + b"#include <" + _INTERNAL.encode() + b"/poison.h>\n"
        + f"#line {last + 2} ".encode() + b'"' + where + b'"\n' + tail
    )  # fmt: skip
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{source.stem}.poisoned.cu"
    target.write_bytes(text)
    return target


def _headers(families: Sequence[Family]) -> dict[str, tuple[Inversion, tuple[str, ...]]]:
    """HIP header path -> (how, the CUDA headers it stands for)."""
    overrides, _ = _layer_config()
    primary: dict[str, list[str]] = {}
    legacy: dict[str, str] = {}
    family_of: dict[str, str] = {}
    for family in families:
        for row in family.rows:
            if row.kind != "include" or row.status == "unsupported" or not row.hip:
                continue
            if row.hip == row.cuda:
                continue  # thrust/...: the same header on both sides
            primary.setdefault(row.hip, []).append(row.cuda)
            family_of.setdefault(row.hip, family.name)
            if row.legacy and row.legacy != row.hip:
                legacy.setdefault(row.legacy, row.hip)
    result: dict[str, tuple[Inversion, tuple[str, ...]]] = {}
    for hip, cudas in primary.items():
        chosen = overrides.get(hip, (cudas[0],))
        inv = Inversion(hip, "header", " ".join(chosen), family_of[hip])
        result[hip] = (inv, chosen)
    for old, hip in legacy.items():
        if old not in result:
            inv, chosen = result[hip]
            result[old] = (Inversion(old, "header", inv.cuda, inv.family), chosen)
    return dict(sorted(result.items()))


def covered_rows(families: Sequence[Family] | None = None) -> list[RowCoverage]:
    """Each supported row with a HIP spelling, and how the layer covers its spellings."""
    families = tuple(load_tables() if families is None else families)
    names = inversions(families)
    headers = _headers(families)
    provided = hand_provided()
    type_names = {r.cuda: r.hip for f in families for r in f.rows if r.kind == "type" and r.hip}
    out: list[RowCoverage] = []
    for family in families:
        for row in family.rows:
            if row.status == "unsupported" or (not row.hip and row.kind != "member"):
                continue
            found: list[Inversion] = []
            if row.kind == "include":
                for path in (row.hip, row.legacy):
                    if not path:
                        continue
                    if path == row.cuda:
                        found.append(Inversion(path, "identity", row.cuda, family.name))
                    elif path in headers:
                        found.append(headers[path][0])
            elif row.kind == "member":
                struct, _, member = row.cuda.partition("::")
                hip_struct = type_names.get(struct, struct)
                for spelled in (row.hip, row.legacy):
                    if not spelled:
                        continue
                    qualified = f"{hip_struct}::{spelled}"
                    if spelled == member:
                        found.append(Inversion(qualified, "identity", row.cuda, family.name))
                    elif qualified in provided:
                        found.append(Inversion(qualified, "hand", row.cuda, family.name))
                    else:
                        reason = "a struct member: needs a hand-written wrapper"
                        found.append(Inversion(qualified, "skipped", row.cuda, family.name, reason))
            else:
                for spelled in (row.hip, _legacy_name(row), row.alt):
                    if spelled and spelled in names:
                        found.append(names[spelled])
                    elif spelled:
                        reason = "not a C identifier"
                        found.append(Inversion(spelled, "skipped", row.cuda, family.name, reason))
            out.append(RowCoverage(row, tuple(found)))
    return out


def _banner(what: str) -> str:
    return (
        f"// {what}\n"
        f"// Generated by cass_build.hip_on_cuda (CASS {__version__}) from the mapping tables;\n"
        "// do not edit: it is rebuilt whenever the tables change.\n"
    )


def _names_header(names: dict[str, Inversion]) -> str:
    lines = [_banner("HIP names as the CUDA names they were translated from."), "#pragma once\n"]
    by_family: dict[str, list[Inversion]] = {}
    for inv in names.values():
        by_family.setdefault(inv.family, []).append(inv)
    for family in sorted(by_family):
        body: list[str] = []
        for inv in by_family[family]:
            if inv.how == "macro":
                body.append(f"#define {inv.hip} {inv.cuda}")
            elif inv.how == "driver-call":
                body.append(
                    f"#define {inv.hip}(...) ::{_INTERNAL}::driver(&{inv.cuda})(__VA_ARGS__)"
                )
            elif inv.how == "error-cast":
                body.append(f"#define {inv.hip} static_cast<cudaError_t>({inv.cuda})")
            elif inv.how == "defined-if":
                body.append(
                    f"#if defined({inv.cuda}) && !defined({inv.hip})\n#define {inv.hip} 1\n#endif"
                )
        if body:
            lines.append(f"\n// {family}\n")
            lines.append("\n".join(body) + "\n")
    return "".join(lines)


def _layer_header() -> str:
    major, minor = NEWEST_HIP
    return (
        _banner("The core of the HIP-on-CUDA layer: every HIP header includes it.")
        + "#pragma once\n\n"
        "#if !defined(__CUDACC__)\n"
        '#error "the HIP-on-CUDA layer is for nvcc: compile with nvcc -x cu"\n'
        "#endif\n"
        "#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)\n"
        '#error "the HIP-on-CUDA layer targets NVIDIA; on AMD include the real HIP headers"\n'
        "#endif\n\n"
        "#define __HIP_PLATFORM_NVIDIA__ 1\n"
        "#define __HIP_PLATFORM_NVCC__ 1\n"
        "// The layer offers every name the tables know, so it claims the newest HIP.\n"
        f"#define HIP_VERSION_MAJOR {major}\n"
        f"#define HIP_VERSION_MINOR {minor}\n"
        "#define HIP_VERSION_PATCH 0\n"
        "#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000)\n\n"
        f"#include <{_INTERNAL}/hand.h>\n"
        f"#include <{_INTERNAL}/names.h>\n"
        "// -DCASS_WAVE=64: 64-lane wavefronts, emulated (docs/hip_on_cuda.md).\n"
        f"#include <{_INTERNAL}/wave64.h>\n"
    )


def _public_header(path: str, cudas: Iterable[str], aliases: Iterable[tuple[str, str]]) -> str:
    lines = [_banner(f"<{path}> on NVIDIA."), "#pragma once\n\n"]
    # CUDA's headers must not see the wave64 mode's macros, if an earlier header set them.
    lines.append(f"#include <{_INTERNAL}/wave64_suspend.h>\n")
    for cuda in cudas:
        lines.append(
            f"#if __has_include(<{cuda}>)\n#include <{cuda}>\n#else\n"
            f'#error "HIP-on-CUDA: <{path}> needs <{cuda}>, which is not installed"\n#endif\n'
        )
    lines.append(f"#include <{_INTERNAL}/wave64_resume.h>\n")
    lines.append(f"#include <{_INTERNAL}/layer.h>\n")
    for hip, cuda in aliases:
        lines.append(f"namespace {hip} = {cuda};\n")
    return "".join(lines)


def render(families: Sequence[Family] | None = None) -> dict[str, bytes]:
    """The whole layer: relative path -> file content. Deterministic."""
    families = tuple(load_tables() if families is None else families)
    names = inversions(families)
    # hand.h and the other hand-written headers (wave64.h and its helpers) as they are.
    files: dict[str, str] = {
        f"{_INTERNAL}/{header.name}": header.read_text(encoding="utf-8")
        for header in sorted(_layer_data().glob("*.h"))
    }
    files[f"{_INTERNAL}/names.h"] = _names_header(names)
    files[f"{_INTERNAL}/poison.h"] = _poison_header(poisoned_names(families))
    files[f"{_INTERNAL}/layer.h"] = _layer_header()
    aliases: dict[str, list[tuple[str, str]]] = {}
    for inv in names.values():
        if inv.how == "namespace":
            aliases.setdefault(inv.family, []).append((inv.hip, inv.cuda))
    for path, (inv, cudas) in _headers(families).items():
        files[path] = _public_header(path, cudas, aliases.get(inv.family, ()))
    version = "hip/hip_version.h"
    files.setdefault(
        version, _banner("<hip/hip_version.h> on NVIDIA.") + f"#include <{_INTERNAL}/layer.h>\n"
    )
    return {path: text.encode("utf-8") for path, text in sorted(files.items())}


def _digest() -> str:
    digest = hashlib.sha256(f"{FORMAT}\0{__version__}\0".encode())
    sources = [Path(__file__), *sorted(_layer_data().iterdir()), *sorted(data_dir().glob("*.toml"))]
    for path in sources:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def generate(out_dir: Path, families: Sequence[Family] | None = None) -> Path:
    """Write the layer under ``out_dir`` (replacing what the layer wrote there before)."""
    files = render(families)
    try:
        for rel, data in files.items():
            write_if_changed(out_dir / rel, data)
    except OutputError as exc:
        msg = f"{out_dir}: cannot write the HIP-on-CUDA layer: {exc}"
        raise OutputError(msg, hint="pass a writable directory") from None
    return out_dir


def layer_dir() -> Path:
    """The layer's include directory, generated on first use for the current tables.

    Safe for concurrent callers: the tree is built in a private folder and renamed
    into place (``publish_dir``); a loser of the race uses the winner's identical tree.
    """
    final = cache_dir() / f"hip-on-cuda-{_digest()}"
    if (final / ".complete").exists():
        return final
    hint = "set CASS_CACHE_DIR to a writable directory"
    with publish_dir(final, marker=".complete", hint=hint) as work:
        generate(work)
    return final


def include_flags() -> list[str]:
    """The ``-I`` flags of every build through the layer: the layer's directory, and the
    package's own headers (``cass_build.include_dir()``), which translations include
    (``<cass/warp.h>`` in ``--warp cuda`` mode)."""
    from .. import include_dir

    return ["-I", str(layer_dir()), "-I", include_dir()]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cass_build.hip_on_cuda [--out DIR] [--coverage]``."""
    parser = argparse.ArgumentParser(
        prog="python -m cass_build.hip_on_cuda",
        description="Print (or write) the HIP-on-CUDA include directory.",
        allow_abbrev=False,
    )
    parser.add_argument("--out", type=Path, help="write the layer there instead of the cache")
    parser.add_argument(
        "--coverage", action="store_true", help="list each HIP name and how it is provided"
    )
    args = parser.parse_args(argv)
    if args.coverage:
        for inv in inversions().values():
            detail = inv.reason or inv.cuda
            print(f"{inv.hip}\t{inv.how}\t{detail}")
        return 0
    print(generate(args.out) if args.out else layer_dir())
    return 0


if __name__ == "__main__":
    sys.exit(main())
