// pybind11 bindings of the C++ core as cass_build._core.
//
// The table crosses once, as Entry objects; translate() takes and returns bytes
// and releases the GIL while it works, so a thread pool translates in parallel.
// cass::Options and cass::Entry are bound as types with named fields, so no
// caller depends on an argument's position.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "batch.hpp"
#include "cass/lexer.hpp"
#include "cass/rewriter.hpp"
#include "cass/table.hpp"
#include "parallel.hpp"
#include "tree.hpp"
#include "warp_header.hpp"

namespace py = pybind11;

namespace {

std::shared_ptr<cass::Table> make_table(
    std::vector<cass::Entry> entries,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& families) {
    std::vector<cass::Family> fams;
    for (const auto& [name, prefixes] : families) fams.push_back(cass::Family{name, prefixes});
    return std::make_shared<cass::Table>(std::move(entries), std::move(fams));
}

// Table.from_rows: the cached rows (rules._ENTRY_FIELDS order) straight into Entries,
// without a Python Entry object per row (a tenth of a tree run's CPU before).
std::shared_ptr<cass::Table> table_from_rows(
    const py::list& rows,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& families) {
    std::vector<cass::Entry> entries;
    entries.reserve(rows.size());
    const auto text = [](PyObject* t, Py_ssize_t i) {
        Py_ssize_t n = 0;
        const char* c = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(t, i), &n);
        if (c == nullptr) throw py::error_already_set();
        return std::string(c, static_cast<std::size_t>(n));
    };
    const auto number = [](PyObject* t, Py_ssize_t i) {
        const long v = PyLong_AsLong(PyTuple_GET_ITEM(t, i));
        if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
        return v;
    };
    for (const py::handle& row : rows) {
        PyObject* t = row.ptr();
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 14) {
            throw py::type_error("a row is a 14-tuple in rules._ENTRY_FIELDS order");
        }
        cass::Entry e;
        e.cuda = text(t, 0);
        e.hip = text(t, 1);
        e.legacy = text(t, 2);
        e.note = text(t, 3);
        e.kind = static_cast<cass::Kind>(number(t, 4));
        e.status = static_cast<cass::Status>(number(t, 5));
        e.rewrite = static_cast<cass::Rewrite>(number(t, 6));
        e.match = static_cast<cass::Match>(number(t, 7));
        e.family = static_cast<std::uint16_t>(number(t, 8));
        e.arg = static_cast<std::int16_t>(number(t, 9));
        e.since = static_cast<std::uint32_t>(number(t, 10));
        e.alt = text(t, 11);
        e.warp = text(t, 12);
        e.legacy_note = text(t, 13);
        entries.push_back(std::move(e));
    }
    return make_table(std::move(entries), families);
}

// The table as one flat byte string (rules.core_table caches it): every build step is a
// process of its own, and building 8000 Entry objects from Python rows costs more than
// the translation of a small file. Layout: "CASSTBL2", then counts and fields in host
// byte order, strings as u32 length + bytes.
constexpr std::string_view kPackMagic = "CASSTBL2";

template <typename T>
void put(std::string& out, T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_str(std::string& out, const std::string& s) {
    put<std::uint32_t>(out, static_cast<std::uint32_t>(s.size()));
    out += s;
}

struct Reader {
    std::string_view data;
    std::size_t at = 0;
    void need(std::size_t n) const {
        if (data.size() - at < n) throw py::value_error("packed CASS table is truncated");
    }
    template <typename T>
    T get() {
        need(sizeof(T));
        T v;
        std::memcpy(&v, data.data() + at, sizeof v);
        at += sizeof v;
        return v;
    }
    std::string str() {
        const auto n = get<std::uint32_t>();
        need(n);
        std::string s(data.substr(at, n));
        at += n;
        return s;
    }
};

py::bytes pack_table(
    const std::vector<cass::Entry>& entries,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& families) {
    std::string out(kPackMagic);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(entries.size()));
    for (const cass::Entry& e : entries) {
        for (const std::string* s :
             {&e.cuda, &e.hip, &e.legacy, &e.note, &e.alt, &e.warp, &e.legacy_note})
            put_str(out, *s);
        put(out, static_cast<std::uint8_t>(e.kind));
        put(out, static_cast<std::uint8_t>(e.status));
        put(out, static_cast<std::uint8_t>(e.rewrite));
        put(out, static_cast<std::uint8_t>(e.match));
        put(out, e.family);
        put(out, e.arg);
        put(out, e.since);
    }
    put<std::uint32_t>(out, static_cast<std::uint32_t>(families.size()));
    for (const auto& [name, prefixes] : families) {
        put_str(out, name);
        put<std::uint32_t>(out, static_cast<std::uint32_t>(prefixes.size()));
        for (const std::string& p : prefixes) put_str(out, p);
    }
    return py::bytes(out);
}

