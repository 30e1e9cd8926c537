"""The Python-facing examples, each built from a clean copy with the real tools.

examples/cmake_app is built by tests/test_cmake_package.py. Here:
skbuild_ext (scikit-build-core + find_package(CASS)), setup_py_ext (setup.py +
cass_build.setuptools) and pyproject_ext (pyproject.toml only, pip install).
Every built module must import, and a call must say "no HIP device" cleanly on
a machine without a GPU.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.build_helpers import (
    ARCHS,
    CMAKE,
    HIPCC,
    NINJA,
    OBJCOPY,
    archs_in,
    build_env,
    copy_example,
    ok,
    run,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(None in (HIPCC, CMAKE, NINJA), reason="needs hipcc, cmake and ninja"),
]
NO_GPU = not Path("/dev/kfd").exists()


def call_module(python: str, path: Path | None, code: str) -> dict[str, object]:
    """Run ``code`` (which sets ``out``) in a fresh interpreter; return ``out`` as JSON."""
    prelude = f"import sys, json\nsys.path.insert(0, {str(path)!r})\n" if path else "import json\n"
    script = prelude + code + "\nprint(json.dumps(out))\n"
    proc = subprocess.run(
        [python, "-c", script], capture_output=True, text=True, check=False, cwd="/"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def no_device_call(module: str, call: str) -> str:
    """Code that imports ``module``, makes ``call`` and records what happened."""
    return (
        f"import {module} as m\n"
        "out = {'runtime': m.runtime()}\n"
        "try:\n"
        f"    out['result'] = repr({call})\n"
        "except RuntimeError as e:\n"
        "    out['error'] = str(e)\n"
    )


def assert_no_device_reported(out: dict[str, object]) -> None:
    assert out["runtime"] == "HIP"
    if NO_GPU:
        assert "result" not in out
        assert str(out["error"]).startswith("no HIP device: "), out


# -- (b) scikit-build-core ---------------------------------------------------------


@pytest.fixture(scope="module")
def skbuild(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("skbuild")
    src = copy_example("skbuild_ext", root)
    dist = root / "dist"
    # No CASS_DIR, no CMAKE_PREFIX_PATH: scikit-build-core finds CASS by itself.
    argv = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-v"]
    argv += ["-w", str(dist), str(src)]
    log = ok(run(argv, root, build_env(CASS_ARCHS=";".join(ARCHS))))
    (wheel,) = dist.glob("cass_skbuild_example-*.whl")
    site = root / "site"
    zipfile.ZipFile(wheel).extractall(site)
    return site, log


def test_skbuild_translates_at_build_time(skbuild: tuple[Path, str]) -> None:
    _, log = skbuild
    assert "CASS translating src/stencil.cu" in log
    # The translate step compiled the object; CMake's HIP rule compiled nothing.
    assert "Building HIP object" not in log
    assert "--object" in log or "compiled for AMD by the same step" in log
    # GCC's LTO objects (pybind11) and clang's linker do not mix: the C++ linker links.
    assert "Linking CXX shared module" in log


def test_skbuild_module_has_code_objects_for_every_arch(skbuild: tuple[Path, str]) -> None:
    if OBJCOPY is None:
        pytest.skip("objcopy is not installed")
    site, _ = skbuild
    (module,) = (site / "cass_skbuild_example").glob("_stencil*.so")
    assert archs_in(module) == set(ARCHS)


def test_skbuild_module_imports_and_reports_no_device(skbuild: tuple[Path, str]) -> None:
    site, _ = skbuild
    out = call_module(
        sys.executable, site, no_device_call("cass_skbuild_example", "m.heat([0.0, 1.0, 0.0])")
    )
    assert_no_device_reported(out)


# -- (c) setup.py --------------------------------------------------------------------


class SetupPy:
    def __init__(self, src: Path, log: str) -> None:
        self.src, self.log = src, log

    def build(self) -> str:
        argv = [sys.executable, "setup.py", "build_ext", "--inplace"]
        return ok(run(argv, self.src, build_env(PYTORCH_ROCM_ARCH=",".join(ARCHS))))

    def module(self) -> Path:
        (found,) = (self.src / "cass_setup_example").glob("_ops*.so")
        return found

    def obj(self) -> Path:
        (found,) = self.src.glob("build/temp*/cass/csrc/ops.o")
        return found


@pytest.fixture(scope="module")
def setup_py(tmp_path_factory: pytest.TempPathFactory) -> SetupPy:
    root = tmp_path_factory.mktemp("setup_py")
    built = SetupPy(copy_example("setup_py_ext", root), "")
    built.log = built.build()
    return built


def test_setup_py_translates_out_of_place(setup_py: SetupPy) -> None:
    assert "cass: translating csrc/ops.cu for gfx90a,gfx1030" in setup_py.log
    (hip,) = setup_py.src.glob("build/temp*/cass/csrc/ops.hip")
    assert "hipMalloc" in hip.read_text()
    assert "cudaMalloc" in (setup_py.src / "csrc" / "ops.cu").read_text()
    assert "-lamdhip64" in setup_py.log


def test_setup_py_module_has_code_objects_for_every_arch(setup_py: SetupPy) -> None:
    if OBJCOPY is None:
        pytest.skip("objcopy is not installed")
    assert archs_in(setup_py.module()) == set(ARCHS)


def test_setup_py_module_imports_and_reports_no_device(setup_py: SetupPy) -> None:
    code = no_device_call("cass_setup_example", "m.dot([1.0, 2.0], [3.0, 4.0])")
    out = call_module(sys.executable, setup_py.src, code)
    assert_no_device_reported(out)


def test_setup_py_staleness_is_by_content(setup_py: SetupPy) -> None:
    module = setup_py.module()
    built = module.stat().st_mtime_ns
    assert "skipping 'cass_setup_example._ops' extension (content unchanged)" in setup_py.build()
    for name in ("csrc/ops.cu", "csrc/ops.h", "csrc/bindings.cpp"):
        os.utime(setup_py.src / name)  # new timestamps, same bytes
    assert "(content unchanged)" in setup_py.build()
    assert module.stat().st_mtime_ns == built


def test_setup_py_editing_host_code_keeps_the_gpu_object(setup_py: SetupPy) -> None:
    obj = setup_py.obj()
    before = obj.stat().st_mtime_ns
    bindings = setup_py.src / "csrc" / "bindings.cpp"
    bindings.write_text(bindings.read_text() + "\n// edited\n")
    log = setup_py.build()
    assert "building 'cass_setup_example._ops' extension" in log
    assert "bindings.cpp" in log
    # The .cu translation and its object come back from the cache unchanged.
    assert obj.stat().st_mtime_ns == before
    assert "hipcc" not in log


# -- (d) pyproject.toml only ---------------------------------------------------------


@pytest.fixture(scope="module")
def pyproject_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A venv beside this one (it sees cass_build) with setuptools >= 69, then pip install."""
    root = tmp_path_factory.mktemp("pyproject")
    env_dir = root / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    python = str(env_dir / "bin" / "python")
    pip = [python, "-m", "pip", "install", "-q", "setuptools>=69"]
    proc = run(pip, root)
    if proc.returncode != 0:
        pytest.skip(f"cannot install setuptools>=69 (no package index?): {proc.stderr[-300:]}")
    src = copy_example("pyproject_ext", root)
    argv = [python, "-m", "pip", "install", "-v", "--no-build-isolation", "--no-deps", str(src)]
    log = ok(run(argv, root, build_env(CASS_ARCHS=",".join(ARCHS))))
    return python, log


