// pybind11 bindings of the C++ core as cass_build._core.
//
// The table crosses once, as plain tuples; translate() takes and returns bytes
// and releases the GIL while it works, so a thread pool translates in parallel.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cass/lexer.hpp"
#include "cass/rewriter.hpp"
#include "cass/table.hpp"

namespace py = pybind11;

namespace {

// (cuda, hip, legacy, note, kind, status, rewrite, match, family, arg, since, alt)
using RowTuple = std::tuple<std::string, std::string, std::string, std::string, int, int, int, int,
                            int, int, int, std::string>;

std::shared_ptr<cass::Table> make_table(
    const std::vector<RowTuple>& rows,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& families) {
    std::vector<cass::Entry> entries;
    entries.reserve(rows.size());
    for (const auto& r : rows) {
        cass::Entry e;
        e.cuda = std::get<0>(r);
        e.hip = std::get<1>(r);
        e.legacy = std::get<2>(r);
        e.note = std::get<3>(r);
        e.kind = static_cast<cass::Kind>(std::get<4>(r));
        e.status = static_cast<cass::Status>(std::get<5>(r));
        e.rewrite = static_cast<cass::Rewrite>(std::get<6>(r));
        e.match = static_cast<cass::Match>(std::get<7>(r));
        e.family = static_cast<std::uint16_t>(std::get<8>(r));
        e.arg = static_cast<std::int16_t>(std::get<9>(r));
        e.since = static_cast<std::uint32_t>(std::get<10>(r));
        e.alt = std::get<11>(r);
        entries.push_back(std::move(e));
    }
    std::vector<cass::Family> fams;
    for (const auto& [name, prefixes] : families) fams.push_back(cass::Family{name, prefixes});
    return std::make_shared<cass::Table>(std::move(entries), std::move(fams));
}

py::tuple translate(const py::bytes& source, const cass::Table& table, int hip_version, bool ggl,
                    bool rename_cu_includes, int cuda_arch, int cuda_version) {
    std::string_view src = source;  // borrowed from the bytes object, which outlives the call
    if (src.size() >= 0xFFFFFFF0ULL) throw std::length_error("source too large for CASS (4 GiB)");
    cass::Options opt;
    opt.hip_version = static_cast<std::uint32_t>(hip_version);
    opt.launch = ggl ? cass::LaunchSyntax::GGL : cass::LaunchSyntax::Chevrons;
    opt.rename_cu_includes = rename_cu_includes;
    opt.cuda_arch = static_cast<std::uint32_t>(cuda_arch);
    opt.cuda_version = static_cast<std::uint32_t>(cuda_version);
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

py::list tokens(const py::bytes& source) {
    std::string_view src = source;
    py::list out;
    for (const auto& t : cass::lex(src)) {
        out.append(py::make_tuple(t.begin, t.end, static_cast<int>(t.kind), t.flags));
    }
    return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "CASS C++ core: byte-exact CUDA lexer and table-driven rule rewriter";
    py::class_<cass::Table, std::shared_ptr<cass::Table>>(m, "Table")
        .def(py::init(&make_table), py::arg("rows"), py::arg("families"))
        .def("__len__", &cass::Table::size);
    m.def("translate", &translate, py::arg("source"), py::arg("table"), py::arg("hip_version"),
          py::arg("ggl"), py::arg("rename_cu_includes"), py::arg("cuda_arch"),
          py::arg("cuda_version"));
    m.def(
        "tokens", &tokens, py::arg("source"),
        "(begin, end, kind, flags) of every token, blanks left as gaps; kinds as cass::TokenKind");
}
