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
//
// For 8 lanes every operation is one operation on GCC's vector type of that width
// (vector_of below), not a loop the compiler may or may not turn into one: in a
// model's whole flattened step, loops left to the vectoriser came out partly scalar
// (pairs of lanes, lanes one by one) and cost the AVX-512 clone most of its gain.
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <immintrin.h>

#include "spikex/models/ode/vector_exp.hpp"
#include "spikex/models/ode/vector_pow.hpp"

namespace spikex::ode {

// GCC's vector type of L doubles (and of L 64-bit words): for L = 8, one AVX-512 register.
template <std::size_t L>
struct vector_of { // other widths: plain arrays (the lanes operations loop over them)
    static constexpr bool native = false;
    using type = std::array<double, L>;
    using bits = std::array<std::uint64_t, L>;
};
template <>
struct vector_of<8> {
    static constexpr bool native = true;
    typedef double type __attribute__((vector_size(64)));
    typedef std::uint64_t bits __attribute__((vector_size(64)));
};

// Whether the lanes kernels run their AVX-512 clones, with exp and pow in vector
// registers (vector_exp.hpp, vector_pow.hpp): the CPU and OS support AVX-512, the vector
// exp and pow equal this process's std::exp and std::pow, and SPIKEX_VECTOR_ISA is not
// "baseline" (the switch that lets a test compare both ways). Decided once, when the
// library is loaded.
extern const bool wide_vectors_enabled;
inline bool wide_vectors() { return wide_vectors_enabled; }

// The lanes' width for the clone that runs, f(std::integral_constant<std::size_t, L>):
// eight doubles in one AVX-512 register where wide_vectors(); else sixteen in an array,
// whose loops the compiler turns into pairs (SSE2). A cell's step is a long chain of
// dependent operations: a vector type of two (one pair) waits on each division, and one of
// eight has no register without AVX-512 and lives in memory (iaf_cond_exp's step: 2.6x
// and 2.1x the cost of eight lanes in an array, sixteen 1.7x, all on a noisy host).
template <class F>
decltype(auto) with_lanes(F&& f) {
    if (wide_vectors()) return f(std::integral_constant<std::size_t, 8>{});
    return f(std::integral_constant<std::size_t, 16>{});
}

// Every lanes operation is inlined wherever it is used, so that it is compiled for the
// caller's instruction set (GCC inlines a function into a clone for another target only
// when it must: always_inline).
#define SPIKEX_LANES_INLINE [[gnu::always_inline]] inline

// One lane of a vector, as an lvalue (a vector's element cannot bind to double&).
template <class Vector>
struct lane_ref {
    Vector& v;
    std::size_t l;
    SPIKEX_LANES_INLINE operator double() const { return v[l]; }
    SPIKEX_LANES_INLINE lane_ref& operator=(double x) {
        v[l] = x;
        return *this;
    }
    SPIKEX_LANES_INLINE lane_ref& operator=(const lane_ref& o) { return *this = double(o); }
};

// L values held as the vector type where there is one (so that they stay in registers
// from one operation to the next), else as an array.
template <std::size_t L>
struct lanes {
    using storage = std::conditional_t<vector_of<L>::native, typename vector_of<L>::type, std::array<double, L>>;
    storage v;

    SPIKEX_LANES_INLINE static lanes all(double x) {
        if constexpr (vector_of<L>::native) {
            // lane 0's value to every lane: one broadcast (GCC 12 builds a vector of equal
            // values written out or as `x - vector{}` with a masked broadcast per lane)
            storage first{};
            first[0] = x;
            return {__builtin_shuffle(first, typename vector_of<L>::bits{})};
        }
        lanes r;
        for (std::size_t l = 0; l < L; ++l) r.v[l] = x;
        return r;
    }
    SPIKEX_LANES_INLINE double operator[](std::size_t l) const { return v[l]; }
    SPIKEX_LANES_INLINE decltype(auto) operator[](std::size_t l) {
        if constexpr (vector_of<L>::native)
            return lane_ref<storage>{v, l};
        else
            return (v[l]);
    }