// The GIL released: the command starts the table on a thread while it lists the tree.
std::shared_ptr<cass::Table> unpack_table(const py::bytes& packed) {
    Reader r{std::string_view(packed)};  // borrowed from the bytes, which outlive the call
    py::gil_scoped_release release;
    r.need(kPackMagic.size());
    if (r.data.substr(0, kPackMagic.size()) != kPackMagic)
        throw py::value_error("not a packed CASS table");
    r.at = kPackMagic.size();
    std::vector<cass::Entry> entries(r.get<std::uint32_t>());
    for (cass::Entry& e : entries) {
        for (std::string* s :
             {&e.cuda, &e.hip, &e.legacy, &e.note, &e.alt, &e.warp, &e.legacy_note})
            *s = r.str();
        e.kind = static_cast<cass::Kind>(r.get<std::uint8_t>());
        e.status = static_cast<cass::Status>(r.get<std::uint8_t>());
        e.rewrite = static_cast<cass::Rewrite>(r.get<std::uint8_t>());
        e.match = static_cast<cass::Match>(r.get<std::uint8_t>());
        e.family = r.get<std::uint16_t>();
        e.arg = r.get<std::int16_t>();
        e.since = r.get<std::uint32_t>();
    }
    std::vector<cass::Family> fams(r.get<std::uint32_t>());
    for (cass::Family& f : fams) {
        f.name = r.str();
        f.prefixes.resize(r.get<std::uint32_t>());
        for (std::string& p : f.prefixes) p = r.str();
    }
    if (r.at != r.data.size()) throw py::value_error("packed CASS table has trailing bytes");
    return std::make_shared<cass::Table>(std::move(entries), std::move(fams));
}

void check_size(std::string_view src) {
    if (src.size() >= 0xFFFFFFF0ULL) throw std::length_error("source too large for CASS (4 GiB)");
}

py::tuple translate(const py::bytes& source, const cass::Table& table, const cass::Options& opt) {
    std::string_view src = source;  // borrowed from the bytes object, which outlives the call
    check_size(src);
    cass::Result r;
    {
        py::gil_scoped_release release;
        r = cass::translate(src, table, opt);
    }
    py::list diags;
    for (const auto& d : r.diagnostics) {
        diags.append(
            py::make_tuple(d.line, d.column, static_cast<int>(d.severity), d.rule, d.message));
    }
    py::list fams;
    for (const auto& f : r.stats.families) fams.append(py::make_tuple(f.converted, f.unconverted));
    return py::make_tuple(py::bytes(r.text), diags, fams, r.stats.lines);
}

// translate() with the edits it made: (text, [(begin, end, out_begin, out_end)]),
// for tests that check what a translation changed.
py::tuple translate_edits(const py::bytes& source, const cass::Table& table,
                          const cass::Options& options) {
    std::string_view src = source;  // borrowed from the bytes object, which outlives the call
    check_size(src);
    cass::Options opt = options;
    opt.record_edits = true;
    cass::Result r;
    {
        py::gil_scoped_release release;
        r = cass::translate(src, table, opt);
    }
    py::list edits;
    for (const auto& e : r.edits)
        edits.append(py::make_tuple(e.begin, e.end, e.out_begin, e.out_end));
    return py::make_tuple(py::bytes(r.text), edits);
}

