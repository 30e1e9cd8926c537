// A CUDA C++ lexer that keeps every byte.
//
// Tokens are byte ranges in order; the gaps between them are blanks (spaces,
// tabs, \r, \f, \v, backslash-newline splices) and nothing else. So the
// tokens and gaps cover the input exactly, whatever it holds (binary,
// truncated, unbalanced), which lets the rewriter change only what it means to.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace cass {

enum class TokenKind : std::uint8_t {
    Newline,      // one '\n'; ends a preprocessor directive
    Comment,      // // ... or /* ... */ (possibly unterminated)
    Identifier,   // including keywords; bytes >= 0x80 count as identifier bytes
    Number,       // a pp-number: 42, 0x1.8p3, 1'000'000, 1e-5f
    String,       // "..." with any prefix, and raw strings R"d(...)d"
    Char,         // '...' with any prefix
    HeaderName,   // <...> or "..." after #include / #include_next / #import
    Punct,        // operators and punctuators, longest match
    LaunchOpen,   // <<< of a kernel launch
    LaunchClose,  // >>> closing a kernel launch
    Other,        // a byte no other kind takes (stray '@', '`', '\0', ...)
};

enum TokenFlags : std::uint8_t {
    kInDirective = 1U << 0,    // part of a preprocessor directive line
    kDirectiveHash = 1U << 1,  // the '#' that starts a directive
    kUnterminated = 1U << 2,   // comment, string or char literal cut off by EOL or EOF
    kInGroup = 1U << 3,        // a directive's '#' inside an unclosed (, [ or <<<
};

struct Token {
    std::uint32_t begin;
    std::uint32_t end;
    TokenKind kind;
    std::uint8_t flags;

    [[nodiscard]] std::string_view text(std::string_view src) const {
        return std::string_view(src.data() + begin, end - begin);  // in range by construction
    }
    [[nodiscard]] bool significant() const {
        return kind != TokenKind::Newline && kind != TokenKind::Comment;
    }
};

// Tokenize `src`. Inputs of 4 GiB or more are rejected by the caller.
std::vector<Token> lex(std::string_view src);

}  // namespace cass
