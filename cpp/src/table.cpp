#include "cass/table.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace cass {
namespace {

inline std::uint64_t hash_name(std::string_view s, bool include) {
    // Eight bytes at a time: identifiers are short, so this is one or two rounds.
    std::uint64_t h = (include ? 0x9e3779b97f4a7c15ULL : 0x2545f4914f6cdd1dULL) ^ s.size();
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t v = 0;
        std::memcpy(&v, s.data() + i, 8);
        h = (h ^ v) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, s.data() + i, s.size() - i);
    h = (h ^ tail) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

inline std::uint32_t filter_bit(std::string_view s) {
    const auto b = [&](std::size_t k) {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(s[k]));
    };
    const std::uint32_t len = static_cast<std::uint32_t>(s.size());
    const std::uint32_t x = (b(0) * 31U + b(len > 1 ? 1 : 0)) * 131U + b(len - 1) * 7U + len * 97U;
    return (x ^ (x >> 11)) & 0xFFFFU;
}

inline std::size_t bucket(std::string_view s) {
    return static_cast<std::size_t>(static_cast<unsigned char>(s[0])) << 8 |
           static_cast<unsigned char>(s[1]);
}

inline bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
inline bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A name's slot key: its bytes when there are at most 8, else a hash.
inline std::uint64_t key_of(std::string_view s) {
    if (s.size() > 8) return hash_name(s, false);
    std::uint64_t v = 0;
    std::memcpy(&v, s.data(), s.size());
    return v;
}

inline std::uint32_t shape_of(std::string_view s, bool include) {
    return static_cast<std::uint32_t>(s.size()) << 1 | (include ? 1U : 0U);
}

}  // namespace

std::uint64_t Table::new_serial() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

Table::Table(std::vector<Entry> entries, std::vector<Family> families)
    : entries_(std::move(entries)), families_(std::move(families)) {
    std::size_t cap = 16;
    unsigned bits = 4;
    while (cap < entries_.size() * 2 + 1) {
        cap <<= 1;
        ++bits;
    }
    slots_.assign(cap, Slot{0, -1, 0});
    shift_ = 64 - bits;
    key_at_.reserve(entries_.size() + 1);
    for (const Entry& e : entries_) {
        key_at_.push_back(static_cast<std::uint32_t>(keys_.size()));
        keys_ += e.cuda;
    }
    key_at_.push_back(static_cast<std::uint32_t>(keys_.size()));
    for (Entry& e : entries_) {
        if (e.cuda.find("ballot") != std::string::npos || e.cuda == "__activemask")
            e.traits |= kBallot;
        if (e.cuda.find("shfl") != std::string::npos) e.traits |= kShuffle;
        if (e.hip == e.cuda) e.traits |= kSameHip;
        if (e.legacy == e.cuda) e.traits |= kSameLegacy;
    }
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const Entry& e = entries_[i];
        const bool include = e.kind == Kind::Include;
        const std::uint64_t key = key_of(e.cuda);
        const std::uint32_t shape = shape_of(e.cuda, include);
        std::size_t slot = slot_of(key, include);
        while (slots_[slot].entry >= 0) {
            const Slot& other = slots_[slot];
            if (other.key == key && other.shape == shape &&
                entries_[static_cast<std::size_t>(other.entry)].cuda == e.cuda) {
                break;  // a duplicate: the first one wins
            }
            slot = (slot + 1) & (cap - 1);
        }
        if (slots_[slot].entry < 0) slots_[slot] = Slot{key, static_cast<std::int32_t>(i), shape};
        if (!e.cuda.empty()) {
            const std::uint32_t bit = filter_bit(e.cuda);
            filter_[bit >> 6] |= 1ULL << (bit & 63U);
        }
    }
    const auto is_name = [](std::string_view w) {
        return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
            return c == '_' || is_lower(c) || is_upper(c) || is_digit(c);
        });
    };
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const Entry& e = entries_[i];
        const std::size_t colons = e.cuda.rfind("::");
        if (e.kind == Kind::Member && colons != std::string::npos) {
            members_.push_back(e.cuda.substr(colons + 2));
            if (e.match == Match::Method) methods_.push_back(i);
        }
        if (e.kind == Kind::Include || e.kind == Kind::Member) continue;
        if (e.hip != e.cuda && is_name(e.hip)) emitted_.push_back(e.hip);
        for (const std::string* w : {&e.legacy, &e.alt}) {
            if (*w != e.cuda && is_name(*w)) emitted_legacy_.push_back(*w);
        }
    }
    for (std::vector<std::string>* v : {&emitted_, &emitted_legacy_}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
        for (const std::string& w : *v) emitted_filter_.add(w);
    }
    for (const std::string& m : members_) member_filter_.add(m);
    for (std::size_t f = 0; f < families_.size(); ++f) {
        for (const auto& p : families_[f].prefixes) {
            if (p.size() < 2) continue;
            const std::size_t b = bucket(p);
            prefixes_.push_back(Prefix{b, static_cast<int>(f), p});
            prefix_buckets_[b >> 6] |= 1ULL << (b & 63U);
        }
    }
    // Longest first within a bucket; equal lengths keep the families' order.
    std::stable_sort(prefixes_.begin(), prefixes_.end(), [](const Prefix& a, const Prefix& b) {
        return a.bucket != b.bucket ? a.bucket < b.bucket : a.text.size() > b.text.size();
    });
}