    SPIKEX_LANES_INLINE lanes& operator+=(const lanes& b) { return *this = *this + b; }
    SPIKEX_LANES_INLINE lanes& operator-=(const lanes& b) { return *this = *this - b; }

    // As (and from) the vector type (native widths only).
    SPIKEX_LANES_INLINE storage in() const { return v; }
    SPIKEX_LANES_INLINE static lanes of(storage x) { return {x}; }
};

// A per-lane flag (a refractory cell among L), kept as a bit mask per lane so that
// choosing by it compiles to vector and/or (an exact choice of bits), not a branch.
template <std::size_t L>
struct lane_mask {
    using storage = std::conditional_t<vector_of<L>::native, typename vector_of<L>::bits, std::array<std::uint64_t, L>>;
    storage v;
    SPIKEX_LANES_INLINE void set(std::size_t l, bool on) { v[l] = on ? ~std::uint64_t{0} : 0; }
    SPIKEX_LANES_INLINE storage in() const { return v; }
    SPIKEX_LANES_INLINE static lane_mask of(storage x) { return {x}; }
};

#define SPIKEX_LANES_OPERATOR(op)                                                    \
    template <std::size_t L>                                                         \
    SPIKEX_LANES_INLINE lanes<L> operator op(const lanes<L>& a, const lanes<L>& b) { \
        if constexpr (vector_of<L>::native) return lanes<L>::of(a.in() op b.in());   \
        lanes<L> r;                                                                  \
        for (std::size_t l = 0; l < L; ++l) r.v[l] = a.v[l] op b.v[l];               \
        return r;                                                                    \
    }                                                                                \
    template <std::size_t L>                                                         \
    SPIKEX_LANES_INLINE lanes<L> operator op(const lanes<L>& a, double b) {          \
        if constexpr (vector_of<L>::native) return lanes<L>::of(a.in() op b);        \
        lanes<L> r;                                                                  \
        for (std::size_t l = 0; l < L; ++l) r.v[l] = a.v[l] op b;                    \
        return r;                                                                    \
    }                                                                                \
    template <std::size_t L>                                                         \
    SPIKEX_LANES_INLINE lanes<L> operator op(double a, const lanes<L>& b) {          \
        if constexpr (vector_of<L>::native) return lanes<L>::of(a op b.in());        \
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
    if constexpr (vector_of<L>::native) return lanes<L>::of(-a.in());
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = -a.v[l];
    return r;
}

// The bits of a vector of doubles, and back (GCC's cast between vector types of one size:
// std::bit_cast is not always_inline, and a Debug build calls it out of line from the
// AVX-512 clones, with a vector argument, which UBSan reports).
template <std::size_t L>
SPIKEX_LANES_INLINE typename vector_of<L>::bits bits_of(typename vector_of<L>::type x) {
    return reinterpret_cast<typename vector_of<L>::bits>(x);
}
template <std::size_t L>
SPIKEX_LANES_INLINE typename vector_of<L>::type doubles_of(typename vector_of<L>::bits x) {
    return reinterpret_cast<typename vector_of<L>::type>(x);
}

SPIKEX_LANES_INLINE double select(bool c, double a, double b) { return c ? a : b; }
// c ? a : b per lane, as a choice of bits (exact, no branch).
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> select(const lane_mask<L>& c, const lanes<L>& a, const lanes<L>& b) {
    if constexpr (vector_of<L>::native) {
        const auto m = c.in();
        return lanes<L>::of(doubles_of<L>((bits_of<L>(a.in()) & m) | (bits_of<L>(b.in()) & ~m)));
    }
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

// a < b, per lane.
SPIKEX_LANES_INLINE bool less(double a, double b) { return a < b; }
template <std::size_t L>
SPIKEX_LANES_INLINE lane_mask<L> less(const lanes<L>& a, const lanes<L>& b) {
    if constexpr (vector_of<L>::native)
        return lane_mask<L>::of(static_cast<typename vector_of<L>::bits>(a.in() < b.in()));
    lane_mask<L> r;
    for (std::size_t l = 0; l < L; ++l) r.set(l, a.v[l] < b.v[l]);
    return r;
}
template <std::size_t L>
SPIKEX_LANES_INLINE lane_mask<L> less(const lanes<L>& a, double b) {
    return less(a, lanes<L>::all(b));
}

// a == b, per lane.
template <std::size_t L>
SPIKEX_LANES_INLINE lane_mask<L> equal(const lanes<L>& a, const lanes<L>& b) {
    if constexpr (vector_of<L>::native)
        return lane_mask<L>::of(static_cast<typename vector_of<L>::bits>(a.in() == b.in()));
    lane_mask<L> r;
    for (std::size_t l = 0; l < L; ++l) r.set(l, a.v[l] == b.v[l]);
    return r;
}

// Masks combined lane by lane; whether any lane is set.
#define SPIKEX_MASK_OPERATOR(op)                                                                 \
    template <std::size_t L>                                                                     \
    SPIKEX_LANES_INLINE lane_mask<L> operator op(const lane_mask<L>& a, const lane_mask<L>& b) { \
        if constexpr (vector_of<L>::native) return lane_mask<L>::of(a.in() op b.in());           \
        lane_mask<L> r;                                                                          \
        for (std::size_t l = 0; l < L; ++l) r.v[l] = a.v[l] op b.v[l];                           \
        return r;                                                                                \
    }
SPIKEX_MASK_OPERATOR(&)
SPIKEX_MASK_OPERATOR(|)
#undef SPIKEX_MASK_OPERATOR
template <std::size_t L>
SPIKEX_LANES_INLINE lane_mask<L> operator~(const lane_mask<L>& a) {
    if constexpr (vector_of<L>::native) return lane_mask<L>::of(~a.in());
    lane_mask<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = ~a.v[l];
    return r;
}
template <std::size_t L>
SPIKEX_LANES_INLINE bool any(const lane_mask<L>& a) {
    std::uint64_t set = 0;
    for (std::size_t l = 0; l < L; ++l) set |= a.v[l];
    return set != 0;
}

// std::min's rule (b < a ? b : a), so NaNs propagate as they do through std::min.
SPIKEX_LANES_INLINE double min(double a, double b) { return b < a ? b : a; }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> min(const lanes<L>& a, double b) {
    const lanes<L> b_all = lanes<L>::all(b);
    return select(less(b_all, a), b_all, a);
}

// a > b ? a : b: a NaN a gives b (an error norm passing over a NaN component).
SPIKEX_LANES_INLINE double max(double a, double b) { return a > b ? a : b; }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> max(const lanes<L>& a, const lanes<L>& b) {
    return select(less(b, a), a, b);
}

// x in every lane of a T (double or lanes).
template <class T>
SPIKEX_LANES_INLINE T splat(double x) {
    if constexpr (std::is_same_v<T, double>)
        return x;
    else
        return T::all(x);
}

// f of every lane.
template <std::size_t L, class F>
SPIKEX_LANES_INLINE lanes<L> each(const lanes<L>& a, F f) {
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = f(a.v[l]);
    return r;
}

// std::abs: the sign bit cleared.
SPIKEX_LANES_INLINE double abs(double a) { return std::abs(a); }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> abs(const lanes<L>& a) {
    if constexpr (vector_of<L>::native)
        return lanes<L>::of(doubles_of<L>(bits_of<L>(a.in()) & ~(std::uint64_t{1} << 63)));
    return each(
        a, [](double x) __attribute__((always_inline)) { return std::abs(x); });
}

// AVX-512 operations GCC's vector types have no operator for. Compiled for AVX-512
// whatever the caller's target: inlined into the wide clones (and called only where
// wide_vectors(), the CPU having AVX-512).
namespace wide {
using doubles = vector_of<8>::type;
using words = vector_of<8>::bits;
[[gnu::target("avx512f,fma")]] inline void fma(const doubles& a, const doubles& b, const doubles& c, doubles& r) {
    r = reinterpret_cast<doubles>(
        _mm512_fmadd_pd(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b), reinterpret_cast<__m512d>(c)));
}
// table[index] per lane, one gather instruction.
[[gnu::target("avx512f,fma")]] inline void gather(const std::uint64_t* table, const words& index, words& r) {
    r = reinterpret_cast<words>(
        _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), 0xff, reinterpret_cast<__m512i>(index), table, 8));
}
// Integers (each within int32's range) as doubles, exactly.
[[gnu::target("avx512f,fma")]] inline void to_doubles(const words& integers, doubles& r) {
    r = reinterpret_cast<doubles>(
        _mm512_maskz_cvtepi32_pd(0xff, _mm512_maskz_cvtepi64_epi32(0xff, reinterpret_cast<__m512i>(integers))));
}
} // namespace wide

