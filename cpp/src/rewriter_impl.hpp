// Internal: the state of one translation, shared by rewriter.cpp (table
// application, rewrites, includes) and hazards.cpp (warp-size and PTX scanners).
#pragma once

#include <array>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cass/lexer.hpp"
#include "cass/rewriter.hpp"
#include "diag_ids.hpp"
#include "scanner.hpp"

// An internal invariant. Builds without NDEBUG (the core tests, the fuzzer)
// trap where it breaks, to find the bug; release builds recover where it is checked.
#ifdef NDEBUG
#define CASS_CHECK(cond) static_cast<void>(0)
#else
#define CASS_CHECK(cond) ((cond) ? static_cast<void>(0) : __builtin_trap())
#endif

namespace cass::detail {

// Replace bytes [begin, end) of the input with `text`, which lives in the table,
// in static storage, or in Rewriter::owned_: edits copy no strings.
struct Edit {
    std::uint32_t begin;
    std::uint32_t end;
    std::string_view text;
};

// Token index range [first, last] of one call argument, both significant tokens.
struct Arg {
    int first;
    int last;
};

// A #if/#elif/#else branch: whether it is provably inactive.
struct Branch {
    bool parent_dead = false;
    bool dead = false;
    bool taken = false;  // a branch of this chain so far is provably active
    // The same for any HIP compile, from the macros hipcc defines or never does
    // (`#ifndef __HIPCC__`, `#ifdef __NVCC__`): code there is kept and translated, and
    // inline PTX in it is only a note.
    bool hip_dead = false;
    bool hip_taken = false;
};

struct Value {
    bool known = false;
    long long value = 0;
};

// What a VersionMacro row stands for in the assumed CUDA release `v` (12080):
// the release (arg -1), its major (arg 1: 12), minor (arg 2: 8) or build (arg 3: 0).
inline long long version_value(const Entry& e, std::uint32_t v) {
    if (e.arg == 1) return v / 1000;
    if (e.arg == 2) return (v % 1000) / 10;
    if (e.arg == 3) return 0;  // a build number: the release's first
    return v;
}

struct Loop {
    int header_open;
    int body_begin;
    int body_end;
    bool literal_lanes;  // the header holds a literal 16 or 32
    bool reported;
    bool rewritten = false;  // its bound now reads warpSize
    int parent = -1;         // the innermost loop around it (loops nest: see scan_loops)
};

// sizes_by_32's memo for one variable of one function at one depth: its uses
// are followed in order, once, however many launches read the variable.
struct Uses {
    std::size_t next = 0;        // uses looked at so far
    int first_def = 0x7fffffff;  // first `x = ...` or `T x(...)`
    int hit_at = 0x7fffffff;     // first use whose value is sized by 32
    int hit = -1;                // what sizes_by_32 found there
};

// What a function body says about the lanes it means: whether it reasons in
// warpSize-lane waves (names warpSize, or computes lane/warp ids), and whether it
// groups threads by a literal 32 (`% 32`, `/ 32`, `& 31`, a loop from 16).
struct FnLanes {
    bool warp = false;
    bool team32 = false;
};

// What a translation allocates in proportion to its source; a Workspace keeps
// one for the next translation.
struct Storage {
    Scan scan;
    std::vector<std::uint64_t> consumed;  // a bit a token (Rewriter::consumed)
    std::unique_ptr<char[]> padded;
    std::size_t padded_cap = 0;
    // Once the tokens are read for the last time: the pages of the buffers trim()
    // lends back are given back at once (MADV_DONTNEED), before the output is made.
    void drop_tokens();
    // After a translation: the buffers grown for an unusually large source are
    // lent back to the kernel (MADV_FREE), or let go of where that cannot be done.
    void trim();
};

class Rewriter {
public:
    Rewriter(std::string_view src, const Table& table, const Options& options, Storage& mem);
    Result run(const OutputBuffer* output);

