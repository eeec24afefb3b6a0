#pragma once
// A value of L cells at once, for right-hand sides written once and evaluated either for
// one cell (double) or for L cells side by side (lanes<L>): the compiler turns the
// element-wise loops into vector instructions. Every operation is the same IEEE operation
// per lane as on a double (no reassociation, no fused multiply-add: -ffp-contract=off),
// so a cell's result does not depend on whether, or with which neighbours, it was batched
// — the spikes stay the same on every layout.
//
// A right-hand side uses ode::min, ode::select and ode::exp (not std::min, ?:, std::exp)
// on values that may be lanes; the double overloads are exactly the std ones.
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "spikex/models/ode/vector_exp.hpp"

namespace spikex::ode {

// Whether the lanes kernels run their AVX-512 clones, with exp in vector registers
// (vector_exp.hpp): the CPU and OS support AVX-512, the vector exp equals this process's
// std::exp, and SPIKEX_VECTOR_ISA is not "baseline" (the switch that lets a test compare
// both ways). Decided once, when the library is loaded.
extern const bool wide_vectors_enabled;
inline bool wide_vectors() { return wide_vectors_enabled; }

// Every lanes operation is inlined wherever it is used, so that it is compiled for the
// caller's instruction set (GCC inlines a function into a clone for another target only
// when it must: always_inline).
#define SPIKEX_LANES_INLINE [[gnu::always_inline]] inline

template <std::size_t L>
struct lanes {
    std::array<double, L> v;

    SPIKEX_LANES_INLINE static lanes all(double x) {
        lanes r;
        r.v.fill(x);
        return r;
    }
    SPIKEX_LANES_INLINE double operator[](std::size_t l) const { return v[l]; }
    SPIKEX_LANES_INLINE double& operator[](std::size_t l) { return v[l]; }

    SPIKEX_LANES_INLINE lanes& operator+=(const lanes& b) {
        for (std::size_t l = 0; l < L; ++l) v[l] += b.v[l];
        return *this;
    }
    SPIKEX_LANES_INLINE lanes& operator-=(const lanes& b) {
        for (std::size_t l = 0; l < L; ++l) v[l] -= b.v[l];
        return *this;
    }
};

// A per-lane flag (a refractory cell among L), kept as a bit mask per lane so that
// choosing by it compiles to vector and/or (an exact choice of bits), not a branch.
template <std::size_t L>
struct lane_mask {
    std::array<std::uint64_t, L> v;
    SPIKEX_LANES_INLINE void set(std::size_t l, bool on) { v[l] = on ? ~std::uint64_t{0} : 0; }
};

#define SPIKEX_LANES_OPERATOR(op)                                                    \
    template <std::size_t L>                                                         \
    SPIKEX_LANES_INLINE lanes<L> operator op(const lanes<L>& a, const lanes<L>& b) { \
        lanes<L> r;                                                                  \
        for (std::size_t l = 0; l < L; ++l) r.v[l] = a.v[l] op b.v[l];               \
        return r;                                                                    \
    }                                                                                \
    template <std::size_t L>                                                         \
    SPIKEX_LANES_INLINE lanes<L> operator op(const lanes<L>& a, double b) {          \
        lanes<L> r;                                                                  \
        for (std::size_t l = 0; l < L; ++l) r.v[l] = a.v[l] op b;                    \
        return r;                                                                    \
    }                                                                                \
    template <std::size_t L>                                                         \
    SPIKEX_LANES_INLINE lanes<L> operator op(double a, const lanes<L>& b) {          \
        lanes<L> r;                                                                  \
        for (std::size_t l = 0; l < L; ++l) r.v[l] = a op b.v[l];                    \
        return r;                                                                    \
    }
SPIKEX_LANES_OPERATOR(+)
SPIKEX_LANES_OPERATOR(-)
SPIKEX_LANES_OPERATOR(*)
SPIKEX_LANES_OPERATOR(/)
#undef SPIKEX_LANES_OPERATOR

template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> operator-(const lanes<L>& a) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = -a.v[l];
    return r;
}

// std::min's rule (b < a ? b : a), so NaNs propagate as they do through std::min.
SPIKEX_LANES_INLINE double min(double a, double b) { return b < a ? b : a; }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> min(const lanes<L>& a, double b) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = b < a.v[l] ? b : a.v[l];
    return r;
}

