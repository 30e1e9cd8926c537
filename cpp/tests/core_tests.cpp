// Pure C++ checks of the core, built without Python (CASS_BUILD_CORE_TESTS=ON).
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cass/lexer.hpp"
#include "cass/rewriter.hpp"

namespace {

int failures = 0;

void check(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAIL: %s\n", what);
        ++failures;
    }
}

// Blanks between tokens: spaces, tabs, \r, \f, \v and backslash-newline splices.
bool blank_gap(const std::string& s, std::uint32_t from, std::uint32_t to) {
    for (std::uint32_t k = from; k < to; ++k) {
        const char c = s[k];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') continue;
        if (c == '\\' && k + 1 < to && s[k + 1] == '\n') {
            ++k;
            continue;
        }
        if (c == '\\' && k + 2 < to && s[k + 1] == '\r' && s[k + 2] == '\n') {
            k += 2;
            continue;
        }
        return false;
    }
    return true;
}

bool tokens_cover(const std::string& s) {
    std::uint32_t at = 0;
    for (const auto& t : cass::lex(s)) {
        if (t.begin < at || t.end <= t.begin || !blank_gap(s, at, t.begin)) return false;
        at = t.end;
    }
    return at <= s.size() && blank_gap(s, at, static_cast<std::uint32_t>(s.size()));
}

}  // namespace

int main() {
    const cass::Table empty;
    const cass::Options options;
    std::mt19937 rng(12345);
    const std::string alphabet = "ab_ <>\"'\\\n/*#R()x0123456789.e+-u8L{}[];:,=&|!%^~?\r\t";
    for (int n = 0; n < 20000; ++n) {
        std::string s;
        const int len = static_cast<int>(rng() % 64);
        for (int k = 0; k < len; ++k) {
            s += (rng() % 8 == 0) ? static_cast<char>(rng() % 256)
                                  : alphabet[rng() % alphabet.size()];
        }
        check(tokens_cover(s), "tokens cover the input exactly");
        check(cass::translate(s, empty, options).text == s, "empty table preserves bytes");
    }
    const std::string launch = "k<Vec<float>><<<g, b>>>(x); std::vector<std::vector<int>>> y;";
    int opens = 0;
    int closes = 0;
    for (const auto& t : cass::lex(launch)) {
        opens += t.kind == cass::TokenKind::LaunchOpen;
        closes += t.kind == cass::TokenKind::LaunchClose;
    }
    check(opens == 1 && closes == 1, "one launch, and >>> after templates is not a launch");
    const std::string raw = "auto s = R\"x(cudaMalloc )\" )x\"; cudaFree(p);";
    const auto toks = cass::lex(raw);
    bool raw_ok = false;
    for (const auto& t : toks) {
        if (t.kind == cass::TokenKind::String) raw_ok = t.text(raw) == "R\"x(cudaMalloc )\" )x\"";
    }
    check(raw_ok, "raw string with a delimiter is one token");
    // A by-arity call cut off before its ')' once made the rewriter pad at token -1.
    std::vector<cass::Entry> rows(1);
    rows[0].cuda = "cudaGraphInstantiate";
    rows[0].hip = "hipGraphInstantiate";
    rows[0].alt = "hipGraphInstantiateWithFlags";
    rows[0].rewrite = cass::Rewrite::ByArity;
    rows[0].arg = 3;
    const cass::Table graph(rows, {cass::Family{"runtime", {"cuda"}}});
    const std::string cut = "CHECK(cudaGraphInstantiate(&exec, g\n  int x = 1;\n";
    check(cass::translate(cut, graph, options).text ==
              "CHECK(hipGraphInstantiate(&exec, g\n  int x = 1;\n",
          "an unclosed by-arity call is renamed, not padded");
    check(cass::translate("cudaGraphInstantiate(&e, g);", graph, options).text ==
              "hipGraphInstantiateWithFlags(&e, g, 0);",
          "a short by-arity call is padded");
    std::printf("%d passed, %d failed\n", failures == 0 ? 1 : 0, failures);
    return failures == 0 ? 0 : 1;
}
