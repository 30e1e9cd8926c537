"""Build the model's data: CUDA units, their verified HIP targets, splits and counts.

``python -m cass_build.train data OUT_DIR --seed 0`` writes:

- ``{train,valid,test}.jsonl.gz``: one record per unit (a top-level declaration,
  see ``cass_build.units``): ``id``, ``source``, ``file``, ``cuda``, ``hip``,
  ``hazards``, ``naive``. Texts are bytes decoded as latin-1, so every byte
  round-trips.
- ``test_programs/<name>/``: the held-out synthesized programs (naive forms) in
  the ``cass bench`` layout.
- ``dedup.json``: the contamination check against ``bench/programs`` and every
  fixture under ``tests/``.
- ``manifest.json``: counts per source and filter stage, the sdist manifest,
  the command and the build time.

Targets are the rule translation of each unit, except that a naive unit of a
synthesized hazard program gets the translation of its warp-size-agnostic
twin. A target is kept only when the whole translated program compiles for
gfx90a; synthesized programs are compiled many to one translation unit.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._files import publish_dir
from .._proc import ProcessError, run
from ..model.units import split_units
from ..pipeline.toolchain import HipToolchain, find_hip
from ..rules import translate_bytes
from ..rules.diagnostics import rule_id, rule_ids
from ..settings import Settings
from .context import PackageContext, UnitContext, system_includes_ok, warp_forms, warp_names
from .corpus import SourceFile
from .naivify import naivify, widen
from .synth import Program, synthesize

__all__ = [
    "MAX_UNIT_BYTES",
    "SourceFile",
    "build",
    "compile_batches",
    "contamination",
    "data_settings",
    "held_out_packages",
    "naive_variants",
    "near_duplicates",
    "normalize",
    "reference_units",
    "split_of",
]

MAX_UNIT_BYTES = 4096
SPLITS = ("train", "valid", "test")
ARCH = "gfx90a"
#: Diagnostics that name warp-size hazards: a naive unit's hazard classes. Not
#: cass-warp-mask: a unit alone cannot show that a named mask constant is full.
WARP_RULES = rule_ids(
    "warp-mask32",
    "warp-lane-arith",
    "warp-count",
    "lane0-broadcast",
    "warp-size-literal",
    "lane-mask-width",
    "ballot-width",
    "shfl-width",
    "shfl-offset",
    "warpsize-constant",
    "host-warp-count",
)
#: Naive variants drawn per agnostic unit: real code is scarce, synthesized code has its
#: own naive twin already.
NAIVE_VARIANTS = {"synth": 1, "sdist": 2}
#: Share of the sdist packages held out whole as the test split.
HELD_OUT_SHARE = 0.2
#: Hazard programs that also enter the data renamed (issue 21: names real code uses).
RENAMED_SHARE = 0.2
_RENAMED = re.compile(r"_r\d+$")
_CONTAM_SUFFIXES = {".cu", ".cuh", ".hip", ".h", ".hpp", ".cpp", ".cc", ".c"}


# ----------------------------------------------------------------------------- text


_WS = re.compile(rb"\s+")
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|\S")


def normalize(text: str) -> str:
    """Whitespace runs collapsed: the key of the exact-duplicate check."""
    return _WS.sub(b" ", text.encode("latin-1")).strip().decode("latin-1")


def _digest(text: str) -> str:
    return hashlib.sha256(normalize(text).encode("latin-1")).hexdigest()


def shingles(text: str, k: int = 5) -> set[int]:
    toks = _TOKEN.findall(text)
    if len(toks) < k:
        return {hash(tuple(toks))} if toks else set()
    return {hash(tuple(toks[i : i + k])) for i in range(len(toks) - k + 1)}


def _unit_hash(key: str) -> float:
    h = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def split_of(file_id: str, seed: int, held_out: frozenset[str] | None = None) -> str:
    """The split of a file: a seeded hash, so a file never moves between builds.

    With ``held_out`` (package names) the file is an sdist file, ``PKG/path``: a
    held-out package's files are all test, the others' never are (train/valid 95/5).
    """
    r = _unit_hash(f"{seed}:{file_id}")
    if held_out is None:
        return "train" if r < 0.90 else "valid" if r < 0.95 else "test"
    if file_id.split("/", 1)[0] in held_out:
        return "test"
    return "train" if r < 0.95 else "valid"


def held_out_packages(packages: Iterable[str], seed: int) -> frozenset[str]:
    """The packages held out whole for testing: the first ``HELD_OUT_SHARE`` of them
    (at least one) in the order of a seeded hash of their names."""
    names = sorted(set(packages), key=lambda n: _unit_hash(f"{seed}:package:{n}"))
    if not names:
        return frozenset()
    return frozenset(names[: max(1, round(HELD_OUT_SHARE * len(names)))])


def data_settings() -> Settings:
    """The rules' settings for every target: native warp mode. The default (``cuda``)
    keeps 32-lane warps through ``<cass/warp.h>`` calls (``__cass_*``), which is not the
    port the model is to write."""
    return Settings(warp="native")


def _segments(data: bytes) -> list[tuple[str, bytes]]:
    return [(s.kind, data[s.start : s.end]) for s in split_units(data)]


# ----------------------------------------------------------------------------- compile


_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include\b.*$", re.MULTILINE)
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
_MAIN = re.compile(rb"\bint[ \t]+main[ \t]*\(")
_ERROR_AT = re.compile(r"^(cass_p\d+):\d+:\d+: (?:fatal )?error:", re.MULTILINE)


def batch_source(programs: Sequence[tuple[str, bytes]]) -> bytes:
    """Programs joined into one translation unit: includes hoisted, each in a namespace.

    ``#line`` names each program, so the compiler's errors say which one failed;
    macros are undefined after their program so they cannot leak into the next.
    """
    includes: dict[bytes, None] = {}
    bodies = []
    for name, data in programs:
        for m in _INCLUDE.finditer(data):
            includes[m.group(0).strip()] = None
        body = _INCLUDE.sub(b"", data)
        body = _MAIN.sub(b"int main_" + name.encode() + b"(", body)
        undef = b"".join(b"#undef " + m + b"\n" for m in dict.fromkeys(_DEFINE.findall(body)))
        bodies.append(
            b"namespace "
            + name.encode()
            + b' {\n#line 1 "'
            + name.encode()
            + b'"\n'
            + body
            + b"\n}\n"
            + undef
        )
    return b"\n".join(includes) + b"\n" + b"".join(bodies)


def _compile(
    toolchain: HipToolchain, data: bytes, syntax: bool, flags: Sequence[str] = ()
) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="cass-data-") as tmp:
        src = Path(tmp) / "batch.hip"
        src.write_bytes(data)
        mode = ["-fsyntax-only"] if syntax else ["-c", "-o", str(Path(tmp) / "batch.o")]
        argv = [str(toolchain.hipcc), *mode, f"--offload-arch={ARCH}", "-O0", "-x", "hip"]
        from .. import include_dir

        # <cass/warp.h>: what --warp cuda translations include
        argv += [f"-I{include_dir()}", *flags, "-w", str(src)]
        done = run(argv, env=toolchain.env(), cwd=tmp, timeout=900)
        return done.ok, "timed out" if done.timed_out else done.output


def compile_batches(
    programs: Sequence[tuple[str, bytes]],
    toolchain: HipToolchain,
    *,
    batch: int = 100,
    jobs: int = 2,
    syntax: bool = False,
    flags: Sequence[str] = (),
    log: Callable[[str], None] = lambda s: None,
) -> tuple[dict[str, str], dict[str, int]]:
    """The programs that fail to compile for gfx90a (name: first error), and compile counts.

    Names must be C identifiers (``cass_p<N>``). A failed batch drops the programs
    its errors name and compiles the rest again; a failure naming none is bisected.
    """
    failed: dict[str, str] = {}
    stats = Counter[str]()

    def reason(out: str, name: str) -> str:
        for line in out.splitlines():
            if line.startswith(f"{name}:") and "error:" in line:
                return line.strip()[:300]
        return (out.strip().splitlines() or ["no compiler output"])[-1][:300]

    def run(group: list[tuple[str, bytes]], depth: int = 0) -> None:
        stats["compiles"] += 1
        ok, out = _compile(toolchain, batch_source(group), syntax=syntax, flags=flags)
        if ok:
            return
        stats["failed_batches"] += 1
        named = set(_ERROR_AT.findall(out)) & {n for n, _ in group}
        if len(group) == 1:
            failed[group[0][0]] = reason(out, group[0][0])
            return
        if named and depth < 8:
            failed.update({n: reason(out, n) for n in named})
            rest = [g for g in group if g[0] not in named]
            if rest:
                run(rest, depth + 1)
            return
        half = len(group) // 2
        run(group[:half], depth + 1)
        run(group[half:], depth + 1)

    groups = [list(programs[i : i + batch]) for i in range(0, len(programs), batch)]
    done = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for _ in pool.map(run, groups):
            done += 1
            if done % 10 == 0:
                log(f"compiled {done}/{len(groups)} batches, {len(failed)} programs failed")
    return failed, dict(stats)


# ----------------------------------------------------------------------------- dedup


@dataclass
class Reference:
    """Units that must stay out of training: bench programs and test fixtures."""

    digests: dict[str, str]
    shingle_sets: list[set[int]]
    names: list[str]
    index: dict[int, list[int]]


def reference_units(root: Path) -> Reference:
    digests: dict[str, str] = {}
    sets: list[set[int]] = []
    names: list[str] = []
    index: defaultdict[int, list[int]] = defaultdict(list)
    paths = [
        p
        for base in (root / "bench" / "programs", root / "tests")
        if base.is_dir()
        for p in sorted(base.rglob("*"))
        if p.is_file() and p.suffix in _CONTAM_SUFFIXES
    ]
    for path in paths:
        data = path.read_bytes()
        rel = path.relative_to(root).as_posix()
        for k, (kind, seg) in enumerate(_segments(data)):
            if kind != "decl":
                continue
            text = seg.decode("latin-1")
            digests.setdefault(_digest(text), f"{rel}#{k}")
            s = shingles(text)
            if not s:
                continue
            idx = len(sets)
            sets.append(s)
            names.append(f"{rel}#{k}")
            for g in s:
                index[g].append(idx)
    return Reference(digests, sets, names, dict(index))


def near_duplicates(
    text: str, ref: Reference, threshold: float = 0.8, rare: int = 64
) -> tuple[str, float] | None:
    """The reference unit ``text`` nearly duplicates (token 5-gram Jaccard), if any.

    Candidates are the reference units sharing a 5-gram that few units hold; a
    unit with Jaccard >= 0.8 shares most of its 5-grams, so it shares a rare one
    unless it is built only of boilerplate, which the exact check covers.
    """
    s = shingles(text)
    if not s:
        return None
    shared: Counter[int] = Counter()
    common = 0
    for g in s:
        post = ref.index.get(g)
        if post is None:
            continue
        if len(post) <= rare:
            shared.update(post)
        else:
            common += 1
    # Jaccard >= t needs an intersection of at least t * |s|, and sizes within a
    # factor t of each other: both bounds discard most candidates uncounted.
    need = threshold * len(s)
    best: tuple[str, float] | None = None
    for c, n_rare in shared.items():
        if n_rare + common < need:
            continue
        other = ref.shingle_sets[c]
        if not threshold * len(s) <= len(other) <= len(s) / threshold:
            continue
        inter = len(s & other)
        j = inter / (len(s) + len(other) - inter)
        if j >= threshold and (best is None or j > best[1]):
            best = (ref.names[c], j)
    return best


def contamination(record: Mapping[str, Any], ref: Reference) -> dict[str, Any] | None:
    """Why a unit record may not be used (its CUDA or HIP text matches a reference unit)."""
    for fld in ("cuda", "hip"):
        d = ref.digests.get(_digest(record[fld]))
        if d is not None:
            return {"id": record["id"], "field": fld, "kind": "exact", "match": d, "jaccard": 1.0}
        near = near_duplicates(record[fld], ref)
        if near is not None:
            return {
                "id": record["id"],
                "field": fld,
                "kind": "near",
                "match": near[0],
                "jaccard": round(near[1], 3),
            }
    return None


# ----------------------------------------------------------------------------- build


def _translate(data: bytes, settings: Settings) -> tuple[bytes, list[Any]]:
    r = translate_bytes(data, "unit.cu", settings)
    return r.data, list(r.diagnostics)


def _hazards_of(diags: Iterable[Any]) -> list[str]:
    return sorted({d.rule for d in diags if getattr(d, "rule", "") in WARP_RULES})


def _latin(b: bytes) -> str:
    return b.decode("latin-1")


def _bench_manifest(p: Program) -> str:
    def arr(xs: Iterable[str]) -> str:
        return "[" + ", ".join(json.dumps(x) for x in xs) + "]"

    return (
        f"domain = {json.dumps(p.domain)}\n"
        f"description = {json.dumps(p.description + ' (synthesized, ' + p.family + ')')}\n"
        f"features = {arr(p.features)}\n"
        f"hazards = {arr(p.hazards)}\n"
        "args = []\n"
        "libs = []\n"
    )


_DATA_CODE = (
    "cass_build/train/synth.py",
    "cass_build/train/synth_style.py",
    "cass_build/train/naivify.py",
    "cass_build/train/corpus.py",
    "cass_build/train/sdist.py",
    "cass_build/train/dataset.py",
    "cass_build/model/units.py",
)


def _commit(root: Path) -> str:
    """The checkout's commit, with ``+dirty`` when the data code has uncommitted edits."""
    try:
        head = run(["git", "rev-parse", "HEAD"], cwd=root, check=True).stdout.strip()
        status = ["git", "status", "--porcelain", "--", *_DATA_CODE]
        dirty = run(status, cwd=root, check=True).stdout.strip()
    except ProcessError:
        return "unknown"
    return head + ("+dirty" if dirty else "")