std::size_t Table::slot_of(std::uint64_t key, bool include) const {
    std::uint64_t h = (key ^ (include ? 0x2545f4914f6cdd1dULL : 0)) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    return static_cast<std::size_t>(h >> shift_);
}

const Entry* Table::find(std::string_view name, bool include) const {
    if (slots_.empty() || name.empty()) return nullptr;
    const std::uint32_t bit = filter_bit(name);
    if ((filter_[bit >> 6] & (1ULL << (bit & 63U))) == 0) return nullptr;
    const std::uint64_t key = key_of(name);
    const std::uint32_t shape = shape_of(name, include);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = slot_of(key, include);; slot = (slot + 1) & mask) {
        const Slot& s = slots_[slot];
        if (s.entry < 0) return nullptr;
        if (s.key != key || s.shape != shape) continue;
        const auto i = static_cast<std::size_t>(s.entry);
        if (name.size() <= 8 ||
            std::memcmp(keys_.data() + key_at_[i], name.data(), name.size()) == 0) {
            return &entries_[i];
        }
    }
}

int Table::guess_family(std::string_view name) const {
    if (name.size() < 3) return -1;
    const std::size_t b = bucket(name);
    if ((prefix_buckets_[b >> 6] & (1ULL << (b & 63U))) == 0) return -1;
    auto it = std::lower_bound(prefixes_.begin(), prefixes_.end(), b,
                               [](const Prefix& p, std::size_t v) { return p.bucket < v; });
    for (; it != prefixes_.end() && it->bucket == b; ++it) {
        const std::string& prefix = it->text;
        if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) continue;
        const char last = prefix.back();
        const char next = name[prefix.size()];
        // "cuda" + "Malloc", "CU" + "result", "CUDA_" + anything.
        if (last == '_' || (is_lower(last) && (is_upper(next) || is_digit(next) || next == '_')) ||
            (is_upper(last) && is_lower(next))) {
            return it->family;
        }
    }
    return -1;
}

const Entry* Table::find_method(std::string_view name) const {
    for (const std::size_t i : methods_) {  // a handful of rows
        const std::string_view key = entries_[i].cuda;
        if (key.size() > name.size() + 2 && key.substr(key.size() - name.size()) == name &&
            key.substr(key.size() - name.size() - 2, 2) == "::") {
            return &entries_[i];
        }
    }
    return nullptr;
}

void Table::NameFilter::add(std::string_view name) {
    if (name.empty()) return;
    const std::uint32_t bit = filter_bit(name);
    bits[bit >> 6] |= 1ULL << (bit & 63U);
}

bool Table::NameFilter::may_hold(std::string_view name) const {
    if (name.empty()) return true;  // not filtered: the caller's own search decides
    const std::uint32_t bit = filter_bit(name);
    return (bits[bit >> 6] & (1ULL << (bit & 63U))) != 0;
}

int Table::emits(std::string_view name) const {
    if (!emitted_filter_.may_hold(name)) return 0;
    const auto in = [&](const std::vector<std::string>& v) {
        const auto it =
            std::lower_bound(v.begin(), v.end(), name,
                             [](const std::string& a, std::string_view b) { return a < b; });
        return it != v.end() && *it == name;
    };
    return in(emitted_legacy_) ? 2 : in(emitted_) ? 1 : 0;
}

bool Table::is_member_name(std::string_view name) const {
    if (!member_filter_.may_hold(name)) return false;
    for (const std::string& m : members_) {  // a handful of rows
        if (m == name) return true;
    }
    return false;
}

}  // namespace cass
