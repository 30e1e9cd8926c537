"""A real unit's context: what its file and package define that it uses.

A declaration cut from a real file rarely compiles alone: it names its package's
macros (``DS_D_INLINE``), constants (``hw_warp_size``), helper functions and
structs from local headers. ``PackageContext.for_unit`` collects the transitive
closure of the local definitions a unit uses, from the file before it and from
the package headers the file includes (transitively), and renders them as
CUDA source the unit can follow:

- each definition keeps the ``#if`` frames and namespaces around it, reopened
  and closed per definition, so the result is balanced whatever is picked;
- conditions are read as nvcc reads them (the *CUDA view*): HIP platform macros
  are undefined, so ``constexpr int hw_warp_size = 32;`` is the definition kept,
  and branches that are provably not taken are left out;
- local includes are replaced by their definitions; system includes are kept
  (``verify`` drops those that do not resolve after translation).

The ``#define`` and ``constexpr`` values read on the way say which names are
warp-size constants (``WARP_SIZE 32``, ``WARP_SIZE_BITS 5``), so ``warp_forms``
can make the 32-lane form of a unit and its warp-size-agnostic candidate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..model.guards import _declared, _words
from ..model.units import split_units

__all__ = ["Item", "PackageContext", "UnitContext", "warp_forms"]

#: Caps: a closure larger than this is no context, it is the whole package.
MAX_ITEMS = 400
MAX_BYTES = 256 * 1024

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(\w+)(.*)$", re.DOTALL)
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]')
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\(?)(.*)$", re.DOTALL)
_OPEN = re.compile(rb'(?:inline\s+)?namespace(?:\s+[\w:]+)?\s*\{|extern\s*"C(?:\+\+)?"\s*\{|\{|\}')
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.DOTALL)
#: Macros nvcc leaves undefined and hipcc defines: the CUDA view reads them as 0. So is
#: ``__CUDA_ARCH__``: the branches it guards hold PTX (``asm``) that HIP cannot take.
_HIP_MACRO = (
    rb"__HIP_PLATFORM_\w+__|__HIPCC__|__HIP__|__HIP_DEVICE_COMPILE__|USE_ROCM|__HIP_\w+__"
    rb"|__CUDA_ARCH__"
)
_HIP_DEFINED = re.compile(rb"\bdefined\s*\(?\s*(?:" + _HIP_MACRO + rb")\s*\)?")
_HIP_BARE = re.compile(rb"\b(?:" + _HIP_MACRO + rb")\b")
_IFDEF = re.compile(rb"^([ \t]*#[ \t]*)(ifn?def)[ \t]+(\w+)", re.DOTALL)
_CONST_DECL = re.compile(
    rb"\b(?:static\s+)?constexpr\s+(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|unsigned|size_t|"
    rb"uint32_t|int32_t|long)\s+([A-Za-z_]\w*)\s*=\s*\(?\s*(\d+)[uUlL]*\s*\)?\s*;"
)
_WARPISH = re.compile(rb"warp|wave|lanes", re.IGNORECASE)
_LOGISH = re.compile(rb"bits|shift|log", re.IGNORECASE)
#: A count of warps (``MAX_WARP_NUM 32``, ``max_warps``), not of lanes: left as it is.
_COUNTISH = re.compile(rb"num|count|max|warps", re.IGNORECASE)


@dataclass(frozen=True)
class Item:
    """One local definition: a declaration or a ``#define``, or a system include."""

    kind: str  # "decl", "define", "undef" or "include"
    text: bytes
    defines: frozenset[bytes]
    uses: frozenset[bytes]
    frames: tuple[tuple[bytes, ...], ...]
    """The ``#if`` chains around it, each up to its own branch's directive."""
    spaces: tuple[bytes, ...]
    """The namespace (or ``extern "C"``) openers around it, outermost first."""
    order: tuple[int, int]
    """(file's place in the include walk, place in the file): the order it is written in."""


