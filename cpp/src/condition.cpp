// The #if evaluator: CUDA's version macros and literals, folded as a preprocessor would.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rewriter_impl.hpp"

namespace cass {
namespace detail {

// Evaluates a #if condition made of literals and the CUDA version macros, as a
// preprocessor would; anything else (other macros, defined()) is unknown. This
// lets `#if CUDART_VERSION >= 13000` branches that the assumed release leaves
// out stay quiet, as a compiler says nothing about inactive code.
namespace {
class ConditionParser {
public:
    explicit ConditionParser(std::vector<std::pair<char, long long>> items)
        : items_(std::move(items)) {}
    Value parse() {
        Value v = ternary();
        if (pos_ != items_.size()) return Value{};
        return v;
    }

private:
    std::vector<std::pair<char, long long>> items_;  // ('n', value) or (op, 0)
    std::size_t pos_ = 0;

    bool eat(char op) {
        if (pos_ < items_.size() && items_[pos_].first == op) {
            ++pos_;
            return true;
        }
        return false;
    }
    Value ternary() {
        Value c = binary(0);
        if (!eat('?')) return c;
        Value a = ternary();
        if (!eat(':')) return Value{};
        Value b = ternary();
        if (!c.known || !a.known || !b.known) return Value{};
        return c.value != 0 ? a : b;
    }
    static int precedence(char op) {
        switch (op) {
            case 'o':
                return 1;  // ||
            case 'a':
                return 2;  // &&
            case '|':
                return 3;
            case '^':
                return 4;
            case '&':
                return 5;
            case 'e':
            case 'n':
                return 6;  // == !=
            case '<':
            case '>':
            case 'l':
            case 'g':
                return 7;
            case 's':
            case 'r':
                return 8;  // << >>
            case '+':
            case '-':
                return 9;
            case '*':
            case '/':
            case '%':
                return 10;
            default:
                return -1;
        }
    }
    Value binary(int min_prec) {
        Value lhs = unary();
        while (pos_ < items_.size()) {
            const char op = items_[pos_].first;
            const int prec = precedence(op);
            if (prec < 0 || prec <= min_prec - 1 || prec < min_prec) break;
            ++pos_;
            Value rhs = binary(prec + 1);
            if (!lhs.known || !rhs.known) {
                lhs = Value{};
                continue;
            }
            const long long a = lhs.value;
            const long long b = rhs.value;
            long long r = 0;
            switch (op) {
                case 'o':
                    r = (a || b) ? 1 : 0;
                    break;
                case 'a':
                    r = (a && b) ? 1 : 0;
                    break;
                case '|':
                    r = a | b;
                    break;
                case '^':
                    r = a ^ b;
                    break;
                case '&':
                    r = a & b;
                    break;
                case 'e':
                    r = a == b;
                    break;
                case 'n':
                    r = a != b;
                    break;
                case '<':
                    r = a < b;
                    break;
                case '>':
                    r = a > b;
                    break;
                case 'l':
                    r = a <= b;
                    break;
                case 'g':
                    r = a >= b;
                    break;
                case 's':
                    r = (b >= 0 && b < 63) ? a << b : 0;
                    break;
                case 'r':
                    r = (b >= 0 && b < 63) ? a >> b : 0;
                    break;
                case '+':
                    r = a + b;
                    break;
                case '-':
                    r = a - b;
                    break;
                case '*':
                    r = a * b;
                    break;
                case '/':
                    if (b == 0) return Value{};
                    r = a / b;
                    break;
                case '%':
                    if (b == 0) return Value{};
                    r = a % b;
                    break;
                default:
                    return Value{};
            }
            lhs = Value{true, r};
        }
        return lhs;
    }
    Value unary() {
        if (eat('!')) {
            Value v = unary();
            return v.known ? Value{true, v.value == 0} : v;
        }
        if (eat('-')) {
            Value v = unary();
            return v.known ? Value{true, -v.value} : v;
        }
        if (eat('+')) return unary();
        if (eat('~')) {
            Value v = unary();
            return v.known ? Value{true, ~v.value} : v;
        }
        if (eat('(')) {
            Value v = ternary();
            return eat(')') ? v : Value{};
        }
        if (pos_ < items_.size() && items_[pos_].first == 'N')
            return Value{true, items_[pos_++].second};
        ++pos_;
        return Value{};
    }
};
}  // namespace

Value Rewriter::condition(int first) const {
    static const std::unordered_map<std::string_view, char> kOps = {
        {"||", 'o'}, {"&&", 'a'}, {"|", '|'}, {"^", '^'},  {"&", '&'},  {"==", 'e'},
        {"!=", 'n'}, {"<", '<'},  {">", '>'}, {"<=", 'l'}, {">=", 'g'}, {"<<", 's'},
        {">>", 'r'}, {"+", '+'},  {"-", '-'}, {"*", '*'},  {"/", '/'},  {"%", '%'},
        {"!", '!'},  {"~", '~'},  {"(", '('}, {")", ')'},  {"?", '?'},  {":", ':'}};
    std::vector<std::pair<char, long long>> items;
    for (int k = first; k >= 0 && k < ntok_ && in_directive(k); ++k) {
        const Tok& t = toks_[k];
        if (!t.significant()) continue;
        if (t.kind == TokenKind::Number) {
            std::string digits;
            for (const char c : text(k)) {
                if (c != '\'' && c != 'u' && c != 'U' && c != 'l' && c != 'L') digits += c;
            }
            char* end = nullptr;
            const long long v = std::strtoll(digits.c_str(), &end, 0);
            if (end == nullptr || *end != '\0' || digits.empty()) return Value{};
            items.emplace_back('N', v);
        } else if (t.kind == TokenKind::Identifier) {
            const Entry* e = sym(k).entry;
            if (e == nullptr || e->rewrite != Rewrite::VersionMacro || in_defined_context(k)) {
                return Value{};
            }
            items.emplace_back('N', version_value(*e, o_.cuda_version));
        } else {
            const auto op = kOps.find(text(k));
            if (op == kOps.end()) return Value{};
            items.emplace_back(op->second, 0);
        }
    }
    if (items.empty()) return Value{};
    return ConditionParser(std::move(items)).parse();
}

// Whether a HIP compile takes a branch on macros hipcc always or never defines:
// `#ifdef NAME`, `#ifndef NAME`, `#if [!]defined(NAME)` or `#if [!]defined NAME`;
// anything else is unknown. The names are the source's (before translation):
// __CUDACC__ becomes __HIPCC__, __NVCC__ stays and is never defined under HIP.
Value Rewriter::hip_condition(int first, bool ifdef, bool ifndef) const {
    static const std::unordered_map<std::string_view, bool> kUnderHip = {
        {"__CUDACC__", true},
        {"__HIPCC__", true},
        {"__HIP__", true},
        {"__HIP_PLATFORM_AMD__", true},
        {"__HIP_PLATFORM_HCC__", true},
        {"__NVCC__", false},
        {"__CUDACC_RTC__", false},
        {"__NVCOMPILER", false},
        {"__HIP_PLATFORM_NVIDIA__", false},
        {"__HIP_PLATFORM_NVCC__", false}};
    std::vector<std::string_view> words;
    for (int k = first; k >= 0 && k < ntok_ && in_directive(k); ++k) {
        if (toks_[k].significant()) words.push_back(text(k));
    }
    bool negate = ifndef;
    std::size_t at = 0;
    const std::size_t n = words.size();
    if (!ifdef && !ifndef) {
        if (at < n && words[at] == "!") {
            negate = true;
            ++at;
        }
        if (at >= n || words[at] != "defined") return Value{};
        ++at;
        if (at < n && words[at] == "(") {
            if (at + 3 != n || words[at + 2] != ")") return Value{};
            ++at;
        } else if (at + 1 != n) {
            return Value{};
        }
    } else if (n != 1) {
        return Value{};
    }
    const auto found = kUnderHip.find(words[at]);
    if (found == kUnderHip.end()) return Value{};
    return Value{true, found->second != negate ? 1 : 0};
}

}  // namespace detail
}  // namespace cass
