"""The CASS headers for operations older HIP lacks (<cass/fp16.h>, <cass/bf16.h>,
<cass/runtime.h>): a translation that names one of their operations includes it."""

from __future__ import annotations

from cass_build.rules import warp_include


def test_each_compat_prefix_includes_its_header() -> None:
    out = warp_include(b"__cass_bf16_pair p;\nint r = __cass_rt_hipLaunchHostFunc(s, f, d);\n")
    assert out.startswith(b"#include <cass/bf16.h>\n#include <cass/runtime.h>\n#line 1\n")
    assert b"cass/warp.h" not in out  # compat names are not logical-warp names
    assert warp_include(out) == out


def test_warp_and_compat_headers_together() -> None:
    out = warp_include(b"__half2 m = __cass_fp16_hmax2(a, b);\nint l = __cass_lane_id();\n")
    assert out.startswith(b"#include <cass/warp.h>\n#include <cass/fp16.h>\n#line 1\n")


def test_a_header_already_included_is_not_repeated() -> None:
    src = b'#include "cass/fp16.h"\n__half h = __cass_fp16_hmax(a, b);\n'
    assert warp_include(src) == src
