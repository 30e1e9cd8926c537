// rules.warp_include for the single-file translate binding: the #include lines of the
// CASS headers whose __cass_ operations a translation calls, worked out over the
// output where it lies (a Python bytes object), so that the header can be put in
// front in place instead of by concatenating a second copy of the whole output.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cass_py {

// The longest text warp_header_lines returns: every header once, and "#line 1".
constexpr std::size_t kWarpHeaderMax = 128;

// What rules.warp_include puts after the BOM of `hip` (when it starts with one):
// "#include <cass/H.h>\n" per header needed and "#line 1\n"; "" when none is.
std::string warp_header_lines(std::string_view hip);

// The length of the UTF-8 BOM `hip` starts with: 3 or 0 (the header goes after it).
std::size_t bom_length(std::string_view hip);

}  // namespace cass_py
