#include "cass/rewriter.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__linux__)
#include <unistd.h>
#endif

#include "rewriter_impl.hpp"

namespace cass {
namespace detail {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

// A stable sort for lists made nearly in order: an insertion sort, in one pass
// when few items are out of place, handing over to a merge sort when many are
// (the same order either way: both are stable).
template <class T, class Less>
void sort_nearly_sorted(std::vector<T>& v, Less less) {
    std::size_t moves = 0;
    for (std::size_t k = 1; k < v.size(); ++k) {
        if (!less(v[k], v[k - 1])) continue;
        T item = std::move(v[k]);
        std::size_t j = k;
        for (; j > 0 && less(item, v[j - 1]); --j) v[j] = std::move(v[j - 1]);
        v[j] = std::move(item);
        moves += k - j;
        if (moves > 4 * v.size() + 64) {
            std::stable_sort(v.begin(), v.end(), less);
            return;
        }
    }
}

std::string version_text(std::uint32_t v) {
    return std::to_string(v / 100) + "." + std::to_string(v % 100);
}

// madvise(advice) over the whole pages of [p, p + bytes); false where it cannot be done.
bool advise(void* p, std::size_t bytes, int advice) {
#if defined(__linux__)
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(page - 1);
    return end <= begin || madvise(reinterpret_cast<void*>(begin), end - begin, advice) == 0;
#else
    (void)p;
    (void)bytes;
    (void)advice;
    return false;
#endif
}

// Lets the kernel take back the pages of [p, p + bytes) whenever it needs memory,
// the buffer staying mapped: until the kernel does take them, the next large
// translation writes them again without a page fault per 4 KiB page (a fault costs
// more than writing its page: bench/reports/scaling.md), and a process that is done
// with large files holds no memory against the system. False where it cannot.
bool lend_back(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_FREE)
    return advise(p, bytes, MADV_FREE);
#else
    (void)p;
    (void)bytes;
    return false;
#endif
}

// Gives the pages of [p, p + bytes) back to the kernel at once, the buffer staying
// mapped (read again, they are zeros): memory the rest of a translation then takes, the
// output above all, comes from these pages rather than fresh ones. False where it cannot.
bool give_back(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_DONTNEED)
    return advise(p, bytes, MADV_DONTNEED);
#else
    (void)p;
    (void)bytes;
    return false;
#endif
}

constexpr std::size_t kKeep = std::size_t{1} << 24;  // bytes a buffer may hold on to

}  // namespace

void Storage::drop_tokens() {
    // Only what trim() would lend back anyway: a small file's buffers stay warm for the
    // next one. The next scan writes every token and entry it reads, so zeros do no harm.
    if (scan.cap * sizeof(Tok) > kKeep) give_back(scan.toks.get(), scan.cap * sizeof(Tok));
    const auto drop = [](auto& v) {
        const std::size_t bytes = v.capacity() * sizeof(v[0]);
        if (bytes > kKeep) give_back(v.data(), bytes);
    };
    drop(consumed);
    drop(scan.visit);
    drop(scan.decls);
    drop(scan.breaks);
}

void Storage::trim() {
    if (scan.cap * sizeof(Tok) > kKeep && !lend_back(scan.toks.get(), scan.cap * sizeof(Tok))) {
        scan.toks.reset();
        scan.cap = 0;
    }
    if (padded_cap > kKeep && !lend_back(padded.get(), padded_cap)) {
        padded.reset();
        padded_cap = 0;
    }
    const auto release = [](auto& v) {
        const std::size_t bytes = v.capacity() * sizeof(v[0]);
        if (bytes > kKeep && !lend_back(v.data(), bytes)) std::decay_t<decltype(v)>().swap(v);
    };
    release(consumed);
    release(scan.visit);
    release(scan.decls);
    release(scan.breaks);
    release(scan.syms);
}

Rewriter::Rewriter(std::string_view src, const Table& table, const Options& options, Storage& mem)
    : mem_(mem), t_(table), o_(options) {
    if (mem_.padded_cap < src.size() + kPadding) {
        mem_.padded.reset(new char[src.size() + kPadding]);
        mem_.padded_cap = src.size() + kPadding;
        detail::advise_huge(mem_.padded.get(), mem_.padded_cap);
    }
    std::memcpy(mem_.padded.get(), src.data(), src.size());
    std::memset(mem_.padded.get() + src.size(), 0, kPadding);
    s_ = std::string_view(mem_.padded.get(), src.size());
    // Lexing indexes as it goes: brackets, previous significant tokens, one
    // table lookup per distinct name, the tokens the walk visits.
    scan(s_, &t_, scan_);
    toks_ = scan_.toks.get();
    ntok_ = static_cast<int>(scan_.ntoks);
    consumed_.assign((scan_.ntoks + 63) / 64, 0);
    edits_.reserve(scan_.visit.size() + 16);  // about one edit per visit at most: no regrowth
    stats_.families.resize(t_.families().size());
    for (std::size_t f = 0; f < t_.families().size(); ++f) {
        if (t_.families()[f].name == "runtime") runtime_ = static_cast<int>(f);
    }
}

std::vector<Arg> Rewriter::call_args(int open) const {
    std::vector<Arg> args;
    const int close = match(open);
    if (close < 0) return args;
    int first = -1;
    int last = -1;
    for (int k = open + 1; k < close; ++k) {
        // An erased name is no part of an argument: `f(CUDA_CB)` is `f( )` to the next pass.
        if (!toks_[k].significant() || vanishes(k)) continue;
        if (is_punct(k, ",")) {
            args.push_back(Arg{first, last});
            first = last = -1;
            continue;
        }
        if (first < 0) first = k;
        if (match(k) > k) {
            k = match(k);  // skip a nested group whole
        } else if (is_punct(k, "<") && is_ident(prev_sig(k))) {
            const int gt = template_args(k, close);
            if (gt > k) k = gt;  // kernel<T, TILE>: one argument
        }
        last = k;
    }
    if (first >= 0 || !args.empty()) args.push_back(Arg{first, last});
    return args;
}

// Whether the name before a '<' is one that takes template arguments: a cast, a
// name after `template`, a table template (texture<), or one the file declares
// with `template <...>` in front.
bool Rewriter::is_template_name(int name) const {
    const std::string_view w = text(name);
    if (w == "static_cast" || w == "reinterpret_cast" || w == "const_cast" || w == "dynamic_cast") {
        return true;
    }
    const int before = prev_sig(name);
    if (is_ident(before) && text(before) == "template") return true;
    const Entry* e = sym(name).entry;
    if (e != nullptr && e->match == Match::Template) return true;
    if (template_syms_.empty()) {
        // One pass, the first time: each `template <...>` and the name it declares
        // (the last name before the first '(' '{' ';' '=' ':' or '<' after it,
        // passing over __launch_bounds__(...) and __attribute__((...))).
        template_syms_.assign(syms_.size() + 1, 0);
        for (int k = 0; k < ntok_; ++k) {
            if (!is_ident(k) || text(k) != "template") continue;
            int t = next_sig(k);
            if (!is_punct(t, "<")) continue;
            int depth = 0;
            for (; t >= 0; t = next_sig(t)) {
                if (is_punct(t, "<")) ++depth;
                if (is_punct(t, ">")) --depth;
                if (is_punct(t, ">>")) depth -= 2;
                if (depth <= 0 || is_punct(t, ";") || is_punct(t, "{")) break;
                if (match(t) > t) t = match(t);
            }
            if (t < 0 || depth != 0) continue;
            int declared = -1;
            for (int j = next_sig(t), budget = 64; j >= 0 && budget-- > 0; j = next_sig(j)) {
                if (is_ident(j)) {
                    const std::string_view a = text(j);
                    const int open = next_sig(j);
                    if ((a == "__launch_bounds__" || a == "__attribute__" || a == "alignas" ||
                         a == "__declspec") &&
                        is_punct(open, "(") && match(open) > open) {
                        j = match(open);
                        continue;
                    }
                    declared = j;
                    continue;
                }
                if (is_punct(j, "(") || is_punct(j, "{") || is_punct(j, ";") || is_punct(j, "=") ||
                    is_punct(j, ":") || is_punct(j, "<")) {
                    break;
                }
            }
            if (declared >= 0) template_syms_[static_cast<std::size_t>(toks_[declared].link)] = 1;
            k = t;
        }
    }
    return template_syms_[static_cast<std::size_t>(toks_[name].link)] != 0;
}

// `a<b, c>` is a template-id when the list closes with a '>' of its own before the
// group does, and what follows could not follow a comparison: ',' or the group's
// end (`a < b, c > ,` does not parse as two comparisons). A '(' or '::' after it
// also follows a comparison well (`a < b, c > (d)`), so those count only for a
// name known to be a template.
int Rewriter::template_args(int lt, int close) const {
    int depth = 0;
    int gt = -1;
    int budget = 128;
    for (int k = lt; k >= 0 && k < close && budget-- > 0; k = next_sig(k)) {
        if (toks_[k].kind != TokenKind::Punct) continue;
        if (match(k) > k) {
            k = match(k);
            continue;
        }
        const std::uint32_t c = punct_at(k);
        if (c == punct_code("<")) {
            ++depth;
        } else if (c == punct_code(">")) {
            --depth;
        } else if (c == punct_code(">>")) {
            depth -= 2;
        } else if (c == punct_code(";") || c == punct_code("{") || c == punct_code("}") ||
                   c == punct_code("&&") || c == punct_code("||") || c == punct_code("?")) {
            return -1;
        }
        if (depth < 0) return -1;
        if (depth == 0) {
            gt = k;
            break;
        }
    }
    if (gt < 0) return -1;
    const int after = next_sig(gt);
    if (after == close || is_punct(after, ",")) return gt;
    if ((is_punct(after, "(") || is_punct(after, "::")) && is_template_name(prev_sig(lt))) {
        return gt;
    }
    return -1;
}

