"""Build overhead of the CASS CMake route against hand-written HIP, measured in one run.

The project is examples/cmake_app (four .cu files in a library, one in the
executable, shared headers). Two builds of it are timed, each from an empty
build directory with the same compiler, flags and archs:

* CASS: the example as it is (find_package(CASS), cass_add_library/executable):
  every .cu file is translated by a build-time custom command whose check is
  the build's compile (``cass translate --object``): hipcc's clang command
  compiles each file once, for every arch, and the object goes straight into
  the target.
* HIP: the same project written in HIP by hand, standing for a project already
  ported: the translations are generated once before timing starts, then built
  by a plain CMakeLists.txt (LANGUAGES CXX HIP, add_library/add_executable).

Rows: a truly cold CASS build (empty translation cache), one whose translation
cache is warm (a clean rebuild, or a second build directory), and a truly cold
one with verification off. Each trial runs every route once, in turn, so slow
and busy moments fall on all of them alike; the report gives medians and the
median of the per-trial ratios. Then the no-op rebuild: ``ninja`` in the built
trees, alternating, many times.

CASS itself is installed from the committed HEAD into a private venv first
(``git archive`` + ``pip wheel``), so edits others make to the working tree
while the benchmark runs cannot change what is measured (``--live`` uses the
interpreter running this script instead).

Last, a decomposition that depends less on other load: every translate-and-
compile command of the CASS build, then every compile command of the HIP
build, run one at a time and timed in CPU seconds, in each translation state.

    python bench/build_overhead.py                      # 3 trials, about 15 minutes on 2 cores
    python bench/build_overhead.py --trials 1 --noop-reps 10 --live

``--nvcc`` times the zero-edit route instead (``cass nvcc`` as CMake's CUDA compiler, an
unmodified ``project(LANGUAGES CXX CUDA)``) against the same hand-written HIP, on
examples/cmake_app and on a generated project of 32 ``.cu`` files, and writes its own
section of the report (bench/nvcc_overhead.py holds that route).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "cmake_app"
ARCHS = "gfx90a;gfx1030"
# Both routes compile with the same -O: hipcc (CASS) adds -O3 when a command has
# none, which CMake's HIP language (the baseline) does not.
BUILD_TYPE = "Release"

BASELINE_CMAKE = """\
# The hand-written HIP version of examples/cmake_app: what a finished port builds.
cmake_minimum_required(VERSION 3.25)
project(hip_app LANGUAGES CXX HIP)
add_library(vecmath STATIC
  vecmath/src/device.hip vecmath/src/saxpy.hip vecmath/src/reduce.hip vecmath/src/histogram.hip)
