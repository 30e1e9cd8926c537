// _core.translate_tree: a whole tree of cass translate DIR --verify none in one call
// (see tree.cpp and cass_build/cli/tree_batch.py).
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>

namespace cass_tree {

// Python's repr() of a float, as json.dumps writes it: the shortest digits that read back
// as `x`, in fixed notation for exponents -4 to 15 and scientific ("1e-05") outside.
std::string py_float(double x);

// json.dumps(s) of the str that `utf8` decodes to with errors="surrogateescape": ASCII
// only, as json's ensure_ascii writes it.
std::string json_string(std::string_view utf8);

void bind(pybind11::module_& m);

}  // namespace cass_tree