// a > b ? a : b: a NaN a gives b (an error norm passing over a NaN component).
SPIKEX_LANES_INLINE double max(double a, double b) { return a > b ? a : b; }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> max(const lanes<L>& a, const lanes<L>& b) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = a.v[l] > b.v[l] ? a.v[l] : b.v[l];
    return r;
}

// x in every lane of a T (double or lanes).
template <class T>
SPIKEX_LANES_INLINE T splat(double x) {
    if constexpr (std::is_same_v<T, double>)
        return x;
    else
        return T::all(x);
}

// a < b, per lane.
SPIKEX_LANES_INLINE bool less(double a, double b) { return a < b; }
template <std::size_t L>
SPIKEX_LANES_INLINE lane_mask<L> less(const lanes<L>& a, double b) {
    lane_mask<L> r;
    for (std::size_t l = 0; l < L; ++l) r.set(l, a.v[l] < b);
    return r;
}

SPIKEX_LANES_INLINE double select(bool c, double a, double b) { return c ? a : b; }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> select(const lane_mask<L>& c, const lanes<L>& a, const lanes<L>& b) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l)
        r.v[l] = std::bit_cast<double>((std::bit_cast<std::uint64_t>(a.v[l]) & c.v[l]) |
                                       (std::bit_cast<std::uint64_t>(b.v[l]) & ~c.v[l]));
    return r;
}
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> select(const lane_mask<L>& c, double a, const lanes<L>& b) {
    return select(c, lanes<L>::all(a), b);
}

// f of every lane.
template <std::size_t L, class F>
SPIKEX_LANES_INLINE lanes<L> each(const lanes<L>& a, F f) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = f(a.v[l]);
    return r;
}

SPIKEX_LANES_INLINE double abs(double a) { return std::abs(a); }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> abs(const lanes<L>& a) {
    return each(
        a, [](double x) __attribute__((always_inline)) { return std::abs(x); });
}

// std::exp, per lane or (wide_vectors()) as vector_exp.hpp computes it: the same bits.
SPIKEX_LANES_INLINE double exp(double a) { return std::exp(a); }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> exp(const lanes<L>& a) {
    if (!wide_vectors())
        return each(
            a, [](double x) __attribute__((always_inline)) { return std::exp(x); });
    // vector_exp.hpp's fast_exp, one operation over all lanes at a time (so that each is
    // one vector instruction; the table is read lane by lane)
    using namespace exp_detail;
    std::array<double, L> shifted, kd, r, tail, scale, r2, low, high, sum;
    std::array<std::uint64_t, L> k, entry;
    bool all_fast = true;
    for (std::size_t l = 0; l < L; ++l) all_fast &= in_fast_range(a.v[l]);
    for (std::size_t l = 0; l < L; ++l) shifted[l] = std::fma(a.v[l], inverse_ln2_n, round_shift);
    for (std::size_t l = 0; l < L; ++l) k[l] = std::bit_cast<std::uint64_t>(shifted[l]);
    for (std::size_t l = 0; l < L; ++l) kd[l] = shifted[l] - round_shift;
    for (std::size_t l = 0; l < L; ++l) r[l] = std::fma(kd[l], minus_ln2_n_high, a.v[l]);
    for (std::size_t l = 0; l < L; ++l) r[l] = std::fma(kd[l], minus_ln2_n_low, r[l]);
    for (std::size_t l = 0; l < L; ++l) entry[l] = 2 * (k[l] % 128);
    for (std::size_t l = 0; l < L; ++l) tail[l] = std::bit_cast<double>(table[entry[l]]);
    for (std::size_t l = 0; l < L; ++l) scale[l] = std::bit_cast<double>(table[entry[l] + 1] + (k[l] << 45));
    for (std::size_t l = 0; l < L; ++l) r2[l] = r[l] * r[l];
    for (std::size_t l = 0; l < L; ++l) low[l] = std::fma(r[l], c3, c2);
    for (std::size_t l = 0; l < L; ++l) high[l] = std::fma(r[l], c5, c4);
    for (std::size_t l = 0; l < L; ++l) sum[l] = std::fma(low[l], r2[l], r[l] + tail[l]);
    for (std::size_t l = 0; l < L; ++l) sum[l] = std::fma(r2[l] * r2[l], high[l], sum[l]);
    lanes<L> result;
    for (std::size_t l = 0; l < L; ++l) result.v[l] = std::fma(scale[l], sum[l], scale[l]);
    if (!all_fast)
        for (std::size_t l = 0; l < L; ++l)
            if (!in_fast_range(a.v[l])) result.v[l] = std::exp(a.v[l]);
    return result;
}

} // namespace spikex::ode
