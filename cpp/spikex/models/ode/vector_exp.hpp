#pragma once
// exp of L values at once that gives glibc's exp bit for bit, so that the models' traces
// stay NEST's (NEST calls std::exp) while eight cells are computed in vector registers
// without eight library calls.
//
// glibc (2.28 on) computes exp with the table method of Szabolcs Nagy's ARM optimized
// routines: x = k ln2/128 + r, exp(x) = 2^(k/128) (1 + p(r)), with a degree-5 polynomial
// p; on a CPU with FMA (every CPU with AVX-512) it runs its FMA build, whose fused
// operations are reproduced here one for one (the constants are that algorithm's; the
// table comes from scripts/generate_exp_table.py). Inputs outside its fast range
// (|x| < 2^-54, |x| >= 512, inf, NaN) go to std::exp itself.
//
// Used only where lanes.cpp's start-up check found it equal to this process's std::exp
// on inputs that reach every table entry and both ends of the range (wide_vectors());
// elsewhere lanes use std::exp per lane.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "spikex/models/ode/exp_table.hpp"

namespace spikex::ode::exp_detail {

inline constexpr double inverse_ln2_n = 0x1.71547652b82fep0 * 128; // 128 / ln 2
inline constexpr double minus_ln2_n_high = -0x1.62e42fefa0000p-8;  // -ln 2 / 128, high part
inline constexpr double minus_ln2_n_low = -0x1.cf79abc9e3b3ap-47;  // and the rest
inline constexpr double round_shift = 0x1.8p52;                    // rounds to an integer
inline constexpr double c2 = 0x1.ffffffffffdbdp-2, c3 = 0x1.555555555543cp-3, c4 = 0x1.55555cf172b91p-5,
                        c5 = 0x1.1111167a4d017p-7;

// Whether x takes the fast path: 2^-54 <= |x| < 512 (the exponent field 0x3c9 .. 0x407).
[[gnu::always_inline]] inline bool in_fast_range(double x) {
    const std::uint32_t exponent = (std::bit_cast<std::uint64_t>(x) >> 52) & 0x7ff;
    return exponent - 0x3c9u < 0x3fu;
}

// x = k ln2/128 + r: k (in the low bits of `k`) and r, for x in the fast range.
struct reduction {
    std::uint64_t k;
    double r;
};
[[gnu::always_inline]] inline reduction reduce(double x) {
    const double shifted = std::fma(x, inverse_ln2_n, round_shift);
    const double kd = shifted - round_shift;
    double r = std::fma(kd, minus_ln2_n_high, x);
    r = std::fma(kd, minus_ln2_n_low, r);
    return {std::bit_cast<std::uint64_t>(shifted), r};
}

// 2^(k/128) exp(r) for a reduced argument (pow adds a low part to r first).
[[gnu::always_inline]] inline double scaled_exp(std::uint64_t k, double r) {
    const std::uint64_t index = 2 * (k % 128);
    const double tail = std::bit_cast<double>(table[index]);
    const double scale = std::bit_cast<double>(table[index + 1] + (k << 45));
    const double r2 = r * r;
    const double low = std::fma(r, c3, c2);
    const double high = std::fma(r, c5, c4);
    const double sum = std::fma(r2 * r2, high, std::fma(low, r2, r + tail));
    return std::fma(scale, sum, scale);
}

// The fast path for one value in the fast range.
[[gnu::always_inline]] inline double fast_exp(double x) {
    const reduction x_reduced = reduce(x);
    return scaled_exp(x_reduced.k, x_reduced.r);
}

} // namespace spikex::ode::exp_detail