// A new reference to a str decoded from core text (messages may quote source bytes).
PyObject* new_str(const std::string& s) {
    PyObject* o =
        PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
    if (o == nullptr) throw py::error_already_set();
    return o;
}

// The Diagnostic instances of `r` (see translate_result). Equal messages and lines
// in a row share one str and one int: a file can carry a warning per kernel, most of
// them saying the same thing, and each object of its own is memory the API never
// needed (the objects are immutable, so sharing them changes nothing a caller sees).
py::list diagnostics(const cass::Result& r, const py::str& path, PyTypeObject* type,
                     const py::tuple& severities) {
    py::list diags(r.diagnostics.size());
    std::vector<std::pair<std::string_view, py::object>>
        rules;  // "inline-ptx" -> "cass-inline-ptx"
    // The last few distinct messages, by slot: a hazard's messages alternate by kind.
    constexpr std::size_t kRecent = 8;
    std::array<std::pair<const std::string*, py::object>, kRecent> recent{};
    std::size_t next_slot = 0;
    const auto message = [&](const std::string& m) {
        for (const auto& [text, object] : recent) {
            if (text != nullptr && *text == m) return object;
        }
        py::object made = py::reinterpret_steal<py::object>(new_str(m));
        recent[next_slot] = {&m, made};
        next_slot = (next_slot + 1) % kRecent;
        return made;
    };
    py::object line;
    std::uint32_t line_value = 0;
    for (std::size_t k = 0; k < r.diagnostics.size(); ++k) {
        const cass::Diagnostic& d = r.diagnostics[k];
        py::object rule;
        for (const auto& [name, object] : rules) {
            if (name == d.rule) rule = object;
        }
        if (!rule) {
            rule = py::reinterpret_steal<py::object>(new_str(std::string("cass-").append(d.rule)));
            rules.emplace_back(d.rule, rule);
        }
        if (!line || d.line != line_value) {
            line = py::int_(d.line);
            line_value = d.line;
        }
        py::object items[6] = {
            path,
            line,
            py::int_(d.column),
            severities[static_cast<std::size_t>(d.severity) % 3],
            rule,
            message(d.message),
        };
        PyObject* t = type->tp_alloc(type, 6);
        if (t == nullptr) throw py::error_already_set();
        for (Py_ssize_t i = 0; i < 6; ++i) PyTuple_SET_ITEM(t, i, items[i].release().ptr());
        // Only strings and ints inside: no cycle can run through it, so the
        // collector need not walk it (CPython untracks such tuples itself, later).
        PyObject_GC_UnTrack(t);
        PyList_SET_ITEM(diags.ptr(), static_cast<Py_ssize_t>(k), t);
    }
    return diags;
}

// The (family, converted, unconverted) of the families with references.
py::list family_counts(const cass::Result& r) {
    py::list fams;
    for (std::size_t f = 0; f < r.stats.families.size(); ++f) {
        const cass::FamilyStats& c = r.stats.families[f];
        if (c.converted != 0 || c.unconverted != 0) {
            fams.append(py::make_tuple(f, c.converted, c.unconverted));
        }
    }
    return fams;
}

PyTypeObject* diagnostic_class(const py::type& diagnostic_type, const py::tuple& severities) {
    auto* type = reinterpret_cast<PyTypeObject*>(diagnostic_type.ptr());
    if (!PyType_IsSubtype(type, &PyTuple_Type) || type->tp_basicsize != PyTuple_Type.tp_basicsize ||
        type->tp_itemsize != PyTuple_Type.tp_itemsize || severities.size() != 3) {
        throw py::type_error("diagnostic_type must be a NamedTuple class; severities 3 strings");
    }
    return type;
}

// Whether a str has its compact form (always, from Python 3.12 on).
bool unicode_ready(PyObject* o) {
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_IS_READY(o) != 0;
#else
    (void)o;
    return true;
#endif
}