// vector_exp.hpp's reduce() and scaled_exp() on eight lanes, operation by operation
// (AVX-512 code only).
SPIKEX_LANES_INLINE void wide_reduce(const wide::doubles& x, wide::words& k, wide::doubles& r) {
    using namespace exp_detail;
    auto all = [](double v) __attribute__((always_inline)) { return lanes<8>::all(v).in(); };
    wide::doubles shifted;
    wide::fma(x, all(inverse_ln2_n), all(round_shift), shifted);
    k = bits_of<8>(shifted);
    const wide::doubles kd = shifted - all(round_shift);
    wide::fma(kd, all(minus_ln2_n_high), x, r);
    wide::fma(kd, all(minus_ln2_n_low), r, r);
}
SPIKEX_LANES_INLINE void wide_scaled_exp(const wide::words& k, const wide::doubles& r, wide::doubles& e) {
    using namespace exp_detail;
    auto all = [](double v) __attribute__((always_inline)) { return lanes<8>::all(v).in(); };
    const wide::words entry = (k & 127) << 1;
    wide::words tail, scale;
    wide::gather(table, entry, tail);
    wide::gather(table + 1, entry, scale);
    scale += k << 45;
    const wide::doubles r2 = r * r;
    wide::doubles low, high, sum;
    wide::fma(r, all(c3), all(c2), low);
    wide::fma(r, all(c5), all(c4), high);
    wide::fma(low, r2, r + doubles_of<8>(tail), sum);
    wide::fma(r2 * r2, high, sum, sum);
    wide::fma(doubles_of<8>(scale), sum, doubles_of<8>(scale), e);
}

