#include "spikex/models/ode/lanes.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace spikex::ode {
namespace {

// Whether vector_exp.hpp's exp, compiled as the wide clones use it, equals std::exp here:
// on every table entry and rounding position, the ends of the fast range, and a spread of
// the values models use. glibc's FMA build gives equal bits; another libm (or glibc's
// non-FMA build) would not, and the lanes then call std::exp.
[[gnu::target("avx512f,fma")]] bool vector_exp_matches_libm() {
    std::uint64_t state = 0x9e3779b97f4a7c15u;
    auto agrees = [](double x) {
        return std::bit_cast<std::uint64_t>(exp_detail::fast_exp(x)) == std::bit_cast<std::uint64_t>(std::exp(x));
    };
    for (int i = 0; i < 1 << 16; ++i) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        // exponents from 2^-54 to 2^8 (the fast range), both signs, random mantissas
        const int exponent = int((state >> 33) % 63) - 54;
        const double mantissa =
            1.0 + double(state >> 12 & ((1u << 20) - 1)) * 0x1p-20 + double(state & 0xfff) * 0x1p-32;
        const double x = std::ldexp((state >> 63) ? -mantissa : mantissa, exponent);
        if (exp_detail::in_fast_range(x) && !agrees(x)) return false;
    }
    for (int k = -128 * 8; k <= 128 * 8; ++k) // every table entry, around its centre
        for (const double offset: {0.0, 1e-3, -1e-3, 2.7e-3})
            if (const double x = k * (0.6931471805599453 / 128) + offset; exp_detail::in_fast_range(x) && !agrees(x))
                return false;
    for (const double x: {0x1p-54, -0x1p-54, 511.9, -511.9, 709.0, -708.0})
        if (exp_detail::in_fast_range(x) && !agrees(x)) return false;
    return true;
}

// Whether lanes.hpp's wide_pow equals std::pow here: on x across the exponent range with
// random mantissas and in every table subinterval, for the step-size controls' exponents
// (1/5, 1/6) and others of both signs. The same reasoning as for exp.
[[gnu::target("avx512f,fma")]] bool vector_pow_matches_libm() {
    std::uint64_t state = 0x2545f4914f6cdd1du;
    constexpr double exponents[] = {1.0 / 5.0, 1.0 / 6.0, -1.0 / 5.0, -1.0 / 6.0, 0.5, 3.0, -2.5, 1e-3};
    auto agree = [](const lanes<8>& x, const lanes<8>& y) {
        const lanes<8> p = wide_pow(x, y);
        for (std::size_t l = 0; l < 8; ++l)
            if (std::bit_cast<std::uint64_t>(p[l]) != std::bit_cast<std::uint64_t>(std::pow(x[l], y[l]))) return false;
        return true;
    };
    lanes<8> x = lanes<8>::all(1.0), y = lanes<8>::all(1.0);
    for (int i = 0; i < 1 << 13; ++i) {
        for (std::size_t l = 0; l < 8; ++l) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            const double mantissa =
                1.0 + double(state >> 12 & ((1u << 20) - 1)) * 0x1p-20 + double(state & 0xfff) * 0x1p-32;
            x[l] = std::ldexp(mantissa, int((state >> 33) % 121) - 60); // 2^-60 .. 2^61
            y[l] = exponents[(state >> 40) % std::size(exponents)];
        }
        if (!agree(x, y)) return false;
    }
    for (std::uint64_t i = 0; i < 128; ++i) // every subinterval of the log table, above and below 1
        for (std::size_t l = 0; l < 8; ++l) {
            x[l] = std::bit_cast<double>(pow_detail::offset_bits + (i << 45) + (std::uint64_t{l} << 41) + 12345u);
            y[l] = exponents[l];
            if (l == 7 && !agree(x, y)) return false;
        }
    return true;
}

bool decide_wide_vectors() {
    const char* isa = std::getenv("SPIKEX_VECTOR_ISA");
    if (isa != nullptr && std::string_view(isa) == "baseline") return false;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("fma")) return false;
    return vector_exp_matches_libm() && vector_pow_matches_libm();
}

} // namespace

const bool wide_vectors_enabled = decide_wide_vectors();

} // namespace spikex::ode