def synth_files(count: int, seed: int) -> list[SourceFile]:
    """``count`` programs, and for a share of the hazard ones the same program renamed
    (``_r1``: identifiers drawn again), so the model learns the rewrite, not the names."""
    out = []
    for k in range(count):
        base = synthesize(seed * 1_000_003 + k)
        copies = [base]
        if base.hazards and _unit_hash(f"rename:{seed}:{k}") < RENAMED_SHARE:
            copies.append(synthesize(seed * 1_000_003 + k, base.family, rename=1))
        for p in copies:
            twin = p.agnostic.encode("latin-1") if p.agnostic != p.naive else None
            out.append(
                SourceFile(
                    file_id=p.name,
                    source="synth",
                    data=p.naive.encode("latin-1"),
                    twin=twin,
                    labels=p.hazards,
                    program=p,
                )
            )
    return out


@dataclass
class _Units:
    """The units cut from the corpus, and the translated programs that check them."""

    records: list[dict[str, Any]] = field(default_factory=list)
    programs: list[tuple[str, bytes]] = field(default_factory=list)
    """(name, translated program): the program each target belongs to, compiled whole."""
    owner: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    """Each program's records (their indices)."""
    contexts: dict[int, tuple[PackageContext, frozenset[bytes]]] = field(default_factory=dict)
    """Per package tree (by id): its context reader and the warp-constant names it defines."""
    unit_contexts: dict[tuple[int, int], UnitContext] = field(default_factory=dict)
    """(file index, declaration index): the declaration's context, built once."""

    def context(self, fi: int, k: int, f: SourceFile) -> UnitContext:
        if (fi, k) not in self.unit_contexts:
            self.unit_contexts[fi, k] = self.package(f)[0].for_unit(f.relpath, k)
        return self.unit_contexts[fi, k]

    def package(self, f: SourceFile) -> tuple[PackageContext, frozenset[bytes]]:
        from .sdist import _roots

        assert f.tree is not None
        key = id(f.tree)
        if key not in self.contexts:
            self.contexts[key] = (PackageContext(f.tree, _roots(f.tree)), warp_names(f.tree))
        return self.contexts[key]