    // --- token navigation ---------------------------------------------------
    [[nodiscard]] std::string_view text(int i) const { return toks_[i].text(s_); }
    [[nodiscard]] int next_sig(int i) const {
        for (int k = i + 1; k < ntok_; ++k) {
            if (toks_[k].significant()) return k;
        }
        return -1;
    }
    [[nodiscard]] int prev_sig(int i) const { return i > 0 && i < ntok_ ? prev_of(scan_, i) : -1; }
    // Punctuators compare as numbers: a punctuator is at most three bytes, and
    // the padding after the source makes reading four safe.
    template <std::size_t N>
    [[nodiscard, gnu::always_inline]] bool is_punct(int i, const char (&p)[N]) const {
        static_assert(N >= 2 && N <= 4, "a punctuator has one to three bytes");
        return i >= 0 && i < ntok_ && toks_[i].kind == TokenKind::Punct &&
               punct_at(i) == punct_code(std::string_view(p, N - 1));
    }
    [[nodiscard]] std::uint32_t punct_at(int i) const {
        const Tok& t = toks_[i];
        return load32(s_.data() + t.begin) & ((1U << (8 * (t.end - t.begin))) - 1U);
    }
    [[nodiscard]] bool is_ident(int i) const {
        return i >= 0 && i < ntok_ && toks_[i].kind == TokenKind::Identifier;
    }
    [[nodiscard]] bool in_directive(int i) const { return (toks_[i].flags & kInDirective) != 0; }
    // The matching bracket of a bracket, <<< or >>>; -1 for anything else.
    [[nodiscard]] int match(int i) const {
        return toks_[i].kind == TokenKind::Identifier ? -1 : toks_[i].link;
    }
    // The symbol of an identifier token.
    [[nodiscard]] Symbol& sym(int i) { return syms_[static_cast<std::size_t>(toks_[i].link)]; }
    [[nodiscard]] const Symbol& sym(int i) const {
        return syms_[static_cast<std::size_t>(toks_[i].link)];
    }
    // A name the translation erases (CUDART_CB, empty on Linux): the code reads as
    // if it were not there, so the constructs around it must too.
    [[nodiscard]] bool erased(int i) const {
        const Entry* e = i >= 0 ? entry(i) : nullptr;
        return e != nullptr && e->hip.empty() && e->kind == Kind::Macro &&
               e->status == Status::Supported && e->rewrite == Rewrite::None;
    }
    // Whether erased name `i` comes right before a '#' on its line, in code.
    [[nodiscard]] bool erased_before_hash(int i) const;
    // Whether the walk erases name `i`: an erased name not kept before a '#' or as a
    // directive's own name (on_identifier), so one the next pass no longer has.
    [[nodiscard]] bool vanishes(int i) const {
        if (!erased(i)) return false;
        const int p = prev_sig(i);
        const bool directive_name =
            in_directive(i) && p >= 0 && (toks_[p].flags & kDirectiveHash) != 0;
        return !directive_name && !erased_before_hash(i);
    }
    // The significant token after (before) `i` that the output keeps: names the walk
    // erases are skipped, as the next pass, which no longer has them, skips them.
    // Matchers look ahead and behind through these, so both passes see the same
    // neighbours.
    [[nodiscard]] int next_code(int i) const {
        int k = next_sig(i);
        while (vanishes(k)) k = next_sig(k);
        return k;
    }
    [[nodiscard]] int prev_code(int i) const {
        int k = prev_sig(i);
        while (vanishes(k)) k = prev_sig(k);
        return k;
    }
    // Whether namespace name `i` is used as a namespace (qualifier, declaration, alias).
    [[nodiscard]] bool names_namespace(int i) const;
    // The table entry of an identifier token, or nullptr.
    [[nodiscard]] const Entry* entry(int i) const {
        return toks_[i].kind == TokenKind::Identifier ? sym(i).entry : nullptr;
    }
    [[nodiscard]] bool has_flag(int i, std::uint16_t flag) const {
        return is_ident(i) && (sym(i).flags & flag) != 0;
    }
    // Whether token i names a lane or warp (any token: a #define may name a
    // number); worked out once per name.
    [[nodiscard]] bool lanes(int i) {
        if (!is_ident(i)) return mentions_lanes(text(i));
        Symbol& y = sym(i);
        if (y.lanes < 0) y.lanes = mentions_lanes(text(i)) ? 1 : 0;
        return y.lanes != 0;
    }
    // Arguments of the call whose '(' is at `open`; empty for "()". An empty
    // argument ("f(a,)") is {-1, -1}. Commas inside template arguments
    // (`kernel<T, TILE>`) do not split (see template_args).
    [[nodiscard]] std::vector<Arg> call_args(int open) const;
    // The '>' ending the template argument list that the '<' at `lt` opens, inside
    // a group closing at `close`; -1 when that '<' is provably or possibly a less-than.
    [[nodiscard]] int template_args(int lt, int close) const;
    // Whether a directive or a cut-off literal lies in tokens (first, last).
    [[nodiscard]] bool breaks_between(int first, int last) const;
    // Whether every bracket in tokens (first, last) pairs with one in there too.
    [[nodiscard]] bool balanced(int first, int last) const;
    // Whether render() of tokens [first, last] is all the walk would do to them:
    // plain renames only (no launch, no rewrite, no hazard).
    [[nodiscard]] bool renders_alone(int first, int last) const;
    // Whether the call of `name` whose '(' is at `open` can have its arguments
    // rewritten: closed, no argument empty, no directive or cut-off literal
    // inside. If not, says so (the call is then left as it is).
    bool call_ok(int name, int open, const std::vector<Arg>& args);
    // First significant token of the statement holding `i`.
    [[nodiscard]] int statement_begin(int i) const;
    [[nodiscard]] std::string squeeze(int first, int last) const;  // text without blanks
    // Source text of [first, last] with table renames applied to identifiers.
    [[nodiscard]] std::string render(int first, int last) const;
    static void append_unspliced(std::string& out, std::string_view piece);