@dataclass
class UnitContext:
    """What a unit needs before it, in the CUDA view, and the warp constants it names."""

    items: list[Item]
    source: bytes
    """The rendered context (CUDA source), system includes first."""
    constants: dict[bytes, int] = field(default_factory=dict)
    """Warp-size constants the unit uses: name -> 32 (lanes) or 5 (their log2)."""
    spaces: tuple[bytes, ...] = ()
    """The namespaces the unit itself is declared in."""

    def device(self, unit: bytes) -> bool:
        """Is ``unit`` device code: ``__global__``/``__device__``, spelled out or through a
        macro of the context (``DS_D_INLINE``)?"""
        marks = (b"__global__", b"__device__")
        if any(m in unit for m in marks):
            return True
        words = _code_words(unit)
        return any(
            i.kind == "define" and i.defines & words and any(m in i.text for m in marks)
            for i in self.items
        )

    def wrap(self, unit: bytes) -> bytes:
        """``unit`` (a form of the declaration) inside its own namespaces."""
        opens = b"".join(s + b"\n" for s in self.spaces)
        return opens + unit + b"\n" + b"}\n" * len(self.spaces)


def cuda_view(line: bytes) -> bytes:
    """A conditional directive as nvcc reads it: HIP platform macros are 0."""
    m = _IFDEF.match(line)
    if m and _HIP_BARE.fullmatch(m.group(3)):
        taken = m.group(2) == b"ifndef"
        return m.group(1) + (b"if 1" if taken else b"if 0") + line[m.end() :]
    line = _HIP_DEFINED.sub(b"0", line)
    return _HIP_BARE.sub(b"0", line)


def _never(frame: Sequence[bytes]) -> bool:
    """Is the branch a frame ends in provably not taken (``#if 0``, or ``#else``/``#elif``
    after ``#if 1``)?"""
    conds = [_DIRECTIVE.match(d) for d in frame]
    words = [(m.group(1), m.group(2).strip()) if m else (b"", b"") for m in conds]
    last_kw, last_arg = words[-1]
    if last_kw in (b"if", b"elif") and last_arg in (b"0", b"(0)", b"!1"):
        return True
    return any(kw in (b"if", b"elif") and arg in (b"1", b"(1)", b"!0") for kw, arg in words[:-1])


def _code_words(text: bytes) -> frozenset[bytes]:
    return frozenset(_words(text))


def _join_continued(glue: bytes) -> list[bytes]:
    """Glue's lines, a directive's backslash continuations joined to it."""
    out: list[bytes] = []
    pending = b""
    for line in glue.splitlines(keepends=True):
        pending += line
        if pending.rstrip(b"\r\n").endswith(b"\\"):
            continue
        out.append(pending)
        pending = b""
    if pending:
        out.append(pending)
    return out


def parse_file(data: bytes, file_order: int) -> tuple[list[Item], list[int]]:
    """A file's items in order, and the item index of each of its ``decl`` segments."""
    items: list[Item] = []
    decl_at: list[int] = []
    frames: list[list[bytes]] = []
    spaces: list[bytes] = []
    pos = 0

    def add(kind: str, text: bytes, defines: Iterable[bytes], uses: frozenset[bytes]) -> None:
        items.append(
            Item(
                kind,
                text,
                frozenset(defines),
                uses,
                tuple(tuple(f) for f in frames),
                tuple(spaces),
                (file_order, len(items)),
            )
        )

    for seg in split_units(data):
        text = data[seg.start : seg.end]
        pos += 1
        if seg.kind == "decl":
            decl_at.append(len(items))
            add("decl", text, _declared(text), _code_words(text))
            continue
        code: list[bytes] = []
        for line in _join_continued(text):
            m = _DIRECTIVE.match(line)
            if m is None:
                code.append(line)
                continue
            _scan_braces(b"".join(code), spaces)
            code = []
            kw = m.group(1)
            if kw in (b"if", b"ifdef", b"ifndef"):
                frames.append([cuda_view(line.rstrip() + b"\n")])
            elif kw in (b"elif", b"else") and frames:
                frames[-1].append(cuda_view(line.rstrip() + b"\n"))
            elif kw == b"endif" and frames:
                frames.pop()
            elif kw == b"define":
                d = _DEFINE.match(line)
                if d is not None:
                    add("define", line.rstrip() + b"\n", [d.group(1)], _code_words(d.group(3)))
            elif kw == b"undef":
                add("undef", line.rstrip() + b"\n", [], _code_words(m.group(2)))
            elif kw == b"include":
                add("include", line.rstrip() + b"\n", [], frozenset())
        _scan_braces(b"".join(code), spaces)
    return items, decl_at