bool Rewriter::breaks_between(int first, int last) const {
    const std::vector<int>& b = scan_.breaks;
    const auto it = std::upper_bound(b.begin(), b.end(), first);
    return it != b.end() && *it < last;
}

bool Rewriter::renders_alone(int first, int last) const {
    const std::vector<int>& v = scan_.visit;
    for (auto it = std::lower_bound(v.begin(), v.end(), first); it != v.end() && *it <= last;
         ++it) {
        const int k = *it;
        if (!is_ident(k)) return false;  // a launch, a hazard number, a directive
        const Symbol& y = sym(k);
        if ((y.flags & (kSymAsm | kSymWarpSize | kSymTexture)) != 0) return false;
        if (y.entry != nullptr && !is_plain(*y.entry)) return false;
    }
    return true;
}

bool Rewriter::balanced(int first, int last) const {
    for (int k = first + 1; k < last; ++k) {
        const TokenKind kind = toks_[k].kind;
        if (kind != TokenKind::Punct && kind != TokenKind::LaunchOpen &&
            kind != TokenKind::LaunchClose) {
            continue;
        }
        const char c = s_[toks_[k].begin];
        const bool bracket = kind != TokenKind::Punct || c == '(' || c == ')' || c == '[' ||
                             c == ']' || c == '{' || c == '}';
        if (bracket && (toks_[k].link <= first || toks_[k].link >= last)) return false;
    }
    return true;
}

bool Rewriter::call_ok(int name, int open, const std::vector<Arg>& args) {
    const int close = match(open);
    const char* why = nullptr;
    if (close < open) {
        why = "it has no closing ')'";
    } else if (breaks_between(open, close)) {
        why = "a preprocessor directive or an unterminated literal lies inside it";
    } else if (!balanced(open, close)) {
        why = "its brackets do not pair up";
    } else if (std::any_of(args.begin(), args.end(), [](const Arg& a) { return a.first < 0; })) {
        why = "an argument is empty";
    }
    if (why == nullptr) return true;
    diag(name, Severity::Warning, DiagId::MalformedCall,
         "cannot parse the arguments of '" + std::string(text(name)) + "': " + why +
             "; they were left unchanged");
    return false;
}

int Rewriter::statement_begin(int i) const {
    int begin = i;
    int budget = 64;
    for (int k = prev_sig(i); k >= 0 && budget-- > 0; k = prev_sig(k)) {
        if (is_punct(k, ";") || is_punct(k, "{") || is_punct(k, "}")) break;
        if ((toks_[k].flags & kDirectiveHash) != 0) break;
        begin = k;
    }
    return begin;
}

std::string Rewriter::squeeze(int first, int last) const {
    std::string out;
    if (first < 0) return out;
    for (int k = first; k <= last; ++k) {
        if (toks_[k].significant()) out += text(k);
    }
    return out;
}

std::string Rewriter::render(int first, int last) const {
    std::string out;
    if (first < 0) return out;
    std::uint32_t prev_end = toks_[first].begin;
    for (int k = first; k <= last; ++k) {
        // One line, without comments: the edit that replaces [first, last] keeps
        // those (see Rewriter::run), so they are not repeated here.
        if (!toks_[k].significant()) continue;
        std::string_view piece = text(k);
        if (toks_[k].kind == TokenKind::Identifier) {
            const Entry* e = sym(k).entry;
            if (e != nullptr && o_.logical_warps && !e->warp.empty() &&
                (e->kind != Kind::Function || is_punct(next_sig(k), "("))) {
                piece = e->warp;  // as Rewriter::apply renames it: warpSize, __cass_warp_size
            } else if (e != nullptr && e->status != Status::Unsupported &&
                       (e->kind != Kind::Namespace || names_namespace(k))) {
                piece = e->since > o_.hip_version && !e->legacy.empty() ? e->legacy : e->hip;
            }
        }
        // An erased name (CUDART_CB) leaves a gap, so its neighbours stay apart
        // ("<<CUDART_CB<" must not become "<<<").
        if (piece.empty()) continue;
        if (!out.empty() && toks_[k].begin != prev_end) out += ' ';
        prev_end = toks_[k].end;
        append_unspliced(out, piece);
    }
    return out;
}

// `piece` without its line splices (a backslash before a newline), which the
// compiler removes before it reads tokens: one line, as render() promises; the
// edit adds the line breaks it removes (Rewriter::kept). A raw string keeps
// them, as the compiler does: its newlines are its own (render's callers refuse
// a rendering that spans lines).
void Rewriter::append_unspliced(std::string& out, std::string_view piece) {
    const std::size_t quote = piece.find('"');
    const bool raw = quote != std::string_view::npos && quote > 0 && piece[quote - 1] == 'R';
    for (std::size_t p = 0; p < piece.size(); ++p) {
        if (!raw && piece[p] == '\\') {
            std::size_t q = p + 1;
            if (q < piece.size() && piece[q] == '\r') ++q;
            if (q < piece.size() && piece[q] == '\n') {
                p = q;
                continue;
            }
        }
        out += piece[p];
    }
}

void Rewriter::replace(int first, int last, std::string text) {
    owned_.push_back(std::move(text));
    rename(first, last, owned_.back());
}

void Rewriter::insert(std::uint32_t offset, std::string text) {
    owned_.push_back(std::move(text));
    insert_stable(offset, owned_.back());
}

void Rewriter::rename(int first, int last, std::string_view stable) {
    // Erasing code between two tokens that touch it would join them into other
    // tokens ("<<CUDART_CB<" into "<<<"), read anew the next time: keep them apart.
    if (stable.empty() && first > 0 && last + 1 < ntok_ && toks_[first - 1].significant() &&
        toks_[last + 1].significant() && toks_[first - 1].end == toks_[first].begin &&
        toks_[last + 1].begin == toks_[last].end) {
        stable = " ";
    }
    edits_.push_back(Edit{toks_[first].begin, toks_[last].end, stable});
    consume(first, last);
}

void Rewriter::insert_stable(std::uint32_t offset, std::string_view stable) {
    edits_.push_back(Edit{offset, offset, stable});
}

void Rewriter::consume(int first, int last) {
    for (int k = first; k <= last; ++k) {
        consumed_[static_cast<std::size_t>(k) >> 6] |= std::uint64_t{1} << (k & 63);
    }
}

void Rewriter::diag(int token, Severity severity, DiagId rule, std::string message) {
    if (dead_) return;  // inactive preprocessor branch: a compiler would not look either
    Diagnostic d;
    d.offset = token >= 0 && token < ntok_ ? toks_[token].begin : 0;
    d.severity = severity;
    d.rule = diag_name(rule);
    d.message = std::move(message);
    diags_.push_back(std::move(d));
}

void Rewriter::count(int family, bool converted) {
    if (family < 0 || family >= static_cast<int>(stats_.families.size())) return;
    auto& f = stats_.families[static_cast<std::size_t>(family)];
    if (converted) {
        ++f.converted;
    } else {
        ++f.unconverted;
    }
}

// What the file declares, seen from identifier `i` right after identifier
// `prev_sig(i)`: its own CUDA-looking names, variables of CUDA types,
// full-mask constants and cudaMemLocation variables. Runs once the whole file
// is lexed, in order, so it may look ahead.
void Rewriter::note_declaration(int i) {
    const int p = prev_sig(i);
    Symbol& w = sym(i);
    const Symbol& pw = sym(p);
    if (in_directive(i) && (pw.flags & kSymDefine) != 0) {
        w.declared = true;
        // #define FULL_MASK 0xffffffff
        const int v = next_sig(i);
        if (v >= 0 && in_directive(v) && toks_[v].kind == TokenKind::Number) {
            int after = v + 1;
            while (after < ntok_ && toks_[after].kind == TokenKind::Comment) ++after;
            const bool alone = after >= ntok_ || toks_[after].kind == TokenKind::Newline;
            if (alone && is_full_mask(Arg{v, v})) w.full_mask = true;
        }
    } else if ((pw.flags & kSymMemLocation) != 0) {
        int init = next_sig(i);
        if (is_punct(init, "=")) init = next_sig(init);
        if (has_flag(init, kSymMemLocation)) init = next_sig(init);
        w.is_location = true;
        w.location = is_punct(init, "{") ? init : -1;
        w.declared = true;
    } else if (!in_directive(i)) {
        if (pw.entry != nullptr && pw.entry->kind == Kind::Type) w.var_type = toks_[p].link;
        if (w.entry == nullptr && w.family >= 0 && !is_non_declaring_keyword(text(p))) {
            w.declared = true;  // the file's own cudaCheck(), not an unknown API
        }
        // unsigned long long mask / uint64_t mask: a 64-lane mask already.
        const std::string_view type = text(p);
        if ((type == "long" && is_ident(prev_sig(p)) && text(prev_sig(p)) == "long") ||
            type == "uint64_t" || type == "lanemask_t") {
            w.wide = true;
        }
        // constexpr unsigned kFull = 0xffffffffu;
        const int eq = next_sig(i);
        if (is_punct(eq, "=")) {
            const int v = next_sig(eq);
            const int semi = next_sig(v);
            if (v >= 0 && toks_[v].kind == TokenKind::Number && is_punct(semi, ";") &&
                is_full_mask(Arg{v, v})) {
                w.full_mask = true;
            }
            // const unsigned long long all = __activemask(); names "every active
            // lane", as the maskless forms do (64 bits: never replaced by a constant).
            if (w.wide && is_ident(v) && text(v) == "__activemask" && is_punct(next_sig(v), "(") &&
                next_sig(next_sig(v)) == match(next_sig(v)) &&
                is_punct(next_sig(match(next_sig(v))), ";")) {
                w.active_mask = true;
            }
        }
    }
}