def _collect(
    out_dir: Path,
    seed: int,
    synth: int,
    sdist: bool,
    cache: Path | None,
    counts: dict[str, Counter[str]],
    log: Callable[[str], None],
) -> tuple[list[SourceFile], list[dict[str, Any]]]:
    """The corpus (synthesized programs, then sdists' files), each file given its split."""
    log(f"synthesizing {synth} programs (seed {seed})")
    files = synth_files(synth, seed)
    counts["synth"]["files_fetched"] = synth
    counts["synth"]["files_renamed"] = len(files) - synth
    sdist_manifest: list[dict[str, Any]] = []
    if sdist:
        from .sdist import collect

        cache = cache or out_dir.parent / "sdist_cache"
        sdist_manifest, sdist_files, sdist_counts = collect(cache, log=log)
        for src, c in sdist_counts.items():
            counts[src].update(c)
        files += sdist_files
    held_out = held_out_packages((m["package"] for m in sdist_manifest if m["used"]), seed)
    for m in sdist_manifest:
        m["split"] = "test" if m["package"] in held_out else "train/valid"
    for f in files:
        # A renamed copy (`_r1`) goes where its program goes: no program in two splits.
        key = _RENAMED.sub("", f.file_id) if f.source == "synth" else f.file_id
        f.split = split_of(key, seed, held_out if f.source != "synth" else None)
    return files, sdist_manifest


