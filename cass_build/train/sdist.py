"""Source (b): CUDA code shipped inside package sdists on PyPI.

The code is fetched when the data is built, into a cache directory, and never
committed. Each archive is checked against the sha256 the index publishes; its
licence is read from the archive itself (``PKG-INFO`` licence fields and
classifiers, then the ``LICENSE`` file), and only MIT, BSD and Apache-2.0
packages are used. A file that carries its own GPL or proprietary notice is
dropped even inside a permissive package.

``pip download --no-binary :all:`` cannot fetch most of these archives: it
prepares their metadata by running ``setup.py``, which imports torch. The
archive is therefore located through the index's JSON API (the same index pip
uses) and downloaded as a plain file.

Translated sdist files need headers that are not installed here (torch, ATen,
CUTLASS): a file whose includes do not resolve is counted as dropped without
compiling; the others are compiled syntax-only for gfx90a inside a translated
mirror of their package.
"""

from __future__ import annotations

import hashlib
import json
import re
import tarfile
import tempfile
import urllib.request
import zipfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import write_atomic
from .._proc import run
from ..pipeline.toolchain import HipToolchain
from ..settings import Settings
from .corpus import SourceFile

__all__ = [
    "CANDIDATES",
    "Package",
    "classify_licence",
    "collect",
    "licence_of",
    "verify_files",
]

INDEX = "https://pypi.org/simple"
#: Packages tried, pinned so a build is reproducible.
CANDIDATES: tuple[tuple[str, str], ...] = (
    ("torch-scatter", "2.1.2"),
    ("torch-sparse", "0.6.18"),
    ("torch-cluster", "1.6.3"),
    ("torch-spline-conv", "1.2.2"),
    ("torch-points-kernels", "0.7.0"),
    ("causal-conv1d", "1.7.0"),
    ("mamba-ssm", "2.3.2.post1"),
    ("mmcv", "2.2.0"),
    ("nerfacc", "0.5.3"),
    ("deepspeed", "0.19.8"),
    ("cupy", "14.2.0"),
    ("xformers", "0.0.35"),
    ("gsplat", "1.5.3"),
    ("flash-attn", "2.8.3.post2"),
    ("vllm", "0.33.0"),
    # Added for the native-mode data (issue 21). gpu4pyscf 1.9.0 and
    # fast-hadamard-transform 1.1.0 were tried too: their sdists hold no CUDA source.
    ("auto-gptq", "0.7.1"),
    ("natten", "0.21.7"),
)
MAX_DOWNLOAD = 300 * 1024 * 1024
MAX_FILE = 512 * 1024
MAX_FILES_PER_PACKAGE = 400
PERMISSIVE = ("MIT", "BSD", "Apache-2.0")
CUDA_SUFFIXES = (".cu", ".cuh")
HEADER_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hxx", ".inl", ".inc", ".cuinl")
_FILE_NOTICE = re.compile(
    rb"GNU (?:Lesser |Affero )?General Public License|\bL?GPL(?:v\d|-\d)|"
    rb"retain all intellectual property|proprietary and confidential",
    re.IGNORECASE,
)


@dataclass
class Package:
    name: str
    version: str
    licence: str
    licence_evidence: str
    sha256: str
    url: str
    size: int
    files: dict[str, bytes]
    """Every CUDA source and header of the archive, by path below its top directory."""


# ----------------------------------------------------------------------------- licence


_LICENCE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "Apache-2.0",
        re.compile(r"Apache(?:\s+Software)?(?:\s+License)?[\s,v-]*(?:Version\s*)?2", re.I),
    ),
    ("Apache-2.0", re.compile(r"\bApache (?:Software )?License\b", re.I)),
    ("BSD", re.compile(r"\bBSD\b", re.I)),
    ("BSD", re.compile(r"Redistribution and use in source and binary forms", re.I)),
    ("MIT", re.compile(r"\bMIT\b")),
    ("MIT", re.compile(r"Permission is hereby granted, free of charge", re.I)),
)
_COPYLEFT = re.compile(r"\b(?:L?GPL|AGPL|General Public License|MPL|Mozilla|EUPL|CC-BY-NC)", re.I)


def classify_licence(text: str) -> str | None:
    """``MIT``, ``BSD`` or ``Apache-2.0`` when ``text`` names only a permissive licence."""
    if not text.strip() or _COPYLEFT.search(text):
        return None
    for name, pattern in _LICENCE_PATTERNS:
        if pattern.search(text):
            return name
    return None


