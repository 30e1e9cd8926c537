// See batch.hpp. Each function mirrors a Python function named there, on its
// common path only; where they could differ, this side says "not done".
#include "batch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cass_batch {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Python's bytes.strip() whitespace.
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' || c == '\x0c';
}

bool read_all(int fd, std::string* out) {
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) return true;
        out->append(buf, static_cast<std::size_t>(n));
    }
}

// Whether the rest of the file at `fd` is exactly `data`: read in pieces into the stack and
// compared as they come, no copy of the file. A short read of a regular file is its end,
// as read_source takes it: an unchanged output costs one read.
bool holds(int fd, std::string_view data) {
    char buf[1 << 16];
    std::size_t at = 0;
    for (;;) {
        const std::size_t want = std::min(sizeof buf, data.size() - at + 1);
        const ssize_t n = read(fd, buf, want);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        const auto got = static_cast<std::size_t>(n);
        if (got == 0) return at == data.size();
        if (got > data.size() - at || std::memcmp(buf, data.data() + at, got) != 0) return false;
        at += got;
        if (got < want && at == data.size()) return true;
    }
}

bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

bool is_dir(const std::string& path) {
    struct stat st{};
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Path.mkdir(parents=True, exist_ok=True).
bool make_dirs(const std::string& path) {
    if (mkdir(path.c_str(), 0777) == 0) return true;
    if (errno == ENOENT) {
        const std::size_t slash = path.find_last_of('/');
        if (slash == std::string::npos || slash == 0) return false;
        if (!make_dirs(path.substr(0, slash))) return false;
        if (mkdir(path.c_str(), 0777) == 0) return true;
    }
    return is_dir(path);
}

// Calls at(line, rest) for each line of `s` that starts with blanks, '#', blanks,
// "include", blanks and one of '<' '"' (`line`: the line's offset; `rest`: what follows
// the '<' or '"'), in order, until at() returns true. The '#'s are found with memchr:
// a file has far fewer of them than lines.
template <typename At>
void include_lines(std::string_view s, At at) {
    for (std::size_t hash = s.find('#'); hash != std::string_view::npos;
         hash = s.find('#', hash + 1)) {
        std::size_t line = hash;
        while (line > 0 && is_blank(s[line - 1])) --line;
        if (line > 0 && s[line - 1] != '\n') continue;  // not the line's first non-blank
        std::size_t q = hash + 1;
        while (q < s.size() && is_blank(s[q])) ++q;
        if (s.substr(q, 7) != "include") continue;
        q += 7;
        while (q < s.size() && is_blank(s[q])) ++q;
        if (q < s.size() && (s[q] == '<' || s[q] == '"') && at(line, s.substr(q + 1))) return;
    }
}

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::atomic<unsigned long long> counter{0};

// Whether linkat(fd, "", ..., AT_EMPTY_PATH) was refused once (it needs CAP_DAC_READ_SEARCH
// before Linux 6.10): then /proc/self/fd/N names the file instead.
std::atomic<bool> empty_path_refused{false};

// Gives the unnamed file `fd` the name `name` in `dir`; fails with EEXIST where it is taken.
bool link_unnamed(int fd, const Directory& dir, const std::string& name) {
    if (!empty_path_refused.load(std::memory_order_relaxed)) {
        if (linkat(fd, "", dir.fd, name.c_str(), AT_EMPTY_PATH) == 0) return true;
        if (errno != ENOENT && errno != EPERM) return false;
        empty_path_refused.store(true, std::memory_order_relaxed);
    }
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    return linkat(AT_FDCWD, self.c_str(), dir.fd, name.c_str(), AT_SYMLINK_FOLLOW) == 0;
}

// A new output (no file of its name there) written as an unnamed file in `dir`
// (O_TMPFILE) and then linked under its name: one name operation instead of a
// temporary's create and rename, and as atomic, as the name appears only once every
// byte is written. 0 written; 1 not written, nothing left behind (a write failed);
// -1 where this cannot be done (no O_TMPFILE on that file system, no linking it, or the
// name taken since it was listed): the caller writes it through a temporary file.
int write_new(const Directory& dir, const std::string& name, std::string_view data) {
#if defined(__linux__) && defined(O_TMPFILE)
    const int fd = openat(dir.fd, ".", O_WRONLY | O_TMPFILE | O_CLOEXEC, 0666);  // umask
    if (fd < 0) return -1;  // EOPNOTSUPP, EISDIR, EINVAL (no O_TMPFILE), or an error
    if (!write_all(fd, data)) {
        close(fd);  // unnamed: nothing is left
        return 1;
    }
    const bool linked = link_unnamed(fd, dir, name);
    // Closed after the link: the bytes are the file's once write() returns, so a reader
    // that opens the name at once reads them all.
    const bool closed = close(fd) == 0;
    if (!linked) return closed ? -1 : 1;
    if (!closed) {
        unlinkat(dir.fd, name.c_str(), 0);
        return 1;
    }
    return 0;
#else
    (void)dir;
    (void)name;
    (void)data;
    return -1;
#endif
}

}  // namespace