bool Rewriter::is_full_mask(const Arg& a) const {
    static constexpr std::string_view kFull[] = {
        "0xffffffff",   "4294967295",      "~0",  "-1", "0xffffffffffffffff",
        "(unsigned)-1", "(unsignedint)-1", "~0x0"};
    if (a.first < 0) return false;
    if (a.first == a.last && toks_[a.first].kind == TokenKind::Identifier) {
        return sym(a.first).full_mask || sym(a.first).active_mask;
    }
    if (a.first == a.last && toks_[a.first].kind == TokenKind::Number) {
        // One literal, the common case: compared in place, without suffixes or case.
        std::string_view t = text(a.first);
        while (!t.empty() &&
               (t.back() == 'u' || t.back() == 'U' || t.back() == 'l' || t.back() == 'L')) {
            t.remove_suffix(1);
        }
        return std::any_of(std::begin(kFull), std::end(kFull), [&](std::string_view f) {
            if (f.size() != t.size()) return false;
            for (std::size_t k = 0; k < f.size(); ++k) {
                const char c = t[k] >= 'A' && t[k] <= 'Z' ? static_cast<char>(t[k] + 32) : t[k];
                if (c != f[k]) return false;
            }
            return true;
        });
    }
    std::string s = lower(squeeze(a.first, a.last));
    if (s == "__activemask()") return true;  // "all active lanes": what maskless forms do
    while (!s.empty() && (s.back() == 'u' || s.back() == 'l')) s.pop_back();
    return std::any_of(std::begin(kFull), std::end(kFull),
                       [&](std::string_view f) { return s == f; });
}

bool Rewriter::is_wide_mask(const Arg& a) const {
    if (a.first < 0) return false;
    if (a.first == a.last && is_ident(a.first)) {
        const Symbol& y = sym(a.first);
        if (y.wide && !y.full_mask) return true;  // a full 32-lane constant is widened
    }
    const std::string s = lower(squeeze(a.first, a.last));
    auto ends_with = [&](std::string_view suf) {
        return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
    };
    auto starts_with = [&](std::string_view pre) { return s.rfind(pre, 0) == 0; };
    return (toks_[a.last].kind == TokenKind::Number && (ends_with("ull") || ends_with("llu"))) ||
           starts_with("static_cast<unsignedlonglong>") || starts_with("(unsignedlonglong)") ||
           starts_with("__ballot") || starts_with("__activemask") || starts_with("(uint64_t)") ||
           starts_with("static_cast<uint64_t>");
}

bool Rewriter::is_location(const Arg& a) const {
    if (a.first < 0) return false;
    for (int k = a.first; k <= a.last; ++k) {
        const std::string_view w = text(k);
        if (w == "{" || w == "cudaMemLocation") return true;
    }
    return a.first == a.last && is_ident(a.first) && sym(a.first).is_location;
}

std::string Rewriter::device_of_location(const Arg& a) const {
    if (a.first == a.last) {  // a variable: read its initializer when the file has it
        const int brace = is_ident(a.first) ? sym(a.first).location : -1;
        if (brace >= 0 && match(brace) > 0 && call_args(brace).size() == 2) {
            return device_of_location(Arg{brace, match(brace)});
        }
        // Rendered: a variable named after a CUDA name (cudaCpuDeviceId) is renamed too.
        return render(a.first, a.first) + ".id";
    }
    for (int k = a.first; k <= a.last; ++k) {
        if (!is_punct(k, "{") || match(k) < 0) continue;
        const std::vector<Arg> fields = call_args(k);
        if (fields.size() != 2) break;
        Arg type = fields[0];
        Arg id = fields[1];
        if (type.first < 0 || id.first < 0 || breaks_between(k, match(k))) return {};
        // Designated initializers: {.type = X, .id = Y}
        if (is_punct(type.first, ".")) type.first = next_sig(next_sig(type.first));
        if (is_punct(id.first, ".")) id.first = next_sig(next_sig(id.first));
        if (type.first < 0 || type.first > type.last || id.first < 0 || id.first > id.last) {
            return {};  // `{.type = , .id = }`
        }
        if (squeeze(type.first, type.last).find("Host") != std::string::npos) {
            return "hipCpuDeviceId";
        }
        if (!renders_alone(id.first, id.last)) return {};
        const std::string device = render(id.first, id.last);
        return device.find('\n') == std::string::npos ? device : std::string();
    }
    if (a.first == a.last) return render(a.first, a.first) + ".id";
    if (!renders_alone(a.first, a.last)) return {};
    const std::string object = render(a.first, a.last);
    return object.find('\n') == std::string::npos ? "(" + object + ").id" : std::string();
}

bool Rewriter::in_defined_context(int i) const {
    if (directive_ == "ifdef" || directive_ == "ifndef") return true;
    int p = prev_sig(i);
    if (is_punct(p, "(")) p = prev_sig(p);
    return is_ident(p) && text(p) == "defined";
}

// __CUDA_ARCH__ means "device pass" when tested with defined(), and a
// compute capability when compared; HIP spells the first one
// __HIP_DEVICE_COMPILE__ and has no equivalent of the second.
// Whether token `k` can end an operand: a name, a literal, ')' or ']'.
bool Rewriter::ends_operand(int k) const {
    const TokenKind kind = toks_[k].kind;
    return kind == TokenKind::Identifier || kind == TokenKind::Number ||
           kind == TokenKind::String || kind == TokenKind::Char || is_punct(k, ")") ||
           is_punct(k, "]");
}

void Rewriter::rewrite_arch_macro(const Entry& e, int i) {
    const bool in_if = in_directive(i) && (directive_ == "if" || directive_ == "elif");
    if (in_defined_context(i)) {
        rename(i, i, e.hip);
    } else if (in_if && prev_sig(i) >= 0 && ends_operand(prev_sig(i)) &&
               (toks_[prev_sig(prev_sig(i))].flags & kDirectiveHash) == 0) {
        // `#if X __CUDA_ARCH__`: a '(' here would make `X (...)` read as a call. After
        // anything that ends an operand, since a rewrite before may turn one into
        // another: `CUDART_VERSION` into `12080`, `__CUDA_ARCH__` into `(...)`, and the
        // second translation must refuse it as the first did.
        diag(i, Severity::Warning, DiagId::CudaArch,
             "cannot rewrite " + std::string(text(i)) +
                 " right after a name or value; it was left unchanged");
    } else if (in_if) {
        replace(i, i, "(defined(" + e.hip + ") ? " + std::to_string(o_.cuda_arch) + " : 0)");
        if (once_.insert("cuda-arch-value").second) {
            diag(i, Severity::Note, DiagId::CudaArch,
                 std::string(text(i)) + " in a preprocessor condition is taken as " +
                     std::to_string(o_.cuda_arch) + " in AMD device code (--cuda-arch changes it)");
        }
    } else {
        diag(
            i, Severity::Warning, DiagId::CudaArch,
            "HIP compilers do not define " + std::string(text(i)) + "; test " + e.hip + " instead");
    }
}

// CUDART_VERSION selects code written for a CUDA release: take the assumed one.
void Rewriter::rewrite_version_macro(const Entry& e, int i) {
    if (in_defined_context(i)) {
        rename(i, i, e.hip);
        return;
    }
    // A quote right after would join the number as a digit separator ("12080'x"),
    // lexing differently the next time: keep them apart.
    const std::uint32_t end = toks_[i].end;
    const bool quote_next = end < s_.size() && s_[end] == '\'';
    const std::string value = std::to_string(version_value(e, o_.cuda_version));
    replace(i, i, value + (quote_next ? " " : ""));
    if (once_.insert("cuda-version").second) {
        diag(i, Severity::Note, DiagId::CudaVersion,
             std::string(text(i)) + " is taken as " + value +
                 ", selecting the code written for that CUDA release (--cuda-version changes it)");
    }
}

void Rewriter::on_directive(int hash) {
    const int k = next_sig(hash);
    directive_ = {};
    define_name_ = -1;
    if (k < 0 || !in_directive(k) || toks_[k].kind != TokenKind::Identifier) return;
    directive_ = text(k);
    directive_hash_ = hash;
    if (directive_ == "define") {
        define_name_ = next_sig(k);
    } else if (directive_ == "if" || directive_ == "ifdef" || directive_ == "ifndef") {
        regions_.push_back(next_region_++);
        region_open_.push_back(1);
        Branch b;
        b.parent_dead = conds_.back().dead;
        Value v = directive_ == "if" ? condition(next_sig(k)) : Value{};
        if (directive_ == "if" && (steer_to_hip(k) || steered(k))) v = Value{true, 0};
        b.dead = b.parent_dead || (v.known && v.value == 0);
        b.taken = v.known && v.value != 0;
        const Value h = hip_condition(next_sig(k), directive_ == "ifdef", directive_ == "ifndef");
        b.hip_dead = conds_.back().hip_dead || (h.known && h.value == 0);
        b.hip_taken = h.known && h.value != 0;
        conds_.push_back(b);
    } else if (directive_ == "elif" || directive_ == "else") {
        if (regions_.size() > 1) {
            region_open_[static_cast<std::size_t>(regions_.back())] = 0;
            regions_.back() = next_region_++;
            region_open_.push_back(1);
        }
        if (conds_.size() > 1) {
            Branch& b = conds_.back();
            Value v = directive_ == "elif" ? condition(next_sig(k)) : Value{true, 1};
            if (directive_ == "elif" && (steer_to_hip(k) || steered(k))) v = Value{true, 0};
            b.dead = b.parent_dead || b.taken || (v.known && v.value == 0);
            b.taken = b.taken || (v.known && v.value != 0);
            const Value h =
                directive_ == "elif" ? hip_condition(next_sig(k), false, false) : Value{true, 1};
            const bool parent_hip_dead = conds_[conds_.size() - 2].hip_dead;
            b.hip_dead = parent_hip_dead || b.hip_taken || (h.known && h.value == 0);
            b.hip_taken = b.hip_taken || (h.known && h.value != 0);
        }
    } else if (directive_ == "endif") {
        if (regions_.size() > 1) {
            region_open_[static_cast<std::size_t>(regions_.back())] = 0;
            regions_.pop_back();
        }
        if (conds_.size() > 1) conds_.pop_back();
    }
}

