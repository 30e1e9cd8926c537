#include "cass/lexer.hpp"

#include <array>
#include <cstring>
#include <string>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "scanner.hpp"

namespace cass {
namespace detail {
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

// What a token starting with a byte can be: one table lookup per token.
enum Dispatch : std::uint8_t {
    kOther,  // a byte no other kind takes (stray '@', '`', ...)
    kNul,    // '\0': the end of the source (the padding), or a stray byte in it
    kIdentStart,
    kDigit,
    kBlank,
    kNewline,
    kBackslash,
    kSlash,
    kHash,
    kLess,
    kGreater,
    kDoubleQuote,
    kSingleQuote,
    kDot,
    kOpen,    // ( [ {
    kClose,   // ) ] }
    kSingle,  // ; , ? ~: always one byte
    kColon,
    kMinus,
    kDoubling,  // + & |: doubled or followed by '='
    kAssign,    // = ! * % ^: followed by '=' or alone
};

constexpr std::array<std::uint8_t, 256> make_dispatch_table() {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
        if (kClass[c] == 1) t[c] = kIdentStart;
        if (kClass[c] == 2) t[c] = kDigit;
    }
    for (const char c : {' ', '\t', '\r', '\f', '\v'}) t[static_cast<unsigned char>(c)] = kBlank;
    t[0] = kNul;
    t['\n'] = kNewline;
    t['\\'] = kBackslash;
    t['/'] = kSlash;
    t['#'] = kHash;
    t['<'] = kLess;
    t['>'] = kGreater;
    t['"'] = kDoubleQuote;
    t['\''] = kSingleQuote;
    t['.'] = kDot;
    for (const char c : {'(', '[', '{'}) t[static_cast<unsigned char>(c)] = kOpen;
    for (const char c : {')', ']', '}'}) t[static_cast<unsigned char>(c)] = kClose;
    for (const char c : {';', ',', '?', '~'}) t[static_cast<unsigned char>(c)] = kSingle;
    t[':'] = kColon;
    t['-'] = kMinus;
    for (const char c : {'+', '&', '|'}) t[static_cast<unsigned char>(c)] = kDoubling;
    for (const char c : {'=', '!', '*', '%', '^'}) t[static_cast<unsigned char>(c)] = kAssign;
    return t;
}
constexpr auto kDispatch = make_dispatch_table();

inline bool ident_char(unsigned char c) { return kClass[c] != 0; }

// The end of the blanks from i on (spaces and tabs sixteen at a time: indents
// are runs of them). The zero padding after the source stops it.
inline std::size_t blanks_from(const char* s, std::size_t i) {
#if defined(__SSE2__)
    // One blank, the usual gap between two tokens, needs no vector.
    if (kDispatch[static_cast<unsigned char>(s[i + 1])] != kBlank) return i + 1;
    while (true) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
        const __m128i blank = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                           _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
        const unsigned stop = ~static_cast<unsigned>(_mm_movemask_epi8(blank)) & 0xFFFFU;
        if (stop == 0) {
            i += 16;
            continue;
        }
        i += static_cast<unsigned>(__builtin_ctz(stop));
        if (kDispatch[static_cast<unsigned char>(s[i])] != kBlank) return i;
        ++i;  // \r, \f or \v: rare, go on
    }
#else
    while (kDispatch[static_cast<unsigned char>(s[i])] == kBlank) ++i;
    return i;
#endif
}

// The end of the identifier bytes from p on. Sixteen bytes at a time where SSE2
// is there: one branch per name instead of one per byte, and names are short.
// Reads up to 16 bytes past the end of the name: the padding covers that.
inline const char* ident_end(const char* p) {
#if defined(__SSE2__)
    // SSE2 compares bytes as signed, so each range is shifted to start at -128
    // and tested with one "less than"; '$' and bytes >= 0x80 are rare enough to
    // be looked at one by one where they stop the vector.
    while (true) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));  // 'A' -> 'a'
        const __m128i letter =
            _mm_cmplt_epi8(_mm_add_epi8(folded, _mm_set1_epi8(static_cast<char>(0x80 - 'a'))),
                           _mm_set1_epi8(static_cast<char>(-128 + 26)));
        const __m128i digit =
            _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(0x80 - '0'))),
                           _mm_set1_epi8(static_cast<char>(-128 + 10)));
        const __m128i under = _mm_cmpeq_epi8(v, _mm_set1_epi8('_'));
        const __m128i ident = _mm_or_si128(_mm_or_si128(letter, digit), under);
        const unsigned stop = ~static_cast<unsigned>(_mm_movemask_epi8(ident)) & 0xFFFFU;
        if (stop == 0) {
            p += 16;
            continue;
        }
        p += __builtin_ctz(stop);
        if (!ident_char(static_cast<unsigned char>(*p))) return p;
        ++p;  // '$' or a byte >= 0x80: go on
    }
