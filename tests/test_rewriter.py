"""The rule translator on small inputs: each rewrite and each hazard, exactly."""

from __future__ import annotations

import pytest

from cass_build import Settings, translate

# Native warp operations: these tests pin each rewrite and hazard of --warp native
# (test_warp_mode.py has --warp cuda).
OLD = Settings(hip_version=(5, 2), warp="native")
NEW = Settings(hip_version=(7, 1), warp="native")


def hip(source: str, settings: Settings = OLD) -> str:
    return translate(source, options=settings).text


def rules(source: str, settings: Settings = OLD) -> list[str]:
    return [d.rule for d in translate(source, options=settings).diagnostics]


def test_identifiers_are_renamed_but_comments_and_strings_are_not() -> None:
    rest = '// cudaMalloc\nputs("cudaMalloc"); /* cudaFree */ auto r = R"(cudaFree)";\n'
    assert hip("cudaMalloc(&p, n); " + rest) == "hipMalloc(&p, n); " + rest


def test_members_are_not_api_names() -> None:
    assert hip("s.cudaMalloc(); p->cudaFree();") == "s.cudaMalloc(); p->cudaFree();"


def test_includes_are_mapped_and_deduplicated_keeping_lines() -> None:
    src = "#include <cuda_runtime.h>\n#include <cuda.h>\n#include <cuda_runtime_api.h>\nint x;\n"
    out = hip(src)
    assert out == "#include <hip/hip_runtime.h>\n\n#include <hip/hip_runtime_api.h>\nint x;\n"


def test_includes_in_different_branches_are_kept() -> None:
    src = "#ifdef A\n#include <cuda.h>\n#else\n#include <cuda_runtime.h>\n#endif\n"
    assert hip(src).count("#include <hip/hip_runtime.h>") == 2


def test_include_guard_region_still_deduplicates() -> None:
    src = "#ifndef H\n#define H\n#include <cuda_runtime.h>\n#include <cuda.h>\n#endif\n"
    assert hip(src).count("hip/hip_runtime.h") == 1


@pytest.mark.parametrize("mask", ["0xffffffff", "0xFFFFFFFFu", "~0u", "-1", "FULL"])
def test_full_masks_are_dropped_for_old_hip(mask: str) -> None:
    src = f"#define FULL 0xffffffff\nv = __shfl_down_sync({mask}, v, 1);\n"
    assert hip(src).endswith("v = __shfl_down(v, 1);\n")
    assert "cass-warp-mask" not in rules(src)


def test_partial_mask_is_dropped_with_a_warning_for_old_hip() -> None:
    src = "v = __shfl_xor_sync(m, v, 1);"
    assert hip(src) == "v = __shfl_xor(v, 1);"
    assert "cass-warp-mask" in rules(src)


def test_masks_are_widened_for_new_hip() -> None:
    assert hip("v = __shfl_sync(0xffffffff, v, 0);", NEW) == (
        "v = __shfl_sync(0xffffffffffffffffull, v, 0);"
    )
    assert (
        hip("b = __any_sync(m, p);", NEW)
        == "b = __any_sync(static_cast<unsigned long long>(m), p);"
    )


def test_activemask_becomes_a_ballot_on_old_hip() -> None:
    assert hip("unsigned long long a = __activemask();") == "unsigned long long a = __ballot(1);"


def test_cuda13_prefetch_takes_a_device_id() -> None:
    src = "cudaMemPrefetchAsync(p, n, cudaMemLocation{cudaMemLocationTypeDevice, dev}, 0, s);"
    assert hip(src) == "hipMemPrefetchAsync(p, n, dev, s);"
    src = "cudaMemLocation loc{}; cudaMemPrefetchAsync(p, n, loc, 0, s);"
    assert hip(src).endswith("hipMemPrefetchAsync(p, n, loc.id, s);")
    assert hip("cudaMemPrefetchAsync(p, n, dev, s);") == "hipMemPrefetchAsync(p, n, dev, s);"


def test_symbols_are_wrapped_once() -> None:
    out = hip("cudaMemcpyToSymbol(kScale, &x, 4);")
    assert out == "hipMemcpyToSymbol(HIP_SYMBOL(kScale), &x, 4);"
    assert hip(out) == out