// The bytes of a source handed over as bytes, or as a str that is ASCII: such a str
// keeps its characters as one byte each, which are its UTF-8, so the core reads them
// where they are instead of from an encoded copy (a str that is not ASCII would make
// CPython build and keep a UTF-8 copy inside the str: the caller encodes that one).
std::string_view source_bytes(const py::handle& source) {
    PyObject* o = source.ptr();
    if (PyBytes_Check(o)) {
        return {PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o))};
    }
    if (PyUnicode_Check(o) && unicode_ready(o) && PyUnicode_IS_ASCII(o)) {
        return {static_cast<const char*>(PyUnicode_DATA(o)),
                static_cast<std::size_t>(PyUnicode_GET_LENGTH(o))};
    }
    throw py::type_error("source must be bytes, or a str of ASCII characters only");
}

// Asks the kernel for the pages of [p, p + n) in one call, before they are written:
// a fresh large buffer otherwise takes a page fault per 4 KiB page, each costing
// more than filling the page (bench/reports/scaling.md). A hint: failure changes nothing.
void prefault(char* p, std::size_t n) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    constexpr std::size_t kMin = std::size_t{1} << 20;  // below this, faults are few
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    if (n < kMin || page == 0) return;
    const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(page - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

// rules.warp_include done on the output where it lies: `text` has room for
// kWarpHeaderMax bytes after the `size` it holds, so the header's lines go in front by
// moving the output up in its own (already written) pages, not by a second copy.
// Returns the length of the output with its header.
std::size_t put_warp_header(char* text, std::size_t size) {
    const std::string_view out(text, size);
    const std::string lines = cass_py::warp_header_lines(out);
    if (lines.empty()) return size;
    if (lines.size() > cass_py::kWarpHeaderMax) throw std::logic_error("warp header over its room");
    const std::size_t at = cass_py::bom_length(out);
    std::memmove(text + at + lines.size(), text + at, size - at);
    std::memcpy(text + at, lines.data(), lines.size());
    return size + lines.size();
}

// translate(), with the diagnostics built as instances of `diagnostic_type`
// (cass_build.diagnostics.Diagnostic: path, line, column, severity, rule,
// message) and only the families with references in the stats, as
// (index, converted, unconverted). A file can carry hundreds of diagnostics, so
// they are built here, the way CPython builds instances of tuple subclasses,
// rather than by a call back into Python for each. `source` is bytes or an ASCII
// str (source_bytes); with `warp_header`, the output gets rules.warp_include's lines.
py::tuple translate_result(const py::object& source, const cass::Table& table,
                           const cass::Options& opt, const py::str& path,
                           const py::type& diagnostic_type, const py::tuple& severities,
                           cass::Workspace* workspace, bool warp_header) {
    PyTypeObject* type = diagnostic_class(diagnostic_type, severities);
    std::string_view src = source_bytes(source);  // borrowed: `source` outlives the call
    check_size(src);
    cass::Result r;
    PyObject* text = nullptr;  // owned; a bytes object no Python code has seen yet
    std::size_t size = 0;
    const std::size_t room = warp_header ? cass_py::kWarpHeaderMax : 0;
    try {
        py::gil_scoped_release release;
        // The output goes straight into the bytes object returned, allocated
        // (with the GIL) once its size is known.
        const cass::OutputBuffer output = [&](std::size_t n) {
            {
                py::gil_scoped_acquire acquire;
                text = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(n + room));
                if (text == nullptr) throw py::error_already_set();
            }
            size = n;
            prefault(PyBytes_AS_STRING(text), n);
            return PyBytes_AS_STRING(text);
        };
        r = workspace != nullptr ? cass::translate(src, table, opt, output, *workspace)
                                 : cass::translate(src, table, opt, output);
        if (text == nullptr) throw std::logic_error("the core wrote no output");
        if (warp_header) size = put_warp_header(PyBytes_AS_STRING(text), size);
    } catch (...) {
        Py_XDECREF(text);
        throw;
    }
    // Gives back the room the header did not use: a realloc that shrinks in place.
    if (room != 0 && _PyBytes_Resize(&text, static_cast<Py_ssize_t>(size)) != 0)
        throw py::error_already_set();
    py::bytes data = py::reinterpret_steal<py::bytes>(text);
    py::list diags = diagnostics(r, path, type, severities);
    return py::make_tuple(std::move(data), std::move(diags), family_counts(r), r.stats.lines);
}

