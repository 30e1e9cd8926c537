#include "cass/lexer.hpp"

#include <array>
#include <cstring>

namespace cass {
namespace {

constexpr std::array<std::uint8_t, 256> make_class_table() {
    std::array<std::uint8_t, 256> t{};
    for (int c = 'a'; c <= 'z'; ++c) t[c] = 1;
    for (int c = 'A'; c <= 'Z'; ++c) t[c] = 1;
    t['_'] = 1;
    t['$'] = 1;
    for (int c = 0x80; c < 0x100; ++c) t[c] = 1;
    for (int c = '0'; c <= '9'; ++c) t[c] = 2;
    return t;
}
constexpr auto kClass = make_class_table();

enum Dispatch : std::uint8_t {
    kPunct,
    kIdentStart,
    kDigit,
    kBlank,
    kNewline,
    kBackslash,
    kSlash,
    kHash,
    kLess,
    kDoubleQuote,
    kSingleQuote,
    kDot,
};

constexpr std::array<std::uint8_t, 256> make_dispatch_table() {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
        if (kClass[c] == 1) t[c] = kIdentStart;
        if (kClass[c] == 2) t[c] = kDigit;
    }
    for (const char c : {' ', '\t', '\r', '\f', '\v'}) t[static_cast<unsigned char>(c)] = kBlank;
    t['\n'] = kNewline;
    t['\\'] = kBackslash;
    t['/'] = kSlash;
    t['#'] = kHash;
    t['<'] = kLess;
    t['"'] = kDoubleQuote;
    t['\''] = kSingleQuote;
    t['.'] = kDot;
    return t;
}
constexpr auto kDispatch = make_dispatch_table();

inline bool ident_char(unsigned char c) { return kClass[c] != 0; }
inline bool is_digit(unsigned char c) { return kClass[c] == 2; }

class Lexer {
public:
    explicit Lexer(std::string_view src) : s_(src), n_(src.size()) { toks_.reserve(n_ / 3 + 16); }

    std::vector<Token> run() {
        if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a UTF-8 byte order mark is blank
        while (i_ < n_) step();
        return std::move(toks_);
    }

private:
    std::string_view s_;
    std::size_t n_;
    std::size_t i_ = 0;
    std::vector<Token> toks_;
    bool line_start_ = true;  // only whitespace/comments so far on this line
    bool in_directive_ = false;
    int directive_tokens_ = 0;    // significant tokens seen in this directive
    bool expect_header_ = false;  // after #include
    int launch_depth_ = 0;

    [[nodiscard]] unsigned char at(std::size_t k) const {
        return k < n_ ? static_cast<unsigned char>(s_[k]) : 0;
    }

    // Length of a backslash-newline splice starting at k, or 0.
    [[nodiscard]] std::size_t splice_at(std::size_t k) const {
        if (at(k) != '\\') return 0;
        if (at(k + 1) == '\n') return 2;
        if (at(k + 1) == '\r' && at(k + 2) == '\n') return 3;
        return 0;
    }

    void emit(std::size_t begin, TokenKind kind, std::uint8_t flags = 0) {
        if (in_directive_ && kind != TokenKind::Newline) flags |= kInDirective;
        toks_.push_back(
            Token{static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(i_), kind, flags});
        if (kind == TokenKind::Newline) {
            line_start_ = true;
            in_directive_ = false;
            expect_header_ = false;
        } else if (kind != TokenKind::Comment) {
            line_start_ = false;
            if (in_directive_) ++directive_tokens_;
        }
    }

    void step() {
        const std::size_t b = i_;
        const unsigned char c = static_cast<unsigned char>(s_[i_]);
        // One table lookup picks the token's kind from its first byte.
        switch (kDispatch[c]) {
            case kIdentStart:
                identifier_or_prefixed_literal();
                return;
            case kBlank:  // blanks are gaps between tokens, never tokens
                ++i_;
                while (i_ < n_ && kDispatch[static_cast<unsigned char>(s_[i_])] == kBlank) ++i_;
                if (i_ < n_ && s_[i_] == '\\') blanks();
                return;
            case kNewline:
                ++i_;
                emit(b, TokenKind::Newline);
                return;
            case kBackslash:
                if (splice_at(i_) != 0) {
                    blanks();
                    return;
                }
                break;
            case kSlash:
                if (at(i_ + 1) == '/') {
                    line_comment();
                    return;
                }
                if (at(i_ + 1) == '*') {
                    block_comment();
                    return;
                }
                break;
            case kHash:
                if (line_start_) {
                    ++i_;
                    in_directive_ = true;
                    directive_tokens_ = 0;
                    emit(b, TokenKind::Punct, kDirectiveHash);
                    return;
                }
                break;
            case kLess:
                if (expect_header_) {
                    header_name();
                    return;
                }
                break;
            case kDoubleQuote:
                if (expect_header_) {
                    header_name();
                } else {
                    quoted('"', TokenKind::String);
                }
                return;
            case kSingleQuote:
                quoted('\'', TokenKind::Char);
                return;
            case kDigit:
                number();
                return;
            case kDot:
                if (is_digit(at(i_ + 1))) {
                    number();
                    return;
                }
                break;
            default:
                break;
        }
        punct();
    }

