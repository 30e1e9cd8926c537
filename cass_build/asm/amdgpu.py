"""AMD: compile translated HIP for one gfx target and read back its ISA and resources.

Two back ends, chosen per target (``backend="auto"``):

- **clang**: ``hipcc --cuda-device-only -S`` when the installed clang knows the target
  and the toolchain ships its device library (Debian's clang 15: gfx90a, gfx1030).
- **llvm**: the installed clang writes device bitcode (``-emit-llvm -nogpulib``, no
  optimization) and llvmlite's LLVM 22 links the device libraries, optimizes and lowers
  it (``_lower.py``). Targets an older clang does not know are compiled by the front
  end for a stand-in of the same family and wave size (gfx942 and gfx950 as gfx940,
  gfx1200 and gfx1201 as gfx1100), with the target's own predefined macros.

Both print the same code object metadata, which is where the figures come from.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .._proc import first_error, run
from ..errors import InputError, ToolchainError
from ..pipeline.toolchain import HipToolchain, find_hip, install_hint
from ._tools import hip_clang_version, llvmlite_version
from .resources import AmdResources, KernelAsm, TargetAsm, count_classes
from .targets import AmdArch

__all__ = ["LLVMLITE_HINT", "amd_asm", "backend_for", "parse_metadata", "split_kernels"]

LLVMLITE_HINT = "pip install 'cass-build[asm]'  (llvmlite: LLVM 22 with the AMDGPU back end)"

_ITEM = re.compile(r"^  - (\.[\w]+):\s*(.*)$")
_KEY = re.compile(r"^    (\.[\w]+):\s*(.*)$")
_INSN = re.compile(r"^\s+([a-z][a-z0-9_]*)\b\s*(.*)$")
_LABEL = re.compile(r"^([.\w$]+):")


def _value(text: str) -> int | bool | str:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text, 0)
    except ValueError:
        return text


def parse_metadata(asm: str) -> dict[str, dict[str, int | bool | str]]:
    """The scalar fields of each kernel in the ``amdhsa.kernels`` metadata, by name."""
    start = asm.find("amdhsa.kernels:")
    if start < 0:
        return {}
    end = asm.find(".end_amdgpu_metadata", start)
    found: list[dict[str, int | bool | str]] = []
    for line in asm[start:end].splitlines()[1:]:
        if line and not line.startswith(" "):
            break  # the next top-level key: amdhsa.target, amdhsa.version
        if m := _ITEM.match(line):
            found.append({})
            found[-1][m.group(1)] = _value(m.group(2))
        elif (m := _KEY.match(line)) and found and m.group(2):
            found[-1][m.group(1)] = _value(m.group(2))
    return {str(k[".name"]): k for k in found if ".name" in k}


def split_kernels(asm: str, kernels: Sequence[str]) -> tuple[dict[str, str], dict[str, int]]:
    """Each kernel's instructions and labels, comments and directives dropped; and the
    occupancy the compiler printed for it (``; Occupancy: N``, verbose assembly only)."""
    wanted = set(kernels)
    bodies: dict[str, list[str]] = {}
    occupancy: dict[str, int] = {}
    current: str | None = None
    last: str | None = None
    for line in asm.splitlines():
        if (m := _LABEL.match(line)) and m.group(1) in wanted:
            current = last = m.group(1)
            bodies[current] = []
            continue
        if line.startswith("; Occupancy:") and last is not None:
            occupancy[last] = int(line.split(":", 1)[1])
            continue
        if current is None:
            continue
        if line.startswith((".Lfunc_end", "\t.section", "\t.amdhsa_kernel")):
            current = None
            continue
        if m := _LABEL.match(line):
            bodies[current].append(m.group(0))
        elif line.strip() in (";;#ASMSTART", ";;#ASMEND"):
            # Inline assembly is copied, not compiled: keep the markers around it.
            bodies[current].append("  " + line.strip())
        elif (m := _INSN.match(line)) and not line.lstrip().startswith((";", ".")):
            code = re.sub(r"\s+;.*$", "", line.strip())
            bodies[current].append("  " + " ".join(code.split(None, 1)))
    return {k: "\n".join(v) + "\n" for k, v in bodies.items()}, occupancy


def _pairs(text: str) -> tuple[list[tuple[str, str]], int]:
    """The (mnemonic, operands) of each instruction, and how many came from inline asm."""
    out = []
    inline = False
    inline_count = 0
    for line in text.splitlines():
        if line.strip() in (";;#ASMSTART", ";;#ASMEND"):
            inline = line.strip() == ";;#ASMSTART"
        elif line.startswith("  "):
            mnemonic, _, operands = line.strip().partition(" ")
            out.append((mnemonic, operands))
            inline_count += inline
    return out, inline_count


def _resources(meta: dict[str, int | bool | str], text: str, occ: int | None) -> AmdResources:
    def num(key: str) -> int:
        value = meta.get(key, 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    pairs, inline = _pairs(text)
    return AmdResources(
        vgprs=num(".vgpr_count"),
        sgprs=num(".sgpr_count"),
        agprs=num(".agpr_count"),
        lds=num(".group_segment_fixed_size"),
        scratch=num(".private_segment_fixed_size"),
        vgpr_spills=num(".vgpr_spill_count"),
        sgpr_spills=num(".sgpr_spill_count"),
        wave=num(".wavefront_size") or 64,
        max_flat_workgroup_size=num(".max_flat_workgroup_size") or 1024,
        dynamic_stack=meta.get(".uses_dynamic_stack") is True,
        compiler_occupancy=occ,
        inline_asm=inline,
        instructions=count_classes(pairs, "amdgpu"),
        total=len(pairs),
    )


def _has_device_lib(toolchain: HipToolchain, arch: AmdArch) -> bool:
    d = toolchain.device_lib_dir
    return d is not None and (d / f"oclc_isa_version_{arch.lib_suffix}.bc").is_file()


def backend_for(arch: AmdArch, toolchain: HipToolchain, backend: str = "auto") -> str:
    """``clang`` where the installed clang and device library cover ``arch``, else ``llvm``."""
    native = hip_clang_version(toolchain)[0] >= arch.clang_major
    if backend != "auto":
        return backend
    return "clang" if native and _has_device_lib(toolchain, arch) else "llvm"


def _macros(arch: AmdArch, front: str) -> list[str]:
    """Flags that make a stand-in front-end target predefine ``arch``'s macros."""
    if front == arch.name:
        return []
    out = [f"-U__{front}__", f"-D__{arch.name}__=1"]
    for macro in ("__amdgcn_processor__", "__amdgcn_target_id__"):
        out += [f"-U{macro}", f'-D{macro}="{arch.name}"']
    for macro, value in arch.macros:
        out.append(f"-D{macro}={value}" if value else f"-U{macro}")
    return out


