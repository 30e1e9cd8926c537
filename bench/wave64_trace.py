"""Make a traced build of the wave64 selftest: how the emulation took its decisions.

The translated ``selftest.hip`` (from ``bench/wave64.py --translate-only DIR``) prints only
its first 12 wrong lane results and keeps nothing of the protocol's state. This writes a
copy that prints every wrong lane result and, when built with ``-DCASS_WAVE64_TRACE=N``,
calls the layer's ``cass_wave64::trace_init()`` before the first launch and
``trace_dump()`` after each (the trace lives in mapped host memory, so it survives the
emulation's trap). ``$TRACE_OUT`` names the file the trace is appended to.

    python bench/wave64_trace.py build/wave64_inputs/hip-7.1/selftest.hip build/w64dbg
    nvcc -std=c++17 -arch=sm_90 -DCASS_WAVE=64 -maxrregcount=64 \\
        -DCASS_WAVE64_TRACE=4000000 -I "$(python -m cass_build.runcheck.hip_on_cuda)" \\
        -x cu build/w64dbg/selftest_trace.hip -o build/w64dbg/traced
    TRACE_OUT=trace.txt build/w64dbg/traced
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_SYNC = "    CHECK(hipDeviceSynchronize());"
_DUMP = """#ifdef CASS_WAVE64_TRACE
    {
      hipError_t sync_ = hipDeviceSynchronize();
      char label[64];
      snprintf(label, sizeof label, "%ux%u", shape.x, shape.y);
      cass_wave64::trace_dump(getenv("TRACE_OUT"), label);
      CHECK(sync_);
    }
#else
    CHECK(hipDeviceSynchronize());
#endif"""


def traced(source: str) -> str:
    """The selftest with every wrong lane printed and the trace dumped after each launch."""
    for needle in (_SYNC, "failures++ < 12", "int main() {", "#include <vector>"):
        if source.count(needle) != 1:
            raise ValueError(f"expected exactly one {needle!r} in the translated selftest")
    source = source.replace("failures++ < 12", "failures++ < 1000000")
    source = source.replace(_SYNC, _DUMP)
    init = "\n#ifdef CASS_WAVE64_TRACE\n  cass_wave64::trace_init();\n#endif"
    source = source.replace("int main() {", "int main() {" + init)
    return source.replace("#include <vector>", "#include <vector>\n#include <cstdlib>")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("selftest", type=Path, help="the translated selftest.hip")
    parser.add_argument("out", type=Path, help="directory for selftest_trace.hip")
    args = parser.parse_args(argv)
    try:
        text = traced(args.selftest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        print(f"{args.selftest}: error: {err}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "selftest_trace.hip"
    target.write_text(text, encoding="utf-8")
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
