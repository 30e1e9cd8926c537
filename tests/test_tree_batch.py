"""The batch path of ``cass translate DIR --out-dir OUT --verify none`` (cli/tree_batch.py):
the core reads, translates and writes on its own threads, and every file's result,
output, message and exit status is the per-file pipeline's."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cass_build import _core
from cass_build.pipeline import options_from_env, translate_file
from cass_build.rules import core_options, core_table
from cass_build.rules.diagnostics import SEVERITIES, Diagnostic
from cass_build.settings import Settings

KERNEL = b"__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"


def _tree(root: Path) -> Path:
    src = root / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.cu").write_bytes(b'#include "common.cuh"\n#include "sub/b.inc"\n' + KERNEL)
    (src / "common.cuh").write_bytes(b'#include "sub/deep.h"\ncudaStream_t s;\n')
    (src / "sub" / "deep.h").write_bytes(b"#include <cuda_runtime.h>\ncudaError_t e;\n")
    (src / "sub" / "b.inc").write_bytes(b"cudaEvent_t ev; // only reached through a.cu\n")
    (src / "sub" / "c.cu").write_bytes(b'#include "../a.cu"\n  #  include "x.cu"\n' + KERNEL)
    (src / "sub" / "x.cu").write_bytes(b"#include <hip/hip_runtime.h>\n" + KERNEL)
    (src / "bom.cu").write_bytes(b"\xef\xbb\xbf" + KERNEL)
    (src / "empty.cu").write_bytes(b" \n\t\n")
    (src / "latin1.cu").write_bytes(b"// caf\xe9\n" + KERNEL)
    (src / "binary.cu").write_bytes(b"\x7fELF\0\0")
    (src / "api.cpp").write_bytes(b"#include <cuda.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    (src / "unknown.cu").write_bytes(b"void g() { cudaNotAnApi(1); __shfl_down_sync(0, ); }\n")
    # Includes through symlinks: a directory link and a file link (the core resolves
    # only the directory of a plain file itself, and leaves links to realpath).
    (src / "sub_link").symlink_to("sub", target_is_directory=True)
    (src / "alias.cuh").symlink_to("common.cuh")
    (src / "links.cu").write_bytes(
        b'#include "sub_link/deep.h"\n#include "alias.cuh"\n#include "sub_link/../api.cpp"\n'
        b'#include "nodir/x.cuh"\n#include "api.cpp/x.cuh"\n' + KERNEL  # no such directory here
    )
    return src


def _options(src: Path, out: Path) -> object:
    settings = Settings(rename_cu_includes=True, hip_version=(6, 2))
    return options_from_env(
        settings=settings, verify="none", use_cache=False, mirror=((src.resolve(), out.resolve()),)
    )


def _batch(src: Path, out: Path, threads: int, **flags: bool) -> tuple[list[str], Any]:
    from cass_build.cli.tree_batch import Batch, out_prefix

    sources = sorted(str(p) for p in src.rglob("*") if p.is_file())
    targets = [out_prefix(out) + s[len(str(src)) + 1 :] for s in sources]
    targets = [t[:-3] + ".hip" if t.endswith(".cu") else t for t in targets]
    options = _options(src, out)
    return targets, Batch(sources, targets, options, threads, out_dir=out, **flags)  # type: ignore[arg-type]


def _shown(result: Any, *, werror: bool, quiet: bool) -> str | None:
    """What the CLI prints for a result's diagnostics (translate._Tally.add)."""
    lines = []
    for found in result.diagnostics:
        d = found.promoted() if werror else found
        if not quiet or d.severity == "error":
            lines.append(f"{d}\n")
    return "".join(lines) or None


def _no_seconds(entry: dict[str, Any]) -> dict[str, Any]:
    attempts = [a | {"seconds": 0} for a in entry["attempts"]]
    return entry | {"seconds": 0, "attempts": attempts}


@pytest.mark.parametrize(("threads", "werror", "quiet"), [(1, False, False), (3, True, True)])
def test_batch_items_are_the_pipelines(
    tmp_path: Path, threads: int, werror: bool, quiet: bool
) -> None:
    # Each file the core does: the messages the CLI would print, their counts, the report
    # entry, the stats and the output written, as the per-file pipeline gives them.
    import json

    from cass_build.rules import family_counts
    from cass_build.rules.stats import Stats

    src = _tree(tmp_path)
    out = tmp_path / "out"
    targets, batch = _batch(src, out, threads, werror=werror, quiet=quiet, stats=True)
    done = {}
    for target, item in zip(targets, batch.items, strict=True):
        source = src / Path(target).relative_to(out)
        source = source.with_suffix(".cu") if source.suffix == ".hip" else source
        if item is None:
            continue
        done[source.name] = item
        want = translate_file(source, _options(src, out))  # type: ignore[arg-type]
        shown, errors, warnings, entry, (counts, lines, size), status, data = item
        assert shown == _shown(want, werror=werror, quiet=quiet), source
        severities = [(d.promoted() if werror else d).severity for d in want.diagnostics]
        assert (errors, warnings) == (severities.count("error"), severities.count("warning"))
        assert _no_seconds(json.loads(entry)) == _no_seconds(want.report())
        assert Stats(family_counts(counts), lines, size) == want.stats
        assert (status, data) == (0, None)  # written, nothing left to Python
        assert Path(target).read_bytes() == want.data
        for header, text in want.headers.items():
            assert header.read_bytes() == text  # written by the header's own item
    # Left to Python: what the core cannot read (binary, Latin-1) and a blank file. The
    # headers reached (through a symlinked directory, a symlinked file, "..") are all
    # files of this batch, each written by its own item.
    assert sorted(done) == ["a.cu", "alias.cuh", "api.cpp", "b.inc", "bom.cu", "c.cu",
                            "common.cuh", "deep.h", "links.cu", "unknown.cu", "x.cu"]  # fmt: skip
    assert done["c.cu"][0] is None or "c.cu" in done["c.cu"][0]
    # The inputs no output may replace are the real paths: a symlink is its target's.
    assert (src / "common.cuh").resolve() in batch.inputs
    assert (src / "alias.cuh").absolute() not in batch.inputs
    assert set(batch.inputs) == {p.resolve() for p in src.rglob("*") if p.is_file()}