def test_cuda_arch_idioms() -> None:
    assert hip("#ifdef __CUDA_ARCH__\n#endif\n") == "#ifdef __HIP_DEVICE_COMPILE__\n#endif\n"
    assert hip("#if defined(__CUDA_ARCH__)\n").startswith("#if defined(__HIP_DEVICE_COMPILE__)")
    assert hip("#if __CUDA_ARCH__ >= 600\n") == (
        "#if (defined(__HIP_DEVICE_COMPILE__) ? 700 : 0) >= 600\n"
    )
    assert "cass-cuda-arch" in rules("int a = __CUDA_ARCH__;")


def test_cudart_version_takes_the_assumed_release() -> None:
    assert hip("#if CUDART_VERSION >= 13000\n") == "#if 12080 >= 13000\n"
    assert hip("#ifdef CUDART_VERSION\n") == "#ifdef __HIPCC__\n"
    assert hip("#if CUDART_VERSION >= 13000\n", Settings(cuda_version=13000)) == (
        "#if 13000 >= 13000\n"
    )


def test_ggl_launches() -> None:
    ggl = Settings(hip_version=(5, 2), launch_syntax="ggl")
    assert hip("k<<<g, b>>>(x, y);", ggl) == "hipLaunchKernelGGL(k, g, b, 0, 0, x, y);"
    assert hip("k<<<g, b, sh, st>>>();", ggl) == "hipLaunchKernelGGL(k, g, b, sh, st);"
    assert hip("ns::k<float, V<2>><<<1, 64>>>(p);", ggl) == (
        "hipLaunchKernelGGL((ns::k<float, V<2>>), 1, 64, 0, 0, p);"
    )
    assert hip("k<<<1, 1>>>(p);") == "k<<<1, 1>>>(p);"


def test_unknown_cuda_names_are_reported_not_passed_silently() -> None:
    assert "cass-unknown-api" in rules("cudaNotARealFunction(1);")
    # A name the user declares is theirs.
    assert "cass-unknown-api" not in rules("void cudaCheck(int e); cudaCheck(1);")


def test_a_quoted_header_the_tables_lack_is_the_projects_own() -> None:
    # Real projects name their helpers so ("cuda_utils.cuh", "cuda_helpers.hpp"): such a
    # header is translated with the file, and --werror must not fail on it.
    for name in ("cuda_utils.cuh", "common/cuda_helpers.hpp", "cudnn_wrappers.h"):
        assert "cass-unknown-api" not in rules(f'#include "{name}"\n'), name
    # A system header of a CUDA library the tables do not know is still reported.
    assert "cass-unknown-api" in rules("#include <cuda_not_a_library.h>\n")
    assert "cass-unknown-api" in rules("#include <cudnn_not_a_header.h>\n")


def test_untranslatable_ptx_is_an_error_and_translated_ptx_a_note() -> None:
    t = translate(
        'asm volatile("tex.1d.v4.f32.s32 {%0,%1,%2,%3}, [%4, {%5}];" : "=f"(a), "=f"(b),'
        ' "=f"(c), "=f"(d) : "l"(t), "r"(i));',
        options=OLD,
    )
    assert [(d.severity, d.rule) for d in t.diagnostics] == [("error", "cass-inline-ptx")]
    t = translate('asm volatile("mov.u32 %0, %%laneid;" : "=r"(x));', options=OLD)
    assert [(d.severity, d.rule) for d in t.diagnostics] == [("note", "cass-inline-ptx-translated")]


