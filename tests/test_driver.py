"""The compile command: clang with hipcc's flags, asked of hipcc once and cached.

Real hipcc (the suite's machine has Debian's ROCm 5.2 under /usr); /bin/true, which
prints nothing, stands for a hipcc whose command cannot be read, to show the fallback.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cass_build._files import cache_dir
from cass_build.pipeline import _driver
from cass_build.pipeline.toolchain import HipToolchain, find_hip

HIP = find_hip()
needs_hipcc = pytest.mark.skipif(HIP is None, reason="hipcc is not installed (.ci/setup)")

KERNEL = """\
#include <hip/hip_runtime.h>
__global__ void twice(float *p) { p[threadIdx.x] *= 2.0f; }
"""


def args_for(src: Path, obj: Path, *extra: str) -> list[str]:
    return ["-c", "--offload-arch=gfx90a", "-x", "hip", f"-I{src.parent}", "-DA=1", "-O2",
            *extra, str(src), "-o", str(obj)]  # fmt: skip


def hipcc_command(tc: HipToolchain, args: list[str], cwd: Path) -> list[str]:
    """The clang command hipcc itself prints (HIPCC_VERBOSE=1) for ``args``."""
    env = tc.env() | {"HIPCC_VERBOSE": "1"}
    done = subprocess.run([str(tc.hipcc), *args, "-###"], capture_output=True, text=True,
                          env=env, cwd=cwd, check=True)  # fmt: skip
    [line] = [ln for ln in done.stdout.splitlines() if ln.startswith("hipcc-cmd:")]
    words = shlex.split(line.removeprefix("hipcc-cmd:"))
    words.remove("-###")
    return words


@needs_hipcc
def test_the_command_is_hipccs_and_is_cached(tmp_path: Path, cache_dir: Path) -> None:
    assert HIP is not None
    src = tmp_path / "k.hip"
    src.write_text(KERNEL)
    args = args_for(src, tmp_path / "k.o")
    argv, tool = _driver.compile_command(HIP, args, source=len(args) - 3, output=len(args) - 1)
    assert tool == "clang"
    assert argv == hipcc_command(HIP, args, tmp_path)
    [entry] = (cache_dir / "drivers").glob("*.json")
    # Another file of the same shape reuses the entry, with its own paths and flags.
    other = tmp_path / "sub" / "j.hip"
    args2 = args_for(other, tmp_path / "j.o")
    args2[5] = "-DA=2"
    argv2, _ = _driver.compile_command(HIP, args2, source=len(args) - 3, output=len(args) - 1)
    assert list((cache_dir / "drivers").glob("*.json")) == [entry]
    assert argv2 == [
        {str(src): str(other), f"-I{src.parent}": f"-I{other.parent}", "-DA=1": "-DA=2",
         str(tmp_path / "k.o"): str(tmp_path / "j.o")}.get(w, w) for w in argv
    ]  # fmt: skip
    # A flag hipcc reads (here -O0, which drops its -mllvm inlining flags) is a new shape.
    args3 = [("-O0" if a == "-O2" else a) for a in args]
    argv3, _ = _driver.compile_command(HIP, args3, source=len(args) - 3, output=len(args) - 1)
    assert argv3 == hipcc_command(HIP, args3, tmp_path)
    assert "-amdgpu-early-inline-all=true" in argv and "-amdgpu-early-inline-all=true" not in argv3
    assert len(list((cache_dir / "drivers").glob("*.json"))) == 2


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_clang_and_hipcc_write_the_same_object(tmp_path: Path) -> None:
    assert HIP is not None
    src = tmp_path / "k.hip"
    src.write_text(KERNEL)
    objects = []
    for name in ("direct", "hipcc"):
        obj = tmp_path / f"{name}.o"
        args = args_for(src, obj)
        argv, tool = _driver.compile_command(HIP, args, source=len(args) - 3, output=len(args) - 1)
        if name == "hipcc":
            argv = [str(HIP.hipcc), *args]
        assert tool == "clang"
        subprocess.run(argv, env=HIP.env(), cwd=tmp_path, check=True)
        objects.append(obj.read_bytes())
    assert objects[0] == objects[1]


@needs_hipcc
def test_off_switch_runs_hipcc(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert HIP is not None
    monkeypatch.setenv("CASS_DIRECT_CLANG", "0")
    args = args_for(tmp_path / "k.hip", tmp_path / "k.o")
    argv, tool = _driver.compile_command(HIP, args, source=len(args) - 3, output=len(args) - 1)
    assert (argv, tool) == ([str(HIP.hipcc), *args], "hipcc")
    assert not (cache_dir / "drivers").exists()


def counted_probes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the real probes (``_driver._probe``) that the test's calls make."""
    calls: list[int] = []
    real = _driver._probe

    def probe(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_driver, "_probe", probe)
    return calls