py::list tokens(const py::bytes& source) {
    std::string_view src = source;
    py::list out;
    for (const auto& t : cass::lex(src)) {
        out.append(py::make_tuple(t.begin, t.end, static_cast<int>(t.kind), t.flags));
    }
    return out;
}

// A str as the bytes the OS sees (os.fsencode).
std::string fs_bytes(const py::handle& path) {
    PyObject* b = PyUnicode_EncodeFSDefault(path.ptr());
    if (b == nullptr) throw py::error_already_set();
    std::string out(PyBytes_AS_STRING(b), static_cast<std::size_t>(PyBytes_GET_SIZE(b)));
    Py_DECREF(b);
    return out;
}

using cass_py::parallel;

struct FileJob {
    std::string path;
    bool runtime = false;
    bool ok = false;
    bool blank = false;
    std::size_t size = 0;
    std::string text;
    cass::Result result;
    std::vector<std::pair<std::string, bool>> includes;
    std::vector<std::string> resolved;  // per include: a real path, "" none, "?" ask Python
    std::string real;                   // "" when Python must find it
    double seconds = 0;
};

// A new reference to a str decoded from a path's bytes (os.fsdecode).
PyObject* new_path(const std::string& s) {
    PyObject* o = PyUnicode_DecodeFSDefaultAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
    if (o == nullptr) throw py::error_already_set();
    return o;
}

// Many sources read and translated on C++ threads, the GIL released (the directory
// path of cass translate). For each path: None where Python must do that file
// itself (see batch.hpp), else (text, diagnostics, family counts, lines, size,
// blank, [(include name, quoted, its real path or "" when not beside the file or None
// when Python must look)], seconds, the file's real path or None).
py::list translate_files(const py::list& paths, const std::vector<bool>& runtime,
                         const cass::Table& table, const cass::Options& opt, std::size_t max_bytes,
                         int threads, const py::type& diagnostic_type,
                         const py::tuple& severities) {
    PyTypeObject* type = diagnostic_class(diagnostic_type, severities);
    const std::size_t n = paths.size();
    if (runtime.size() != n) throw py::value_error("paths and runtime differ in length");
    std::vector<FileJob> jobs(n);
    for (std::size_t i = 0; i < n; ++i) {
        jobs[i].path = fs_bytes(paths[i]);
        jobs[i].runtime = runtime[i];
    }
    cass_batch::RealDirs real_dirs;
    {
        py::gil_scoped_release release;
        parallel(n, threads, [&](std::size_t i, cass::Workspace& workspace) {
            FileJob& job = jobs[i];
            const auto start = std::chrono::steady_clock::now();
            std::string src;
            if (!cass_batch::read_source(job.path, max_bytes, &src) ||
                src.size() >= 0xFFFFFFF0ULL) {
                return;
            }
            job.size = src.size();
            job.blank = std::all_of(src.begin(), src.end(), [](char c) {
                return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' ||
                       c == '\x0c';
            });
            try {
                job.includes = cass_batch::include_directives(src);
                job.real = cass_batch::real_path(job.path, &real_dirs);
                const std::size_t slash = job.real.find_last_of('/');
                const std::string here =
                    slash == std::string::npos ? "" : job.real.substr(0, slash == 0 ? 1 : slash);
                for (const auto& [name, quoted] : job.includes) {
                    job.resolved.push_back(quoted && !here.empty()
                                               ? cass_batch::resolve_here(here, name, &real_dirs)
                                               : std::string("?"));
                }
                std::string& out = job.text;
                job.result = cass::translate(
                    src, table, opt,
                    [&out](std::size_t size) {
                        out.resize(size);
                        return out.data();
                    },
                    workspace);
                if (job.runtime) cass_batch::implicit_runtime(&out);
                cass_batch::warp_header(&out);
            } catch (const std::exception&) {
                return;  // Python translates it again, and reports what went wrong
            }
            job.seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            job.ok = true;
        });
    }
    py::list out(n);
    for (std::size_t i = 0; i < n; ++i) {
        FileJob& job = jobs[i];
        py::object item = py::none();
        if (job.ok) {
            py::list includes;
            for (std::size_t k = 0; k < job.includes.size(); ++k) {
                const std::string& r = job.resolved[k];
                py::object where =
                    r == "?" ? py::none() : py::reinterpret_steal<py::object>(new_path(r));
                includes.append(py::make_tuple(py::bytes(job.includes[k].first),
                                               job.includes[k].second, where));
            }
            py::object real = job.real.empty()
                                  ? py::none()
                                  : py::reinterpret_steal<py::object>(new_path(job.real));
            const py::str path = py::reinterpret_borrow<py::str>(paths[i]);
            item =
                py::make_tuple(py::bytes(job.text), diagnostics(job.result, path, type, severities),
                               family_counts(job.result), job.result.stats.lines, job.size,
                               job.blank, std::move(includes), job.seconds, real);
        }
        PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), item.release().ptr());
        job = FileJob{};  // frees the file's memory as its result is made
    }
    return out;
}