// Whether the condition after directive keyword `keyword` names a macro that the
// source tests to pick its own HIP code (__HIPCC__, __HIP_PLATFORM_AMD__, USE_ROCM).
bool Rewriter::tests_hip(int keyword) const {
    for (int j = keyword + 1; j < ntok_ && in_directive(j); ++j) {
        const Entry* e = is_ident(j) ? sym(j).entry : nullptr;
        if (e != nullptr && e->rewrite == Rewrite::HipMacro) return true;
    }
    return false;
}

// The #if/#elif branches that an #elif of the same chain, further down, follows
// with a test for HIP: directive '#' `h` with keyword `k` (`d`), fed in order by
// scan_directives. The open chains' branches lie in one flat stack, each chain from
// its start on: no vector per #if.
void Rewriter::note_hip_branch(int h, int k, std::string_view d, HipChains& open) {
    auto& branches = open.branches;
    auto& starts = open.starts;
    if (d == "if" || d == "ifdef" || d == "ifndef") {
        starts.push_back(branches.size());
        branches.push_back(h);
    } else if (d == "elif" || d == "elifdef" || d == "elifndef") {
        if (starts.empty()) return;
        const auto from = branches.begin() + static_cast<std::ptrdiff_t>(starts.back());
        if (tests_hip(k)) {
            hip_follows_.insert(hip_follows_.end(), from, branches.end());
            branches.erase(from, branches.end());
        }
        branches.push_back(h);
    } else if (d == "else") {
        // No #elif follows an #else.
        if (!starts.empty()) {
            branches.resize(starts.back());
        }
    } else if (d == "endif" && !starts.empty()) {
        branches.resize(starts.back());
        starts.pop_back();
    }
}

// `#if CUDA_VERSION >= 12080 ... #elif defined(__HIPCC__) ...`: the source wrote a
// HIP branch, and the assumed CUDA release must not steer the HIP compile away
// from it. The version test is made false under HIP, so the chain reaches the
// author's branch: `#if !defined(__HIPCC__) && (12080 >= 12080)`.
bool Rewriter::steer_to_hip(int keyword) {
    bool version = false;
    int last = -1;
    for (int j = keyword + 1; j < ntok_ && in_directive(j); ++j) {
        if (!toks_[j].significant()) continue;
        last = j;
        const Entry* e = is_ident(j) ? sym(j).entry : nullptr;
        if (e == nullptr) continue;
        if (e->rewrite == Rewrite::HipMacro) return false;  // it tests for HIP itself
        if (e->rewrite == Rewrite::VersionMacro && !in_defined_context(j)) version = true;
    }
    // The ')' added at the end would close a '(' the condition leaves open (a cut-off
    // line), pairing brackets differently when the output is translated again; a cut-off
    // literal at the end would swallow it, and steered() would not find it there.
    if (!version || last < 0 || !balanced(keyword, last + 1) || breaks_between(keyword, last + 1)) {
        return false;
    }
    if (!std::binary_search(hip_follows_.begin(), hip_follows_.end(), directive_hash_)) {
        return false;
    }
    insert_stable(toks_[next_sig(keyword)].begin, "!defined(__HIPCC__) && (");
    insert_stable(toks_[last].end, ")");
    diag(keyword, Severity::Note, DiagId::CudaVersion,
         "this branch tests the CUDA version and a later #elif of the same chain tests for "
         "HIP; it is made inactive under HIP so that the source's own HIP branch is taken");
    return true;
}

// Whether the condition after `keyword` is one steer_to_hip wrote,
// `!defined(__HIPCC__) && (...)`: inactive under HIP, the verdict steer_to_hip gave the
// branch, so that translating the output again treats the code in it the same way
// (the evaluator reads defined() as unknown).
bool Rewriter::steered(int keyword) const {
    static constexpr std::string_view kPrefix[] = {"!", "defined", "(", "__HIPCC__",
                                                   ")", "&&",      "("};
    int k = keyword;
    int open = -1;
    for (const std::string_view want : kPrefix) {
        k = next_sig(k);
        if (k < 0 || !in_directive(k) || text(k) != want) return false;
        open = k;
    }
    const int close = match(open);
    if (close < 0) return false;
    const int after = next_sig(close);
    return after < 0 || !in_directive(after) || (toks_[after].flags & kDirectiveHash) != 0;
}

void Rewriter::on_header_name(int i) {
    const std::string_view tok = text(i);
    if ((toks_[i].flags & kUnterminated) != 0 || tok.size() < 2) return;
    const char open = tok.front();
    const char close = tok.back();
    // Views of the source, the table or owned_: all outlive the translation, as includes_.
    const std::string_view inner = tok.substr(1, tok.size() - 2);
    std::string_view target = inner;
    const Entry* e = t_.find(inner, true);
    bool mapped = false;
    if (e != nullptr && o_.logical_warps && !e->warp.empty()) {
        target = e->warp;  // <cass/cooperative_groups.h>, which includes <cass/warp.h>
        count(e->family, true);
        mapped = true;
    } else if (e != nullptr) {
        // cublas.h alone: the file is written against the legacy API. The header stays
        // (so does the decision, when the output is translated again), as its calls do.
        const bool legacy_header =
            e->rewrite == Rewrite::LegacyApi && legacy_family_ == static_cast<int>(e->family);
        if (e->status == Status::Unsupported || legacy_header) {
            diag(i, Severity::Error, DiagId::UnsupportedApi,
                 "header '" + std::string(inner) + "' has no HIP equivalent" +
                     (e->note.empty() ? "" : ": " + e->note));
            count(e->family, false);
            return;
        }
        if (e->since > o_.hip_version && !e->legacy.empty()) {
            target = e->legacy;
        } else {
            target = e->hip;
            if (e->since > o_.hip_version) {
                diag(i, Severity::Error, DiagId::HipVersion,
                     "header '" + std::string(target) + "' needs HIP " + version_text(e->since) +
                         " or newer; the target is HIP " + version_text(o_.hip_version) +
                         " (--hip-version)");
            }
        }
        count(e->family, true);
        mapped = true;
        if (!e->note.empty() && noted_.insert(e).second) {
            diag(i, Severity::Warning, DiagId::BehaviorDiffers,
                 "'" + std::string(inner) + "': " + e->note);
        }
    } else if (open == '"' && o_.rename_cu_includes && inner.size() > 3 &&
               inner.substr(inner.size() - 3) == ".cu") {
        owned_.push_back(std::string(inner.substr(0, inner.size() - 3)) + ".hip");
        target = owned_.back();
    } else if (open == '<') {
        // A quoted name the tables lack is the project's own header (`"cuda_utils.cuh"`),
        // translated with it: only a system header can be a CUDA one CASS does not know.
        const std::size_t slash = inner.find_last_of('/');
        const std::string_view base = inner.substr(slash == std::string_view::npos ? 0 : slash + 1);
        const int family = t_.guess_family(base);
        if (family >= 0) {
            diag(i, Severity::Warning, DiagId::UnknownApi,
                 "header '" + std::string(inner) +
                     "' has no known HIP counterpart; it was left unchanged");
            count(family, false);
        }
    }
    const auto seen = includes_.find(target);
    int hash = i;
    while (hash > 0 && (toks_[hash].flags & kDirectiveHash) == 0) --hash;
    // Inside an unclosed ( [ or <<< the directive stays: it is what keeps the call
    // around it from being rewritten (call_ok), now and when the output is translated.
    const bool in_group = (toks_[hash].flags & kInGroup) != 0;
    // So does one that code around it continues over (`surf2Dread<` before it, `T>(s)`
    // after): only after a statement, a block, a call or another directive is it
    // blanked. Erased names are skipped: they are gone the next time.
    const int before = prev_code(hash);
    const bool between_code = before >= 0 && !in_directive(before) && !is_punct(before, ";") &&
                              !is_punct(before, "{") && !is_punct(before, "}") &&
                              !is_punct(before, ")") && !is_punct(before, "]");
    // Only a directive that is the header name alone (and comments) is blanked:
    // code after it on the line is not the directive's to remove.
    int last = i;
    bool alone = true;
    while (last + 1 < ntok_ && toks_[last + 1].kind != TokenKind::Newline) {
        ++last;
        if (toks_[last].significant()) alone = false;
    }
    if (mapped && alone && !in_group && !between_code && seen != includes_.end() &&
        region_open_[static_cast<std::size_t>(seen->second)] != 0) {
        // Already included in this or an enclosing conditional region: blank the
        // directive, keeping its line so line numbers stay put.
        replace(hash, last, "");
        return;
    }
    includes_.emplace(target, regions_.back());
    if (target != inner) {
        std::string spelled;
        spelled.reserve(target.size() + 2);
        spelled.append(1, open).append(target).append(1, close);
        replace(i, i, std::move(spelled));
    }
}

// An entry whose every use is a rename and a count: supported in the target HIP,
// no note, no rewrite, no hazard, matching anywhere.
bool Rewriter::is_plain(const Entry& e) const {
    return e.status == Status::Supported && e.since <= o_.hip_version && e.note.empty() &&
           static_cast<int>(e.family) != legacy_family_ && e.rewrite == Rewrite::None &&
           e.kind != Kind::Namespace && e.kind != Kind::Member && e.match == Match::Any &&
           (e.traits & (kBallot | kShuffle)) == 0 && !(o_.logical_warps && !e.warp.empty());
}