#else
    while (ident_char(static_cast<unsigned char>(*p))) ++p;
    return p;
#endif
}
inline bool is_digit(unsigned char c) { return kClass[c] == 2; }

// A name's key: names of up to eight bytes are their own key (read as one
// word, which the zero padding after the source makes safe), longer ones a
// hash. Most names are short, so most lookups compare one word.
inline std::uint64_t mix(std::uint64_t h) {
    h *= 0x9e3779b97f4a7c15ULL;
    h ^= h >> 31;
    return h;
}

inline std::uint64_t name_key(const char* p, std::size_t len) {
    if (len <= 8) return load64(p) & (~0ULL >> (64 - 8 * len));
    std::uint64_t h = mix(load64(p) ^ len);
    std::size_t k = 8;
    for (; k + 8 < len; k += 8) h = mix(h ^ load64(p + k));
    return mix(h ^ load64(p + len - 8));
}

// Whether two names of `len` bytes with the same key are the same name.
inline bool same_name(const char* a, const char* b, std::size_t len) {
    if (len <= 8) return true;  // the key is the name
    if (len <= 16) return load64(a) == load64(b) && load64(a + len - 8) == load64(b + len - 8);
    return std::memcmp(a, b, len) == 0;
}

constexpr NameSlot kEmptySlot{0, -1, 0, 0};
constexpr std::size_t kFirstSlots = 1024;  // a file's name table to start with

// The name table emptied for the next file: the slots the last file filled, where its
// table kept its first size (a file has a few hundred names; filling all 1,024 slots
// again cost 5% of a small file's lexing), else all of them anew.
inline void empty_slots(Scan& scan) {
    if (scan.slots.size() == kFirstSlots) {
        for (const std::uint32_t k : scan.used_slots) scan.slots[k] = kEmptySlot;
    } else {
        scan.slots.assign(kFirstSlots, kEmptySlot);
    }
    scan.used_slots.clear();
}

class Scanner {
public:
    Scanner(std::string_view src, const Table* table, Scan& out)
        : s_(src.data()),
          n_(src.size()),
          table_(table),
          out_(out),
          opens_(out.opens),
          slots_(out.slots),
          cap_(out.cap) {
        // Room for a token every two bytes, more than code has: pages never written
        // are never touched (the array is left uninitialized), so this costs nothing
        // and spares the copy of a grow in the middle of a large file.
        const std::size_t want = n_ / 2 + 16;
        if (cap_ < want) {
            out_.toks.reset(new Tok[want]);  // left uninitialized: every token is written whole
            detail::advise_huge(out_.toks.get(), want * sizeof(Tok));
            cap_ = want;
        }
        out_.ntoks = 0;
        out_.syms.clear();
        out_.visit.clear();
        out_.decls.clear();
        out_.fors.clear();
        out_.breaks.clear();
        out_.far_prev.clear();
        if (table_ != nullptr) {
            // The lists that grow with the file get their room the same way, up
            // front: grown by doubling, each copy takes fresh pages from the kernel
            // and copies what it had, which cost more per byte the larger the file
            // (bench/reports/scaling.md). Visits, decls and breaks are bounded by the
            // tokens; names get one per 64 bytes, growing past that as before.
            out_.visit.reserve(want);
            out_.decls.reserve(n_ / 4 + 16);
            out_.breaks.reserve(n_ / 4 + 16);
            out_.syms.reserve(n_ / 64 + 1024);
        }
        out_.unclosed_brace = -1;
        out_.unterminated = -1;
        if (opens_.size() < 256) opens_.resize(256);
        if (table_ != nullptr) {
            empty_slots(out_);
            shift_ = 64 - 10;  // log2(kFirstSlots)
            slot_mask_ = slots_.size() - 1;
        }
    }