def _scan_braces(code: bytes, spaces: list[bytes]) -> None:
    """Namespace openers and closers in glue code (comments and strings aside)."""
    code = _COMMENT.sub(b" ", code)
    for m in _OPEN.finditer(code):
        tok = m.group(0)
        if tok == b"}":
            if spaces:
                spaces.pop()
        else:
            spaces.append(tok)


class PackageContext:
    """The local definitions of one package's files, read once per file."""

    def __init__(self, tree: Mapping[str, bytes], roots: Sequence[str]):
        self.tree = tree
        self.roots = roots
        self._parsed: dict[str, tuple[list[Item], list[int]]] = {}
        self._paths_by_base: dict[str, list[str]] = {}
        for path in tree:
            self._paths_by_base.setdefault(path.rsplit("/", 1)[-1], []).append(path)

    def _parse(self, rel: str, order: int) -> tuple[list[Item], list[int]]:
        if rel not in self._parsed:
            self._parsed[rel] = parse_file(self.tree[rel], order)
        return self._parsed[rel]

    def _local(self, rel: str, quote: bool, target: str) -> str | None:
        from .sdist import _normpath, package_header

        found = package_header(self.tree, self.roots, rel, quote, target)
        if found is not None:
            return found
        # Build systems add include directories (deepspeed's csrc/includes) that the
        # roots do not guess: a header found by its path's tail, nearest to the includer.
        tail = "/" + _normpath(target)
        near = [p for p in self._paths_by_base.get(tail.rsplit("/", 1)[-1], ()) if p.endswith(tail)]
        if not near:
            return None
        return max(near, key=lambda p: (_common(p, rel), p))

    def headers(self, rel: str) -> list[str]:
        """The package headers ``rel`` includes, transitively, each before its includer."""
        out: list[str] = []
        seen = {rel}

        def walk(path: str, depth: int) -> None:
            for line in self.tree[path].splitlines():
                m = _INCLUDE.match(line)
                if m is None:
                    continue
                found = self._local(path, m.group(1) == b'"', m.group(2).decode("latin-1"))
                if found is None or found in seen or depth > 12:
                    continue
                seen.add(found)
                walk(found, depth + 1)
                out.append(found)

        walk(rel, 0)
        return out

    def pool(self, rel: str, decl: int) -> tuple[list[Item], Item]:
        """Every definition the ``decl``-th declaration of ``rel`` may see, and its item."""
        pool: list[Item] = []
        for n, header in enumerate(self.headers(rel)):
            items, _ = self._parse(header, n)
            pool += [i for i in items if i.kind != "include" or self._system(header, i)]
        items, decl_at = self._parse(rel, 10_000)
        at = decl_at[decl]
        pool += [i for i in items[:at] if i.kind != "include" or self._system(rel, i)]
        return pool, items[at]

    def _system(self, rel: str, item: Item) -> bool:
        m = _INCLUDE.match(item.text)
        if m is None:
            return False
        return self._local(rel, m.group(1) == b'"', m.group(2).decode("latin-1")) is None

    def for_unit(self, rel: str, decl: int, unit: bytes | None = None) -> UnitContext:
        """The context of the ``decl``-th declaration of ``rel`` (``unit``: another form of
        it, whose names are looked up instead)."""
        pool, own = self.pool(rel, decl)
        pool = [i for i in pool if not any(_never(f) for f in i.frames)]
        by_name: dict[bytes, list[int]] = {}
        for k, item in enumerate(pool):
            for name in item.defines:
                by_name.setdefault(name, []).append(k)
        wanted = set(_code_words(unit) if unit is not None else own.uses)
        picked: set[int] = set()
        todo = list(wanted)
        size = 0
        while todo and len(picked) < MAX_ITEMS and size < MAX_BYTES:
            name = todo.pop()
            for k in by_name.get(name, ()):
                if k in picked:
                    continue
                picked.add(k)
                size += len(pool[k].text)
                for w in pool[k].uses - wanted:
                    wanted.add(w)
                    todo.append(w)
        chosen = [pool[k] for k in sorted(picked)]
        includes = [i for i in pool if i.kind == "include"]
        constants = _constants(chosen, _code_words(unit) if unit is not None else own.uses)
        return UnitContext(chosen, render(includes, chosen), constants, own.spaces)


