// See warp_header.hpp. Each function mirrors one helper of cass_build/rules/__init__.py,
// named after it; tests/test_api.py checks that the two agree.
#include "warp_header.hpp"

#include <string.h>  // memmem (glibc)

#include <algorithm>
#include <array>
#include <vector>

namespace cass_py {

namespace {

constexpr std::string_view kBom = "\xef\xbb\xbf";

// s.find(needle, from) by memmem: the needles start with '_', which CUDA code is full
// of, and string_view::find stops at every first byte that matches.
std::size_t find(std::string_view s, std::string_view needle, std::size_t from = 0) {
    if (from > s.size()) return std::string_view::npos;
    const void* at = memmem(s.data() + from, s.size() - from, needle.data(), needle.size());
    return at == nullptr ? std::string_view::npos
                         : static_cast<std::size_t>(static_cast<const char*>(at) - s.data());
}

bool word_byte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool blank(char c) { return c == ' ' || c == '\t'; }

bool begins(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// rules._names: `name` starting a word somewhere in `s` (and ending one, if `whole`).
bool names(std::string_view s, std::string_view name, bool whole) {
    for (std::size_t at = find(s, name); at != std::string_view::npos; at = find(s, name, at + 1)) {
        const std::size_t end = at + name.size();
        if ((at == 0 || !word_byte(s[at - 1])) && (!whole || end == s.size() || !word_byte(s[end])))
            return true;
    }
    return false;
}

struct Compat {
    std::string_view header;
    std::string_view prefix;
};
constexpr std::array<Compat, 3> kCompat{
    {{"fp16", "__cass_fp16_"}, {"bf16", "__cass_bf16_"}, {"runtime", "__cass_rt_"}}};

// rules._warp_names: a word-starting __cass_ name that is not a compat operation.
bool warp_names(std::string_view s) {
    constexpr std::string_view kCass = "__cass_";
    for (std::size_t at = find(s, kCass); at != std::string_view::npos;
         at = find(s, kCass, at + 1)) {
        if (at != 0 && word_byte(s[at - 1])) continue;
        const std::string_view rest = s.substr(at);
        if (std::none_of(kCompat.begin(), kCompat.end(),
                         [&](const Compat& c) { return begins(rest, c.prefix); }))
            return true;
    }
    return false;
}

// rules._CASS_INCLUDE matched at `q`, the start of a line: the header it names, or "".
// ^[ \t]*#[ \t]*include[ \t]*[<"]cass/(warp|cooperative_groups|fp16|bf16|runtime)\.h[>"]
std::string_view cass_include_at(std::string_view s, std::size_t q) {
    constexpr std::array<std::string_view, 5> kHeaders{"warp", "cooperative_groups", "fp16", "bf16",
                                                       "runtime"};
    const auto skip_blanks = [&] {
        while (q < s.size() && blank(s[q])) ++q;
    };
    skip_blanks();
    if (q >= s.size() || s[q] != '#') return {};
    ++q;
    skip_blanks();
    if (!begins(s.substr(q), "include")) return {};
    q += 7;
    skip_blanks();
    if (q >= s.size() || (s[q] != '<' && s[q] != '"') || !begins(s.substr(q + 1), "cass/"))
        return {};
    const std::string_view rest = s.substr(q + 6);
    for (const std::string_view h : kHeaders) {
        const std::size_t close = h.size() + 2;  // after "H.h"
        if (begins(rest, h) && begins(rest.substr(h.size()), ".h") && rest.size() > close &&
            (rest[close] == '>' || rest[close] == '"'))
            return h;
    }
    return {};
}

// rules._cass_includes: the headers `s` includes, tried only on lines naming "cass/".
std::vector<std::string_view> cass_includes(std::string_view s) {
    std::vector<std::string_view> found;
    for (std::size_t at = find(s, "cass/"); at != std::string_view::npos;) {
        const std::size_t newline = s.rfind('\n', at);
        const std::string_view h =
            cass_include_at(s, newline == std::string_view::npos ? 0 : newline + 1);
        if (!h.empty()) found.push_back(h);
        const std::size_t end = s.find('\n', at);
        if (end == std::string_view::npos) break;
        at = find(s, "cass/", end);
    }
    return found;
}

}  // namespace

std::size_t bom_length(std::string_view hip) { return begins(hip, kBom) ? kBom.size() : 0; }

std::string warp_header_lines(std::string_view hip) {
    if (!names(hip, "__cass_", false)) return {};
    const std::vector<std::string_view> included = cass_includes(hip);
    const auto has = [&](std::string_view h) {
        return std::find(included.begin(), included.end(), h) != included.end();
    };
    std::vector<std::string_view> headers;
    if (warp_names(hip)) {
        const std::string_view h = names(hip, "__cass_cg", true) ? "cooperative_groups" : "warp";
        if (!has("cooperative_groups") && !has(h)) headers.push_back(h);
    }
    for (const Compat& c : kCompat) {
        if (!has(c.header) && names(hip, c.prefix, false)) headers.push_back(c.header);
    }
    if (headers.empty()) return {};
    std::string lines;
    for (const std::string_view h : headers)
        lines.append("#include <cass/").append(h).append(".h>\n");
    lines.append("#line 1\n");
    return lines;
}

}  // namespace cass_py