bool valid_utf8(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const unsigned char* end = p + s.size();
    while (p < end) {
#if defined(__SSE2__)
        // ASCII, 32 bytes at a time: source code is nearly all of it.
        while (end - p >= 32) {
            const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
            const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
            if (_mm_movemask_epi8(_mm_or_si128(a, b)) != 0) break;
            p += 32;
        }
#endif
        if (end - p >= 8) {  // ASCII, eight bytes at a time
            std::uint64_t w;
            std::memcpy(&w, p, 8);
            if ((w & 0x8080808080808080ULL) == 0) {
                p += 8;
                continue;
            }
        }
        const unsigned char c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        const auto cont = [&](std::ptrdiff_t k, unsigned char lo, unsigned char hi) {
            return end - p > k && p[k] >= lo && p[k] <= hi;
        };
        if (c >= 0xC2 && c <= 0xDF) {
            if (!cont(1, 0x80, 0xBF)) return false;
            p += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
            const unsigned char hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
            if (!cont(1, lo, hi) || !cont(2, 0x80, 0xBF)) return false;
            p += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
            const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing past U+10FFFF
            if (!cont(1, lo, hi) || !cont(2, 0x80, 0xBF) || !cont(3, 0x80, 0xBF)) return false;
            p += 4;
        } else {
            return false;
        }
    }
    return true;
}

bool read_source(const std::string& path, std::size_t max_bytes, std::string* out) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st{};
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
              static_cast<std::uint64_t>(st.st_size) <= max_bytes;
    if (ok) {
        // One read when the file has the size fstat saw, as _files._read_all.
        const auto size = static_cast<std::size_t>(st.st_size);
        out->resize(size + 1);
        ssize_t n;
        do {
            n = read(fd, out->data(), size + 1);
        } while (n < 0 && errno == EINTR);
        ok = n >= 0;
        if (ok) {
            out->resize(static_cast<std::size_t>(n));
            if (static_cast<std::size_t>(n) != size) ok = read_all(fd, out);
        }
    }
    close(fd);
    return ok && out->size() <= max_bytes && std::memchr(out->data(), 0, out->size()) == nullptr &&
           valid_utf8(*out);
}

