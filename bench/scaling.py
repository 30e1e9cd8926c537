#!/usr/bin/env python3
"""Time and memory of the rule translator against input size (a benchmark, not a test).

Four kinds of generated CUDA, each at 1, 4, 16 and 64 MB (``--sizes``):

- ``launch``: distinct kernels, each launched from host code, many launches in one
  host function (the shape that once made the core quadratic);
- ``macro``: ``#define``s, ``#if``/``#elif``/``#endif`` chains on the CUDA version
  macros, repeated ``#include``s;
- ``comment``: block and line comments and string literals full of CUDA names;
- ``api``: kernels dense with warp intrinsics, masks, lane arithmetic and runtime calls.

Each input is translated in a fresh child process (so peak RSS is the translation's own)
twice: by the C++ core through ``cass_build._core.translate_result`` on bytes, and by
``cass_build.translate`` on text. Reported per size: seconds, seconds per MB, and peak RSS
above the process's RSS before the input was made, as a multiple of the input's size. The
linear-time target: seconds per MB at 64 MB within 1.5x of that at 1 MB, for every kind.

    python bench/scaling.py                      # all kinds, 1 4 16 64 MB, report to bench/reports
    python bench/scaling.py --sizes 1 4 --kinds launch
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MB = 1_000_000
KINDS = ("launch", "macro", "comment", "api")
TARGET_RATIO = 1.5

# ----------------------------------------------------------------------------- generators


def _launch_unit(i: int) -> str:
    return (
        f"__global__ void scale_{i}(float* x, int n, float a) {{\n"
        f"  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  if (t < n) x[t] = a * x[t] + {i % 97}.0f;\n"
        f"}}\n"
    )


def _launch_host(first: int, count: int) -> str:
    body = [f"void run_{first}(float* x, int n, cudaStream_t s) {{\n"]
    body.append("  dim3 block(256);\n  dim3 grid((n + block.x - 1) / block.x);\n")
    for i in range(first, first + count):
        if i % 3 == 0:
            body.append(f"  scale_{i}<<<grid, block>>>(x, n, 2.0f);\n")
        elif i % 3 == 1:
            body.append(f"  scale_{i}<<<grid, block, 0, s>>>(x, n, 0.5f);\n")
        else:
            body.append(f"  scale_{i}<<<(n + 127) / 128, 128>>>(x, n, 1.5f);\n")
        body.append("  cudaGetLastError();\n")
    body.append("  cudaStreamSynchronize(s);\n}\n")
    return "".join(body)


def _launch(size: int) -> str:
    parts: list[str] = ["#include <cuda_runtime.h>\n"]
    total = len(parts[0])
    i = 0
    while total < size:
        # 256 kernels, then one host function launching them all.
        chunk = "".join(_launch_unit(k) for k in range(i, i + 256)) + _launch_host(i, 256)
        parts.append(chunk)
        total += len(chunk)
        i += 256
    return "".join(parts)


def _macro_unit(i: int) -> str:
    return (
        f"#define CHECK_{i}(x) do {{ cudaError_t e = (x); if (e != cudaSuccess) return e; }} "
        f"while (0)\n"
        f"#if CUDART_VERSION >= {11000 + i % 3000}\n"
        f"#include <cuda_runtime.h>\n"
        f"#define ALLOC_{i}(p, n) cudaMalloc(&(p), (n))\n"
        f"#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= {500 + i % 400}\n"
        f"#define ALLOC_{i}(p, n) cudaMallocManaged(&(p), (n))\n"
        f"#else\n"
        f"#define ALLOC_{i}(p, n) cudaMallocHost(&(p), (n))\n"
        f"#endif\n"
        f"#ifdef USE_{i}\n#define WARP_{i} 32\n#endif\n"
    )


def _comment_unit(i: int) -> str:
    return (
        f"/* Block {i}: cudaMalloc, cudaMemcpy and __shfl_down_sync(0xffffffff, v, 16) are\n"
        f" * named here only; <<<grid, block>>> and #include <cuda.h> too. threadIdx.x & 31\n"
        f" */\n"
        f"// line {i}: cudaFree(p); __ballot_sync(0xffffffff, p); blockDim.x / 32\n"
        f'static const char* note_{i} = "cudaStreamCreate(&s) warpSize 32 <<<1, 1>>>";\n'
        f'static const char* raw_{i} = R"x(cudaDeviceSynchronize() // )" )x";\n'
    )


def _api_unit(i: int) -> str:
    return (
        f"__global__ void reduce_{i}(const float* in, float* out, int n) {{\n"
        f"  float v = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
        f"  int lane = threadIdx.x % warpSize;\n"
        f"  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n"
        f"  unsigned bits = __ballot_sync(0xffffffff, v > 0.0f);\n"
        f"  int c = __popc(bits);\n"
        f"  if ((threadIdx.x & 31) == 0) atomicAdd(out, v + c);\n"
        f"  __syncwarp();\n"
        f"}}\n"
        f"cudaError_t host_{i}(float* d, size_t n, cudaStream_t s) {{\n"
        f"  cudaEvent_t e;\n"
        f"  cudaEventCreate(&e);\n"
        f"  cudaMemsetAsync(d, 0, n * sizeof(float), s);\n"
        f"  cudaEventRecord(e, s);\n"
        f"  cudaEventSynchronize(e);\n"
        f"  cudaEventDestroy(e);\n"
        f"  return cudaGetLastError();\n"
        f"}}\n"
    )


def _repeat(unit: Any, size: int) -> str:
    parts: list[str] = []
    total = 0
    i = 0
    while total < size:
        u = unit(i)
        parts.append(u)
        total += len(u)
        i += 1
    return "".join(parts)


def generate(kind: str, size: int) -> bytes:
    """`size` bytes or a little more of the kind's code (deterministic)."""
    if kind == "launch":
        return _launch(size).encode()
    unit = {"macro": _macro_unit, "comment": _comment_unit, "api": _api_unit}[kind]
    return _repeat(unit, size).encode()


