#pragma once
// Division of 32-bit numbers by a divisor fixed in advance, as one multiply: the spike
// wire codec splits every key into (offset, item) and the routed bucket codec converts
// every item between gid and owner-major index, where a hardware division (20-40 cycles)
// cost more than the rest of the spike's work.
//
// With m = floor((2^64 - 1) / d) + 1 = ceil(2^64 / d) for d >= 2, floor(n / d) is the
// high 64 bits of m n for every n < 2^32 (Lemire, Kaser & Kurz, "Faster remainder by direct
// computation", 2019: m n / 2^64 = n / d + n e / 2^64 with 0 <= e < d, and n e / 2^64 < 1 / d
// stays below the next multiple of 1 / d). d = 1 is the identity (m would overflow).
#include <cstdint>

namespace spikex {

class divider32 {
public:
    divider32() = default;
    explicit divider32(std::uint32_t d): d_(d), m_(d > 1 ? ~std::uint64_t{0} / d + 1 : 0) {}

    std::uint32_t divisor() const { return d_; }
    // floor(n / d); d >= 1.
    std::uint32_t quotient(std::uint32_t n) const {
        if (d_ == 1) return n;
        return quotient_above_one(n);
    }
    // The same without the test, for a loop that knows d >= 2.
    std::uint32_t quotient_above_one(std::uint32_t n) const {
        return static_cast<std::uint32_t>((static_cast<unsigned __int128>(m_) * n) >> 64);
    }

private:
    std::uint32_t d_ = 1;
    std::uint64_t m_ = 0;
};

} // namespace spikex