@dataclass
class _Target:
    hip: bytes
    error: bool
    """An error diagnostic (inline PTX, an API HIP lacks): the rules could not translate
    the unit, so there is no target to learn from."""
    hazard: bool
    """A warp-size warning on the unit: its translation still assumes 32 lanes, so it is
    no target for the model, whose job is to remove that assumption."""


def _warnings(diags: Iterable[Any]) -> list[str]:
    return sorted(
        {d.rule for d in diags if d.rule in WARP_RULES and getattr(d, "severity", "") == "warning"}
    )


def _translated(
    twin_segs: list[tuple[str, bytes]], settings: Settings
) -> tuple[list[bytes], list[_Target]] | None:
    """The file's segments translated, and each declaration's target; None when the core
    failed on it (it never should on odd input: a crash is a finding)."""
    translated = []
    targets: list[_Target] = []
    for kind, seg in twin_segs:
        try:
            hip, diags = _translate(seg, settings)
        except Exception:
            return None
        translated.append(hip)
        if kind == "decl":
            errors = any(d.severity == "error" for d in diags)
            # A full 32-bit mask given to a shuffle is what HIP accepts too.
            hazard = bool(set(_warnings(diags)) - {rule_id("warp-mask32")})
            targets.append(_Target(hip, errors, hazard))
    return translated, targets


def naive_variants(text: bytes, seed: str, count: int, settings: Settings) -> list[bytes]:
    """Up to ``count`` distinct 32-lane forms of an agnostic unit on which the rules warn
    of a warp-size hazard (native mode): the pairs made from real code."""
    out: list[bytes] = []
    for j in range(count * 2):
        if len(out) == count:
            break
        naive = naivify(_latin(text), _hash_seed(f"{seed}:{j}"))
        if naive is None:
            return out
        data = naive.encode("latin-1")
        if data in out or not _warnings(_translate(data, settings)[1]):
            continue
        out.append(data)
    return out


def _widened(text: bytes, settings: Settings) -> bytes | None:
    """The native translation of ``widen(text)`` when the rules warn of no warp-size
    hazard on it (a full 32-bit shuffle mask aside) and report no error."""
    wide = widen(_latin(text))
    if wide is None:
        return None
    hip, diags = _translate(wide.encode("latin-1"), settings)
    if set(_warnings(diags)) - {rule_id("warp-mask32")} or any(
        d.severity == "error" for d in diags
    ):
        return None
    return hip


#: Warnings a context target may keep: a full 32-bit shuffle mask, and ``warpSize`` where a
#: constant is needed (HIP 5.2's ``warpSize`` is ``static constexpr``: the compile decides).
_TARGET_OK = frozenset(rule_ids("warp-mask32", "warpsize-constant"))


def _context_target(agnostic: bytes, settings: Settings) -> bytes | None:
    """The native translation of an agnostic candidate, widened where the rules still warn
    of a 32-lane assumption; None when a warning (or an error) remains."""
    for text in (agnostic, (widen(_latin(agnostic)) or "").encode("latin-1")):
        if not text:
            continue
        hip, diags = _translate(text, settings)
        if not (set(_warnings(diags)) - _TARGET_OK) and not any(
            d.severity == "error" for d in diags
        ):
            return hip
    return None


