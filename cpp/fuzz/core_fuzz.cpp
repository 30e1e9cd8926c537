// libFuzzer target for the rule core: every input is translated, and the
// invariants of docs/fuzzing.md are checked; a broken one aborts (a finding).
//
// The table comes from the TOML data through dump_table.py (CASS_FUZZ_TABLE, or
// table.tsv beside the binary). The first byte of the input also picks the
// options, so one corpus reaches every HIP version and both launch syntaxes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cass/lexer.hpp"
#include "cass/rewriter.hpp"
#include "cass/table.hpp"

namespace {

const cass::Table* table = nullptr;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "cass_core_fuzz: invariant broken: %s\n", what);
    std::abort();
}

void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t k = 0; k < s.size(); ++k) {
        if (s[k] != '\\' || k + 1 == s.size()) {
            out += s[k];
            continue;
        }
        const char c = s[++k];
        out += c == 't' ? '\t' : c == 'n' ? '\n' : c;
    }
    return out;
}

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> out(1);
    for (const char c : line) {
        if (c == sep) {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

// F <tab> name <tab> prefix,prefix...   and   R <tab> the 13 fields of a row.
cass::Table* load_table(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cass_core_fuzz: cannot read the table %s (run dump_table.py)\n",
                     path.c_str());
        std::exit(2);
    }
    std::vector<cass::Entry> entries;
    std::vector<cass::Family> families;
    std::string line;
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split(line, '\t');
        if (f[0] == "F" && f.size() == 3) {
            cass::Family fam{unescape(f[1]), {}};
            if (!f[2].empty()) fam.prefixes = split(f[2], ',');
            families.push_back(fam);
        } else if (f[0] == "R" && (f.size() == 14 || f.size() == 15)) {
            cass::Entry e;
            e.cuda = unescape(f[1]);
            e.hip = unescape(f[2]);
            e.legacy = unescape(f[3]);
            e.note = unescape(f[4]);
            e.kind = static_cast<cass::Kind>(std::stoi(f[5]));
            e.status = static_cast<cass::Status>(std::stoi(f[6]));
            e.rewrite = static_cast<cass::Rewrite>(std::stoi(f[7]));
            e.match = static_cast<cass::Match>(std::stoi(f[8]));
            e.family = static_cast<std::uint16_t>(std::stoi(f[9]));
            e.arg = static_cast<std::int16_t>(std::stoi(f[10]));
            e.since = static_cast<std::uint32_t>(std::stoi(f[11]));
            e.alt = unescape(f[12]);
            e.warp = unescape(f[13]);
            if (f.size() == 15) e.legacy_note = unescape(f[14]);
            entries.push_back(std::move(e));
        } else if (!line.empty()) {
            // A row the harness cannot read means dump_table.py and this file disagree:
            // fuzzing a partial table would hide that.
            std::fprintf(stderr, "cass_core_fuzz: %s: unreadable row with %zu fields: %.60s\n",
                         path.c_str(), f.size(), line.c_str());
            std::exit(2);
        }
    }
    if (entries.empty()) {
        std::fprintf(stderr, "cass_core_fuzz: no rows in %s\n", path.c_str());
        std::exit(2);
    }
    return new cass::Table(std::move(entries), std::move(families));
}

cass::Options options_for(std::string_view src) {
    const unsigned pick = src.empty() ? 0U : static_cast<unsigned char>(src[0]);
    static constexpr std::uint32_t kHip[] = {502, 600, 700, 702};
    cass::Options o;
    o.hip_version = kHip[pick & 3U];
    o.launch = (pick & 4U) != 0 ? cass::LaunchSyntax::GGL : cass::LaunchSyntax::Chevrons;
    o.rename_cu_includes = (pick & 8U) != 0;
    o.hazard_fixes = (pick & 16U) == 0;
    o.logical_warps = (pick & 32U) == 0;
    o.record_edits = true;
    return o;
}

