// Inline PTX translated to C++ with HIP's builtins (see docs/ptx.md).
//
// A statement becomes one block on one line: a local per asm operand (inputs
// copied in first, outputs copied out last, as the asm's registers would be), a
// local per `.reg`, then one C++ statement per instruction, `{ }` scopes kept.
// Every register holds its bits in a C++ type of its width; an instruction reads
// and writes them through its own type (__float_as_uint and friends where a
// float register meets an integer instruction), so `mov.b32` of a float is a copy.
#include "ptx.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cass::detail::ptx {
namespace {

enum class T : std::uint8_t {
    None,
    Pred,
    B8,
    U8,
    S8,
    B16,
    U16,
    S16,
    B32,
    U32,
    S32,
    B64,
    U64,
    S64,
    F16,
    F32,
    F64,
};

struct TypeName {
    std::string_view name;
    T type;
};

constexpr TypeName kTypes[] = {
    {"pred", T::Pred}, {"b8", T::B8},   {"u8", T::U8},   {"s8", T::S8},
    {"b16", T::B16},   {"u16", T::U16}, {"s16", T::S16}, {"b32", T::B32},
    {"u32", T::U32},   {"s32", T::S32}, {"b64", T::B64}, {"u64", T::U64},
    {"s64", T::S64},   {"f16", T::F16}, {"f32", T::F32}, {"f64", T::F64},
};

T parse_type(std::string_view w) {
    for (const TypeName& t : kTypes) {
        if (t.name == w) return t.type;
    }
    return T::None;
}

int bits(T t) {
    switch (t) {
        case T::Pred:
            return 1;
        case T::B8:
        case T::U8:
        case T::S8:
            return 8;
        case T::B16:
        case T::U16:
        case T::S16:
        case T::F16:
            return 16;
        case T::B32:
        case T::U32:
        case T::S32:
        case T::F32:
            return 32;
        case T::B64:
        case T::U64:
        case T::S64:
        case T::F64:
            return 64;
        default:
            return 0;
    }
}

bool is_signed(T t) { return t == T::S8 || t == T::S16 || t == T::S32 || t == T::S64; }
bool is_float(T t) { return t == T::F32 || t == T::F64; }  // f16 is kept as its bits
bool is_int(T t) { return t != T::None && t != T::Pred && !is_float(t); }

const char* ctype(T t) {
    switch (t) {
        case T::Pred:
            return "bool";
        case T::B8:
        case T::U8:
            return "unsigned char";
        case T::S8:
            return "signed char";
        case T::B16:
        case T::U16:
        case T::F16:
            return "unsigned short";
        case T::S16:
            return "short";
        case T::B32:
        case T::U32:
            return "unsigned";
        case T::S32:
            return "int";
        case T::B64:
        case T::U64:
            return "unsigned long long";
        case T::S64:
            return "long long";
        case T::F32:
            return "float";
        case T::F64:
            return "double";
        default:
            return "unsigned";
    }
}

T unsigned_of(int n) { return n <= 8 ? T::U8 : n <= 16 ? T::U16 : n <= 32 ? T::U32 : T::U64; }
T signed_of(int n) { return n <= 8 ? T::S8 : n <= 16 ? T::S16 : n <= 32 ? T::S32 : T::S64; }
// The type integer arithmetic runs in: unsigned, at least 32 bits (no UB on overflow).
T arith_of(T t) { return bits(t) <= 32 ? T::U32 : T::U64; }

std::string paren(const std::string& e) { return "(" + e + ")"; }
std::string cast(T t, const std::string& e) {
    return "((" + std::string(ctype(t)) + ")" + paren(e) + ")";
}

// Converts an expression of type `from` (a register's or an instruction's) to `to`.
std::string convert(const std::string& e, T from, T to) {
    if (std::string_view(ctype(from)) == ctype(to)) return e;
    if (to == T::Pred) return "(" + paren(e) + " != 0)";
    if (from == T::Pred) return cast(to, e);
    if (from == T::F32 && is_int(to)) return cast(to, "__float_as_uint(" + e + ")");
    if (from == T::F64 && is_int(to)) return cast(to, "__double_as_longlong(" + e + ")");
    if (to == T::F32 && is_int(from)) return "__uint_as_float((unsigned)" + paren(e) + ")";
    if (to == T::F64 && is_int(from)) return "__longlong_as_double((long long)" + paren(e) + ")";
    return cast(to, e);
}

std::string hex(unsigned long long v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llxull", v);
    return buf;
}

std::string dec(long long v) { return std::to_string(v); }

// An operand of one instruction.
struct Val {
    enum Kind : std::uint8_t { Reg, Imm, Special, Addr, Vec, Sink, Label } kind = Reg;
    std::string c;     // C++: the register's name, the special register's expression
    T st = T::U32;     // the register's type
    bool neg = false;  // !p
    bool writable = true;
    bool imm_float = false;
    unsigned long long ival = 0;  // integer immediate, or float immediate bits
    bool imm_double = false;      // a float immediate written for f64
    std::string fexpr;            // float immediate as C++
    std::string shared;           // Reg from __cvta_generic_to_shared(p): p
    long long offset = 0;         // Addr: [base+offset]
    std::vector<Val> elems;       // Addr: the base (one); Vec: the elements
};

struct Reg {
    std::string c;
    T st;
};

class Gen {
public:
    Gen(const AsmStatement& st, bool logical) : st_(st), lw_(logical) {}
    Outcome run();

private:
    bool fail(std::string what, std::string reason = {}) {
        if (out_.failed.empty() && out_.reason.empty()) {
            out_.failed = std::move(what);
            out_.reason = std::move(reason);
        }
        return false;
    }
    [[nodiscard]] bool failed() const { return !out_.failed.empty() || !out_.reason.empty(); }
    std::string substitute(const std::string& t);
    bool statement(std::string_view s);
    bool declare(std::string_view rest);
    bool instruction(std::string_view op, const std::vector<std::string_view>& args);
    bool parse_operand(std::string_view s, Val& v);
    std::string rd(const Val& v, T t);
    std::string wr(const Val& v, T t, const std::string& e);
    std::string ptr(const Val& a, T elem, bool shared_space);
    std::string label(std::string_view name) const;
    [[nodiscard]] std::string lane() const { return lw_ ? "__cass_lane_id()" : "__lane_id()"; }

    // Instruction groups; each appends one C++ statement to body_.
    bool arith(std::string_view head, const std::vector<std::string_view>& m, T t,
               const std::vector<Val>& a);
    bool carry(std::string_view head, const std::vector<std::string_view>& m, T t,
               const std::vector<Val>& a);
    bool bits_op(std::string_view head, const std::vector<std::string_view>& m, T t,
                 const std::vector<Val>& a);
    bool compare(const std::vector<std::string_view>& m, T t, const std::vector<Val>& a);
    bool cvt(const std::vector<std::string_view>& m, const std::vector<T>& ts,
             const std::vector<Val>& a);
    bool memory(std::string_view head, const std::vector<std::string_view>& m, T t,
                const std::vector<Val>& a);
    bool warp(std::string_view head, const std::vector<std::string_view>& m, T t,
              const std::vector<Val>& a);

    const AsmStatement& st_;
    bool lw_;
    Outcome out_;
    std::string body_;
    std::string stmt_;  // the C++ of the instruction being translated
    bool uses_cc_ = false;
    std::unordered_map<std::string, std::vector<Reg>> regs_;
    std::vector<std::vector<std::string>> scopes_{{}};
    std::vector<std::string> shared_of_;  // per asm operand: its __cvta_generic_to_shared argument
    std::vector<bool> value_used_;        // per asm operand: read as a value
    std::vector<bool> named_;             // per asm operand: named by the template
    std::size_t declared_ = 0;
    bool pair_ = false;  // the instruction wrote d|p
};

bool has(const std::vector<std::string_view>& m, std::string_view w) {
    for (std::string_view x : m) {
        if (x == w) return true;
    }
    return false;
}

// Whether every modifier is one of `ok` (types were taken out already).
bool only(const std::vector<std::string_view>& m, std::initializer_list<std::string_view> ok) {
    for (std::string_view x : m) {
        bool found = false;
        for (std::string_view y : ok) found = found || x == y;
        if (!found && x.substr(0, 4) != "L1::" && x.substr(0, 4) != "L2::") return false;
    }
    return true;
}

bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}

bool blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && blank(s.back())) s.remove_suffix(1);
    return s;
}

std::string cname(std::string_view reg) {
    std::string out = "_ptx_";
    if (!reg.empty() && reg.front() == '%') {
        reg.remove_prefix(1);
    } else {
        out += '_';
    }
    for (char c : reg) out += c == '$' ? 'S' : c;
    return out;
}

// The argument of __cvta_generic_to_shared(...) when `e` is that call under casts only.
std::string shared_argument(const std::string& e) {
    static constexpr std::string_view kCall = "__cvta_generic_to_shared";
    const std::size_t at = e.find(kCall);
    if (at == std::string::npos || e.find(kCall, at + 1) != std::string::npos) return {};
    std::size_t open = at + kCall.size();
    while (open < e.size() && e[open] == ' ') ++open;
    if (open >= e.size() || e[open] != '(') return {};
    int depth = 0;
    std::size_t close = open;
    for (; close < e.size(); ++close) {
        if (e[close] == '(') ++depth;
        if (e[close] == ')' && --depth == 0) break;
    }
    if (close >= e.size()) return {};
    for (std::size_t k = 0; k < at; ++k) {
        const char c = e[k];
        if (!(ident_char(c) || c == ' ' || c == '(' || c == ')' || c == '<' || c == '>' ||
              c == ':')) {
            return {};
        }
    }
    for (std::size_t k = close + 1; k < e.size(); ++k) {
        if (e[k] != ')' && e[k] != ' ') return {};
    }
    return e.substr(open + 1, close - open - 1);
}

// PTX integer literals: decimal, 0x, 0b, octal, U suffix; '-' taken by the caller.
bool parse_int(std::string_view s, unsigned long long& v) {
    if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
    if (s.empty()) return false;
    unsigned base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0') {
        base = 8;
        s.remove_prefix(1);
    }
    v = 0;
    for (char c : s) {
        unsigned d = 0;
        if (c >= '0' && c <= '9') {
            d = static_cast<unsigned>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            d = static_cast<unsigned>(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            d = static_cast<unsigned>(c - 'A' + 10);
        } else {
            return false;
        }
        if (d >= base) return false;
        v = v * base + d;  // wraps like ptxas for absurd sizes; only small values are sane
    }
    return true;
}

std::string Gen::label(std::string_view name) const {
    std::string out = "_ptx_L" + std::to_string(st_.unique) + "_";
    for (char c : name) out += c == '$' ? 'S' : c == '%' ? 'P' : c;
    return out;
}

// %N, %[name], %% and %= replaced; comments blanked. Operands become \x01N\x02.
std::string Gen::substitute(const std::string& t) {
    std::string s;
    s.reserve(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
            while (i < t.size() && t[i] != '\n') ++i;
            s += '\n';
            continue;
        }
        if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
            const std::size_t end = t.find("*/", i + 2);
            i = end == std::string::npos ? t.size() : end + 1;
            s += ' ';
            continue;
        }
        if (c != '%' || st_.basic || i + 1 >= t.size()) {
            s += c;
            continue;
        }
        const char n = t[i + 1];
        if (n == '%') {
            s += '%';
            ++i;
        } else if (n == '=') {
            s += std::to_string(st_.unique);
            ++i;
        } else if (n >= '0' && n <= '9') {
            std::size_t j = i + 1;
            std::size_t index = 0;
            while (j < t.size() && t[j] >= '0' && t[j] <= '9' && index < 100000) {
                index = index * 10 + static_cast<std::size_t>(t[j] - '0');
                ++j;
            }
            s += '\x01';
            s += std::to_string(index);
            s += '\x02';
            i = j - 1;
        } else if (n == '[') {
            const std::size_t close = t.find(']', i + 2);
            if (close == std::string::npos) {
                fail("", "an unclosed %[name]");
                return s;
            }
            const std::string_view name(t.data() + i + 2, close - i - 2);
            std::size_t index = st_.operands.size();
            for (std::size_t k = 0; k < st_.operands.size(); ++k) {
                if (st_.operands[k].name == name) index = k;
            }
            if (index == st_.operands.size()) {
                fail("", "no operand is named '" + std::string(name) + "'");
                return s;
            }
            s += '\x01';
            s += std::to_string(index);
            s += '\x02';
            i = close;
        } else {
            s += c;  // lenient: a lone '%' before a register name
        }
    }
    return s;
}

