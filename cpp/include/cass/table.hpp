// The immutable CUDA→HIP mapping table the rewriter reads.
//
// Rows come from the data files (cass_build/data/*.toml) through the bindings;
// the core never hard-codes an API name. A Table is built once and then only
// read, so one Table serves any number of threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cass {

// Member rows are keyed "Type::member" and match `var.member` for variables of that type.
enum class Kind : std::uint8_t { Function, Type, Enum, Macro, Builtin, Include, Namespace, Member };
enum class Status : std::uint8_t { Supported, Unsupported, Deprecated };
enum class Rewrite : std::uint8_t {
    None,
    SyncMask,
    ReplaceCall,
    PrefetchLocation,
    AdviseLocation,
    SymbolArg,
    FuncArg,
    ArchMacro,     // __CUDA_ARCH__: depends on where it appears
    VersionMacro,  // CUDART_VERSION: an assumed CUDA release
    ByArity,       // calls with at most `arg` arguments use `alt`, zero-padded
    SurfRead,      // value-returning surfNDread<T>(...) -> out-parameter form
    HipMacro,      // __HIPCC__, USE_ROCM: a macro the source tests to select its own HIP code
    VoidPtrArg,    // argument `arg` is a T** out-parameter HIP takes only as void**
    LegacyApi,     // an include: its family's calls are an API HIP lacks (cuBLAS v1)
    DeviceOnly,    // device-only in HIP older than `since`: host uses are reported
    NoteIfArgs,    // the note holds only for uses with more than `arg` arguments
};
// Where a name may match: anywhere, or only as `name<` (a template such as `texture<`).
// Method: a Member row that also matches `x.name` where x's type is not known (a
// name distinctive enough to be that type's method wherever it appears).
enum class Match : std::uint8_t { Any, Template, Method };

// What the hazard scanners need to know of a name, worked out once per table.
enum EntryTraits : std::uint8_t {
    kBallot = 1U << 0,
    kShuffle = 1U << 1,
    kSameHip = 1U << 2,     // hip == cuda: a rename that changes nothing
    kSameLegacy = 1U << 3,  // legacy == cuda
};

struct Entry {
    std::string cuda;
    std::string hip;
    std::string legacy;  // emitted for HIP versions older than `since`
    std::string note;    // behaviour difference, reported once per file
    std::string alt;     // ByArity: the HIP name for short calls
    std::string warp;    // Options::logical_warps: the <cass/warp.h> name emitted instead
    // What `legacy` does differently at run time: a warning where it is emitted.
    std::string legacy_note;
    Kind kind = Kind::Function;
    Status status = Status::Supported;
    Rewrite rewrite = Rewrite::None;
    Match match = Match::Any;
    std::uint16_t family = 0;
    std::int16_t arg = -1;
    std::uint32_t since = 0;  // major * 100 + minor; 0 = any HIP
    std::uint8_t traits = 0;  // EntryTraits, set by Table
};

// A family of APIs and the name prefixes that mark an unknown name as one of it.
struct Family {
    std::string name;
    std::vector<std::string> prefixes;
};

class Table {
public:
    Table() = default;
    Table(std::vector<Entry> entries, std::vector<Family> families);

    // The entry for an identifier (or, with Kind::Include, a header path), or nullptr.
    [[nodiscard]] const Entry* find(std::string_view name, bool include) const;
    // The family an unmapped name looks like it belongs to, or -1.
    [[nodiscard]] int guess_family(std::string_view name) const;
    // Whether some Member row is keyed "Type::name".
    [[nodiscard]] bool is_member_name(std::string_view name) const;
    // The Member row with Match::Method whose member half is `name`, or nullptr.
    [[nodiscard]] const Entry* find_method(std::string_view name) const;
    // Whether a translation may write `name` for some other CUDA name: 2 as a row's
    // legacy or alt name (an older or shorter form: __shfl for __shfl_sync), 1 as a
    // row's hip name only, 0 never.
    [[nodiscard]] int emits(std::string_view name) const;

    [[nodiscard]] const std::vector<Family>& families() const { return families_; }
    [[nodiscard]] std::size_t size() const { return entries_.size(); }
    // Distinct for every Table made (a copy shares it: the same rows, the same answers),
    // so that what was looked up in one is never taken for another's answer.
    [[nodiscard]] std::uint64_t serial() const { return serial_; }

private:
    static std::uint64_t new_serial();
    std::uint64_t serial_ = new_serial();
    std::vector<Entry> entries_;
    std::vector<Family> families_;
    // A one-bit filter of names (filter_bit of each): a name whose bit is clear is
    // none of them, which is the answer for nearly every name a file holds.
    struct NameFilter {
        std::vector<std::uint64_t> bits = std::vector<std::uint64_t>(1024, 0);
        void add(std::string_view name);
        [[nodiscard]] bool may_hold(std::string_view name) const;
    };
    std::vector<std::string> members_;         // the member halves of Member rows
    NameFilter member_filter_;                 // of members_
    NameFilter emitted_filter_;                // of emitted_ and emitted_legacy_
    std::vector<std::size_t> methods_;         // Member rows with Match::Method, by index
    std::vector<std::string> emitted_;         // sorted: hip names emits() knows
    std::vector<std::string> emitted_legacy_;  // sorted: legacy and alt names
    // Lookups come one per distinct name of a file, often with cold caches (the
    // file's own bytes pushed the table out), so they are laid out to touch
    // few cache lines: a one-bit filter on (length, first, second, last byte),
    // then open addressing on 16-byte slots that hold names of up to 8 bytes
    // themselves. Longer names are checked against keys_, the keys back to back.
    struct Slot {
        std::uint64_t key;    // the name's bytes (up to 8), else a hash of them
        std::int32_t entry;   // -1 = empty
        std::uint32_t shape;  // length << 1 | include path
    };
    [[nodiscard]] std::size_t slot_of(std::uint64_t key, bool include) const;
    std::vector<Slot> slots_;
    unsigned shift_ = 64;  // 64 - log2(slots_.size())
    std::string keys_;
    std::vector<std::uint32_t> key_at_;  // entry i's key is keys_[key_at_[i], key_at_[i + 1])
    std::vector<std::uint64_t> filter_ = std::vector<std::uint64_t>(1024, 0);
    // Family prefixes by their first two bytes: one bit per two-byte bucket says
    // whether any prefix starts so (for most names none does); then the
    // bucket's prefixes, longest first.
    struct Prefix {
        std::size_t bucket;
        int family;
        std::string text;
    };
    std::vector<std::uint64_t> prefix_buckets_ = std::vector<std::uint64_t>(1024, 0);
    std::vector<Prefix> prefixes_;  // by bucket, then longest first
};

}  // namespace cass