// _files.write_if_changed for many outputs on C++ threads: for each, 1 unchanged,
// 0 written, 2 not done (Python writes it: an error, a symlink, an input).
std::vector<int> write_files(const py::list& targets, const py::list& datas, const py::list& inputs,
                             int threads) {
    const std::size_t n = targets.size();
    if (datas.size() != n) throw py::value_error("targets and datas differ in length");
    std::vector<py::bytes> held;  // kept alive while the GIL is released
    std::vector<std::string_view> views;
    std::vector<std::string> names(n);
    std::vector<std::size_t> dir_of(n);
    std::vector<std::string> dir_paths;
    std::unordered_map<std::string, std::size_t> dir_index;
    for (std::size_t i = 0; i < n; ++i) {
        if (!PyBytes_Check(datas[i].ptr())) throw py::type_error("datas must be bytes");
        held.push_back(py::reinterpret_borrow<py::bytes>(datas[i]));
        views.emplace_back(PyBytes_AS_STRING(held.back().ptr()),
                           static_cast<std::size_t>(PyBytes_GET_SIZE(held.back().ptr())));
        const std::string target = fs_bytes(targets[i]);
        const std::size_t slash = target.find_last_of('/');  // as Path.parent, Path.name
        std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : target.substr(0, slash);
        names[i] = slash == std::string::npos ? target : target.substr(slash + 1);
        const auto [it, added] = dir_index.emplace(dir, dir_paths.size());
        if (added) dir_paths.push_back(std::move(dir));
        dir_of[i] = it->second;
    }
    std::unordered_set<std::string> input_set;
    for (const py::handle& p : inputs) input_set.insert(fs_bytes(p));
    std::vector<int> status(n, 2);
    {
        py::gil_scoped_release release;
        std::vector<cass_batch::Directory> dirs;
        dirs.reserve(dir_paths.size());
        for (const std::string& d : dir_paths) dirs.push_back(cass_batch::open_directory(d));
        parallel(n, threads, [&](std::size_t i, cass::Workspace&) {
            status[i] =
                cass_batch::write_if_changed(dirs[dir_of[i]], names[i], views[i], input_set);
        });
        for (const cass_batch::Directory& d : dirs) {
            if (d.fd >= 0) close(d.fd);
        }
    }
    return status;
}

// An enum field of Entry as the int the tables' encoding uses (rules.core_table).
template <typename E, E cass::Entry::* Field>
void enum_field(py::class_<cass::Entry>& c, const char* name) {
    c.def_property(
        name, [](const cass::Entry& e) { return static_cast<int>(e.*Field); },
        [](cass::Entry& e, int v) { e.*Field = static_cast<E>(v); });
}

