"""The stand-in's ``bin/nvcc`` through the translation server (cass_build/nvcc/server.py
and its client, cpp/client/nvcc_client.cpp): the same output as the driver in-process,
the in-process fallback, no stale code served, one server for concurrent first calls,
and no orphaned work when a client is killed. Real hipcc and make; no tool is mocked."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cass_build import toolkit
from tests.build_helpers import HIPCC, build_env, require, tool

MAKE = tool("make")


def _client() -> Path | None:
    import cass_build._core as core

    found = Path(core.__file__).parent / "libexec" / toolkit.CLIENT
    return found if found.is_file() else None


pytestmark = pytest.mark.skipif(_client() is None, reason="the C++ client is not built")


class Served:
    """One test's stand-in calls: a private runtime dir (the socket's), cache and stats."""

    def __init__(self, tmp: Path, nvcc: Path, **env: str) -> None:
        self.nvcc = nvcc
        self.runtime = tmp / "run"
        self.runtime.mkdir(mode=0o700, exist_ok=True)
        self.stats = tmp / "stats.txt"
        self.env = build_env(
            CASS_ARCHS="gfx90a",
            CASS_CACHE_DIR=str(tmp / "cache"),
            XDG_RUNTIME_DIR=str(self.runtime),
            CASS_NVCC_SERVER_STATS=str(self.stats),
            CASS_NVCC_SERVER_IDLE="60",
        )
        self.env.pop("CASS_NVCC_SERVER", None)
        self.env.update(env)

    def __call__(self, *args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(self.nvcc), *args],
            cwd=cwd,
            env={**self.env, **env},
            capture_output=True,
            timeout=600,
            check=False,
        )

    def served(self) -> list[dict[str, str]]:
        """The calls the server ran, one dict per CASS_NVCC_SERVER_STATS line."""
        text = self.stats.read_text() if self.stats.exists() else ""
        return [dict(w.split("=", 1) for w in line.split()) for line in text.splitlines()]

    def servers(self) -> set[int]:
        pids = {int(line["server"]) for line in self.served()}
        for lock in self.runtime.glob("cass-nvcc/*.lock"):
            with contextlib.suppress(ValueError, OSError):
                pids.add(int(lock.read_text().split()[0]))
        return pids

    def stop(self) -> None:
        for pid in self.servers():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    calls = Served(tmp_path, toolkit.nvcc())  # root() records bin/.python and bin/.client
    yield calls
    calls.stop()


KERNEL = b"""\
#include <cuda_runtime.h>
#include <cstdio>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
int main() {
    float* d = nullptr;
    cudaMalloc(&d, 64 * sizeof(float));
    scale<<<1, 64>>>(d, 2.0f);
    cudaDeviceSynchronize();
    std::printf("ok\\n");
    return 0;
}
"""

BROKEN = b"""\
__global__ void broken(float* x) { x[threadIdx.x] = undeclared_name; }
"""


def test_served_calls_match_the_driver_in_process(served: Served, tmp_path: Path) -> None:
    require(hipcc=HIPCC)
    (tmp_path / "k.cu").write_bytes(KERNEL)
    (tmp_path / "bad.cu").write_bytes(BROKEN)
    cases = [
        ["--version"],
        ["-arch=sm_80", "-c", "k.cu", "-o", "{}.o"],
        ["-c", "k.cu", "-o", "{}.hit.o"],  # a CASS cache hit in both routes
        ["-E", "k.cu", "-o", "{}.i"],
        ["-c", "bad.cu", "-o", "{}.bad.o"],
        ["--no-such-flag", "k.cu"],
        ["k.cu", "-o", "{}.app"],
    ]
    for case in cases:
        got = {}
        for route, switch in (("xsrvx", "1"), ("xinpx", "0")):
            args = [a.format(route) for a in case]
            # A cache of each route's own, so that both compile (or both hit) the same way.
            env = {"CASS_NVCC_SERVER": switch, "CASS_CACHE_DIR": str(tmp_path / f"c-{route}")}
            proc = served(*args, cwd=tmp_path, **env)
            outputs = sorted(tmp_path.glob(f"{route}.*"))
            got[route] = (
                proc.returncode,
                proc.stdout.replace(route.encode(), b"ROUTE"),
                proc.stderr.replace(route.encode(), b"ROUTE"),
                [(p.name.replace(route, "ROUTE"), p.read_bytes()) for p in outputs],
            )
        assert got["xsrvx"] == got["xinpx"], case
    assert [line["rc"] for line in served.served()] == ["0", "0", "0", "0", "1", "2", "0"]
    assert len(served.servers()) == 1


def test_falls_back_in_process_when_the_socket_dir_is_unusable(
    served: Served, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    shared = tmp_path / "shared"
    (shared / "cass-nvcc").mkdir(parents=True)
    (shared / "cass-nvcc").chmod(0o755)  # others could enter: no socket of ours there
    for runtime in (blocker / "sub", shared):
        proc = served("--version", cwd=tmp_path, XDG_RUNTIME_DIR=str(runtime))
        assert proc.returncode == 0, proc.stderr
        assert b"V12.8.0" in proc.stdout
    assert served.served() == []  # both ran in-process
    assert list(shared.rglob("*.sock")) == []
    direct = served("--version", cwd=tmp_path)
    assert direct.returncode == 0 and len(served.served()) == 1


def test_the_off_switch_runs_in_process(served: Served, tmp_path: Path) -> None:
    proc = served("--version", cwd=tmp_path, CASS_NVCC_SERVER="0")
    assert proc.returncode == 0 and b"V12.8.0" in proc.stdout
    assert served.served() == []
    assert not (served.runtime / "cass-nvcc").exists()


def _second_install(tmp_path: Path) -> Path:
    """Another install of the package, laid out as a wheel installs it (a venv whose
    site-packages holds the source tree with the built core and client); returns its
    stand-in's ``bin/nvcc``, which names that venv's Python by the layout alone."""
    import cass_build._core as core

    import cass_build

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    package = venv / "lib" / version / "site-packages" / "cass_build"
    skip = shutil.ignore_patterns("__pycache__", ".python", ".client", "models")
    shutil.copytree(Path(cass_build.__file__).parent, package, ignore=skip)
    shutil.copy(core.__file__, package)
    (package / "libexec").mkdir()
    shutil.copy2(str(_client()), package / "libexec")
    return package / "toolkit" / "bin" / "nvcc"


def test_a_server_on_changed_code_is_not_used(served: Served, tmp_path: Path) -> None:
    served.nvcc = _second_install(tmp_path)
    first = served("--version", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (old,) = served.servers()
    identity = served.nvcc.parents[2] / "nvcc" / "identity.py"
    text = identity.read_text()
    marker = '"Build cass_{__version__}\\n"'
    assert marker in text
    identity.write_text(text.replace(marker, marker + '\n        "edited copy\\n"'))
    second = served("--version", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert b"edited copy" in second.stdout  # the new code ran ...
    lines = served.served()
    assert len(lines) == 2 and int(lines[1]["server"]) != old  # ... in a new server
    assert _gone(old, within=10)


def test_concurrent_first_calls_end_with_one_server(served: Served, tmp_path: Path) -> None:
    procs = [
        subprocess.Popen(
            [str(served.nvcc), "--version"],
            cwd=tmp_path,
            env=served.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], outs
    assert all(b"V12.8.0" in out for out, _ in outs)
    assert len(served.served()) == 4  # every call was served ...
    assert len(served.servers()) == 1  # ... by one server


MAKEFILE = """\
NVCC ?= nvcc
app: a.o b.o
\t$(NVCC) a.o b.o -o app
%.o: %.cu
\t$(NVCC) -arch=sm_80 -c $< -o $@
"""


def test_a_parallel_make_from_cold_builds_through_one_server(
    served: Served, tmp_path: Path
) -> None:
    require(hipcc=HIPCC, make=MAKE)
    (tmp_path / "Makefile").write_text(MAKEFILE)
    (tmp_path / "a.cu").write_bytes(KERNEL)
    (tmp_path / "b.cu").write_bytes(b"__global__ void other(int* p) { p[threadIdx.x] = 1; }\n")
    proc = subprocess.run(
        [str(MAKE), "-j2", f"NVCC={served.nvcc}"],
        cwd=tmp_path,
        env=served.env,
        capture_output=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
    assert (tmp_path / "app").is_file()
    assert [line["rc"] for line in served.served()] == ["0", "0", "0"]
    assert len(served.servers()) == 1


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(w) for w in text.split()]


HEAVY = b"".join(
    b"template <int N> __device__ float f%d(float x) { return N * x + f%d<N - 1>(x); }\n"
    b"template <> __device__ float f%d<0>(float x) { return x; }\n"
    b"__global__ void k%d(float* o) { o[threadIdx.x] = f%d<200>(o[threadIdx.x]); }\n"
    % (i, i, i, i, i)
    for i in range(40)
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_a_killed_client_leaves_no_work_running(
    served: Served, tmp_path: Path, sig: signal.Signals
) -> None:
    require(hipcc=HIPCC)
    warm = served("--version", cwd=tmp_path)  # the server is up before the timed part
    assert warm.returncode == 0, warm.stderr
    (server,) = served.servers()
    (tmp_path / "heavy.cu").write_bytes(HEAVY)
    client = subprocess.Popen(
        [str(served.nvcc), "-c", "heavy.cu", "-o", "heavy.o"],
        cwd=tmp_path,
        env={**served.env, "CASS_ARCHS": "gfx90a;gfx1030"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not (workers := _children(server)) or not any(_children(w) for w in workers):
        assert time.monotonic() < deadline, "the call never reached its compile"
        time.sleep(0.02)
    (worker,) = workers
    compilers = _children(worker)
    client.send_signal(sig)
    client.communicate(timeout=60)
    if sig == signal.SIGINT:
        assert client.returncode == 130  # as the driver in-process answers Ctrl-C
    assert _gone(worker, within=10)
    assert all(_gone(pid, within=10) for pid in compilers)
    assert not (tmp_path / "heavy.o").exists()


def test_a_socket_path_longer_than_sun_path_still_serves(served: Served, tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True, mode=0o700)
    assert len(str(deep / "cass-nvcc" / "nvcc-0123456789abcdef.sock")) > 108
    for _ in range(2):
        proc = served("--version", cwd=tmp_path, XDG_RUNTIME_DIR=str(deep))
        assert proc.returncode == 0, proc.stderr
    assert len(served.served()) == 2
    assert len(list(deep.glob("cass-nvcc/*.sock"))) == 1
    for lock in deep.glob("cass-nvcc/*.lock"):  # this one's runtime dir is not the fixture's
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(lock.read_text().split()[0]), signal.SIGTERM)


def test_each_call_runs_in_its_own_environment_and_directory(
    served: Served, tmp_path: Path
) -> None:
    require(hipcc=HIPCC)
    for name, arch in (("one", "gfx90a"), ("two", "gfx1030")):
        work = tmp_path / name
        work.mkdir()
        (work / "k.cu").write_bytes(KERNEL)
        proc = served("-arch=sm_80", "-E", "k.cu", "-o", "k.i", cwd=work, CASS_ARCHS=arch)
        assert proc.returncode == 0, proc.stderr
        assert f"building for {arch} (CASS_ARCHS".encode() in proc.stderr
        assert (work / "k.i").is_file()  # written in the call's own directory
    assert len(served.served()) == 2 and len(served.servers()) == 1