@pytest.mark.parametrize(
    ("source", "rule"),
    [
        ("int lane = threadIdx.x & 31;", "cass-warp-lane-arith"),
        ("int warp = threadIdx.x / 32;", "cass-warp-lane-arith"),
        ("int w = tid >> 5;", "cass-warp-lane-arith"),
        ("constexpr int kWarpSize = 32;", "cass-warp-size-literal"),
        ("#define WARP_SIZE 32\n", "cass-warp-size-literal"),
        ("unsigned int b = __ballot_sync(0xffffffff, p);", "cass-ballot-width"),
        ("int n = __popc(__ballot_sync(0xffffffff, p));", "cass-ballot-width"),
        ("v += __shfl_down_sync(0xffffffff, v, 1, 32);", "cass-shfl-width"),
        (
            "for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);",
            "cass-shfl-offset",
        ),
        ("__shared__ float s[warpSize];", "cass-warpsize-constant"),
        (
            "__global__ void k(int* o) { o[threadIdx.x / 32] = __shfl_sync(0xffffffff, 1, 0); }\n"
            "int main() { const int perBlock = 256 / 32; k<<<1000 / perBlock, 256>>>(0); }",
            "cass-host-warp-count",
        ),
        ("void f(int n) { int warps = n / 32; k<<<warps, 256>>>(); }", "cass-host-warp-count"),
        ("if (mask == 0xffffffff) {}", "cass-warp-mask32"),
        ("unsigned m = 1u << lane;", "cass-lane-mask-width"),
        ("texture<float, 1, cudaReadModeElementType> t;", "cass-texture-reference"),
        ("/* open", "cass-truncated-input"),
        ("void f() {", "cass-truncated-input"),
    ],
)
def test_hazards(source: str, rule: str) -> None:
    assert rule in rules(source)


@pytest.mark.parametrize(
    "source",
    [
        "int x = a & 31;",  # no lane in sight
        "for (int i = 0; i < 32; ++i) sum += a[i];",
        "if (lane < warpSize) {}",
        "unsigned long long b = __ballot_sync(0xffffffff, p);",
        "uint32_t h = seed ^ 0xffffffff;",
        # 32x32 tiles for a kernel the file does not show to work per warp.
        "void f(int n) { dim3 g((n + 31) / 32, n / 32); k<<<g, dim3(32, 8)>>>(); }",
        "__global__ void k(int* o) { o[0] = __shfl_sync(0xffffffff, 1, 0); }\n"
        'void f(int n) { printf("%d", n / 32); k<<<(n + 255) / 256, 256, 256 / 32>>>(0); }',
    ],
)
def test_no_false_alarms(source: str) -> None:
    hazards = {
        "cass-host-warp-count",
        "cass-warp-lane-arith",
        "cass-warpsize-constant",
        "cass-ballot-width",
        "cass-warp-mask32",
        "cass-shfl-offset",
    }
    assert hazards.isdisjoint(rules(source, NEW))


def test_host_warp_count_is_reported_with_either_launch_syntax() -> None:
    src = (
        "__global__ void k(int* o) { o[threadIdx.x % 32] = 1; }\n"
        "void run(int* o, int rows) {\n  int grid = rows * 32 / 256;\n  k<<<grid, 256>>>(o);\n}\n"
    )
    for syntax in ("chevrons", "ggl"):
        t = translate(src, path="k.cu", options=Settings(launch_syntax=syntax, warp="native"))
        (d,) = [d for d in t.diagnostics if d.rule == "cass-host-warp-count"]
        assert (d.line, d.column, d.severity) == (3, 21, "warning")
        assert str(d).startswith("k.cu:3:21: warning: '* 32' sizes the launch of 'k' for 32-lane")
        assert "int grid = rows * 32 / 256;" in t.text  # host code is not rewritten


def test_diagnostic_positions() -> None:
    t = translate("int a;\n  int lane = threadIdx.x & 31;\n", path="k.cu", options=OLD)
    (d,) = t.diagnostics
    assert (d.line, d.column) == (2, 28)
    assert str(d).startswith("k.cu:2:28: warning: '& 31' assumes 32-lane warps")


def test_stats_count_families() -> None:
    t = translate("cudaMalloc(&p, 4); __syncthreads(); cudaNotReal();", options=OLD)
    assert t.stats.families["runtime"].converted == 1
    assert t.stats.families["runtime"].unconverted == 1
    assert t.stats.families["device"].converted == 1


def test_inactive_branches_of_known_conditions_are_quiet() -> None:
    src = (
        "#if CUDART_VERSION < 13000\nx = cudaOld();\n#else\ny = cudaNew();\n#endif\n"
        "#if defined(X)\nz = cudaMaybe();\n#elif 1\n#else\nw = cudaNever();\n#endif\n"
    )
    lines = {
        d.line for d in translate(src, options=OLD).diagnostics if d.rule == "cass-unknown-api"
    }
    assert lines == {2, 7}
    newer = Settings(hip_version=(5, 2), cuda_version=13000)
    lines = {
        d.line for d in translate(src, options=newer).diagnostics if d.rule == "cass-unknown-api"
    }
    assert lines == {4, 7}