// std::exp, per lane or (wide_vectors()) as vector_exp.hpp computes it: the same bits.
SPIKEX_LANES_INLINE double exp(double a) { return std::exp(a); }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> exp(const lanes<L>& a) {
    if (!wide_vectors())
        return each(
            a, [](double x) __attribute__((always_inline)) { return std::exp(x); });
    using namespace exp_detail;
    lanes<L> result;
    if constexpr (L == 8) {
        // vector_exp.hpp's fast_exp on the eight lanes, operation by operation
        wide::doubles r, e;
        wide::words k;
        wide_reduce(a.in(), k, r);
        wide_scaled_exp(k, r, e);
        result = lanes<8>::of(e);
    } else {
        std::array<double, L> shifted, kd, r, tail, scale, r2, low, high, sum;
        std::array<std::uint64_t, L> k, entry;
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
        for (std::size_t l = 0; l < L; ++l) result.v[l] = std::fma(scale[l], sum[l], scale[l]);
    }
    // inputs outside the fast range: std::exp itself
    bool all_fast = true;
    for (std::size_t l = 0; l < L; ++l) all_fast &= in_fast_range(a.v[l]);
    if (!all_fast)
        for (std::size_t l = 0; l < L; ++l)
            if (!in_fast_range(a.v[l])) result.v[l] = std::exp(a.v[l]);
    return result;
}