std::vector<std::pair<std::string, bool>> include_directives(std::string_view s) {
    // #[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>), searched left to right, kept
    // where only blanks precede the '#' on its line.
    std::vector<std::pair<std::string, bool>> found;
    std::size_t pos = 0;
    while (pos < s.size()) {
        const std::size_t hash = s.find('#', pos);
        if (hash == std::string_view::npos) break;
        std::size_t q = hash + 1;
        while (q < s.size() && is_blank(s[q])) ++q;
        std::size_t end = std::string_view::npos;
        if (s.substr(q, 7) == "include") {
            q += 7;
            while (q < s.size() && is_blank(s[q])) ++q;
            if (q < s.size() && (s[q] == '"' || s[q] == '<')) {
                const char close = s[q] == '"' ? '"' : '>';
                std::size_t e = q + 1;
                while (e < s.size() && s[e] != close && s[e] != '\n') ++e;
                if (e < s.size() && s[e] == close && e > q + 1) end = e;
            }
        }
        if (end == std::string_view::npos) {
            pos = hash + 1;
            continue;
        }
        const std::size_t nl = s.rfind('\n', hash);
        const std::size_t line = nl == std::string_view::npos ? 0 : nl + 1;
        bool alone = true;
        for (std::size_t k = line; k < hash && alone; ++k) alone = is_blank(s[k]);
        if (alone) found.emplace_back(std::string(s.substr(q + 1, end - q - 1)), s[q] == '"');
        pos = end + 1;
    }
    return found;
}

void implicit_runtime(std::string* hip) {
    const std::string_view s = *hip;
    bool blank = true;
    for (const char c : s) {
        if (!is_space(c)) {
            blank = false;
            break;
        }
    }
    if (blank) return;
    // The first lines that match ^[ \t]*#[ \t]*include[ \t]*[<"]hip/hip_runtime(_api)?\.h[>"]
    // and ^[ \t]*#[ \t]*include[ \t]*[<"](hip|hipcub|hiprand|hipfft)/ (re.M), in one pass.
    std::size_t runtime = std::string_view::npos;
    std::size_t first_hip = std::string_view::npos;
    include_lines(s, [&](std::size_t line, std::string_view r) {
        if (first_hip == std::string_view::npos &&
            (starts(r, "hip/") || starts(r, "hipcub/") || starts(r, "hiprand/") ||
             starts(r, "hipfft/"))) {
            first_hip = line;
        }
        if (starts(r, "hip/hip_runtime")) {
            r.remove_prefix(15);
            if ((starts(r, "_api.h") && r.size() > 6 && (r[6] == '>' || r[6] == '"')) ||
                (starts(r, ".h") && r.size() > 2 && (r[2] == '>' || r[2] == '"'))) {
                runtime = line;
                return true;  // the first hip/ line is found by then: it is at most this one
            }
        }
        return false;
    });
    if (runtime != std::string_view::npos &&
        (first_hip == std::string_view::npos || first_hip >= runtime)) {
        return;
    }
    static constexpr std::string_view kBom = "\xef\xbb\xbf";
    const std::size_t at = starts(s, kBom) ? kBom.size() : 0;
    hip->insert(at, "#include <hip/hip_runtime.h>\n#line 1\n");
}

namespace {

// s.find("cass", from). Sixteen positions at a time where SSE2 is there: 'c' and 's' at
// offsets 0 and 3 compared at once, "as" checked where both hold (rare in code). glibc's
// memmem, which this replaces, hashes every pair of bytes on the way (four
// instructions a byte, a fifteenth of a tree run's core time).
std::size_t find_cass(std::string_view s, std::size_t from) {
    const char* const p = s.data();
    const std::size_t n = s.size();
    std::size_t i = from;
#if defined(__SSE2__)
    // Loads of 16 bytes at i + 3 stay in s while i + 19 <= n.
    for (; i + 19 <= n; i += 16) {
        const auto at = [&](std::size_t k) {
            return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + k));
        };
        const __m128i c = _mm_cmpeq_epi8(at(0), _mm_set1_epi8('c'));
        const __m128i s3 = _mm_cmpeq_epi8(at(3), _mm_set1_epi8('s'));
        auto hits = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(c, s3)));
        while (hits != 0) {
            const std::size_t k = i + static_cast<std::size_t>(__builtin_ctz(hits));
            if (p[k + 1] == 'a' && p[k + 2] == 's') return k;
            hits &= hits - 1;
        }
    }
#endif
    for (; i + 4 <= n; ++i) {
        if (p[i] == 'c' && p[i + 1] == 'a' && p[i + 2] == 's' && p[i + 3] == 's') return i;
    }
    return std::string_view::npos;
}

bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

constexpr std::string_view kCompat[][2] = {
    {"fp16", "__cass_fp16_"}, {"bf16", "__cass_bf16_"}, {"runtime", "__cass_rt_"}};

// The header a line's ^[ \t]*#[ \t]*include[ \t]*[<"]cass/NAME\.h[>"] includes (NAME one of
// rules._CASS_INCLUDE's), or "" when the line at `line` is no such include.
std::string_view cass_include(std::string_view s, std::size_t line) {
    static constexpr std::string_view kNames[] = {"warp", "cooperative_groups", "fp16", "bf16",
                                                  "runtime"};
    std::size_t q = line;
    while (q < s.size() && is_blank(s[q])) ++q;
    if (q >= s.size() || s[q] != '#') return {};
    ++q;
    while (q < s.size() && is_blank(s[q])) ++q;
    if (!starts(s.substr(q), "include")) return {};
    q += 7;
    while (q < s.size() && is_blank(s[q])) ++q;
    if (q >= s.size() || (s[q] != '<' && s[q] != '"') || !starts(s.substr(q + 1), "cass/")) {
        return {};
    }
    const std::string_view rest = s.substr(q + 6);
    for (const std::string_view name : kNames) {
        if (starts(rest, name) && starts(rest.substr(name.size()), ".h") &&
            rest.size() > name.size() + 2 &&
            (rest[name.size() + 2] == '>' || rest[name.size() + 2] == '"')) {
            return name;
        }
    }
    return {};
}

// What rules.warp_include asks of a text, from one pass over it: every "cass" in it is
// either part of a __cass_ name (rules._names, _warp_names: a use where it starts a word)
// or of a cass/ include (rules._cass_includes: the pattern tried where a line names
// cass/), or neither. One search instead of one per name: most outputs of a tree that
// uses warps name some __cass_ operation, and each search is a pass over the output.
struct CassUses {
    bool any = false;                        // a __cass_ name
    bool warp = false;                       // one of the logical-warp operations
    bool cg = false;                         // __cass_cg, the whole word
    bool compat[3] = {false, false, false};  // kCompat's prefixes
    std::vector<std::string_view> included;  // the CASS headers included already
};

CassUses cass_uses(std::string_view s) {
    CassUses u;
    std::size_t checked_line = std::string_view::npos;  // a line's include is read once
    for (std::size_t at = find_cass(s, 0); at != std::string_view::npos;
         at = find_cass(s, at + 1)) {
        if (at + 4 < s.size() && s[at + 4] == '/') {
            const std::size_t nl = at == 0 ? std::string_view::npos : s.rfind('\n', at - 1);
            const std::size_t line = nl == std::string_view::npos ? 0 : nl + 1;
            if (line != checked_line) {
                checked_line = line;
                const std::string_view header = cass_include(s, line);
                if (!header.empty()) u.included.push_back(header);
            }
            continue;
        }
        // "__cass_" at at - 2, starting a word.
        if (at < 2 || s.substr(at - 2, 7) != "__cass_") continue;
        const std::size_t begin = at - 2;
        if (begin != 0 && is_word(s[begin - 1])) continue;
        u.any = true;
        const std::string_view use = s.substr(begin);
        bool compat = false;
        for (std::size_t k = 0; k < 3; ++k) {
            if (starts(use, kCompat[k][1])) compat = u.compat[k] = true;
        }
        if (!compat) u.warp = true;
        if (starts(use, "__cass_cg") && (use.size() == 9 || !is_word(use[9]))) u.cg = true;
    }
    return u;
}

