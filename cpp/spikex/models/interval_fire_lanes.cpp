// interval_fire's inputs eight at a time (interval_fire_lanes.hpp says why and how).
#include "spikex/models/interval_fire_lanes.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <limits>

#include <immintrin.h>

#include "spikex/models/interval_fire.hpp"
#include "spikex/models/ode/lanes.hpp"

namespace spikex::interval_fire {
namespace {

using doubles = ode::wide::doubles;
using words = ode::wide::words;
using signed_words = std::int64_t __attribute__((vector_size(64)));

// The approximate logarithm: x = 2^e a with a in [1, 2); a's top 7 fraction bits pick
// c ~ 1/a (the middle of the entry's range), so r = a c - 1 has |r| <= 2^-8 and
// ln x = e ln2 + ln(1 + r) - ln c, with ln(1 + r) to r^5. Error budget for positive normal
// finite x: truncation r^6/6 / (1 - |r|) < 1e-15; the rounding of a c (<= 2^-53 in r); the
// table's ln c (<= 2^-53); e ln2 with |e| <= 1022 (ln2's rounding, the product's and the
// final sum's: < 2e-13). Below approximate_log_error with a factor of 4 to spare.
constexpr int table_bits = 7;
constexpr std::uint64_t fraction_mask = (std::uint64_t{1} << 52) - 1;
constexpr std::uint64_t exponent_of_one = std::uint64_t{1023} << 52;

// Pairs (bits of c, bits of ln c) for the 128 entries.
const std::array<std::uint64_t, 2 << table_bits> log_table = [] {
    std::array<std::uint64_t, 2 << table_bits> t{};
    constexpr std::size_t entries = std::size_t{1} << table_bits;
    for (std::size_t k = 0; k < entries; ++k) {
        const double reciprocal = 1.0 / (1.0 + (static_cast<double>(k) + 0.5) / static_cast<double>(entries));
        t[2 * k] = std::bit_cast<std::uint64_t>(reciprocal);
        t[2 * k + 1] = std::bit_cast<std::uint64_t>(std::log(reciprocal));
    }
    return t;
}();

[[gnu::target("avx512f,fma"), gnu::always_inline]] inline doubles approximate_log(const doubles& x) {
    const words bits = reinterpret_cast<words>(x);
    const words entry = ((bits >> (52 - table_bits)) & ((std::uint64_t{1} << table_bits) - 1)) << 1;
    words reciprocal, log_reciprocal;
    ode::wide::gather(log_table.data(), entry, reciprocal);
    ode::wide::gather(log_table.data() + 1, entry, log_reciprocal);
    doubles exponent;
    ode::wide::to_doubles(reinterpret_cast<words>(reinterpret_cast<signed_words>(bits >> 52) - 1023), exponent);
    const doubles mantissa = reinterpret_cast<doubles>((bits & fraction_mask) | exponent_of_one);
    const doubles r = mantissa * reinterpret_cast<doubles>(reciprocal) - 1.0;
    const doubles log1p_r = r - r * r * (0.5 - r * (1.0 / 3.0 - r * (0.25 - r * 0.2)));
    return exponent * 0.69314718055994530942 + (log1p_r - reinterpret_cast<doubles>(log_reciprocal));
}

// field[word[l]] per lane: word[l] counts doubles from `field` (4 per cell_state).
[[gnu::target("avx512f,fma"), gnu::always_inline]] inline doubles gather_cells(const double* field, __m256i word) {
    return reinterpret_cast<doubles>(_mm512_i32gather_pd(word, field, 8));
}

[[gnu::target("avx512f,fma"), gnu::always_inline]] inline doubles all(double x) { return doubles{} + x; }

[[gnu::target("avx512f,fma"), gnu::always_inline]] inline doubles magnitude(const doubles& x) {
    return reinterpret_cast<doubles>(reinterpret_cast<words>(x) & ~(std::uint64_t{1} << 63));
}

[[gnu::target("avx512f,fma"), gnu::always_inline]] inline doubles ceiling(const doubles& x) {
    return reinterpret_cast<doubles>(
        _mm512_roundscale_pd(reinterpret_cast<__m512d>(x), _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
}

} // namespace

[[gnu::target("avx512f,fma")]] void inputs_wide(const cell_state* cells, const std::uint32_t* cell, const double* w,
                                                double t, std::int64_t now, double dt, double* m_after, double* step) {
    static_assert(sizeof(cell_state) == 4 * sizeof(double));
    const __m256i word = _mm256_slli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(cell)), 2);
    const double* base = &cells[0].m;
    const doubles m0 = gather_cells(base, word), t0 = gather_cells(base + 1, word);
    const doubles minf = gather_cells(base + 2, word), tau = gather_cells(base + 3, word);
    doubles weight;
    __builtin_memcpy(&weight, w, sizeof weight);

    // state_at(t, m0, t0, minf, tau) + w, operation by operation. A cell that had an input
    // earlier in this step has t0 = t, and exp(-0) = 1: about a third of the inputs here,
    // and outside ode::exp's vector range (it would call std::exp lane by lane).
    const doubles argument = -(t - t0) / tau;
    const auto now_again = t0 == t;
    const ode::lanes<8> decay = ode::exp(ode::lanes<8>::of(now_again ? all(-1.0) : argument));
    const doubles m = (minf + (m0 - minf) * (now_again ? all(1.0) : decay.in())) + weight;
    __builtin_memcpy(m_after, &m, sizeof m);

    // The bracket around event_step(t + tau ln((minf - m)/(minf - 1)), now, dt).
    const doubles excess = minf - 1.0, distance = minf - m;
    const doubles log_ratio = approximate_log(distance) - approximate_log(excess);
    const doubles inverse_dt = all(1.0 / dt);
    const doubles y = tau * log_ratio;
    const doubles x = (t + y) * inverse_dt - 1e-9;
    const doubles log_error = 2 * approximate_log_error + 1e-15 * magnitude(log_ratio);
    const doubles margin =
        (tau * log_error + 1e-14 * (magnitude(all(t)) + magnitude(y))) * inverse_dt + 1e-14 * magnitude(x) + 1e-12;
    const doubles low = ceiling(x - margin), high = ceiling(x + margin);
    const doubles next = all(static_cast<double>(now + 1));
    const doubles decided = low > next - 1.0 ? low : next; // event_step: never before step now + 1
    const auto valid = (excess > direct_formula_min_excess) & (distance >= 0x1p-1022) &
                       (distance <= 0x1.fffffffffffffp1023) & (low == high) & (magnitude(x) < 0x1p50) & (m <= 1.0);
    const doubles result = valid ? decided : all(std::numeric_limits<double>::quiet_NaN());
    __builtin_memcpy(step, &result, sizeof result);
}

[[gnu::target("avx512f,fma")]] void approximate_log_wide(const double* x, double* ln) {
    doubles v;
    __builtin_memcpy(&v, x, sizeof v);
    const doubles r = approximate_log(v);
    __builtin_memcpy(ln, &r, sizeof r);
}

} // namespace spikex::interval_fire
