// A CUDA C++ lexer that keeps every byte.
//
// The token stream covers the input exactly: concatenating the tokens' bytes
// gives the input back, whatever it holds (binary, truncated, unbalanced).
// That is what lets the rewriter change only the tokens it means to.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace cass {

enum class TokenKind : std::uint8_t {
    Whitespace,   // spaces, tabs, \r, \f, \v and backslash-newline splices
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
        return kind != TokenKind::Whitespace && kind != TokenKind::Newline &&
               kind != TokenKind::Comment;
    }
};

// Tokenize `src`. Inputs of 4 GiB or more are rejected by the caller.
std::vector<Token> lex(std::string_view src);

}  // namespace cass