// rules.warp_include on s.substr(from), in place.
void warp_include(std::string* hip, std::size_t from) {
    const std::string_view s = std::string_view(*hip).substr(from);
    const CassUses u = cass_uses(s);
    if (!u.any) return;
    const auto has = [&](std::string_view h) {
        return std::find(u.included.begin(), u.included.end(), h) != u.included.end();
    };
    std::vector<std::string_view> headers;
    if (u.warp) {
        const std::string_view header = u.cg ? "cooperative_groups" : "warp";
        if (!has("cooperative_groups") && !has(header)) headers.push_back(header);
    }
    for (std::size_t k = 0; k < 3; ++k) {
        if (!has(kCompat[k][0]) && u.compat[k]) headers.push_back(kCompat[k][0]);
    }
    if (headers.empty()) return;
    static constexpr std::string_view kBom = "\xef\xbb\xbf";
    std::string lines;
    for (const std::string_view h : headers) {
        lines.append("#include <cass/").append(h).append(".h>\n");
    }
    lines.append("#line 1\n");
    hip->insert(from + (starts(s, kBom) ? kBom.size() : 0), lines);
}

std::string real(const std::string& path) {
    char* r = ::realpath(path.c_str(), nullptr);
    if (r == nullptr) return {};
    std::string out(r);
    std::free(r);
    return out;
}

}  // namespace

void warp_header(std::string* hip) {
    static constexpr std::string_view kBom = "\xef\xbb\xbf";
    static constexpr std::string_view kPrologue = "#include <hip/hip_runtime.h>\n#line 1\n";
    std::size_t from = starts(*hip, kBom) ? kBom.size() : 0;
    if (starts(std::string_view(*hip).substr(from), kPrologue)) from += kPrologue.size();
    warp_include(hip, from);
}

std::string RealDirs::get(const std::string& dir) {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto it = known_.find(dir);
        if (it != known_.end()) return it->second;
    }
    std::string r = real(dir);
    const std::lock_guard<std::mutex> lock(mutex_);
    known_.emplace(dir, r);
    return r;
}

bool RealDirs::no_directory(const std::string& dir) {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto it = absent_.find(dir);
        if (it != absent_.end()) return it->second;
    }
    struct stat st{};
    bool absent = false;
    if (stat(dir.c_str(), &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) return false;  // not known: look each time
        absent = true;
    } else {
        absent = !S_ISDIR(st.st_mode);
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    absent_.emplace(dir, absent);
    return absent;
}

namespace {

// real(path) for a path whose last part is no symlink (nor "." or ".."): its directory's
// real path, joined with that part.
std::string under_real_dir(const std::string& path, RealDirs* dirs) {
    const std::size_t slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : path.substr(0, slash);
    const std::string r = dirs != nullptr ? dirs->get(dir) : real(dir);
    if (r.empty()) return {};
    return (r == "/" ? "" : r) + "/" + path.substr(slash == std::string::npos ? 0 : slash + 1);
}

}  // namespace

std::string real_of_plain(const std::string& path, RealDirs* dirs) {
    return under_real_dir(path, dirs);
}

std::string real_path(const std::string& path, RealDirs* dirs) {
    struct stat st{};
    if (lstat(path.c_str(), &st) != 0) return {};
    if (S_ISLNK(st.st_mode)) return real(path);
    return under_real_dir(path, dirs);
}

std::string resolve_here(const std::string& here, const std::string& name, RealDirs* dirs) {
    // Path(here) / name drops a trailing '/' and "." parts and squeezes "//": names
    // with those are left to Python, as is anything realpath cannot answer.
    if (name.empty() || name.back() == '/' || name.find("//") != std::string::npos || name == "." ||
        name.find("/./") != std::string::npos || name.compare(0, 2, "./") == 0 ||
        (name.size() >= 2 && name.compare(name.size() - 2, 2, "/.") == 0)) {
        return "?";
    }
    const std::string candidate = name[0] == '/' ? name : here + "/" + name;
    struct stat st{};
    const std::size_t first = name.find('/');
    if (dirs != nullptr && name[0] != '/' && first != std::string::npos &&
        dirs->no_directory(here + "/" + name.substr(0, first))) {
        return "";  // the walk to it would stop there, with ENOENT or ENOTDIR
    }
    const std::size_t slash = candidate.find_last_of('/');
    const std::string_view last = std::string_view(candidate).substr(slash + 1);
    if (dirs != nullptr && last != "..") {
        if (lstat(candidate.c_str(), &st) != 0) {
            // No entry at all: stat() would say the same.
            return errno == ENOENT || errno == ENOTDIR ? "" : "?";
        }
        if (S_ISREG(st.st_mode)) {
            // A plain file, no symlink: realpath() would only resolve its directory.
            const std::string r = under_real_dir(candidate, dirs);
            return r.empty() ? "?" : r;
        }
    }
    if (stat(candidate.c_str(), &st) != 0) return errno == ENOENT || errno == ENOTDIR ? "" : "?";
    if (!S_ISREG(st.st_mode)) return "";
    const std::string r = real(candidate);
    return r.empty() ? "?" : r;
}