def _context_record(
    fi: int, f: SourceFile, k: int, cu: bytes, settings: Settings, units: _Units, c: Counter[str]
) -> None:
    """A hazard pair from a real unit that names a warp-size constant of its package: the
    constant spelled as its value (the code as nvcc compiles it), and the ``warpSize`` form's
    translation as the target. Verified later, with the unit's context."""
    if f.vendored or f.tree is None:
        return
    _, names = units.package(f)
    if not names & set(re.findall(rb"[A-Za-z_]\w*", cu)):
        return
    uc = units.context(fi, k, f)
    forms = warp_forms(cu, uc.constants)
    if forms is None:
        return
    if not uc.device(cu):
        # Host code sizing launches: its agnostic form reads the device's warp size at run
        # time (hipDeviceProp_t), which no local rewrite gives; `warpSize` is device-side.
        c["units_context_hazard_host"] += 1
        return
    naive, agnostic = forms
    c["units_context_hazard_candidates"] += 1
    hip = _context_target(agnostic, settings)
    if hip is None:
        c["units_context_hazard_no_target"] += 1
        return
    if max(len(naive), len(hip)) > MAX_UNIT_BYTES:
        c["units_context_hazard_over_cap"] += 1
        return
    _, ndiags = _translate(naive, settings)
    units.records.append(
        {
            "id": f"{f.file_id}#{k}c",
            "source": f.source,
            "package": f.source.split(":", 1)[1],
            "file": f.file_id,
            "cuda": _latin(naive),
            "hip": _latin(hip),
            # No diagnostic: the 32 stands where a named warp-size constant stood, which is
            # what the rules flag at its definition.
            "hazards": _hazards_of(ndiags) or [rule_id("warp-size-literal")],
            "naive": True,
            "origin": "context",
            "_split": f.split,
            "_ctx": (fi, k),
            "_route": "context",
        }
    )