void Rewriter::apply(const Entry& e, int i) {
    if (e.rewrite == Rewrite::HipMacro) return;  // the source's own test for HIP: kept
    const std::string_view w = text(i);
    // A function only where it is called: `__any` is also an identifier in C++ libraries,
    // and `&cudaDeviceGetAttribute` is HIP's function.
    if (o_.logical_warps && !e.warp.empty() &&
        (e.kind != Kind::Function || is_punct(next_code(i), "("))) {
        apply_warp(e, i);
        return;
    }
    if (e.status == Status::Unsupported) {
        diag(i, Severity::Error, DiagId::UnsupportedApi,
             "'" + std::string(w) + "' has no HIP equivalent" +
                 (e.note.empty() ? "" : ": " + e.note));
        count(e.family, false);
        return;
    }
    if (e.family == legacy_family_ && e.kind == Kind::Function && is_punct(next_code(i), "(")) {
        diag(i, Severity::Error, DiagId::UnsupportedApi,
             "'" + std::string(w) +
                 "' here is the legacy API of a header this file includes (no handle "
                 "argument), which HIP's library does not provide; port the call to the "
                 "handle-based API. It was left unchanged");
        count(e.family, false);
        return;
    }
    const bool too_new = e.since > o_.hip_version;
    const bool legacy = too_new && !e.legacy.empty();
    if (too_new && !legacy) {
        diag(i, Severity::Error, DiagId::HipVersion,
             "'" + e.hip + "' needs HIP " + version_text(e.since) +
                 " or newer; the target is HIP " + version_text(o_.hip_version) +
                 " (--hip-version)");
        count(e.family, false);
    } else {
        count(e.family, true);
    }
    if (legacy && !e.legacy_note.empty() && legacy_noted_.insert(&e).second) {
        diag(i, Severity::Warning, DiagId::HipVersion,
             "'" + std::string(w) + "' for HIP " + version_text(o_.hip_version) + ": " +
                 e.legacy_note);
    }
    if (e.status == Status::Deprecated) {
        diag(i, Severity::Warning, DiagId::DeprecatedApi,
             "'" + std::string(w) + "' is deprecated" + (e.note.empty() ? "" : ": " + e.note));
    } else if (!e.note.empty() && note_applies(e, i) && noted_.insert(&e).second) {
        diag(i, Severity::Warning, DiagId::BehaviorDiffers, "'" + std::string(w) + "': " + e.note);
    }
    switch (e.rewrite) {
        case Rewrite::ArchMacro:
            rewrite_arch_macro(e, i);
            return;
        case Rewrite::VersionMacro:
            rewrite_version_macro(e, i);
            return;
        case Rewrite::SyncMask:
            rewrite_sync_mask(e, i, legacy);
            return;
        case Rewrite::SurfRead:
            if (rewrite_surf_read(e, i)) return;
            break;
        case Rewrite::ByArity:
            if (rewrite_by_arity(e, i)) return;
            break;
        case Rewrite::ReplaceCall:
            rewrite_replace_call(e, i, legacy);
            return;
        case Rewrite::PrefetchLocation:
            rewrite_location(e, i, 2, true);
            break;
        case Rewrite::AdviseLocation:
            rewrite_location(e, i, 3, false);
            break;
        case Rewrite::SymbolArg:
            wrap_arg(e, i, "HIP_SYMBOL(", "HIP_SYMBOL");
            break;
        case Rewrite::FuncArg:
            wrap_arg(e, i, "reinterpret_cast<const void*>(", "reinterpret_cast");
            break;
        case Rewrite::VoidPtrArg:
            wrap_arg(e, i, "(void**)(", "reinterpret_cast");
            break;
        case Rewrite::DeviceOnly:
            if (legacy) report_device_only(e, i);
            break;
        case Rewrite::HipMacro:
        case Rewrite::NoteIfArgs:
        case Rewrite::LegacyApi:
        case Rewrite::None:
            break;
    }
    // Most names HIP shares (threadIdx, __syncthreads) are known not to change
    // without comparing them; a member's name is not its row's key, so compare.
    const bool same = e.kind != Kind::Member && (e.traits & (legacy ? kSameLegacy : kSameHip)) != 0;
    const std::string& name = legacy ? e.legacy : e.hip;
    if (!same && name != w) rename(i, i, name);
}

// --warp cuda: the row's <cass/warp.h> name, with the call's arguments as CUDA wrote
// them (32-bit masks and all). Only a shuffle's literal width is checked: CUDA leaves
// a width that is not a power of two of at most 32 undefined. (The include is added
// outside the core, which keeps every line where it was: pipeline/strategies.py.)
void Rewriter::apply_warp(const Entry& e, int i) {
    count(e.family, true);
    if ((e.traits & kShuffle) != 0 && e.kind == Kind::Function) {
        const int open = next_code(i);
        if (is_punct(open, "(")) {
            const std::vector<Arg> args = call_args(open);
            const std::size_t width_index = e.rewrite == Rewrite::SyncMask ? 3 : 2;
            if (args.size() > width_index) check_shfl_width(i, args[width_index]);
        }
    }
    if (e.warp != text(i)) rename(i, i, e.warp);
}

void Rewriter::rewrite_sync_mask(const Entry& e, int i, bool legacy) {
    const std::string& name = legacy ? e.legacy : e.hip;
    const int open = next_code(i);
    std::vector<Arg> args;
    if (is_punct(open, "(")) {
        args = call_args(open);
        // A call that cannot be parsed keeps its arguments; its name is still renamed.
        if (!call_ok(i, open, args)) args.clear();
    }
    const bool has_mask = !args.empty();
    hazard_shuffle(i, args, has_mask);
    if (has_mask) {
        const Arg mask = args[0];
        if (legacy) {
            if (!is_full_mask(mask)) {
                diag(mask.first, Severity::Warning, DiagId::WarpMask,
                     "lane mask '" + squeeze(mask.first, mask.last) +
                         "' is not provably full; HIP " + version_text(o_.hip_version) +
                         " has no masked '" + std::string(text(i)) +
                         "', so every active lane of the wavefront takes part");
            }
            // Drop "mask, " (or the lone mask), keeping what follows.
            const std::uint32_t end =
                args.size() > 1 ? toks_[args[1].first].begin : toks_[mask.last].end;
            edits_.push_back(Edit{toks_[mask.first].begin, end, ""});
            const int stop = args.size() > 1 ? args[1].first - 1 : mask.last;
            consume(mask.first, stop);
        } else if (!is_wide_mask(mask)) {
            if (is_full_mask(mask)) {
                rename(mask.first, mask.last, "0xffffffffffffffffull");
            } else {
                diag(mask.first, Severity::Warning, DiagId::WarpMask,
                     "lane mask '" + squeeze(mask.first, mask.last) +
                         "' is 32 bits wide; it is widened to 64 bits, so lanes 32-63 of a "
                         "64-lane wavefront are not in it");
                insert_stable(toks_[mask.first].begin, "static_cast<unsigned long long>(");
                insert_stable(toks_[mask.last].end, ")");
            }
        }
    }
    if (name != text(i)) rename(i, i, name);
}

// CUDA's `T v = surf2Dread<T>(surf, x, y)` returns the texel; older HIP only
// has the out-parameter form, so the call becomes an immediately invoked lambda.
bool Rewriter::rewrite_surf_read(const Entry& e, int i) {
    // An erased name (CUDA_CB) reads as if it were not there, as it is not in the
    // output: the next pass must find the same call (the edits below cover it).
    const int lt = next_code(i);
    if (!is_punct(lt, "<")) return false;  // already the out-parameter form
    // The template argument: a type, so a few tokens; a longer one is not parsed.
    int gt = lt;
    int depth = 0;
    for (int budget = 64; budget > 0 && gt >= 0; --budget, gt = next_sig(gt)) {
        if (is_punct(gt, "<")) ++depth;
        if (is_punct(gt, ">") && --depth == 0) break;
        const TokenKind kind = toks_[gt].kind;
        if (kind != TokenKind::Identifier && kind != TokenKind::Number && !is_punct(gt, "<") &&
            !is_punct(gt, ">") && !is_punct(gt, "::") && !is_punct(gt, "*") && !is_punct(gt, "&") &&
            !is_punct(gt, ",")) {
            gt = -1;  // not a type: `(`, `;`, a literal, a directive
            break;
        }
    }
    if (gt < 0 || depth != 0 || next_sig(lt) == gt) return false;
    const int open = next_code(gt);
    if (!is_punct(open, "(")) return false;
    const std::vector<Arg> args = call_args(open);
    if (!call_ok(i, open, args) || breaks_between(i, open)) return false;
    if (args.empty()) return false;
    // Begun in code after a directive (`#include <x> surf2Dread<`) and ended on the lines
    // below: not one call the compiler reads, and a blanked #include between would make
    // it look like one to the next pass.
    if (in_directive(i) != in_directive(match(open))) return false;
    // `name<`, `>(` and `)` change; the type and the arguments stay where they are,
    // translated by the walk like any code (a CUDA name in the type included, which
    // the next pass would otherwise see as a HIP name and decide on anew).
    rename(i, lt, "[&] { ");
    replace(gt, open, " cass_texel_; " + e.hip + "(&cass_texel_, ");
    rename(match(open), match(open), "); return cass_texel_; }()");
    return true;
}

// A CUDA call whose short form HIP spells differently, e.g. CUDA 12's
// cudaGraphInstantiate(exec, graph, flags) is HIP's hipGraphInstantiateWithFlags.
// `__launch_bounds__(256)` reads the same on AMD; only a second argument differs. An
// unparsable use keeps the note: the difference may be there.
bool Rewriter::note_applies(const Entry& e, int i) {
    if (e.rewrite != Rewrite::NoteIfArgs || e.arg < 0) return true;
    const int open = next_sig(i);
    if (!is_punct(open, "(") || match(open) < 0) return true;
    return call_args(open).size() > static_cast<std::size_t>(e.arg);
}

bool Rewriter::rewrite_by_arity(const Entry& e, int i) {
    const int open = next_sig(i);
    // An unclosed '(' (cut-off input) has no end to pad: leave it to the plain rename.
    if (!is_punct(open, "(") || match(open) < 0 || e.arg < 0 || e.alt.empty()) return false;
    const std::vector<Arg> args = call_args(open);
    if (!call_ok(i, open, args) || args.size() > static_cast<std::size_t>(e.arg)) return false;
    std::string pad;
    for (std::size_t k = args.size(); k < static_cast<std::size_t>(e.arg); ++k) pad += ", 0";
    if (!pad.empty()) insert(toks_[match(open)].begin, pad);
    rename(i, i, e.alt);
    return true;
}