def licence_of(pkg_info: str, licence_files: Mapping[str, str]) -> tuple[str | None, str]:
    """A package's licence and where it was read, from its metadata, else its licence file.

    Every source that says something must agree on a permissive licence: a GPL
    classifier next to an MIT licence field rejects the package.
    """
    fields: list[tuple[str, str]] = []
    for line in pkg_info.splitlines():
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "License-Expression" and value:
            fields.append(("License-Expression", value))
        elif key == "License" and value and value.upper() != "UNKNOWN":
            fields.append(("License", value.splitlines()[0][:200]))
        elif key == "Classifier" and value.startswith("License ::"):
            fields.append(("Classifier", value))
    if not fields:
        for name, text in sorted(licence_files.items()):
            fields.append((name, text[:3000]))
            break
    if not fields:
        return None, "no licence field, classifier or licence file"
    found = {classify_licence(v) for _, v in fields}
    evidence = "; ".join(f"{k}: {v[:80]!r}" for k, v in fields)
    if None in found or len(found) != 1:
        return None, evidence
    return found.pop(), evidence


# ----------------------------------------------------------------------------- fetch


def _get(url: str, timeout: float = 120.0) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        data: bytes = r.read()
    return data


_LINK = re.compile(r'<a[^>]*href="([^"#]+)#sha256=([0-9a-f]{64})"[^>]*>([^<]+)</a>')


def _sdist_info(name: str, version: str) -> dict[str, Any]:
    """The sdist link of ``name==version`` on the index's simple page (what pip reads)."""
    page = _get(f"{INDEX}/{name}/").decode("utf-8", "replace")
    stem = "[-_.]".join(re.escape(part) for part in re.split(r"[-_.]+", name))
    wanted = re.compile(rf"^{stem}-{re.escape(version)}\.(?:tar\.gz|zip)$", re.IGNORECASE)
    for url, sha256, filename in _LINK.findall(page):
        if wanted.match(filename.strip()):
            return {"url": url, "sha256": sha256, "filename": filename.strip()}
    msg = f"{name} {version}: no sdist on the index"
    raise LookupError(msg)


def fetch(name: str, version: str, cache: Path) -> tuple[Path, dict[str, Any]]:
    """The sdist of ``name==version`` in ``cache``, downloaded once and checked by sha256."""
    cache.mkdir(parents=True, exist_ok=True)
    meta_path = cache / f"{name}-{version}.json"
    if meta_path.is_file():
        info = json.loads(meta_path.read_text(encoding="utf-8"))
        path = cache / info["filename"]
        if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == info["sha256"]:
            return path, info
    info = _sdist_info(name, version)
    data = _get(info["url"], timeout=600.0)
    digest = hashlib.sha256(data).hexdigest()
    if digest != info["sha256"]:
        msg = f"{info['filename']}: sha256 {digest} does not match the index's {info['sha256']}"
        raise ValueError(msg)
    path = cache / info["filename"]
    write_atomic(path, data)
    write_atomic(meta_path, json.dumps(info).encode())  # last: it vouches for the file
    return path, info


def _members(path: Path) -> list[tuple[str, bytes]]:
    """(path without the top directory, bytes) of the archive's small text members."""
    out: list[tuple[str, bytes]] = []

    def keep(name: str) -> str | None:
        parts = name.split("/", 1)
        if len(parts) != 2 or not parts[1]:
            return None
        rel = parts[1]
        base = rel.rsplit("/", 1)[-1]
        wanted = rel.endswith(HEADER_SUFFIXES) or rel == "PKG-INFO"
        wanted = wanted or base.upper().startswith(("LICENSE", "LICENCE", "COPYING"))
        return rel if wanted else None

    if path.name.endswith(".zip"):
        with zipfile.ZipFile(path) as zf:
            for zi in zf.infolist():
                rel = keep(zi.filename)
                if rel is not None and zi.file_size <= MAX_FILE:
                    out.append((rel, zf.read(zi)))
        return out
    with tarfile.open(path) as tf:
        for ti in tf:
            if not ti.isfile() or ti.size > MAX_FILE:
                continue
            rel = keep(ti.name)
            if rel is None:
                continue
            fh = tf.extractfile(ti)
            if fh is not None:
                out.append((rel, fh.read()))
    return out


def load(name: str, version: str, cache: Path) -> tuple[Package | None, str, int]:
    """The package's CUDA files, or None and why it was rejected; the archive's size."""
    path, info = fetch(name, version, cache)
    size = path.stat().st_size
    members = dict(_members(path))
    pkg_info = members.get("PKG-INFO", b"").decode("utf-8", "replace")
    licence_files = {
        k: v.decode("utf-8", "replace")
        for k, v in members.items()
        if "/" not in k and k.upper().startswith(("LICENSE", "LICENCE", "COPYING"))
    }
    licence, evidence = licence_of(pkg_info, licence_files)
    if licence is None:
        return None, f"licence not permissive or unknown ({evidence})", size
    files = {k: v for k, v in members.items() if k.endswith(HEADER_SUFFIXES)}
    return (
        Package(name, version, licence, evidence, info["sha256"], info["url"], size, files),
        "",
        size,
    )