bool Gen::parse_operand(std::string_view s, Val& v) {
    s = trim(s);
    if (s.empty()) return fail("", "an empty operand");
    if (s == "_") {
        v.kind = Val::Sink;
        return true;
    }
    if (s.front() == '!') {
        bool neg = false;
        while (!s.empty() && (s.front() == '!' || blank(s.front()))) {
            neg = neg != (s.front() == '!');
            s.remove_prefix(1);
        }
        if (s.empty() || s.front() == '!' || s.front() == '[' || s.front() == '{') {
            return fail("", "a bad predicate operand");
        }
        if (!parse_operand(s, v)) return false;
        v.neg = neg;
        v.writable = false;
        return true;
    }
    if (s.front() == '[') {
        if (s.back() != ']') return fail("", "an address without ']'");
        std::string_view in = trim(s.substr(1, s.size() - 2));
        long long off = 0;
        std::size_t plus = in.find_first_of("+-", 1);
        if (plus != std::string_view::npos) {
            std::string_view o = trim(in.substr(plus + 1));
            bool negative = in[plus] == '-';
            if (!o.empty() && o.front() == '-') {
                negative = !negative;
                o = trim(o.substr(1));
            }
            unsigned long long u = 0;
            if (!parse_int(o, u) || u > (1ULL << 40)) return fail("", "a bad address offset");
            off = negative ? -static_cast<long long>(u) : static_cast<long long>(u);
            in = trim(in.substr(0, plus));
        }
        Val base;
        if (in.empty() || in.front() == '[' || in.front() == '{' || in.front() == '!') {
            return fail("", "a bad address");
        }
        if (!parse_operand(in, base)) return false;
        if (base.kind != Val::Reg && base.kind != Val::Imm) {
            return fail("", "an address that is not a register");
        }
        v.kind = Val::Addr;
        v.offset = off;
        v.elems.push_back(std::move(base));
        return true;
    }
    if (s.front() == '{') {
        if (s.back() != '}') return fail("", "a vector without '}'");
        v.kind = Val::Vec;
        std::string_view in = s.substr(1, s.size() - 2);
        while (true) {
            const std::size_t comma = in.find(',');
            Val e;
            const std::string_view part = trim(in.substr(0, comma));
            if (!part.empty() && (part.front() == '[' || part.front() == '{')) {
                return fail("", "a vector inside a vector or an address");
            }
            if (!parse_operand(part, e)) return false;
            v.elems.push_back(std::move(e));
            if (comma == std::string_view::npos) break;
            in.remove_prefix(comma + 1);
        }
        return true;
    }
    if (s.front() == '\x01') {
        std::size_t index = 0;
        std::size_t k = 1;
        while (k < s.size() && s[k] >= '0' && s[k] <= '9') {
            index = index * 10 + static_cast<std::size_t>(s[k] - '0');
            ++k;
        }
        if (k + 1 != s.size() || s[k] != '\x02') return fail("", "an operand inside a name");
        if (index >= st_.operands.size()) {
            return fail("", "%" + std::to_string(index) + " names no operand");
        }
        const AsmOperand& o = st_.operands[index];
        named_[index] = true;
        if (o.constraint == 'n') {
            v.kind = Val::Imm;
            v.writable = false;
            v.ival = static_cast<unsigned long long>(o.value);
            v.fexpr = paren(o.expr);  // a constant expression: read through a cast
            v.imm_float = false;
            v.c = o.known ? "" : paren(o.expr);
            return true;
        }
        v.kind = Val::Reg;
        v.c = "_ptx_" + std::to_string(index);
        v.st = o.constraint == 'l'   ? T::U64
               : o.constraint == 'h' ? T::U16
               : o.constraint == 'c' ? T::U8
               : o.constraint == 'f' ? T::F32
               : o.constraint == 'd' ? T::F64
                                     : T::U32;
        v.writable = o.output;
        v.shared = shared_of_[index];
        if (v.shared.empty()) value_used_[index] = true;
        v.ival = index;  // which asm operand, for shared_of_
        return true;
    }
    if (s.front() == '-' || (s.front() >= '0' && s.front() <= '9')) {
        v.kind = Val::Imm;
        v.writable = false;
        const bool negative = s.front() == '-';
        std::string_view n = trim(negative ? s.substr(1) : s);
        if (n.size() == 10 && (n.substr(0, 2) == "0f" || n.substr(0, 2) == "0F")) {
            unsigned long long b = 0;
            if (!parse_int("0x" + std::string(n.substr(2)), b)) return fail("", "a bad float");
            v.imm_float = true;
            v.fexpr = std::string(negative ? "-" : "") + "__uint_as_float(" + hex(b) + ")";
            return true;
        }
        if (n.size() == 18 && (n.substr(0, 2) == "0d" || n.substr(0, 2) == "0D")) {
            unsigned long long b = 0;
            if (!parse_int("0x" + std::string(n.substr(2)), b)) return fail("", "a bad double");
            v.imm_float = true;
            v.imm_double = true;
            v.fexpr = std::string(negative ? "-" : "") + "__longlong_as_double((long long)" +
                      hex(b) + ")";
            return true;
        }
        unsigned long long u = 0;
        if (parse_int(n, u)) {
            v.ival = negative ? 0ULL - u : u;
            return true;
        }
        // A decimal float: digits, '.', 'e', sign of the exponent.
        for (char c : n) {
            if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' ||
                  c == '-')) {
                return fail("", "a bad number '" + std::string(s) + "'");
            }
        }
        v.imm_float = true;
        v.imm_double = true;
        v.fexpr = std::string(negative ? "-" : "") + std::string(n);
        if (v.fexpr.find_first_of(".eE") == std::string::npos) v.fexpr += ".0";
        return true;
    }
    // Registers: declared ones first, then the special registers.
    for (char c : s) {
        if (!ident_char(c) && c != '%' && c != '.')
            return fail("", "a bad operand '" + std::string(s) + "'");
    }
    const auto found = regs_.find(std::string(s));
    if (found != regs_.end() && !found->second.empty()) {
        v.kind = Val::Reg;
        v.c = found->second.back().c;
        v.st = found->second.back().st;
        return true;
    }
    v.kind = Val::Special;
    v.writable = false;
    v.st = T::U32;
    const std::string mask = lw_ ? "__cass_lanemask_" : "__lanemask_";
    const std::string tid = "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))";
    const std::string size = "(blockDim.x * blockDim.y * blockDim.z)";
    if (s == "%laneid") {
        v.c = lane();
    } else if (s == "%warpid") {
        v.c = lw_ ? "__cass_warp_id()" : "((unsigned)" + tid + " / (unsigned)warpSize)";
    } else if (s == "%nwarpid") {
        v.c = lw_ ? "((unsigned)" + size + " + 31u) / 32u"
                  : "(((unsigned)" + size + " + (unsigned)warpSize - 1u) / (unsigned)warpSize)";
    } else if (s == "WARP_SZ") {
        v.c = lw_ ? "32u" : "(unsigned)warpSize";
    } else if (s == "%smid") {
        v.c = "__smid()";
    } else if (s == "%lanemask_eq" || s == "%lanemask_lt" || s == "%lanemask_gt") {
        v.c = lw_ ? mask + std::string(s.substr(10)) + "()"
                  : "((unsigned)" + mask + std::string(s.substr(10)) + "())";
    } else if (s == "%lanemask_le") {
        v.c = lw_ ? "__cass_lanemask_le()" : "((unsigned)(__lanemask_lt() | __lanemask_eq()))";
    } else if (s == "%lanemask_ge") {
        v.c = lw_ ? "__cass_lanemask_ge()" : "((unsigned)~__lanemask_lt())";
    } else if (s == "%clock") {
        v.c = "((unsigned)clock())";
    } else if (s == "%clock64") {
        v.c = "((unsigned long long)clock64())";
        v.st = T::U64;
    } else if (s == "%globaltimer") {
        // The constant 100 MHz clock of gfx9 and gfx10 (hipDeviceAttributeWallClockRate), in ns.
        v.c = "((unsigned long long)__builtin_amdgcn_s_memrealtime() * 10ull)";
        v.st = T::U64;
    } else if (s.size() == 6 && s.substr(0, 5) == "%tid." && s[5] >= 'x' && s[5] <= 'z') {
        v.c = "threadIdx." + std::string(1, s[5]);
    } else if (s.size() == 7 && s.substr(0, 6) == "%ntid." && s[6] >= 'x' && s[6] <= 'z') {
        v.c = "blockDim." + std::string(1, s[6]);
    } else if (s.size() == 8 && s.substr(0, 7) == "%ctaid." && s[7] >= 'x' && s[7] <= 'z') {
        v.c = "blockIdx." + std::string(1, s[7]);
    } else if (s.size() == 9 && s.substr(0, 8) == "%nctaid." && s[8] >= 'x' && s[8] <= 'z') {
        v.c = "gridDim." + std::string(1, s[8]);
    } else if (s.front() != '%' && s.find('.') == std::string_view::npos) {
        v.kind = Val::Label;
        v.c = label(s);
    } else {
        return fail("register " + std::string(s), s.front() == '%' ? "" : "an undeclared register");
    }
    return true;
}

std::string Gen::rd(const Val& v, T t) {
    switch (v.kind) {
        case Val::Reg:
        case Val::Special: {
            if (!v.shared.empty()) {
                fail("", "a shared-memory address used as a value");
                return "0";
            }
            std::string e = convert(v.c, v.st, t);
            if (v.neg) e = "(!" + paren(e) + ")";
            return e;
        }
        case Val::Imm:
            if (v.imm_float) {
                if (is_float(t)) return cast(t, v.fexpr);
                if (t == T::F16 || !is_int(t)) {
                    fail("", "a float immediate for ." + std::string(ctype(t)));
                    return "0";
                }
                return convert(v.imm_double ? "(double)" + paren(v.fexpr) : v.fexpr,
                               v.imm_double ? T::F64 : T::F32, t);
            }
            if (!v.c.empty()) return cast(t, v.c);  // an "n" operand's expression
            if (t == T::Pred) return v.ival != 0 ? "true" : "false";
            if (is_float(t)) return cast(t, dec(static_cast<long long>(v.ival)));
            if (is_signed(t)) return cast(t, dec(static_cast<long long>(v.ival)) + "ll");
            return cast(t, hex(v.ival));
        default:
            fail("", "an operand in the wrong place");
            return "0";
    }
}

std::string Gen::wr(const Val& v, T t, const std::string& e) {
    if (v.kind == Val::Sink) return "(void)" + paren(e) + "; ";
    if (v.kind != Val::Reg || !v.writable) {
        fail("", "a destination that cannot be written");
        return "";
    }
    return v.c + " = " + convert(paren(e), t, v.st) + "; ";
}