def _hash_seed(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def _hazards(text: bytes, labels: Sequence[str], settings: Settings) -> list[str]:
    """A naive unit's hazards: CASS's diagnostics on it, else the synthesizer's classes."""
    _, ndiags = _translate(text, settings)
    # No diagnostic: host code sizing grids for 32 lanes, which CASS flags
    # (cass-host-warp-count) only where the unit shows a kernel working per warp or names
    # warps; device code falls back to the synthesizer's classes.
    device = b"__global__" in text or b"__device__" in text
    return _hazards_of(ndiags) or (list(labels) if device else ["host-warp-size"])


def _file_units(fi: int, f: SourceFile, settings: Settings, units: _Units, c: Counter[str]) -> None:
    """Cut one file into units, both forms of a synthesized program aligned declaration
    by declaration; its translated program (glue and targets as recorded, so compiling it
    checks exactly the targets that are kept) joins ``units.programs``."""
    f.segments = _segments(f.data)
    twin_segs = _segments(f.twin) if f.twin is not None else f.segments
    decls = [s for k, s in f.segments if k == "decl"]
    tdecls = [s for k, s in twin_segs if k == "decl"]
    if not decls:
        return
    c["files_with_cuda"] += 1
    if len(decls) != len(tdecls):
        c["misaligned_pairs"] += 1
        return
    if f.vendored:
        c["units"] += len(decls)
        c["units_vendored"] += len(decls)
        return
    done = _translated(twin_segs, settings)
    if done is None:
        c["translation_failed_files"] += 1
        return
    translated, targets = done
    name = f"cass_p{fi}"
    units.programs.append((name, b"".join(translated)))
    kind = "synth" if f.source == "synth" else "sdist"
    package = "synth" if kind == "synth" else f.source.split(":", 1)[1]
    for k, (cu, tw, tgt) in enumerate(zip(decls, tdecls, targets, strict=True)):
        naive = f.twin is not None and cu != tw
        hip = tgt.hip
        c["units"] += 1
        if tgt.error:
            c["units_translation_failed"] += 1
            continue
        if kind == "sdist":
            _context_record(fi, f, k, cu, settings, units, c)
        if tgt.hazard and kind == "sdist":
            # Real code that hard-codes 32 lanes: its native translation keeps the hazard,
            # so it is no target. Where a mechanical widening removes every warning, the
            # widened form's translation is (verified on its own, in _verify).
            # (The synthesizer's agnostic forms warn only on constants sized for the
            # smallest warp, `1024 / 32` slots, and on full 32-bit shuffle masks.)
            c["units_target_hazard"] += 1
            widened = _widened(cu, settings)
            if widened is not None and max(len(cu), len(widened)) <= MAX_UNIT_BYTES:
                c["units_widened"] += 1
                units.owner[name].append(len(units.records))
                units.records.append(
                    {
                        "id": f"{f.file_id}#{k}w",
                        "source": f.source,
                        "package": package,
                        "file": f.file_id,
                        "cuda": _latin(cu),
                        "hip": _latin(widened),
                        "hazards": _hazards(cu, f.labels, settings),
                        "naive": True,
                        "origin": "widen",
                        "_split": f.split,
                        "_alone": True,
                        "_ctx": (fi, k),
                    }
                )
            continue
        forms = [(cu, naive, "")]
        if naive:
            forms.append((tw, False, "a"))  # the agnostic form: rules keep it as it is
        made = naive_variants(tw, f"{f.file_id}#{k}", NAIVE_VARIANTS[kind], settings)
        c["units_naivified"] += len(made)
        forms += [(v, True, f"n{j}") for j, v in enumerate(made)]
        for text, is_naive, tag in forms:
            if len(text) > MAX_UNIT_BYTES or len(hip) > MAX_UNIT_BYTES:
                c["units_over_cap"] += 1
                continue
            units.owner[name].append(len(units.records))
            units.records.append(
                {
                    "id": f"{f.file_id}#{k}{tag}",
                    "source": f.source,
                    "package": package,
                    "file": f.file_id,
                    "cuda": _latin(text),
                    "hip": _latin(hip),
                    "hazards": _hazards(text, f.labels, settings) if is_naive else [],
                    "naive": is_naive,
                    "origin": "naivify" if tag.startswith("n") else kind,
                    "_split": f.split,
                    "_ctx": (fi, k) if kind == "sdist" else None,
                }
            )


@dataclass
class _Verified:
    kept: list[dict[str, Any]]
    failures: dict[str, str]
    """Synthesized programs that failed to compile: name -> first error."""
    failed: set[str]
    compile_stats: dict[str, int]
    by_name: dict[str, SourceFile]
    synth_programs: list[tuple[str, bytes]]


def _verify(
    files: list[SourceFile],
    units: _Units,
    toolchain: HipToolchain,
    counts: dict[str, Counter[str]],
    *,
    batch: int,
    jobs: int,
    log: Callable[[str], None],
    context: str = "held-out",
) -> _Verified:
    """Synthesized programs compile in batches; sdist files alone, syntax only. The units
    of a program that fails are dropped. ``context`` (``CONTEXT_MODES``): whose units that
    fail alone get a second try with their context; the context pairs always get theirs."""
    log(f"verifying {len(units.programs)} translated programs with {toolchain.hipcc}")
    by_name = {n: files[int(n[6:])] for n, _ in units.programs}
    synth_progs = [(n, d) for n, d in units.programs if by_name[n].source == "synth"]
    other_progs = [(n, d) for n, d in units.programs if by_name[n].source != "synth"]
    failures, cstats = compile_batches(synth_progs, toolchain, batch=batch, jobs=jobs, log=log)
    failed = set(failures)
    if other_progs:
        from .sdist import verify_files

        failed |= verify_files(
            other_progs,
            by_name,
            toolchain,
            settings=data_settings(),
            jobs=jobs,
            log=log,
            counts=counts,
        )
    alone = {i for n in failed if by_name[n].source != "synth" for i in units.owner[n]}
    alone |= {i for i, r in enumerate(units.records) if r.get("_alone")}
    rescued = _units_alone(
        sorted(alone),
        units.records,
        toolchain,
        batch=batch,
        jobs=jobs,
        log=log,
    )
    # Second try, with each unit's context: what failed alone, and the context pairs.
    routed = {i for i, r in enumerate(units.records) if r.get("_route") == "context"}
    retry = {
        i
        for i in alone - rescued
        if context == "all" or (context == "held-out" and units.records[i]["_split"] == "test")
    }
    in_context = _units_in_context(
        sorted(retry | routed),
        units,
        files,
        toolchain,
        counts,
        batch=batch,
        jobs=jobs,
        log=log,
    )
    for n in failed:
        f = by_name[n]
        if f.source == "synth":
            counts[f.source]["files_failed_compile"] += 1
        owned = units.owner[n]
        alive = sum(i in rescued for i in owned)
        late = sum(i in in_context and i not in rescued for i in owned)
        counts[f.source]["units_failed_compile"] += len(owned) - alive - late
        counts[f.source]["units_verified_alone"] += alive
        counts[f.source]["units_verified_context"] += late
    checked = rescued | in_context
    dead = {i for n in failed for i in units.owner[n]} - checked
    # Widened and context targets were not in their file's compiled program: only their own
    # check counts.
    unchecked = {
        i
        for i, r in enumerate(units.records)
        if (r.get("_alone") or r.get("_route")) and i not in checked
    }
    for i in unchecked - dead:
        r = units.records[i]
        stage = "units_widened_failed_compile" if r.get("_alone") else "units_context_hazard_failed"
        counts[r["source"]][stage] += 1
    for i in (routed | {i for i, r in enumerate(units.records) if r.get("_alone")}) & in_context:
        r = units.records[i]
        tag = "hazard" if r.get("_route") else "widened"
        counts[r["source"]][f"units_context_{tag}_verified"] += 1
    dead |= unchecked
    kept = [r for i, r in enumerate(units.records) if i not in dead]
    return _Verified(kept, failures, failed, cstats, by_name, synth_progs)


#: What a unit compiled on its own may use: HIP and the C/C++ basics its file would
#: have included.
_ALONE_PRELUDE = b"#include <hip/hip_runtime.h>\n#include <cstdint>\n#include <cfloat>\n"


def _units_alone(
    indices: Sequence[int],
    records: Sequence[dict[str, Any]],
    toolchain: HipToolchain,
    *,
    batch: int,
    jobs: int,
    log: Callable[[str], None],
) -> set[int]:
    """The records (of sdist files that fail to compile whole, mostly for PyTorch headers
    that are not installed) whose target compiles on its own for gfx90a, syntax only.

    A kernel that needs only HIP, its template parameters and plain types is verified
    that way; one that needs its file's types, macros or helpers fails and stays out.
    """
    by_text: dict[str, list[int]] = defaultdict(list)
    for i in indices:
        by_text[records[i]["hip"]].append(i)
    if not by_text:
        return set()
    programs = [
        (f"cass_p{k}", _ALONE_PRELUDE + text.encode("latin-1")) for k, text in enumerate(by_text)
    ]
    log(f"verifying {len(programs)} sdist units of failed files on their own")
    failed, _ = compile_batches(
        programs, toolchain, batch=batch, jobs=jobs, syntax=True, flags=["-ferror-limit=0"], log=log
    )
    return {
        i
        for (n, _), ids in zip(programs, by_text.values(), strict=True)
        if n not in failed
        for i in ids
    }


#: Units that name PyTorch's API: their context is torch's headers, which are not installed.
_TORCH = re.compile(rb"\b(?:at|torch|c10|pybind11|py)::|\b(?:AT|TORCH|C10)_[A-Z]")
#: Programs per compiled batch when each brings its context (tens of kB each).
CONTEXT_BATCH = 20
#: Whose units failing alone are tried again with their context. ``all`` costs ~3,000
#: context compiles (about 20 minutes on 2 busy cores); the default, ``held-out``, the
#: test packages' few hundred.
CONTEXT_MODES = ("all", "held-out", "off")


def _units_in_context(
    indices: Sequence[int],
    units: _Units,
    files: Sequence[SourceFile],
    toolchain: HipToolchain,
    counts: dict[str, Counter[str]],
    *,
    batch: int,
    jobs: int,
    log: Callable[[str], None],
) -> set[int]:
    """The sdist records whose target (and, for a context pair, whose 32-lane source too)
    compiles for gfx90a after its unit's context, syntax only (``context.PackageContext``:
    the translated closure of the local definitions it uses)."""
    from .sdist import _system_dirs

    settings = data_settings()
    system = _system_dirs(toolchain)
    hip_of: dict[bytes, bytes] = {}

    def translated(cuda: bytes) -> bytes:
        if cuda not in hip_of:
            hip_of[cuda] = system_includes_ok(_translate(cuda, settings)[0], system)
        return hip_of[cuda]

    texts: dict[bytes, int] = {}
    needs: dict[int, list[int]] = {}
    for i in indices:
        r = units.records[i]
        if r.get("_ctx") is None:
            continue
        fi, k = r["_ctx"]
        f = files[fi]
        c = counts[f.source]
        if _TORCH.search(r["cuda"].encode("latin-1")):
            c["units_context_skipped_torch"] += 1
            continue
        uc = units.context(fi, k, f)
        if not uc.items:
            c["units_context_empty"] += 1
            continue
        c["units_context_tried"] += 1
        progs = [translated(uc.source) + b"\n" + uc.wrap(r["hip"].encode("latin-1"))]
        if r.get("_route"):
            progs.append(translated(uc.source + b"\n" + uc.wrap(r["cuda"].encode("latin-1"))))
        needs[i] = [texts.setdefault(_ALONE_PRELUDE + p, len(texts)) for p in progs]
    if not texts:
        return set()
    programs = [(f"cass_p{n}", text) for text, n in texts.items()]
    log(f"verifying {len(needs)} sdist units with their context ({len(programs)} programs)")
    failed, _ = compile_batches(
        programs,
        toolchain,
        batch=min(batch, CONTEXT_BATCH),
        jobs=jobs,
        syntax=True,
        flags=["-ferror-limit=0"],
        log=log,
    )
    return {i for i, ns in needs.items() if not any(f"cass_p{n}" in failed for n in ns)}


def _decontaminate(
    kept: list[dict[str, Any]], ref: Reference, counts: dict[str, Counter[str]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The records that match no bench program or test fixture, and the hits."""
    hits: list[dict[str, Any]] = []
    clean = []
    for r in kept:
        hit = contamination(r, ref)
        if hit:
            hits.append(hit)
            counts[r["source"]]["dedup_contamination"] += 1
        else:
            clean.append(r)
    return clean, hits


def _by_split(
    clean: list[dict[str, Any]], counts: dict[str, Counter[str]]
) -> dict[str, list[dict[str, Any]]]:
    """Exact duplicates inside the corpus: one copy per split, none of train's in valid/test."""
    seen: dict[str, set[str]] = {s: set() for s in SPLITS}
    final: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    for split in SPLITS:
        for r in clean:
            if r["_split"] != split:
                continue
            key = _digest(r["cuda"] + "\0" + r["hip"])
            if key in seen[split] or (split != "train" and key in seen["train"]):
                counts[r["source"]]["dedup_internal"] += 1
                continue
            seen[split].add(key)
            final[split].append(r)
            counts[r["source"]][f"kept_{split}"] += 1
            if r["hazards"]:
                counts[r["source"]][f"kept_{split}_hazard"] += 1
            if r["origin"] in ("naivify", "widen", "context"):
                counts[r["source"]][f"kept_{split}_{r['origin']}"] += 1
    return final


def _write_splits(tmp: Path, final: dict[str, list[dict[str, Any]]], verified: _Verified) -> int:
    """The split files and the test split's programs (as bench programs); returns their
    number."""
    for split, recs in final.items():
        with gzip.open(tmp / f"{split}.jsonl.gz", "wt", encoding="utf-8", compresslevel=9) as fh:
            for r in recs:
                fh.write(json.dumps({k: v for k, v in r.items() if k[0] != "_"}) + "\n")
    test_dir = tmp / "test_programs"
    test_dir.mkdir()
    n_test_programs = 0
    for n, _ in verified.synth_programs:
        f = verified.by_name[n]
        if f.split != "test" or n in verified.failed or f.program is None:
            continue
        pdir = test_dir / f.program.name
        pdir.mkdir()
        (pdir / "main.cu").write_bytes(f.data)
        (pdir / "manifest.toml").write_text(_bench_manifest(f.program), encoding="utf-8")
        n_test_programs += 1
    return n_test_programs


def _per_package(final: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, int]]:
    """Kept units per package and split, with the naivified and the hazard ones."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for split, recs in final.items():
        for r in recs:
            c = out[r["package"]]
            c[split] += 1
            c[f"{split}_hazard"] += bool(r["hazards"])
            c[f"{split}_naivified"] += r["origin"] == "naivify"
            c[f"{split}_widened"] += r["origin"] == "widen"
            c[f"{split}_context"] += r["origin"] == "context"
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def build(
    out_dir: Path,
    *,
    seed: int = 0,
    synth: int = 4000,
    sdist: bool = True,
    root: Path | None = None,
    cache: Path | None = None,
    jobs: int = 2,
    batch: int = 100,
    context: str = "held-out",
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Build the data set into ``out_dir`` (written to a temporary sibling, then renamed).
    ``context``: see ``CONTEXT_MODES``."""
    started = time.perf_counter()
    root = root or Path(__file__).resolve().parents[2]
    toolchain = find_hip()
    if toolchain is None:
        msg = "no HIP toolchain (hipcc) found: targets cannot be verified"
        raise RuntimeError(msg)
    settings = data_settings()
    # Read now, not at the end: commits made while a long build runs are not its code.
    commit = _commit(root)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    files, sdist_manifest = _collect(out_dir, seed, synth, sdist, cache, counts, log)

    log("cutting units and translating")
    units = _Units()
    for fi, f in enumerate(files):
        _file_units(fi, f, settings, units, counts[f.source])
    verified = _verify(
        files, units, toolchain, counts, batch=batch, jobs=jobs, log=log, context=context
    )

    log("dedup against bench/programs and tests/")
    ref = reference_units(root)
    clean, dedup_hits = _decontaminate(verified.kept, ref, counts)
    final = _by_split(clean, counts)

    # Everything is written into a private sibling, then swapped in (publish_dir).
    with publish_dir(out_dir, replace=True) as tmp:
        n_test_programs = _write_splits(tmp, final, verified)
        (tmp / "dedup.json").write_text(
            json.dumps(
                {
                    "reference_units": len(ref.names),
                    "reference_digests": len(ref.digests),
                    "threshold_jaccard": 0.8,
                    "shingle": "token 5-grams",
                    "checked_units": len(verified.kept),
                    "dropped": len(dedup_hits),
                    "hits": dedup_hits,
                },
                indent=1,
            ),
            encoding="utf-8",
        )
        seconds = time.perf_counter() - started
        sizes = {s: (tmp / f"{s}.jsonl.gz").stat().st_size for s in SPLITS}
        total_units = sum(len(v) for v in final.values())
        hazard_units = sum(1 for v in final.values() for r in v if r["hazards"])
        manifest = {
            "command": f"python -m cass_build.train data {out_dir} --seed {seed} --synth {synth}"
            + ("" if sdist else " --no-sdist")
            + ("" if context == "held-out" else f" --context {context}"),
            "seed": seed,
            "commit": commit,
            "hip_version": ".".join(map(str, settings.resolved_hip_version())),
            "hipcc": f"{toolchain.hipcc} {toolchain.version_text}",
            "arch": ARCH,
            "max_unit_bytes": MAX_UNIT_BYTES,
            "build_seconds": round(seconds, 1),
            "counts": {k: dict(sorted(v.items())) for k, v in sorted(counts.items())},
            "counts_total": dict(sorted(sum(counts.values(), Counter[str]()).items())),
            "compile": verified.compile_stats,
            "compile_failures": [
                {"file": verified.by_name[n].file_id, "error": e}
                for n, e in sorted(verified.failures.items())[:100]
            ],
            "test_programs": n_test_programs,
            "units": {s: len(v) for s, v in final.items()},
            "hazard_units": hazard_units,
            "hazard_share": round(hazard_units / max(1, total_units), 3),
            "bytes_gz": sizes,
            "warp": settings.warp,
            "test_packages": sorted(
                m["package"] for m in sdist_manifest if m.get("split") == "test"
            ),
            "units_per_package": _per_package(final),
            "context_route": {
                src.split(":", 1)[1]: {k: v for k, v in sorted(c.items()) if "context" in k and v}
                for src, c in sorted(counts.items())
                if src.startswith("sdist:") and any("context" in k and v for k, v in c.items())
            },
            "sdist": sdist_manifest,
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        # The consumer polls for READY: it is written last, inside the directory that is swapped in.
        (tmp / "READY").write_text(f"{manifest['command']}\n", encoding="utf-8")
    log(f"done in {seconds:.0f} s: {manifest['units']}, hazard share {manifest['hazard_share']}")
    return manifest