void Rewriter::rewrite_replace_call(const Entry& e, int i, bool legacy) {
    const int open = next_code(i);
    if (legacy && is_punct(open, "(")) {
        // __activemask() -> __ballot(1): only the call as a whole is replaced.
        if (match(open) > open && !breaks_between(open, match(open)) && call_args(open).empty()) {
            rename(i, match(open), e.legacy);
        } else {
            diag(i, Severity::Warning, DiagId::MalformedCall,
                 "cannot parse the call of '" + std::string(text(i)) + "' (HIP " +
                     version_text(o_.hip_version) + " spells it '" + e.legacy +
                     "'); it was left unchanged");
        }
        return;
    }
    if (e.hip != text(i)) rename(i, i, legacy ? e.legacy : e.hip);
}

void Rewriter::rewrite_location(const Entry& e, int i, std::size_t loc_arg, bool drop_flags) {
    const int open = next_sig(i);
    if (!is_punct(open, "(")) return;
    const std::vector<Arg> args = call_args(open);
    if (args.size() <= loc_arg || !is_location(args[loc_arg])) return;  // CUDA 12 form
    if (!call_ok(i, open, args)) return;
    const Arg loc = args[loc_arg];
    const std::string device = device_of_location(loc);
    if (device.empty()) {
        diag(loc.first, Severity::Warning, DiagId::MalformedCall,
             "cannot read the device of this cudaMemLocation; the call was left unchanged");
        return;
    }
    replace(loc.first, loc.last, device);
    diag(loc.first, Severity::Note, DiagId::SignatureRewrite,
         "CUDA 13 '" + std::string(text(i)) + "' takes a cudaMemLocation; '" + e.hip +
             "' takes a device id");
    if (drop_flags && args.size() > loc_arg + 1) {
        const Arg flags = args[loc_arg + 1];
        const std::string value = squeeze(flags.first, flags.last);
        if (value != "0" && value != "0u" && value != "0U") {
            diag(flags.first, Severity::Warning, DiagId::SignatureRewrite,
                 "prefetch flags '" + value + "' have no HIP counterpart and were dropped");
        }
        edits_.push_back(Edit{toks_[loc.last].end, toks_[flags.last].end, ""});
        consume(loc.last + 1, flags.last);
    }
}

void Rewriter::wrap_arg(const Entry& e, int i, const char* open_text, const char* guard) {
    const int open = next_sig(i);
    if (!is_punct(open, "(") || e.arg < 0) return;
    const std::vector<Arg> args = call_args(open);
    if (args.size() <= static_cast<std::size_t>(e.arg) || !call_ok(i, open, args)) return;
    const Arg a = args[static_cast<std::size_t>(e.arg)];
    if (a.first < 0 || text(a.first) == guard || toks_[a.first].kind == TokenKind::String) return;
    if (is_punct(a.first, "(")) {
        const int inner = next_sig(a.first);  // already a C-style cast: (const void*)k
        if (is_ident(inner) && (text(inner) == "const" || text(inner) == "void")) return;
    }
    insert_stable(toks_[a.first].begin, open_text);
    insert_stable(toks_[a.last].end, ")");
}

// A function HIP declares __device__ only before `since`, called outside device code.
void Rewriter::report_device_only(const Entry& e, int i) {
    if (in_directive(i) || !is_punct(next_sig(i), "(")) return;  // a macro body: unknown side
    const int body = function_body(i);
    bool device = false;
    bool host = body < 0;  // outside any function: a host initializer
    const int name = body >= 0 ? function_name(body) : -1;
    if (name >= 0) {
        for (int k = statement_begin(name); k >= 0 && k < name; k = next_sig(k)) {
            if (!is_ident(k)) continue;
            if (text(k) == "__global__" || text(k) == "__device__") device = true;
            if (text(k) == "__host__") host = true;
        }
        if (!device) host = true;
    }
    if (!host) return;
    diag(i, Severity::Warning, DiagId::DeviceOnly,
         "'" + e.legacy + "' is a device function in HIP " + version_text(o_.hip_version) +
             " (host and device from HIP " + version_text(e.since) +
             "); host code that calls it does not compile there" +
             (e.note.empty() ? std::string() : ": " + e.note));
}

// `CUDA_CB #include <x.h>` in code: erasing the name (and the erased ones after it)
// would leave the '#' first on its line where the name was, a directive only the next
// translation would read as one. Whatever precedes the name is not looked at: another
// rewrite may put text there (a cast around a mask), and the next pass must decide the
// same.
bool Rewriter::erased_before_hash(int i) const {
    const auto newline_between = [this](int a, int b) {
        for (int k = a + 1; k < b; ++k) {
            if (toks_[k].kind == TokenKind::Newline) return true;
        }
        return false;
    };
    if (in_directive(i)) return false;  // a '#' there is the directive's own operator
    int n = next_sig(i);
    while (erased(n) && !newline_between(i, n)) n = next_sig(n);
    return n >= 0 && toks_[n].kind == TokenKind::Punct && s_[toks_[n].begin] == '#' &&
           (toks_[n].flags & kDirectiveHash) == 0 && !newline_between(i, n);
}

// Whether namespace name `i` is used as one (`cub::`, `namespace cub`, `namespace
// cg = cooperative_groups`): only then is it renamed, by the walk and by render() alike
// (an asm operand rendered without the rename would be renamed by the next pass).
bool Rewriter::names_namespace(int i) const {
    const int p = prev_code(i);
    const bool qualifier = is_punct(next_code(i), "::");
    const bool declared = is_ident(p) && text(p) == "namespace";
    const bool aliased = is_punct(p, "=") && is_ident(prev_code(p)) &&
                         is_ident(prev_code(prev_code(p))) &&
                         text(prev_code(prev_code(p))) == "namespace";
    return qualifier || declared || aliased;
}

void Rewriter::on_identifier(int i) {
    const std::string_view w = text(i);
    if (in_directive(i) && i == define_name_) return;  // the name a #define defines
    // `#include CUDART_CB <x.h>`: erasing the name would leave a header name, which
    // only the next translation would read (and rename) as one.
    if (in_directive(i) && erased(i) &&
        (directive_ == "include" || directive_ == "include_next" || directive_ == "import")) {
        return;
    }
    // `#CUDA_CB if 0`: the directive's name is not a macro; erasing it would make it
    // another directive.
    if (in_directive(i) && prev_sig(i) >= 0 && (toks_[prev_sig(i)].flags & kDirectiveHash) != 0) {
        return;
    }
    if (erased(i) && erased_before_hash(i)) return;
    Symbol& y = sym(i);
    const int p = prev_sig(i);
    // A '.' ending a directive line is no member access of the code below it: the next
    // pass may find the directive rewritten (a steered #if ends in ')').
    if (p >= 0 && toks_[p].kind == TokenKind::Punct && in_directive(p) == in_directive(i)) {
        if (is_punct(p, ".") || is_punct(p, "->")) {  // a member, not an API name
            const int object = prev_sig(p);
            if ((y.flags & kSymMember) != 0 && is_ident(object) && sym(object).var_type >= 0) {
                const Symbol& type = syms_[static_cast<std::size_t>(sym(object).var_type)];
                const std::string key =
                    std::string(s_.substr(type.begin, type.len)) + "::" + std::string(w);
                const Entry* e = t_.find(key, false);
                if (e != nullptr && e->kind == Kind::Member) apply(*e, i);
            } else if ((y.flags & kSymMember) != 0) {
                // tile.meta_group_rank(): a method name no other type has, whatever tile is
                const Entry* e = t_.find_method(w);
                if (e != nullptr) apply(*e, i);
            }
            return;
        }
    }
    // The few names the hazard scanners watch.
    if ((y.flags & kSymAsm) != 0) {
        hazard_asm(i);
        return;
    }
    if ((y.flags & kSymWarpSize) != 0) hazard_warp_size(i);
    if ((y.flags & kSymTexture) != 0) hazard_texture(i);
    const Entry* e = y.entry;
    if (e != nullptr) {
        // Most names in a file are plain renames (or HIP's own name): count and rename
        // them without the checks apply() makes.
        if (y.plain < 0) y.plain = is_plain(*e) ? 1 : 0;
        if (y.plain != 0) {
            count(e->family, true);
            if ((e->traits & kSameHip) == 0 && e->hip != w) rename(i, i, e->hip);
            return;
        }
        const int n = next_sig(i);
        if (e->kind == Kind::Namespace && !names_namespace(i)) return;
        if (e->match == Match::Template && !is_punct(n, "<")) return;
        const bool routed = o_.logical_warps && !e->warp.empty();
        if (!routed && (e->traits & kBallot) != 0) hazard_ballot(i);
        if (!routed && e->rewrite != Rewrite::SyncMask && (e->traits & kShuffle) != 0) {
            const int open = next_code(i);
            std::vector<Arg> args;
            if (is_punct(open, "(")) args = call_args(open);
            if (!args.empty() && !call_ok(i, open, args)) args.clear();
            hazard_shuffle(i, args, false);
        }
        apply(*e, i);
        return;
    }
    const int family = y.family;
    if (family < 0 || y.declared) return;
    // CUBLAS_CHECK(...): CUDA libraries have no upper-case functions, so an
    // upper-case name called like a function is the project's own macro.
    const bool upper =
        std::none_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    if (!(upper && is_punct(next_sig(i), "("))) {
        diag(i, Severity::Warning, DiagId::UnknownApi,
             "'" + std::string(w) + "' is not a known CUDA API; it was left unchanged");
        count(family, false);
    }
}