// A pointer to `elem` at address operand `a`.
std::string Gen::ptr(const Val& a, T elem, bool shared_space) {
    if (a.kind != Val::Addr || a.elems.size() != 1) {
        fail("", "an address operand is expected");
        return "0";
    }
    const Val& base = a.elems[0];
    const std::string pt = "(" + std::string(ctype(elem)) + "*)";
    const std::string off = a.offset == 0 ? "" : " + " + dec(a.offset) + "ll";
    if (!base.shared.empty())
        return "(" + pt + "((unsigned char*)" + paren(base.shared) + off + "))";
    if (shared_space) {
        fail("", "a shared-memory address that is not __cvta_generic_to_shared(pointer)");
        return "0";
    }
    if (base.kind == Val::Reg && bits(base.st) != 64) {
        fail("", "a 32-bit address");
        return "0";
    }
    return "(" + pt + "(" + rd(base, T::U64) + off + "))";
}

bool Gen::declare(std::string_view rest) {
    // .reg .type a, b<4>, c;
    rest = trim(rest);
    if (rest.empty() || rest.front() != '.') return fail(".reg", "a .reg without a type");
    std::size_t sp = 1;
    while (sp < rest.size() && ident_char(rest[sp])) ++sp;
    const T t = parse_type(rest.substr(1, sp - 1));
    if (t == T::None) return fail(".reg ." + std::string(rest.substr(1, sp - 1)));
    rest = rest.substr(sp);
    std::string line = std::string(ctype(t)) + " ";
    bool first = true;
    while (true) {
        const std::size_t comma = rest.find(',');
        std::string_view name = trim(rest.substr(0, comma));
        std::size_t count = 0;
        bool ranged = false;
        const std::size_t lt = name.find('<');
        if (lt != std::string_view::npos) {
            if (name.back() != '>') return fail("", "a bad .reg range");
            unsigned long long n = 0;
            if (!parse_int(trim(name.substr(lt + 1, name.size() - lt - 2)), n)) {
                return fail("", "a bad .reg range");
            }
            if (n > 1024) return fail("", "more than 1024 registers in one .reg");
            count = static_cast<std::size_t>(n);
            ranged = true;
            name = trim(name.substr(0, lt));
        }
        if (name.empty()) return fail("", "a .reg without a name");
        for (char c : name) {
            if (!ident_char(c) && c != '%') return fail("", "a bad register name");
        }
        for (std::size_t k = 0; k < (ranged ? count : 1); ++k) {
            const std::string ptx = std::string(name) + (ranged ? std::to_string(k) : "");
            if (++declared_ > 4096) return fail("", "more than 4096 registers");
            const std::string c = cname(ptx) + "_" + std::to_string(scopes_.size());
            regs_[ptx].push_back(Reg{c, t});
            scopes_.back().push_back(ptx);
            line += (first ? "" : ", ") + c + " = 0";
            first = false;
        }
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    if (!first) body_ += line + "; ";
    return true;
}

std::vector<std::string_view> split_args(std::string_view s) {
    std::vector<std::string_view> out;
    int depth = 0;
    std::size_t from = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
        const char c = s[k];
        if (c == '[' || c == '{') ++depth;
        if (c == ']' || c == '}') --depth;
        if (c == ',' && depth == 0) {
            out.push_back(trim(s.substr(from, k - from)));
            from = k + 1;
        }
    }
    if (!trim(s.substr(from)).empty() || !out.empty()) out.push_back(trim(s.substr(from)));
    return out;
}

bool Gen::statement(std::string_view s) {
    s = trim(s);
    if (s.empty()) return true;
    std::string guard;
    if (s.front() == '@') {
        s.remove_prefix(1);
        bool neg = false;
        if (!s.empty() && s.front() == '!') {
            neg = true;
            s.remove_prefix(1);
        }
        std::size_t e = 0;
        while (e < s.size() &&
               (ident_char(s[e]) || s[e] == '%' || s[e] == '\x01' || s[e] == '\x02'))
            ++e;
        Val p;
        if (!parse_operand(s.substr(0, e), p)) return false;
        guard = rd(p, T::Pred);
        if (neg) guard = "!" + guard;
        s = trim(s.substr(e));
    }
    std::size_t e = 0;
    while (e < s.size() && (ident_char(s[e]) || s[e] == '.' || s[e] == ':')) ++e;
    const std::string_view op = s.substr(0, e);
    const std::string_view rest = trim(s.substr(e));
    if (op.empty()) return fail("", "an instruction that does not start with a name");
    if (op == ".reg") {
        if (!guard.empty()) return fail("", "a guarded .reg");
        return declare(rest);
    }
    if (op.front() == '.') return fail(std::string(op));
    stmt_.clear();
    if (!instruction(op, split_args(rest))) return false;
    if (failed()) return false;
    body_ += guard.empty() ? stmt_ : "if (" + guard + ") { " + stmt_ + "} ";
    std::string head(op);
    bool seen = false;
    for (const std::string& o : out_.opcodes) seen = seen || o == head;
    if (!seen && out_.opcodes.size() < 64) out_.opcodes.push_back(head);
    return true;
}

bool Gen::instruction(std::string_view op, const std::vector<std::string_view>& args) {
    // Components: head, modifiers, types (in order).
    std::vector<std::string_view> parts;
    {
        std::string_view r = op;
        while (true) {
            const std::size_t dot = r.find('.');
            parts.push_back(r.substr(0, dot));
            if (dot == std::string_view::npos) break;
            r.remove_prefix(dot + 1);
        }
    }
    const std::string_view head = parts[0];
    std::vector<std::string_view> m;
    std::vector<T> ts;
    for (std::size_t k = 1; k < parts.size(); ++k) {
        const T t = parse_type(parts[k]);
        if (t != T::None) {
            ts.push_back(t);
        } else {
            m.push_back(parts[k]);
        }
    }
    static constexpr std::string_view kHeads[] = {
        "mov",   "add",      "sub",       "mul",        "mad",   "fma",     "div",  "rem",  "min",
        "max",   "abs",      "neg",       "and",        "or",    "xor",     "not",  "cnot", "shl",
        "shr",   "selp",     "cvta",      "addc",       "subc",  "madc",    "bfe",  "bfi",  "prmt",
        "lop3",  "brev",     "popc",      "clz",        "fns",   "bfind",   "setp", "cvt",  "ld",
        "st",    "prefetch", "prefetchu", "membar",     "fence", "atom",    "red",  "cp",   "shfl",
        "vote",  "match",    "redux",     "activemask", "bar",   "barrier", "bra",  "shf",  "sqrt",
        "rsqrt", "rcp",      "ex2",       "lg2",        "sin",   "cos",     "tanh",
    };
    bool known = false;
    for (std::string_view k : kHeads) known = known || k == head;
    if (!known) return fail(std::string(op));
    std::vector<Val> a;
    pair_ = false;
    for (std::string_view s : args) {
        // d|p: two destinations.
        const std::size_t bar = s.find('|');
        if (bar != std::string_view::npos &&
            (head == "setp" || head == "shfl" || head == "match")) {
            Val d;
            Val p;
            if (!parse_operand(s.substr(0, bar), d) || !parse_operand(s.substr(bar + 1), p))
                return false;
            a.push_back(std::move(d));
            a.push_back(std::move(p));
            pair_ = pair_ || a.size() == 2;
            continue;
        }
        Val v;
        if (!parse_operand(s, v)) {
            if (out_.failed.rfind("register ", 0) == 0) {
                out_.reason = "it reads the special register " + out_.failed.substr(9);
            }
            out_.failed = std::string(op);
            return false;
        }
        a.push_back(std::move(v));
    }
    const std::string name(op);
    const T t = ts.empty() ? T::None : ts.back();
    bool ok = false;
    if (head == "mov" || head == "add" || head == "sub" || head == "mul" || head == "mad" ||
        head == "fma" || head == "div" || head == "rem" || head == "min" || head == "max" ||
        head == "abs" || head == "neg" || head == "and" || head == "or" || head == "xor" ||
        head == "not" || head == "cnot" || head == "shl" || head == "shr" || head == "selp" ||
        head == "cvta" || head == "sqrt" || head == "rsqrt" || head == "rcp" || head == "ex2" ||
        head == "lg2" || head == "sin" || head == "cos" || head == "tanh") {
        ok = has(m, "cc") ? carry(head, m, t, a) : arith(head, m, t, a);
    } else if (head == "addc" || head == "subc" || head == "madc") {
        ok = carry(head, m, t, a);
    } else if (head == "bfe" || head == "bfi" || head == "prmt" || head == "lop3" ||
               head == "brev" || head == "popc" || head == "clz" || head == "fns" ||
               head == "bfind" || head == "shf") {
        ok = bits_op(head, m, t, a);
    } else if (head == "setp") {
        ok = ts.size() == 1 && compare(m, t, a);
    } else if (head == "cvt") {
        ok = cvt(m, ts, a);
    } else if (head == "ld" || head == "st" || head == "prefetch" || head == "prefetchu" ||
               head == "membar" || head == "fence" || head == "atom" || head == "red" ||
               head == "cp") {
        ok = memory(head, m, t, a);
    } else if (head == "shfl" || head == "vote" || head == "match" || head == "redux" ||
               head == "activemask" || head == "bar" || head == "barrier") {
        ok = warp(head, m, t, a);
    } else if (head == "bra") {
        if (a.size() == 1 && a[0].kind == Val::Label && only(m, {"uni"})) {
            stmt_ = "goto " + a[0].c + "; ";
            ok = true;
        }
    }
    if (!ok && !failed()) fail(name);
    if (!ok && out_.failed.empty()) out_.failed = name;
    return ok && !failed();
}

