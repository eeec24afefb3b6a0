#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "spikex/network/discrete_sampling.hpp"

namespace spikex {
namespace {

// ln(n!) - ln(sqrt(2 pi n) (n/e)^n): the error of Stirling's formula. Series in 1/n above
// 15 (coefficients 1/12, 1/360, 1/1260, 1/1680, 1/1188), lgamma below (small numbers: no
// cancellation worth speaking of).
double stirling_error(double n) {
    constexpr double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680, s4 = 1.0 / 1188;
    if (n <= 15) return std::lgamma(n + 1) - (n + 0.5) * std::log(n) + n - 0.5 * std::log(2 * std::numbers::pi);
    const double nn = n * n;
    if (n > 500) return (s0 - s1 / nn) / n;
    if (n > 80) return (s0 - (s1 - s2 / nn) / nn) / n;
    if (n > 35) return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

// x ln(x / m) + m - x, without cancellation when x is close to m (series in (x-m)/(x+m)).
double deviance(double x, double m) {
    if (std::abs(x - m) < 0.1 * (x + m)) {
        double v = (x - m) / (x + m);
        double s = (x - m) * v;
        double term = 2 * x * v;
        const double vv = v * v;
        for (int j = 1; j < 1000; ++j) {
            term *= vv;
            const double next = s + term / (2 * j + 1);
            if (next == s) return next;
            s = next;
        }
        return s;
    }
    return x * std::log(x / m) + m - x;
}

// Inversion searched outwards from the mode: probabilities taken in the order mode,
// mode+1, mode-1, mode+2, ...; a side stops at the support's end or when its
// probabilities underflow (they only decrease away from the mode: unimodal laws).
template <typename Up, typename Down>
std::uint64_t search_from_mode(std::uint64_t lo, std::uint64_t hi, std::uint64_t mode, double p_mode, Up ratio_up,
                               Down ratio_down, double u) {
    if (u < p_mode) return mode;
    u -= p_mode;
    std::uint64_t k_up = mode, k_down = mode;
    double p_up = p_mode, p_down = p_mode;
    bool up = mode<hi, down = mode> lo;
    while (up || down) {
        if (up) {
            p_up *= ratio_up(k_up);
            ++k_up;
            if (u < p_up) return k_up;
            u -= p_up;
            up = k_up < hi && p_up > 0;
        }
        if (down) {
            p_down *= ratio_down(k_down);
            --k_down;
            if (u < p_down) return k_down;
            u -= p_down;
            down = k_down > lo && p_down > 0;
        }
    }
    return mode; // u fell in the rounding residue of the probabilities (< 1e-12)
}

std::uint64_t clamp_mode(long double mode, std::uint64_t lo, std::uint64_t hi) {
    if (mode <= static_cast<long double>(lo)) return lo;
    if (mode >= static_cast<long double>(hi)) return hi;
    return static_cast<std::uint64_t>(mode);
}

std::uint64_t binomial(std::uint64_t n, double p, double q, double u) {
    if (n == 0 || p <= 0) return 0;
    if (q <= 0) return n;
    const double nd = static_cast<double>(n);
    const std::uint64_t mode = clamp_mode(std::floor((static_cast<long double>(n) + 1) * p), 0, n);
    const double odds = p / q, inverse_odds = q / p;
    return search_from_mode(
        0, n, mode, binomial_probability(static_cast<double>(mode), nd, p, q),
        [&](std::uint64_t k) { return static_cast<double>(n - k) / static_cast<double>(k + 1) * odds; },
        [&](std::uint64_t k) { return static_cast<double>(k) / static_cast<double>(n - k + 1) * inverse_odds; }, u);
}

} // namespace

double binomial_probability(double k, double n, double p, double q) {
    if (p <= 0) return k == 0 ? 1.0 : 0.0;
    if (q <= 0) return k == n ? 1.0 : 0.0;
    if (k == 0) {
        if (n == 0) return 1.0;
        return std::exp(p < 0.1 ? -deviance(n, n * q) - n * p : n * std::log(q));
    }
    if (k == n) return std::exp(q < 0.1 ? -deviance(n, n * p) - n * q : n * std::log(p));
    if (k < 0 || k > n) return 0.0;
    const double lc =
        stirling_error(n) - stirling_error(k) - stirling_error(n - k) - deviance(k, n * p) - deviance(n - k, n * q);
    const double lf = std::log(2 * std::numbers::pi) + std::log(k) + std::log1p(-k / n);
    return std::exp(lc - 0.5 * lf);
}

std::uint64_t binomial_from_uniform(std::uint64_t n, double p, double u) { return binomial(n, p, 1.0 - p, u); }

std::uint64_t binomial_split(std::uint64_t n, std::uint64_t good, std::uint64_t total, double u) {
    if (total == 0 || good == 0) return 0;
    if (good >= total) return n;
    const auto t = static_cast<double>(total);
    return binomial(n, static_cast<double>(good) / t, static_cast<double>(total - good) / t, u);
}

std::uint64_t hypergeometric_from_uniform(std::uint64_t total, std::uint64_t good, std::uint64_t draws, double u) {
    const std::uint64_t bad = total - good;
    const std::uint64_t lo = draws > bad ? draws - bad : 0;
    const std::uint64_t hi = std::min(draws, good);
    if (lo >= hi) return lo;
    const std::uint64_t mode =
        clamp_mode(std::floor((static_cast<long double>(draws) + 1) * (static_cast<long double>(good) + 1) /
                              (static_cast<long double>(total) + 2)),
                   lo, hi);
    // P(k) = b(k; G, p) b(n - k; M - G, p) / b(n; M, p) for any p: p = n / M keeps all three
    // near their modes (R's dhyper does the same).
    const auto M = static_cast<double>(total), G = static_cast<double>(good), B = static_cast<double>(bad),
               n = static_cast<double>(draws), k = static_cast<double>(mode);
    const double p = n / M, q = static_cast<double>(total - draws) / M;
    const double p_mode =
        binomial_probability(k, G, p, q) * binomial_probability(n - k, B, p, q) / binomial_probability(n, M, p, q);
    // bad - (draws - k) >= 0 for every k >= lo.
    auto rest = [&](std::uint64_t k) { return static_cast<double>(bad - (draws - k)); };
    return search_from_mode(
        lo, hi, mode, p_mode,
        [&](std::uint64_t k) {
            return static_cast<double>(good - k) * static_cast<double>(draws - k) /
                   (static_cast<double>(k + 1) * (rest(k) + 1));
        },
        [&](std::uint64_t k) {
            return static_cast<double>(k) * rest(k) /
                   (static_cast<double>(good - k + 1) * static_cast<double>(draws - k + 1));
        },
        u);
}

std::uint64_t geometric_gap(double p, double u) {
    constexpr auto never = std::numeric_limits<std::uint64_t>::max();
    if (p >= 1) return 0;
    if (p <= 0) return never;
    const double g = std::floor(std::log1p(-u) / std::log1p(-p));
    if (!(g < 1.8e19)) return never;
    return static_cast<std::uint64_t>(g);
}

} // namespace spikex