// The '<' opening the template argument list that `close` ('>' or '>>') ends, or -1.
int Rewriter::template_open(int close) const {
    int depth = 0;
    // A template argument list is a few tokens; one longer than this is not looked into.
    int budget = 256;
    for (int k = close; k >= 0 && budget-- > 0; k = prev_sig(k)) {
        if (toks_[k].kind != TokenKind::Punct) continue;
        const std::uint32_t tk = punct_at(k);
        if (tk == punct_code(">")) depth += 1;
        if (tk == punct_code(">>")) depth += 2;
        if (tk == punct_code("<")) depth -= 1;
        if (tk == punct_code(";") || tk == punct_code("{") || tk == punct_code("}")) return -1;
        if (depth <= 0) return k;
    }
    return -1;
}

// The first token of the kernel expression ending at `last`: a name, qualified
// (::a::b<T>::k) or not, possibly a template-id; -1 when it is something else.
int Rewriter::kernel_start(int last, bool* templated) const {
    int start = last;
    *templated = false;
    if (is_punct(start, ">") || is_punct(start, ">>")) {
        const int open = template_open(start);
        if (open < 0) return -1;
        *templated = true;
        start = prev_sig(open);
    }
    if (!is_ident(start)) return -1;
    while (is_punct(prev_sig(start), "::")) {
        const int q = prev_sig(prev_sig(start));
        if (is_ident(q)) {
            start = q;
        } else if (is_punct(q, ">") || is_punct(q, ">>")) {
            const int open = template_open(q);
            if (open < 0 || !is_ident(prev_sig(open))) return -1;
            *templated = true;  // its commas would split the macro's arguments
            start = prev_sig(open);
        } else {
            start = prev_sig(start);  // a leading :: (global scope)
            break;
        }
    }
    const int before = prev_sig(start);
    if (is_punct(before, ".") || is_punct(before, "->")) return -1;  // a member: not a kernel
    return start;
}

void Rewriter::on_launch(int i) {
    const int close = match(i);
    if (close < 0) return;
    const int paren = next_code(close);
    if (!is_punct(paren, "(") || match(paren) < 0) return;
    const int last = prev_code(i);
    bool templated = false;
    const int start = last >= 0 ? kernel_start(last, &templated) : -1;
    const int first_config = next_sig(i);
    const int last_config = prev_sig(close);
    if (start < 0 || first_config >= close) {
        diag(i, Severity::Warning, DiagId::LaunchSyntax,
             "cannot find the kernel of this launch; it was kept as <<<...>>>");
        return;
    }
    // A launch is code only in a macro body; in `#if T __CUDA_ARCH__<<<g>>>()` the
    // text GGL puts before the kernel would change how the condition reads next time.
    if (in_directive(i) && directive_ != "define") {
        diag(i, Severity::Warning, DiagId::LaunchSyntax,
             "a launch in a preprocessor directive other than #define is not code; it was "
             "kept as <<<...>>>");
        return;
    }
    const std::vector<Arg> config = call_args(i);
    const std::vector<Arg> call = call_args(paren);
    const auto empty = [](const Arg& a) { return a.first < 0; };
    // The kernel expression must pair its own brackets and hold no launch, in either
    // spelling: a '<' found far back can make it swallow an unclosed '(' (which the
    // ')' GGL adds would close on the next pass) or another launch (which, once that
    // launch is rewritten, no longer reads as one: the next pass would decide anew).
    bool kernel_ok = balanced(start - 1, last + 1);
    for (int k = start; kernel_ok && k <= last; ++k) {
        kernel_ok = toks_[k].kind != TokenKind::LaunchOpen &&
                    !(is_ident(k) && text(k) == "hipLaunchKernelGGL");
    }
    // A kernel at the end of a directive line and a launch below it: the end of the
    // directive lies between them, though no '#' does.
    kernel_ok = kernel_ok && in_directive(start) == in_directive(i);
    if (!kernel_ok || breaks_between(start, match(paren)) || !balanced(i, close) ||
        !balanced(paren, match(paren)) || config.size() > 4 ||
        std::any_of(config.begin(), config.end(), empty) ||
        std::any_of(call.begin(), call.end(), empty)) {
        diag(i, Severity::Warning, DiagId::LaunchSyntax,
             "cannot parse this launch (an empty argument, more than four launch parameters, "
             "unpaired brackets, or a directive or unterminated literal inside); it was kept "
             "as <<<...>>>");
        return;
    }
    const std::size_t nconfig = config.size();
    insert_stable(toks_[start].begin, templated ? "hipLaunchKernelGGL((" : "hipLaunchKernelGGL(");
    if (templated) insert_stable(toks_[last].end, ")");
    // "k <<< g, b >>> (x)" -> "hipLaunchKernelGGL(k, g, b, 0, 0, x)"
    edits_.push_back(Edit{toks_[last].end, toks_[first_config].begin, ", "});
    consume(last + 1, first_config - 1);
    std::string tail;
    if (nconfig < 3) tail += ", 0";
    if (nconfig < 4) tail += ", 0";
    const int first_arg = next_sig(paren);
    if (!call.empty()) tail += ", ";
    const std::uint32_t tail_end = call.empty() ? toks_[paren].end : toks_[first_arg].begin;
    owned_.push_back(std::move(tail));
    edits_.push_back(Edit{toks_[last_config].end, tail_end, owned_.back()});
    consume(last_config + 1, call.empty() ? paren : first_arg - 1);
}

namespace {

// Newlines in [p, end). A quarter of the bytes of a large file pass through here
// between diagnostics, so it counts sixteen bytes at a time where it can.
std::size_t count_newlines(const char* p, const char* end) {
    std::size_t n = 0;
#if defined(__SSE2__)
    // Byte counters (a match is -1, so subtracting counts up), summed every 255 rounds.
    const __m128i nl = _mm_set1_epi8('\n');
    while (end - p >= 16) {
        __m128i acc = _mm_setzero_si128();
        for (int round = 0; round < 255 && end - p >= 16; ++round, p += 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
        }
        const __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
        n += static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) +
             static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_srli_si128(sums, 8)));
    }
#endif
    for (; p < end; ++p) n += *p == '\n' ? 1U : 0U;
    return n;
}

}  // namespace

// Lines and columns of the diagnostics, in one pass over the source.
void Rewriter::finish_positions() {
    sort_nearly_sorted(
        diags_, [](const Diagnostic& a, const Diagnostic& b) { return a.offset < b.offset; });
    const char* s = s_.data();
    std::uint32_t pos = 0;         // newlines before `pos` are counted in `line`
    std::uint32_t line = 1;        // line of `pos`
    std::uint32_t line_start = 0;  // offset where that line starts
    for (Diagnostic& d : diags_) {
        const std::size_t more = count_newlines(s + pos, s + d.offset);
        if (more != 0) {
            line += static_cast<std::uint32_t>(more);
            const void* last = memrchr(s + pos, '\n', d.offset - pos);
            line_start = static_cast<std::uint32_t>(static_cast<const char*>(last) - s) + 1;
        }
        pos = d.offset;
        d.line = line;
        d.column = d.offset - line_start + 1;
    }
    const std::size_t newlines = line - 1 + count_newlines(s + pos, s + s_.size());
    stats_.bytes = s_.size();
    stats_.lines =
        static_cast<std::uint32_t>(newlines) + (s_.empty() || s_.back() == '\n' ? 0U : 1U);
}

// A source cut off mid-way (a failed copy, a half-written file) still
// translates, but says so: an unterminated comment or literal, or an open brace.
void Rewriter::report_truncation() {
    if (scan_.unterminated >= 0) {
        const int i = scan_.unterminated;
        const TokenKind k = toks_[i].kind;
        const char* what = k == TokenKind::Comment      ? "comment"
                           : k == TokenKind::HeaderName ? "header name"
                           : k == TokenKind::Char       ? "character literal"
                                                        : "string literal";
        diag(i, Severity::Warning, DiagId::TruncatedInput,
             std::string("unterminated ") + what +
                 (toks_[i].end == s_.size() ? "; is the file truncated?" : ""));
    } else if (scan_.unclosed_brace >= 0) {
        diag(scan_.unclosed_brace, Severity::Warning, DiagId::TruncatedInput,
             "this '{' is never closed; is the file truncated?");
    }
}

// The walk visits only the tokens the lexer listed: identifiers with a table
// entry or a hazard to check, CUDA-looking unknowns, directives and their
// ends, header names, numbers that may be warp sizes, shifts and launches.
// Every other token is left as it is.
void Rewriter::walk() {
    for (const int i : scan_.visit) {
        const Tok& t = toks_[i];
        if (t.kind == TokenKind::Newline) {
            if (!directive_.empty()) {
                dead_ = conds_.back().dead;
                hip_dead_ = conds_.back().hip_dead;
            }
            directive_ = {};
            define_name_ = -1;
            continue;
        }
        if (consumed(i)) continue;
        switch (t.kind) {
            case TokenKind::Identifier:
                on_identifier(i);
                break;
            case TokenKind::HeaderName:
                if (directive_ == "include" || directive_ == "include_next" ||
                    directive_ == "import") {
                    on_header_name(i);
                }
                break;
            case TokenKind::Number:
                hazard_number(i);
                break;
            case TokenKind::Punct:
                if ((t.flags & kDirectiveHash) != 0) {
                    on_directive(i);
                } else if (is_punct(i, "<<")) {
                    hazard_shift(i);
                }
                break;
            case TokenKind::LaunchOpen:
                hazard_launch(i);
                if (o_.launch == LaunchSyntax::GGL) on_launch(i);
                break;
            default:
                break;
        }
    }
}