// --- integer and float arithmetic, mov, selp ------------------------------------
bool Gen::arith(std::string_view h, const std::vector<std::string_view>& m, T t,
                const std::vector<Val>& a) {
    if (t == T::None) return false;
    const bool fl = is_float(t);
    const auto n = a.size();
    auto R = [&](std::size_t k, T ty) { return rd(a[k], ty); };
    if (h == "mov") {
        if (n != 2 || !m.empty()) return false;
        if (a[1].kind == Val::Vec) {  // pack {lo, hi}
            const int nb = bits(t) / static_cast<int>(a[1].elems.size());
            if (nb != 8 && nb != 16 && nb != 32) return false;
            const T part = unsigned_of(nb);
            std::string e;
            for (std::size_t k = 0; k < a[1].elems.size(); ++k) {
                e += (k ? " | " : "") + std::string("(") +
                     cast(unsigned_of(bits(t)), rd(a[1].elems[k], part)) + " << " +
                     std::to_string(nb * static_cast<int>(k)) + ")";
            }
            stmt_ = wr(a[0], unsigned_of(bits(t)), e);
            return true;
        }
        if (a[0].kind == Val::Vec) {  // unpack
            const int nb = bits(t) / static_cast<int>(a[0].elems.size());
            if (nb != 8 && nb != 16 && nb != 32) return false;
            const std::string v = R(1, unsigned_of(bits(t)));
            for (std::size_t k = 0; k < a[0].elems.size(); ++k) {
                stmt_ += wr(
                    a[0].elems[k], unsigned_of(nb),
                    cast(unsigned_of(nb), v + " >> " + std::to_string(nb * static_cast<int>(k))));
            }
            return true;
        }
        if (a[1].kind == Val::Label) return false;
        stmt_ = wr(a[0], t, R(1, t));
        return true;
    }
    if (h == "cvta") {  // generic and global addresses are the same on both sides
        if (n != 2 || !(has(m, "global") && (m.size() == 1 || (m.size() == 2 && has(m, "to"))))) {
            return false;
        }
        stmt_ = wr(a[0], t, R(1, t));
        return true;
    }
    if (h == "selp") {
        if (n != 4 || !m.empty()) return false;
        stmt_ = wr(a[0], t, R(3, T::Pred) + " ? " + R(1, t) + " : " + R(2, t));
        return true;
    }
    if (fl) {
        // Round-to-nearest (the default) only; .ftz keeps AMD's denormal mode.
        if (!only(m, {"rn", "ftz", "sat", "approx", "full", "lo"})) return false;
        const char* f = t == T::F32 ? "f" : "";
        std::string e;
        if ((h == "add" || h == "sub" || h == "mul" || h == "div") && n == 3) {
            const char* o = h == "add" ? " + " : h == "sub" ? " - " : h == "mul" ? " * " : " / ";
            e = R(1, t) + o + R(2, t);
        } else if ((h == "fma" || h == "mad") && n == 4) {
            e = std::string("fma") + f + "(" + R(1, t) + ", " + R(2, t) + ", " + R(3, t) + ")";
        } else if ((h == "min" || h == "max") && n == 3) {
            e = std::string("f") + std::string(h) + f + "(" + R(1, t) + ", " + R(2, t) + ")";
        } else if (h == "abs" && n == 2) {
            e = std::string("fabs") + f + "(" + R(1, t) + ")";
        } else if (h == "neg" && n == 2) {
            e = "-" + R(1, t);
        } else if (n == 2 && (h == "sqrt" || h == "rsqrt" || h == "rcp")) {
            // .rn and .approx alike: HIP's own accuracy (.approx asks for less).
            const std::string x = R(1, t);
            e = h == "rcp" ? cast(t, "1") + " / " + x : std::string(h) + f + "(" + x + ")";
        } else if (n == 2 && t == T::F32 && has(m, "approx") &&
                   (h == "ex2" || h == "lg2" || h == "sin" || h == "cos" || h == "tanh")) {
            const char* fn = h == "ex2"   ? "exp2f("
                             : h == "lg2" ? "log2f("
                             : h == "sin" ? "__sinf("
                             : h == "cos" ? "__cosf("
                                          : "tanhf(";
            e = std::string(fn) + R(1, t) + ")";
        } else {
            return false;
        }
        if (has(m, "sat")) e = std::string("fmin") + f + "(fmax" + f + "(" + e + ", 0), 1)";
        stmt_ = wr(a[0], t, e);
        return true;
    }
    const T u = arith_of(t);
    const int nb = bits(t);
    auto U = [&](std::size_t k) { return cast(u, R(k, t)); };
    if (t == T::Pred) {
        if (!m.empty()) return false;
        if ((h == "and" || h == "or" || h == "xor") && n == 3) {
            const char* o = h == "and" ? " && " : h == "or" ? " || " : " != ";
            stmt_ = wr(a[0], T::Pred, R(1, T::Pred) + o + R(2, T::Pred));
            return true;
        }
        if (h == "not" && n == 2) {
            stmt_ = wr(a[0], T::Pred, "!" + R(1, T::Pred));
            return true;
        }
        return false;
    }
    if ((h == "add" || h == "sub") && n == 3) {
        if (has(m, "sat")) {
            if (t != T::S32 || m.size() != 1) return false;
            stmt_ = wr(a[0], T::S64,
                       "[&]() -> long long { long long s = (long long)" + R(1, T::S32) +
                           (h == "add" ? " + " : " - ") + "(long long)" + R(2, T::S32) +
                           "; return s > 2147483647ll ? 2147483647ll : s < -2147483648ll ? "
                           "-2147483648ll : s; }()");
            return true;
        }
        if (!m.empty()) return false;
        stmt_ = wr(a[0], u, U(1) + (h == "add" ? " + " : " - ") + U(2));
        return true;
    }
    if (h == "mul" || h == "mad") {
        const bool mad = h == "mad";
        if (n != (mad ? 4U : 3U) || m.size() != 1) return false;
        if (m[0] == "lo") {
            stmt_ = wr(a[0], u, U(1) + " * " + U(2) + (mad ? " + " + U(3) : ""));
            return true;
        }
        if (m[0] == "wide") {
            if (nb > 32) return false;
            const T w = is_signed(t) ? signed_of(2 * nb) : unsigned_of(2 * nb);
            const T wu = arith_of(w);
            std::string e = cast(wu, cast(w, R(1, t)) + " * " + cast(w, R(2, t)));
            if (mad) e += " + " + cast(wu, R(3, w));
            stmt_ = wr(a[0], wu, e);
            return true;
        }
        if (m[0] == "hi") {
            std::string hi;
            if (nb == 64) {
                hi = (is_signed(t) ? "__mul64hi(" : "__umul64hi(") + R(1, t) + ", " + R(2, t) + ")";
            } else if (nb == 32) {
                hi = (is_signed(t) ? "__mulhi(" : "__umulhi(") + R(1, t) + ", " + R(2, t) + ")";
            } else {
                hi = "(" + cast(T::S32, R(1, t)) + " * " + cast(T::S32, R(2, t)) + ") >> " +
                     std::to_string(nb);
            }
            stmt_ = wr(a[0], u, cast(u, hi) + (mad ? " + " + U(3) : ""));
            return true;
        }
        return false;
    }
    if (!m.empty()) return false;
    if ((h == "div" || h == "rem") && n == 3) {
        // Computed in the instruction's own type; a zero divisor gives all ones, as on NVIDIA.
        const std::string d = R(2, t);
        stmt_ = wr(a[0], t,
                   d + " == 0 ? " + (h == "div" ? cast(t, "-1") : R(1, t)) + " : " + R(1, t) +
                       (h == "div" ? " / " : " % ") + d);
        return true;
    }
    if ((h == "min" || h == "max") && n == 3) {
        const std::string x = R(1, t);
        const std::string y = R(2, t);
        stmt_ = wr(a[0], t, x + (h == "min" ? " < " : " > ") + y + " ? " + x + " : " + y);
        return true;
    }
    if (h == "abs" && n == 2) {
        stmt_ = wr(a[0], u, R(1, t) + " < 0 ? " + cast(u, "0") + " - " + U(1) + " : " + U(1));
        return true;
    }
    if (h == "neg" && n == 2) {
        stmt_ = wr(a[0], u, cast(u, "0") + " - " + U(1));
        return true;
    }
    if ((h == "and" || h == "or" || h == "xor") && n == 3) {
        const char* o = h == "and" ? " & " : h == "or" ? " | " : " ^ ";
        stmt_ = wr(a[0], u, U(1) + o + U(2));
        return true;
    }
    if (h == "not" && n == 2) {
        stmt_ = wr(a[0], u, "~" + U(1));
        return true;
    }
    if (h == "cnot" && n == 2) {
        stmt_ = wr(a[0], u, cast(u, R(1, t) + " == 0"));
        return true;
    }
    if ((h == "shl" || h == "shr") && n == 3) {
        // PTX clamps the shift amount; C++ leaves a shift by the width undefined.
        std::string b = R(2, T::U32);
        const std::string w = std::to_string(nb) + "u";
        if (a[2].kind == Val::Imm && !a[2].imm_float && a[2].c.empty()) {
            // A constant amount: decided here (clang warns on a shift by the width even when
            // unused).
            const unsigned long long k = a[2].ival;
            if (k >= static_cast<unsigned long long>(nb) && (h == "shl" || !is_signed(t))) {
                stmt_ = wr(a[0], u, cast(u, "0"));
                return true;
            }
            b = std::to_string(k >= static_cast<unsigned long long>(nb) ? nb - 1
                                                                        : static_cast<int>(k)) +
                "u";
        }
        if (h == "shl") {
            stmt_ = wr(a[0], u, b + " >= " + w + " ? " + cast(u, "0") + " : " + U(1) + " << " + b);
        } else if (is_signed(t)) {
            const T s = nb <= 32 ? T::S32 : T::S64;
            const std::string x = cast(s, R(1, t));
            stmt_ = wr(
                a[0], s,
                x + " >> (" + b + " >= " + w + " ? " + std::to_string(nb - 1) + "u : " + b + ")");
        } else {
            stmt_ = wr(a[0], u,
                       b + " >= " + w + " ? " + cast(u, "0") + " : " +
                           cast(u, R(1, unsigned_of(nb))) + " >> " + b);
        }
        return true;
    }
    return false;
}

// --- add.cc / addc / sub.cc / subc / mad.lo.cc / madc: the carry flag as a local
bool Gen::carry(std::string_view h, const std::vector<std::string_view>& m, T t,
                const std::vector<Val>& a) {
    if (bits(t) != 32 && bits(t) != 64) return false;
    if (!is_int(t)) return false;
    const T u = arith_of(t);
    const std::string U = ctype(u);
    const bool cc_out = has(m, "cc");
    const bool cc_in = h == "addc" || h == "subc" || h == "madc";
    uses_cc_ = true;
    std::string x;
    std::string y;
    if (h == "add" || h == "addc" || h == "sub" || h == "subc") {
        if (a.size() != 3 || !only(m, {"cc"})) return false;
        x = rd(a[1], u);
        y = rd(a[2], u);
    } else if (h == "mad" || h == "madc") {
        if (a.size() != 4 || !(has(m, "lo") || has(m, "hi")) || !only(m, {"cc", "lo", "hi"}))
            return false;
        const bool hi = has(m, "hi");
        const std::string p = bits(t) == 64
                                  ? (hi ? "__umul64hi(" + rd(a[1], u) + ", " + rd(a[2], u) + ")"
                                        : rd(a[1], u) + " * " + rd(a[2], u))
                                  : (hi ? "__umulhi(" + rd(a[1], u) + ", " + rd(a[2], u) + ")"
                                        : rd(a[1], u) + " * " + rd(a[2], u));
        if (hi && is_signed(t)) return false;
        x = "(" + U + ")(" + p + ")";
        y = rd(a[3], u);
    } else {
        return false;
    }
    const bool sub = h == "sub" || h == "subc";
    std::string s =
        "{ " + U + " _x = " + x + ", _y = " + y + ", _s = _x " + (sub ? "-" : "+") + " _y; ";
    std::string c = sub ? "(_x < _y)" : "(_s < _x)";
    if (cc_in) {
        s += U + " _t = _s " + (sub ? "-" : "+") + " _ptx_cc; ";
        c = "(" + c + " || " + (sub ? "_s < _ptx_cc" : "_t < _s") + ")";
        s += wr(a[0], u, "_t");
    } else {
        s += wr(a[0], u, "_s");
    }
    if (cc_out) s += "_ptx_cc = " + c + " ? 1u : 0u; ";
    stmt_ = s + "} ";
    return true;
}