def test_location_variables_are_read_from_their_initializer() -> None:
    src = (
        "cudaMemLocation host{cudaMemLocationTypeHost, 0};\n"
        "cudaMemPrefetchAsync(p, n, host, 0, s);\n"
    )
    assert hip(src).splitlines()[1] == "hipMemPrefetchAsync(p, n, hipCpuDeviceId, s);"


def test_struct_members_follow_the_target() -> None:
    src = "cudaPointerAttributes a; cudaPointerGetAttributes(&a, p); int t = a.type;"
    assert hip(src).endswith("int t = a.memoryType;")
    assert hip(src, NEW).endswith("int t = a.type;")
    assert (
        hip("struct S { int type; } s; int t = s.type;")
        == "struct S { int type; } s; int t = s.type;"
    )


def test_value_returning_surface_reads_become_out_parameter_calls() -> None:
    out = hip("int v = surf2Dread<int>(s, x * 4, y);")
    lambda_ = "[&] { int cass_texel_; surf2Dread(&cass_texel_, s, x * 4, y); return cass_texel_; }"
    assert out == f"int v = {lambda_}();"
    assert hip(out) == out


def test_graph_instantiate_short_form() -> None:
    assert hip("cudaGraphInstantiate(&e, g, 0);") == "hipGraphInstantiateWithFlags(&e, g, 0);"
    assert hip("cudaGraphInstantiate(&e, g);") == "hipGraphInstantiateWithFlags(&e, g, 0);"


def test_upper_case_calls_are_project_macros() -> None:
    # Defined in a header CASS does not see: a macro, not an unknown cuBLAS API.
    assert "cass-unknown-api" not in rules("CUBLAS_CHECK(cublasCreate(&h));")
    assert "cass-unknown-api" in rules("int s = CUBLAS_STATUS_NOT_A_THING;")


def test_version_number_does_not_swallow_a_following_quote() -> None:
    # Found by Hypothesis: "12080'x" would lex as one number the second time.
    once = hip("CUDART_VERSION'cudaMemcpy(cudaMalloc")
    assert hip(once) == once


@pytest.mark.parametrize("gap", [65534, 65535, 70000, 140000])
def test_far_previous_tokens_read_like_near_ones(gap: int) -> None:
    # A token records its previous significant token as a 16-bit distance; 65535
    # line breaks or comments or more between two are looked up elsewhere.
    def source(n: int) -> str:
        return (
            "__global__ void k(int* x) {}\nvoid f(int* x) {\n  k"
            + "\n" * n
            + "<<<1, 32>>>(x);\n  int y = 1;"
            + "//\n" * n
            + "y = __shfl_down_sync(0xffffffff, y, 16);\n}\n"
        )

    ggl = Settings(launch_syntax="ggl", warp="native")
    near = hip(source(1), ggl)
    assert "hipLaunchKernelGGL(k," in near and "__shfl_down(" in near
    far = near.replace("\n1, 32", "\n" * gap + "1, 32", 1).replace("//\n", "//\n" * gap, 1)
    assert hip(source(gap), ggl) == far
    assert rules(source(gap), ggl) == rules(source(1), ggl)


def test_a_macro_named_like_a_written_hip_name_is_renamed_only_where_written() -> None:
    # `min` is what umin() translates to: the file's own min macro is renamed
    # only when the file writes umin, and each of many such macros asks the same.
    defines = "".join(f"#define min{k}(a) (a)\n" for k in range(50))
    macro = "#define min(a, b) ((a) < (b) ? (a) : (b))\n"
    use = "__device__ int f(int a, int b) { return min(a, b) + umin(a, b); }\n"
    out = hip(defines + macro + use)
    assert "#define cass_min(a, b)" in out
    assert "return cass_min(a, b) + min(a, b);" in out
    assert "cass-macro-shadows-hip" in rules(defines + macro + use)
    plain = "__device__ int f(int a, int b) { return min(a, b); }\n"
    assert hip(defines + macro + plain) == defines + macro + plain
