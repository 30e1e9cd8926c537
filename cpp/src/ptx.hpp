// Internal: inline PTX (`asm("..." : outputs : inputs : clobbers)`) translated
// to C++ statements with HIP's builtins, for Rewriter::hazard_asm (ptx.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cass::detail::ptx {

// One operand of an asm statement, outputs first, numbered as %0, %1, ...
struct AsmOperand {
    char constraint = 'r';  // r l h f d n c (after '=' / '+' / '&' are taken off)
    bool output = false;
    bool inout = false;  // "+r": read, then written
    std::string name;    // [name] of %[name], or empty
    std::string expr;    // the C++ expression, rendered with table renames
    bool known = false;  // "n" with a literal: its value
    long long value = 0;
};

struct AsmStatement {
    std::string templ;  // the template, escapes decoded
    bool basic = true;  // no operand lists: '%' is not an escape
    std::vector<AsmOperand> operands;
    unsigned unique = 0;  // for %= and label names: distinct per statement of a file
};

struct Outcome {
    bool ok = false;
    bool empty = false;                // no instruction at all (a compiler barrier): leave it
    std::string code;                  // one line: a { ... } block
    std::string failed;                // the instruction (or construct) with no translation
    std::string reason;                // why, when it is not an unknown instruction
    std::vector<std::string> opcodes;  // what was translated, once each
};

// Translates a whole statement, or says what stopped it. Linear in the
// template's size; total on any input.
Outcome translate(const AsmStatement& st, bool logical_warps);

// The bytes of a plain "..." string literal token, escapes decoded; false for
// prefixed, raw or cut-off literals.
bool decode_string(std::string_view token, std::string& out);

}  // namespace cass::detail::ptx