    // --- output ---------------------------------------------------------------
    void replace(int first, int last, std::string text);  // tokens [first, last]
    void insert(std::uint32_t offset, std::string text);
    // The same with text that outlives the translation (table strings, literals).
    void rename(int first, int last, std::string_view stable);
    void insert_stable(std::uint32_t offset, std::string_view stable);
    void consume(int first, int last);
    void diag(int token, Severity severity, DiagId rule, std::string message);

    // --- hazards (hazards.cpp) ---------------------------------------------
    void scan_loops();
    void hazard_number(int i);
    void hazard_shift(int i);
    void hazard_asm(int i);
    // Inline PTX as C++ (ptx.cpp): "" when done, else the error to report.
    std::string translate_asm(int i, int open);
    void hazard_shuffle(int i, const std::vector<Arg>& args, bool has_mask);
    void check_shfl_width(int i, const Arg& a);
    void hazard_ballot(int i);
    void hazard_broadcast(int i, const std::vector<Arg>& args, bool has_mask);
    void hazard_warp_size(int i);
    void hazard_texture(int i);
    void hazard_launch(int i);
    // Host code that sizes a launch for 32-lane warps (hazards.cpp).
    [[nodiscard]] int sizes_by_32(int first, int last, int body, int before, int depth);
    [[nodiscard]] int follow_32(int d, int body, int depth);
    [[nodiscard]] int assigned_32(int k, int body, int before, int depth, bool* defined);
    [[nodiscard]] int passed_32(int k, int body, int depth);
    // Identifier tokens of symbol `sym` in (from, to), as [first, last) into uses_.
    [[nodiscard]] std::pair<const int*, const int*> uses_of(int sym, int from, int to);
    [[nodiscard]] bool named_32(int i);
    [[nodiscard]] bool warp_function(int body, int depth);
    [[nodiscard]] bool device_function(int body) const;
    [[nodiscard]] int function_name(int body) const;
    [[nodiscard]] bool scales(int op) const;
    [[nodiscard]] bool shifts(int op) const;
    [[nodiscard]] int function_named(int name);
    // Rewrites that make 32-lane code warp-size-agnostic (hazards.cpp).
    [[nodiscard]] int operand_start(int last) const;
    [[nodiscard]] bool binds_alone(int before, int op_prec) const;
    [[nodiscard]] bool ends_operand(int after, int op_prec) const;
    [[nodiscard]] bool lane_index(int k);
    [[nodiscard]] bool lane_statement(int op);
    [[nodiscard]] int function_body(int i);
    [[nodiscard]] FnLanes fn_lanes(int i);
    bool rewrite_lane_arith(int i, int op, long long v);
    bool rewrite_warp_count(int i, int op);
    bool rewrite_loop(Loop& loop, int shuffle, const std::vector<Arg>& args, bool has_mask);
    bool widen_ballot(int call, int name);

private:
    void note_declaration(int i);
    void on_directive(int hash);
    void on_identifier(int i);
    void on_header_name(int i);
    void on_launch(int i);
    [[nodiscard]] int template_open(int close) const;
    [[nodiscard]] int kernel_start(int last, bool* templated) const;
    void rewrite_arch_macro(const Entry& e, int i);
    void rewrite_version_macro(const Entry& e, int i);
    void apply(const Entry& e, int i);
    [[nodiscard]] bool is_plain(const Entry& e) const;
    void rewrite_sync_mask(const Entry& e, int i, bool legacy);
    void apply_warp(const Entry& e, int i);
    // A 32-lane assumption: a warning in --warp native, a note in --warp cuda (hazards.cpp).
    void warp_hazard(int i, DiagId rule, std::string native, const std::string& what);
    // The same where the warning is `what` followed by `native_rest`: one string built.
    void warp_hazard_then(int i, DiagId rule, std::string what, std::string_view native_rest);
    bool note_applies(const Entry& e, int i);
    bool rewrite_by_arity(const Entry& e, int i);
    bool rewrite_surf_read(const Entry& e, int i);
    void rewrite_replace_call(const Entry& e, int i, bool legacy);
    void rewrite_location(const Entry& e, int i, std::size_t loc_arg, bool drop_flags);
    void wrap_arg(const Entry& e, int i, const char* open, const char* prefix_guard);
    bool steer_to_hip(int keyword);
    [[nodiscard]] bool tests_hip(int keyword) const;
    [[nodiscard]] bool steered(int keyword) const;
    // The open #if chains of scan_directives: their branches' '#'s, each chain's from
    // its start on.
    struct HipChains {
        std::vector<int> branches;
        std::vector<std::size_t> starts;
    };
    void scan_directives();
    void note_hip_branch(int h, int k, std::string_view d, HipChains& open);
    void note_shadowing_macro(int k);
    void note_legacy_header(int k, int& legacy, std::unordered_set<int>& modern) const;
    [[nodiscard]] bool file_writes(std::string_view w);
    void report_device_only(const Entry& e, int i);
    [[nodiscard]] bool is_template_name(int name) const;
    bool is_full_mask(const Arg& a) const;
    bool is_wide_mask(const Arg& a) const;
    bool is_location(const Arg& a) const;
    std::string device_of_location(const Arg& a) const;
    bool in_defined_context(int i) const;
    [[nodiscard]] bool ends_operand(int k) const;
    [[nodiscard]] Value condition(int first) const;
    [[nodiscard]] Value hip_condition(int first, bool ifdef, bool ifndef) const;
    void count(int family, bool converted);
    [[nodiscard]] std::string kept(std::uint32_t b, std::uint32_t e) const;
    [[nodiscard]] bool hash_follows_on_its_line(std::uint32_t at) const;
    void finish_positions();
    void walk();
    void report_truncation();

public:
    Storage& mem_;
    std::string_view s_;  // the source, in mem_.padded (followed by kPadding zero bytes)
    const Table& t_;
    const Options& o_;
    Scan& scan_ = mem_.scan;
    const Tok* toks_ = nullptr;               // scan_.toks
    std::vector<Symbol>& syms_ = scan_.syms;  // per distinct identifier: entry, declarations
    int ntok_ = 0;
    // Whether a rewrite took token i: one bit a token, as a large file has a token
    // every three bytes (a byte each was a tenth of a translation's memory).
    std::vector<std::uint64_t>& consumed_ = mem_.consumed;
    [[nodiscard]] bool consumed(int i) const {
        const auto k = static_cast<std::size_t>(i);
        return ((consumed_[k >> 6] >> (k & 63)) & 1U) != 0;
    }
    std::vector<Edit> edits_;
    std::deque<std::string> owned_;  // texts of edits built here (a deque never moves them)
    std::vector<Diagnostic> diags_;
    Stats stats_;
    std::vector<Loop> loops_;
    std::vector<std::pair<int, int>> bodies_;  // function bodies' braces, once asked
    bool bodies_known_ = false;
    std::vector<int> body_of_name_;  // symbol -> the body of the function it names, or -1
    // Every identifier token by symbol (uses_[use_at_[y], use_at_[y + 1]), in order), once asked.
    std::vector<int> uses_;
    std::vector<int> use_at_;
    // sizes_by_32's memos, by depth (0 to 4).
    using Memo = std::unordered_map<std::uint64_t, int>;
    std::array<std::unordered_map<std::uint64_t, Uses>, 5> assigned_;  // (symbol, body)
    std::array<Memo, 5> followed_;                                     // (use, body) -> hit
    std::array<Memo, 5> passed_;               // (body, parameter) -> hit, -1 or -2
    std::vector<int> loops_by_end_;            // loops_ indices by body_end, once asked
    std::size_t loops_done_ = 0;               // loops_by_end_ entries that end before the walk
    std::unordered_set<int> bad_loop_bodies_;  // bodies with a 32-lane loop behind the walk
    int semi_from_ = -1;                       // scan_loops: the first ';' at or after semi_from_
    int semi_at_ = -1;
    std::unordered_map<int, FnLanes> fn_lanes_;
    std::unordered_map<std::int64_t, bool>
        warp_fns_;                            // function body * 4 + depth -> works per warp
    std::unordered_map<int, bool> named_32_;  // symbol -> a lane or warp name set to 32
    std::unordered_set<int> host_reported_;   // tokens a host-warp-count warning names
    int runtime_ = -1;                        // family index inline PTX is counted under