def test_pip_install_builds_the_cuda_extension_for_rocm(pyproject_env: tuple[str, str]) -> None:
    python, log = pyproject_env
    assert "cass: translating src/softmax.cu for gfx90a,gfx1030" in log
    out = call_module(
        python,
        None,
        "import cass_pyproject_example as p, pathlib\n"
        "out = {'file': str(pathlib.Path(p._softmax.__file__))}\n",
    )
    module = Path(str(out["file"]))
    assert "site-packages" in module.parts
    if OBJCOPY is not None:
        assert archs_in(module) == set(ARCHS)


def test_pyproject_module_reports_no_device(pyproject_env: tuple[str, str]) -> None:
    python, _ = pyproject_env
    code = no_device_call("cass_pyproject_example", "m.softmax([[1.0, 2.0], [3.0, 4.0]])")
    assert_no_device_reported(call_module(python, None, code))


def test_doctor_reports_the_setuptools_that_ext_modules_need(tmp_path: Path) -> None:
    """This interpreter's setuptools, then a newer one put first on its path."""
    from importlib.metadata import version

    doctor = [sys.executable, "-m", "cass_build", "doctor"]
    here = run(doctor, tmp_path).stdout
    mine = version("setuptools")
    if int(mine.split(".")[0]) < 69:
        assert f"--  setuptools        {mine}: too old for [tool.setuptools] ext-modules" in here
        assert "pip install 'setuptools>=69'" in here
    else:
        assert f"ok  setuptools        {mine}\n" in here
    newer = tmp_path / "newer"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--target", str(newer), "setuptools>=69"]
    if run(pip, tmp_path).returncode != 0:
        pytest.skip("cannot install setuptools>=69 (no package index?)")
    there = run(doctor, tmp_path, build_env(PYTHONPATH=str(newer))).stdout
    assert re.search(r"^ok +setuptools +(69|[7-9]\d|\d{3,})\.", there, re.M), there


# -- (e) an isolated pip install, through a wheelhouse ---------------------------------


def test_isolated_pip_install_through_a_wheelhouse(tmp_path: Path) -> None:
    """The route examples/*/README.md give: cass-build's wheel into a wheelhouse, then
    PIP_FIND_LINKS; pip builds in an isolated environment with nothing of ours in it."""
    wheelhouse = tmp_path / "wheelhouse"
    root = Path(__file__).resolve().parents[1]
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    ok(run([*build, "-w", str(wheelhouse), str(root)], root))
    assert len(list(wheelhouse.glob("cass_build-*.whl"))) == 1
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)  # no system site-packages: cass_build is not seen
    python = str(env_dir / "bin" / "python")
    links = " ".join([str(wheelhouse), os.environ.get("PIP_FIND_LINKS", "")]).strip()
    src = copy_example("pyproject_ext", tmp_path)
    env = build_env(CASS_ARCHS="gfx90a", PIP_FIND_LINKS=links)
    proc = run([python, "-m", "pip", "install", "-v", str(src)], tmp_path, env)
    log = proc.stdout + proc.stderr
    if proc.returncode != 0 and "No matching distribution found for setuptools" in log:
        pytest.skip("no package index for setuptools>=69 here")
    assert proc.returncode == 0, log[-6000:]
    assert "cass: translating src/softmax.cu for gfx90a" in log
    assert str(wheelhouse) in log  # cass-build is on no index: only the wheelhouse has it
    out = call_module(python, None, "import cass_pyproject_example as p\nout = {'ok': True}\n")
    assert out == {"ok": True}