target_include_directories(vecmath PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/vecmath/include)
target_compile_features(vecmath PUBLIC cxx_std_17)
add_executable(vecmath_demo app/main.hip)
target_link_libraries(vecmath_demo PRIVATE vecmath)
# CASS links with the C++ linker; so does this, to time the same link.
set_target_properties(vecmath_demo PROPERTIES LINKER_LANGUAGE CXX)
"""


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sh(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str, float]:
    """Run; return (wall seconds, output, CPU seconds of the command and everything it waited
    for). Any failure stops the benchmark."""
    cpu = _child_cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {shlex.join(argv)}\n{(proc.stdout + proc.stderr)[-4000:]}")
    return seconds, proc.stdout + proc.stderr, _child_cpu() - cpu


def tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        sys.exit(f"{name} is not installed")
    return found


def snapshot(work: Path) -> str:
    """cass-build from the committed HEAD, in a venv of its own; returns its python."""
    src = work / "cass-src"
    src.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "HEAD"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    wheels = work / "wheels"
    pip = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q"]
    sh([*pip, "-w", str(wheels), str(src)], work, dict(os.environ))
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    (wheel,) = wheels.glob("cass_build-*.whl")
    sh([python, "-m", "pip", "install", "-q", str(wheel)], work, dict(os.environ))
    return python


class Bench:
    def __init__(self, work: Path, jobs: int, python: str) -> None:
        self.work = work
        self.jobs = jobs
        self.python = python
        self.cmake = tool("cmake")
        self.ninja = tool("ninja")
        tool("hipcc")
        self.cass_dir = subprocess.run(
            [python, "-m", "cass_build", "--cmakedir"],
            capture_output=True,
            text=True,
            check=True,
            cwd=work,
        ).stdout.strip()
        self.app = work / "app"
        self.hip = work / "hip"
        self.warm_cache = work / "warm-cache"
        self.baseline_defs: list[str] = []
        self.builds = 0
        base = {k: v for k, v in os.environ.items() if not k.startswith("CASS_")}
        # Bytecode as an installed package has it (pip compiles it at install): with
        # PYTHONDONTWRITEBYTECODE set, every step would compile CASS's modules again.
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        base["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        self.env = base
        subprocess.run(
            [python, "-c", "import cass_build.nvcc.steps, cass_build.cli, cass_build.model"],
            env=base,
            cwd=work,
            check=True,
        )

    def env_with(self, cache: Path) -> dict[str, str]:
        return {**self.env, "CASS_CACHE_DIR": str(cache)}

    def fresh_cache(self) -> Path:
        cache = Path(tempfile.mkdtemp(prefix="cache-", dir=self.work))
        return cache

    def prepare(self) -> None:
        shutil.copytree(EXAMPLE, self.app, ignore=shutil.ignore_patterns("build", "README.md"))
        # The hand-written HIP tree: each .cu translated once, headers mirrored beside.
        for cu in sorted(self.app.rglob("*.cu")):
            rel = cu.relative_to(self.app).with_suffix(".hip")
            argv = [self.python, "-m", "cass_build", "translate", str(cu), "-o",
                    str(self.hip / rel), "--mirror", f"{self.app}={self.hip}",
                    "-I", str(self.app / "vecmath" / "include"), "--verify", "none",
                    "--no-cache", "--quiet"]  # fmt: skip
            sh(argv, self.work, self.env)
        self.vendor_headers(self.hip / "vecmath" / "include")
        (self.hip / "CMakeLists.txt").write_text(BASELINE_CMAKE)
        # Give the baseline the compiler and flags find_package(CASS) chose.
        probe = self.work / "probe"
        self.configure_cass(probe, self.fresh_cache(), [])
        cache = (probe / "CMakeCache.txt").read_text()
        wanted = ("CMAKE_HIP_COMPILER", "CMAKE_HIP_FLAGS", "CMAKE_HIP_PLATFORM")
        for name in wanted:
            if m := re.search(rf"^{name}:\w+=(.*)$", cache, re.M):
                self.baseline_defs.append(f"-D{name}={m.group(1)}")
        if m := re.search(r"^CMAKE_HIP_COMPILER_ROCM_ROOT:\w+=(.*)$", cache, re.M):
            root = self.work / "rocm-root"
            shutil.copytree(m.group(1), root)
            self.baseline_defs.append(f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={root}")
        self.baseline_defs.append(f"-DCMAKE_HIP_ARCHITECTURES={ARCHS}")
        self.baseline_defs.append(f"-DCMAKE_BUILD_TYPE={BUILD_TYPE}")

    def vendor_headers(self, include: Path) -> None:
        """The headers translations include (``cass/warp.h``), copied into the port's own
        include directory: a finished port keeps them as its own files."""
        found = subprocess.run(
            [self.python, "-m", "cass_build", "--includedir"],
            capture_output=True,
            text=True,
            check=True,
            env=self.env,
        ).stdout.strip()
        shutil.copytree(Path(found) / "cass", include / "cass", dirs_exist_ok=True)

    def configure_cass(self, build: Path, cache: Path, defs: list[str]) -> float:
        argv = [self.cmake, "-S", str(self.app), "-B", str(build), "-G", "Ninja"]
        argv += [f"-DCASS_DIR={self.cass_dir}", f"-DCMAKE_HIP_ARCHITECTURES={ARCHS}", *defs]
        argv.append(f"-DCMAKE_BUILD_TYPE={BUILD_TYPE}")
        argv.append(f"-DCASS_PYTHON_EXECUTABLE={self.python}")
        return sh(argv, self.work, self.env_with(cache))[0]

    def configure_hip(self, build: Path) -> float:
        argv = [self.cmake, "-S", str(self.hip), "-B", str(build), "-G", "Ninja",
                *self.baseline_defs]  # fmt: skip
        return sh(argv, self.work, self.env)[0]

    def build(self, route: str, cache: Path | None = None) -> dict[str, float | str]:
        """One build from an empty directory. The warm-cache route rebuilds at one fixed
        path: the translation cache keys on the mirror's output directory, so only a clean
        rebuild in the same place (rm -rf build; cmake; ninja) finds earlier translations."""
        self.builds += 1
        build = self.work / f"build-{self.builds}-{route}"
        if route == "cass-warm":
            build = self.work / "build-warm"
            shutil.rmtree(build, ignore_errors=True)
        if route == "hip":
            configure = self.configure_hip(build)
            env = self.env
        else:
            cache = cache or self.fresh_cache()
            defs = ["-DCASS_VERIFY=none"] if route == "cass-cold-none" else []
            configure = self.configure_cass(build, cache, defs)
            env = self.env_with(cache)
        seconds, _, cpu = sh([self.ninja, "-C", str(build), f"-j{self.jobs}"], self.work, env)
        return {
            "route": route,
            "dir": str(build),
            "configure": configure,
            "build": seconds,
            "build_cpu": cpu,
        }

    def noop(self, build: Path, env: dict[str, str]) -> float:
        seconds, out, _ = sh([self.ninja, "-C", str(build)], self.work, env)
        assert "no work to do" in out, out
        return seconds

    def commands(self, build: Path, pick: str) -> list[list[str]]:
        """The commands of a build that contain ``pick``, as argv lists."""
        _, out, _ = sh([self.ninja, "-C", str(build), "-t", "commands"], self.work, self.env)
        found = []
        for line in out.splitlines():
            for part in line.split(" && "):
                if pick in part and not part.startswith("cd "):
                    found.append(shlex.split(part))
        return found

    def decompose(self, cass_tree: Path, hip_tree: Path) -> dict[str, float]:
        """CPU seconds of each kind of step, run one at a time (no -j overlap)."""
        translate = self.commands(cass_tree, "cass_build translate")
        compiles = [c for c in self.commands(hip_tree, " -c ") if c[-1].endswith(".hip")]
        if not compiles:
            compiles = [c for c in self.commands(hip_tree, ".hip") if "-c" in c]
        totals = {"files": float(len(translate))}

        def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
            return sh(argv, cwd, env)[2]

        totals["compile"] = sum(timed(c, hip_tree, self.env) for c in compiles)
        # One empty cache for all the steps, as a cold build has: the first step parses
        # the mapping tables into it, the others load them.
        cold = self.env_with(self.fresh_cache())
        totals["translate_cold"] = sum(timed(c, cass_tree, cold) for c in translate)
        warm = self.env_with(self.warm_cache)
        totals["translate_warm"] = sum(timed(c, cass_tree, warm) for c in translate)
        none = [[("none" if a == "syntax" else a) for a in c] for c in translate]
        cold_none = self.env_with(self.fresh_cache())
        totals["translate_none"] = sum(timed(c, cass_tree, cold_none) for c in none)
        startup = [self.python, "-c", "import cass_build.cli, cass_build.pipeline"]
        totals["python_import"] = statistics.median(
            timed(startup, self.work, self.env) for _ in range(5)
        )
        bare = [self.python, "-c", "pass"]
        totals["python_bare"] = statistics.median(
            timed(bare, self.work, self.env) for _ in range(5)
        )
        # One file's translate step without its compile (warm table cache): the per-file
        # price of the route when nothing else is paid.
        first = list(translate[0])
        if "--object" in first:
            at = first.index("--object")
            del first[at : at + 2]
        first = [("none" if a == "syntax" else a) for a in first] + ["--no-cache"]
        totals["translate_only"] = statistics.median(
            timed(first, cass_tree, warm) for _ in range(5)
        )
        return totals


def step_breakdown(build: Path) -> dict[str, float]:
    """Seconds per kind of step in a build's .ninja_log (the steps overlap under -j). A CASS
    step writes the translation and its object: it counts as translate."""
    kinds = {"translate": 0.0, "compile": 0.0, "link": 0.0}
    steps: dict[tuple[str, str], list[str]] = {}  # one command, several outputs
    for line in (build / ".ninja_log").read_text().splitlines()[1:]:
        start, end, _, output, _ = line.split("\t")
        steps.setdefault((start, end), []).append(output)
    for (start, end), outputs in steps.items():
        seconds = (int(end) - int(start)) / 1000
        if any(o.endswith(".hip") for o in outputs):
            kinds["translate"] += seconds
        elif any(o.endswith(".o") for o in outputs):
            kinds["compile"] += seconds
        else:
            kinds["link"] += seconds
    return kinds


def machine() -> dict[str, str]:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def version(argv: list[str]) -> str:
        try:
            out = subprocess.run(argv, capture_output=True, text=True, check=False).stdout
        except OSError:
            return "?"
        return out.strip().splitlines()[0] if out.strip() else "?"

    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "cmake": version(["cmake", "--version"]),
        "ninja": version(["ninja", "--version"]),
        "hipcc": version(["hipcc", "--version"]),
        "python": sys.version.split()[0],
    }


ROWS = [
    ("hip", "hand-written HIP (baseline)"),
    ("cass-cold", "CASS, truly cold (empty translation cache, verify=syntax)"),
    ("cass-warm", "CASS, warm translation cache (clean build dir)"),
    ("cass-cold-none", "CASS, truly cold, verify=none"),
]


def summary(
    by: dict[str, list[dict[str, float | str]]],
    base_build: list[float],
    base_cpu: list[float],
    parts: dict[str, float],
    noop: dict[str, list[float]],
) -> list[str]:
    """One line per target: the numbers below, read against it."""

    def ratios(key: str, field: str, base: list[float]) -> float:
        values = [float(r[field]) for r in by[key]]
        return statistics.median(v / b for v, b in zip(values, base, strict=True)) - 1

    def verdict(overhead: float, limit: float) -> str:
        return "meets" if overhead <= limit else "misses"

    spread = (max(base_cpu) - min(base_cpu)) / statistics.median(base_cpu)
    out = [
        f"Trials of the same baseline build differ by {spread * 100:.0f}% in CPU time here, so",
        "the step-by-step figures (every step run alone) are the more precise ones.",
        "",
    ]
    for key, label, step in (
        ("cass-cold", "truly cold build (verify=syntax)", "translate_cold"),
        ("cass-warm", "cold build, warm translation cache", "translate_warm"),
        ("cass-cold-none", "truly cold build, verify=none", "translate_none"),
    ):
        if key not in by:
            continue
        cpu, wall = ratios(key, "build_cpu", base_cpu), ratios(key, "build", base_build)
        alone = parts[step] / parts["compile"] - 1
        out.append(
            f"- {label}: {alone * 100:+.1f}% measured step by step, {cpu * 100:+.1f}% in "
            f"build CPU time, {wall * 100:+.1f}% in wall time: {verdict(alone, 0.05)} the 5% "
            f"target step by step, {verdict(cpu, 0.05)} it in whole-build CPU time."
        )
    diff = statistics.median(noop["cass"]) - statistics.median(noop["hip"])
    out.append(
        f"- no-op rebuild: {diff * 1000:+.1f} ms against plain Ninja; "
        f"{verdict(diff, 0.2)} the +0.2 s target."
    )
    return out


def report(results: list[dict[str, float | str]], noop: dict[str, list[float]],
           breakdown: dict[str, float], parts: dict[str, float], info: dict[str, str],
           argv: list[str], load: tuple[float, float]) -> str:  # fmt: skip
    by: dict[str, list[dict[str, float | str]]] = {}
    for r in results:
        by.setdefault(str(r["route"]), []).append(r)
    trials = len(by["hip"])
    base_build = [float(r["build"]) for r in by["hip"]]
    base_total = [float(r["build"]) + float(r["configure"]) for r in by["hip"]]
    base_cpu = [float(r["build_cpu"]) for r in by["hip"]]
    lines: list[str] = [
        "# Build overhead: CASS route against hand-written HIP",
        "",
        "Project: `examples/cmake_app` (four `.cu` files in a static library, one in the",
        "executable, a shared public `.cuh` and a private one), for gfx90a and gfx1030,",
        f"`CMAKE_BUILD_TYPE={BUILD_TYPE}` on both routes (the same `-O3 -DNDEBUG`), Ninja",
        f"`-j{info['jobs']}`. Each build starts from an empty build directory; every trial",
        "runs every route once, in turn. Medians over the trials; *ratio* is the median of the",
        "per-trial ratios to the baseline of the same trial.",
        "",
        "Command (from the repository root):",
        "",
        "```sh",
        shlex.join(["python", *argv]),
        "```",
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, shared with other work (load average",
        f"{load[0]:.2f} at the start, {load[1]:.2f} at the end). {info['cmake']}; ninja",
        f"{info['ninja']}; hipcc: {info['hipcc']}; Python {info['python']}. CASS: {info['cass']}.",
        "",
        "## Against the targets",
        "",
        *summary(by, base_build, base_cpu, parts, noop),
        "",
        "## Cold build",
        "",
        "| route | configure s | build s | build ratio | configure + build ratio "
        "| build CPU s | CPU ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, label in ROWS:
        rows = by.get(key, [])
        if not rows:
            continue
        build = [float(r["build"]) for r in rows]
        total = [float(r["build"]) + float(r["configure"]) for r in rows]
        configure = [float(r["configure"]) for r in rows]
        ratio = statistics.median(b / h for b, h in zip(build, base_build, strict=True))
        ratio_total = statistics.median(t / h for t, h in zip(total, base_total, strict=True))
        cpu = [float(r["build_cpu"]) for r in rows]
        ratio_cpu = statistics.median(c / h for c, h in zip(cpu, base_cpu, strict=True))
        lines.append(
            f"| {label} | {statistics.median(configure):.2f} | {statistics.median(build):.2f} "
            f"| {ratio:.3f} ({(ratio - 1) * 100:+.1f}%) | {ratio_total:.3f} "
            f"| {statistics.median(cpu):.1f} | {ratio_cpu:.3f} ({(ratio_cpu - 1) * 100:+.1f}%) |"
        )
    lines += [
        "",
        "*CPU* is the user + system time of ninja and everything it ran: on a shared machine",
        "it varies less than wall time, which waits for cores other work holds.",
        "",
        f"{trials} trial(s). Per-trial build seconds, wall (CPU):",
        "",
    ]
    for key, _ in ROWS:
        if key in by:
            per = ", ".join(
                f"{float(r['build']):.2f} ({float(r['build_cpu']):.1f} CPU)" for r in by[key]
            )
            lines.append(f"- {key}: {per}")
    lines += [
        "",
        "Where a truly cold CASS build spends its step time (seconds summed over steps from",
        "`.ninja_log`; steps overlap under `-j`, so these add up to more than the wall time):",
        f"translate-and-compile steps {breakdown['translate']:.1f}, CMake's HIP compiles "
        f"{breakdown['compile']:.1f},",
        f"links and archives {breakdown['link']:.1f}.",
        "",
        "## Decomposition: one step at a time",
        "",
        f"Each of the {parts['files']:.0f} translate-and-compile commands of the CASS build and",
        "each HIP compile of the hand-written build, run alone, one after the other; CPU seconds",
        "summed. Overhead = CASS steps / hand-written compiles - 1 (a cache hit skips the",
        "compile, so it can come out below the compiles).",
        "",
        "| step | CPU s | overhead on the compiles |",
        "|---|---|---|",
        f"| HIP compiles of the hand-written tree | {parts['compile']:.1f} | |",
    ]
    for key, label in (
        ("translate_cold", "CASS steps, empty cache, verify=syntax"),
        ("translate_warm", "CASS steps, warm cache"),
        ("translate_none", "CASS steps, empty cache, verify=none"),
    ):
        overhead = (parts[key] / parts["compile"] - 1) * 100
        lines.append(f"| {label} | {parts[key]:.2f} | {overhead:+.1f}% |")
    per_file = parts["compile"] / parts["files"]
    lines += [
        "",
        "Where the difference goes, CPU seconds per file (medians of 5): starting Python "
        f"bare {parts.get('python_bare', float('nan')):.3f}; starting it and importing "
        f"`cass_build.cli` and `cass_build.pipeline` {parts['python_import']:.3f}; one whole "
        f"`cass translate` of the first file without its compile (warm table cache, "
        f"`--verify none --no-cache`) {parts.get('translate_only', float('nan')):.3f}; "
        f"against {per_file:.2f} for an average hand-written compile.",
        "",
        "## No-op rebuild",
        "",
        "`ninja` in a fully built tree, the two trees alternating.",
        "",
        "| route | median s | mean s | min s |",
        "|---|---|---|---|",
    ]
    for key, label in (("hip", "hand-written HIP"), ("cass", "CASS")):
        values = noop[key]
        lines.append(
            f"| {label} | {statistics.median(values):.4f} | {statistics.mean(values):.4f} "
            f"| {min(values):.4f} |"
        )
    diff = statistics.median(noop["cass"]) - statistics.median(noop["hip"])
    lines += [
        "",
        f"CASS minus HIP, medians: {diff * 1000:+.1f} ms over {len(noop['hip'])} runs each "
        "(target: at most +200 ms).",
        "",
        "## Notes",
        "",
        "- Each CASS step is `cass translate --object`: the translation's compile check is",
        "  hipcc's compile for every arch with the target's flags, and its object is the one",
        "  linked, so a file is compiled once. With an object asked for, every level below",
        "  `run` is that compile (`none` skips nothing of it), so verify=syntax and verify=none",
        "  cost the same but for noise.",
        "- A no-op rebuild runs no CASS process: Ninja has the translations' header",
        "  dependencies from their depfiles and finds every output newer than its inputs.",
        "- *Warm cache* is a clean rebuild at the same build path (`rm -rf build`, configure,",
        "  build): each step is a cache hit that writes the stored translation and object.",
        "- Both routes run clang directly. The baseline's command is CMake's HIP rule; a CASS",
        "  step runs the clang command hipcc would run (hipcc prints it under",
        "  `HIPCC_VERBOSE=1 ... -###`; CASS asks once per toolchain and set of flags, checks",
        "  that clang then plans hipcc's jobs, and caches it: `pipeline/_driver.py`), which",
        "  saves hipcc's start-up, 0.2 CPU s per call for ROCm 5.2's Perl script. A truly cold",
        "  build pays that probe once per set of flags (about 0.3 CPU s) with its empty cache.",
        "- Same optimisation and codegen flags on both routes: `-O3 -DNDEBUG` (Release),",
        "  `--offload-arch` for each arch, `-mllvm -amdgpu-early-inline-all=true -mllvm",
        "  -amdgpu-function-calls=false` (hipcc's, and hip-lang's for CMake), `-std=c++17`",
        "  (after hipcc's own `-std=c++11`, which it overrides).",
        "  Only paths differ: CMake passes `--rocm-path`, `--rocm-device-lib-path` and",
        "  `-D__HIP_ROCclr__=1`, hipcc `--hip-version`, `--hip-device-lib-path` and two",
        "  `-isystem` directories; CASS adds the scratch copy's `-I` and `-iquote`. Both build",
        "  as Release, since hipcc's default is `-O3` where CMake's HIP language, with no",
        "  build type, passes no `-O` at all.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--noop-reps", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "reports")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument(
        "--live", action="store_true", help="use this interpreter's cass_build, not a snapshot"
    )
    parser.add_argument(
        "--render", type=Path, metavar="JSON", help="only write the Markdown of an earlier run"
    )
    parser.add_argument(
        "--nvcc", action="store_true", help="time the zero-edit route (cass nvcc) instead"
    )
    parser.add_argument(
        "--files", type=int, default=32, help="--nvcc: .cu files of the generated project"
    )
    args = parser.parse_args(argv)
    if args.nvcc:
        from nvcc_overhead import run_nvcc

        shown = ["bench/build_overhead.py", *(argv if argv is not None else sys.argv[1:])]
        return run_nvcc(args, shown)
    if args.render:
        data = json.loads(args.render.read_text())
        text = report(data["results"], data["noop"], data["breakdown"], data["decomposition"],
                      data["machine"], data["argv"], tuple(data["load"]))  # fmt: skip
        (args.out / "build_overhead.md").write_text(text)
        print(text)
        return 0

    load_start = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="cass-build-overhead-"))
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    try:
        python = sys.executable if args.live else snapshot(work)
        bench = Bench(work, args.jobs, python)
        bench.prepare()
        # Untimed: fill the warm cache, and bring compilers and headers into the page cache.
        bench.build("cass-warm", cache=bench.warm_cache)
        bench.build("hip")
        results = []
        order = [key for key, _ in ROWS]
        for trial in range(args.trials):
            rotated = order[trial % len(order) :] + order[: trial % len(order)]
            for route in rotated:
                cache = bench.warm_cache if route == "cass-warm" else None
                result = bench.build(route, cache)
                print(f"trial {trial + 1}: {route}: build {result['build']:.2f} s", flush=True)
                results.append(result)
        last = {str(r["route"]): Path(str(r["dir"])) for r in results}
        breakdown = step_breakdown(last["cass-cold"])
        noop: dict[str, list[float]] = {"hip": [], "cass": []}
        cass_env = bench.env_with(bench.warm_cache)
        for _ in range(args.noop_reps):
            noop["hip"].append(bench.noop(last["hip"], bench.env))
            noop["cass"].append(bench.noop(last["cass-cold"], cass_env))
        parts = bench.decompose(last["cass-warm"], last["hip"])
        info = {**machine(), "jobs": str(args.jobs)}
        info["cass"] = "the working tree (--live)" if args.live else f"commit {commit} (snapshot)"
        shown = ["bench/build_overhead.py", *(argv if argv is not None else sys.argv[1:])]
        loads = (load_start, os.getloadavg()[0])
        text = report(results, noop, breakdown, parts, info, shown, loads)
        args.out.mkdir(parents=True, exist_ok=True)
        from nvcc_overhead import keep_section

        (args.out / "build_overhead.md").write_text(keep_section(args.out, text))
        for r in results:
            r.pop("dir", None)
        data = {
            "argv": shown,
            "load": loads,
            "machine": info,
            "results": results,
            "noop": noop,
            "breakdown": breakdown,
            "decomposition": parts,
        }
        (args.out / "build_overhead.json").write_text(json.dumps(data, indent=1) + "\n")
        print(text)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