def _common(a: str, b: str) -> int:
    """How many leading path components ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        n += 1
    return n


def render(includes: Sequence[Item], items: Sequence[Item]) -> bytes:
    """System includes (once each), then each item inside its own frames and namespaces."""
    out = list(dict.fromkeys(i.text for i in includes))
    for item in items:
        head = [d for f in item.frames for d in f]
        opens = [s + b"\n" for s in item.spaces]
        closes = [b"}\n"] * len(item.spaces)
        ends = [b"#endif\n"] * len(item.frames)
        body = item.text if item.text.endswith(b"\n") else item.text + b"\n"
        out += [*head, *opens, body, *closes, *ends]
    return b"".join(out)


def _constants(items: Sequence[Item], used: frozenset[bytes]) -> dict[bytes, int]:
    """Names of ``items`` fixing the warp at 32 lanes (or 5 bits) that ``used`` names."""
    out: dict[bytes, int] = {}
    for item in items:
        if item.kind == "define":
            m = _DEFINE.match(item.text)
            if m is None or m.group(2):
                continue
            name, value = m.group(1), m.group(3).strip().strip(b"()").rstrip(b"uUlL")
            if not value.isdigit():
                continue
            pairs = [(name, int(value))]
        elif item.kind == "decl":
            pairs = [(m.group(1), int(m.group(2))) for m in _CONST_DECL.finditer(item.text)]
        else:
            continue
        for name, v in pairs:
            if name not in used or not _WARPISH.search(name) or _COUNTISH.search(name):
                continue
            if v == 32 or (v == 5 and _LOGISH.search(name)):
                out[name] = v
    return out


def _sub_word(text: bytes, name: bytes, new: bytes) -> bytes:
    return re.sub(rb"(?<![\w.])" + re.escape(name) + rb"\b", new, text)


def warp_forms(unit: bytes, constants: Mapping[bytes, int]) -> tuple[bytes, bytes] | None:
    """The unit's 32-lane form (each warp constant spelled as its value) and its agnostic
    candidate (lanes as ``warpSize``; ``>> BITS`` as ``/ warpSize``, ``<< BITS`` as
    ``* warpSize``); None when it names none, or uses a bits constant otherwise."""
    if not constants:
        return None
    naive, agnostic = unit, unit
    for name, v in sorted(constants.items()):
        naive = _sub_word(naive, name, str(v).encode())
        if v == 32:
            agnostic = _sub_word(agnostic, name, b"warpSize")
            continue
        word = re.escape(name)
        agnostic = re.sub(rb">>\s*" + word + rb"\b", b"/ warpSize", agnostic)
        agnostic = re.sub(rb"<<\s*" + word + rb"\b", b"* warpSize", agnostic)
        if re.search(rb"\b" + word + rb"\b", agnostic):
            return None
    if naive == unit:
        return None
    return naive, agnostic


def system_includes_ok(source: bytes, system: Sequence[Path]) -> bytes:
    """``source`` without the ``#include <...>`` lines no system directory holds."""
    out = []
    for line in source.splitlines(keepends=True):
        m = _INCLUDE.match(line)
        if m is not None:
            target = m.group(2).decode("latin-1").strip()
            if not any((d / target).is_file() for d in system):
                continue
        out.append(line)
    return b"".join(out)


_NAMED_CONST = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?(32|5)[uU]?\)?[ \t]*(?:$|//|/\*)"
    rb"|\bconstexpr\s+[^;=()]*?\b([A-Za-z_]\w*)\s*=\s*\(?\s*(32|5)[uU]?\s*\)?\s*;",
    re.MULTILINE,
)


def warp_names(tree: Mapping[str, bytes]) -> frozenset[bytes]:
    """Names some file of the package defines as a warp-size constant (32, or 5 bits): the
    cheap filter before a unit's context is built."""
    out: set[bytes] = set()
    for data in tree.values():
        for m in _NAMED_CONST.finditer(data):
            name, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if _COUNTISH.search(name) or not _WARPISH.search(name):
                continue
            if value == b"32" or _LOGISH.search(name):
                out.add(name)
    return frozenset(out)