    // The whole lexer is this loop. Its state lives in locals, so that storing
    // a token does not make the compiler reload it; rare constructs are scanned
    // by member functions that only return where they end.
    // kIndex: with a table (the rewriter's scan), interning names and listing
    // what to visit; without (lex()), tokens only.
    template <bool kIndex>
    void run() {
        const char* const s = s_;
        const std::size_t n = n_;
        std::vector<int>& visit = out_.visit;
        std::size_t i = n >= 3 && std::memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;  // BOM: blank
        Tok* toks = out_.toks.get();
        std::size_t ntok = 0;
        std::size_t cap = cap_;
        // What the loop tracks is kept to what it cannot look up in the tokens
        // behind it: the fewer stores per token, the faster.
        int last = -1;          // last significant token
        int last_newline = -1;  // last newline token: a '#' after it starts a directive
        std::uint8_t dir = 0;   // kInDirective on a directive line
        int header_after = -1;  // the keyword of an #include: a header name may follow it
        int launch_depth = 0;

// Appends token [B, E) and sets IDX to its index.
#define CASS_PUSH(IDX, B, E, KIND, FLAGS)            \
    do {                                             \
        if (ntok == cap) {                           \
            toks = grow(ntok);                       \
            cap = cap_;                              \
        }                                            \
        Tok& t_ = toks[ntok];                        \
        t_.begin = static_cast<std::uint32_t>(B);    \
        t_.end = static_cast<std::uint32_t>(E);      \
        t_.link = -1;                                \
        t_.kind = (KIND);                            \
        t_.flags = static_cast<std::uint8_t>(FLAGS); \
        t_.back = back_to(ntok, last);               \
        (IDX) = static_cast<int>(ntok++);            \
    } while (false)
// The same for a significant token, which later tokens point back to.
#define CASS_SIG(IDX, B, E, KIND, FLAGS)           \
    do {                                           \
        CASS_PUSH(IDX, B, E, KIND, (FLAGS) | dir); \
        last = (IDX);                              \
    } while (false)
// The byte after the token's first (loaded only where a case needs it).
#define C1 static_cast<unsigned char>(s[b + 1])
// A punctuator of LEN bytes.
#define CASS_PUNCT(IDX, LEN)                      \
    do {                                          \
        i = b + (LEN);                            \
        CASS_SIG(IDX, b, i, TokenKind::Punct, 0); \
    } while (false)

        int idx = -1;
        while (true) {
            // Blanks are gaps between tokens, never tokens.
            if (kDispatch[static_cast<unsigned char>(s[i])] == kBlank) i = blanks_from(s, i);
            const std::size_t b = i;
            const unsigned char c = static_cast<unsigned char>(s[i]);
            switch (kDispatch[c]) {
                case kIdentStart: {
                    const std::size_t k = static_cast<std::size_t>(ident_end(s + i + 1) - s);
                    const unsigned char next = static_cast<unsigned char>(s[k]);
                    if (next == '"' || next == '\'') {
                        const std::size_t end = prefixed_literal(b, k);
                        if (end != 0) {
                            i = end;
                            CASS_SIG(idx, b, end, next == '"' ? TokenKind::String : TokenKind::Char,
                                     literal_flags_);
                            note_cut(idx);
                            break;
                        }
                    }
                    i = k;
                    const int before = last;
                    CASS_SIG(idx, b, k, TokenKind::Identifier, 0);
                    if (dir != 0 && before >= 0 && (toks[before].flags & kDirectiveHash) != 0) {
                        // '#' then this name: the directive's keyword.
                        const std::string_view word(s + b, k - b);
                        if (word == "include" || word == "include_next" || word == "import") {
                            header_after = idx;
                        }
                    }
                    if (kIndex) {
                        const NameSlot name = intern(s + b, k - b);
                        toks[idx].link = name.sym;
                        ++out_.syms[static_cast<std::size_t>(name.sym)].uses;
                        const std::uint16_t f = name.flags;
                        if ((f & (kSymVisit | kSymMember)) != 0) visit.push_back(idx);
                        if ((f & kSymFor) != 0) out_.fors.push_back(idx);
                        if (before >= 0 && toks[before].kind == TokenKind::Identifier) {
                            out_.decls.push_back(idx);
                        }
                    }
                    break;
                }
                case kNewline:
                    i = b + 1;
                    CASS_PUSH(idx, b, i, TokenKind::Newline, 0);
                    if (dir != 0) visit.push_back(idx);  // the end of a directive
                    last_newline = idx;
                    dir = 0;
                    header_after = -1;
                    break;
                case kDigit:
                number:
                    {
                        i = number_end(b);
                        CASS_SIG(idx, b, i, TokenKind::Number, 0);
                        if (kIndex) {
                            // Only these values can be a warp-size hazard (see hazard_number).
                            const long long v = small_literal(s + b, i - b);
                            if (v == 5 || v == 31 || v == 32 || v == 0xffffffffLL) {
                                visit.push_back(idx);
                            }
                        }
                        break;
                    }
                case kOpen:
                    CASS_PUNCT(idx, 1);
                    push_open(idx, static_cast<char>(c));
                    break;
                case kClose:
                    CASS_PUNCT(idx, 1);
                    close(toks, idx, static_cast<char>(c));
                    break;
                case kSingle:
                    CASS_PUNCT(idx, 1);
                    break;
                case kAssign:  // = ! * % ^
                    CASS_PUNCT(idx, C1 == '=' ? 2 : 1);
                    break;
                case kDoubling:  // + & |
                    CASS_PUNCT(idx, C1 == c || C1 == '=' ? 2 : 1);
                    break;
                case kColon:
                    CASS_PUNCT(idx, C1 == ':' ? 2 : 1);
                    break;
                case kMinus: {
                    const unsigned char c2 = static_cast<unsigned char>(s[i + 2]);
                    std::size_t len = 1;
                    if (C1 == '>') {
                        len = c2 == '*' ? 3 : 2;
                    } else if (C1 == '-' || C1 == '=') {
                        len = 2;
                    }
                    CASS_PUNCT(idx, len);
                    break;
                }
                case kDot: {
                    if (is_digit(C1)) goto number;
                    const unsigned char c2 = static_cast<unsigned char>(s[i + 2]);
                    std::size_t len = 1;
                    if (C1 == '.' && c2 == '.') {
                        len = 3;
                    } else if (C1 == '*') {
                        len = 2;
                    }
                    CASS_PUNCT(idx, len);
                    break;
                }
                case kLess: {
                    if (header_after >= 0 && last == header_after) {
                        i = header_end(b);
                        CASS_SIG(idx, b, i, TokenKind::HeaderName, literal_flags_);
                        note_cut(idx);
                        visit.push_back(idx);
                        break;
                    }
                    const unsigned char c2 = static_cast<unsigned char>(s[i + 2]);
                    if (C1 == '<' && c2 == '<' && !is_operator(toks, last)) {
                        i = b + 3;
                        ++launch_depth;
                        CASS_SIG(idx, b, i, TokenKind::LaunchOpen, 0);
                        push_open(idx, '<');
                        visit.push_back(idx);
                        break;
                    }
                    if (C1 == '<') {
                        CASS_PUNCT(idx, c2 == '=' ? 3 : 2);
                        if (c2 != '=') visit.push_back(idx);  // "<<": the hazard scanner checks it
                    } else if (C1 == '=') {
                        CASS_PUNCT(idx, c2 == '>' ? 3 : 2);
                    } else {
                        CASS_PUNCT(idx, 1);
                    }
                    break;
                }
                case kGreater: {
                    const unsigned char c2 = static_cast<unsigned char>(s[i + 2]);
                    if (C1 == '>' && c2 == '>' && launch_depth > 0) {
                        i = b + 3;
                        --launch_depth;
                        CASS_SIG(idx, b, i, TokenKind::LaunchClose, 0);
                        if (nopen_ > 0 && opens_[nopen_ - 1].c == '<') {
                            --grouping_;
                            const int open = opens_[--nopen_].token;
                            toks[open].link = idx;
                            toks[idx].link = open;
                        }
                        break;
                    }
                    if (C1 == '>') {
                        CASS_PUNCT(idx, c2 == '=' ? 3 : 2);
                    } else {
                        CASS_PUNCT(idx, C1 == '=' ? 2 : 1);
                    }
                    break;
                }
                case kSlash:
                    if (C1 == '/') {
                        i = line_comment_end(b);
                        CASS_PUSH(idx, b, i, TokenKind::Comment, dir);
                    } else if (C1 == '*') {
                        // A block comment spanning lines inside a directive continues it;
                        // one spanning lines outside keeps the line-start state of its
                        // first line.
                        i = block_comment_end(b);
                        CASS_PUSH(idx, b, i, TokenKind::Comment, dir | literal_flags_);
                        note_cut(idx);
                    } else {
                        CASS_PUNCT(idx, C1 == '=' ? 2 : 1);
                    }
                    break;
                case kHash:
                    if (last < last_newline || last < 0) {  // first on its line
                        i = b + 1;
                        dir = kInDirective;
                        CASS_SIG(idx, b, i, TokenKind::Punct,
                                 kDirectiveHash | (grouping_ != 0 ? kInGroup : 0));
                        visit.push_back(idx);
                        out_.breaks.push_back(idx);
                    } else {
                        CASS_PUNCT(idx, C1 == '#' ? 2 : 1);
                    }
                    break;
                case kDoubleQuote:
                    if (header_after >= 0 && last == header_after) {
                        i = header_end(b);
                        CASS_SIG(idx, b, i, TokenKind::HeaderName, literal_flags_);
                        note_cut(idx);
                        visit.push_back(idx);
                    } else {
                        i = quoted_end(b, '"');
                        CASS_SIG(idx, b, i, TokenKind::String, literal_flags_);
                        note_cut(idx);
                    }
                    break;
                case kSingleQuote:
                    i = quoted_end(b, '\'');
                    CASS_SIG(idx, b, i, TokenKind::Char, literal_flags_);
                    note_cut(idx);
                    break;
                case kBackslash:
                    if (C1 == '\n' || (C1 == '\r' && s[i + 2] == '\n')) {
                        i = blanks_end(b);
                    } else {
                        CASS_PUNCT(idx, 1);
                    }
                    break;
                case kBlank:  // not reached: blanks were skipped above
                    i = blanks_from(s, b);
                    break;
                case kNul:
                    // The end is found here rather than tested before every token.
                    if (i >= n) goto done;
                    [[fallthrough]];
                case kOther:
                    i = b + 1;
                    CASS_SIG(idx, b, i, TokenKind::Other, 0);
                    break;
                default:
                    __builtin_unreachable();  // every Dispatch value has its case
            }
        }
    done:
#undef C1
#undef CASS_PUNCT
#undef CASS_SIG
#undef CASS_PUSH
        out_.ntoks = ntok;
        for (std::size_t k = 0; k < nopen_; ++k) {
            if (opens_[k].c == '{') {
                out_.unclosed_brace = opens_[k].token;
                break;
            }
        }
    }

private:
    const char* s_;
    std::size_t n_;
    const Table* table_;
    Scan& out_;
    std::vector<Open>& opens_;  // open brackets and launches, innermost last: nopen_ of them
    std::size_t nopen_ = 0;
    std::size_t grouping_ = 0;        // the opens_ that are not '{'
    std::vector<NameSlot>& slots_;    // the file's names, open addressing
    std::size_t& cap_;                // tokens out_.toks has room for
    unsigned shift_ = 0;              // 64 - log2(slots_.size())
    std::size_t slot_mask_ = 0;       // slots_.size() - 1
    std::uint8_t literal_flags_ = 0;  // kUnterminated when the last literal scanned was cut off