    // Blanks of every kind, backslash-newline splices included.
    void blanks() {
        while (i_ < n_) {
            const unsigned char d = at(i_);
            if (d == ' ' || d == '\t' || d == '\r' || d == '\f' || d == '\v') {
                ++i_;
            } else if (std::size_t sp = splice_at(i_)) {
                i_ += sp;
            } else {
                break;
            }
        }
    }

    void line_comment() {
        const std::size_t b = i_;
        i_ += 2;
        while (i_ < n_) {
            if (std::size_t sp = splice_at(i_)) {
                i_ += sp;
                continue;
            }
            if (at(i_) == '\n') break;
            ++i_;
        }
        emit(b, TokenKind::Comment);
    }

    void block_comment() {
        const std::size_t b = i_;
        const void* end = nullptr;
        if (i_ + 2 < n_) end = memmem_(s_.data() + i_ + 2, n_ - i_ - 2, "*/", 2);
        std::uint8_t flags = 0;
        if (end == nullptr) {
            i_ = n_;
            flags = kUnterminated;
        } else {
            i_ = static_cast<std::size_t>(static_cast<const char*>(end) - s_.data()) + 2;
        }
        // A block comment spanning lines inside a directive continues it; one
        // spanning lines outside keeps the line-start state of its first line.
        emit(b, TokenKind::Comment, flags);
    }

    static const void* memmem_(const char* hay, std::size_t hn, const char* needle,
                               std::size_t nn) {
        if (hn < nn) return nullptr;
        const char* last = hay + (hn - nn);
        for (const char* p = hay; p <= last;) {
            const void* hit = std::memchr(p, needle[0], static_cast<std::size_t>(last - p) + 1);
            if (hit == nullptr) return nullptr;
            const char* q = static_cast<const char*>(hit);
            if (std::memcmp(q, needle, nn) == 0) return q;
            p = q + 1;
        }
        return nullptr;
    }

    void header_name() {
        const std::size_t b = i_;
        const char close = at(i_) == '<' ? '>' : '"';
        ++i_;
        while (i_ < n_ && at(i_) != static_cast<unsigned char>(close) && at(i_) != '\n') ++i_;
        std::uint8_t flags = 0;
        if (at(i_) == static_cast<unsigned char>(close)) {
            ++i_;
        } else {
            flags = kUnterminated;
        }
        emit(b, TokenKind::HeaderName, flags);
        expect_header_ = false;
    }

