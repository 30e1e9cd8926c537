"""The fixture programs under tests/fixtures/programs and their header directives."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from cass_build import Settings, translate_file
from cass_build.settings import installed_hip_version

from .fixture_header import directives

ROOT = Path(__file__).parent / "fixtures"
PROGRAMS = ROOT / "programs"
GOLDEN = ROOT / "golden"
#: Goldens are pinned to Debian's HIP so they do not depend on the machine, and to
#: --warp native, whose rewrites and warnings they record (test_warp_mode.py has cuda's).
GOLDEN_SETTINGS = Settings(hip_version=(5, 2), warp="native")
ARCHS = ("gfx90a", "gfx1030")

_HEADERS = {
    "hipsparse": "hipsparse/hipsparse.h",
    "hiprand": "hiprand/hiprand.h",
    "hipblas": "hipblas/hipblas.h",
    "hipfft": "hipfft/hipfft.h",
    "hipsolver": "hipsolver/hipsolver.h",
    "hipcub": "hipcub/hipcub.hpp",
    "rocthrust": "thrust/system/hip/config.h",
    "rccl": "rccl/rccl.h",
    "miopen": "miopen/miopen.h",
}


@dataclass
class Fixture:
    path: Path
    directives: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def headers(self) -> list[Path]:
        return sorted(PROGRAMS.glob(f"{self.name.split('_')[0]}_*.cuh"))

    def missing_requirement(self) -> str | None:
        """Why this fixture cannot be compiled for AMD here, or None."""
        if reason := self.directives.get("NO-AMD-COMPILE"):
            return f"not expected to compile for AMD: {reason}"
        for need in self.directives.get("REQUIRES", "").split():
            if need.startswith("hip-"):
                want = tuple(int(x) for x in need[4:].split("."))
                have = installed_hip_version() or (0, 0)
                if have < want:
                    return f"needs HIP {need[4:]}, installed {have[0]}.{have[1]}"
                continue
            header = _HEADERS.get(need)
            roots = (Path("/usr/include"), Path("/opt/rocm/include"))
            if header is None or not any((r / header).exists() for r in roots):
                return f"{need} headers are not installable on this machine"
        return None


def load_fixtures() -> list[Fixture]:
    return [Fixture(path, directives(path)) for path in sorted(PROGRAMS.glob("*.cu"))]


def golden_pair(path: Path) -> tuple[str, str]:
    """The golden translation and diagnostics text of one program or header."""
    t = translate_file(path, options=GOLDEN_SETTINGS)
    diags = "".join(f"{d}\n".replace(str(path), path.name) for d in t.diagnostics)
    return t.text, diags


def hipcc() -> str | None:
    found = shutil.which("hipcc")
    if found is None and Path("/opt/rocm/bin/hipcc").exists():
        found = "/opt/rocm/bin/hipcc"
    return found


def hip_env() -> dict[str, str]:
    return dict(os.environ, HIP_PLATFORM="amd")