def test_core_reads_what_python_reads(tmp_path: Path) -> None:
    # The core's UTF-8, NUL and size checks agree with _files.check_source on random bytes.
    rng = random.Random(7)
    alphabet = [b"a", b"\n", b"\0", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80"]
    alphabet += [
        b"\xed\xa0\x80",
        b"\xc0\xaf",
        b"\xf4\x90\x80\x80",
        b"\xe0\x80\x80",
        b"\xff",
        b"\x80",
        b"\xc3",
    ]
    paths, datas = [], []
    for k in range(400):
        data = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        path = tmp_path / f"f{k}.cu"
        path.write_bytes(data)
        paths.append(str(path))
        datas.append(data)
    found = _core.translate_files(
        paths, [False] * len(paths), core_table(), core_options(Settings()), 10, 2,
        Diagnostic, SEVERITIES,
    )  # fmt: skip
    for data, item in zip(datas, found, strict=True):
        try:
            data.decode("utf-8")
            readable = b"\0" not in data and len(data) <= 10
        except UnicodeDecodeError:
            readable = False
        assert (item is not None) == readable, data


def _cass(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CASS_CACHE_DIR": str(cwd / "cache")}
    argv = [sys.executable, "-m", "cass_build", "translate", *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_tree_run_writes_outputs_and_keeps_unchanged_ones(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    first = _cass("src", "--out-dir", "out", "--verify", "none", cwd=tmp_path)
    assert first.returncode == 2, first.stderr  # binary.cu and latin1.cu are input errors
    assert "src/binary.cu: binary file (NUL byte at offset 4)" in first.stderr
    assert "src/latin1.cu:1:7: not UTF-8 text (byte 0xe9)" in first.stderr
    out = tmp_path / "out"
    assert (out / "sub" / "b.inc").read_bytes() == (src / "sub" / "b.inc").read_bytes().replace(
        b"cudaEvent_t", b"hipEvent_t"
    )
    assert (out / "sub" / "x.hip").is_file() and not (out / "binary.hip").exists()
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    again = _cass("src", "--out-dir", "out", "--verify", "none", cwd=tmp_path)
    assert (again.returncode, again.stderr) == (first.returncode, first.stderr)
    assert stamps == {p: p.stat().st_mtime_ns for p in out.rglob("*")}  # nothing rewritten


@pytest.mark.parametrize("size", [20, 65_536, 65_537, 65_538, 200_000])
def test_tree_run_rewrites_exactly_the_changed_outputs(tmp_path: Path, size: int) -> None:
    # An existing output is compared with the new bytes in pieces as it is read
    # (batch.cpp holds): unchanged keeps its file, one byte changed at the start, in the
    # middle or at the end, or a byte more or fewer, is written again; sizes around the
    # piece (64 KiB) and past it.
    src = tmp_path / "src"
    src.mkdir()
    (src / "big.cuh").write_bytes(b"cudaStream_t s;\n" + b"/" * (size - 16))
    out = tmp_path / "out" / "big.cuh"
    assert _cass("src", "--out-dir", "out", "--verify", "none", cwd=tmp_path).returncode == 0
    want = out.read_bytes()
    assert want.startswith(b"hipStream_t s;") and len(want) == size - 1  # 64 KiB and around
    edits: list[Callable[[bytes], bytes]] = [
        lambda b: b,
        lambda b: b"x" + b[1:],
        lambda b: b[: len(b) // 2] + b"x" + b[len(b) // 2 + 1 :],
        lambda b: b[:-1] + b"x",
        lambda b: b + b"/",
        lambda b: b[:-1],
    ]
    for k, edit in enumerate(edits):
        out.write_bytes(edit(want))
        os.utime(out, ns=(1, 1))
        assert _cass("src", "--out-dir", "out", "--verify", "none", cwd=tmp_path).returncode == 0
        assert out.read_bytes() == want
        assert (out.stat().st_mtime_ns == 1) == (k == 0)  # only an unchanged one is kept


def test_core_writes_new_and_replaced_outputs_whole(tmp_path: Path) -> None:
    # A new output is an unnamed file linked into place once written (O_TMPFILE where the
    # file system has it), a replaced one a temporary renamed over it: either way the
    # directory ends with exactly the outputs, new ones with the umask's mode, replaced
    # ones with their old mode, and an unchanged one keeps its file.
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.hip").write_bytes(b"before")
    (out / "old.hip").chmod(0o640)
    (out / "same.hip").write_bytes(b"same")
    os.utime(out / "same.hip", ns=(1, 1))
    umask = os.umask(0o022)
    try:
        names = ["new.hip", "old.hip", "same.hip", "big.hip"]
        datas = [b"new\n", b"after\n", b"same", b"x" * 300_000]
        status = _core.write_files([str(out / n) for n in names], datas, [], 2)
    finally:
        os.umask(umask)
    assert status == [0, 0, 1, 0]
    assert sorted(p.name for p in out.iterdir()) == sorted(names)  # nothing else left
    assert [(out / n).read_bytes() for n in names] == datas
    assert (out / "new.hip").stat().st_mode & 0o777 == 0o644
    assert (out / "big.hip").stat().st_mode & 0o777 == 0o644
    assert (out / "old.hip").stat().st_mode & 0o777 == 0o640
    assert (out / "same.hip").stat().st_mtime_ns == 1


def test_tree_run_refuses_an_output_that_is_an_input(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "api.cpp").symlink_to(src / "api.cpp")  # the output of api.cpp is api.cpp itself
    before = (src / "api.cpp").read_bytes()
    done = _cass("src", "--out-dir", "out", "--verify", "none", "-q", cwd=tmp_path)
    assert done.returncode == 2
    assert "out/api.cpp: refusing to overwrite an input file" in done.stderr
    assert (src / "api.cpp").read_bytes() == before
    assert (out / "a.hip").is_file()  # the rest of the tree is still written


@pytest.mark.parametrize("spelled", ["tree", "./tree", "abs"])
def test_tree_listing_sorts_as_paths_do(
    tmp_path: Path, spelled: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Built from strings now; the order must still be Path order (by parts: "a/b" before
    # "a-b/x"), and a tree spelled "./tree" gives paths spelled "tree/...".
    from cass_build.cli.walk import tree_sources

    root = tmp_path / "tree"
    for rel in ("a/b.cu", "a-b/x.cu", "a.b/y.cu", "a0.cu", "a/c/d.cuh", ".cu", "z.txt", "A.cu"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("\n")
    monkeypatch.chdir(tmp_path)
    given = root if spelled == "abs" else Path(spelled)
    files, problems = tree_sources(given, (".cu", ".cuh"))
    expected = sorted(Path(top, n) for top, _, names in os.walk(given) for n in names)
    assert files == [p for p in expected if p.suffix in (".cu", ".cuh")]
    assert [str(p.relative_to(given)) for p in files][:3] == ["A.cu", "a/b.cu", "a/c/d.cuh"]
    assert problems == []


def _random_tree(top: Path, rng: random.Random, alphabet: list[str], suffixes: list[str]) -> None:
    """About 300 files of one-line text under ``top``, their names drawn from ``alphabet``,
    one to three parts deep."""
    for k in range(300):
        parts = [
            "".join(rng.choices(alphabet, k=rng.randint(1, 3))) for _ in range(rng.randint(1, 3))
        ]
        path = top / "/".join(parts[:-1]) / f"{parts[-1]}{k % 7}{rng.choice(suffixes)}"
        if any(p in (".", "..") for p in parts) or path.parent.is_file():
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n")
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            continue  # a name taken by a file, or a directory, at another depth


def test_tree_listing_sorts_as_paths_do_on_random_trees(tmp_path: Path) -> None:
    # Names from characters on both sides of "/" in code point order (and beyond ASCII),
    # so that a part that is a prefix of another, or differs in its last character, is
    # common: walk.py sorts by "/" as NUL, which must be Path's order by parts.
    from cass_build.cli.walk import tree_sources

    alphabet = ["!", "-", ".", "0", "A", "_", "a", "\u00e9", "\u4e2d"]
    _random_tree(tmp_path / "t", random.Random(16), alphabet, [".cu"])
    files, problems = tree_sources(tmp_path / "t", (".cu",))
    assert problems == [] and len(files) > 200
    assert files == sorted(files) == sorted(p for p in (tmp_path / "t").rglob("*.cu"))


@pytest.mark.parametrize("spelled", ["t", "./t", "t/", "abs"])
def test_core_listing_is_the_python_listing(
    tmp_path: Path, spelled: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # _core.list_tree (the usual tree, in C++) gives _tree_files the sources and targets
    # that walk.tree_names and the loop over its names give; any tree walk.py would have
    # a word about (a symlink, a FIFO, a dangling link) is None, for walk.py to list.
    from cass_build.cli.translate import TREE_SUFFIXES
    from cass_build.cli.tree_batch import out_prefix
    from cass_build.cli.walk import tree_names

    alphabet = ["!", "-", ".", "0", "A", "_", "a", "\u00e9", "\u4e2d", "\U0001f600"]
    suffixes = [".cu", ".cuh", ".h", ".txt", ".cu.bak", ""]
    _random_tree(tmp_path / "t", random.Random(17), alphabet, suffixes)
    monkeypatch.chdir(tmp_path)
    root = Path(tmp_path / "t" if spelled == "abs" else spelled)
    for out in ("o", "./o/", str(tmp_path / "o")):
        rels, problems, links = tree_names(root, TREE_SUFFIXES)
        assert problems == [] and not links and len(rels) > 100
        prefix, after = out_prefix(root), out_prefix(Path(out))
        targets = [after + (r[:-3] + ".hip" if r.endswith(".cu") and not r.endswith("/.cu")
                            else r) for r in rels]  # fmt: skip
        listed = _core.list_tree(str(root), prefix, after, TREE_SUFFIXES)
        assert listed == ([prefix + r for r in rels], targets)
    (tmp_path / "t" / "zz").mkdir()
    (tmp_path / "t" / "zz" / "link.cu").symlink_to(tmp_path / "t" / "zz")
    assert _core.list_tree(str(root), "", "", TREE_SUFFIXES) is None
    (tmp_path / "t" / "zz" / "link.cu").unlink()
    (tmp_path / "t" / "zz" / "link.txt").symlink_to(tmp_path / "nowhere")  # not a source
    assert _core.list_tree(str(root), "", "", TREE_SUFFIXES) is not None
    os.mkfifo(tmp_path / "t" / "zz" / "pipe.h")
    assert _core.list_tree(str(root), "", "", TREE_SUFFIXES) is None
    assert _core.list_tree(str(tmp_path / "missing"), "", "", TREE_SUFFIXES) is None
    src = _hostile_tree(tmp_path / "hostile")
    assert _core.list_tree(str(src), "", "", TREE_SUFFIXES) is None


def test_tree_names_say_which_sources_are_symlinks(tmp_path: Path) -> None:
    # The core takes the listing's word that the others are plain files (no lstat).
    from cass_build.cli.translate import TREE_SUFFIXES
    from cass_build.cli.walk import tree_names

    src = _hostile_tree(tmp_path)
    rels, problems, links = tree_names(src, TREE_SUFFIXES)
    assert links == {"alias.cuh"}  # sub_link/ is a symlinked directory: not followed
    assert not [r for r in rels if r.startswith("sub_link/")]
    assert [p.split(":")[0] for p in problems] == [f"{src}/gone.cu", f"{src}/pipe.cu"]
    assert all((src / r).is_symlink() == (r in links) for r in rels)


RUNTIME_CASES = [
    b"#include <hip/hip_runtime.h>\n" + KERNEL,
    b'  #  include   "hip/hip_runtime_api.h"\n' + KERNEL,
    b"#include <hip/hip_runtime.hh>\n" + KERNEL,
    b"#include <hipcub/hipcub.hpp>\n#include <hip/hip_runtime.h>\n" + KERNEL,
    b"#include <hip/hip_runtime.h>\n#include <hipfft/hipfft.h>\n" + KERNEL,
    b"#include <hiprand/hiprand.h>\r\n" + KERNEL,
    b"x; #include <hip/hip_runtime.h>\n" + KERNEL,
    b"\xef\xbb\xbf#include <hip/hip_runtime.h>\n" + KERNEL,
    b"\xef\xbb\xbf" + KERNEL,
    b" \t\n\x0b\x0c\r\n",
    b"#include <cuda_runtime.h>\n#include <cub/cub.cuh>\n" + KERNEL,
    b'#include "a.h" // #include "b.h"\n#include <hip/hip_runtime.h>',
]


def _batch_and_paths(
    tmp_path: Path, cases: list[bytes], settings: Settings
) -> list[tuple[Path, Any]]:
    """Each case as a .cu and a .cuh file, translated by the core's batch call."""
    paths = []
    for k, data in enumerate(cases):
        for suffix in (".cu", ".cuh"):
            path = tmp_path / f"case{k}{suffix}"
            path.write_bytes(data)
            paths.append(path)
    found = _core.translate_files(
        [str(p) for p in paths], [p.suffix == ".cu" for p in paths], core_table(),
        core_options(settings), 1 << 20, 2, Diagnostic, SEVERITIES,
    )  # fmt: skip
    return list(zip(paths, found, strict=True))


def test_core_runtime_include_is_implicit_runtimes(tmp_path: Path) -> None:
    # python/batch.cpp's implicit_runtime against strategies.implicit_runtime.
    from cass_build.pipeline.strategies import RulesStrategy

    settings = Settings(rename_cu_includes=True)
    for path, item in _batch_and_paths(tmp_path, RUNTIME_CASES, settings):
        want = RulesStrategy().translate(path, path.read_bytes(), settings).data
        assert item is not None and item[0] == want, path.read_bytes()


SHFL = b"__device__ float r(float v) { return __shfl_down_sync(0xffffffff, v, 1); }\n"
WARP_CASES = [
    SHFL,
    b"\xef\xbb\xbf" + SHFL,
    b"#include <hip/hip_runtime.h>\n" + SHFL,
    b"#include <cooperative_groups.h>\n" + SHFL,
    b'  #  include  "cass/warp.h"\n' + SHFL,
    b"// cass/warp.h is named here, not included\n" + SHFL,
    b"#include <cass/fp16.h>\n#include <cuda_fp16.h>\n__device__ half m(half a, half b) "
    b"{ return __hmax(a, b); }\n" + SHFL,
    b"int x__cass_y; /* __cass_ in a comment */\n" + KERNEL,
    b"#include <cuda_bf16.h>\r\n__device__ float f(__nv_bfloat16 b) "
    b"{ return __bfloat162float(b); }\r\n",
]


@pytest.mark.parametrize("hip", [(5, 2), (6, 2)])
def test_core_warp_header_is_warp_includes(tmp_path: Path, hip: tuple[int, int]) -> None:
    # python/batch.cpp's warp_header against rules.warp_include, as the pipeline adds it.
    from cass_build.pipeline.strategies import RulesStrategy

    settings = Settings(rename_cu_includes=True, hip_version=hip)
    added = 0
    for path, item in _batch_and_paths(tmp_path, WARP_CASES, settings):
        want = RulesStrategy().translate(path, path.read_bytes(), settings).data
        assert item is not None and item[0] == want, path.read_bytes()
        added += b"#include <cass/" in want and b"#include <cass/" not in path.read_bytes()
    assert added >= 8  # the cases do reach the headers


def test_core_warp_header_is_warp_includes_on_random_texts(tmp_path: Path) -> None:
    # batch.cpp's one-pass scan (cass_uses) against rules.warp_include's searches, on
    # random texts of __cass_ names, CASS includes and the words around them.
    from cass_build.pipeline.strategies import RulesStrategy

    rng = random.Random(4)
    pieces = [b"__cass_shfl_down(v)", b"__cass_cg", b"__cass_cg_tile", b"x__cass_any", b"_",
              b"__cass_fp16_hmax", b"__cass_bf16_f", b"__cass_rt_memcpy", b"__cass_", b"cass",
              b"#include <cass/warp.h>", b'# include "cass/fp16.h"', b"#include <cass/bf16.h>",
              b"#include <cass/cooperative_groups.h>", b"  #include <cass/runtime.h>", b"cass/",
              b"// cass/warp.h", b"\n", b"\n", b" ", b"x", b";"]  # fmt: skip
    settings = Settings(rename_cu_includes=True)
    cases = [b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))) for _ in range(300)]
    added = 0
    for path, item in _batch_and_paths(tmp_path, cases, settings):
        want = RulesStrategy().translate(path, path.read_bytes(), settings).data
        assert item is not None and item[0] == want, path.read_bytes()
        added += want.count(b"<cass/") > path.read_bytes().count(b"<cass/")
    assert added > 100  # the texts do reach the headers


INCLUDE_CASES = [
    b'#include "a.h"\n#include <b.h>\n',
    b'  #  include\t"c d.h"  \n\t#include<e/f.h>\n',
    b'x #include "no.h"\n/* #include "comment.h" */\n',
    b'#include ""\n#include "unclosed\n#include "x"y"\n',
    b'#include "a#include "b.h"\n#include <>\n#include <p>q>\n',
    b'#  define X\n#includes "s.h"\n#include "t.h',
    b'\r#include "cr.h"\n#include "\xc3\xa9.h"\n',
]


@pytest.mark.parametrize("data", INCLUDE_CASES)
def test_core_include_lines_are_the_patterns(tmp_path: Path, data: bytes) -> None:
    # python/batch.cpp's include_directives against includes._directives' pattern.
    from cass_build.pipeline.includes import _directives

    path = tmp_path / "x.cuh"
    path.write_bytes(data)
    (item,) = _core.translate_files(
        [str(path)], [False], core_table(), core_options(Settings()), 1 << 20, 1,
        Diagnostic, SEVERITIES,
    )  # fmt: skip
    want = [(q, True) if q else (a, False) for q, a in _directives(data)]
    assert [(name, quoted) for name, quoted, _ in item[6]] == want


def _hostile_tree(root: Path) -> Path:
    """_tree plus what the batch must also get right: a header with __cass_ operations
    that sorts before its includer, a header outside the tree mirrored by --mirror, a
    dangling symlink and a FIFO (entries that cannot be read, exit 2), diagnostics."""
    src = _tree(root)
    (src / "aa_warp.cuh").write_bytes(
        b"__device__ float r(float v) { return __shfl_down_sync(0xffffffff, v, 1); }\n"
    )
    (src / "zz_user.cu").write_bytes(
        b'#include "aa_warp.cuh"\n#include "ext.cuh"\n#include <cooperative_groups.h>\n' + KERNEL
    )
    (root / "inc").mkdir()
    (root / "inc" / "ext.cuh").write_bytes(b"__device__ half h; cudaStream_t t;\n")
    (root / "inc" / "nodir").mkdir()  # links.cu's nodir/x.cuh: found through -I inc
    (root / "inc" / "nodir" / "x.cuh").write_bytes(b"cudaEvent_t e;\n")
    (src / "gone.cu").symlink_to("nowhere.cu")
    os.mkfifo(src / "pipe.cu")  # reading it would block: the listing must refuse it
    (src / "blas.cu").write_bytes(b"#include <cublas_v2.h>\ncublasHandle_t h;\n")
    return src


def _run_tree(
    root: Path,
    out: str,
    flags: list[str],
    *,
    batch: bool,
    monkeypatch: pytest.MonkeyPatch,
    stale: bool = True,
) -> tuple[Any, ...]:
    import io
    import json

    from cass_build import pipeline
    from cass_build.cli import main, tree_batch

    if not batch:  # the per-file pipeline, as any run that verifies takes it
        monkeypatch.setattr(tree_batch, "lean", lambda options, tree: False)
    per_file: list[str] = []  # the files the batch left to the per-file pipeline

    def counted(path: Path, options: object) -> object:
        per_file.append(path.as_posix())
        return translate_file(path, options)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "translate_file", counted)
    monkeypatch.chdir(root)
    monkeypatch.setenv("CASS_CACHE_DIR", str(root / f"cache-{out}"))
    for name in ("a.unverified.hip", "sub/x.unverified.hip", "common.unverified.cuh"):
        if stale:
            (root / out / name).parent.mkdir(parents=True, exist_ok=True)
            (root / out / name).write_bytes(b"a failed check kept this; a pass removes it\n")
    err = io.StringIO()
    argv = ["translate", "src", "--out-dir", out, "--verify", "none", "-j", "2"]
    argv += [f.replace("OUT", out) for f in flags] + ["--report", f"{out}.json"]
    code = main(argv, err=err)
    monkeypatch.undo()
    files = {}
    for top in (root / out, root / f"{out}-inc"):
        files.update({p.relative_to(top).as_posix(): p.read_bytes() for p in top.rglob("*")
                      if p.is_file()})  # fmt: skip
    report = json.loads((root / f"{out}.json").read_text())
    for entry in report["files"]:
        entry.pop("seconds", None)
        for attempt in entry.get("attempts", []):
            attempt.pop("seconds", None)
    return code, err.getvalue().replace(out, "OUT"), files, report, per_file


@pytest.mark.parametrize(
    "flags",
    [
        ["-I", "inc", "--mirror", "inc=OUT-inc"],
        [],
        ["--werror", "-q", "--stats", "json"],
        ["--roc"],  # the ROC libraries' table (main's batch translated with the hip* one)
    ],
)
def test_batch_run_is_the_per_file_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str]
) -> None:
    # The whole command, both ways on one tree: exit status, every message and the
    # summary line (in path order), every output byte and the JSON report.
    _hostile_tree(tmp_path)
    got = _run_tree(tmp_path, "bulk", flags, batch=True, monkeypatch=monkeypatch)
    want = _run_tree(tmp_path, "single", flags, batch=False, monkeypatch=monkeypatch)
    assert got[:4] == want[:4]
    code, err, files, _, per_file = got
    assert code == 2  # binary.cu, latin1.cu, the symlink and the FIFO
    assert "cass: error: src/gone.cu: dangling symlink" in err
    assert "src/unknown.cu:1:" in err
    assert "-q" in flags or err.rstrip().splitlines()[-1].startswith("cass: ")
    assert files["aa_warp.cuh"].startswith(b"#include <cass/warp.h>\n#line 1\n")
    assert "zz_user.hip" in files and "a.hip" in files and "sub/x.hip" in files
    assert not [name for name in files if ".unverified" in name]  # the stale ones went
    assert (b"rocblas_handle h;" in files["blas.hip"]) == ("--roc" in flags)
    if flags[:1] == ["-I"]:
        assert b"hipStream_t t;" in files["ext.cuh"]  # mirrored from inc/ into OUT-inc/
        assert b"hipEvent_t e;" in files["nodir/x.cuh"]
    else:  # the core did all but what it cannot read, the blank file and the includers
        # of sub/b.inc (a header the tree's listing leaves out, so no file of the batch)
        assert per_file == ["src/a.cu", "src/binary.cu", "src/empty.cu", "src/latin1.cu",
                            "src/sub/c.cu"]  # fmt: skip


@pytest.mark.parametrize("flags", [[], ["--werror", "-q"], ["--stats", "csv"]])
def test_plain_tree_run_is_the_per_file_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str]
) -> None:
    # A tree the core does whole (every file read, translated and written by it; no stale
    # candidate): _run_batch tallies its items at once (translate._all_plain), and that
    # must be the per-file run too, written the first time and unchanged the second.
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.cu").write_bytes(
        b'#include "sub/b.cuh"\n__device__ float f(float a) { return __fadd_rz(a, a); }\n'
        b"void g() { cudaNotAnApi(1); }\n" + KERNEL  # an error and a warning
    )
    (src / "sub" / "b.cuh").write_bytes(
        b"cudaStream_t s;\n__device__ int g() { return warpSize; }\n"
    )
    (src / "sub" / "c.cu").write_bytes(b"#include <cuda.h>\nvoid h() { cudaNotAnApi(2); }\n")
    (src / "d.cpp").write_bytes(b"int main() { return 0; }\n")
    (src / "e.cuh").write_bytes(b"__device__ float e(float a) { return __fadd_rz(a, 1); }\n")
    from cass_build.cli import translate

    tallied = []

    def at_once(*args: Any) -> bool:
        tallied.append(plain(*args))
        return tallied[-1]

    plain = translate._all_plain
    runs = []
    for _ in range(2):
        monkeypatch.setattr(translate, "_all_plain", at_once)
        got = _run_tree(tmp_path, "bulk", flags, batch=True, monkeypatch=monkeypatch, stale=False)
        want = _run_tree(tmp_path, "one", flags, batch=False, monkeypatch=monkeypatch, stale=False)
        assert got[:4] == want[:4]
        assert got[4] == []  # the core did every file
        assert tallied.pop() is True  # and _run_batch tallied them at once
        runs.append(got)
    code, err, files, report, _ = runs[0]
    assert runs[1][:4] == runs[0][:4]
    assert code == 1 and "src/a.cu:2:38: error: '__fadd_rz' has no HIP" in err
    assert ("src/a.cu:3:12: warning: 'cudaNotAnApi'" in err) == ("-q" not in flags)
    assert len(report["files"]) == 5 and b"hipStream_t s;" in files["sub/b.cuh"]
    assert err.index("src/e.cuh:1:38: error") < err.index("src/sub/c.cu:2:12")
    assert ("cass: 5 file(s) translated" in err) == ("-q" not in flags)


