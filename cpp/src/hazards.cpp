// Scanners for code that compiles on AMD but computes something else: CUDA's
// 32-lane warp baked into masks, lane arithmetic and loop bounds, plus inline
// PTX and texture references, which do not carry over at all.
#include <string>

#include "rewriter_impl.hpp"

namespace cass::detail {

void Rewriter::scan_loops() {
    for (const int i : scan_.fors) {
        const int open = next_sig(i);
        if (!is_punct(open, "(") || match(open) < 0) continue;
        const int close = match(open);
        bool literal = false;
        for (int k = open + 1; k < close; ++k) {
            if (toks_[k].kind == TokenKind::Number) {
                const long long v = literal_value(text(k));
                literal = literal || v == 16 || v == 32;
            }
        }
        const int body = next_sig(close);
        if (body < 0) continue;
        int end = body;
        if (is_punct(body, "{") && match(body) > body) {
            end = match(body);
        } else {
            while (end + 1 < ntok_ && !is_punct(end, ";")) ++end;
        }
        loops_.push_back(Loop{open, body, end, literal, false});
    }
}

void Rewriter::hazard_number(int i) {
    if (in_directive(i)) {
        // #define WARP_SIZE 32
        const int name = prev_sig(i);
        if (name >= 0 && name == define_name_ && literal_value(text(i)) == 32 && lanes(name)) {
            diag(i, Severity::Warning, "warp-size-literal",
                 "'" + std::string(text(name)) +
                     "' fixes the warp size at 32; AMD wavefronts have 64 lanes (use warpSize)");
        }
        return;
    }
    const long long v = literal_value(text(i));
    if (v != 31 && v != 32 && v != 5 && v != 0xffffffffLL) return;
    const int op = prev_sig(i);
    if (op < 0) return;
    const std::string_view o = text(op);
    if (v == 0xffffffffLL) {
        const int begin = statement_begin(i);
        for (int k = begin; k < i; ++k) {
            if (toks_[k].kind != TokenKind::Identifier) continue;
            const std::string_view w = text(k);
            if (w.find("ballot") != std::string_view::npos || w == "__activemask" ||
                w.find("mask") != std::string_view::npos ||
                w.find("Mask") != std::string_view::npos) {
                diag(i, Severity::Warning, "warp-mask32",
                     "'" + std::string(text(i)) +
                         "' is a full mask only for 32 lanes; a 64-lane wavefront's is "
                         "0xffffffffffffffff");
                return;
            }
        }
        return;
    }
    if (o == "=" && v == 32) {
        // constexpr int kWarpSize = 32;
        const int name = prev_sig(op);
        if (is_ident(name) && lanes(name)) {
            diag(i, Severity::Warning, "warp-size-literal",
                 "'" + std::string(text(name)) +
                     "' fixes the warp size at 32; AMD wavefronts have 64 lanes (use warpSize)");
        }
        return;
    }
    const bool lane_op = (v == 31 && (o == "&" || o == "&=")) ||
                         (v == 32 && (o == "%" || o == "/" || o == "%=" || o == "/=")) ||
                         (v == 5 && (o == ">>" || o == ">>="));
    if (!lane_op) return;
    for (int k = statement_begin(op); k < op; ++k) {
        if (is_ident(k) && lanes(k)) {
            diag(i, Severity::Warning, "warp-lane-arith",
                 "'" + std::string(o) + " " + std::string(text(i)) +
                     "' assumes 32-lane warps; AMD wavefronts have 64 lanes (use warpSize)");
            return;
        }
    }
}

void Rewriter::hazard_shift(int i) {
    // 1u << lane: a 32-bit mask cannot hold lanes 32-63.
    const int one = prev_sig(i);
    const int lane = next_sig(i);
    if (one < 0 || toks_[one].kind != TokenKind::Number || !is_ident(lane)) return;
    const std::string_view t = text(one);
    if ((t == "1" || t == "1u" || t == "1U") && is_ident(lane) && lanes(lane)) {
        diag(one, Severity::Warning, "lane-mask-width",
             "'" + std::string(t) + " << " + std::string(text(lane)) +
                 "' overflows for lanes 32-63 of a 64-lane wavefront; use 1ull");
    }
}

void Rewriter::hazard_asm(int i) {
    int k = next_sig(i);
    while (is_ident(k) && (text(k) == "volatile" || text(k) == "__volatile__" ||
                           text(k) == "goto" || text(k) == "inline")) {
        k = next_sig(k);
    }
    if (!is_punct(k, "(")) return;
    diag(i, Severity::Error, "inline-ptx",
         "inline PTX assembly has no meaning on AMD GPUs; rewrite it with HIP intrinsics");
    if (runtime_ >= 0) count(runtime_, false);
}

void Rewriter::hazard_shuffle(int i, const std::vector<Arg>& args, bool has_mask) {
    const std::string_view w = text(i);
    // Explicit width: 4th argument of the _sync forms, 3rd of the legacy ones.
    const std::size_t width_index = has_mask ? 3 : 2;
    if (w.find("shfl") != std::string_view::npos && args.size() > width_index) {
        const Arg a = args[width_index];
        if (a.first == a.last && literal_value(text(a.first)) == 32) {
            diag(a.first, Severity::Warning, "shfl-width",
                 "width 32 splits a 64-lane wavefront into two independent halves");
        }
    }
    if (w.find("shfl_down") == std::string_view::npos &&
        w.find("shfl_xor") == std::string_view::npos &&
        w.find("shfl_up") == std::string_view::npos) {
        return;
    }
    for (Loop& loop : loops_) {
        if (loop.reported || !loop.literal_lanes || i < loop.body_begin || i > loop.body_end) {
            continue;
        }
        loop.reported = true;
        diag(loop.header_open, Severity::Warning, "shfl-offset",
             "this shuffle loop covers 32 lanes; on a 64-lane wavefront lanes 32-63 are left out "
             "(bound it by warpSize)");
    }
}

void Rewriter::hazard_ballot(int i) {
    int p = prev_sig(i);
    if (is_punct(p, "(")) {
        const int fn = prev_sig(p);
        if (is_ident(fn)) {
            const std::string_view f = text(fn);
            if (f == "__popc" || f == "__ffs" || f == "__clz" || f == "__brev") {
                diag(i, Severity::Warning, "ballot-width",
                     "'" + std::string(f) + "' reads 32 bits of a 64-bit ballot; use '" +
                         std::string(f) + "ll'");
            }
        }
        return;
    }
    if (!is_punct(p, "=")) return;
    p = prev_sig(p);
    if (!is_ident(p)) return;
    bool narrow = false;
    for (int k = statement_begin(p); k < p; ++k) {
        if (!is_ident(k)) continue;
        const std::string_view w = text(k);
        if (w == "long" || w == "uint64_t" || w == "auto" || w == "size_t" || w == "lanemask_t") {
            return;
        }
        narrow = narrow || w == "unsigned" || w == "int" || w == "uint32_t" || w == "uint";
    }
    if (narrow) {
        diag(i, Severity::Warning, "ballot-width",
             "a 64-lane ballot is stored in 32 bits: lanes 32-63 are lost (use uint64_t)");
    }
}

void Rewriter::hazard_warp_size(int i) {
    const int p = prev_sig(i);
    const int n = next_sig(i);
    bool constant = false;
    if (is_punct(p, "[")) {
        for (int k = statement_begin(p); k < p && !constant; ++k) {
            constant = is_ident(k) && (text(k) == "__shared__" || text(k) == "constexpr");
        }
    }
    if (is_punct(p, "<") && is_ident(prev_sig(p)) && (is_punct(n, ">") || is_punct(n, ","))) {
        constant = true;  // a template argument
    }
    const int begin = statement_begin(i);
    if (is_ident(begin) &&
        (text(begin) == "constexpr" || text(begin) == "static_assert" || text(begin) == "case")) {
        constant = true;
    }
    if (in_directive(i)) constant = true;
    if (constant) {
        diag(i, Severity::Warning, "warpsize-constant",
             "HIP's warpSize is not a compile-time constant; use a template parameter or "
             "__AMDGCN_WAVEFRONT_SIZE");
    }
}

void Rewriter::hazard_texture(int i) {
    if (!is_punct(next_sig(i), "<")) return;
    diag(i, Severity::Warning, "texture-reference",
         std::string(text(i)) +
             " references are deprecated in HIP and removed in CUDA 12; use texture objects");
}

}  // namespace cass::detail
