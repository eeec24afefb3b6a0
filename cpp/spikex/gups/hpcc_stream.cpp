#include "spikex/gups/hpcc_stream.hpp"

namespace spikex {

std::uint64_t hpcc_multiply(std::uint64_t a, std::uint64_t b) {
    // Horner over the bits of b, highest first: r = (...((b_63 a) x + b_62 a) x + ...) + b_0 a.
    std::uint64_t r = 0;
    for (int bit = 63; bit >= 0; --bit) {
        r = hpcc_next(r);
        if ((b >> bit) & 1) r ^= a;
    }
    return r;
}

std::uint64_t hpcc_starts(std::int64_t n) {
    n %= hpcc_period;
    if (n < 0) n += hpcc_period;
    // x^n by left-to-right binary exponentiation: square, then multiply by x for a 1 bit.
    std::uint64_t r = 1;
    for (int bit = 62; bit >= 0; --bit) {
        r = hpcc_multiply(r, r);
        if ((static_cast<std::uint64_t>(n) >> bit) & 1) r = hpcc_next(r);
    }
    return r;
}

} // namespace spikex