# ----------------------------------------------------------------------------- corpus


def _is_cuda(rel: str, data: bytes) -> bool:
    if rel.endswith(CUDA_SUFFIXES):
        return True
    return b"__global__" in data or b"__device__" in data


def collect(
    cache: Path,
    *,
    candidates: Sequence[tuple[str, str]] = CANDIDATES,
    log: Callable[[str], None] = print,
) -> tuple[list[dict[str, Any]], list[Any], dict[str, Counter[str]]]:
    """Manifest rows, corpus files and counts per source."""
    manifest: list[dict[str, Any]] = []
    files: list[SourceFile] = []
    counts: dict[str, Counter[str]] = {}
    downloaded = 0
    for name, version in candidates:
        src = f"sdist:{name}"
        c = counts.setdefault(src, Counter())
        try:
            if downloaded > MAX_DOWNLOAD:
                manifest.append(
                    {
                        "package": name,
                        "version": version,
                        "used": False,
                        "reason": "download budget spent",
                    }
                )
                continue
            pkg, reason, size = load(name, version, cache)
            downloaded += size
        except (OSError, ValueError, LookupError, tarfile.TarError, zipfile.BadZipFile) as exc:
            log(f"sdist {name}=={version}: {exc}")
            manifest.append(
                {
                    "package": name,
                    "version": version,
                    "used": False,
                    "reason": f"fetch failed: {exc}",
                }
            )
            continue
        if pkg is None:
            log(f"sdist {name}=={version}: rejected, {reason}")
            manifest.append({"package": name, "version": version, "used": False, "reason": reason})
            c["packages_rejected_licence"] += 1
            continue
        # The package's own code first, vendored libraries (CUTLASS, ...) after it.
        cuda = sorted(
            (rel for rel, data in pkg.files.items() if _is_cuda(rel, data)),
            key=lambda r: (bool(_VENDORED.search(r)), r),
        )
        c["files_fetched"] += len(cuda)
        used = []
        hip = [rel for rel in cuda if _HIP_ALREADY.search(pkg.files[rel])]
        c["files_already_hip"] += len(hip)
        cuda = [rel for rel in cuda if rel not in set(hip)]
        for rel in cuda[:MAX_FILES_PER_PACKAGE]:
            data = pkg.files[rel]
            if _FILE_NOTICE.search(data[:4000]):
                c["files_rejected_licence"] += 1
                continue
            used.append(rel)
            vendored = bool(_VENDORED.search(rel))
            c["files_vendored"] += vendored
            files.append(
                SourceFile(
                    file_id=f"{name}/{rel}",
                    source=src,
                    data=data,
                    tree=pkg.files,
                    relpath=rel,
                    vendored=vendored,
                )
            )
        c["files_over_package_cap"] += max(0, len(cuda) - MAX_FILES_PER_PACKAGE)
        manifest.append(
            {
                "package": name,
                "version": version,
                "used": True,
                "licence": pkg.licence,
                "licence_evidence": pkg.licence_evidence,
                "sha256": pkg.sha256,
                "url": pkg.url,
                "bytes": pkg.size,
                "files": used,
            }
        )
        log(f"sdist {name}=={version}: {pkg.licence}, {len(used)} CUDA files")
    return manifest, files, counts


# ----------------------------------------------------------------------------- verify


_HIP_ALREADY = re.compile(rb"#[ \t]*include[ \t]*[<\"](?:hip/|ck/|ck_tile/)")
_VENDORED = re.compile(
    r"(?:^|/)(?:third_party|3rdparty|cutlass|cub|thrust|vendor|external|_cccl|libcudacxx|cccl)/"
)
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.MULTILINE)


def _system_dirs(toolchain: HipToolchain) -> list[Path]:
    dirs = [toolchain.rocm_path / "include", Path("/usr/include"), Path("/usr/local/include")]
    dirs += sorted(Path("/usr/include/c++").glob("*"))
    dirs += sorted(Path("/usr/include/x86_64-linux-gnu/c++").glob("*"))
    dirs += [Path("/usr/include/x86_64-linux-gnu")]
    dirs += sorted(Path("/usr/lib").glob("llvm-*/lib/clang/*/include"))
    return [d for d in dirs if d.is_dir()]