    // literal_value() with the common one- and two-digit numbers done inline.
    static long long small_literal(const char* p, std::size_t len) {
        const auto d0 = static_cast<unsigned>(static_cast<unsigned char>(p[0]) - '0');
        if (len == 1) return d0 < 10 ? static_cast<long long>(d0) : -1;
        const auto d1 = static_cast<unsigned>(static_cast<unsigned char>(p[1]) - '0');
        if (len == 2 && d0 < 10 && d1 < 10) return static_cast<long long>(d0 * 10 + d1);
        return literal_value(std::string_view(p, len));
    }

    // Tok::back of token `ntok` whose previous significant token is `last`.
    std::uint16_t back_to(std::size_t ntok, int last) {
        if (last < 0) return 0;
        const std::size_t d = ntok - static_cast<std::size_t>(last);
        if (d < kFarBack) return static_cast<std::uint16_t>(d);
        out_.far_prev.emplace_back(static_cast<std::int32_t>(ntok), last);
        return kFarBack;
    }

    // Twice the room for tokens; returns where they now are.
    [[gnu::noinline]] Tok* grow(std::size_t used) {
        std::unique_ptr<Tok[]> more(new Tok[cap_ * 2]);
        std::memcpy(more.get(), out_.toks.get(), used * sizeof(Tok));
        out_.toks = std::move(more);
        cap_ *= 2;
        return out_.toks.get();
    }

