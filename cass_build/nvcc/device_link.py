"""``nvcc -dlink``: link the relocatable device code of a target into one object.

CMake runs this step when a target's host link is not the CUDA driver's, for example an
executable linked by the C++ compiler because a static library it uses holds `.cpp`
files. That object must then carry the linked device code, since nothing after it will
link device code. The HIP compiler plans such a link itself (unbundle each object's
device part, link it per target with lld, bundle the code objects) as part of a host
link; here the plan is asked of it with ``-###``, every device step is run, and the
bundle is wrapped in an object that defines ``__hip_fatbin``, the symbol each ``-fgpu-rdc``
object registers with the runtime. The host link is left to the build.
"""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .._files import write_atomic
from .._proc import first_error, run
from ..errors import ToolFailedError

DLINK_MARK = b"cass-device-link-object"
"""In an object this step wrote: its target's device code is linked already."""

_DEVICE_TOOLS = ("clang-offload-bundler", "lld", "ld.lld")


def has_mark(paths: Sequence[Path], mark: bytes) -> bool:
    """Whether any object or archive among ``paths`` holds ``mark``."""
    for path in paths:
        if path.suffix not in (".o", ".a", ".obj", ".lo"):
            continue
        try:
            if mark in path.read_bytes():
                return True
        except OSError:
            continue
    return False


def rdc_objects(inputs: Sequence[Path], rdc_mark: bytes, scratch: Path) -> list[Path]:
    """The inputs' objects with device code to link, archives' members included (a
    device link takes every relocatable member, as hipcc does, not only those a host
    symbol pulls in)."""
    found: list[Path] = []
    for n, path in enumerate(inputs):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if rdc_mark not in data:
            continue
        if path.suffix != ".a":
            found.append(path)
            continue
        into = scratch / f"ar{n}"
        into.mkdir()
        ar = shutil.which("ar") or "ar"
        done = run([ar, "x", str(path.resolve())], cwd=into, timeout=300)
        if not done.ok:
            msg = f"{path}: ar could not extract it: {first_error(done.output)}"
            raise ToolFailedError(msg)
        found += sorted(p for p in into.iterdir() if rdc_mark in p.read_bytes())
    return found


def _jobs(text: str) -> list[list[str]]:
    """The commands of a ``-###`` listing: its lines that start with a quoted program."""
    return [shlex.split(line) for line in text.splitlines() if line.startswith(' "')]


def _wrapper_source(bundle: str, align: int) -> str:
    return "\n".join(
        [
            "# the device code of one target, linked by cass nvcc -dlink",
            '  .section .cass_device_link,"",@progbits',
            f'  .asciz "{DLINK_MARK.decode()}"',
            "  .protected __hip_fatbin",
            "  .type __hip_fatbin,@object",
            '  .section .hip_fatbin,"a",@progbits',
            "  .globl __hip_fatbin",
            f"  .p2align {align.bit_length() - 1}",
            "__hip_fatbin:",
            '  .incbin "{}"'.format(bundle.replace("\\", "\\\\").replace('"', '\\"')),
            # Without it GNU ld takes the object to need an executable stack, warns
            # ("missing .note.GNU-stack section implies executable stack") and marks the
            # program's stack executable (PT_GNU_STACK RWE), as a compiler's object never is.
            '  .section .note.GNU-stack,"",@progbits',
            "",
        ]
    )


def device_link(link: list[str], env: dict[str, str], output: Path, show: bool, dry: bool) -> None:
    """Run the device half of the HIP link ``link`` (a clang command line whose inputs
    are the relocatable objects) and write its ``__hip_fatbin`` object to ``output``."""
    with tempfile.TemporaryDirectory(prefix="cass-dlink-") as name:
        # Its temporary file names land in the scratch directory.
        env = {**env, "TMPDIR": name, "TMP": name, "TEMP": name}
        listing = run([*link, "-###"], env=env, timeout=300)
        if not listing.ok:
            msg = f"{link[0]}: could not plan the device link: {first_error(listing.output)}"
            raise ToolFailedError(msg)
        jobs = _jobs(listing.output)
        assembler = next((j for j in jobs if Path(j[0]).name.startswith("llvm-mc")), None)
        bundles = [a[len("-output=") :] for j in jobs for a in j if a.endswith(".hipfb")]
        if assembler is None or len(bundles) != 1:
            msg = f"{link[0]}: its link plan has no fat binary step (-### printed {len(jobs)})"
            raise ToolFailedError(msg, hint="report it with the output of the command and -###")
        device = [j for j in jobs if Path(j[0]).name.startswith(_DEVICE_TOOLS)]
        source = next(a for a in assembler if a.endswith(".mcin"))
        obj = assembler[assembler.index("-o") + 1]
        align = next(
            (int(a.split("=", 1)[1]) for j in device for a in j if a.startswith("-bundle-align=")),
            4096,
        )
        for job in [*device, assembler]:
            if show:
                print("#$ " + shlex.join(job), file=sys.stderr)
            if dry:
                continue
            if job is assembler:
                Path(source).write_text(_wrapper_source(bundles[0], align))
            done = run(job, env=env, timeout=None)
            if not done.ok:
                sys.stderr.write(done.output)
                msg = f"{job[0]}: the device link failed: {first_error(done.output)}"
                raise ToolFailedError(msg)
        if not dry:
            write_atomic(output, Path(obj).read_bytes())