    void identifier_or_prefixed_literal() {
        const std::size_t b = i_;
        const char* p = s_.data();
        while (i_ < n_ && ident_char(static_cast<unsigned char>(p[i_]))) ++i_;
        const std::string_view word = s_.substr(b, i_ - b);
        const unsigned char next = at(i_);
        if (next == '"' || next == '\'') {
            const bool raw =
                !word.empty() && word.back() == 'R' &&
                (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR");
            if (raw && next == '"') {
                raw_string(b);
                return;
            }
            if (word == "u8" || word == "u" || word == "U" || word == "L") {
                const std::size_t save = b;
                quoted(static_cast<char>(next), next == '"' ? TokenKind::String : TokenKind::Char,
                       save);
                return;
            }
        }
        emit(b, TokenKind::Identifier);
        if (in_directive_ && directive_tokens_ == 2) {
            // '#' then this name: the directive's keyword.
            expect_header_ = word == "include" || word == "include_next" || word == "import";
        }
    }

    void raw_string(std::size_t b) {
        // i_ is at the opening quote. R"delim( ... )delim"
        std::size_t k = i_ + 1;
        const std::size_t dstart = k;
        while (k < n_ && k - dstart <= 16 && at(k) != '(' && at(k) != '"' && at(k) != ' ' &&
               at(k) != '\\' && at(k) != '\n')
            ++k;
        if (at(k) != '(') {
            // Not a valid raw string opener: treat as an ordinary string.
            quoted('"', TokenKind::String, b);
            return;
        }
        const std::string_view delim = s_.substr(dstart, k - dstart);
        std::size_t p = k + 1;
        while (true) {
            const void* hit = p < n_ ? std::memchr(s_.data() + p, ')', n_ - p) : nullptr;
            if (hit == nullptr) {
                i_ = n_;
                emit(b, TokenKind::String, kUnterminated);
                return;
            }
            const std::size_t q =
                static_cast<std::size_t>(static_cast<const char*>(hit) - s_.data());
            if (q + 1 + delim.size() < n_ && s_.substr(q + 1, delim.size()) == delim &&
                at(q + 1 + delim.size()) == '"') {
                i_ = q + 2 + delim.size();
                emit(b, TokenKind::String);
                return;
            }
            p = q + 1;
        }
    }

    void quoted(char quote, TokenKind kind, std::size_t b = SIZE_MAX) {
        if (b == SIZE_MAX) b = i_;
        ++i_;  // opening quote
        std::uint8_t flags = kUnterminated;
        while (i_ < n_) {
            const unsigned char d = at(i_);
            if (d == '\\') {
                if (std::size_t sp = splice_at(i_)) {
                    i_ += sp;
                } else {
                    i_ += 2;
                }
                continue;
            }
            if (d == '\n') break;
            ++i_;
            if (d == static_cast<unsigned char>(quote)) {
                flags = 0;
                break;
            }
        }
        if (i_ > n_) i_ = n_;
        emit(b, kind, flags);
    }

    void number() {
        const std::size_t b = i_;
        ++i_;
        while (i_ < n_) {
            const unsigned char d = at(i_);
            if ((d == '+' || d == '-') && (at(i_ - 1) == 'e' || at(i_ - 1) == 'E' ||
                                           at(i_ - 1) == 'p' || at(i_ - 1) == 'P')) {
                ++i_;
            } else if (ident_char(d) || d == '.') {
                ++i_;
            } else if (d == '\'' && ident_char(at(i_ + 1))) {
                i_ += 2;  // digit separator
            } else {
                break;
            }
        }
        emit(b, TokenKind::Number);
    }

    [[nodiscard]] bool prev_is_operator_keyword() const {
        for (auto it = toks_.rbegin(); it != toks_.rend(); ++it) {
            if (!it->significant()) continue;
            return it->kind == TokenKind::Identifier && it->text(s_) == "operator";
        }
        return false;
    }

    void punct() {
        const std::size_t b = i_;
        const unsigned char c = at(i_);
        const unsigned char c1 = at(i_ + 1);
        const unsigned char c2 = at(i_ + 2);
        if (c == '<' && c1 == '<' && c2 == '<' && !prev_is_operator_keyword()) {
            i_ += 3;
            ++launch_depth_;
            emit(b, TokenKind::LaunchOpen);
            return;
        }
        if (c == '>' && c1 == '>' && c2 == '>' && launch_depth_ > 0) {
            i_ += 3;
            --launch_depth_;
            emit(b, TokenKind::LaunchClose);
            return;
        }
        // Longest match by the first byte: this runs for every operator, so no
        // string comparisons.
        std::size_t len = 1;
        TokenKind kind = TokenKind::Punct;
        switch (c) {
            case '<':
                if (c1 == '<')
                    len = c2 == '=' ? 3 : 2;
                else if (c1 == '=')
                    len = c2 == '>' ? 3 : 2;
                break;
            case '>':
                if (c1 == '>')
                    len = c2 == '=' ? 3 : 2;
                else if (c1 == '=')
                    len = 2;
                break;
            case '.':
                if (c1 == '.' && c2 == '.')
                    len = 3;
                else if (c1 == '*')
                    len = 2;
                break;
            case '-':
                if (c1 == '>')
                    len = c2 == '*' ? 3 : 2;
                else if (c1 == '-' || c1 == '=')
                    len = 2;
                break;
            case ':':
                if (c1 == ':') len = 2;
                break;
            case '+':
            case '&':
            case '|':
                if (c1 == c || c1 == '=') len = 2;
                break;
            case '=':
            case '!':
            case '*':
            case '/':
            case '%':
            case '^':
                if (c1 == '=') len = 2;
                break;
            case '#':
                if (c1 == '#') len = 2;
                break;
            case '{':
            case '}':
            case '[':
            case ']':
            case '(':
            case ')':
            case ';':
            case ',':
            case '?':
            case '~':
            case '\\':
                break;
            default:
                kind = TokenKind::Other;
        }
        i_ += len;
        emit(b, kind);
    }
};

}  // namespace

std::vector<Token> lex(std::string_view src) { return Lexer(src).run(); }

}  // namespace cass
