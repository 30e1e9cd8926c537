// The file work of a batch translation (cass translate DIR --verify none), done on
// C++ threads without the GIL: reading a source, the include directives it names,
// nvcc's implicit runtime include, and writing an output only when it changed.
//
// Each function does only the common case. Anything unusual (a read or write error,
// a file too big, binary or not UTF-8, a symlinked output, an output that is an
// input) is answered "not done", with nothing changed, so that the Python code
// (cass_build._files) does that file itself, with its own checks and messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace cass_batch {

// A source's bytes when it is a regular file of at most `max_bytes` bytes of UTF-8
// text without NUL bytes (cass_build._files.read_source); false otherwise.
bool read_source(const std::string& path, std::size_t max_bytes, std::string* out);

// Python's strict UTF-8 decoder's verdict (no surrogates, no overlong forms).
bool valid_utf8(std::string_view s);

// The (name, quoted) of every #include directive the regular expression of
// cass_build.pipeline.includes finds, in order.
std::vector<std::pair<std::string, bool>> include_directives(std::string_view text);

// chain.real_path: the file's real directory joined with its name, or the file's
// real path when it is a symlink; "" when that cannot be told (Python then asks).
struct RealDirs;
std::string real_path(const std::string& path, RealDirs* dirs = nullptr);

// real_path of a path known to be no symlink (from a listing of its directory): no
// system call of its own, its directory's real path being looked up once per batch.
std::string real_of_plain(const std::string& path, RealDirs* dirs);

// includes._resolve for a quoted name in the directory `here` alone: the real path of
// here/name when that is a file, "" when it is not, "?" when Python must decide.
std::string resolve_here(const std::string& here, const std::string& name,
                         RealDirs* dirs = nullptr);

// The real paths of directories, looked up once per batch for all its threads: a
// tree's files share a few directories, and realpath() costs a readlink per component.
struct RealDirs {
    std::string get(const std::string& dir);  // realpath(dir), "" when it fails
    // Whether `dir` is known to be no directory (missing, or a file): then no path under
    // it names a file. A tree's sources include many headers from a few subdirectories
    // that are not beside them (meant for -I), and each such look costs a path walk.
    bool no_directory(const std::string& dir);

private:
    std::mutex mutex_;
    std::unordered_map<std::string, std::string> known_;
    std::unordered_map<std::string, bool> absent_;
};

// cass_build.pipeline.strategies.implicit_runtime for a .cu file: the output with
// "#include <hip/hip_runtime.h>\n#line 1\n" in front where it needs one.
void implicit_runtime(std::string* hip);

// tree_batch._with_warp_header: rules.warp_include on the output after its runtime
// include (where implicit_runtime put one), i.e. the #include lines of the CASS headers
// whose __cass_ operations the output calls, as strategies.RulesStrategy adds them.
void warp_header(std::string* hip);

// One output directory, opened once for all the files written into it.
struct Directory {
    int fd = -1;       // O_PATH, or -1: its files go to Python
    std::string real;  // its real path, from the kernel ("" when unknown)
};

// Opens `path` (creating it and its parents where missing, as Path.mkdir does).
Directory open_directory(const std::string& path);

// write_if_changed's fast path in `dir`: 1 when the file already holds `data`,
// 0 when it was written (a new file linked into place, or a temporary file renamed
// over the old one), 2 when it was not done (the caller writes it), with nothing left
// behind. `absent`: the caller knows that no file of that name is there (from a
// listing of the directory).
int write_if_changed(const Directory& dir, const std::string& name, std::string_view data,
                     const std::unordered_set<std::string>& inputs, bool absent = false);

}  // namespace cass_batch