class _Resolver:
    """Do a file's includes resolve, transitively, in the translated mirror or the system?"""

    def __init__(self, tree: Mapping[str, bytes], roots: Sequence[str], system: Sequence[Path]):
        self.tree = tree
        self.roots = roots
        self.system = system
        self.memo: dict[str, str | None] = {}

    def _find(self, rel: str, quote: bool, target: str) -> str | Path | None:
        found = package_header(self.tree, self.roots, rel, quote, target)
        if found is not None:
            return found
        for d in self.system:
            if (d / target).is_file():
                return d / target
        return None

    def missing(self, rel: str, data: bytes, depth: int = 0) -> str | None:
        """The first include that resolves nowhere, or None."""
        if rel in self.memo:
            return self.memo[rel]
        self.memo[rel] = None  # cycles end here
        for m in _INCLUDE.finditer(data):
            target = m.group(2).decode("latin-1").strip()
            found = self._find(rel, m.group(1) == b'"', target)
            if found is None:
                self.memo[rel] = target
                return target
            if isinstance(found, str) and depth < 12:
                inner = self.missing(found, self.tree[found], depth + 1)
                if inner is not None:
                    self.memo[rel] = inner
                    return inner
        return None


def package_header(
    tree: Mapping[str, bytes], roots: Sequence[str], rel: str, quote: bool, target: str
) -> str | None:
    """The package file an ``#include`` of ``target`` in ``rel`` names, as a compiler
    looks: beside the includer for the quoted form, then in each include root."""
    here = rel.rsplit("/", 1)[0] if "/" in rel else ""
    cands = [f"{here}/{target}" if here else target] if quote else []
    cands += [f"{r}/{target}" if r else target for r in roots]
    for cand in cands:
        norm = _normpath(cand)
        if norm in tree:
            return norm
    return None


def _normpath(p: str) -> str:
    out: list[str] = []
    for part in p.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if out:
                out.pop()
            continue
        out.append(part)
    return "/".join(out)


def _roots(tree: Mapping[str, bytes]) -> list[str]:
    """Include roots of a package: its top, and every ``include``/``csrc`` directory."""
    roots = {""}
    for rel in tree:
        parts = rel.split("/")[:-1]
        for i, part in enumerate(parts):
            if part in ("include", "csrc", "src", "kernels"):
                roots.add("/".join(parts[: i + 1]))
    return sorted(roots)[:32]


def verify_files(
    programs: Sequence[tuple[str, bytes]],
    owners: Mapping[str, Any],
    toolchain: HipToolchain,
    *,
    settings: Settings,
    jobs: int = 2,
    log: Callable[[str], None] = print,
    counts: dict[str, Counter[str]] | None = None,
) -> set[str]:
    """Names of the translated sdist files that do not compile (syntax only, gfx90a),
    translated with ``settings`` (the targets' own: native warp mode)."""
    from ..rules import translate_bytes

    system = _system_dirs(toolchain)
    failed: set[str] = set()
    by_tree: dict[int, list[tuple[str, bytes]]] = {}
    for name, data in programs:
        by_tree.setdefault(id(owners[name].tree), []).append((name, data))
    missing_headers: Counter[str] = Counter()
    for group in by_tree.values():
        tree: Mapping[str, bytes] = owners[group[0][0]].tree
        roots = _roots(tree)
        # Includes resolve in the translated tree: cuda_runtime.h is hip/hip_runtime.h there.
        hip_tree = {rel: translate_bytes(data, rel, settings).data for rel, data in tree.items()}
        resolver = _Resolver(hip_tree, roots, system)
        todo = []
        for name, data in group:
            f = owners[name]
            miss = resolver.missing(f.relpath, data)
            if miss is not None:
                failed.add(name)
                missing_headers[miss] += 1
                if counts is not None:
                    counts[f.source]["files_missing_headers"] += 1
                continue
            todo.append((name, data))
        if not todo:
            continue
        with tempfile.TemporaryDirectory(prefix="cass-sdist-") as tmp:
            base = Path(tmp)
            for rel, data in hip_tree.items():
                out = base / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data)
            flags = [f"-I{base / r}" if r else f"-I{base}" for r in roots]

            def check(
                item: tuple[str, bytes], base: Path = base, flags: list[str] = flags
            ) -> tuple[str, bool]:
                name, data = item
                rel = owners[name].relpath
                src = base / (rel + ".verify.hip")
                src.write_bytes(data)
                argv = [str(toolchain.hipcc), "-fsyntax-only", "--offload-arch=gfx90a", "-x", "hip"]
                argv += ["-iquote", str((base / rel).parent), *flags, "-w", str(src)]
                return name, run(argv, env=toolchain.env(), cwd=tmp, timeout=300).ok

            with ThreadPoolExecutor(max_workers=jobs) as pool:
                for name, ok in pool.map(check, todo):
                    if not ok:
                        failed.add(name)
                        if counts is not None:
                            counts[owners[name].source]["files_failed_syntax"] += 1
        log(f"sdist verify: {len(todo)} compiled, {len(group) - len(todo)} missing headers")
    if missing_headers:
        log(
            "missing headers: " + ", ".join(f"{h} ({n})" for h, n in missing_headers.most_common(8))
        )
    return failed