@dataclass(frozen=True)
class _Job:
    """What both back ends share for one source and target."""

    source: Path
    arch: AmdArch
    workdir: Path
    toolchain: HipToolchain
    common: list[str]
    name: Path
    """The source as the user named it (``shown``): messages point there."""

    @property
    def out(self) -> Path:
        return self.workdir / f"{self.source.stem}.{self.arch.name}.s"

    def error(self, output: str) -> str:
        """The first compiler error, at the user's file: the translation keeps every line
        where it was, so the HIP position is the CUDA one."""
        found = first_error(output, self.workdir)
        names = [str(self.source)]
        if self.source.is_relative_to(self.workdir):
            names.append(str(self.source.relative_to(self.workdir)))
        for text in names:
            pattern = re.escape(text) + r"((?::\d+)*)"
            found = re.sub(pattern, lambda m: f"{self.name}{m.group(1)} (in its HIP)", found)
        return found


def _clang_backend(job: _Job, clang: tuple[int, int, int]) -> tuple[list[str], str]:
    """hipcc writes the ISA itself; returns the command and the tool's description."""
    arch, toolchain, clang_text = job.arch, job.toolchain, ".".join(map(str, clang))
    if clang[0] < arch.clang_major:
        msg = (f"{job.name}: cannot produce {arch.name} with clang {clang_text} "
               f"(it needs clang {arch.clang_major} or later)")  # fmt: skip
        raise ToolchainError(msg, hint="use the llvm back end: --amd-backend llvm")
    if not _has_device_lib(toolchain, arch):
        msg = f"{job.name}: cannot produce {arch.name}: no device library for it"
        raise ToolchainError(msg, hint="use the llvm back end: --amd-backend llvm")
    argv = [str(toolchain.hipcc), "--cuda-device-only", "-S", f"--offload-arch={arch.name}"]
    argv += [*job.common, "-x", "hip", str(job.source), "-o", str(job.out)]
    done = run(argv, env=toolchain.env(), cwd=job.workdir)
    if not done.ok or not job.out.is_file():
        msg = f"{job.name}: hipcc failed for {arch.name}: {job.error(done.output)}"
        raise InputError(msg, hint="the translated HIP must compile for this target")
    return argv, f"hipcc {toolchain.version_text} (clang {clang_text})"