    std::unordered_set<const Entry*> noted_;
    // Entries whose legacy_note was reported (once per file, like noted_).
    std::unordered_set<const Entry*> legacy_noted_;
    std::unordered_set<std::string_view> once_;  // rules reported once per file

    // Preprocessor state of the directive being walked.
    std::string_view directive_;
    int define_name_ = -1;
    std::vector<int> regions_{0};
    std::vector<std::uint8_t> region_open_{1};  // region id -> on regions_ now
    std::vector<Branch> conds_{Branch{}};
    bool dead_ = false;      // the current line is in a provably inactive branch
    bool hip_dead_ = false;  // ... in one that no HIP compile takes (Branch::hip_dead)
    int next_region_ = 1;
    // Header -> region it was seen in; the names lie in the source, the table or owned_.
    std::unordered_map<std::string_view, int> includes_;
    // #if/#elif '#'s followed in their chain by an #elif that tests for HIP, sorted.
    std::vector<int> hip_follows_;
    // The names the file's symbols translate to (file_writes), once asked.
    std::unordered_set<std::string_view> written_;
    bool written_known_ = false;
    int directive_hash_ = -1;  // the '#' of the directive being walked
    // Symbols the file declares as templates (1), once asked by template_args.
    mutable std::vector<std::uint8_t> template_syms_;
    // A family whose legacy header (Rewrite::LegacyApi) the file includes, and not its
    // modern one: its function calls are left and reported; -1 for none.
    int legacy_family_ = -1;
};

}  // namespace cass::detail