def test_unreadable_hipcc_falls_back_and_is_not_asked_again(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # /bin/true stands for a hipcc whose command cannot be read: it prints nothing.
    tc = HipToolchain(Path("/bin/true"), tmp_path, "rocm", (9, 9, 9), None)
    probes = counted_probes(monkeypatch)
    args = ["-fsyntax-only", "--offload-arch=gfx90a", "-x", "hip", str(tmp_path / "k.hip")]
    for _ in range(2):
        argv, tool = _driver.compile_command(tc, args, source=len(args) - 1)
        assert (argv, tool) == (["/bin/true", *args], "hipcc")
    assert probes == [1]  # the failed probe is remembered
    [entry] = (cache_dir / "drivers").glob("*.json")
    assert "printed no command" in json.loads(entry.read_text())["fallback"]


def test_arguments_hipcc_rewrites_are_part_of_the_shape() -> None:
    args = ["-c", "-DX=--genco", "-Ifoo", "-Wl,-z", "in.hip", "-o", "out.o"]
    assert _driver._slots(args, [4], 6) == ["-c", "-DX=--genco", 2, "-Wl,-z", 4, "-o", 6]
    assert _driver._shape(_driver._slots(args, [4], 6), {4: "@input"}, 6) == [
        "-c", "-DX=--genco", "@", "-Wl,-z", "@input", "-o", "@output"
    ]  # fmt: skip


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG fast path is Linux's")
@pytest.mark.parametrize("xdg", [None, "/tmp/xdg-cache", "relative/cache"])
def test_cache_dir_is_platformdirs_answer(monkeypatch: pytest.MonkeyPatch, xdg: str | None) -> None:
    platformdirs = pytest.importorskip("platformdirs")
    monkeypatch.delenv("CASS_CACHE_DIR", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    expected = Path(platformdirs.user_cache_dir("cass", appauthor=False))
    assert cache_dir() == expected


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_parallel_steps_wait_for_one_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert HIP is not None
    probes = counted_probes(monkeypatch)
    src = tmp_path / "k.hip"
    src.write_text(KERNEL)
    args = args_for(src, tmp_path / "k.o")

    def tool(_: int) -> str:
        return _driver.compile_command(HIP, args, source=len(args) - 3, output=len(args) - 1)[1]

    with ThreadPoolExecutor(3) as pool:
        tools = list(pool.map(tool, range(3)))
    assert tools == ["clang"] * 3
    assert probes == [1]  # the others waited on the lock and read its answer


MAIN = """\
#include <hip/hip_runtime.h>
__global__ void twice(float *p);
int main() { return twice == nullptr; }
"""


@needs_hipcc
def test_a_link_runs_hipccs_clang_command_and_it_links(tmp_path: Path, cache_dir: Path) -> None:
    """The link's clang command is hipcc's, asked once per shape: another program's
    objects reuse it, and the program it links runs."""
    assert HIP is not None
    objects = []
    for name, text in (("k", KERNEL), ("m", MAIN)):
        src = tmp_path / f"{name}.hip"
        src.write_text(text)
        obj = tmp_path / f"{name}.o"
        args = args_for(src, obj)
        argv, _ = _driver.compile_command(HIP, args, source=len(args) - 3, output=len(args) - 1)
        subprocess.run(argv, env=HIP.env(), check=True, capture_output=True)
        objects.append(str(obj))
    exe = tmp_path / "app"
    args = ["--offload-arch=gfx90a", *objects, "-o", str(exe)]
    before = set((cache_dir / "drivers").glob("*.json"))
    argv, tool = _driver.link_command(HIP, args, inputs=[1, 2], output=len(args) - 1)
    assert tool == "clang" and argv[0] != str(HIP.hipcc)
    assert argv == hipcc_command(HIP, args, tmp_path)
    [entry] = set((cache_dir / "drivers").glob("*.json")) - before
    subprocess.run(argv, env=HIP.env(), check=True, capture_output=True)
    assert subprocess.run([str(exe)], check=False, timeout=60).returncode == 0
    # Other objects, the same shape: the entry is reused with their paths.
    (tmp_path / "sub").mkdir()
    moved = [str(tmp_path / "sub" / Path(o).name) for o in objects]
    args2 = ["--offload-arch=gfx90a", *moved, "-o", str(tmp_path / "sub" / "app")]
    argv2, _ = _driver.link_command(HIP, args2, inputs=[1, 2], output=len(args2) - 1)
    assert set((cache_dir / "drivers").glob("*.json")) - before == {entry}
    mapping = dict(zip(args, args2, strict=True))
    assert argv2 == [mapping.get(w, w) for w in argv]
    # An archive in an object's place is another shape (hipcc tells them apart by suffix).
    args3 = [*args2[:2], str(tmp_path / "libk.a"), *args2[3:]]
    _driver.link_command(HIP, args3, inputs=[1, 2], output=len(args3) - 1)
    assert len(set((cache_dir / "drivers").glob("*.json")) - before) == 2
