// Scanners for code that compiles on AMD but computes something else: CUDA's
// 32-lane warp baked into masks, lane arithmetic and loop bounds, plus inline
// PTX and texture references, which do not carry over at all.
#include <algorithm>
#include <string>
#include <vector>

#include "rewriter_impl.hpp"

namespace cass::detail {

namespace {

// WARP_SIZE, kWarpSz, kLaneWidth, WARP_THREADS: a name for the number of lanes,
// not for one warp or lane.
bool names_a_size(std::string_view w) {
    std::string l(w);
    for (char& c : l) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
    for (const std::string_view word : {"size", "sz", "width", "lanes", "threads"}) {
        if (l.find(word) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

void Rewriter::scan_loops() {
    std::vector<int> open_loops;
    for (const int i : scan_.fors) {
        const int open = next_code(i);
        if (!is_punct(open, "(") || match(open) < 0) continue;
        const int close = match(open);
        bool literal = false;
        for (int k = open + 1; k < close; ++k) {
            if (toks_[k].kind == TokenKind::Number) {
                const long long v = literal_value(text(k));
                literal = literal || v == 16 || v == 32;
            }
        }
        const int body = next_code(close);
        if (body < 0) continue;
        int end = body;
        if (is_punct(body, "{") && match(body) > body) {
            end = match(body);
        } else {
            // The first ';' from the body on; loops come in order, so this rarely rescans.
            if (body < semi_from_ || body > semi_at_) {
                semi_at_ = body;
                while (semi_at_ + 1 < ntok_ && !is_punct(semi_at_, ";")) ++semi_at_;
            }
            semi_from_ = body;
            end = semi_at_;
        }
        Loop loop{open, body, end, literal, false};
        // Loops nest: the innermost one still open holds this one, which ends
        // where it ends at the latest (only unbalanced input would cross them).
        while (!open_loops.empty() &&
               loops_[static_cast<std::size_t>(open_loops.back())].body_end < loop.header_open) {
            open_loops.pop_back();
        }
        if (!open_loops.empty()) {
            loop.parent = open_loops.back();
            loop.body_end =
                std::min(loop.body_end, loops_[static_cast<std::size_t>(loop.parent)].body_end);
        }
        open_loops.push_back(static_cast<int>(loops_.size()));
        loops_.push_back(loop);
    }
}

namespace {

// What a 32-lane assumption's note adds in --warp cuda.
constexpr std::string_view kLogicalWarpsNote =
    ": right as written, since CASS runs CUDA code as 32-lane logical warps (--warp cuda)";

}  // namespace

void Rewriter::hazard_number(int i) {
    if (in_directive(i)) {
        // #define WARP_SIZE 32
        const int name = prev_code(i);
        if (name >= 0 && name == define_name_ && literal_value(text(i)) == 32 && lanes(name)) {
            warp_hazard_then(i, DiagId::WarpSizeLiteral,
                             "'" + std::string(text(name)) + "' fixes the warp size at 32",
                             "; AMD wavefronts have 64 lanes (use warpSize)");
        }
        return;
    }
    const long long v = literal_value(text(i));
    if (v != 31 && v != 32 && v != 5 && v != 0xffffffffLL) return;
    const int op = prev_code(i);
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
                warp_hazard(i, DiagId::WarpMask32,
                            "'" + std::string(text(i)) +
                                "' is a full mask only for 32 lanes; a 64-lane wavefront's is "
                                "0xffffffffffffffff",
                            "'" + std::string(text(i)) + "' is a full mask of 32 lanes");
                return;
            }
        }
        return;
    }
    if (o == "=" && v == 32) {
        // constexpr int kWarpSize = 32; but not `int warp = 32;`, a variable that
        // is then set to the device's value, nor `lane = 32`.
        const int name = prev_code(op);
        if (!is_ident(name) || !lanes(name)) return;
        bool constant = names_a_size(text(name));
        for (int k = statement_begin(op); k < name && !constant; ++k) {
            constant = is_ident(k) && (text(k) == "const" || text(k) == "constexpr");
        }
        if (constant) {
            warp_hazard_then(i, DiagId::WarpSizeLiteral,
                             "'" + std::string(text(name)) + "' fixes the warp size at 32",
                             "; AMD wavefronts have 64 lanes (use warpSize)");
        }
        return;
    }
    const bool lane_op = (v == 31 && (o == "&" || o == "&=")) ||
                         (v == 32 && (o == "%" || o == "/" || o == "%=" || o == "/=")) ||
                         (v == 5 && (o == ">>" || o == ">>="));
    if (!lane_op) return;
    if (v == 32 && o == "/" && rewrite_warp_count(i, op)) return;
    if (!lane_statement(op)) return;
    if (rewrite_lane_arith(i, op, v)) return;
    std::string what = "'";
    what.append(o).append(" ").append(text(i)).append("' assumes 32-lane warps");
    warp_hazard_then(i, DiagId::WarpLaneArith, std::move(what),
                     "; AMD wavefronts have 64 lanes (use warpSize)");
}

void Rewriter::warp_hazard(int i, DiagId rule, std::string native, const std::string& what) {
    if (!o_.logical_warps) {
        diag(i, Severity::Warning, rule, std::move(native));
        return;
    }
    diag(i, Severity::Note, rule, std::string(what).append(kLogicalWarpsNote));
}

void Rewriter::warp_hazard_then(int i, DiagId rule, std::string what,
                                std::string_view native_rest) {
    if (!o_.logical_warps) {
        diag(i, Severity::Warning, rule, std::move(what.append(native_rest)));
        return;
    }
    diag(i, Severity::Note, rule, std::move(what.append(kLogicalWarpsNote)));
}

// Whether the statement holding operator `op` is about lanes or warps.
// A name of a lane or warp index; warpSize is the size of one (`x / warpSize / 32`
// divides a count of waves), and it may be one this translation wrote for a 32, which
// the next pass must read as this one read the literal.
bool Rewriter::lane_index(int k) { return is_ident(k) && lanes(k) && !has_flag(k, kSymWarpSize); }

bool Rewriter::lane_statement(int op) {
    for (int k = statement_begin(op); k < op; ++k) {
        if (lane_index(k)) return true;
    }
    return false;
}

namespace {

// C++ precedence of a binary operator (smaller binds tighter), 0 for anything else.
int binary_prec(std::string_view p) {
    static constexpr std::pair<std::string_view, int> kOps[] = {
        {"*", 5},   {"/", 5},  {"%", 5},  {"+", 6},  {"-", 6},   {"<<", 7},
        {">>", 7},  {"<", 9},  {">", 9},  {"<=", 9}, {">=", 9},  {"==", 10},
        {"!=", 10}, {"&", 11}, {"^", 12}, {"|", 13}, {"&&", 14}, {"||", 15}};
    for (const auto& [name, prec] : kOps) {
        if (name == p) return prec;
    }
    return 0;
}

bool is_assignment(std::string_view p) {
    return p == "=" || p == "+=" || p == "-=" || p == "*=" || p == "/=" || p == "%=" || p == "&=" ||
           p == "|=" || p == "^=" || p == "<<=" || p == ">>=";
}

bool is_separator(std::string_view p) {
    return p == "(" || p == "[" || p == "{" || p == "}" || p == ";" || p == "," || p == "?" ||
           p == ":" || p == ")" || p == "]";
}

}  // namespace

// The first token of the operand that ends at `last`: a name or member chain
// (threadIdx.x, p->lane) or a parenthesised expression; -1 for anything else
// (a call, a subscript, a cast), which CASS does not rewrite.
int Rewriter::operand_start(int last) const {
    if (is_punct(last, ")")) {
        const int open = match(last);
        if (open < 0) return -1;
        const int before = prev_code(open);
        if (is_ident(before) || is_punct(before, ")") || is_punct(before, "]")) return -1;
        return open;
    }
    if (!is_ident(last)) return -1;
    int k = last;
    while (is_punct(prev_code(k), ".") || is_punct(prev_code(k), "->")) {
        const int object = prev_code(prev_code(k));
        if (!is_ident(object)) return -1;
        k = object;
    }
    return k;
}

// Whether the operand right after token `before` is the whole left operand of
// an operator of precedence `op_prec`, and stays so under a tighter one.
bool Rewriter::binds_alone(int before, int op_prec) const {
    if (before < 0) return true;
    const std::string_view p = text(before);
    if (is_ident(before)) return p == "return" || p == "case";
    if (toks_[before].kind != TokenKind::Punct) return false;
    if (p == ")" || p == "]") return false;  // a cast, or a call's result
    if (is_separator(p) || is_assignment(p)) return true;
    const int prec = binary_prec(p);
    if (prec == 0) return false;  // ! ~ . ->: unary, binds tighter
    if (p == "&" || p == "*" || p == "+" || p == "-") {
        const int left = prev_code(before);
        const bool binary =
            left >= 0 &&
            (toks_[left].kind == TokenKind::Number || is_punct(left, ")") || is_punct(left, "]") ||
             (is_ident(left) && text(left) != "return" && text(left) != "case"));
        if (!binary) return false;
    }
    return prec > op_prec;
}

// Whether the literal right before token `after` ends the right operand of an
// operator of precedence `op_prec` (what follows binds no tighter).
bool Rewriter::ends_operand(int after, int op_prec) const {
    if (after < 0) return true;
    if (toks_[after].kind != TokenKind::Punct) return false;
    const std::string_view p = text(after);
    if (p == ")" || p == "]" || p == "}" || p == ";" || p == "," || p == "?" || p == ":") {
        return true;
    }
    const int prec = binary_prec(p);
    return prec != 0 && prec >= op_prec;
}

// threadIdx.x & 31 -> threadIdx.x % warpSize; lane / 32 -> lane / warpSize;
// tid >> 5 -> tid / warpSize. Only when the operand names a lane or thread index
// and the new operator groups exactly as the old one did.
bool Rewriter::rewrite_lane_arith(int i, int op, long long v) {
    if (dead_ || !fn_lanes(i).warp) return false;
    const std::string_view o = text(op);
    const int first = operand_start(prev_code(op));
    if (first < 0) return false;
    bool names_lanes = false;
    for (int k = first; k < op && !names_lanes; ++k) names_lanes = lane_index(k);
    if (!names_lanes) return false;
    const std::string was = std::string(o) + " " + std::string(text(i));
    std::string_view now;
    if (v == 32 && (o == "%" || o == "/" || o == "%=" || o == "/=")) {
        rename(i, i, "warpSize");  // same operator: same grouping
        now = o == "%"    ? "% warpSize"
              : o == "/"  ? "/ warpSize"
              : o == "%=" ? "%= warpSize"
                          : "/= warpSize";
    } else if (o == "&=" || o == ">>=") {
        rename(op, op, o == "&=" ? "%=" : "/=");
        rename(i, i, "warpSize");
        now = o == "&=" ? "%= warpSize" : "/= warpSize";
    } else {
        const int prec = binary_prec(o);  // & or >>
        if (!binds_alone(prev_code(first), prec) || !ends_operand(next_code(i), prec)) return false;
        rename(op, op, o == "&" ? "%" : "/");
        rename(i, i, "warpSize");
        now = o == "&" ? "% warpSize" : "/ warpSize";
    }
    diag(i, Severity::Note, DiagId::WarpLaneArith,
         "'" + was + "' assumes 32-lane warps; rewritten as '" + std::string(now) +
             "' (the same in 32-lane warps, right in 64-lane wavefronts)");
    return true;
}

// blockDim.x / 32, the number of warps in a block -> (blockDim.x + warpSize - 1) /
// warpSize, which also counts a partial last wave, as AMD runs one.
bool Rewriter::rewrite_warp_count(int i, int op) {
    const int x = prev_code(op);
    const int dot = prev_code(x);
    const int dim = prev_code(dot);
    if (!is_ident(x) || text(x) != "x" || !is_punct(dot, ".") || !is_ident(dim) ||
        text(dim) != "blockDim") {
        return false;
    }
    if (dead_) return true;
    if (!fn_lanes(i).warp || !binds_alone(prev_code(dim), 5)) {
        warp_hazard(i, DiagId::WarpCount,
                    "'blockDim.x / 32' counts 32-lane warps; a block has half as many 64-lane "
                    "wavefronts. Write '(blockDim.x + warpSize - 1) / warpSize' (CASS rewrites "
                    "it only in functions that name warpSize, outside a product)",
                    "'blockDim.x / 32' counts 32-lane warps");
        return true;
    }
    insert_stable(toks_[dim].begin, "(");
    insert_stable(toks_[x].end, " + warpSize - 1)");
    rename(i, i, "warpSize");
    diag(i, Severity::Note, DiagId::WarpCount,
         "'blockDim.x / 32' counts 32-lane warps; rewritten as '(blockDim.x + warpSize - 1) / "
         "warpSize', the number of wavefronts (a partial last one included)");
    return true;
}

// The outermost function body holding token i, as its '{', or -1.
int Rewriter::function_body(int i) {
    if (!bodies_known_) {
        bodies_known_ = true;
        for (int k = 0; k < ntok_; ++k) {
            if (!is_punct(k, "{") || match(k) <= k || !is_punct(prev_code(k), ")")) continue;
            bodies_.emplace_back(k, match(k));
            k = match(k);  // inner blocks are not functions of their own
        }
    }
    // Bodies are in order and do not nest: the last one opening before i, if it holds i.
    const auto after =
        std::upper_bound(bodies_.begin(), bodies_.end(), i,
                         [](int v, const std::pair<int, int>& b) { return v <= b.first; });
    if (after == bodies_.begin()) return -1;
    const auto& [open, close] = *(after - 1);
    return open < i && i < close ? open : -1;
}

// A function that names warpSize already means "the lanes of one wave" by it, so
// a literal 32 next to it is a slip, and CASS makes the rest agree with warpSize.
// A function that never names it may group threads by 32 on purpose (and such
// code still computes CUDA's answer on a 64-lane wave when its shuffles keep to
// 32-lane halves): there CASS rewrites nothing but reports.
FnLanes Rewriter::fn_lanes(int i) {
    // --warp cuda keeps 32-lane code as it is: it is right on logical warps.
    const int body = o_.hazard_fixes && !o_.logical_warps ? function_body(i) : -1;
    if (body < 0) return FnLanes{};
    const auto found = fn_lanes_.find(body);
    if (found != fn_lanes_.end()) return found->second;
    FnLanes f;
    for (int k = body + 1; k < match(body); ++k) {
        if (has_flag(k, kSymWarpSize)) f.warp = true;
        if (toks_[k].kind != TokenKind::Number) continue;
        const long long v = literal_value(text(k));
        const int op = prev_code(k);
        const bool grouping = (v == 32 && (is_punct(op, "%") || is_punct(op, "/"))) ||
                              (v == 31 && is_punct(op, "&")) || (v == 5 && is_punct(op, ">>"));
        if (!grouping) continue;
        f.team32 = true;
    }
    // Loops are in order of their headers: those of this body are one run of them.
    auto loop = std::upper_bound(loops_.begin(), loops_.end(), body,
                                 [](int v, const Loop& l) { return v < l.header_open; });
    for (; loop != loops_.end() && loop->header_open < match(body) && !f.team32; ++loop) {
        f.team32 = loop->literal_lanes;
    }
    fn_lanes_.emplace(body, f);
    return f;
}

void Rewriter::hazard_shift(int i) {
    // 1u << lane: a 32-bit mask cannot hold lanes 32-63.
    const int one = prev_code(i);
    const int lane = next_code(i);
    if (one < 0 || toks_[one].kind != TokenKind::Number || !is_ident(lane)) return;
    const std::string_view t = text(one);
    if ((t == "1" || t == "1u" || t == "1U") && is_ident(lane) && lanes(lane)) {
        const std::string what = "'" + std::string(t) + " << " + std::string(text(lane)) + "'";
        warp_hazard(one, DiagId::LaneMaskWidth,
                    what + " overflows for lanes 32-63 of a 64-lane wavefront; use 1ull",
                    what + " is a 32-lane mask");
    }
}

void Rewriter::hazard_asm(int i) {
    int k = next_code(i);
    while (is_ident(k) && (text(k) == "volatile" || text(k) == "__volatile__" ||
                           text(k) == "goto" || text(k) == "inline")) {
        k = next_code(k);
    }
    if (!is_punct(k, "(")) return;
    if (hip_dead_) {  // e.g. under #ifndef __HIPCC__: kept for nvcc, never compiled for AMD
        diag(i, Severity::Note, DiagId::InlinePtx,
             "inline PTX assembly in a branch no HIP compile takes; kept as it is");
        return;
    }
    // ptx.cpp translates what it knows; what it does not is an error naming it.
    const std::string why = translate_asm(i, k);
    if (why.empty()) return;
    diag(i, Severity::Error, DiagId::InlinePtx, why);
    if (runtime_ >= 0) count(runtime_, false);
}

// CUDA leaves a shuffle width that is not a power of two of at most 32 undefined.
void Rewriter::check_shfl_width(int i, const Arg& a) {
    if (a.first < 0 || a.first != a.last || toks_[a.first].kind != TokenKind::Number) return;
    const long long v = literal_value(text(a.first));
    if (v >= 1 && v <= 32 && (v & (v - 1)) == 0) return;
    diag(a.first, Severity::Warning, DiagId::ShflWidth,
         "width " + std::string(text(a.first)) +
             " is not a power of two of at most 32; CUDA leaves the result of '" +
             std::string(text(i)) + "' undefined");
}

void Rewriter::hazard_shuffle(int i, const std::vector<Arg>& args, bool has_mask) {
    const std::string_view w = text(i);
    // Explicit width: 4th argument of the _sync forms, 3rd of the legacy ones.
    const std::size_t width_index = has_mask ? 3 : 2;
    if (w.find("shfl") != std::string_view::npos && args.size() > width_index) {
        const Arg a = args[width_index];
        if (a.first >= 0 && a.first == a.last && literal_value(text(a.first)) == 32) {
            warp_hazard(a.first, DiagId::ShflWidth,
                        "width 32 splits a 64-lane wavefront into two independent halves",
                        "width 32 is one warp");
        }
        check_shfl_width(i, a);
    }
    if (w.find("shfl_down") == std::string_view::npos &&
        w.find("shfl_xor") == std::string_view::npos &&
        w.find("shfl_up") == std::string_view::npos) {
        if (w.find("shfl") != std::string_view::npos) hazard_broadcast(i, args, has_mask);
        return;
    }
    // The loops around i: ancestors of the last loop whose header is before i.
    std::vector<int> around;
    auto last = std::upper_bound(loops_.begin(), loops_.end(), i,
                                 [](int v, const Loop& l) { return v < l.header_open; });
    for (int l = static_cast<int>(last - loops_.begin()) - 1; l >= 0;
         l = loops_[static_cast<std::size_t>(l)].parent) {
        const Loop& loop = loops_[static_cast<std::size_t>(l)];
        if (loop.body_begin <= i && i <= loop.body_end) around.push_back(l);
    }
    for (auto l = around.rbegin(); l != around.rend(); ++l) {  // outermost first
        Loop& loop = loops_[static_cast<std::size_t>(*l)];
        if (loop.reported || !loop.literal_lanes) continue;
        loop.reported = true;
        if (fn_lanes(i).warp && rewrite_loop(loop, i, args, has_mask)) continue;
        warp_hazard(loop.header_open, DiagId::ShflOffset,
                    "this shuffle loop covers 32 lanes; on a 64-lane wavefront lanes 32-63 are "
                    "left out (bound it by warpSize)",
                    "this shuffle loop covers 32 lanes");
    }
}

// for (int o = 16; o > 0; o /= 2) -> for (int o = warpSize / 2; ...), and
// for (int o = 1; o < 32; o *= 2) -> o < warpSize, when the loop's variable is
// the offset of the shuffle and the function otherwise counts lanes by warpSize:
// there the partial result is read per warpSize-lane wave, so 32 lanes are too few.
bool Rewriter::rewrite_loop(Loop& loop, int shuffle, const std::vector<Arg>& args, bool has_mask) {
    if (dead_) return false;
    const std::size_t offset_index = has_mask ? 2 : 1;
    if (args.size() != offset_index + 1) return false;  // an explicit width: keep its segments
    const Arg off = args[offset_index];
    if (off.first != off.last || !is_ident(off.first)) return false;
    const std::string_view name = text(off.first);
    int k = next_code(loop.header_open);
    while (is_ident(k) && next_code(k) >= 0 && is_ident(next_code(k))) k = next_code(k);  // type
    if (!is_ident(k) || text(k) != name || !is_punct(next_code(k), "=")) return false;
    const int init = next_code(next_code(k));
    const int semi1 = next_code(init);
    if (init < 0 || toks_[init].kind != TokenKind::Number || !is_punct(semi1, ";")) return false;
    const int cv = next_code(semi1);
    const int cop = next_code(cv);
    const int bound = next_code(cop);
    const int semi2 = next_code(bound);
    if (!is_ident(cv) || text(cv) != name || bound < 0 || toks_[bound].kind != TokenKind::Number ||
        !is_punct(semi2, ";")) {
        return false;
    }
    const int sv = next_code(semi2);
    const int sop = next_code(sv);
    const int step = next_code(sop);
    if (!is_ident(sv) || text(sv) != name || step < 0 || toks_[step].kind != TokenKind::Number ||
        next_code(step) != match(loop.header_open)) {
        return false;
    }
    const long long from = literal_value(text(init));
    const long long to = literal_value(text(bound));
    const long long by = literal_value(text(step));
    const bool halving = (is_punct(sop, "/=") && by == 2) || (is_punct(sop, ">>=") && by == 1);
    const bool doubling = (is_punct(sop, "*=") && by == 2) || (is_punct(sop, "<<=") && by == 1);
    const std::string header = squeeze(loop.header_open, match(loop.header_open));
    if (from == 16 && halving &&
        ((is_punct(cop, ">") && to == 0) || (is_punct(cop, ">=") && to == 1) ||
         (is_punct(cop, "!=") && to == 0))) {
        rename(init, init, "warpSize / 2");
    } else if (from == 1 && doubling && is_punct(cop, "<") && to == 32) {
        rename(bound, bound, "warpSize");
    } else if (from == 1 && doubling && is_punct(cop, "<=") && to == 16) {
        rename(bound, bound, "warpSize / 2");
    } else {
        return false;
    }
    loop.rewritten = true;
    diag(loop.header_open, Severity::Note, DiagId::ShflOffset,
         "this shuffle loop covered 32 lanes while the function counts lanes by warpSize; its "
         "bound now reads warpSize (the same in 32-lane warps, all 64 lanes of a wavefront)");
    (void)shuffle;
    return true;
}

// __shfl_sync(mask, v, 0): lane 0 of a 32-lane warp in CUDA, of a 64-lane
// wavefront on AMD. In a function that groups threads by a literal 32 and never
// says warpSize, lane 0 of each 32-thread group holds the value: width 32 keeps
// CUDA's meaning exactly. After a reduction that covered 32 lanes in a function
// that does count by warpSize, lane 0 holds only half the wave's result.
void Rewriter::hazard_broadcast(int i, const std::vector<Arg>& args, bool has_mask) {
    const std::size_t src_index = has_mask ? 2 : 1;
    if (args.size() != src_index + 1) return;  // a width says which segment
    const Arg src = args[src_index];
    if (src.first < 0 || src.first != src.last || toks_[src.first].kind != TokenKind::Number ||
        literal_value(text(src.first)) != 0) {
        return;
    }
    const FnLanes f = fn_lanes(i);
    if (!f.warp && f.team32) {
        if (dead_) return;
        insert_stable(toks_[src.last].end, ", 32");
        diag(src.first, Severity::Note, DiagId::Lane0Broadcast,
             "broadcast from lane 0 in a function that groups threads by 32: width 32 added, "
             "so each 32-lane half of a 64-lane wavefront reads its own lane 0, as in CUDA");
        return;
    }
    const int body = function_body(i);
    // The walk goes in order, so a loop that ends before i is done with: whether
    // its bound was rewritten is final. Those are noted by body as the walk passes them.
    if (loops_by_end_.size() != loops_.size()) {
        loops_by_end_.resize(loops_.size());
        for (std::size_t l = 0; l < loops_.size(); ++l) loops_by_end_[l] = static_cast<int>(l);
        std::stable_sort(loops_by_end_.begin(), loops_by_end_.end(), [&](int a, int b) {
            return loops_[static_cast<std::size_t>(a)].body_end <
                   loops_[static_cast<std::size_t>(b)].body_end;
        });
    }
    for (; loops_done_ < loops_by_end_.size(); ++loops_done_) {
        const Loop& loop = loops_[static_cast<std::size_t>(loops_by_end_[loops_done_])];
        if (loop.body_end >= i) break;
        const int in = function_body(loop.header_open);
        if (loop.literal_lanes && !loop.rewritten && in >= 0 && loop.header_open > in) {
            bad_loop_bodies_.insert(in);
        }
    }
    if (body >= 0 && bad_loop_bodies_.count(body) != 0) {
        warp_hazard(src.first, DiagId::Lane0Broadcast,
                    "broadcast from lane 0 after a shuffle loop that covered 32 lanes: on a "
                    "64-lane wavefront lane 0 holds only lanes 0-31's result and lanes 32-63 "
                    "get it too. Bound the loop by warpSize, or pass width 32 here if each "
                    "32-lane group is meant to keep its own result",
                    "a broadcast from lane 0 after a shuffle loop over 32 lanes");
    }
}

void Rewriter::hazard_ballot(int i) {
    if (o_.logical_warps) return;  // a logical warp's ballot has 32 bits
    int p = prev_code(i);
    if (is_punct(p, "(")) {
        const int fn = prev_code(p);
        if (is_ident(fn)) {
            const std::string_view f = text(fn);
            if ((f == "__popc" || f == "__ffs") && !dead_ && fn_lanes(i).warp) {
                // The count and the first set lane are the same in 32 lanes.
                rename(fn, fn, f == "__popc" ? "__popcll" : "__ffsll");
                diag(i, Severity::Note, DiagId::BallotWidth,
                     "'" + std::string(f) + "' read 32 bits of a 64-bit ballot; rewritten as '" +
                         std::string(f) + "ll'");
            } else if (f == "__popc" || f == "__ffs" || f == "__clz" || f == "__brev") {
                diag(i, Severity::Warning, DiagId::BallotWidth,
                     "'" + std::string(f) + "' reads 32 bits of a 64-bit ballot; use '" +
                         std::string(f) +
                         "ll' (its result counts from bit 63, so check the "
                         "arithmetic around it)");
            }
        }
        return;
    }
    if (!is_punct(p, "=")) return;
    p = prev_code(p);
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
    if (narrow && !widen_ballot(i, p)) {
        diag(i, Severity::Warning, DiagId::BallotWidth,
             "a 64-lane ballot is stored in 32 bits: lanes 32-63 are lost (use uint64_t)");
    }
}

// unsigned bits = __ballot_sync(...); -> unsigned long long bits = ...; and
// __popc(bits) / __ffs(bits) -> __popcll / __ffsll. In 32-lane warps the top
// half is zero, so every use the function makes of `bits` that CASS accepts
// (anything but ~bits, __clz and __brev, which see the extra bits) computes
// the same.
bool Rewriter::widen_ballot(int call, int name) {
    if (dead_ || !fn_lanes(call).warp) return false;
    const int open = next_code(call);
    const int close = is_punct(open, "(") ? match(open) : -1;
    if (close < 0 || !is_punct(next_code(close), ";")) return false;  // one declarator
    const int begin = statement_begin(name);
    int first = -1;
    int last = -1;
    for (int k = begin; k < name; ++k) {
        if (!is_ident(k)) return false;
        const std::string_view w = text(k);
        if (w == "const" || w == "register") {
            if (first >= 0) return false;
            continue;
        }
        if (w != "unsigned" && w != "int" && w != "uint32_t" && w != "uint") return false;
        if (w == "int" && (first < 0 || text(first) != "unsigned")) return false;  // signed
        if (first < 0) first = k;
        last = k;
    }
    if (first < 0) return false;
    const int body = function_body(name);
    if (body < 0) return false;
    std::vector<int> counts;
    const auto [first_use, last_use] = uses_of(toks_[name].link, close, match(body));
    for (const int* use = first_use; use != last_use; ++use) {
        const int k = *use;
        const int before = prev_code(k);
        const int left = prev_code(before);
        const bool address =
            is_punct(before, "&") && !(left >= 0 && (is_ident(left) || is_punct(left, ")") ||
                                                     toks_[left].kind == TokenKind::Number));
        if (is_punct(before, "~") || address) return false;  // sees the top half; an alias
        if (is_punct(before, "(") && is_punct(next_code(k), ")")) {
            const int fn = prev_code(before);
            if (is_ident(fn) && (text(fn) == "__clz" || text(fn) == "__brev")) return false;
            if (is_ident(fn) && (text(fn) == "__popc" || text(fn) == "__ffs")) counts.push_back(fn);
        }
    }
    rename(first, last, "unsigned long long");
    for (const int fn : counts) {
        if (const Entry* e = entry(fn); e != nullptr) count(e->family, true);
        rename(fn, fn, text(fn) == "__popc" ? "__popcll" : "__ffsll");
    }
    diag(call, Severity::Note, DiagId::BallotWidth,
         "a 64-lane ballot was stored in 32 bits; '" + std::string(text(name)) +
             "' is now 'unsigned long long'" +
             (counts.empty() ? std::string() : " and its __popc/__ffs are __popcll/__ffsll"));
    return true;
}

void Rewriter::hazard_warp_size(int i) {
    if (o_.logical_warps) return;  // __cass_warp_size is a constant expression
    const int p = prev_code(i);
    const int n = next_code(i);
    bool constant = false;
    if (is_punct(p, "[")) {
        for (int k = statement_begin(p); k < p && !constant; ++k) {
            constant = is_ident(k) && (text(k) == "__shared__" || text(k) == "constexpr");
        }
    }
    if (is_punct(p, "<") && is_ident(prev_code(p)) && (is_punct(n, ">") || is_punct(n, ","))) {
        constant = true;  // a template argument
    }
    const int begin = statement_begin(i);
    if (is_ident(begin) &&
        (text(begin) == "constexpr" || text(begin) == "static_assert" || text(begin) == "case")) {
        constant = true;
    }
    if (in_directive(i)) constant = true;
    if (constant) {
        diag(i, Severity::Warning, DiagId::WarpsizeConstant, kWarpsizeConstantMessage);
    }
}

void Rewriter::hazard_texture(int i) {
    if (!is_punct(next_code(i), "<")) return;
    diag(i, Severity::Warning, DiagId::TextureReference,
         std::string(text(i)) +
             " references are deprecated in HIP and removed in CUDA 12; use texture objects");
}

namespace {

// Warp-level intrinsics, CUDA's and HIP's: a function calling one works per warp.
bool warp_intrinsic(std::string_view w) {
    for (const std::string_view part :
         {"shfl", "ballot", "activemask", "syncwarp", "match_any", "match_all"}) {
        if (w.find(part) != std::string_view::npos) return true;
    }
    return w == "__any_sync" || w == "__all_sync" || w == "__any" || w == "__all";
}

}  // namespace

// `/`, `*` and their assignments: an operator that scales a count.
bool Rewriter::scales(int op) const {
    return is_punct(op, "/") || is_punct(op, "*") || is_punct(op, "/=") || is_punct(op, "*=");
}

// `>>`, `<<` and their assignments: a shift by 5 scales by 32.
bool Rewriter::shifts(int op) const {
    return is_punct(op, ">>") || is_punct(op, "<<") || is_punct(op, ">>=") || is_punct(op, "<<=");
}

// The name token of the function whose body opens at `body` (`name(...) {`), or -1.
int Rewriter::function_name(int body) const {
    const int close = prev_code(body);
    const int open = is_punct(close, ")") ? match(close) : -1;
    const int name = open >= 0 ? prev_code(open) : -1;
    return is_ident(name) ? name : -1;
}

// Whether the function whose body opens at `body` is device code (__global__,
// __device__, __host__ __device__): a launch there is dynamic parallelism.
bool Rewriter::device_function(int body) const {
    const int name = function_name(body);
    if (name < 0) return false;
    for (int k = statement_begin(name); k >= 0 && k < name; k = next_code(k)) {
        if (is_ident(k) && (text(k) == "__global__" || text(k) == "__device__")) return true;
    }
    return false;
}

// The body ('{') of the function the file defines under the name at token `name`, or -1.
int Rewriter::function_named(int name) {
    if (body_of_name_.empty()) {
        (void)function_body(name);  // lists the bodies
        body_of_name_.assign(syms_.size(), -1);
        for (const auto& [open, close] : bodies_) {
            const int n = function_name(open);
            int& body = body_of_name_[static_cast<std::size_t>(n >= 0 ? toks_[n].link : 0)];
            if (n >= 0 && body < 0) body = open;  // the first definition
        }
    }
    return body_of_name_[static_cast<std::size_t>(toks_[name].link)];
}

std::pair<const int*, const int*> Rewriter::uses_of(int sym, int from, int to) {
    if (use_at_.empty()) {  // counting sort of the identifier tokens by symbol
        use_at_.assign(syms_.size() + 1, 0);
        for (std::size_t y = 0; y < syms_.size(); ++y) {
            use_at_[y + 1] = use_at_[y] + static_cast<int>(syms_[y].uses);  // counted by the lexer
        }
        uses_.resize(static_cast<std::size_t>(use_at_.back()));
        std::vector<int> fill(use_at_.begin(), use_at_.end() - 1);
        for (int k = 0; k < ntok_; ++k) {
            if (toks_[k].kind == TokenKind::Identifier) {
                uses_[static_cast<std::size_t>(fill[static_cast<std::size_t>(toks_[k].link)]++)] =
                    k;
            }
        }
    }
    const int* begin = uses_.data() + use_at_[static_cast<std::size_t>(sym)];
    const int* end = uses_.data() + use_at_[static_cast<std::size_t>(sym) + 1];
    return {std::upper_bound(begin, end, from), std::lower_bound(begin, end, to)};
}

// A name for the lanes of a warp that the file sets to 32: `#define WARP 32`,
// `constexpr int kWarpSize = 32;`, `const int lanes = 32;`.
bool Rewriter::named_32(int i) {
    if (!is_ident(i) || !lanes(i)) return false;
    const int y = toks_[i].link;
    const auto found = named_32_.find(y);
    if (found != named_32_.end()) return found->second;
    bool is32 = false;
    const auto is_32 = [&](int k) {
        return k >= 0 && toks_[k].kind == TokenKind::Number && literal_value(text(k)) == 32;
    };
    const auto [first, last] = uses_of(y, -1, ntok_);
    for (const int* u = first; u != last && !is32; ++u) {
        const int k = *u;
        const int n = next_code(k);
        if (is_punct(n, "=")) {
            const int v = next_code(n);
            is32 = is_32(v) && (is_punct(next_code(v), ";") || is_punct(next_code(v), ","));
        } else if (is_32(n) && in_directive(k) && is_ident(prev_code(k)) &&
                   text(prev_code(k)) == "define") {
            int e = n + 1;  // the directive ends right after the 32
            while (e < ntok_ && toks_[e].kind == TokenKind::Comment) ++e;
            is32 = e >= ntok_ || toks_[e].kind == TokenKind::Newline;
        }
    }
    named_32_.emplace(y, is32);
    return is32;
}

// Whether the function whose body opens at `body` works per warp: it calls a warp
// intrinsic, names warpSize or a warp-size constant, groups lanes by a literal 32
// (`% 32`, `/ 32`, `& 31`, `>> 5`), or calls a function of the file that does.
bool Rewriter::warp_function(int body, int depth) {
    const std::int64_t key = std::int64_t{body} * 4 + depth;
    const auto found = warp_fns_.find(key);
    if (found != warp_fns_.end()) return found->second;
    bool warp = false;
    const int end = match(body);
    for (int k = next_code(body); k >= 0 && k < end && !warp; k = next_code(k)) {
        if (toks_[k].kind == TokenKind::Number) {
            const long long v = literal_value(text(k));
            const int op = prev_code(k);
            warp = (v == 32 && (is_punct(op, "%") || is_punct(op, "/"))) ||
                   (v == 31 && is_punct(op, "&")) || (v == 5 && is_punct(op, ">>"));
            continue;
        }
        if (!is_ident(k)) continue;
        if (has_flag(k, kSymWarpSize) || warp_intrinsic(text(k)) || named_32(k)) {
            warp = true;
        } else if (depth < 2 && is_punct(next_code(k), "(")) {
            const int callee = function_named(k);
            warp = callee >= 0 && callee != body && warp_function(callee, depth + 1);
        }
    }
    warp_fns_.emplace(key, warp);
    return warp;
}

namespace {

// A memo key of two token or symbol indices.
std::uint64_t memo_key(int a, int b) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32 |
           static_cast<std::uint32_t>(b);
}

}  // namespace

// The first `/ 32`, `* 32`, `32 *`, `>> 5` or `<< 5` (or the same with a warp-size
// constant for the 32) in tokens [first, last] of host function `body`, following
// each variable to its assignments before token `before` (in the function, else a
// file-scope constant or macro) and each parameter to the function's calls, at most
// four steps deep; -1 for none. What a variable, an assignment or a parameter leads
// to is worked out once (assigned_, followed_, passed_), so each launch costs what its
// own tokens do, however many launches a function has.
int Rewriter::sizes_by_32(int first, int last, int body, int before, int depth) {
    if (first < 0 || last < first || body < 0) return -1;
    for (int k = first; k >= 0 && k <= last; k = next_code(k)) {
        const int p = prev_code(k);
        const int n = next_code(k);
        const bool scaled = scales(p) || is_punct(n, "*");
        if (toks_[k].kind == TokenKind::Number) {
            const long long v = literal_value(text(k));
            if ((v == 32 && scaled) || (v == 5 && shifts(p))) return k;
            continue;
        }
        if (!is_ident(k)) continue;
        if (named_32(k)) {
            if (scaled) return k;
            continue;
        }
        if (depth >= 4 || is_punct(p, ".") || is_punct(p, "->") || is_punct(p, "::") ||
            is_punct(n, "(") || is_punct(n, "::")) {
            continue;  // a member, a call, a qualifier
        }
        bool defined = false;
        const int assigned = assigned_32(k, body, before, depth, &defined);
        if (assigned >= 0) return assigned;
        if (defined) continue;
        const int passed = passed_32(k, body, depth);
        if (passed >= 0) return passed;
        if (passed == -2) continue;  // a parameter: its callers said no
        // A file-scope constant or a macro: its first occurrence defines it.
        const int y = toks_[k].link;
        const std::uint32_t at = syms_[static_cast<std::size_t>(y)].begin;
        const Tok* found = std::lower_bound(
            toks_, toks_ + ntok_, at, [](const Tok& t, std::uint32_t b) { return t.begin < b; });
        const int d = static_cast<int>(found - toks_);
        if (d < ntok_ && d < before && is_ident(d) && toks_[d].link == y && function_body(d) < 0) {
            const int hit = follow_32(d, body, depth);
            if (hit >= 0) return hit;
        }
    }
    return -1;
}

// What use `d` of a variable assigns it, searched by sizes_by_32: `x = e`, `x /= e`
// (the operator kept), `dim3 x(e1, e2)`, `dim3 x{...}`, `#define X e`; -1 for none.
int Rewriter::follow_32(int d, int body, int depth) {
    const int op = next_code(d);
    int from = -1;
    int to = -1;
    if (is_punct(op, "=") || is_punct(op, "/=") || is_punct(op, "*=") || is_punct(op, ">>=") ||
        is_punct(op, "<<=")) {
        from = is_punct(op, "=") ? next_code(op) : op;
        for (int e = from; e >= 0; e = next_code(e)) {
            if (is_punct(e, ";") || is_punct(e, ",") || is_punct(e, ")") || is_punct(e, "}") ||
                is_punct(e, "]") || (in_directive(e) && !in_directive(d))) {
                break;
            }
            if ((is_punct(e, "(") || is_punct(e, "[") || is_punct(e, "{")) && match(e) > e) {
                e = match(e);
            }
            to = e;
        }
    } else if ((is_punct(op, "(") || is_punct(op, "{")) && is_ident(prev_code(d)) &&
               match(op) > op) {
        from = next_code(op);
        to = prev_code(match(op));
    } else if (in_directive(d) && is_ident(prev_code(d)) && text(prev_code(d)) == "define") {
        from = next_code(d);  // #define BLOCKS (N / 32): the rest of the line
        for (int e = d + 1; e < ntok_ && toks_[e].kind != TokenKind::Newline; ++e) {
            if (toks_[e].significant()) to = e;
        }
    }
    if (from < 0) return -1;  // most uses assign nothing
    Memo& memo = followed_[static_cast<std::size_t>(depth)];
    const std::uint64_t key = memo_key(d, body);
    const auto found = memo.find(key);
    if (found != memo.end()) return found->second;
    const int hit = sizes_by_32(from, to, body, d, depth + 1);
    memo.emplace(key, hit);
    return hit;
}

// The first use of variable `k` in `body` before token `before` that assigns it a
// value sized by 32, or -1; `defined`: whether a use before `before` defines it.
int Rewriter::assigned_32(int k, int body, int before, int depth, bool* defined) {
    const int y = toks_[k].link;
    Uses& u = assigned_[static_cast<std::size_t>(depth)][memo_key(y, body)];
    const auto [first, last] = uses_of(y, body, before);
    // Uses are looked at in order and only once: a later launch goes on from here.
    for (const int* d = first + u.next; u.hit_at == 0x7fffffff && d < last; ++d, ++u.next) {
        if (is_punct(prev_code(*d), ".") || is_punct(prev_code(*d), "->")) continue;
        const int op = next_code(*d);
        if (u.first_def > *d && (is_punct(op, "=") || ((is_punct(op, "(") || is_punct(op, "{")) &&
                                                       is_ident(prev_code(*d))))) {
            u.first_def = *d;
        }
        const int hit = follow_32(*d, body, depth);
        if (hit >= 0) {
            u.hit_at = *d;
            u.hit = hit;
        }
    }
    *defined = u.first_def < before;
    return u.hit_at < before ? u.hit : -1;
}

// For a parameter `k` of the function whose body is `body`: the first call of the
// function from host code that passes a value sized by 32, or -1; -2 when `k` is
// a parameter and no call does, -3 when it is no parameter.
int Rewriter::passed_32(int k, int body, int depth) {
    const int y = toks_[k].link;
    const int close = prev_code(body);
    const int open = is_punct(close, ")") ? match(close) : -1;
    const int fn = function_name(body);
    int index = 0;
    bool param = false;
    for (int q = next_code(open); open >= 0 && q >= 0 && q < close && !param; q = next_code(q)) {
        if (is_punct(q, ",")) {
            ++index;
        } else if ((is_punct(q, "(") || is_punct(q, "[") || is_punct(q, "{")) && match(q) > q) {
            q = match(q);
        } else {
            param = is_ident(q) && toks_[q].link == y;
        }
    }
    if (!param || fn < 0) return -3;
    const std::uint64_t key = memo_key(body, index);
    auto& passed = passed_[static_cast<std::size_t>(depth)];
    const auto found = passed.find(key);
    if (found != passed.end()) return found->second;
    passed.emplace(key, -2);  // a call chain back into this function finds nothing new
    int result = -2;
    const auto [first_use, last_use] = uses_of(toks_[fn].link, -1, ntok_);
    for (const int* use = first_use; use != last_use && result < 0; ++use) {
        const int c = *use;
        if (c == fn || !is_punct(next_code(c), "(")) continue;  // a call: `name(`
        const int caller = function_body(c);
        if (caller < 0 || device_function(caller)) continue;
        const std::vector<Arg> args = call_args(next_code(c));
        if (static_cast<std::size_t>(index) >= args.size()) continue;
        const Arg a = args[static_cast<std::size_t>(index)];
        const int hit = sizes_by_32(a.first, a.last, caller, c, depth + 1);
        if (hit >= 0) result = hit;
    }
    passed[key] = result;
    return result;
}

// kernel<<<grid, block>>> in host code, where the grid or the block is computed
// with / 32, * 32, >> 5 or << 5 (in the launch, or in the variables, constants and
// parameters it reads), while the kernel works per warp or the arithmetic names
// warps or lanes: the launch is sized for 32-lane warps. Host code is not
// rewritten: which 32 is a warp is for the program to say.
void Rewriter::hazard_launch(int i) {
    const int close = match(i);
    if (close < 0 || dead_) return;
    const int body = function_body(i);
    if (body < 0 || device_function(body)) return;
    bool templated = false;
    const int last = prev_code(i);
    if (last < 0 || kernel_start(last, &templated) < 0) return;
    const int name = is_ident(last) ? last : prev_code(template_open(last));
    if (!is_ident(name)) return;
    const int kernel = function_named(name);
    const bool per_warp = kernel >= 0 && warp_function(kernel, 0);
    const std::vector<Arg> config = call_args(i);
    for (std::size_t a = 0; a < config.size() && a < 2; ++a) {  // the grid and the block
        const int hit = sizes_by_32(config[a].first, config[a].last, body, i, 0);
        if (hit < 0 || host_reported_.count(hit) != 0) continue;
        if (!per_warp && !named_32(hit) && !lane_statement(hit)) continue;
        host_reported_.insert(hit);
        const int op = prev_code(hit);
        const bool before_op = !scales(op) && !shifts(op);  // `32 * n`: the operator follows
        const std::string what =
            before_op ? std::string(text(hit)) + " " + std::string(text(next_code(hit)))
                      : std::string(text(op)) + " " + std::string(text(hit));
        warp_hazard(
            hit, DiagId::HostWarpCount,
            "'" + what + "' sizes the launch of '" + std::string(text(name)) +
                "' for 32-lane warps" + (per_warp ? ", and the kernel works per warp" : "") +
                ": where the kernel counts lanes by warpSize, a block holds half the waves this "
                "launch assumes on AMD's 64-lane wavefronts. Size it by the device's warp size "
                "(cudaDeviceGetAttribute with cudaDevAttrWarpSize, or cudaDeviceProp::warpSize; "
                "hipDeviceGetAttribute, hipDeviceProp_t::warpSize in HIP)",
            "'" + what + "' sizes the launch of '" + std::string(text(name)) +
                "' for 32-lane warps");
    }
}

}  // namespace cass::detail
