// Internal: the lexer of lexer.cpp, which also indexes what the rewriter reads.
//
// One pass over the bytes yields the tokens and, on the way, each token's
// previous significant token, matching brackets, one symbol per distinct
// identifier (its table entry looked up once per file, not once per use), and
// the short list of tokens the rewriter has to visit at all.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "cass/lexer.hpp"
#include "cass/table.hpp"

namespace cass::detail {

// Asks for transparent huge pages on a large buffer not touched yet: a large file's
// tokens and copy span hundreds of MB, and with 4 KiB pages the walks over them
// spend more time in TLB misses as the input grows (bench/scaling.py).
inline void advise_huge(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
    if (bytes < 4 * kHuge) return;
    const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

// Zero bytes that must follow the scanned bytes: loops stop on them instead of
// checking bounds, and short names are read a word at a time.
constexpr std::size_t kPadding = 32;

inline std::uint64_t load64(const char* p) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline std::uint32_t load32(const char* p) {
    std::uint32_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// A punctuator of up to three bytes as one number, so comparing two is one compare.
constexpr std::uint32_t punct_code(std::string_view p) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < p.size() && k < 4; ++k) {
        v |= static_cast<std::uint32_t>(static_cast<unsigned char>(p[k])) << (8 * k);
    }
    return v;
}

static_assert(TokenKind::Newline < TokenKind::Comment && TokenKind::Comment < TokenKind::Identifier,
              "Tok::significant() relies on the order of TokenKind");

// Plain data, written field by field where it lies: a temporary built field
// by field and copied whole stalls the store buffer, once per token.
// 16 bytes: a large file has a token every three bytes, and its token array is
// most of what a translation touches; at 20 bytes it left the L3 cache at a few MB
// of input and each fresh page costs a fault (bench/reports/scaling.md).
struct Tok {
    std::uint32_t begin;
    std::uint32_t end;
    std::int32_t link;  // brackets and launches: the matching token or -1; identifiers: symbol
    TokenKind kind;
    std::uint8_t flags;
    // How far back the previous significant token is: 0 for none, kFarBack when
    // kFarBack or more tokens back (then Scan::far_prev has it).
    std::uint16_t back;

    [[nodiscard]] bool significant() const { return kind > TokenKind::Comment; }
    [[nodiscard]] std::string_view text(std::string_view src) const {
        return std::string_view(src.data() + begin, end - begin);
    }
};

static_assert(sizeof(Tok) == 16, "Tok is kept to 16 bytes (see above)");

// Tok::back of a token whose previous significant token is this far or farther.
constexpr std::uint16_t kFarBack = 0xFFFF;

enum SymbolFlags : std::uint16_t {
    kSymVisit = 1U << 0,        // the rewriter looks at every use: a table name, a hazard
                                // name, or a CUDA-looking unknown
    kSymMember = 1U << 1,       // the member half of some "Type::member" row
    kSymFor = 1U << 2,          // for
    kSymDefine = 1U << 3,       // define
    kSymMemLocation = 1U << 4,  // cudaMemLocation
    kSymAsm = 1U << 5,          // asm, __asm__, __asm
    kSymWarpSize = 1U << 6,     // warpSize
    kSymTexture = 1U << 7,      // texture, surface
};

// One distinct identifier of the file, and what the file says about it.
struct Symbol {
    std::uint32_t begin;  // its first occurrence
    std::uint32_t len;
    const Entry* entry;
    std::int32_t var_type;  // `cudaFoo name`: the symbol of cudaFoo, a table type; or -1
    std::int32_t location;  // `cudaMemLocation name = {...}`: the '{', or -1
    std::int16_t family;    // Table::guess_family, for names without an entry
    std::uint16_t flags;    // SymbolFlags
    bool declared;          // the file declares or #defines it
    bool full_mask;         // a constant equal to a full 32-lane mask
    bool is_location;       // a cudaMemLocation variable
    bool wide;              // declared 64 bits wide (unsigned long long, uint64_t)
    bool active_mask;       // a 64-bit constant set to __activemask()
    std::int8_t lanes;      // mentions_lanes() of the name once asked, else -1
    std::int8_t plain;      // Rewriter::is_plain() of its entry once asked, else -1
    std::uint32_t uses;     // its identifier tokens (Rewriter::uses_of's counts)
};

// One slot of the per-file name table: everything the lexer needs of a name
// it has seen, in one 16-byte read.
struct NameSlot {
    std::uint64_t key;    // the name itself for up to 8 bytes, else a hash of it
    std::int32_t sym;     // -1 = empty
    std::uint16_t len;    // the name's length, 0xFFFF for 65535 and more
    std::uint16_t flags;  // the symbol's SymbolFlags
};

// What the table makes of a name (the lexer's classify), kept from one file to the next
// by a Workspace: most names of a file were in the files before it (keywords, types,
// the project's own), and working one out asks the table three times. Bounded: once
// half full, it starts over.
class NameClasses {
public:
    struct Class {
        const Entry* entry;
        std::int16_t family;
        std::uint16_t flags;  // SymbolFlags
    };

