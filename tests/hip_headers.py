"""Identifiers declared by the installed HIP headers, found by the real hipcc.

The headers are preprocessed for the AMD platform with ``-dD`` so macros stay
visible; every identifier in the output counts as declared.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from cass_build import include_dir

_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# String and character literals: a name inside static_assert("...") text is not a declaration.
_LITERAL = re.compile(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


def hipcc() -> str | None:
    return shutil.which("hipcc") or (
        "/opt/rocm/bin/hipcc" if Path("/opt/rocm/bin/hipcc").exists() else None
    )


def header_available(header: str) -> bool:
    # CASS's own headers (<cass/fp16.h>) declare the names some rows emit for old HIP.
    roots = [Path("/usr/include"), Path("/opt/rocm/include"), Path(include_dir())]
    return any((root / header).exists() for root in roots)


def declared_identifiers(headers: list[str], workdir: Path) -> set[str]:
    """Preprocess ``headers`` with hipcc and return every identifier seen."""
    compiler = hipcc()
    if compiler is None:
        msg = "hipcc not found"
        raise RuntimeError(msg)
    src = workdir / "headers.hip"
    src.write_text("".join(f"#include <{h}>\n" for h in headers))
    out = workdir / "headers.i"
    env = dict(os.environ, HIP_PLATFORM="amd")
    flags = ["-E", "-dD", "-x", "hip", "--offload-arch=gfx90a", "-I", include_dir()]
    subprocess.run(
        [compiler, *flags, str(src), "-o", str(out)],
        check=True,
        env=env,
        capture_output=True,
    )
    text = _LITERAL.sub(b" ", out.read_bytes())
    return {m.decode() for m in _WORD.findall(text)}


def compiler_builtins(names: set[str], workdir: Path) -> set[str]:
    """Which of ``names`` hipcc's clang knows as builtins (``__has_builtin``), for the
    AMD device pass: names such as ``__hip_atomic_load`` that no header declares."""
    compiler = hipcc()
    if compiler is None:
        msg = "hipcc not found"
        raise RuntimeError(msg)
    ordered = sorted(n for n in names if _WORD.fullmatch(n.encode()))
    src = workdir / "builtins.hip"
    src.write_text("".join(f"#if __has_builtin({n})\ncass_builtin_{n}\n#endif\n" for n in ordered))
    env = dict(os.environ, HIP_PLATFORM="amd")
    out = subprocess.run(
        [
            compiler,
            "-E",
            "-x",
            "hip",
            "--offload-arch=gfx90a",
            "--cuda-device-only",
            "-nogpuinc",
            str(src),
        ],
        check=True,
        env=env,
        capture_output=True,
    ).stdout
    return {n for n in ordered if f"cass_builtin_{n}".encode() in out}
