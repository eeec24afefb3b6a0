// ode::pow on lanes (vector_pow.hpp where wide_vectors()) equals std::pow bit for bit: for
// the step-size controls' exponents on the error ratios they see, for other exponents
// over the whole range, and for the inputs its fast path leaves to std::pow, mixed in
// with others.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "spikex/models/ode/lanes.hpp"

namespace {

using spikex::ode::lanes;

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

void expect_std_pow(const lanes<8>& x, const lanes<8>& y) {
    const lanes<8> p = spikex::ode::pow(x, y);
    for (std::size_t l = 0; l < 8; ++l) {
        const double want = std::pow(x[l], y[l]);
        if (std::isnan(want))
            EXPECT_TRUE(std::isnan(p[l])) << x[l] << " " << y[l];
        else
            EXPECT_EQ(bits(p[l]), bits(want)) << "pow(" << x[l] << ", " << y[l] << ")";
    }
}

TEST(vector_pow, equals_std_pow_for_the_step_controls_exponents) {
    std::mt19937_64 random(11);
    std::uniform_real_distribution<double> log2_error(-20.0, 12.0); // E from 1e-6 to 4e3
    for (int i = 0; i < 300000; ++i) {
        lanes<8> x, y;
        for (std::size_t l = 0; l < 8; ++l) {
            x[l] = std::exp2(log2_error(random));
            y[l] = (i + l) % 2 ? 1.0 / 5.0 : 1.0 / 6.0;
        }
        expect_std_pow(x, y);
    }
}

TEST(vector_pow, equals_std_pow_over_the_range) {
    std::mt19937_64 random(12);
    std::uniform_real_distribution<double> log2_x(-1070.0, 1023.0), exponent(-4.0, 4.0);
    for (int i = 0; i < 200000; ++i) {
        lanes<8> x, y;
        for (std::size_t l = 0; l < 8; ++l) {
            x[l] = std::exp2(log2_x(random));
            y[l] = exponent(random);
        }
        expect_std_pow(x, y); // includes results that overflow or underflow: std::pow's lanes
    }
}

TEST(vector_pow, leaves_special_inputs_to_std_pow) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
    const double sixth = 1.0 / 6.0;
    expect_std_pow(lanes<8>{{1.0, 0.0, -0.0, inf, nan, -2.0, 0x1p-1070, 0.3}}, lanes<8>::all(sixth));
    expect_std_pow(lanes<8>{{0.3, 2.0, 0.7, 1.5, 1e300, 1e-300, 0.5, 3.0}},
                   lanes<8>{{0.0, 1e-30, 1e30, nan, 4.0, -4.0, inf, -inf}});
    expect_std_pow(lanes<8>{{1.0 + 0x1p-52, 1.0 - 0x1p-53, 0.999, 1.001, 0.7, 1.4, 0.70573, 1.41}},
                   lanes<8>::all(-0.2));
}

} // namespace