// --- bit operations -----------------------------------------------------------------
bool Gen::bits_op(std::string_view h, const std::vector<std::string_view>& m, T t,
                  const std::vector<Val>& a) {
    const int nb = bits(t);
    if (nb != 32 && nb != 64) return false;
    const T u = unsigned_of(nb);
    const std::string U = ctype(u);
    const std::string all = nb == 32 ? "0xffffffffu" : "0xffffffffffffffffull";
    const std::string one = nb == 32 ? "1u" : "1ull";
    const std::string W = std::to_string(nb) + "u";
    if (h == "bfe" && a.size() == 4 && m.empty()) {
        // bits [pos, pos+len) of a; .s fills the rest with bit min(pos+len-1, msb).
        std::string s = "[&]() -> " + U + " { " + U + " _a = " + rd(a[1], u) +
                        "; unsigned _p = " + rd(a[2], T::U32) +
                        " & 255u, _l = " + rd(a[3], T::U32) + " & 255u; unsigned _k = _p >= " + W +
                        " ? 0u : (_l < " + W + " - _p ? _l : " + W + " - _p); " + U +
                        " _m = _k >= " + W + " ? " + all + " : ((" + one + " << _k) - 1); " + U +
                        " _f = _k == 0 ? 0 : (_a >> _p) & _m; ";
        if (is_signed(t)) {
            s += "if (_l != 0) { unsigned _b = _p + _l - 1u < " + W +
                 " - 1u ? _p + _l - 1u : " + W + " - 1u; if ((_a >> _b) & 1) _f |= ~_m; } ";
        }
        stmt_ = wr(a[0], u, s + "return _f; }()");
        return true;
    }
    if (h == "bfi" && a.size() == 5 && m.empty()) {
        stmt_ = wr(a[0], u,
                   "[&]() -> " + U + " { " + U + " _f = " + rd(a[1], u) + ", _b = " + rd(a[2], u) +
                       "; unsigned _p = " + rd(a[3], T::U32) + " & 255u, _l = " + rd(a[4], T::U32) +
                       " & 255u; unsigned _k = _p >= " + W + " ? 0u : (_l < " + W +
                       " - _p ? _l : " + W + " - _p); if (_k == 0) return _b; " + U +
                       " _m = (_k >= " + W + " ? " + all + " : ((" + one +
                       " << _k) - 1)) << _p; return (_b & ~_m) | ((_f << _p) & _m); }()");
        return true;
    }
    if (h == "prmt" && nb == 32 && a.size() == 4 && m.size() <= 1) {
        std::string sel;  // selector of byte _i from the control _c
        const std::string_view mode = m.empty() ? "" : m[0];
        if (mode.empty()) {
            sel = "(_c >> (4 * _i)) & 15u";
        } else if (mode == "f4e") {
            sel = "((_c & 3u) + _i) & 7u";
        } else if (mode == "b4e") {
            sel = "((_c & 3u) - _i) & 7u";
        } else if (mode == "rc8") {
            sel = "_c & 3u";
        } else if (mode == "ecl") {
            sel = "_i > (_c & 3u) ? _i : (_c & 3u)";
        } else if (mode == "ecr") {
            sel = "_i < (_c & 3u) ? _i : (_c & 3u)";
        } else if (mode == "rc16") {
            sel = "2u * (_c & 1u) + (_i & 1u)";
        } else {
            return false;
        }
        stmt_ =
            wr(a[0], u,
               "[&]() -> unsigned { unsigned long long _v = ((unsigned long long)" + rd(a[2], u) +
                   " << 32) | " + rd(a[1], u) + "; unsigned _c = " + rd(a[3], u) +
                   ", _d = 0; for (unsigned _i = 0; _i < 4u; ++_i) { unsigned _s = " + sel +
                   "; unsigned _b = (unsigned)(_v >> (8 * (_s & 7u))) & 255u; if (_s & 8u) _b = "
                   "(_b & 128u) ? 255u : 0u; _d |= _b << (8 * _i); } return _d; }()");
        return true;
    }
    if (h == "lop3" && nb == 32 && a.size() == 5 && m.empty()) {
        if (a[4].kind != Val::Imm || a[4].imm_float || !a[4].c.empty()) return false;
        const unsigned lut = static_cast<unsigned>(a[4].ival & 0xff);
        const std::string x = rd(a[1], u);
        const std::string y = rd(a[2], u);
        const std::string z = rd(a[3], u);
        std::string e;
        for (unsigned i = 0; i < 8; ++i) {
            if (((lut >> i) & 1) == 0) continue;
            if (!e.empty()) e += " | ";
            e += std::string("(") + ((i & 4) ? "" : "~") + "_a & " + ((i & 2) ? "" : "~") +
                 "_b & " + ((i & 1) ? "" : "~") + "_c)";
        }
        if (e.empty()) e = "0u";
        stmt_ = wr(a[0], u,
                   "[&]() -> unsigned { unsigned _a = " + x + ", _b = " + y + ", _c = " + z +
                       "; return " + e + "; }()");
        return true;
    }
    if (h == "shf" && nb == 32 && a.size() == 4 && m.size() == 2 && (m[0] == "l" || m[0] == "r") &&
        (m[1] == "wrap" || m[1] == "clamp")) {
        // Funnel shift of {b:a} (b the high word); .wrap takes the amount mod 32, .clamp caps it
        // at 32.
        const std::string n = m[1] == "wrap" ? "_n & 31u" : "(_n < 32u ? _n : 32u)";
        const std::string e = m[0] == "r" ? "(unsigned)(_v >> _k)" : "(unsigned)((_v << _k) >> 32)";
        stmt_ =
            wr(a[0], u,
               "[&]() -> unsigned { unsigned long long _v = ((unsigned long long)" + rd(a[2], u) +
                   " << 32) | " + rd(a[1], u) + "; unsigned _n = " + rd(a[3], T::U32) +
                   ", _k = " + n + "; return " + e + "; }()");
        return true;
    }
    if (h == "brev" && a.size() == 2 && m.empty()) {
        stmt_ = wr(a[0], u, (nb == 32 ? "__brev(" : "__brevll(") + rd(a[1], u) + ")");
        return true;
    }
    if (h == "popc" && a.size() == 2 && m.empty()) {
        stmt_ = wr(a[0], T::U32,
                   cast(T::U32, (nb == 32 ? "__popc(" : "__popcll(") + rd(a[1], u) + ")"));
        return true;
    }
    if (h == "clz" && a.size() == 2 && m.empty()) {
        stmt_ = wr(a[0], T::U32,
                   cast(T::U32, nb == 32 ? "__clz((int)" + rd(a[1], u) + ")"
                                         : "__clzll((long long)" + rd(a[1], u) + ")"));
        return true;
    }
    if (h == "bfind" && a.size() == 2 && !is_signed(t) && only(m, {"shiftamt"})) {
        const std::string c = nb == 32 ? "__clz((int)_a)" : "__clzll((long long)_a)";
        const std::string pos =
            has(m, "shiftamt") ? "(unsigned)" + c : std::to_string(nb - 1) + "u - (unsigned)" + c;
        stmt_ = wr(a[0], T::U32,
                   "[&]() -> unsigned { " + U + " _a = " + rd(a[1], u) +
                       "; return _a == 0 ? 0xffffffffu : " + pos + "; }()");
        return true;
    }
    if (h == "fns" && nb == 32 && a.size() == 4 && m.empty()) {
        // The offset-th set bit of the mask counting from base (up for offset > 0, down
        // for < 0); offset 0 asks whether base itself is set.
        stmt_ = wr(
            a[0], T::U32,
            "[&]() -> unsigned { unsigned _m = " + rd(a[1], T::U32) + ", _b = " + rd(a[2], T::U32) +
                " & 31u; int _o = " + rd(a[3], T::S32) +
                "; if (_o == 0) return (_m >> _b) & 1u ? _b : 0xffffffffu; int _n = _o > 0 ? _o : "
                "-_o; int _step = _o > 0 ? 1 : -1; for (int _i = (int)_b; _i >= 0 && _i < 32; _i "
                "+= _step) { if ((_m >> _i) & 1u) { if (--_n == 0) return (unsigned)_i; } } return "
                "0xffffffffu; }()");
        return true;
    }
    return false;
}

// --- setp ------------------------------------------------------------------------
bool Gen::compare(const std::vector<std::string_view>& m, T t, const std::vector<Val>& a) {
    if (m.empty() || t == T::None || t == T::Pred) return false;
    const std::string_view cmp = m[0];
    std::string_view boolop;
    for (std::size_t k = 1; k < m.size(); ++k) {
        if (m[k] == "and" || m[k] == "or" || m[k] == "xor") {
            boolop = m[k];
        } else if (m[k] != "ftz") {
            return false;
        }
    }
    const bool two = pair_;
    const std::size_t first = two ? 2 : 1;
    if (a.size() != first + (boolop.empty() ? 2U : 3U)) return false;
    const std::string x = "_x";
    const std::string y = "_y";
    std::string e;
    const bool fl = is_float(t);
    if (cmp == "eq")
        e = fl ? "_x == _y" : "_x == _y";
    else if (cmp == "ne")
        e = fl ? "(_x < _y || _x > _y)" : "_x != _y";
    else if (cmp == "lt" || cmp == "lo")
        e = "_x < _y";
    else if (cmp == "le" || cmp == "ls")
        e = "_x <= _y";
    else if (cmp == "gt" || cmp == "hi")
        e = "_x > _y";
    else if (cmp == "ge" || cmp == "hs")
        e = "_x >= _y";
    else if (fl && cmp == "equ")
        e = "!(_x < _y || _x > _y)";
    else if (fl && cmp == "neu")
        e = "_x != _y";
    else if (fl && cmp == "ltu")
        e = "!(_x >= _y)";
    else if (fl && cmp == "leu")
        e = "!(_x > _y)";
    else if (fl && cmp == "gtu")
        e = "!(_x <= _y)";
    else if (fl && cmp == "geu")
        e = "!(_x < _y)";
    else if (fl && cmp == "num")
        e = "(_x == _x && _y == _y)";
    else if (fl && cmp == "nan")
        e = "(_x != _x || _y != _y)";
    else
        return false;
    if ((cmp == "lo" || cmp == "ls" || cmp == "hi" || cmp == "hs") && is_signed(t)) return false;
    // .b types compare as unsigned; lt/gt on .u types are unsigned too (C++ does that).
    const T ct = t == T::B16   ? T::U16
                 : t == T::B32 ? T::U32
                 : t == T::B64 ? T::U64
                 : t == T::B8  ? T::U8
                               : t;
    std::string s = "{ " + std::string(ctype(ct)) + " _x = " + rd(a[first], ct) +
                    ", _y = " + rd(a[first + 1], ct) + "; bool _r = " + e + "; ";
    std::string q = "!_r";
    std::string r = "_r";
    if (!boolop.empty()) {
        const std::string c = rd(a[first + 2], T::Pred);
        const char* o = boolop == "and" ? " && " : boolop == "or" ? " || " : " != ";
        r = "(_r" + std::string(o) + c + ")";
        q = "(!_r" + std::string(o) + c + ")";
    }
    s += wr(a[0], T::Pred, r);
    if (two) s += wr(a[1], T::Pred, q);
    stmt_ = s + "} ";
    return true;
}

