// _core.translate_tree: cass translate DIR --verify none in one call. Every file of the
// tree is read, translated, checked for the local headers it reaches and written on C++
// threads with the GIL released; its diagnostics are rendered as the CLI prints them and
// its JSON report entry as json.dumps writes it, so that Python is left one small tuple
// per file. A file the core cannot do exactly as the per-file pipeline would is None:
// Python takes it through that pipeline (cass_build/cli/tree_batch.py).
#include "tree.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pybind11/stl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "batch.hpp"
#include "cass/rewriter.hpp"
#include "cass/table.hpp"
#include "parallel.hpp"

namespace py = pybind11;

namespace cass_tree {

std::string py_float(double x) {
    if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
    char buf[64];
    const auto done = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
    std::string_view s(buf, static_cast<std::size_t>(done.ptr - buf));  // "-3.16099e-04"
    std::string out;
    out.reserve(32);
    if (s[0] == '-') {
        out += '-';
        s.remove_prefix(1);
    }
    const std::size_t e = s.find('e');
    char digits[32];  // the shortest round trip has at most 17
    std::size_t n = 0;
    for (const char c : s.substr(0, e)) {
        if (c != '.') digits[n++] = c;
    }
    int exp = 0;
    const std::string_view written = s.substr(e + 1);  // "-04", "+16"
    std::from_chars(written.data() + (written[0] == '+' ? 1 : 0), written.data() + written.size(),
                    exp);
    const std::string_view d(digits, n);
    if (exp >= -4 && exp < 16) {
        const int point = exp + 1;  // digits before the decimal point
        const auto count = static_cast<int>(n);
        if (point <= 0) {
            out.append("0.").append(static_cast<std::size_t>(-point), '0').append(d);
        } else if (point >= count) {
            out.append(d).append(static_cast<std::size_t>(point - count), '0').append(".0");
        } else {
            const auto p = static_cast<std::size_t>(point);
            out.append(d.substr(0, p)).append(".").append(d.substr(p));
        }
        return out;
    }
    out += d[0];
    if (n > 1) out.append(".").append(d.substr(1));
    out += exp < 0 ? "e-" : "e+";
    const int a = exp < 0 ? -exp : exp;
    if (a < 10) out += '0';
    out += std::to_string(a);
    return out;
}

namespace {

void json_unit(std::string* out, unsigned u) {
    static constexpr char kHex[] = "0123456789abcdef";
    out->append("\\u");
    for (int shift = 12; shift >= 0; shift -= 4) out->push_back(kHex[(u >> shift) & 0xF]);
}

// The code point of the UTF-8 sequence at s[i] and its length, or 0 bytes when the
// sequence is invalid (Python's strict decoder's verdict; see batch.cpp valid_utf8).
std::pair<unsigned, std::size_t> code_point(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c >= 0xC2 && c <= 0xDF   ? 2
                    : c >= 0xE0 && c <= 0xEF ? 3
                    : c >= 0xF0 && c <= 0xF4 ? 4
                                             : 0;
    if (n == 0 || i + n > s.size() || !cass_batch::valid_utf8(s.substr(i, n))) return {0, 0};
    unsigned u = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n; ++k)
        u = (u << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    return {u, n};
}

}  // namespace

std::string json_string(std::string_view s) {
    // Printable ASCII but '"' and '\\' stands for itself: a path is all of that.
    const auto plain = [](unsigned char c) {
        return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
    };
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        std::size_t run = i;
        while (run < s.size() && plain(static_cast<unsigned char>(s[run]))) ++run;
        if (run != i) {  // copied at once
            out.append(s.data() + i, run - i);
            i = run;
            continue;
        }
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if (c == '"' || c == '\\') {
                out += '\\';
                out += static_cast<char>(c);
            } else if (c == '\n') {
                out += "\\n";
            } else if (c == '\r') {
                out += "\\r";
            } else if (c == '\t') {
                out += "\\t";
            } else if (c == '\b') {
                out += "\\b";
            } else if (c == '\f') {
                out += "\\f";
            } else if (c < 0x20 || c == 0x7F) {
                json_unit(&out, c);
            } else {
                out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        const auto [u, n] = code_point(s, i);
        if (n == 0) {  // surrogateescape: the byte as a lone low surrogate
            json_unit(&out, 0xDC00 + c);
            ++i;
        } else if (u >= 0x10000) {  // a surrogate pair, as json writes astral characters
            json_unit(&out, 0xD800 + ((u - 0x10000) >> 10));
            json_unit(&out, 0xDC00 + ((u - 0x10000) & 0x3FF));
            i += n;
        } else {
            json_unit(&out, u);
            i += n;
        }
    }
    out += '"';
    return out;
}

namespace {

// What the call was asked, beyond the files (see translate_tree's arguments).
struct Config {
    std::size_t max_bytes = 0;
    int threads = 1;
    std::vector<std::pair<std::string, std::string>> mirror;
    std::string out_spelled;
    std::string out_real;
    bool rename_cu = false;
    bool search_dirs = false;
    bool werror = false;
    bool quiet = false;
    bool stats = false;
    bool report = false;
    std::string attempts;
};

struct File {
    std::string path;    // as spelled, the bytes the OS sees
    std::string target;  // likewise
    std::string real;    // "" when the core cannot tell
    bool ok = false;     // read and translated
    bool python = true;  // Python does this file (until the core has done it)
    bool deferred = false;
    std::string text;
    cass::Result result;
    std::vector<std::pair<std::string, bool>> includes;
    std::vector<std::string> resolved;  // per include: a real path, "" none, "?" ask Python
    std::size_t size = 0;
    double seconds = 0;
    int status = 2;  // 0 written, 1 unchanged, 2 left to Python; | 4: a stale .unverified
    std::string shown;
    int errors = 0;
    int warnings = 0;
    std::string entry;
};

// str(Path) of a path's parent and its name, as write_files splits a target.
std::pair<std::string, std::string> split(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return {".", path};
    return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// Path.suffix of a path's last part.
std::string_view suffix(std::string_view path) {
    const std::size_t slash = path.find_last_of('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const std::size_t dot = name.rfind('.');
    return dot != std::string_view::npos && dot > 0 && dot + 1 < name.size() ? name.substr(dot)
                                                                             : "";
}

bool source_is_cu(const std::string& path) { return suffix(path) == ".cu"; }

// chain._mirror_target of a real path: where a header under a mirror root is written.
bool mirror_target(const std::string& real, const Config& c, std::string* out) {
    for (const auto& [src, dst] : c.mirror) {
        std::string target;
        if (real == src) {
            target = dst;
        } else {
            const std::string prefix = src == "/" ? "/" : src + "/";
            if (real.compare(0, prefix.size(), prefix) != 0) continue;
            target = (dst == "/" ? "" : dst) + "/" + real.substr(prefix.size());
        }
        if (c.rename_cu && suffix(target) == ".cu") target.replace(target.size() - 3, 3, ".hip");
        *out = std::move(target);
        return true;
    }
    return false;
}

// A target as the resolved path the mirror would name it by.
bool real_target(const std::string& target, const Config& c, std::string* out) {
    if (target.compare(0, c.out_spelled.size(), c.out_spelled) != 0) return false;
    *out = c.out_real + target.substr(c.out_spelled.size());
    return true;
}

// Whether every local header file `f` reaches (includes.local_includes, as tree_batch
// once walked them in Python) is another file of the tree, translated here, whose own
// output is the one its mirror target names: then writing the file's headers is
// writing those outputs, which their own files do. Anything else goes to Python.
bool headers_are_own(const std::vector<File>& files, std::size_t f,
                     const std::unordered_map<std::string, std::size_t>& by_real, const Config& c) {
    std::vector<std::size_t> pending{f};
    std::unordered_set<std::string> seen;
    while (!pending.empty()) {
        const File& from = files[pending.back()];
        pending.pop_back();
        for (std::size_t k = 0; k < from.includes.size(); ++k) {
            const std::string& r = from.resolved[k];
            if (!from.includes[k].second && !c.search_dirs) continue;  // <...>, no -I
            if (r == "?") return false;                                // Python must look
            if (r.empty()) {
                if (c.search_dirs) return false;  // not beside it: the -I directories
                continue;
            }
            if (r == files[f].real || !seen.insert(r).second) continue;
            const auto it = by_real.find(r);
            if (it == by_real.end()) return false;  // a header that is no file of the tree
            const File& header = files[it->second];
            // Its text is the one the pipeline gives the header when its implicit
            // runtime include is the same, which the suffix decides.
            if (!header.ok || suffix(r) != suffix(header.path)) return false;
            std::string mirrored, own;
            if (mirror_target(r, c, &mirrored) &&
                (!real_target(header.target, c, &own) || mirrored != own)) {
                return false;
            }
            pending.push_back(it->second);
        }
    }
    return true;
}

// An output directory, opened (and created) once, with the names already in it.
struct OutDir {
    cass_batch::Directory dir;
    std::unordered_set<std::string> names;
};

// The output directories, each opened by the first thread to ask. Listing one costs a
// few system calls for all its files; then an output that is not there needs no look
// before it is written, and the stale candidate of a failed check none at all.
class Directories {
public:
    Directories() = default;
    Directories(const Directories&) = delete;
    Directories& operator=(const Directories&) = delete;
    ~Directories() {
        for (const auto& [path, out] : known_) {
            if (out->dir.fd >= 0) close(out->dir.fd);
        }
    }
    const OutDir& get(const std::string& path) {
        const std::lock_guard<std::mutex> lock(mutex_);
        auto& out = known_[path];
        if (!out) {
            out = std::make_unique<OutDir>();
            out->dir = cass_batch::open_directory(path);
            const int fd =
                out->dir.fd < 0 ? -1 : openat(out->dir.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            DIR* listing = fd < 0 ? nullptr : fdopendir(fd);
            if (listing == nullptr) {
                if (fd >= 0) close(fd);
                if (out->dir.fd >= 0) close(out->dir.fd);
                out->dir.fd = -1;  // not listed: its files go to Python
            } else {
                while (const dirent* entry = readdir(listing)) out->names.insert(entry->d_name);
                closedir(listing);
            }
        }
        return *out;
    }

private:
    std::mutex mutex_;
    std::unordered_map<std::string, std::unique_ptr<OutDir>> known_;
};

// translate._write_outputs's name of the candidate a failed check kept beside `name`.
std::string stale_name(const std::string& name) {
    const std::size_t dot = name.rfind('.');
    if (dot != std::string::npos && dot > 0 && dot + 1 < name.size()) {
        return name.substr(0, dot) + ".unverified" + name.substr(dot);
    }
    return name + ".unverified";
}

// `text` is the file's output: its thread's buffer, or f.text for a deferred file.
void write(File& f, std::string_view text, Directories& dirs,
           const std::unordered_set<std::string>& inputs) {
    const auto [dir_path, name] = split(f.target);
    const OutDir& out = dirs.get(dir_path);
    f.status =
        cass_batch::write_if_changed(out.dir, name, text, inputs, out.names.count(name) == 0);
    if (f.status == 2) {  // Python writes it (or says why it cannot), then looks
        if (text.data() != f.text.data()) f.text.assign(text);
        return;
    }
    if (out.names.count(stale_name(name)) != 0) f.status |= 4;  // Python looks closer
    f.text = std::string();  // written: its memory goes back for the next file
}

// Each thread's buffers for a source and its output, kept from one file to the next at the
// size of the largest: a file then costs no allocation of its size, nor the page faults of
// fresh memory. A worker's go with its thread; the caller's are given back by the call.
struct Buffers {
    std::string src;
    std::string out;
};

Buffers& buffers() {
    thread_local Buffers b;
    return b;
}

double round4(double x) {  // Python's round(x, 4): correctly rounded, read back
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f", x);
    return std::strtod(buf, nullptr);
}

// Appends the decimal digits of `v`.
void append_number(std::string* out, std::uint64_t v) {
    char buf[24];
    const auto done = std::to_chars(buf, buf + sizeof buf, v);
    out->append(buf, static_cast<std::size_t>(done.ptr - buf));
}

// The file's diagnostics as the CLI prints them (with --werror and -q applied) and its
// report entry as chain.Result.report and json.dumps give it. Each is sized first and
// then appended to in place: built with operator+ (a temporary and its copy per piece,
// the text regrown as it went), they took 20,000 instructions for a file's six lines.
void render(File& f, const Config& c) {
    static constexpr std::string_view kSeverity[] = {"note", "warning", "error"};
    const auto shown_of = [&c](const cass::Diagnostic& d) {
        const int severity = static_cast<int>(d.severity) % 3;
        return c.werror && severity == 1 ? 2 : severity;
    };
    std::size_t size = 0;
    for (const cass::Diagnostic& d : f.result.diagnostics) {
        const int shown = shown_of(d);
        if (c.quiet && shown != 2) continue;
        // path:line:column: severity: message [cass-rule]\n, numbers of 10 digits at most
        size +=
            f.path.size() + 22 + kSeverity[shown].size() + d.message.size() + d.rule.size() + 12;
    }
    f.shown.reserve(size);
    int counts[3] = {0, 0, 0};
    for (const cass::Diagnostic& d : f.result.diagnostics) {
        ++counts[static_cast<int>(d.severity) % 3];
        const int shown = shown_of(d);
        f.errors += shown == 2;
        f.warnings += shown == 1;
        if (c.quiet && shown != 2) continue;
        f.shown += f.path;
        if (d.line != 0) {
            f.shown += ':';
            append_number(&f.shown, d.line);
            f.shown += ':';
            append_number(&f.shown, d.column);
        }
        f.shown.append(": ").append(kSeverity[shown]).append(": ").append(d.message);
        f.shown.append(" [cass-").append(d.rule).append("]\n");
    }
    f.result.diagnostics = {};
    if (!c.report) return;
    const std::string path = json_string(f.path);
    const std::string rounded = py_float(round4(f.seconds));
    const std::string seconds = py_float(f.seconds);
    static constexpr std::string_view kHead =
        ", \"strategy\": \"rules\", \"level\": \"none\", \"verified\": false, "
        "\"cached\": false, \"seconds\": ";
    static constexpr std::string_view kRules =
        "{\"strategy\": \"rules\", \"status\": \"unverified\", \"reason\": \"\", "
        "\"messages\": [], \"seconds\": ";
    std::string& e = f.entry;
    e.clear();
    e.reserve(path.size() + rounded.size() + seconds.size() + c.attempts.size() + kHead.size() +
              kRules.size() + 160);
    e.append("{\"file\": ").append(path).append(kHead).append(rounded);
    e.append(", \"errors\": ");
    append_number(&e, static_cast<std::uint64_t>(counts[2]));
    e.append(", \"warnings\": ");
    append_number(&e, static_cast<std::uint64_t>(counts[1]));
    e.append(", \"notes\": ");
    append_number(&e, static_cast<std::uint64_t>(counts[0]));
    e.append(", \"evidence\": [], \"attempts\": [").append(c.attempts);
    if (!c.attempts.empty()) e.append(", ");
    e.append(kRules).append(seconds).append("}]}");
}

using cass_py::parallel;

// Read and translate, as translate_files does; false: Python does the file.
// The output goes to `b.out`.
bool translate(File& f, const cass::Table& table, const cass::Options& opt, const Config& c,
               cass_batch::RealDirs* real_dirs, cass::Workspace& workspace, Buffers& b) {
    const auto start = std::chrono::steady_clock::now();
    std::string& src = b.src;
    if (!cass_batch::read_source(f.path, c.max_bytes, &src) || src.size() >= 0xFFFFFFF0ULL) {
        return false;
    }
    // A blank file gets the pipeline's empty-input warning, from Python's table.
    if (std::all_of(src.begin(), src.end(), [](char ch) {
            return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\x0b' ||
                   ch == '\x0c';
        })) {
        return false;
    }
    f.size = src.size();
    try {
        f.includes = cass_batch::include_directives(src);
        const std::size_t slash = f.real.find_last_of('/');
        const std::string here =
            slash == std::string::npos ? "" : f.real.substr(0, slash == 0 ? 1 : slash);
        for (const auto& [name, quoted] : f.includes) {
            f.resolved.push_back(quoted && !here.empty()
                                     ? cass_batch::resolve_here(here, name, real_dirs)
                                     : std::string("?"));
        }
        std::string& out = b.out;
        f.result = cass::translate(
            src, table, opt,
            [&out](std::size_t size) {
                out.resize(size);
                return out.data();
            },
            workspace);
        if (source_is_cu(f.path)) cass_batch::implicit_runtime(&out);
        cass_batch::warp_header(&out);
    } catch (const std::exception&) {
        return false;  // Python translates it again, and reports what went wrong
    }
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return true;
}

// Whether a file reaches no local header at all: then it is written as soon as it is
// translated, and its text freed, instead of waiting for every other file.
bool no_headers(const File& f, const Config& c) {
    for (std::size_t k = 0; k < f.includes.size(); ++k) {
        const std::string& r = f.resolved[k];
        if (!f.includes[k].second && !c.search_dirs) continue;
        if (!r.empty() || c.search_dirs) return false;
    }
    return true;
}

// A translated file's output written and its messages rendered; should either fail
// (memory), Python does the file again, which only finds its output already written.
void finish(File& f, std::string_view text, const Config& c, bool writable, Directories& dirs,
            const std::unordered_set<std::string>& inputs) noexcept {
    try {
        if (writable) {
            write(f, text, dirs, inputs);
        } else if (text.data() != f.text.data()) {
            f.text.assign(text);  // as before the buffers: not written, the bytes kept
        }
        render(f, c);
        f.python = false;
    } catch (const std::exception&) {
        f.python = true;
    }
}

// A str from bytes that Python spelled with surrogateescape (paths) or the core wrote.
py::object decoded(const std::string& s) {
    PyObject* o =
        PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
    if (o == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(o);
}

std::string encoded(const py::handle& s) {
    PyObject* b = PyUnicode_AsEncodedString(s.ptr(), "utf-8", "surrogateescape");
    if (b == nullptr) throw py::error_already_set();
    std::string out(PyBytes_AS_STRING(b), static_cast<std::size_t>(PyBytes_GET_SIZE(b)));
    Py_DECREF(b);
    return out;
}

py::object stats_of(const File& f) {
    py::list families;
    for (std::size_t k = 0; k < f.result.stats.families.size(); ++k) {
        const cass::FamilyStats& s = f.result.stats.families[k];
        if (s.converted != 0 || s.unconverted != 0) {
            families.append(py::make_tuple(k, s.converted, s.unconverted));
        }
    }
    return py::make_tuple(std::move(families), f.result.stats.lines, f.size);
}

py::tuple translate_tree(const py::list& sources, const py::list& targets, const cass::Table& table,
                         const cass::Options& opt, std::size_t max_bytes, int threads,
                         const std::vector<std::pair<std::string, std::string>>& mirror,
                         const py::str& out_spelled, const py::str& out_real, bool rename_cu,
                         bool search_dirs, bool werror, bool quiet, bool stats,
                         const py::object& attempts, const std::vector<bool>& plain) {
    const std::size_t n = sources.size();
    if (targets.size() != n || plain.size() != n) {
        throw py::value_error("sources, targets and plain differ in length");
    }
    Config c;
    c.max_bytes = max_bytes;
    c.threads = threads;
    for (const auto& [src, dst] : mirror)
        c.mirror.emplace_back(encoded(py::str(src)), encoded(py::str(dst)));
    c.out_spelled = encoded(out_spelled);
    c.out_real = encoded(out_real);
    c.rename_cu = rename_cu;
    c.search_dirs = search_dirs;
    c.werror = werror;
    c.quiet = quiet;
    c.stats = stats;
    c.report = !attempts.is_none();
    if (c.report) c.attempts = encoded(attempts);
    std::vector<File> files(n);
    for (std::size_t i = 0; i < n; ++i) {
        files[i].path = encoded(sources[i]);
        files[i].target = encoded(targets[i]);
    }
    {
        py::gil_scoped_release release;
        cass_batch::RealDirs real_dirs;
        // Every source's real path first: no output may replace any of them.
        parallel(n, threads, [&](std::size_t i, cass::Workspace&) {
            try {
                files[i].real = plain[i] ? cass_batch::real_of_plain(files[i].path, &real_dirs)
                                         : cass_batch::real_path(files[i].path, &real_dirs);
            } catch (const std::exception&) {
                files[i].real.clear();  // unknown: Python writes every output
            }
        });
        std::unordered_set<std::string> inputs;
        std::unordered_map<std::string, std::size_t> by_real;
        bool writable = true;  // a source of unknown real path: Python writes everything
        for (std::size_t i = 0; i < n; ++i) {
            writable = writable && !files[i].real.empty();
            inputs.insert(files[i].real);
            // Of the sources one real file is (a symlink and its target), the one whose
            // output is where the mirror puts the file, if any: its includers need it.
            std::string mirrored, own;
            if (mirror_target(files[i].real, c, &mirrored) &&
                real_target(files[i].target, c, &own) && mirrored == own) {
                by_real[files[i].real] = i;
            } else {
                by_real.emplace(files[i].real, i);
            }
        }
        Directories dirs;
        parallel(n, threads, [&](std::size_t i, cass::Workspace& workspace) {
            File& f = files[i];
            Buffers& b = buffers();
            bool done = false;
            try {
                done = !f.real.empty() && translate(f, table, opt, c, &real_dirs, workspace, b);
                if (done && !no_headers(f, c)) f.text = b.out;  // kept for the pass below
            } catch (const std::exception&) {
                done = false;  // Python translates it again, and reports what went wrong
            }
            if (!done) return;
            f.ok = true;
            if (no_headers(f, c)) {
                finish(f, b.out, c, writable, dirs, inputs);
            } else {
                f.deferred = true;
            }
        });
        parallel(n, threads, [&](std::size_t i, cass::Workspace&) {
            File& f = files[i];
            bool own = false;
            try {
                own = f.deferred && headers_are_own(files, i, by_real, c);
            } catch (const std::exception&) {
                own = false;  // Python finds the headers
            }
            if (own) finish(f, f.text, c, writable, dirs, inputs);
        });
        buffers() = Buffers{};  // the caller's thread: its buffers go back
    }
    py::list items(n);
    py::list reals(n);
    for (std::size_t i = 0; i < n; ++i) {
        File& f = files[i];
        py::object item = py::none();
        if (!f.python) {
            item = py::make_tuple(
                f.shown.empty() ? py::object(py::none()) : decoded(f.shown), f.errors, f.warnings,
                c.report ? decoded(f.entry) : py::object(py::none()),
                c.stats ? stats_of(f) : py::object(py::none()), f.status,
                (f.status & 3) == 2 ? py::object(py::bytes(f.text)) : py::object(py::none()));
        }
        PyList_SET_ITEM(items.ptr(), static_cast<Py_ssize_t>(i), item.release().ptr());
        py::object real = f.real.empty() ? py::object(py::none()) : decoded(f.real);
        PyList_SET_ITEM(reals.ptr(), static_cast<Py_ssize_t>(i), real.release().ptr());
        f = File{};  // frees the file's memory as its item is made
    }
    return py::make_tuple(std::move(items), std::move(reals));
}

// Path.suffix of a file name is one of `suffixes`.
bool has_suffix(std::string_view name, const std::vector<std::string>& suffixes) {
    const std::string_view s = suffix(name);
    return !s.empty() && std::any_of(suffixes.begin(), suffixes.end(),
                                     [s](const std::string& x) { return x == s; });
}

// Sorted as Paths sort (by their parts), as walk.tree_names sorts them: with '/' as NUL,
// which no name holds and every byte sorts after, as bytes (on valid UTF-8, byte order is
// code point order).
void sort_as_paths(std::vector<std::string>* names) {
    for (std::string& n : *names) std::replace(n.begin(), n.end(), '/', '\0');
    std::sort(names->begin(), names->end());  // char_traits<char>: bytes unsigned, as memcmp
    for (std::string& n : *names) std::replace(n.begin(), n.end(), '\0', '/');
}

// walk.tree_names's common case, with the GIL released: every directory listed and
// searchable, every entry a directory or a plain file by the type its listing gives, every
// name valid UTF-8. Else false (nothing found): Python lists the tree, and says what it met.
bool list_plain(const std::string& top, const std::vector<std::string>& suffixes,
                std::vector<std::string>* found) {
    std::vector<std::pair<std::string, std::string>> pending{{top, ""}};
    while (!pending.empty()) {
        const auto [where, under] = std::move(pending.back());
        pending.pop_back();
        if (access(where.c_str(), X_OK) != 0) return false;
        const int fd = open(where.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR* listing = fd < 0 ? nullptr : fdopendir(fd);
        if (listing == nullptr) {
            if (fd >= 0) close(fd);
            return false;
        }
        bool plain = true;
        for (;;) {
            errno = 0;
            const dirent* entry = readdir(listing);
            if (entry == nullptr) {
                plain = errno == 0;  // else the listing failed partway
                break;
            }
            const std::string_view name = entry->d_name;
            if (name == "." || name == "..") continue;
            if (!cass_batch::valid_utf8(name)) {
                plain = false;
                break;
            }
            if (entry->d_type == DT_DIR) {
                const std::string joined = where.back() == '/' ? where + std::string(name)
                                                               : where + "/" + std::string(name);
                pending.emplace_back(joined, under + std::string(name) + "/");
                continue;
            }
            if (!has_suffix(name, suffixes)) {
                // Not a source whatever it is, bar a type the listing does not give.
                if (entry->d_type == DT_UNKNOWN) {
                    plain = false;
                    break;
                }
                continue;
            }
            if (entry->d_type != DT_REG) {  // a symlink, a FIFO, unknown: Python looks
                plain = false;
                break;
            }
            found->push_back(under + std::string(name));
        }
        closedir(listing);
        if (!plain) return false;
    }
    sort_as_paths(found);
    return true;
}

// _tree_files's sources and targets of a tree walk.tree_names would find whole, all plain
// files, or None: `prefix` + each path under `top` and `out` + it (".cu" -> ".hip").
py::object list_tree(const py::str& top, const py::str& prefix, const py::str& out,
                     const std::vector<std::string>& suffixes) {
    const std::string root = encoded(top);
    const std::string before = encoded(prefix);
    const std::string after = encoded(out);
    std::vector<std::string> found;
    bool plain = false;
    {
        py::gil_scoped_release release;
        plain = !root.empty() && list_plain(root, suffixes, &found);
    }
    if (!plain) return py::none();
    py::list sources(found.size());
    py::list targets(found.size());
    for (std::size_t i = 0; i < found.size(); ++i) {
        std::string rel = found[i];
        py::object source = decoded(before + rel);
        PyList_SET_ITEM(sources.ptr(), static_cast<Py_ssize_t>(i), source.release().ptr());
        if (source_is_cu(rel)) rel.replace(rel.size() - 3, 3, ".hip");
        py::object target = decoded(after + rel);
        PyList_SET_ITEM(targets.ptr(), static_cast<Py_ssize_t>(i), target.release().ptr());
    }
    return py::make_tuple(std::move(sources), std::move(targets));
}

}  // namespace

void bind(py::module_& m) {
    m.def("translate_tree", &translate_tree, py::arg("sources"), py::arg("targets"),
          py::arg("table"), py::arg("options"), py::arg("max_bytes"), py::arg("threads"),
          py::arg("mirror"), py::arg("out_spelled"), py::arg("out_real"), py::arg("rename_cu"),
          py::arg("search_dirs"), py::arg("werror"), py::arg("quiet"), py::arg("stats"),
          py::arg("attempts"), py::arg("plain"),
          "A tree's files read, translated and written on C++ threads: ([None (Python does "
          "the file) or (shown, errors, warnings, report entry, stats, status, data)], "
          "[real path or None]); see cass_build/cli/tree_batch.py");
    m.def("list_tree", &list_tree, py::arg("top"), py::arg("prefix"), py::arg("out"),
          py::arg("suffixes"),
          "(sources, targets) of a tree of directories and plain files only, sorted as "
          "cli.walk.tree_names sorts them; None for any other tree (Python lists it)");
    m.def("py_float", &py_float, py::arg("x"), "repr(x), as the core writes it (for tests)");
    m.def(
        "json_string", [](const py::str& s) { return json_string(encoded(s)); }, py::arg("s"),
        "json.dumps(s), as the core writes it (for tests)");
}

}  // namespace cass_tree