// What an edit of bytes [b, e) keeps of them, after its text: an edit replaces
// code, never a comment or a line break, so the output has the input's lines
// and comments whatever the rewrite. (A line break inside a removed literal
// stays a line break, spliced in a directive.)
// Whether the first token at or after `at`, comments aside, is a '#' on the same line.
bool Rewriter::hash_follows_on_its_line(std::uint32_t at) const {
    const Tok* t = std::lower_bound(toks_, toks_ + ntok_, at,
                                    [](const Tok& x, std::uint32_t v) { return x.begin < v; });
    for (; t < toks_ + ntok_; ++t) {
        if (t->kind == TokenKind::Comment) {
            if (std::memchr(s_.data() + t->begin, '\n', t->end - t->begin) != nullptr) return false;
            continue;
        }
        return t->kind == TokenKind::Punct && s_[t->begin] == '#';
    }
    return false;
}

std::string Rewriter::kept(std::uint32_t b, std::uint32_t e) const {
    std::string out;
    const auto splices = [&](std::uint32_t from, std::uint32_t to) {
        for (std::uint32_t p = from; p < to; ++p) {
            if (s_[p] != '\\') continue;
            const std::uint32_t len = s_[p + 1] == '\n'                          ? 2
                                      : (s_[p + 1] == '\r' && s_[p + 2] == '\n') ? 3
                                                                                 : 0;
            if (len != 0 && p + len <= to) {
                out.append(s_.data() + p, len);
                p += len - 1;
            }
        }
    };
    const Tok* t = std::lower_bound(toks_, toks_ + ntok_, b,
                                    [](const Tok& x, std::uint32_t v) { return x.begin < v; });
    std::uint32_t pos = b;
    for (; t < toks_ + ntok_ && t->begin < e; ++t) {
        splices(pos, t->begin);
        const std::string_view w = t->text(s_);
        if (t->kind == TokenKind::Comment || t->kind == TokenKind::Newline) {
            out += w;
        } else {
            for (const char c : w) {
                if (c == '\n') out += (t->flags & kInDirective) != 0 ? "\\\n" : "\n";
            }
        }
        pos = t->end;
    }
    splices(pos, e);
    return out;
}

// `#define __shfl(v, d) __shfl_sync(0xffffffff, v, d)`: the file's own macro has a
// name the translation writes for other CUDA names (__shfl_sync is HIP 5.2's
// __shfl), and would hide HIP's. The macro is the file's: it keeps its meaning
// under a name of its own, cass_NAME, from its definition on (a use before it
// never saw it). Names written as an older or shorter form (legacy, alt) are the
// compatibility shims' names, renamed wherever they are defined, since the calls
// they would capture may come from other files; a name written only as a row's hip
// name (min for umin) is renamed only where this file writes it.
void Rewriter::note_shadowing_macro(int k) {
    const int name = next_sig(k);
    if (name < 0 || !is_ident(name) || !in_directive(name) || consumed(name)) return;
    const std::string_view w = text(name);
    const int how = t_.emits(w);
    if (how == 0 || (how == 1 && !file_writes(w))) return;
    // `#define hipMalloc cudaMalloc`: an alias of what HIP calls so, harmless.
    const int body = next_sig(name);
    if (body >= 0 && in_directive(body) && is_ident(body) &&
        (next_sig(body) < 0 || !in_directive(next_sig(body)))) {
        const Entry* e = sym(body).entry;
        if (text(body) == w || (e != nullptr && (e->hip == w || e->legacy == w))) return;
    }
    owned_.push_back("cass_" + std::string(w));
    const std::string_view renamed = owned_.back();
    const auto [first, end] = uses_of(toks_[name].link, name - 1, ntok_);
    for (const int* u = first; u != end; ++u) {
        if (!consumed(*u)) rename(*u, *u, renamed);
    }
    diag(name, Severity::Warning, DiagId::MacroShadowsHip,
         "'" + std::string(w) +
             "' is also a HIP name that the translation writes; the file's own macro "
             "would hide HIP's, so it is renamed '" +
             std::string(renamed) + "' from its definition on");
}

// Whether a name the file uses translates to `w` (its hip, legacy or alt name), other
// than as a header or as itself. The names are gathered once, at the first macro that
// asks: asking every symbol again for every such macro was quadratic.
bool Rewriter::file_writes(std::string_view w) {
    if (!written_known_) {
        written_known_ = true;
        for (const Symbol& y : syms_) {
            const Entry* e = y.entry;
            if (e == nullptr || e->kind == Kind::Include) continue;
            for (const std::string* n : {&e->hip, &e->legacy, &e->alt}) {
                if (!n->empty() && e->cuda != *n) written_.insert(*n);
            }
        }
    }
    return written_.count(w) != 0;
}

// Whether the file includes a family's legacy header (Rewrite::LegacyApi: cublas.h)
// and none of its other headers (cublas_v2.h): then its calls are the legacy API.
// `k`: the keyword of an #include.
void Rewriter::note_legacy_header(int k, int& legacy, std::unordered_set<int>& modern) const {
    const int name = next_sig(k);
    if (name < 0 || toks_[name].kind != TokenKind::HeaderName || text(name).size() < 2) return;
    const std::string_view w = text(name);
    const Entry* e = t_.find(w.substr(1, w.size() - 2), true);
    if (e == nullptr) return;
    if (e->rewrite == Rewrite::LegacyApi) {
        legacy = e->family;
    } else {
        modern.insert(e->family);
    }
}

// One pass over the directives, before the walk: legacy headers, macros that shadow
// HIP names, and the #if chains with a HIP branch. Each reads a directive's keyword,
// far apart in a large file; three passes read every directive's tokens and bytes
// three times (bench/reports/scaling.md).
void Rewriter::scan_directives() {
    int legacy = -1;
    std::unordered_set<int> modern;
    HipChains chains;
    for (const int h : scan_.breaks) {
        if ((toks_[h].flags & kDirectiveHash) == 0) continue;
        const int k = next_sig(h);
        if (k < 0 || !is_ident(k) || !in_directive(k)) continue;
        const std::string_view d = text(k);
        if (d == "include") {
            note_legacy_header(k, legacy, modern);
        } else if (d == "define") {
            note_shadowing_macro(k);
        } else {
            note_hip_branch(h, k, d, chains);
        }
    }
    legacy_family_ = legacy >= 0 && modern.count(legacy) == 0 ? legacy : -1;
    std::sort(hip_follows_.begin(), hip_follows_.end());
}

Result Rewriter::run(const OutputBuffer* output) {
    for (const int i : scan_.decls) note_declaration(i);
    scan_directives();
    scan_loops();
    walk();
    dead_ = false;
    hip_dead_ = false;
    report_truncation();
    // Edits by position, in the order they were made where two start and end
    // together; a rewrite may edit its arguments before renaming its name.
    sort_nearly_sorted(edits_, [](const Edit& a, const Edit& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    // The edits applied: in order, none overlapping the one before (the first
    // one wins), each keeping the comments and line breaks of what it removes.
    std::size_t n = 0;
    std::uint32_t cursor = 0;
    for (Edit e : edits_) {
        CASS_CHECK(e.begin <= e.end && e.end <= s_.size());
        if (e.begin < cursor || e.end < e.begin || e.end > s_.size()) continue;
        const char* from = s_.data() + e.begin;
        const std::size_t len = e.end - e.begin;
        if (len != 0 &&
            (std::memchr(from, '/', len) != nullptr || std::memchr(from, '\n', len) != nullptr)) {
            std::string keep = kept(e.begin, e.end);
            if (!keep.empty()) {
                // After the new text, unless a '#' follows on the edit's last line: the
                // line breaks would make it the first on its line, a directive only the
                // next translation would read.
                owned_.push_back(hash_follows_on_its_line(e.end) ? keep + std::string(e.text)
                                                                 : std::string(e.text) + keep);
                e.text = owned_.back();
            }
        }
        edits_[n++] = e;
        cursor = e.end;
    }
    edits_.resize(n);
    // The tokens and their side tables are not read from here on (the edits hold
    // offsets and texts, the diagnostics offsets): a large file's pages go back before
    // the output takes as many, so the peak is the larger of the two, not their sum.
    mem_.drop_tokens();
    Result r;
    // Two passes: the size of the output, then the bytes, copied straight in
    // (into the caller's buffer when it gives one: a Python bytes object, say).
    std::size_t size = s_.size();
    for (const Edit& e : edits_) size = size - (e.end - e.begin) + e.text.size();
    char* out = nullptr;
    if (output != nullptr) {
        out = (*output)(size);
    } else {
        r.text.resize(size);
        out = r.text.data();
    }
    if (o_.record_edits) r.edits.reserve(edits_.size());
    char* const start = out;
    cursor = 0;
    for (const Edit& e : edits_) {
        std::memcpy(out, s_.data() + cursor, e.begin - cursor);
        out += e.begin - cursor;
        const auto at = static_cast<std::uint64_t>(out - start);
        std::memcpy(out, e.text.data(), e.text.size());
        out += e.text.size();
        cursor = e.end;
        if (o_.record_edits) r.edits.push_back(Replacement{e.begin, e.end, at, at + e.text.size()});
    }
    std::memcpy(out, s_.data() + cursor, s_.size() - cursor);
    finish_positions();
    r.diagnostics = std::move(diags_);
    r.stats = std::move(stats_);
    return r;
}

}  // namespace detail

struct Workspace::Impl {
    std::mutex busy;
    detail::Storage storage;
};

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;

Result translate(std::string_view source, const Table& table, const Options& options) {
    detail::Storage mem;
    return detail::Rewriter(source, table, options, mem).run(nullptr);
}

Result translate(std::string_view source, const Table& table, const Options& options,
                 const OutputBuffer& output) {
    detail::Storage mem;
    return detail::Rewriter(source, table, options, mem).run(&output);
}

Result translate(std::string_view source, const Table& table, const Options& options,
                 const OutputBuffer& output, Workspace& workspace) {
    const std::lock_guard<std::mutex> hold(workspace.impl_->busy);
    detail::Storage& mem = workspace.impl_->storage;
    Result r = detail::Rewriter(source, table, options, mem).run(&output);
    mem.trim();
    return r;
}

}  // namespace cass