// --- cvt: rounding and saturation ----------------------------------------------------
bool Gen::cvt(const std::vector<std::string_view>& m, const std::vector<T>& ts,
              const std::vector<Val>& a) {
    if (ts.size() != 2 || a.size() != 2) return false;
    const T dt = ts[0];
    const T at = ts[1];
    std::string_view rnd;
    bool sat = false;
    for (std::string_view x : m) {
        if (x == "rn" || x == "rz" || x == "rm" || x == "rp" || x == "rni" || x == "rzi" ||
            x == "rmi" || x == "rpi") {
            if (!rnd.empty()) return false;
            rnd = x;
        } else if (x == "sat") {
            sat = true;
        } else if (x != "ftz") {
            return false;
        }
    }
    const bool dflt = is_float(dt) || dt == T::F16;
    const bool aflt = is_float(at) || at == T::F16;
    std::string v = rd(a[1], at);
    if (at == T::F16) v = "__half2float(__ushort_as_half(" + v + "))";
    const T af = at == T::F16 ? T::F32 : at;  // the C++ type of v
    auto satf = [&](const std::string& e, const char* f) {
        return sat ? std::string("fmin") + f + "(fmax" + f + "(" + e + ", 0), 1)" : e;
    };
    if (!dflt && !aflt) {  // integer to integer
        if (!rnd.empty() || dt == T::Pred || at == T::Pred) return false;
        std::string e = cast(at, v);
        if (sat) {
            const int nb = bits(dt);
            const bool ds = is_signed(dt);
            const unsigned long long mx =
                ds ? (1ULL << (nb - 1)) - 1 : (nb == 64 ? ~0ULL : (1ULL << nb) - 1);
            const long long mn =
                ds ? (nb == 64 ? (-9223372036854775807LL - 1) : -(1LL << (nb - 1))) : 0;
            if (is_signed(at)) {
                e = "[&]() -> long long { long long _v = " + e + "; return _v < " + dec(mn) +
                    "ll ? " + dec(mn) + "ll : (unsigned long long)_v > " + hex(mx) +
                    " && _v > 0 ? (long long)" + hex(mx) + " : _v; }()";
                stmt_ = wr(a[0], T::S64, e);
            } else {
                e = "[&]() -> unsigned long long { unsigned long long _v = " + e +
                    "; return _v > " + hex(mx) + " ? " + hex(mx) + " : _v; }()";
                stmt_ = wr(a[0], T::U64, e);
            }
            return true;
        }
        stmt_ = wr(a[0], dt, cast(dt, e));
        return true;
    }
    if (aflt && !dflt) {  // float to integer: round, then clamp
        if (dt == T::Pred) return false;
        const char* f = rnd == "rni"   ? "rint"
                        : rnd == "rmi" ? "floor"
                        : rnd == "rpi" ? "ceil"
                                       : "trunc";
        if (!rnd.empty() && rnd != "rni" && rnd != "rzi" && rnd != "rmi" && rnd != "rpi")
            return false;
        const int nb = bits(dt);
        const bool ds = is_signed(dt);
        char lo[64];
        char hi[64];
        std::snprintf(lo, sizeof lo, "%.1f", ds ? -std::ldexp(1.0, nb - 1) : 0.0);
        std::snprintf(hi, sizeof hi, "%.1f", std::ldexp(1.0, ds ? nb - 1 : nb));
        const std::string ct = ctype(dt);
        const std::string mx = ds ? "(" + ct + ")" + hex((1ULL << (nb - 1)) - 1)
                                  : "(" + ct + ")" + hex(nb == 64 ? ~0ULL : (1ULL << nb) - 1);
        const std::string mn = ds ? "(" + ct + ")(" + std::string(lo) + ")" : "(" + ct + ")0";
        // NaN gives 0, except from an f64 source or into a 64-bit integer, where it gives
        // 1 << (bits - 1), MININT for a signed type (PTX ISA 9.0, cvt).
        const std::string nan =
            at == T::F64 || nb == 64 ? "(" + ct + ")" + hex(1ULL << (nb - 1)) : std::string("0");
        stmt_ = wr(a[0], dt,
                   "[&]() -> " + ct + " { double _v = " + f + "((double)" + paren(v) +
                       "); if (_v != _v) return " + nan + "; if (_v <= " + lo + ") return " + mn +
                       "; if (_v >= " + hi + ") return " + mx + "; return (" + ct + ")_v; }()");
        return true;
    }
    if (!aflt && dflt) {  // integer to float
        if (at == T::Pred) return false;
        if (dt == T::F16) return false;
        const char* f = dt == T::F32 ? "f" : "";
        if (rnd.empty() || rnd == "rn" || (dt == T::F64 && bits(at) <= 32)) {
            stmt_ = wr(a[0], dt, satf(cast(dt, v), f));
            return true;
        }
        if (dt != T::F32 || bits(at) > 32 || (rnd != "rz" && rnd != "rm" && rnd != "rp"))
            return false;
        const std::string fix =
            rnd == "rz"   ? "if (fabs((double)_f) > fabs(_x)) _f = nextafterf(_f, 0.0f);"
            : rnd == "rm" ? "if ((double)_f > _x) _f = nextafterf(_f, -INFINITY);"
                          : "if ((double)_f < _x) _f = nextafterf(_f, INFINITY);";
        stmt_ = wr(a[0], dt,
                   satf("[&]() -> float { double _x = (double)" + paren(v) +
                            "; float _f = (float)_x; " + fix + " return _f; }()",
                        f));
        return true;
    }
    // float to float
    if (dt == T::F16) {
        if (af != T::F32 || at == T::F16) return false;
        const char* fn = rnd == "rz"   ? "__float2half_rz("
                         : rnd == "rm" ? "__float2half_rd("
                         : rnd == "rp" ? "__float2half_ru("
                                       : "__float2half_rn(";
        if (!rnd.empty() && rnd != "rn" && rnd != "rz" && rnd != "rm" && rnd != "rp") return false;
        stmt_ = wr(a[0], T::U16, "__half_as_ushort(" + std::string(fn) + satf(v, "f") + "))");
        return true;
    }
    const char* f = dt == T::F32 ? "f" : "";
    if (af == dt || (af == T::F32 && dt == T::F64)) {
        std::string e = cast(dt, v);
        if (rnd == "rni")
            e = std::string("rint") + f + "(" + e + ")";
        else if (rnd == "rzi")
            e = std::string("trunc") + f + "(" + e + ")";
        else if (rnd == "rmi")
            e = std::string("floor") + f + "(" + e + ")";
        else if (rnd == "rpi")
            e = std::string("ceil") + f + "(" + e + ")";
        else if (!rnd.empty() && !(af == T::F32 && dt == T::F64))
            return false;
        stmt_ = wr(a[0], dt, satf(e, f));
        return true;
    }
    // f64 -> f32
    if (rnd.empty() || rnd == "rn") {
        stmt_ = wr(a[0], dt, satf(cast(T::F32, v), "f"));
        return true;
    }
    const std::string fix = rnd == "rz"
                                ? "if (fabs((double)_f) > fabs(_x)) _f = nextafterf(_f, 0.0f);"
                            : rnd == "rm" ? "if ((double)_f > _x) _f = nextafterf(_f, -INFINITY);"
                            : rnd == "rp" ? "if ((double)_f < _x) _f = nextafterf(_f, INFINITY);"
                                          : "";
    if (fix.empty()) return false;
    stmt_ = wr(a[0], dt,
               satf("[&]() -> float { double _x = " + v + "; float _f = (float)_x; " + fix +
                        " return _f; }()",
                    "f"));
    return true;
}

// --- loads, stores, fences, atomics, cp.async ---------------------------------------
bool Gen::memory(std::string_view h, const std::vector<std::string_view>& m, T t,
                 const std::vector<Val>& a) {
    auto space = [&](bool& shared) {
        shared = has(m, "shared") || has(m, "shared::cta");
        return !(has(m, "local") || has(m, "param") || has(m, "const") ||
                 has(m, "shared::cluster"));
    };
    auto scope_fence = [&]() -> std::string {
        return has(m, "cta")   ? "__threadfence_block(); "
               : has(m, "sys") ? "__threadfence_system(); "
                               : "__threadfence(); ";
    };
    if (h == "membar" || h == "fence") {
        if (!a.empty()) return false;
        if (h == "membar" ? !only(m, {"cta", "gl", "sys"}) || m.size() != 1
                          : !only(m, {"sc", "acq_rel", "cta", "gpu", "sys"}) || m.size() != 2) {
            return false;
        }
        stmt_ = has(m, "cta")   ? "__threadfence_block(); "
                : has(m, "sys") ? "__threadfence_system(); "
                                : "__threadfence(); ";
        return true;
    }
    if (h == "prefetch" || h == "prefetchu") {
        // A hint: nothing to do for the result.
        if (a.size() != 1 || a[0].kind != Val::Addr || !only(m, {"global", "local", "L1", "L2"}))
            return false;
        stmt_ = "(void)" + ptr(a[0], T::U8, false) + "; ";
        return true;
    }
    if (h == "cp") {
        // cp.async: done at once, so commit and wait have nothing left to wait for.
        if (m.empty() || m[0] != "async") return false;
        if (m.size() == 2 && (m[1] == "commit_group" || m[1] == "wait_all") && a.empty()) {
            stmt_ = "; ";
            return true;
        }
        if (m.size() == 2 && m[1] == "wait_group" && a.size() == 1 && a[0].kind == Val::Imm) {
            stmt_ = "; ";
            return true;
        }
        if (m.size() < 4 || (m[1] != "ca" && m[1] != "cg") || m[2] != "shared" || m[3] != "global")
            return false;
        for (std::size_t k = 4; k < m.size(); ++k) {
            if (m[k].substr(0, 4) != "L2::" || m[k] == "L2::cache_hint") return false;
        }
        if (a.size() != 3 && a.size() != 4) return false;
        if (a[2].kind != Val::Imm || a[2].imm_float || !a[2].c.empty()) return false;
        const unsigned long long n = a[2].ival;
        if (n != 4 && n != 8 && n != 16) return false;
        const std::string d = ptr(a[0], T::U8, true);
        const std::string s = ptr(a[1], T::U8, false);
        if (failed()) return false;
        if (a.size() == 4) {
            stmt_ = "{ const unsigned char* _s = " + s + "; unsigned char* _d = " + d +
                    "; unsigned _n = " + rd(a[3], T::U32) + "; for (unsigned _k = 0; _k < " +
                    std::to_string(n) + "u; ++_k) _d[_k] = _k < _n ? _s[_k] : 0; } ";
        } else {
            const char* ty = n == 4 ? "unsigned" : n == 8 ? "uint2" : "uint4";
            stmt_ = "*(" + std::string(ty) + "*)" + paren(d) + " = *(const " + ty + "*)" +
                    paren(s) + "; ";
        }
        return true;
    }
    bool shared = false;
    if (!space(shared)) return false;
    if (h == "ld" || h == "st") {
        if (t == T::None || t == T::Pred || a.size() != 2) return false;
        if (!only(m, {"global",  "shared",  "shared::cta", "ca",  "cg",   "cs",       "lu",
                      "cv",      "nc",      "wb",          "wt",  "weak", "volatile", "relaxed",
                      "acquire", "release", "cta",         "gpu", "sys",  "v2",       "v4"})) {
            return false;
        }
        if ((h == "ld" && has(m, "release")) || (h == "st" && has(m, "acquire"))) return false;
        const Val& addr = h == "ld" ? a[1] : a[0];
        const Val& reg = h == "ld" ? a[0] : a[1];
        const std::size_t lanes = has(m, "v4") ? 4 : has(m, "v2") ? 2 : 1;
        if ((lanes > 1) != (reg.kind == Val::Vec) || (lanes > 1 && reg.elems.size() != lanes))
            return false;
        const T et = t == T::B8 ? T::U8 : t == T::B16 ? T::U16 : t;
        std::string p = ptr(addr, et, shared);
        if (failed()) return false;
        if (has(m, "volatile") || has(m, "cv"))
            p = "((volatile " + std::string(ctype(et)) + "*)" + p + ")";
        std::string s;
        if (h == "st" && has(m, "release")) s += scope_fence();
        for (std::size_t k = 0; k < lanes; ++k) {
            const Val& r = lanes > 1 ? reg.elems[k] : reg;
            const std::string at = p + "[" + std::to_string(k) + "]";
            s += h == "ld" ? wr(r, et, at) : at + " = " + rd(r, et) + "; ";
        }
        if (h == "ld" && has(m, "acquire")) s += scope_fence();
        stmt_ = s;
        return true;
    }
    // atom / red
    std::string_view op;
    std::string_view sem;
    for (std::string_view x : m) {
        if (x == "add" || x == "min" || x == "max" || x == "inc" || x == "dec" || x == "and" ||
            x == "or" || x == "xor" || x == "exch" || x == "cas") {
            if (!op.empty()) return false;
            op = x;
        } else if (x == "relaxed" || x == "acquire" || x == "release" || x == "acq_rel") {
            sem = x;
        } else if (x != "global" && x != "shared" && x != "cta" && x != "gpu" && x != "sys" &&
                   x != "shared::cta") {
            return false;
        }
    }
    if (op.empty()) return false;
    const bool red = h == "red";
    const std::size_t want = (red ? 2U : 3U) + (op == "cas" ? 1U : 0U);
    if (a.size() != want || (red && (op == "exch" || op == "cas"))) return false;
    T pt = t;
    if (t == T::B32) pt = T::U32;
    if (t == T::B64) pt = T::U64;
    const bool ok =
        (op == "add" &&
         (pt == T::U32 || pt == T::S32 || pt == T::U64 || pt == T::F32 || pt == T::F64)) ||
        ((op == "min" || op == "max") && (pt == T::U32 || pt == T::S32 || pt == T::U64)) ||
        ((op == "inc" || op == "dec") && pt == T::U32) ||
        ((op == "and" || op == "or" || op == "xor") && (t == T::B32 || t == T::B64)) ||
        (op == "exch" && (t == T::B32 || t == T::B64)) ||
        (op == "cas" && (t == T::B32 || t == T::B64));
    if (!ok) return false;
    const Val& addr = red ? a[0] : a[1];
    const std::string p = ptr(addr, pt, shared);
    if (failed()) return false;
    std::string fn = op == "cas" ? "atomicCAS" : op == "exch" ? "atomicExch" : "atomic";
    if (op != "cas" && op != "exch") {
        fn += static_cast<char>(op[0] - 'a' + 'A');
        fn += std::string(op.substr(1));
    }
    const std::size_t v = red ? 1 : 2;
    std::string call = fn + "(" + p + ", " + rd(a[v], pt);
    if (op == "cas") call += ", " + rd(a[v + 1], pt);
    call += ")";
    std::string s;
    if (sem == "release" || sem == "acq_rel") s += scope_fence();
    s += red ? "(void)" + call + "; " : wr(a[0], pt, call);
    if (sem == "acquire" || sem == "acq_rel") s += scope_fence();
    stmt_ = s;
    return true;
}