# ----------------------------------------------------------------------------- measuring


def _rss_kb() -> int:
    """Current resident set size (kB)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _child(kind: str, size: int, path: str, reps: int) -> dict[str, Any]:
    """The best of `reps` translations, in this (fresh) process."""
    import cass_build
    from cass_build import _core, rules
    from cass_build.rules import core_options, core_table
    from cass_build.rules.diagnostics import SEVERITIES, Diagnostic
    from cass_build.settings import Settings

    settings = Settings()
    table = core_table()
    cass_build.translate("__global__ void warm() {}\n", options=settings)  # load everything
    options = core_options(settings.replace(launch_syntax="chevrons", rename_cu_includes=False))
    data = generate(kind, size)
    text = data.decode()
    base_kb = _rss_kb()

    def once() -> tuple[float, float, int]:
        """One translation, wall and CPU seconds; its objects are freed on return."""
        # The API path keeps a workspace per thread; drop it (the warm-up's, or the
        # last run's) so that both paths start from fresh pages, as a build step does.
        rules._LOCAL.__dict__.pop("workspace", None)
        t0, c0 = time.perf_counter(), time.process_time()
        if path == "core":
            out, _diags, _counts, _lines = _core.translate_result(
                data, table, options, "scaling.cu", Diagnostic, SEVERITIES, _core.Workspace()
            )
            return time.perf_counter() - t0, time.process_time() - c0, len(out)
        result = cass_build.translate(text, path="scaling.cu", options=settings)
        return time.perf_counter() - t0, time.process_time() - c0, len(result.data)

    runs = [once() for _ in range(reps)]
    seconds = min(t for t, _, _ in runs)
    cpu = min(c for _, c, _ in runs)
    out_bytes = runs[0][2]
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "kind": kind,
        "path": path,
        "bytes": len(data),
        "out_bytes": out_bytes,
        "seconds": seconds,
        "s_per_mb": seconds / (len(data) / MB),
        "cpu_seconds": cpu,
        "cpu_s_per_mb": cpu / (len(data) / MB),
        # The first translation alone: what a build step, one translation per
        # process, pays (later ones may find heap pages the first one touched).
        "first_cpu_s_per_mb": runs[0][1] / (len(data) / MB),
        "peak_over_base_mb": max(0, peak_kb - base_kb) * 1024 / MB,
        "peak_x_input": max(0, peak_kb - base_kb) * 1024 / len(data),
    }


def measure(kind: str, size: int, path: str, reps: int) -> dict[str, Any]:
    """_child() in a fresh interpreter, pinned like the caller."""
    cmd = [sys.executable, __file__, "--child", kind, str(size), path, str(reps)]
    # A fixed mmap threshold: every run's large buffers are fresh pages, as in a
    # build's one translation per process (glibc's adaptive threshold would let a
    # small input's second run reuse warm heap memory, and flatter it).
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072"}
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO, env=env)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _report(rows: list[dict[str, Any]], sizes: list[int], command: str) -> str:
    lines = [
        "# Scaling of the rule translator with input size",
        "",
        "Generated by `bench/scaling.py`; regenerate with:",
        "",
        "```sh",
        command,
        "```",
        "",
        f"Host: {platform.node()}, {platform.machine()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs (shared), pinned to one. Each cell is one translation in a "
        "fresh process, the best of `--reps` runs, and of `--rounds` such processes "
        "spread over the run. Peak memory is the largest peak RSS above "
        "the RSS before the translation, "
        "as a multiple of the input's size.",
        "",
        f"Target: seconds per MB at {sizes[-1]} MB within {TARGET_RATIO}x of that at "
        f"{sizes[0]} MB.",
        "",
        f"Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs. Each "
        "path has three tables: wall seconds; CPU seconds of the process (what the "
        "translation itself cost, less sensitive than the wall clock to other jobs "
        "taking the CPU away; on an idle machine the two agree, the work being one "
        "thread); and the CPU seconds of each process's first translation alone, the "
        "cost of a build step, which translates one file per process (the best of "
        "`--rounds`; later translations in a process may reuse the pages its first "
        "one mapped).",
        "",
    ]
    for (path, title), (key, clock) in (
        (p, m)
        for p in (
            ("core", "C++ core (`_core.translate_result` on bytes)"),
            ("api", "Python API (`cass_build.translate` on text)"),
        )
        for m in (
            ("s_per_mb", "wall"),
            ("cpu_s_per_mb", "CPU"),
            ("first_cpu_s_per_mb", "first-translation CPU"),
        )
    ):
        lines += [f"## {title}: {clock} seconds", ""]
        head = "| kind | " + " | ".join(f"{s} MB s/MB" for s in sizes)
        head += f" | ratio {sizes[-1]}/{sizes[0]} | peak RSS / input |"
        lines.append(head)
        lines.append("|---" * (len(sizes) + 3) + "|")
        for kind in KINDS:
            cells = [r for r in rows if r["kind"] == kind and r["path"] == path]
            if not cells:
                continue
            by_size = {round(r["bytes"] / MB): r for r in cells}
            per = [by_size.get(s) for s in sizes]
            row = f"| {kind} | " + " | ".join(f"{r[key]:.4f}" if r else "-" for r in per)
            first, last = per[0], per[-1]
            ratio = last[key] / first[key] if first and last and first[key] else float("nan")
            peak = max(r["peak_x_input"] for r in cells)
            verdict = "ok" if ratio <= TARGET_RATIO else "OVER"
            row += f" | {ratio:.2f} ({verdict}) | {peak:.1f}x |"
            lines.append(row)
        lines.append("")
    return "\n".join(lines) + "\n"


Cell = tuple[str, str, int]


def _keep_best(best: dict[Cell, dict[str, Any]], key: Cell, r: dict[str, Any]) -> None:
    """A cell's best over rounds: the least wall and the least CPU time (each on its
    own: the round with the least waiting need not be the one with the least CPU),
    and the largest peak memory."""
    old = best.get(key)
    if old is None:
        best[key] = dict(r)
        return
    for clock in ("seconds", "s_per_mb", "cpu_seconds", "cpu_s_per_mb", "first_cpu_s_per_mb"):
        old[clock] = min(old[clock], r[clock])
    for peak in ("peak_over_base_mb", "peak_x_input"):
        old[peak] = max(old[peak], r[peak])


def _print(r: dict[str, Any], size: int) -> None:
    print(
        f"{r['kind']:8} {r['path']:4} {size:3} MB  {r['seconds']:8.3f} s  "
        f"{r['s_per_mb']:.4f} s/MB  {r['cpu_s_per_mb']:.4f} CPU s/MB  "
        f"peak {r['peak_x_input']:.1f}x input",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 16, 64], help="MB")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--paths", nargs="+", choices=("core", "api"), default=["core", "api"])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "reports")
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to")
    parser.add_argument("--reps", type=int, default=3, help="translations per cell (best)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure every cell this many times, round after round, and keep each "
        "cell's best (a shared machine's load drifts over minutes: rounds spread each "
        "cell over the run instead of measuring it in one stretch)",
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, size, path, reps = args.child
        print(json.dumps(_child(kind, int(size), path, int(reps))))
        return 0
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {args.cpu if args.cpu is not None else cpus[0]})
    best: dict[Cell, dict[str, Any]] = {}
    for _round in range(args.rounds):
        for kind in args.kinds:
            for path in args.paths:
                for size in args.sizes:
                    r = measure(kind, size * MB, path, args.reps)
                    _keep_best(best, (kind, path, size), r)
                    _print(r, size)
    rows = list(best.values())
    command = "python bench/scaling.py " + " ".join(argv if argv is not None else sys.argv[1:])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scaling.json").write_text(json.dumps(rows, indent=1) + "\n")
    (args.out / "scaling.md").write_text(_report(rows, args.sizes, command.strip()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
