// Generated from cass_build/data/diagnostics/ids.toml by
// `python -m cass_build.rules.diag_table --write`; do not edit by hand.
// tests/test_diag_table.py fails when this file and the table disagree.
#pragma once

namespace cass::detail {

// The ids the core reports, in the table's order; docs/diagnostics.md describes each.
enum class DiagId {
    UnsupportedApi,
    UnknownApi,
    HipVersion,
    DeviceOnly,
    DeprecatedApi,
    BehaviorDiffers,
    SignatureRewrite,
    WarpMask,
    WarpMask32,
    WarpLaneArith,
    WarpCount,
    HostWarpCount,
    WarpSizeLiteral,
    LaneMaskWidth,
    BallotWidth,
    Lane0Broadcast,
    ShflWidth,
    ShflOffset,
    WarpsizeConstant,
    InlinePtx,
    InlinePtxTranslated,
    TextureReference,
    LaunchSyntax,
    MalformedCall,
    CudaArch,
    CudaVersion,
    MacroShadowsHip,
    TruncatedInput,
};

// Without the "cass-" prefix, as Diagnostic::rule holds it.
constexpr const char* diag_name(DiagId id) {
    switch (id) {
        case DiagId::UnsupportedApi:
            return "unsupported-api";
        case DiagId::UnknownApi:
            return "unknown-api";
        case DiagId::HipVersion:
            return "hip-version";
        case DiagId::DeviceOnly:
            return "device-only";
        case DiagId::DeprecatedApi:
            return "deprecated-api";
        case DiagId::BehaviorDiffers:
            return "behavior-differs";
        case DiagId::SignatureRewrite:
            return "signature-rewrite";
        case DiagId::WarpMask:
            return "warp-mask";
        case DiagId::WarpMask32:
            return "warp-mask32";
        case DiagId::WarpLaneArith:
            return "warp-lane-arith";
        case DiagId::WarpCount:
            return "warp-count";
        case DiagId::HostWarpCount:
            return "host-warp-count";
        case DiagId::WarpSizeLiteral:
            return "warp-size-literal";
        case DiagId::LaneMaskWidth:
            return "lane-mask-width";
        case DiagId::BallotWidth:
            return "ballot-width";
        case DiagId::Lane0Broadcast:
            return "lane0-broadcast";
        case DiagId::ShflWidth:
            return "shfl-width";
        case DiagId::ShflOffset:
            return "shfl-offset";
        case DiagId::WarpsizeConstant:
            return "warpsize-constant";
        case DiagId::InlinePtx:
            return "inline-ptx";
        case DiagId::InlinePtxTranslated:
            return "inline-ptx-translated";
        case DiagId::TextureReference:
            return "texture-reference";
        case DiagId::LaunchSyntax:
            return "launch-syntax";
        case DiagId::MalformedCall:
            return "malformed-call";
        case DiagId::CudaArch:
            return "cuda-arch";
        case DiagId::CudaVersion:
            return "cuda-version";
        case DiagId::MacroShadowsHip:
            return "macro-shadows-hip";
        case DiagId::TruncatedInput:
            return "truncated-input";
    }
    return "";
}

// The messages of the ids whose every report says the same thing.
inline constexpr const char* kWarpsizeConstantMessage =
    "HIP's warpSize is not a compile-time constant; use a template parameter or "
    "__AMDGCN_WAVEFRONT_SIZE";

}  // namespace cass::detail