// --- warp operations -----------------------------------------------------------------
bool Gen::warp(std::string_view h, const std::vector<std::string_view>& m, T t,
               const std::vector<Val>& a) {
    const bool sync = has(m, "sync");
    if (h == "activemask") {
        if (a.size() != 1 || !m.empty() || t != T::B32) return false;
        stmt_ = wr(a[0], T::U32, lw_ ? "__cass_activemask()" : "(unsigned)__ballot(1)");
        return true;
    }
    if (h == "bar" || h == "barrier") {
        if (has(m, "warp")) {
            if (!(m.size() == 2 && sync && a.size() == 1)) return false;
            stmt_ = lw_ ? "__cass_syncwarp(" + rd(a[0], T::U32) + "); "
                        : "; ";  // native: lockstep wavefronts
            return true;
        }
        if (!(m.size() == 1 && (sync || (h == "barrier" && m[0] == "sync")) && a.size() == 1 &&
              a[0].kind == Val::Imm && a[0].c.empty() && a[0].ival == 0)) {
            return false;
        }
        stmt_ = "__syncthreads(); ";
        return true;
    }
    if (h == "shfl") {
        // shfl.sync.mode.b32 d[|p], a, b, c, mask: c packs the clamp (c[4:0]) and the
        // segment mask (c[12:8]); the common forms are a width of 32 - segmask.
        std::string_view mode;
        for (std::string_view x : m) {
            if (x == "idx" || x == "up" || x == "down" || x == "bfly")
                mode = x;
            else if (x != "sync")
                return false;
        }
        if (mode.empty() || bits(t) != 32 || t == T::F32) return false;
        const bool pred = pair_;
        if (a.size() != (sync ? 5U : 4U) + (pred ? 1U : 0U)) return false;
        const std::size_t s0 = pred ? 2 : 1;
        const Val& c = a[s0 + 2];
        std::string w;
        if (c.kind == Val::Imm && !c.imm_float && c.c.empty()) {
            const unsigned seg = static_cast<unsigned>(c.ival >> 8) & 31U;
            const unsigned clamp = static_cast<unsigned>(c.ival) & 31U;
            const unsigned width = 32 - seg;
            if ((width & (width - 1)) != 0 || (seg & ~(32U - width)) != 0) return false;
            if (clamp != (mode == "up" ? 0U : 31U)) return false;
            w = std::to_string(width);
        } else {
            w = "(int)(32u - ((" + rd(c, T::U32) + " >> 8) & 31u))";
        }
        const std::string v = rd(a[s0], T::U32);
        std::string b = rd(a[s0 + 1], T::U32);
        if (mode == "idx")
            b = "(int)(" + b + " & (unsigned)(" + w + " - 1))";
        else
            b = "(int)" + b;
        const char* fn = mode == "idx"    ? "shfl"
                         : mode == "up"   ? "shfl_up"
                         : mode == "down" ? "shfl_down"
                                          : "shfl_xor";
        std::string call;
        if (lw_) {
            call = std::string("__cass_") + fn +
                   (sync ? "_sync(" + rd(a[s0 + 3], T::U32) + ", " : "(") + v + ", " + b + ", " +
                   w + ")";
        } else {
            call = std::string("__") + fn + "(" + v + ", " + b + ", " + w + ")";
        }
        std::string s = wr(a[0], T::U32, call);
        if (pred) {
            const std::string l = "(int)(" + lane() + " % (unsigned)(" + w + "))";
            const std::string bb = "(int)" + rd(a[s0 + 1], T::U32);
            const std::string p = mode == "idx"    ? "true"
                                  : mode == "up"   ? l + " >= " + bb
                                  : mode == "down" ? l + " + " + bb + " < " + w
                                                   : "(" + l + " ^ " + bb + ") < " + w;
            s = "{ bool _p = " + p + "; " + s + wr(a[1], T::Pred, "_p") + "} ";
        }
        stmt_ = s;
        return true;
    }
    if (h == "vote") {
        std::string_view mode;
        for (std::string_view x : m) {
            if (x == "any" || x == "all" || x == "uni" || x == "ballot")
                mode = x;
            else if (x != "sync")
                return false;
        }
        if (mode.empty() || a.size() != (sync ? 3U : 2U)) return false;
        if ((mode == "ballot") != (t == T::B32) || (mode != "ballot" && t != T::Pred)) return false;
        const std::string p = rd(a[1], T::Pred);
        const std::string mask = sync ? rd(a[2], T::U32) : (lw_ ? "__cass_activemask()" : "");
        std::string e;
        if (lw_) {
            if (mode == "uni")
                e = "__cass_uni_sync(" + mask + ", " + p + ")";
            else if (sync)
                e = "__cass_" + std::string(mode) + "_sync(" + mask + ", " + p + ")";
            else
                e = "__cass_" + std::string(mode) + "(" + p + ")";
            if (mode == "ballot")
                e = "(unsigned)" + e;
            else
                e = "(" + e + " != 0)";
        } else {
            if (mode == "any")
                e = "(__any(" + p + ") != 0)";
            else if (mode == "all")
                e = "(__all(" + p + ") != 0)";
            else if (mode == "uni")
                e = "(__all(" + p + ") != 0 || __any(" + p + ") == 0)";
            else
                e = "(unsigned)__ballot(" + p + ")";
        }
        stmt_ = wr(a[0], mode == "ballot" ? T::U32 : T::Pred, e);
        return true;
    }
    if (h == "match") {
        std::string_view mode;
        for (std::string_view x : m) {
            if (x == "any" || x == "all")
                mode = x;
            else if (x != "sync")
                return false;
        }
        if (!sync || mode.empty() || (t != T::B32 && t != T::B64)) return false;
        const bool pred = pair_;
        if (a.size() != (pred ? 4U : 3U)) return false;
        if (pred && mode != "all") return false;
        const std::size_t s0 = pred ? 2 : 1;
        const T vt = t == T::B32 ? T::U32 : T::U64;
        const std::string v = rd(a[s0], vt);
        const std::string mask = rd(a[s0 + 1], T::U32);
        std::string s;
        if (lw_) {
            if (mode == "any") {
                s = wr(a[0], T::U32, "__cass_match_any_sync(" + mask + ", " + v + ")");
            } else {
                s = "{ int _p = 0; " +
                    wr(a[0], T::U32, "__cass_match_all_sync(" + mask + ", " + v + ", &_p)") +
                    (pred ? wr(a[1], T::Pred, "_p != 0") : "") + "} ";
            }
        } else {
            // Lane by lane over the wavefront: which lanes hold the same value.
            const std::string vt_c = ctype(vt);
            s = "{ " + vt_c + " _v = " + v +
                "; unsigned long long _r = 0; for (int _j = 0; _j < warpSize; ++_j) if (__shfl(_v, "
                "_j) == _v) _r |= 1ull << _j; _r &= __ballot(1) & (unsigned long long)" +
                mask + "; ";
            if (mode == "any") {
                s += wr(a[0], T::U32, "(unsigned)_r");
            } else {
                s += "bool _p = _r == (__ballot(1) & (unsigned long long)" + mask + "); " +
                     wr(a[0], T::U32, "_p ? " + mask + " : 0u") +
                     (pred ? wr(a[1], T::Pred, "_p") : "");
            }
            s += "} ";
        }
        stmt_ = s;
        return true;
    }
    if (h == "redux") {
        std::string_view op;
        for (std::string_view x : m) {
            if (x == "add" || x == "min" || x == "max" || x == "and" || x == "or" || x == "xor")
                op = x;
            else if (x != "sync")
                return false;
        }
        if (!sync || op.empty() || a.size() != 3) return false;
        const bool bitwise = op == "and" || op == "or" || op == "xor";
        if (bitwise ? t != T::B32 : (t != T::U32 && t != T::S32)) return false;
        const T vt = t == T::S32 ? T::S32 : T::U32;
        const std::string v = rd(a[1], vt);
        const std::string c = ctype(vt);
        std::string e;
        if (lw_) {
            e = "__cass_reduce_" + std::string(op) + "_sync(" + rd(a[2], T::U32) + ", " +
                cast(vt, v) + ")";
        } else {
            const std::string f = op == "add"   ? "_r + _y"
                                  : op == "min" ? "(_y < _r ? _y : _r)"
                                  : op == "max" ? "(_y > _r ? _y : _r)"
                                  : op == "and" ? "_r & _y"
                                  : op == "or"  ? "_r | _y"
                                                : "_r ^ _y";
            e = "[&]() -> " + c + " { " + c + " _r = " + v +
                "; for (int _o = warpSize / 2; _o > 0; _o /= 2) { " + c +
                " _y = __shfl_xor(_r, _o); _r = " + f + "; } return _r; }()";
        }
        stmt_ = wr(a[0], vt, e);
        return true;
    }
    return false;
}