def test_tree_target_names_are_the_paths(tmp_path: Path) -> None:
    # translate._plan spells each output as str(out_dir / rel) without the Path: the
    # strings the core writes to must be those Paths' for any spelling of --out-dir.
    import argparse

    from cass_build.cli.translate import _plan

    src = tmp_path / "src"
    (src / "d").mkdir(parents=True)
    (src / "d" / "k.cu").write_bytes(KERNEL)
    (src / "h.cuh").write_bytes(KERNEL)
    for out in (".", "./o", "o/", "o//p", str(tmp_path / "o"), "/"):
        args = argparse.Namespace(inputs=[src], out_dir=Path(out), output=None)
        pairs, tree = _plan(args)
        assert tree and args.tree_targets == [str(t) for _, t in pairs], out


def test_cass_include_scan_is_the_patterns() -> None:
    # rules._cass_includes (the pattern tried where a line names cass/) finds what the
    # line-anchored pattern finds anywhere, on random lines of include-like pieces.
    from cass_build.rules import _CASS_INCLUDE, _cass_includes

    rng = random.Random(16)
    pieces = [
        b"#",
        b" ",
        b"\t",
        b"include",
        b"<",
        b'"',
        b">",
        b"cass/",
        b"warp",
        b"fp16",
        b"cooperative_groups",
        b"runtime",
        b"bf16",
        b".h",
        b"\n",
        b"\r\n",
        b"x",
        b"#include <cass/",
        b' # include "cass/',
        b"warp.h>",
        b'fp16.h"',
        b"bf16.h>\n",
    ]
    found = 0
    for _ in range(3000):
        text = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        want = {m.group(1) for m in _CASS_INCLUDE.finditer(text)}
        assert _cass_includes(text) == want, text
        found += bool(want)
    assert found > 100  # the pieces do make includes


