#pragma once
// The section rule of exchange "alltoall", in one place: used by the exchange
// (exchange/alltoall.cpp) and by the dry run's counting (dryrun/exchange_counts.cpp).
//
// Sizes are counted in entries of 2 bytes of the spike wire codec's blocks (about one spike
// each); a section of S entries is 8 header bytes + 2 S bytes.
// Every interval, round 1 moves P sections of 1 header record + S entries. The headers
// tell every rank the largest section fill L of the interval; if L > S, the rest, L - S
// entries, moves in ceil((L - S) / S2) further rounds of S2 = min(L - S, max) entries per
// section. Then S adapts: it grows to L (at most `max`) when round 1 overflowed, shrinks
// by S/8 when L used less than half of it (never below `min`, nor below L), else stays.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace spikex {

struct alltoall_rounds {
    std::uint32_t first_records = 0;    // records per section in round 1: S + 1 (header)
    std::uint32_t overflow_records = 0; // entries per section in each further round (0: none)
    std::uint32_t overflow_rounds = 0;  // further rounds
};

class alltoall_sections {
public:
    static constexpr std::size_t header_bytes = 8; // [uint32 block length][uint32 sender's largest fill]
    static constexpr std::size_t entry_bytes = 2;
    // Entries a block of `bytes` fills.
    static std::uint32_t entries_of(std::size_t bytes) {
        return static_cast<std::uint32_t>((bytes + entry_bytes - 1) / entry_bytes);
    }

    alltoall_sections() = default;
    // Bounds in entries; the caller has checked 1 <= min_entries <= max_entries.
    alltoall_sections(std::uint32_t min_entries, std::uint32_t max_entries):
        min_(min_entries), max_(max_entries), entries_(min_entries) {}

    std::uint32_t entries() const { return entries_; } // S, the section size of round 1
    std::uint32_t min_entries() const { return min_; }
    std::uint32_t max_entries() const { return max_; }

    // The rounds of an interval whose largest section fill is `largest`.
    alltoall_rounds rounds(std::uint32_t largest) const {
        alltoall_rounds out;
        out.first_records = entries_ + 1;
        if (largest > entries_) {
            const std::uint64_t left = largest - entries_;
            out.overflow_records = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, max_));
            out.overflow_rounds = static_cast<std::uint32_t>((left + out.overflow_records - 1) / out.overflow_records);
        }
        return out;
    }

    // S for the next interval, after one whose largest section fill was `largest`.
    void adapt(std::uint32_t largest) {
        if (largest > entries_)
            entries_ = std::min(largest, max_);
        else if (2 * static_cast<std::uint64_t>(largest) < entries_)
            entries_ = std::max({min_, largest, entries_ - entries_ / 8});
    }

private:
    std::uint32_t min_ = 16, max_ = 1u << 20;
    std::uint32_t entries_ = 16;
};

} // namespace spikex
