// ode::exp on lanes (vector_exp.hpp where wide_vectors()) equals std::exp bit for bit,
// and the wide clones are in use wherever the CPU has AVX-512 (so a broken vector exp,
// which turns them off at start-up, fails here rather than only costing speed).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string_view>

#include "spikex/models/ode/lanes.hpp"

namespace {

using spikex::ode::lanes;

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

void expect_std_exp(const lanes<8>& x) {
    const lanes<8> e = spikex::ode::exp(x);
    for (std::size_t l = 0; l < 8; ++l) {
        const double want = std::exp(x[l]);
        if (std::isnan(want))
            EXPECT_TRUE(std::isnan(e[l])) << x[l];
        else
            EXPECT_EQ(bits(e[l]), bits(want)) << "exp(" << x[l] << ")";
    }
}

TEST(vector_exp, wide_clones_on_where_the_cpu_has_avx512) {
    const char* isa = std::getenv("SPIKEX_VECTOR_ISA");
    __builtin_cpu_init();
    if ((isa != nullptr && std::string_view(isa) == "baseline") || !__builtin_cpu_supports("avx512f"))
        GTEST_SKIP() << "no AVX-512 here (or switched off)";
    EXPECT_TRUE(spikex::ode::wide_vectors()) << "the vector exp disagreed with std::exp at start-up";
}

TEST(vector_exp, equals_std_exp_over_the_range_and_at_its_edges) {
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> models(-60.0, 60.0), whole(-760.0, 720.0);
    for (int i = 0; i < 200000; ++i) {
        lanes<8> x;
        for (std::size_t l = 0; l < 8; ++l) x[l] = (i % 2 ? models : whole)(random);
        expect_std_exp(x);
    }
    const double inf = std::numeric_limits<double>::infinity();
    // outside the fast range, mixed with values inside it: those lanes go to std::exp
    expect_std_exp(lanes<8>{{0.0, -0.0, 0x1p-60, -0x1p-55, 512.0, -600.0, inf, -inf}});
    expect_std_exp(lanes<8>{{std::nan(""), 1.0, 709.7, -745.1, 0x1p-54, -0x1p-54, 511.99, 1e-300}});
}

} // namespace