bool same(const cass::Result& a, const cass::Result& b) {
    if (a.text != b.text || a.diagnostics.size() != b.diagnostics.size()) return false;
    for (std::size_t k = 0; k < a.diagnostics.size(); ++k) {
        const cass::Diagnostic& x = a.diagnostics[k];
        const cass::Diagnostic& y = b.diagnostics[k];
        if (x.offset != y.offset || x.line != y.line || x.column != y.column ||
            x.severity != y.severity || x.rule != y.rule || x.message != y.message) {
            return false;
        }
    }
    if (a.stats.lines != b.stats.lines || a.stats.families.size() != b.stats.families.size()) {
        return false;
    }
    for (std::size_t f = 0; f < a.stats.families.size(); ++f) {
        if (a.stats.families[f].converted != b.stats.families[f].converted ||
            a.stats.families[f].unconverted != b.stats.families[f].unconverted) {
            return false;
        }
    }
    return a.edits.size() == b.edits.size();
}

std::size_t newlines(std::string_view s) {
    std::size_t n = 0;
    for (const char c : s) n += c == '\n' ? 1U : 0U;
    return n;
}

// Output = input with each edit's range replaced; every edit starts and ends on
// a token boundary, keeps the comments and the line breaks it covers, and the
// output has the input's lines.
void check_edits(std::string_view src, const cass::Result& r) {
    std::vector<std::uint8_t> boundary(src.size() + 1, 0);
    std::vector<cass::Token> toks = cass::lex(src);
    boundary[0] = boundary[src.size()] = 1;
    for (const cass::Token& t : toks) boundary[t.begin] = boundary[t.end] = 1;
    std::uint64_t in = 0;
    std::uint64_t out = 0;
    std::size_t tok = 0;
    for (const cass::Replacement& e : r.edits) {
        check(e.begin >= in && e.begin <= e.end && e.end <= src.size(), "edits in order, in range");
        check(e.out_begin - out == e.begin - in, "bytes between edits are kept");
        check(src.substr(in, e.begin - in) == std::string_view(r.text).substr(out, e.begin - in),
              "bytes between edits are kept exactly");
        check(boundary[e.begin] != 0 && boundary[e.end] != 0, "edits end on token boundaries");
        const std::string_view removed = src.substr(e.begin, e.end - e.begin);
        const std::string_view added =
            std::string_view(r.text).substr(e.out_begin, e.out_end - e.out_begin);
        check(newlines(removed) == newlines(added), "an edit keeps the lines it covers");
        while (tok < toks.size() && toks[tok].end <= e.begin) ++tok;
        for (std::size_t k = tok; k < toks.size() && toks[k].begin < e.end; ++k) {
            if (toks[k].kind == cass::TokenKind::Comment) {
                check(added.find(toks[k].text(src)) != std::string_view::npos,
                      "an edit keeps the comments it covers");
            }
        }
        in = e.end;
        out = e.out_end;
    }
    check(src.size() - in == r.text.size() - out, "the bytes after the last edit are kept");
    check(src.substr(in) == std::string_view(r.text).substr(out), "the tail is kept exactly");
    check(newlines(src) == newlines(r.text), "the output has the input's lines");
    for (const cass::Diagnostic& d : r.diagnostics) {
        check(d.offset <= src.size() && d.line >= 1 && d.line <= r.stats.lines + 1,
              "diagnostics point into the input");
    }
}

cass::Result via_workspace(std::string_view src, const cass::Options& o, cass::Workspace& w) {
    std::string text;
    cass::Result r = cass::translate(
        src, *table, o,
        [&text](std::size_t n) {
            text.resize(n);
            return text.data();
        },
        w);
    r.text = std::move(text);
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    const char* env = std::getenv("CASS_FUZZ_TABLE");
    std::string path;
    if (env != nullptr) {
        path = env;
    } else {
        const std::string self = (*argc > 0) ? (*argv)[0] : "";
        const std::size_t slash = self.rfind('/');
        path =
            (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/table.tsv";
    }
    table = load_table(path);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view src(reinterpret_cast<const char*>(data), size);
    const cass::Options o = options_for(src);
    // One workspace for the whole run: what earlier inputs left in it must not matter.
    static cass::Workspace workspace;
    static unsigned count = 0;
    const cass::Result first = via_workspace(src, o, workspace);
    check_edits(src, first);
    cass::Result fresh;
    if (++count % 64 == 0) {  // on another thread now and then
        std::thread t([&] { fresh = cass::translate(src, *table, o); });
        t.join();
    } else {
        fresh = cass::translate(src, *table, o);
    }
    check(same(first, fresh), "the same input and options give the same result");
    // Translating the output again changes nothing.
    const cass::Result again = via_workspace(first.text, o, workspace);
    check(again.text == first.text, "translating the output again changes nothing");
    return 0;
}