    void note_cut(int idx) {
        if ((literal_flags_ & kUnterminated) == 0) return;
        if (out_.unterminated < 0) out_.unterminated = idx;
        out_.breaks.push_back(idx);
    }

    // Whether the last significant token is the keyword `operator` (operator<<<).
    bool is_operator(const Tok* toks, int last) const {
        if (last < 0 || toks[last].kind != TokenKind::Identifier) return false;
        const Tok& t = toks[last];
        return std::string_view(s_ + t.begin, t.end - t.begin) == "operator";
    }

    // The byte at k; zero at and past the end (the padding).
    [[nodiscard]] unsigned char at(std::size_t k) const {
        return static_cast<unsigned char>(s_[k]);
    }

    // Length of a backslash-newline splice starting at k, or 0.
    [[nodiscard]] std::size_t splice_at(std::size_t k) const {
        if (at(k) != '\\') return 0;
        if (at(k + 1) == '\n') return 2;
        if (at(k + 1) == '\r' && at(k + 2) == '\n') return 3;
        return 0;
    }

    // The end of blanks of every kind from k, backslash-newline splices included.
    std::size_t blanks_end(std::size_t k) const {
        while (k < n_) {
            const unsigned char d = at(k);
            if (d == ' ' || d == '\t' || d == '\r' || d == '\f' || d == '\v') {
                ++k;
            } else if (std::size_t sp = splice_at(k)) {
                k += sp;
            } else {
                break;
            }
        }
        return k;
    }

