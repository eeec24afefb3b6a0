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

namespace spikex::ode {

template <std::size_t L>
struct lanes {
    std::array<double, L> v;

    static lanes all(double x) {
        lanes r;
        r.v.fill(x);
        return r;
    }
    double operator[](std::size_t l) const { return v[l]; }
    double& operator[](std::size_t l) { return v[l]; }

    lanes& operator+=(const lanes& b) {
        for (std::size_t l = 0; l < L; ++l) v[l] += b.v[l];
        return *this;
    }
    lanes& operator-=(const lanes& b) {
        for (std::size_t l = 0; l < L; ++l) v[l] -= b.v[l];
        return *this;
    }
};

// A per-lane flag (a refractory cell among L), kept as a bit mask per lane so that
// choosing by it compiles to vector and/or (an exact choice of bits), not a branch.
template <std::size_t L>
struct lane_mask {
    std::array<std::uint64_t, L> v;
    void set(std::size_t l, bool on) { v[l] = on ? ~std::uint64_t{0} : 0; }
};

#define SPIKEX_LANES_OPERATOR(op)                                      \
    template <std::size_t L>                                           \
    lanes<L> operator op(const lanes<L>& a, const lanes<L>& b) {       \
        lanes<L> r;                                                    \
        for (std::size_t l = 0; l < L; ++l) r.v[l] = a.v[l] op b.v[l]; \
        return r;                                                      \
    }                                                                  \
    template <std::size_t L>                                           \
    lanes<L> operator op(const lanes<L>& a, double b) {                \
        lanes<L> r;                                                    \
        for (std::size_t l = 0; l < L; ++l) r.v[l] = a.v[l] op b;      \
        return r;                                                      \
    }                                                                  \
    template <std::size_t L>                                           \
    lanes<L> operator op(double a, const lanes<L>& b) {                \
        lanes<L> r;                                                    \
        for (std::size_t l = 0; l < L; ++l) r.v[l] = a op b.v[l];      \
        return r;                                                      \
    }
SPIKEX_LANES_OPERATOR(+)
SPIKEX_LANES_OPERATOR(-)
SPIKEX_LANES_OPERATOR(*)
SPIKEX_LANES_OPERATOR(/)
#undef SPIKEX_LANES_OPERATOR

template <std::size_t L>
lanes<L> operator-(const lanes<L>& a) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = -a.v[l];
    return r;
}

// std::min's rule (b < a ? b : a), so NaNs propagate as they do through std::min.
inline double min(double a, double b) { return b < a ? b : a; }
template <std::size_t L>
lanes<L> min(const lanes<L>& a, double b) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = b < a.v[l] ? b : a.v[l];
    return r;
}

// a > b ? a : b: a NaN a gives b (an error norm passing over a NaN component).
inline double max(double a, double b) { return a > b ? a : b; }
template <std::size_t L>
lanes<L> max(const lanes<L>& a, const lanes<L>& b) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = a.v[l] > b.v[l] ? a.v[l] : b.v[l];
    return r;
}

// x in every lane of a T (double or lanes).
template <class T>
T splat(double x) {
    if constexpr (std::is_same_v<T, double>)
        return x;
    else
        return T::all(x);
}

// a < b, per lane.
inline bool less(double a, double b) { return a < b; }
template <std::size_t L>
lane_mask<L> less(const lanes<L>& a, double b) {
    lane_mask<L> r;
    for (std::size_t l = 0; l < L; ++l) r.set(l, a.v[l] < b);
    return r;
}

inline double select(bool c, double a, double b) { return c ? a : b; }
template <std::size_t L>
lanes<L> select(const lane_mask<L>& c, const lanes<L>& a, const lanes<L>& b) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l)
        r.v[l] = std::bit_cast<double>((std::bit_cast<std::uint64_t>(a.v[l]) & c.v[l]) |
                                       (std::bit_cast<std::uint64_t>(b.v[l]) & ~c.v[l]));
    return r;
}
template <std::size_t L>
lanes<L> select(const lane_mask<L>& c, double a, const lanes<L>& b) {
    return select(c, lanes<L>::all(a), b);
}

// f of every lane.
template <std::size_t L, class F>
lanes<L> each(const lanes<L>& a, F f) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = f(a.v[l]);
    return r;
}

inline double abs(double a) { return std::abs(a); }
template <std::size_t L>
lanes<L> abs(const lanes<L>& a) {
    return each(a, [](double x) { return std::abs(x); });
}

// libm's exp per lane (a vector exp would round differently).
inline double exp(double a) { return std::exp(a); }
template <std::size_t L>
lanes<L> exp(const lanes<L>& a) {
    return each(a, [](double x) { return std::exp(x); });
}

} // namespace spikex::ode