Directory open_directory(const std::string& path) {
    Directory d;
    const int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    d.fd = open(path.c_str(), flags);
    if (d.fd < 0 && errno == ENOENT && make_dirs(path)) d.fd = open(path.c_str(), flags);
    if (d.fd < 0) return d;
    char buf[4096];
    const std::string link = "/proc/self/fd/" + std::to_string(d.fd);
    const ssize_t n = readlink(link.c_str(), buf, sizeof buf);
    if (n > 0 && static_cast<std::size_t>(n) < sizeof buf) d.real.assign(buf, buf + n);
    return d;
}

int write_if_changed(const Directory& dir, const std::string& name, std::string_view data,
                     const std::unordered_set<std::string>& inputs, bool absent) {
    if (dir.fd < 0 || name.empty() || name == "." || name == "..") return 2;
    struct stat old{};
    bool replacing = false;
    if (!absent) {
        // One open that does not follow a symlink: the file it finds is the one renamed
        // over, so its fstat is the lstat of the output.
        const int old_fd =
            openat(dir.fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (old_fd >= 0) {
            replacing = fstat(old_fd, &old) == 0;
            // Unchanged bytes keep their file (and its timestamp).
            const bool same = replacing && S_ISREG(old.st_mode) &&
                              static_cast<std::size_t>(old.st_size) == data.size() &&
                              holds(old_fd, data);
            close(old_fd);
            if (same) return 1;
            if (!replacing) return 2;
        } else if (errno == ELOOP) {
            return 2;                  // a symlinked output: resolved the long way, in Python
        } else if (errno != ENOENT) {  // there, but not readable: what is it?
            if (fstatat(dir.fd, name.c_str(), &old, AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno != ENOENT) return 2;
            } else if (S_ISLNK(old.st_mode)) {
                return 2;
            } else {
                replacing = true;
            }
        }
    }
    if (!inputs.empty()) {
        if (dir.real.empty() || dir.real[0] != '/') return 2;
        const std::string full = dir.real == "/" ? "/" + name : dir.real + "/" + name;
        if (inputs.count(full) != 0) return 2;  // Python refuses it, with its message
    }
    if (!replacing) {
        const int linked = write_new(dir, name, data);
        if (linked >= 0) return linked == 0 ? 0 : 2;
    }
    // A name no Python writer uses (theirs count without the 'b'), so no collision.
    const std::string tmp = "." + name + "." + std::to_string(getpid()) + ".b" +
                            std::to_string(counter.fetch_add(1)) + ".tmp";
    const int fd =
        openat(dir.fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // umask
    if (fd < 0) return 2;
    bool ok = write_all(fd, data);
    if (ok && replacing) ok = fchmod(fd, old.st_mode & 07777) == 0;  // keeps its mode
    ok = close(fd) == 0 && ok;
    ok = ok && renameat(dir.fd, tmp.c_str(), dir.fd, name.c_str()) == 0;
    if (!ok) {
        unlinkat(dir.fd, tmp.c_str(), 0);
        return 2;
    }
    return 0;
}

}  // namespace cass_batch
