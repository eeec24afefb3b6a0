#pragma once
// gups: the random stream of HPCC RandomAccess (Garg & Sabharwal, section 2: "a random
// sequence of 64 bit integers using the primitive polynomial x^63 + x^2 + x + 1").
//
// Algorithm: a_{n+1} = (a_n << 1) XOR (POLY if the top bit of a_n is set), a_0 = 1, with
//   POLY = 0x7: multiplication by x in GF(2)[x] modulo x^64 + x^2 + x + 1, so a_n = x^n.
//   The sequence repeats after PERIOD = 1317624576693539401 steps. starts(n) = a_(n mod
//   PERIOD) jumps ahead in O(log n) by square-and-multiply; squaring and multiplying are
//   carry-less products reduced modulo the polynomial, computed by Horner's rule with the
//   one-step function itself. Written from the published definition, not from HPCC code.
// Messages and bytes: none. Memory: none.
// Ordering guarantee: deterministic; every rank can start anywhere in the one global stream.
#include <cstdint>

namespace spikex {

inline constexpr std::uint64_t hpcc_poly = 0x7;
inline constexpr std::int64_t hpcc_period = 1317624576693539401LL;

// One step: multiply by x.
inline std::uint64_t hpcc_next(std::uint64_t a) {
    return (a << 1) ^ (static_cast<std::int64_t>(a) < 0 ? hpcc_poly : 0);
}

// a * b modulo x^64 + x^2 + x + 1 (both as polynomials over GF(2)).
std::uint64_t hpcc_multiply(std::uint64_t a, std::uint64_t b);

// a_n: the n-th element of the stream (starts(0) = 1); any n, reduced modulo PERIOD.
std::uint64_t hpcc_starts(std::int64_t n);

} // namespace spikex
