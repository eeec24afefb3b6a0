#pragma once
// pow of L values at once that gives glibc's pow bit for bit, for the step-size control of
// the adaptive integrators (E^(-1/5), E^(-1/6) per cell: NEST's GSL control calls pow), so
// that eight cells' controls run in vector registers without eight library calls.
//
// glibc (2.28 on) computes pow(x, y) = exp(y log x) with Szabolcs Nagy's ARM optimized
// routines: log x in double-double from a 128-entry table (x = 2^k z, log x = k ln2 +
// log c + log1p(z/c - 1), a degree-8 polynomial), then the exp of vector_exp.hpp with the
// low part of y log x added to its reduced argument. On a CPU with FMA it runs its FMA
// build, whose fused operations are reproduced here one for one, in its order (read from
// its machine code); the constants are that algorithm's, the table comes from
// scripts/generate_pow_log_table.py. Inputs outside its fast path (x not a positive normal
// number, |y| outside [2^-65, 2^63), |y log x| outside [2^-54, 512)) go to std::pow itself.
//
// Used only where lanes.cpp's start-up check found it equal to this process's std::pow
// (wide_vectors()); elsewhere lanes use std::pow per lane.
#include <bit>
#include <cmath>
#include <cstdint>

#include "spikex/models/ode/pow_log_table.hpp"
#include "spikex/models/ode/vector_exp.hpp"

namespace spikex::ode::pow_detail {

inline constexpr std::uint64_t offset_bits = 0x3fe6955500000000u; // z in [offset, 2 offset)
inline constexpr double ln2_high = 0x1.62e42fefa3800p-1, ln2_low = 0x1.ef35793c76730p-45;
// log1p(r) ~ r + a0 r^2 + r^3 (a1 + a2 r + a0 r^2 (a3 + a4 r + a0 r^2 (a5 + a6 r))): the
// algorithm's coefficients, scaled to this evaluation
inline constexpr double a0 = -0x1p-1, a1 = -0x1.5555555555560p-1, a2 = 0x1.0000000000006p-1, a3 = 0x1.999999959554ep-1,
                        a4 = -0x1.555555529a47ap-1, a5 = -0x1.2495b9b4845e9p+0, a6 = 0x1.0002b8b263fc3p+0;

[[gnu::always_inline]] inline std::uint32_t top12(double x) {
    return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(x) >> 52);
}
// Whether x and y take the fast path before the logarithm: x a positive normal number,
// 2^-65 <= |y| < 2^63.
[[gnu::always_inline]] inline bool arguments_in_fast_range(double x, double y) {
    return top12(x) - 0x001u < 0x7feu && (top12(y) & 0x7ffu) - 0x3beu < 0x80u;
}

// The fast path for x, y in arguments_in_fast_range; `fast` false when y log x is outside
// exp's fast range (the result is then unused: call std::pow).
[[gnu::always_inline]] inline double fast_pow(double x, double y, bool& fast) {
    // log x = k ln2 + log c + log1p(r), r = z/c - 1 (exact)
    const std::uint64_t ix = std::bit_cast<std::uint64_t>(x);
    const std::uint64_t offset = ix - offset_bits;
    const std::uint64_t i = (offset >> 45) % 128;
    const double kd = static_cast<double>(static_cast<std::int64_t>(offset) >> 52);
    const double z = std::bit_cast<double>(ix - (offset & (std::uint64_t{0xfff} << 52)));
    const double inverse_c = std::bit_cast<double>(log_table[3 * i]);
    const double log_c = std::bit_cast<double>(log_table[3 * i + 1]);
    const double log_c_tail = std::bit_cast<double>(log_table[3 * i + 2]);
    const double r = std::fma(z, inverse_c, -1.0);
    const double t1 = std::fma(kd, ln2_high, log_c);
    const double lo1 = std::fma(kd, ln2_low, log_c_tail);
    const double ar = r * a0;
    const double p1 = std::fma(r, a2, a1);
    const double p2 = std::fma(r, a4, a3);
    const double t2 = r + t1;
    const double ar2 = r * ar;
    const double lo2 = (t1 - t2) + r;
    const double ar3 = r * ar2;
    const double lo3 = std::fma(ar, r, -ar2);
    const double p3 = std::fma(r, a6, a5);
    const double hi = t2 + ar2;
    const double lo4 = (t2 - hi) + ar2;
    const double q = std::fma(p3, ar2, p2);
    const double p = std::fma(ar2, q, p1);
    const double lo = std::fma(ar3, p, ((lo1 + lo2) + lo3) + lo4);
    const double log_high = hi + lo;
    const double log_low = (hi - log_high) + lo;
    // exp(y log x): vector_exp.hpp's fast path with the low part added to its reduced argument
    const double e_high = y * log_high;
    const double e_low = std::fma(y, log_low, std::fma(log_high, y, -e_high));
    fast = exp_detail::in_fast_range(e_high);
    const exp_detail::reduction e_reduced = exp_detail::reduce(e_high);
    return exp_detail::scaled_exp(e_reduced.k, e_low + e_reduced.r);
}

} // namespace spikex::ode::pow_detail
