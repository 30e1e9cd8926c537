"""Lower AMDGPU device bitcode to ISA with llvmlite (LLVM 22): ``python -m cass_build.asm._lower``.

It runs in a child process because LLVM reports some errors (an instruction the target
lacks, malformed inline assembly) by exiting the process: the parent turns the exit
into a one-line error instead of dying with it.

Steps, mirroring what a HIP compile does after its front end:

1. read the front end's bitcode (clang 15 writes it; LLVM 22 reads older bitcode);
2. link the device libraries (hip, ocml, ockl) where the toolchain has them, plus the
   ``__oclc_*`` control constants, written here so that no per-target library file is
   needed (``__oclc_ISA_version`` is what ``oclc_isa_version_<gfx>.bc`` would hold);
3. internalize everything but the kernels (clang's ``-amdgpu-internalize-symbols``);
4. through textual IR, drop every ``target-cpu``/``target-features`` attribute, so each
   function takes the target machine's processor (the front end may have compiled for a
   stand-in of the same family), and ask for code object v5 to match the libraries'
   ``__oclc_ABI_version`` of 500;
5. run LLVM's O3 pipeline for the target machine and print the assembly.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

__all__ = ["lower", "main"]

_LIBS = ("hip", "ocml", "ockl")
_KERNEL = re.compile(r'^define\s[^@]*\bamdgpu_kernel\b[^@]*@("[^"]+"|[\w.$]+)\(', re.MULTILINE)
_TARGET_ATTR = re.compile(r' "target-(?:cpu|features)"="[^"]*"')
_FLAGS = re.compile(r"^!llvm\.module\.flags = !\{(.*)\}$", re.MULTILINE)
_META = re.compile(r"^!(\d+) = ", re.MULTILINE)


def _controls(wave: int, isa: int) -> str:
    consts = [
        ("__oclc_finite_only_opt", "i8", 0),
        ("__oclc_unsafe_math_opt", "i8", 0),
        ("__oclc_daz_opt", "i8", 0),
        ("__oclc_correctly_rounded_sqrt32", "i8", 1),
        ("__oclc_wavefrontsize64", "i8", 1 if wave == 64 else 0),
        ("__oclc_ISA_version", "i32", isa),
        ("__oclc_ABI_version", "i32", 500),
    ]
    return "".join(
        f"@{n} = linkonce_odr hidden local_unnamed_addr addrspace(4) constant {t} {v}\n"
        for n, t, v in consts
    )


def _with_code_object_v5(text: str) -> str:
    ids = [int(m) for m in _META.findall(text)]
    new = max(ids, default=-1) + 1
    node = f'!{new} = !{{i32 1, !"amdgpu_code_object_version", i32 500}}\n'
    if m := _FLAGS.search(text):
        inner = f"{m.group(1)}, !{new}" if m.group(1).strip() else f"!{new}"
        text = text[: m.start()] + f"!llvm.module.flags = !{{{inner}}}" + text[m.end() :]
        return text + node
    return text + f"!llvm.module.flags = !{{!{new}}}\n" + node


def lower(bitcode: bytes, *, cpu: str, wave: int, isa: int, libdir: Path | None) -> str:
    """AMDGPU assembly for ``cpu`` from front-end bitcode."""
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_bitcode(bitcode)
    kernels = {name.strip('"') for name in _KERNEL.findall(str(module))}
    from_libs: set[str] = set()
    libs: list[Any] = []
    for lib in _LIBS if libdir is not None else ():
        assert libdir is not None
        path = next((p for p in (libdir / f"{lib}.bc", libdir / f"{lib}.amdgcn.bc") if p.is_file()),
                    None)  # fmt: skip
        if path is not None:
            libs.append(llvm.parse_bitcode(path.read_bytes()))
    libs.append(llvm.parse_assembly(_controls(wave, isa)))
    for lib in libs:
        from_libs |= {f.name for f in lib.functions if not f.is_declaration}
        from_libs |= {g.name for g in lib.global_variables if not g.is_declaration}
        module.link_in(lib)
    for fn in module.functions:
        if not fn.is_declaration and fn.name not in kernels:
            fn.linkage = "internal"
    for gv in module.global_variables:
        if gv.name in from_libs and not gv.is_declaration:
            gv.linkage = "internal"
    text = _with_code_object_v5(_TARGET_ATTR.sub("", str(module)))
    module = llvm.parse_assembly(text)
    target = llvm.Target.from_triple("amdgcn-amd-amdhsa")
    machine = target.create_target_machine(cpu=cpu, features="", opt=3, reloc="pic")
    module.triple = "amdgcn-amd-amdhsa"
    module.data_layout = str(machine.target_data)
    module.verify()
    builder = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=3))
    builder.getModulePassManager().run(module, builder)
    return str(machine.emit_assembly(module))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cass_build.asm._lower")
    parser.add_argument("--cpu", required=True)
    parser.add_argument("--wave", type=int, required=True)
    parser.add_argument("--isa", type=int, required=True)
    parser.add_argument("--libdir", type=Path)
    parser.add_argument("bitcode", type=Path)
    parser.add_argument("output", type=Path)
    args = parser.parse_args(argv)
    try:
        asm = lower(
            args.bitcode.read_bytes(), cpu=args.cpu, wave=args.wave, isa=args.isa,
            libdir=args.libdir,
        )  # fmt: skip
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"error: LLVM could not lower to {args.cpu}: {first}", file=sys.stderr)
        return 1
    args.output.write_text(asm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