    // The class of `name`, whose key is `key` (the lexer's name_key), or nullptr. What
    // was worked out with another table is forgotten first.
    const Class* find(const Table& table, std::string_view name, std::uint64_t key) {
        if (table.serial() != serial_) {
            clear();
            serial_ = table.serial();
            return nullptr;
        }
        if (count_ == 0) return nullptr;
        for (std::size_t i = slot_of(key);; i = (i + 1) & (kSlots - 1)) {
            const Slot& z = slots_[i];
            if (z.len == 0) return nullptr;
            if (z.key == key && z.len == name.size() &&
                (name.size() <= 8 ||
                 std::memcmp(names_.data() + z.at, name.data(), name.size()) == 0)) {
                return &z.c;
            }
        }
    }

    // Keeps the class of a name find() did not know (with the same table).
    void add(std::string_view name, std::uint64_t key, const Class& c) {
        if ((count_ + 1) * 2 > kSlots || name.size() > 0xFFFFFFFFU ||
            names_.size() + name.size() > 0xFFFFFFFFU) {
            clear();
        }
        if (slots_.empty()) slots_.assign(kSlots, Slot{});
        std::size_t i = slot_of(key);
        while (slots_[i].len != 0) i = (i + 1) & (kSlots - 1);
        Slot& z = slots_[i];
        z.key = key;
        z.c = c;
        z.len = static_cast<std::uint32_t>(name.size());
        z.at = static_cast<std::uint32_t>(names_.size());
        if (name.size() > 8) names_.append(name);  // shorter names are their own key
        ++count_;
    }

private:
    static constexpr std::size_t kSlots = 4096;
    struct Slot {
        std::uint64_t key = 0;  // as NameSlot::key
        Class c{};
        std::uint32_t at = 0;   // where names_ holds the name (when longer than 8 bytes)
        std::uint32_t len = 0;  // 0: empty
    };

    [[nodiscard]] static std::size_t slot_of(std::uint64_t key) {
        return static_cast<std::size_t>((key * 0xbf58476d1ce4e5b9ULL) >> 52);  // 12 bits
    }

    void clear() {
        if (count_ != 0) slots_.assign(kSlots, Slot{});
        names_.clear();
        count_ = 0;
    }

    std::vector<Slot> slots_;
    std::string names_;
    std::size_t count_ = 0;
    std::uint64_t serial_ = 0;  // the table's (Table::serial), 0 for none yet
};

// An open bracket or launch waiting for its closer.
struct Open {
    int token;
    char c;  // '(', '[', '{', or '<' for <<<
};

// What the lexer produces, and the buffers it works in. A Scan may be used
// again for the next file: the lexer resets it but keeps what it allocated.
struct Scan {
    std::unique_ptr<Tok[]> toks;  // ntoks of them, room for cap
    std::size_t ntoks = 0;
    std::size_t cap = 0;
    std::vector<Symbol> syms;
    std::vector<int> visit;  // the only tokens the rewriter's walk needs, in order
    std::vector<int> decls;  // identifiers right after an identifier: maybe declarations
    std::vector<int> fors;   // `for` keywords
    // Directive '#'s and cut-off literals, in order: a call with one of them
    // between its parentheses is not parsed (its arguments differ by branch, or end early).
    std::vector<int> breaks;
    int unclosed_brace = -1;
    int unterminated = -1;  // first comment or literal cut off by the end of a line or file
    // (token, previous significant token) of the tokens whose Tok::back is kFarBack,
    // by token: only a run of 65535 comments or line breaks makes one.
    std::vector<std::pair<std::int32_t, std::int32_t>> far_prev;
    std::vector<NameSlot> slots;  // the lexer's name table
    // The slots this file's names took while the table had its first size: the next
    // file empties only those.
    std::vector<std::uint32_t> used_slots;
    std::vector<Open> opens;  // the lexer's bracket stack
    NameClasses classes;      // kept for the next file
};

// The previous significant token of token `i` of `scan`, or -1.
inline int prev_of(const Scan& scan, int i) {
    const std::uint16_t b = scan.toks[static_cast<std::size_t>(i)].back;
    if (b != kFarBack) return b == 0 ? -1 : i - b;
    const auto& far = scan.far_prev;
    std::size_t lo = 0;
    std::size_t hi = far.size();
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (far[mid].first < i) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < far.size() && far[lo].first == i ? far[lo].second : -1;
}

// Lexes `src` (followed in memory by kPadding zero bytes). With a table it also
// interns identifiers and fills `visit`, `decls` and `fors`; without, only the
// tokens, links and brackets are filled.
void scan(std::string_view src, const Table* table, Scan& out);

// The value of a decimal or hex integer literal, or -1 (suffixes and separators
// ignored). Only small values matter here, so anything long is -1.
long long literal_value(std::string_view t);

// threadIdx, tid, or a name that mentions a lane or a warp.
bool mentions_lanes(std::string_view w);

// Words before a name that do not make it a declaration of that name.
bool is_non_declaring_keyword(std::string_view w);

}  // namespace cass::detail
