"""NVIDIA: compile a CUDA source for one ``sm_XX`` and read back SASS and ptxas' figures.

nvcc builds a cubin with ``-Xptxas -v``: ptxas reports registers, shared memory, stack
frame and spills per entry function. nvdisasm (or cuobjdump) turns the cubin into SASS;
where neither is installed the listing is the PTX nvcc generated, marked ``kind="ptx"``,
and the report says so. The resource figures come from ptxas either way.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from .._proc import first_error, run
from ..errors import InputError, ToolchainError
from ..pipeline.toolchain import find_nvcc
from ._tools import nvidia_disassembler, tool_version
from .resources import (
    KernelAsm,
    NvidiaResources,
    TargetAsm,
    count_classes,
    ptx_mnemonic,
    sass_mnemonic,
)
from .targets import NvidiaArch

__all__ = ["DISASM_HINT", "nvidia_asm", "parse_ptxas", "split_cuobjdump", "split_nvdisasm"]

DISASM_HINT = "pip install nvidia-cuda-nvdisasm (or install the CUDA toolkit's nvdisasm)"

_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_FIELD = re.compile(r"(\d+) bytes (smem|cmem\[0\])|used (\d+) barriers")


def parse_ptxas(output: str) -> dict[str, NvidiaResources]:
    """Per entry function, what ``ptxas -v`` printed."""
    found: dict[str, NvidiaResources] = {}
    frames: dict[str, tuple[int, int, int]] = {}
    entry = props = None
    for line in output.splitlines():
        if m := _ENTRY.search(line):
            entry = m.group(1)
            found[entry] = NvidiaResources()
        elif m := _PROPS.search(line):
            props = m.group(1)
        elif (m := _FRAME.search(line)) and props is not None:
            frames[props] = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        elif (m := _USED.search(line)) and entry is not None:
            res = found[entry]
            res.registers = int(m.group(1))
            for f in _FIELD.finditer(line):
                if f.group(3) is not None:
                    res.barriers = int(f.group(3))
                elif f.group(2) == "smem":
                    res.shared = int(f.group(1))
                else:
                    res.constant = int(f.group(1))
    for name, res in found.items():
        res.stack, res.spill_stores, res.spill_loads = frames.get(name, (0, 0, 0))
    return found


def _tidy(lines: list[str]) -> str:
    # The NOPs (and the label after them) at the end only pad the function to its alignment.
    while lines and (lines[-1].strip() in ("NOP ;", "NOP;") or lines[-1].endswith(":")):
        lines.pop()
    return "\n".join(lines).strip("\n") + "\n"


def split_nvdisasm(text: str) -> dict[str, str]:
    """Per entry function, its SASS from ``nvdisasm -c``: labels kept, addresses dropped."""
    out: dict[str, list[str]] = {}
    entries: set[str] = set()
    current: str | None = None
    for line in text.splitlines():
        if line.startswith("//----") and ".text." in line:
            current = line.split(".text.", 1)[1].split()[0]
            out[current] = []
            continue
        if current is None:
            continue
        stripped = line.strip()
        if stripped.startswith(".other") and "STO_CUDA_ENTRY" in stripped:
            entries.add(current)
        elif re.match(r"^\.L_x_\d+:$", stripped):
            out[current].append(stripped)
        elif stripped.startswith("/*") and "*/" in stripped:
            out[current].append("  " + stripped.split("*/", 1)[1].strip())
    return {name: _tidy(lines) for name, lines in out.items() if name in entries}


def split_cuobjdump(text: str) -> dict[str, str]:
    """Per function, its SASS from ``cuobjdump -sass``: encodings and addresses dropped."""
    out: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Function : "):
            current = stripped.removeprefix("Function : ").strip()
            out[current] = []
        elif current is not None and re.match(r"^/\*[0-9a-f]{4,}\*/", stripped):
            code = stripped.split("*/", 1)[1].split("/*", 1)[0].strip()
            if code:
                out[current].append("  " + code)
    return {name: _tidy(lines) for name, lines in out.items()}


def split_ptx(text: str) -> dict[str, str]:
    """Per ``.entry``, its PTX body."""
    out: dict[str, str] = {}
    for m in re.finditer(r"\.entry\s+(\S+?)\s*\(", text):
        start = text.find("{", m.end())
        depth, i = 0, start
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        body = [ln.rstrip() for ln in text[start + 1 : i].splitlines()]
        kept = [("  " + ln.strip()) if not ln.strip().endswith(":") else ln.strip() for ln in body]
        out[m.group(1)] = _tidy([ln for ln in kept if ln.strip()])
    return out


def nvidia_asm(
    source: Path,
    arch: NvidiaArch,
    workdir: Path,
    *,
    include_dirs: Sequence[Path] = (),
    defines: Sequence[str] = (),
    flags: Sequence[str] = (),
    shown: Path | None = None,
) -> TargetAsm:
    """SASS (or PTX) and ptxas figures of every kernel in ``source`` for ``arch``."""
    nvcc = find_nvcc()
    name = shown or source
    if nvcc is None:
        msg = f"{name}: cannot produce {arch.name}: nvcc not found"
        raise ToolchainError(msg, hint="install the CUDA toolkit (nvcc) or set CUDA_HOME")
    cubin = workdir / f"{source.stem}.{arch.name}.cubin"
    common = [
        *(f"-I{d}" for d in include_dirs),
        *(f"-D{d}" for d in defines),
        *flags,
    ]
    argv = [str(nvcc.nvcc), "-cubin", f"-arch={arch.name}", "-O3", "-Xptxas", "-v", *common]
    argv += ["-o", str(cubin), str(source)]
    done = run(argv, cwd=workdir)
    code, output = done.returncode, done.output
    if code != 0 or not cubin.is_file():
        msg = f"{name}: nvcc failed for {arch.name}: {first_error(output, workdir)}"
        raise InputError(msg, hint="the CUDA source must compile with nvcc for this target")
    resources = parse_ptxas(output)
    notes: list[str] = []
    disasm = nvidia_disassembler()
    tool = f"nvcc {nvcc.version}"
    kind = "sass"
    if disasm is not None and disasm[0] == "nvdisasm":
        listed = run([disasm[1], "-c", cubin])
        code, text = listed.returncode, listed.output
        listings = split_nvdisasm(text) if code == 0 else {}
        tool += f" + nvdisasm {tool_version(str(disasm[1]))}"
    elif disasm is not None:
        listed = run([disasm[1], "-sass", cubin])
        code, text = listed.returncode, listed.output
        listings = split_cuobjdump(text) if code == 0 else {}
        tool += f" + cuobjdump {tool_version(str(disasm[1]))}"
    else:
        code = 1
        listings = {}
    if code != 0:
        ptx = workdir / f"{source.stem}.{arch.name}.ptx"
        made = run(
            [nvcc.nvcc, "-ptx", f"-arch={arch.name}", "-O3", *common, "-o", ptx, source],
            cwd=workdir,
        )
        if not made.ok or not ptx.is_file():
            msg = f"{name}: nvcc -ptx failed for {arch.name}: {first_error(made.output, workdir)}"
            raise InputError(msg)
        listings = split_ptx(ptx.read_text(errors="replace"))
        kind = "ptx"
        why = "no SASS disassembler found" if disasm is None else f"{disasm[0]} failed"
        notes.append(f"{why}: listings are PTX, not SASS ({DISASM_HINT})")
    result = TargetAsm(
        target=arch.name,
        vendor="nvidia",
        kind=kind,
        tool=tool,
        command=shlex.join(argv).replace(str(workdir) + "/", ""),
        notes=notes,
    )
    parse = sass_mnemonic if kind == "sass" else ptx_mnemonic
    for kernel, res in resources.items():
        text = listings.get(kernel, "")
        pairs = [p for ln in text.splitlines() if (p := parse(ln)) is not None]
        res.instructions = count_classes(pairs, kind)
        res.total = len(pairs)
        result.kernels[kernel] = KernelAsm(kernel, text, res)
    return result
