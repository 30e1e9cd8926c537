// Per-family counts of CUDA references, returned by value with each translation.
#pragma once

#include <cstdint>
#include <vector>

namespace cass {

struct FamilyStats {
    std::uint32_t converted = 0;    // references emitted as HIP (renamed or identical)
    std::uint32_t unconverted = 0;  // unsupported, unknown, or too new for the target HIP
};

struct Stats {
    std::vector<FamilyStats> families;  // indexed like Table::families()
    std::uint64_t bytes = 0;
    std::uint32_t lines = 0;
};

}  // namespace cass