    std::size_t line_comment_end(std::size_t b) const {
        std::size_t k = b + 2;
        // Up to the first newline that is not part of a backslash-newline splice. A
        // backslash right before a newline always splices: nothing earlier can take it.
        while (true) {
            const void* nl = k < n_ ? std::memchr(s_ + k, '\n', n_ - k) : nullptr;
            if (nl == nullptr) return n_;
            const std::size_t q = static_cast<std::size_t>(static_cast<const char*>(nl) - s_);
            if (s_[q - 1] == '\\' || (s_[q - 1] == '\r' && s_[q - 2] == '\\')) {
                k = q + 1;
                continue;
            }
            return q;
        }
    }

    std::size_t block_comment_end(std::size_t b) {
        const char* end = nullptr;
        if (b + 2 < n_) end = find_pair(s_ + b + 2, n_ - b - 2, '*', '/');
        if (end == nullptr) {
            literal_flags_ = kUnterminated;
            return n_;
        }
        literal_flags_ = 0;
        return static_cast<std::size_t>(end - s_) + 2;
    }

    // The first "ab" in [hay, hay + hn), or nullptr.
    static const char* find_pair(const char* hay, std::size_t hn, char a, char b) {
        if (hn < 2) return nullptr;
        const char* last = hay + (hn - 2);
        for (const char* p = hay; p <= last;) {
            const void* hit = std::memchr(p, a, static_cast<std::size_t>(last - p) + 1);
            if (hit == nullptr) return nullptr;
            const char* q = static_cast<const char*>(hit);
            if (q[1] == b) return q;
            p = q + 1;
        }
        return nullptr;
    }

    std::size_t header_end(std::size_t b) {
        const unsigned char close = at(b) == '<' ? '>' : '"';
        std::size_t k = b + 1;
        while (k < n_ && at(k) != close && at(k) != '\n') ++k;
        if (at(k) == close) {
            literal_flags_ = 0;
            return k + 1;
        }
        literal_flags_ = kUnterminated;
        return k;
    }

    // After a name that ends at k, before a quote: the end of the literal the
    // name prefixes (u8"...", L'x', R"(...)"), or 0 when the name is no prefix.
    std::size_t prefixed_literal(std::size_t b, std::size_t k) {
        const std::string_view word(s_ + b, k - b);
        const unsigned char next = at(k);
        const bool raw = word.back() == 'R' && (word == "R" || word == "u8R" || word == "uR" ||
                                                word == "UR" || word == "LR");
        if (raw && next == '"') return raw_string_end(k);
        if (word == "u8" || word == "u" || word == "U" || word == "L") {
            return quoted_end(k, static_cast<char>(next));
        }
        return 0;
    }

    std::size_t raw_string_end(std::size_t quote) {
        // R"delim( ... )delim"
        std::size_t k = quote + 1;
        const std::size_t dstart = k;
        while (k < n_ && k - dstart <= 16 && at(k) != '(' && at(k) != '"' && at(k) != ' ' &&
               at(k) != '\\' && at(k) != '\n')
            ++k;
        if (at(k) != '(') return quoted_end(quote, '"');  // no raw string: an ordinary one
        const std::string_view delim(s_ + dstart, k - dstart);
        std::size_t p = k + 1;
        while (true) {
            const void* hit = p < n_ ? std::memchr(s_ + p, ')', n_ - p) : nullptr;
            if (hit == nullptr) {
                literal_flags_ = kUnterminated;
                return n_;
            }
            const std::size_t q = static_cast<std::size_t>(static_cast<const char*>(hit) - s_);
            if (q + 1 + delim.size() < n_ && std::string_view(s_ + q + 1, delim.size()) == delim &&
                at(q + 1 + delim.size()) == '"') {
                literal_flags_ = 0;
                return q + 2 + delim.size();
            }
            p = q + 1;
        }
    }

    // The end of a literal whose opening quote is at `open`.
    std::size_t quoted_end(std::size_t open, char quote) {
        std::size_t k = open + 1;
        literal_flags_ = kUnterminated;
        while (k < n_) {
            const unsigned char d = at(k);
            if (d == '\\') {
                if (std::size_t sp = splice_at(k)) {
                    k += sp;
                } else {
                    k += 2;
                }
                continue;
            }
            if (d == '\n') break;
            ++k;
            if (d == static_cast<unsigned char>(quote)) {
                literal_flags_ = 0;
                break;
            }
        }
        return k > n_ ? n_ : k;
    }

