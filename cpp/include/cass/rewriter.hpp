// The rule translator: CUDA source in, HIP source, diagnostics and stats out.
//
// Only identifier tokens and #include header names are rewritten, never the
// inside of comments or string literals. Line structure is kept: no rewrite
// adds or removes a newline, so output line N is input line N.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cass/diagnostic.hpp"
#include "cass/stats.hpp"
#include "cass/table.hpp"

namespace cass {

enum class LaunchSyntax : std::uint8_t { Chevrons, GGL };

struct Options {
    std::uint32_t hip_version = 702;  // major * 100 + minor of the targeted HIP
    LaunchSyntax launch = LaunchSyntax::Chevrons;
    bool rename_cu_includes = false;     // "x.cu" -> "x.hip" in quoted includes
    std::uint32_t cuda_arch = 700;       // assumed __CUDA_ARCH__ in AMD device code
    std::uint32_t cuda_version = 12080;  // assumed CUDART_VERSION / CUDA_VERSION
    // Rewrite warp-size hazards into warp-size-agnostic code where that is
    // provably right (off: only report them, as a plain renamer would leave them).
    bool hazard_fixes = true;
    // CUDA's 32-lane warps as logical warps on every wave size (`--warp cuda`): warp
    // operations go through <cass/warp.h>. Off (`--warp native`): plain HIP operations.
    bool logical_warps = true;
    // Fill Result::edits (for checking what a translation changed: tests, the fuzzer).
    bool record_edits = false;
};

// One edit of a translation: input bytes [begin, end) became output bytes
// [out_begin, out_end). Every other byte is copied unchanged.
struct Replacement {
    std::uint32_t begin;
    std::uint32_t end;
    std::uint64_t out_begin;
    std::uint64_t out_end;
};

struct Result {
    std::string text;
    std::vector<Diagnostic> diagnostics;  // sorted by position
    Stats stats;
    std::vector<Replacement> edits;  // in order; only with Options::record_edits
};

// Thread-safe: `table` is only read.
Result translate(std::string_view source, const Table& table, const Options& options);

// Called once with the output's size; returns where to write that many bytes.
using OutputBuffer = std::function<char*(std::size_t)>;

// translate(), writing the output where `output` says instead of into
// Result::text (left empty): into a Python bytes object, without a copy.
Result translate(std::string_view source, const Table& table, const Options& options,
                 const OutputBuffer& output);

// The memory one translation leaves for the next. A translation allocates
// several times its source's size (tokens, a padded copy); a thread that
// translates many files with one Workspace allocates that once, not per file
// (for large buffers, allocating means fresh pages from the kernel each time).
// One per thread: a second thread using the same Workspace waits its turn.
class Workspace {
public:
    Workspace();
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
    friend Result translate(std::string_view source, const Table& table, const Options& options,
                            const OutputBuffer& output, Workspace& workspace);
};

// translate() into `output`, working in `workspace`.
Result translate(std::string_view source, const Table& table, const Options& options,
                 const OutputBuffer& output, Workspace& workspace);

}  // namespace cass
