// divider32 (core/divider.hpp): floor(n / d) as one multiply, exact for every 32-bit n and
// d, checked against the hardware division at the edges (multiples and their neighbours,
// the largest values) and at random.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "spikex/core/divider.hpp"

using namespace spikex;

TEST(divider32, equals_the_division_at_the_edges_and_at_random) {
    std::mt19937_64 rng(11);
    std::vector<std::uint32_t> divisors = {1,       2,           3,           5,           7,           15,
                                           16,      17,          30,          200,         1000,        641,
                                           6700417, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu};
    for (int i = 0; i < 200; ++i) divisors.push_back(static_cast<std::uint32_t>(rng() >> (32 + rng() % 32)) | 1u);
    for (const std::uint32_t d: divisors) {
        const divider32 by(d);
        ASSERT_EQ(by.divisor(), d);
        std::vector<std::uint32_t> numerators = {0, 1, d - 1, d, 0xffffffffu, 0xfffffffeu, 0x80000000u};
        for (std::uint64_t q:
             {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{1000}, std::uint64_t{0xffffffffu} / d}) {
            for (const std::int64_t delta: {-1, 0, 1}) {
                const std::uint64_t n = q * d + static_cast<std::uint64_t>(delta);
                if (n <= 0xffffffffull) numerators.push_back(static_cast<std::uint32_t>(n));
            }
        }
        for (int i = 0; i < 2000; ++i) numerators.push_back(static_cast<std::uint32_t>(rng()));
        for (const std::uint32_t n: numerators) ASSERT_EQ(by.quotient(n), n / d) << n << " / " << d;
    }
}
