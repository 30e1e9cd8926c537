// Diagnostics as a compiler prints them: file:line:col: severity: message [cass-id].
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cass {

enum class Severity : std::uint8_t { Note, Warning, Error };

struct Diagnostic {
    std::uint32_t offset = 0;  // byte offset in the input
    std::uint32_t line = 0;    // 1-based, filled in when the translation ends
    std::uint32_t column = 0;  // 1-based byte column
    Severity severity = Severity::Warning;
    // Stable id without the "cass-" prefix, e.g. "inline-ptx"; static storage.
    std::string_view rule;
    std::string message;
};

}  // namespace cass