def test_table_from_rows_is_the_table_of_entries() -> None:
    # Table.from_rows reads the cached rows in rules._ENTRY_FIELDS order, as Entry(*row)
    # does: the two tables translate alike (at a HIP with legacy names and notes, too).
    from cass_build.rules import _core_input

    rows, families = _core_input(None, False)
    by_rows = _core.Table.from_rows(rows, families)
    by_entries = _core.Table([_core.Entry(*row) for row in rows], families)
    assert len(by_rows) == len(by_entries) == len(rows)
    source = b"".join(b"%s x%d;\n" % (row[0].encode(), k) for k, row in enumerate(rows[::7]))
    for hip in ((5, 2), (6, 2)):
        options = core_options(Settings(hip_version=hip))
        assert _core.translate(source, by_rows, options) == _core.translate(
            source, by_entries, options
        )


def test_tree_run_imports_only_what_it_needs(tmp_path: Path) -> None:
    """``cass translate DIR --out-dir OUT --verify none`` starts once per tree, and its
    start is part of its cost: no toolchain look-up, no process runner, no shutil (bz2,
    lzma: argparse's formatter asks the terminal's width only when help is written), no
    typing (its names are imported for type checkers only), no hashlib (OpenSSL), no
    inspect."""
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.cu").write_bytes(b'#include "sub/b.cuh"\n' + KERNEL)
    (src / "sub" / "b.cuh").write_bytes(b"cudaStream_t s;\n")
    argv = [sys.executable, "-X", "importtime", "-m", "cass_build", "translate", str(src)]
    argv += ["--out-dir", str(tmp_path / "out"), "--verify", "none", "-q"]
    env = {**os.environ, "CASS_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert b"hipStream_t" in (tmp_path / "out" / "sub" / "b.cuh").read_bytes()
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    assert "cass_build.cli.tree_batch" in loaded  # the batch ran
    # What the interpreter's own start loads (site's .pth files, e.g. a CA bundle's) is
    # not the command's doing.
    bare = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    loaded -= {line.rsplit("|", 1)[-1].strip() for line in bare.stderr.splitlines()}
    avoidable = {"shutil", "shlex", "subprocess", "cass_build.pipeline.toolchain"}
    avoidable |= {"cass_build._proc", "cass_build.pipeline.chain", "rich", "tomllib"}
    avoidable |= {"typing", "cass_build.rules.diagnostics"}  # annotations only, here
    avoidable |= {"hashlib", "_hashlib"}  # the built-in _sha256 (3.12: _sha2) keys the caches
    # Nothing is verified and the rules' translation is taken uncached: no model, no
    # verification, no translation cache, no temporary directories or archives.
    avoidable |= {"cass_build.model", "cass_build.model_files", "onnxruntime", "tokenizers"}
    avoidable |= {"numpy", "cass_build.pipeline.verify", "cass_build.pipeline.cache"}
    avoidable |= {"cass_build.pipeline.failures", "cass_build.pipeline.fingerprint"}
    avoidable |= {"cass_build.pipeline.includes", "tempfile", "zipfile", "importlib.resources"}
    # dataclasses without inspect (cass_build/_dataclasses.py): every dataclass on the
    # path has a docstring, so dataclasses never asks inspect for a signature.
    avoidable |= {"inspect", "ast", "dis", "tokenize"}
    assert loaded & avoidable == set()


def test_dataclasses_without_inspect_still_signs_an_undocumented_dataclass() -> None:
    """``cass_build._dataclasses``: ``dataclasses``' global ``inspect`` is the real module's
    stand-in, which imports it when ``dataclasses`` first needs it."""
    code = (
        "import sys\n"
        "import cass_build.settings\n"
        "assert 'inspect' not in sys.modules, 'imported inspect'\n"
        "from dataclasses import dataclass\n"
        "@dataclass\n"
        "class P:\n"
        "    x: int = 1\n"
        "assert P.__doc__ == 'P(x: int = 1)', P.__doc__\n"
        "import inspect\n"
        "assert sys.modules['inspect'] is inspect and inspect.signature is not None\n"
        "assert type(inspect).__name__ == 'module', type(inspect)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_the_program_ends_at_once_with_everything_written(tmp_path: Path) -> None:
    """A tree's batch marks the command complete, and ``python -m cass_build`` (as the
    ``cass`` program) then ends the process without the interpreter's teardown: the
    outputs, every message, the report and the exit status are all there."""
    src = tmp_path / "src"
    src.mkdir()
    for i in range(40):
        (src / f"k{i}.cu").write_bytes(KERNEL + b"int m = __fadd_rz(1.0f, 2.0f);\n")
    report = tmp_path / "report.json"
    argv = [sys.executable, "-m", "cass_build", "translate", str(src), "--out-dir"]
    argv += [str(tmp_path / "out"), "--verify", "none", "--report", str(report)]
    env = {**os.environ, "CASS_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stderr  # the unsupported API is an error
    assert proc.stderr.count("[cass-unsupported-api]") == 40
    assert proc.stderr.endswith("cass: 40 file(s) translated: 40 error(s), 0 warning(s)\n")
    import json

    assert len(json.loads(report.read_text())["files"]) == 40
    assert len(list((tmp_path / "out").glob("*.hip"))) == 40


def test_the_program_exits_as_usual_where_something_is_left_to_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import atexit
    import threading

    from cass_build import __main__
    from cass_build.cli import _common

    def ended(code: int) -> None:
        raise AssertionError(f"os._exit({code})")

    monkeypatch.setattr(os, "_exit", ended)
    __main__.exit_at_once(0)  # not marked complete: returns
    monkeypatch.setattr(_common, "_complete", True)
    monkeypatch.setattr(atexit, "_ncallbacks", lambda: 1)
    __main__.exit_at_once(0)  # an atexit function: returns
    monkeypatch.setattr(atexit, "_ncallbacks", lambda: 0)
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    __main__.exit_at_once(0)  # another thread: returns
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    with pytest.raises(AssertionError, match=r"os\._exit\(1\)"):
        __main__.exit_at_once(1)


def test_write_atomic_writes_pieces_whole_or_not_at_all(tmp_path: Path) -> None:
    """``write_atomic`` with pieces (a tree's report, made as it is written): the file is
    their concatenation, and a piece that fails leaves neither the file nor a temporary."""
    from cass_build._files import write_atomic

    out = tmp_path / "r.json"
    write_atomic(out, (p for p in (b"[", b"1,", b"2]")))
    assert out.read_bytes() == b"[1,2]"

    def failing() -> Iterator[bytes]:
        yield b"partial"
        raise RuntimeError("made no more")

    with pytest.raises(RuntimeError):
        write_atomic(tmp_path / "x.json", failing())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_report_pieces_are_the_joined_report() -> None:
    from cass_build.cli.translate import _report_pieces

    for count in (0, 1, 2, 255, 256, 257, 600):
        entries = [f'{{"source": "f{i}.cu"}}' for i in range(count)]
        want = ("S" + ",\n".join(entries) + "E").encode() if entries else b"SE"
        assert b"".join(_report_pieces("S", entries, "E")) == want