void bind_types(py::module_& m) {
    const cass::Options o;  // the defaults
    py::class_<cass::Options>(m, "Options", "What a translation targets (cass::Options)")
        .def(py::init([](std::uint32_t hip_version, bool ggl, bool rename_cu_includes,
                         std::uint32_t cuda_arch, std::uint32_t cuda_version, bool hazard_fixes,
                         bool logical_warps) {
                 cass::Options opt;
                 opt.hip_version = hip_version;
                 opt.launch = ggl ? cass::LaunchSyntax::GGL : cass::LaunchSyntax::Chevrons;
                 opt.rename_cu_includes = rename_cu_includes;
                 opt.cuda_arch = cuda_arch;
                 opt.cuda_version = cuda_version;
                 opt.hazard_fixes = hazard_fixes;
                 opt.logical_warps = logical_warps;
                 return opt;
             }),
             py::kw_only(), py::arg("hip_version") = o.hip_version, py::arg("ggl") = false,
             py::arg("rename_cu_includes") = o.rename_cu_includes,
             py::arg("cuda_arch") = o.cuda_arch, py::arg("cuda_version") = o.cuda_version,
             py::arg("hazard_fixes") = o.hazard_fixes, py::arg("logical_warps") = o.logical_warps,
             "hazard_fixes=False: warp-size hazards reported but not rewritten (a naive "
             "translation, for the wave64 proof)")
        .def_readwrite("hip_version", &cass::Options::hip_version)
        .def_property(
            "ggl", [](const cass::Options& opt) { return opt.launch == cass::LaunchSyntax::GGL; },
            [](cass::Options& opt, bool ggl) {
                opt.launch = ggl ? cass::LaunchSyntax::GGL : cass::LaunchSyntax::Chevrons;
            })
        .def_readwrite("rename_cu_includes", &cass::Options::rename_cu_includes)
        .def_readwrite("cuda_arch", &cass::Options::cuda_arch)
        .def_readwrite("cuda_version", &cass::Options::cuda_version)
        .def_readwrite("hazard_fixes", &cass::Options::hazard_fixes)
        .def_readwrite("logical_warps", &cass::Options::logical_warps);

    // Kind, status, rewrite and match are the enums' values (cass/table.hpp).
    py::class_<cass::Entry> entry(m, "Entry", "One row of the mapping table (cass::Entry)");
    entry
        .def(py::init([](std::string cuda, std::string hip, std::string legacy, std::string note,
                         int kind, int status, int rewrite, int match, std::uint16_t family,
                         std::int16_t arg, std::uint32_t since, std::string alt, std::string warp,
                         std::string legacy_note) {
                 cass::Entry e;
                 e.cuda = std::move(cuda);
                 e.hip = std::move(hip);
                 e.legacy = std::move(legacy);
                 e.note = std::move(note);
                 e.alt = std::move(alt);
                 e.warp = std::move(warp);
                 e.legacy_note = std::move(legacy_note);
                 e.kind = static_cast<cass::Kind>(kind);
                 e.status = static_cast<cass::Status>(status);
                 e.rewrite = static_cast<cass::Rewrite>(rewrite);
                 e.match = static_cast<cass::Match>(match);
                 e.family = family;
                 e.arg = arg;
                 e.since = since;
                 return e;
             }),
             // Not keyword-only: core_table builds thousands from its cached rows,
             // positionally in this order (rules._ENTRY_FIELDS), at a third of the cost.
             py::arg("cuda"), py::arg("hip"), py::arg("legacy") = "", py::arg("note") = "",
             py::arg("kind") = 0, py::arg("status") = 0, py::arg("rewrite") = 0,
             py::arg("match") = 0, py::arg("family") = 0, py::arg("arg") = -1, py::arg("since") = 0,
             py::arg("alt") = "", py::arg("warp") = "", py::arg("legacy_note") = "")
        .def_readwrite("cuda", &cass::Entry::cuda)
        .def_readwrite("hip", &cass::Entry::hip)
        .def_readwrite("legacy", &cass::Entry::legacy)
        .def_readwrite("note", &cass::Entry::note)
        .def_readwrite("alt", &cass::Entry::alt)
        .def_readwrite("warp", &cass::Entry::warp)
        .def_readwrite("legacy_note", &cass::Entry::legacy_note)
        .def_readwrite("family", &cass::Entry::family)
        .def_readwrite("arg", &cass::Entry::arg)
        .def_readwrite("since", &cass::Entry::since);
    enum_field<cass::Kind, &cass::Entry::kind>(entry, "kind");
    enum_field<cass::Status, &cass::Entry::status>(entry, "status");
    enum_field<cass::Rewrite, &cass::Entry::rewrite>(entry, "rewrite");
    enum_field<cass::Match, &cass::Entry::match>(entry, "match");
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "CASS C++ core: byte-exact CUDA lexer and table-driven rule rewriter";
    py::class_<cass::Workspace>(
        m, "Workspace",
        "Buffers one translation leaves for the next; one per thread (see cass::Workspace)")
        .def(py::init<>());
    bind_types(m);
    py::class_<cass::Table, std::shared_ptr<cass::Table>>(m, "Table")
        .def(py::init(&make_table), py::arg("entries"), py::arg("families"))
        .def_static("from_rows", &table_from_rows, py::arg("rows"), py::arg("families"),
                    "A Table from rows of Entry's constructor arguments, in its order")
        .def_static("unpack", &unpack_table, py::arg("packed"),
                    "A Table from pack_table's bytes (ValueError if they are not one)")
        .def_property_readonly("family_names",
                               [](const cass::Table& t) {
                                   std::vector<std::string> names;
                                   for (const auto& f : t.families()) names.push_back(f.name);
                                   return names;
                               })
        .def("__len__", &cass::Table::size);
    m.def("pack_table", &pack_table, py::arg("entries"), py::arg("families"),
          "The entries and families as bytes for Table.unpack (one call, no Entry objects)");
    m.def("translate", &translate, py::arg("source"), py::arg("table"), py::arg("options"),
          "(text, [(line, column, severity, rule, message)], [(converted, unconverted)], lines)");
    m.def("translate_edits", &translate_edits, py::arg("source"), py::arg("table"),
          py::arg("options"),
          "translate() as (text, [(begin, end, out_begin, out_end)]): the input ranges "
          "replaced and what replaced them");
    m.def("translate_result", &translate_result, py::arg("source"), py::arg("table"),
          py::arg("options"), py::arg("path"), py::arg("diagnostic_type"), py::arg("severities"),
          py::arg("workspace") = nullptr, py::arg("warp_header") = false,
          "translate() with Diagnostic instances and (family, converted, unconverted) stats; "
          "source as bytes or an ASCII str; warp_header: rules.warp_include on the output");
    m.def("translate_files", &translate_files, py::arg("paths"), py::arg("runtime"),
          py::arg("table"), py::arg("options"), py::arg("max_bytes"), py::arg("threads"),
          py::arg("diagnostic_type"), py::arg("severities"),
          "Read and translate many files on C++ threads: per path None (Python does it) or "
          "(text, diagnostics, families, lines, size, blank, includes, seconds, real path)");
    m.def("write_files", &write_files, py::arg("targets"), py::arg("datas"), py::arg("inputs"),
          py::arg("threads"),
          "write_if_changed for many outputs on C++ threads: 0 written, 1 unchanged, 2 not "
          "done (the caller writes it)");
    m.def(
        "tokens", &tokens, py::arg("source"),
        "(begin, end, kind, flags) of every token, blanks left as gaps; kinds as cass::TokenKind");
    // The kinds Python code tests for, so that it does not hard-code the enum's values.
    m.attr("TOKEN_IDENTIFIER") = static_cast<int>(cass::TokenKind::Identifier);
    cass_tree::bind(m);  // translate_tree (python/tree.cpp)
}