    std::size_t number_end(std::size_t b) const {
        std::size_t k = b + 1;
        while (k < n_) {
            const unsigned char d = at(k);
            if ((d == '+' || d == '-') &&
                (at(k - 1) == 'e' || at(k - 1) == 'E' || at(k - 1) == 'p' || at(k - 1) == 'P')) {
                ++k;
            } else if (ident_char(d) || d == '.') {
                ++k;
            } else if (d == '\'' && ident_char(at(k + 1))) {
                k += 2;  // digit separator
            } else {
                break;
            }
        }
        return k > n_ ? n_ : k;
    }

    // Inlined in the loop (vector::push_back alone is not, in a function this big).
    void push_open(int idx, char c) {
        if (nopen_ == opens_.size()) opens_.resize(opens_.size() * 2);
        opens_[nopen_++] = Open{idx, c};
        if (c != '{') ++grouping_;
    }

    void close(Tok* toks, int idx, char c) {
        const char want = c == ')' ? '(' : (c == ']' ? '[' : '{');
        // A '}' pops unmatched openers of other kinds (unbalanced input stays usable).
        if (c == '}') {
            while (nopen_ > 0 && opens_[nopen_ - 1].c != '{') {
                --nopen_;
                --grouping_;
            }
        }
        if (nopen_ > 0 && opens_[nopen_ - 1].c == want) {
            if (want != '{') --grouping_;
            const int open = opens_[--nopen_].token;
            toks[open].link = idx;
            toks[idx].link = open;
        }
    }

    [[nodiscard]] std::size_t slot_of(std::uint64_t key) const {
        return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> shift_);
    }

    NameSlot intern(const char* p, std::size_t len) {
        const std::uint64_t key = name_key(p, len);
        const auto len16 = static_cast<std::uint16_t>(len < 0xFFFF ? len : 0xFFFF);
        const NameSlot* slots = slots_.data();
        for (std::size_t i = slot_of(key);; i = (i + 1) & slot_mask_) {
            const NameSlot& z = slots[i];
            if (z.sym < 0) return add_symbol(p, len, key, i);
            if (z.key == key && z.len == len16 &&
                (len <= 8 ||
                 (out_.syms[static_cast<std::size_t>(z.sym)].len == len &&
                  same_name(s_ + out_.syms[static_cast<std::size_t>(z.sym)].begin, p, len)))) {
                return z;
            }
        }
    }

    // A name seen for the first time in this file (a few hundred per file).
    [[gnu::noinline]] NameSlot add_symbol(const char* p, std::size_t len, std::uint64_t key,
                                          std::size_t slot) {
        const int sym = static_cast<int>(out_.syms.size());
        out_.syms.push_back(classify(std::string_view(p, len), key));
        const NameSlot z{key, sym, static_cast<std::uint16_t>(len < 0xFFFF ? len : 0xFFFF),
                         out_.syms.back().flags};
        slots_[slot] = z;
        out_.used_slots.push_back(static_cast<std::uint32_t>(slot));  // stale once grown
        if (out_.syms.size() * 2 > slots_.size()) grow();
        return z;
    }

    void grow() {
        std::vector<NameSlot> old(slots_.size() * 2, kEmptySlot);
        old.swap(slots_);
        --shift_;
        slot_mask_ = slots_.size() - 1;
        const std::size_t mask = slot_mask_;
        for (const NameSlot& z : old) {
            if (z.sym < 0) continue;
            std::size_t i = slot_of(z.key);
            while (slots_[i].sym >= 0) i = (i + 1) & mask;
            slots_[i] = z;
        }
    }

    // What the table and the hazard scanners make of a name, at its first use in the
    // file: as the files before it found, where this workspace saw it before.
    Symbol classify(std::string_view w, std::uint64_t key) {
        Symbol y{};
        y.begin = static_cast<std::uint32_t>(w.data() - s_);
        y.len = static_cast<std::uint32_t>(w.size());
        NameClasses::Class c{};
        if (const NameClasses::Class* known = out_.classes.find(*table_, w, key)) {
            c = *known;
        } else {
            c = table_class(w);
            out_.classes.add(w, key, c);
        }
        y.entry = c.entry;
        y.family = c.family;
        y.flags = c.flags;
        y.var_type = -1;
        y.location = -1;
        y.lanes = -1;
        y.plain = -1;
        y.uses = 0;
        return y;
    }

    // What the table makes of a name, and the hazard scanners' names among them.
    NameClasses::Class table_class(std::string_view w) const {
        NameClasses::Class c{};
        c.entry = table_->find(w, false);
        c.family = static_cast<std::int16_t>(c.entry == nullptr ? table_->guess_family(w) : -1);
        std::uint16_t f = 0;
        if (w == "asm" || w == "__asm__" || w == "__asm") f |= kSymAsm;
        if (w == "warpSize") f |= kSymWarpSize;
        if (w == "texture" || w == "surface") f |= kSymTexture;
        if (c.entry != nullptr || c.family >= 0 || f != 0) f |= kSymVisit;
        if (table_->is_member_name(w)) f |= kSymMember;
        if (w == "for") f |= kSymFor;
        if (w == "define") f |= kSymDefine;
        if (w == "cudaMemLocation") f |= kSymMemLocation;
        c.flags = f;
        return c;
    }
};

}  // namespace