Outcome Gen::run() {
    const std::size_t nops = st_.operands.size();
    shared_of_.assign(nops, std::string());
    value_used_.assign(nops, false);
    named_.assign(nops, false);
    for (std::size_t k = 0; k < nops; ++k) {
        const AsmOperand& o = st_.operands[k];
        if (!o.output && (o.constraint == 'r' || o.constraint == 'l'))
            shared_of_[k] = shared_argument(o.expr);
    }
    for (std::size_t k = 0; k < nops; ++k) {
        if (shared_of_[k].empty() && st_.operands[k].expr.find("__cvta_") != std::string::npos) {
            return fail("", "__cvta_generic_to_shared in an operand, other than alone"), out_;
        }
    }
    const std::string s = substitute(st_.templ);
    if (failed()) return out_;
    bool any = false;
    std::size_t i = 0;
    std::size_t from = 0;
    int depth = 0;  // brackets inside one instruction
    auto flush = [&](std::size_t to) {
        const std::string_view st = trim(std::string_view(s).substr(from, to - from));
        if (!st.empty()) {
            any = true;
            statement(st);
        }
    };
    // What the text since `from` is, kept as the loop goes (linear time): empty so far,
    // or one plain word (a label when ':' follows).
    bool started = false;
    bool word = true;
    bool word_ended = false;
    const auto restart = [&](std::size_t at) {
        from = at;
        started = false;
        word = true;
        word_ended = false;
    };
    for (; i < s.size() && !failed(); ++i) {
        const char c = s[i];
        if (c == '{' && !started) {
            scopes_.emplace_back();
            body_ += "{ ";
            restart(i + 1);
            continue;
        }
        if (c == '}' && depth == 0) {
            flush(i);
            if (scopes_.size() <= 1) {
                fail("", "an unpaired '}'");
                break;
            }
            for (const std::string& r : scopes_.back()) regs_[r].pop_back();
            scopes_.pop_back();
            body_ += "} ";
            restart(i + 1);
            continue;
        }
        if (c == '[' || c == '{') ++depth;
        if ((c == ']' || c == '}') && depth > 0) --depth;
        if (c == ';' && depth == 0) {
            flush(i);
            restart(i + 1);
            continue;
        }
        if (c == ':' && depth == 0 && !(i + 1 < s.size() && s[i + 1] == ':') &&
            !(i > 0 && s[i - 1] == ':') && started && word) {
            // A label: an identifier alone before ':'.
            body_ += label(trim(std::string_view(s).substr(from, i - from))) + ":; ";
            any = true;
            restart(i + 1);
            continue;
        }
        if (blank(c)) {
            word_ended = word_ended || started;
            continue;
        }
        if (!(ident_char(c) || c == '%') || word_ended) word = false;
        started = true;
    }
    if (!failed()) flush(s.size());
    if (!failed() && scopes_.size() != 1) fail("", "an unclosed '{'");
    if (failed()) return out_;
    if (!any && nops == 0) {
        out_.empty = true;
        return out_;
    }
    std::string head = "{ ";
    std::string tail;
    for (std::size_t k = 0; k < nops; ++k) {
        const AsmOperand& o = st_.operands[k];
        if (o.constraint == 'n') continue;
        if (!shared_of_[k].empty() && !value_used_[k]) continue;
        if (!o.output && !named_[k]) {  // evaluated, as the asm would, but no local to warn about
            head += "(void)" + paren(o.expr) + "; ";
            continue;
        }
        const T t = o.constraint == 'l'   ? T::U64
                    : o.constraint == 'h' ? T::U16
                    : o.constraint == 'c' ? T::U8
                    : o.constraint == 'f' ? T::F32
                    : o.constraint == 'd' ? T::F64
                                          : T::U32;
        const std::string n = "_ptx_" + std::to_string(k);
        if (!o.output || o.inout) {
            head += std::string(ctype(t)) + " " + n + " = " + cast(t, o.expr) + "; ";
        } else {
            head += std::string(ctype(t)) + " " + n + " = 0; ";
        }
        if (o.output) tail += paren(o.expr) + " = " + n + "; ";
    }
    if (uses_cc_) head += "unsigned _ptx_cc = 0; ";
    out_.code = head + body_ + tail + "}";
    out_.ok = true;
    return out_;
}

}  // namespace

Outcome translate(const AsmStatement& st, bool logical_warps) {
    Gen g(st, logical_warps);
    return g.run();
}

bool decode_string(std::string_view tok, std::string& out) {
    if (tok.size() < 2 || tok.front() != '"' || tok.back() != '"') return false;
    for (std::size_t i = 1; i + 1 < tok.size(); ++i) {
        char c = tok[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i + 2 >= tok.size()) return false;
        c = tok[++i];
        switch (c) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'v':
                out += '\v';
                break;
            case 'f':
                out += '\f';
                break;
            case 'a':
                out += '\a';
                break;
            case 'b':
                out += '\b';
                break;
            case '\n':
                break;  // a spliced line
            case 'x': {
                unsigned v = 0;
                int n = 0;
                while (i + 2 < tok.size() && n < 2 &&
                       std::isxdigit(static_cast<unsigned char>(tok[i + 1]))) {
                    const char h = tok[++i];
                    v = v * 16 + static_cast<unsigned>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                    ++n;
                }
                if (n == 0) return false;
                out += static_cast<char>(v);
                break;
            }
            default:
                if (c >= '0' && c <= '7') {
                    unsigned v = static_cast<unsigned>(c - '0');
                    int n = 1;
                    while (i + 2 < tok.size() && n < 3 && tok[i + 1] >= '0' && tok[i + 1] <= '7') {
                        v = v * 8 + static_cast<unsigned>(tok[++i] - '0');
                        ++n;
                    }
                    out += static_cast<char>(v);
                } else {
                    out += c;  // \" \\ \' \?
                }
        }
    }
    return true;
}

}  // namespace cass::detail::ptx

#include <algorithm>

#include "rewriter_impl.hpp"

namespace cass::detail {

namespace {
constexpr const char* kUntranslatable =
    "inline PTX assembly has no meaning on AMD GPUs; rewrite it with HIP intrinsics";

std::string cannot(const std::string& why) {
    return std::string(kUntranslatable) + " (" + why + ")";
}
}  // namespace

std::string Rewriter::translate_asm(int i, int open) {
    const int close = match(open);
    if (close < 0 || breaks_between(open, close)) return kUntranslatable;
    // An asm is code only in a macro body: in an #elif line, whether the walk counts it
    // as dead depends on the #if before it, which the first pass may rewrite.
    if (in_directive(i) && directive_ != "define") return cannot("in a preprocessor directive");
    {
        // An asm inside another's parentheses: neither is translated, so a second pass
        // (which would find the inner one gone) sees the same text.
        const std::vector<int>& v = scan_.visit;
        for (auto it = std::upper_bound(v.begin(), v.end(), open); it != v.end() && *it < close;
             ++it) {
            if (has_flag(*it, kSymAsm)) {
                consume(i, close);
                return cannot("an asm inside its parentheses");
            }
        }
    }
    // An operand is rendered with its renames; numbers and shifts in it are the
    // asm's own (32-lane CUDA code), and __cvta_generic_to_shared is taken apart.
    const auto operand_renders = [&](int first, int last) {
        const std::vector<int>& v = scan_.visit;
        for (auto it = std::lower_bound(v.begin(), v.end(), first); it != v.end() && *it <= last;
             ++it) {
            const int t = *it;
            if (toks_[t].kind == TokenKind::Number || toks_[t].kind == TokenKind::Punct) continue;
            if (!is_ident(t)) return false;
            const Symbol& y = sym(t);
            if ((y.flags & (kSymAsm | kSymTexture)) != 0) return false;
            if (y.entry == nullptr || text(t) == "__cvta_generic_to_shared") continue;
            if (y.entry->status == Status::Unsupported || y.entry->rewrite != Rewrite::None ||
                y.entry->kind == Kind::Member ||
                (y.entry->since > o_.hip_version && y.entry->legacy.empty())) {
                return false;
            }
        }
        return true;
    };
    ptx::AsmStatement st;
    st.unique = toks_[i].begin;
    int k = next_code(open);
    bool templ = false;
    while (k >= 0 && k < close && toks_[k].kind == TokenKind::String) {
        if (!ptx::decode_string(text(k), st.templ))
            return cannot("its template is not a plain string");
        templ = true;
        k = next_code(k);
    }
    if (!templ) return cannot("its template is not a string literal");
    int section = 0;  // 1 outputs, 2 inputs, 3 clobbers
    std::vector<ptx::AsmOperand> ins;
    while (k >= 0 && k < close) {
        if (is_punct(k, ":") || is_punct(k, "::")) {
            section += is_punct(k, ":") ? 1 : 2;
            st.basic = false;
            if (section > 3) return cannot("asm goto");
            k = next_code(k);
            continue;
        }
        if (section == 0) return cannot("its template is not a string literal");
        if (is_punct(k, ",")) {
            k = next_code(k);
            continue;
        }
        if (section == 3) {
            if (toks_[k].kind != TokenKind::String) return cannot("a clobber that is not a string");
            k = next_code(k);
            continue;
        }
        ptx::AsmOperand o;
        if (is_punct(k, "[")) {
            const int name = next_code(k);
            if (!is_ident(name) || !is_punct(next_code(name), "]")) return cannot("a bad [name]");
            o.name = std::string(text(name));
            k = next_code(next_code(name));
        }
        std::string c;
        if (k < 0 || k >= close || toks_[k].kind != TokenKind::String ||
            !ptx::decode_string(text(k), c)) {
            return cannot("an operand without a constraint string");
        }
        std::string letters;
        for (const char x : c) {
            if (x == '=') {
                o.output = true;
            } else if (x == '+') {
                o.output = o.inout = true;
            } else if (x != '&' && x != ' ') {
                letters += x;
            }
        }
        if (letters.size() != 1 ||
            std::string_view("rlhfdnc").find(letters[0]) == std::string_view::npos) {
            return cannot("the operand constraint \"" + c + "\"");
        }
        o.constraint = letters[0];
        if (o.output != (section == 1) || (o.output && o.constraint == 'n')) {
            return cannot("the operand constraint \"" + c + "\"");
        }
        const int po = next_code(k);
        const int pc = is_punct(po, "(") ? match(po) : -1;
        if (pc < 0 || pc >= close) return cannot("an operand without its (expression)");
        const int first = next_code(po);
        const int last = prev_code(pc);
        if (first < 0 || first >= pc || last < first) return cannot("an empty operand");
        if (!operand_renders(first, last)) {
            // Left whole: renaming inside would let a second pass translate it.
            consume(i, close);
            return cannot("an operand that needs a rewrite of its own");
        }
        o.expr = render(first, last);
        // The statement becomes one line plus the line breaks it covers: a raw string
        // over several lines would bring its own as well.
        if (o.expr.find('\n') != std::string::npos) return cannot("an operand over several lines");
        if (o.constraint == 'n' && first == last && toks_[first].kind == TokenKind::Number) {
            const long long v = literal_value(text(first));
            o.known = v >= 0;
            o.value = v;
        }
        if (st.operands.size() + ins.size() >= 1000) return cannot("more than 1000 operands");
        (o.output ? st.operands : ins).push_back(std::move(o));
        k = next_code(pc);
    }
    for (ptx::AsmOperand& o : ins) st.operands.push_back(std::move(o));
    const ptx::Outcome r = ptx::translate(st, o_.logical_warps);
    if (r.empty) return "";  // no instruction (a compiler barrier): fine as it is
    if (!r.ok) {
        if (!r.failed.empty()) {
            std::string m = "inline PTX instruction '" + r.failed + "' has no HIP translation";
            if (!r.reason.empty()) m += " (" + r.reason + ")";
            return m;
        }
        return cannot(r.reason);
    }
    if (dead_) return "";
    // The translation is a block: it stands for a whole statement only. An asm that
    // code goes on after (no ';') would turn into a block that ends an expression the
    // next pass reads anew. A macro body may end at the asm: its use supplies the ';'.
    int end = close;
    const int semi = next_code(close);
    const bool same_place = semi >= 0 && in_directive(semi) == in_directive(close);
    if (same_place && is_punct(semi, ";")) {
        end = semi;
    } else if (same_place || !in_directive(close)) {
        return cannot("an asm statement without its ';'");
    }
    replace(i, end, r.code);
    std::string list;
    for (std::size_t n = 0; n < r.opcodes.size() && n < 6; ++n)
        list += (n ? ", " : "") + r.opcodes[n];
    if (r.opcodes.size() > 6) list += ", ...";
    diag(i, Severity::Note, DiagId::InlinePtxTranslated,
         "inline PTX translated to HIP" +
             std::string(o_.logical_warps ? " (32-lane logical warps)" : "") +
             (list.empty() ? "" : ": " + list));
    if (runtime_ >= 0) count(runtime_, true);
    return "";
}

}  // namespace cass::detail