// pow as vector_pow.hpp describes it, on eight lanes: log x = k ln2 + log c + log1p(r) with
// r = z/c - 1 exact, in double-double; then exp(y log x). Lanes outside its fast path (x
// not a positive normal number, |y| outside [2^-65, 2^63), |y log x| outside [2^-54,
// 512)): std::pow. Inlined into AVX-512 code only.
SPIKEX_LANES_INLINE lanes<8> wide_pow(const lanes<8>& a, const lanes<8>& b) {
    using namespace pow_detail;
    using wide::doubles, wide::words;
    using signed_words = std::int64_t __attribute__((vector_size(64)));
    auto all = [](double x) __attribute__((always_inline)) { return lanes<8>::all(x).in(); };
    auto all_words = [](std::uint64_t x) __attribute__((always_inline)) { return words{} + x; };
    const doubles x = a.in(), y = b.in();
    const words ix = bits_of<8>(x);
    const words offset = ix - all_words(offset_bits);
    const words entry = ((offset >> 45) & 127) * 3;
    doubles kd, r, t1, lo1, p1, p2, lo3, p3, q, p, lo, e_low;
    wide::to_doubles(reinterpret_cast<words>(reinterpret_cast<signed_words>(offset) >> 52), kd);
    const doubles z = doubles_of<8>(ix - (offset & all_words(std::uint64_t{0xfff} << 52)));
    words inverse_c, log_c, log_c_tail;
    wide::gather(log_table, entry, inverse_c);
    wide::gather(log_table + 1, entry, log_c);
    wide::gather(log_table + 2, entry, log_c_tail);
    wide::fma(z, doubles_of<8>(inverse_c), all(-1.0), r);
    wide::fma(kd, all(ln2_high), doubles_of<8>(log_c), t1);
    wide::fma(kd, all(ln2_low), doubles_of<8>(log_c_tail), lo1);
    const doubles ar = r * all(a0);
    wide::fma(r, all(a2), all(a1), p1);
    wide::fma(r, all(a4), all(a3), p2);
    const doubles t2 = r + t1;
    const doubles ar2 = r * ar;
    const doubles lo2 = (t1 - t2) + r;
    const doubles ar3 = r * ar2;
    wide::fma(ar, r, -ar2, lo3);
    wide::fma(r, all(a6), all(a5), p3);
    const doubles hi = t2 + ar2;
    const doubles lo4 = (t2 - hi) + ar2;
    wide::fma(p3, ar2, p2, q);
    wide::fma(ar2, q, p1, p);
    wide::fma(ar3, p, ((lo1 + lo2) + lo3) + lo4, lo);
    const doubles log_high = hi + lo;
    const doubles log_low = (hi - log_high) + lo;
    const doubles e_high = y * log_high;
    wide::fma(log_high, y, -e_high, e_low);
    wide::fma(y, log_low, e_low, e_low);
    doubles re, result;
    words k;
    wide_reduce(e_high, k, re);
    wide_scaled_exp(k, e_low + re, result);
    // lanes outside the fast path: std::pow itself
    const words top_x = ix >> 52, top_y = (bits_of<8>(y) >> 52) & 0x7ff, top_e = (bits_of<8>(e_high) >> 52) & 0x7ff;
    const words slow =
        reinterpret_cast<words>((top_x - 1 >= 0x7fe) | (top_y - 0x3be >= 0x80) | (top_e - 0x3c9 >= 0x3f));
    lanes<8> out = lanes<8>::of(result);
    if (any(lane_mask<8>::of(slow)))
        for (std::size_t l = 0; l < 8; ++l)
            if (slow[l]) out[l] = std::pow(a.v[l], b.v[l]);
    return out;
}

// std::pow, per lane or (wide_vectors()) as vector_pow.hpp computes it: the same bits.
SPIKEX_LANES_INLINE double pow(double a, double b) { return std::pow(a, b); }
template <std::size_t L>
SPIKEX_LANES_INLINE lanes<L> pow(const lanes<L>& a, const lanes<L>& b) {
    if constexpr (L == 8) {
        if (wide_vectors()) return wide_pow(a, b);
    }
    lanes<L> r;
    for (std::size_t l = 0; l < L; ++l) r.v[l] = std::pow(a.v[l], b.v[l]);
    return r;
}

} // namespace spikex::ode