def _llvm_backend(
    job: _Job, clang: tuple[int, int, int], notes: list[str]
) -> tuple[list[str], str]:
    """clang's front end (for the target, or a stand-in it knows) writes bitcode, and
    llvmlite's LLVM lowers it in a child process; notes say what stood in for what."""
    arch, toolchain, clang_text = job.arch, job.toolchain, ".".join(map(str, clang))
    versions = llvmlite_version()
    if versions is None:
        msg = f"{job.name}: cannot produce {arch.name}: it needs llvmlite, which is not installed"
        raise ToolchainError(msg, hint=LLVMLITE_HINT)
    front = arch.name if clang[0] >= arch.clang_major else arch.proxy
    bitcode = job.workdir / f"{job.source.stem}.{arch.name}.bc"
    argv = [str(toolchain.hipcc), "--cuda-device-only", "-emit-llvm", "-c"]
    argv += [f"--offload-arch={front}", "-nogpulib", "-Xclang", "-disable-llvm-passes"]
    argv += [*_macros(arch, front), *job.common, "-x", "hip", str(job.source), "-o", str(bitcode)]
    done = run(argv, env=toolchain.env(), cwd=job.workdir)
    if not done.ok or not bitcode.is_file():
        msg = f"{job.name}: clang {clang_text} failed for {arch.name}: "
        raise InputError(msg + job.error(done.output))
    libdir = toolchain.device_lib_dir
    lower = [sys.executable, "-m", "cass_build.asm._lower", "--cpu", arch.name]
    lower += ["--wave", str(arch.wave), "--isa", str(arch.isa_version)]
    lower += [*(["--libdir", str(libdir)] if libdir else []), str(bitcode), str(job.out)]
    done = run(lower, cwd=job.workdir)
    if not done.ok or not job.out.is_file():
        why = re.sub(r"^(LLVM ERROR|error):\s*", "", first_error(done.output, job.workdir))
        why = why.removeprefix(f"LLVM could not lower to {arch.name}: ")
        why = why.replace("<unknown>:0:0: ", "")
        msg = f"{job.name}: LLVM {versions[1]} cannot lower it for {arch.name}: {why}"
        raise InputError(msg, hint="often an instruction or intrinsic this target lacks")
    if front != arch.name:
        notes.append(
            f"front end compiled for {front} (clang {clang[0]} predates {arch.name}) with "
            f"{arch.name}'s macros; LLVM {versions[1]} generated the {arch.name} code"
        )
    if libdir is None:
        notes.append("no device library found: calls into ocml/ockl are left unresolved")
    tool = f"clang {clang_text} front end ({front}) + LLVM {versions[1]} (llvmlite {versions[0]})"
    return argv, tool


def _kernels(job: _Job, argv: list[str], tool: str, notes: list[str]) -> TargetAsm:
    """The written ISA cut into kernels, with each one's resources."""
    asm = job.out.read_text(errors="replace")
    meta = parse_metadata(asm)
    texts, occupancy = split_kernels(asm, list(meta))
    result = TargetAsm(
        target=job.arch.name,
        vendor="amd",
        kind="amdgpu",
        tool=tool,
        command=shlex.join(["HIP_PLATFORM=amd", *argv]).replace(str(job.workdir) + "/", ""),
        notes=notes,
    )
    for kernel, fields in meta.items():
        text = texts.get(kernel, "")
        result.kernels[kernel] = KernelAsm(
            kernel, text, _resources(fields, text, occupancy.get(kernel))
        )
    return result


def amd_asm(
    source: Path,
    arch: AmdArch,
    workdir: Path,
    *,
    backend: str = "auto",
    include_dirs: Sequence[Path] = (),
    defines: Sequence[str] = (),
    flags: Sequence[str] = (),
    shown: Path | None = None,
) -> TargetAsm:
    """The ISA and code object figures of every kernel in the HIP file ``source``."""
    name = shown or source
    toolchain = find_hip()
    if toolchain is None:
        msg = f"{name}: cannot produce {arch.name}: no HIP toolchain found (hipcc)"
        raise ToolchainError(msg, hint=install_hint())
    common = [
        "-O3",
        *toolchain.compile_flags(),
        *(f"-I{d}" for d in include_dirs),
        *(f"-D{d}" for d in defines),
        *flags,
    ]
    job = _Job(source, arch, workdir, toolchain, common, name)
    clang = hip_clang_version(toolchain)
    notes: list[str] = []
    if backend_for(arch, toolchain, backend) == "clang":
        argv, tool = _clang_backend(job, clang)
    else:
        argv, tool = _llvm_backend(job, clang, notes)
    return _kernels(job, argv, tool, notes)
