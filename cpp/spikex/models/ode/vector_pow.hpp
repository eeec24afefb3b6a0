#pragma once
// The constants of a pow of eight values at once that gives glibc's pow bit for bit
// (lanes.hpp's wide_pow), for the step-size control of the adaptive integrators (E^(1/5),
// E^(1/6) per cell: NEST's GSL control calls pow), so that eight cells' controls run in
// vector registers without eight library calls.
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
#include <cstdint>

#include "spikex/models/ode/pow_log_table.hpp"

namespace spikex::ode::pow_detail {

inline constexpr std::uint64_t offset_bits = 0x3fe6955500000000u; // z in [offset, 2 offset)
inline constexpr double ln2_high = 0x1.62e42fefa3800p-1, ln2_low = 0x1.ef35793c76730p-45;
// log1p(r) ~ r + a0 r^2 + r^3 (a1 + a2 r + a0 r^2 (a3 + a4 r + a0 r^2 (a5 + a6 r))): the
// algorithm's coefficients, scaled to this evaluation
inline constexpr double a0 = -0x1p-1, a1 = -0x1.5555555555560p-1, a2 = 0x1.0000000000006p-1, a3 = 0x1.999999959554ep-1,
                        a4 = -0x1.555555529a47ap-1, a5 = -0x1.2495b9b4845e9p+0, a6 = 0x1.0002b8b263fc3p+0;

} // namespace spikex::ode::pow_detail