void scan(std::string_view src, const Table* table, Scan& out) {
    Scanner scanner(src, table, out);
    if (table != nullptr) {
        scanner.run<true>();
    } else {
        scanner.run<false>();
    }
}

long long literal_value(std::string_view t) {
    std::size_t n = t.size();
    while (n > 0 && (t[n - 1] == 'u' || t[n - 1] == 'U' || t[n - 1] == 'l' || t[n - 1] == 'L')) --n;
    if (n == 0 || n > 24) return -1;
    std::size_t k = 0;
    int base = 10;
    if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        base = 16;
        k = 2;
    }
    unsigned long long v = 0;
    for (; k < n; ++k) {
        const char c = t[k];
        int d = -1;
        if (c >= '0' && c <= '9') d = c - '0';
        if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
        if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
        if (c == '\'') continue;
        if (d < 0) return -1;
        v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
        if (v > 0xffffffffffffULL) return -1;
    }
    return static_cast<long long>(v);
}

bool is_non_declaring_keyword(std::string_view w) {
    if (w.size() < 2 || w.size() > 15 || w[0] < '_' || w[0] > 'w') return false;
    static constexpr std::string_view kWords[] = {
        "return",     "case",         "goto",        "else",       "new",
        "delete",     "throw",        "sizeof",      "alignof",    "decltype",
        "typename",   "const",        "volatile",    "static",     "extern",
        "inline",     "constexpr",    "unsigned",    "signed",     "register",
        "mutable",    "friend",       "virtual",     "explicit",   "using",
        "namespace",  "template",     "operator",    "co_return",  "co_await",
        "co_yield",   "if",           "while",       "for",        "switch",
        "do",         "__host__",     "__device__",  "__global__", "__forceinline__",
        "__shared__", "__constant__", "__managed__", "typedef",    "struct",
        "class",      "enum",         "union",       "auto",       "defined",
        "include",    "ifdef",        "ifndef",      "undef",      "elif",
        "pragma"};
    for (const std::string_view k : kWords) {
        if (k == w) return true;
    }
    return false;
}

bool mentions_lanes(std::string_view w) {
    if (w == "threadIdx" || w == "tid") return true;
    // "lane" or "warp" in any case, starting a word: laneId, kWarpSize, WARP_SIZE,
    // n_lanes, but not planes or bywarping.
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    for (std::size_t k = 0; k + 4 <= w.size(); ++k) {
        const char a = lower(w[k]);
        const bool word = k == 0 || (w[k] >= 'A' && w[k] <= 'Z') || w[k - 1] == '_' ||
                          (w[k - 1] >= '0' && w[k - 1] <= '9');
        if (!word) continue;
        if ((a == 'l' && lower(w[k + 1]) == 'a' && lower(w[k + 2]) == 'n' &&
             lower(w[k + 3]) == 'e') ||
            (a == 'w' && lower(w[k + 1]) == 'a' && lower(w[k + 2]) == 'r' &&
             lower(w[k + 3]) == 'p')) {
            return true;
        }
    }
    return false;
}

}  // namespace detail

std::vector<Token> lex(std::string_view src) {
    std::string padded;
    padded.reserve(src.size() + detail::kPadding);
    padded.append(src);
    padded.append(detail::kPadding, '\0');
    detail::Scan scan;
    detail::scan(std::string_view(padded.data(), src.size()), nullptr, scan);
    std::vector<Token> out;
    out.reserve(scan.ntoks);
    for (std::size_t k = 0; k < scan.ntoks; ++k) {
        const detail::Tok& t = scan.toks[k];
        out.push_back(Token{t.begin, t.end, t.kind, t.flags});
    }
    return out;
}

}  // namespace cass
