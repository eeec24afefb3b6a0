#pragma once
// Poisson counts per step by inversion, for the Poisson inputs of cells and devices.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace spikex {

// Largest mean number of Poisson events per step accepted (rate * h / 1000).
inline constexpr double max_poisson_mean = 500.0;

// Poisson(mean) by inversion of one uniform u in [0, 1): cdf[j] = P(K <= j), tabulated by
// p_0 = exp(-mean), p_k = p_{k-1}*mean/k up to the first k > mean with p_k < 2^-64 (the
// tail beyond is below the 2^-53 resolution of u); k = number of entries <= u (so a u
// beyond the last entry, probability < 1e-15, gives the last k + 1).
//
// The search starts from a guide table (Chen and Asau's indexed search): guide[g] is the
// number of entries <= g / G for G = 2^bits >= 4 entries, and u lies in [g/G, (g+1)/G) for
// g = floor(u G) (exact: G is a power of two), so k = guide[g] plus the few entries between
// g/G and u: the same k as a binary search over the whole table (a mean of a few entries
// scanned, instead of log2(entries) unpredictable branches: the drive of the hpc_benchmark
// draws one count per cell and step).
class poisson_table {
public:
    poisson_table() = default;
    explicit poisson_table(double mean) {
        if (!(mean > 0)) return;
        double p = std::exp(-mean), sum = 0.0;
        for (std::uint32_t k = 0;; ++k) {
            if (k > 0) p *= mean / k;
            sum += p;
            cdf_.push_back(sum);
            if (k > mean && p < 0x1.0p-64) break;
        }
        while ((std::size_t{1} << guide_bits_) < 4 * cdf_.size()) ++guide_bits_;
        const std::size_t G = std::size_t{1} << guide_bits_;
        guide_scale_ = static_cast<double>(G);
        guide_.resize(G);
        std::uint32_t k = 0; // non-decreasing in g
        for (std::size_t g = 0; g < G; ++g) guide_[g] = k = search_from(k, static_cast<double>(g) / guide_scale_);
    }
    // u in [0, 1).
    std::uint32_t sample(double u) const {
        if (guide_.empty()) return 0;
        const auto g = static_cast<std::size_t>(u * guide_scale_); // exact: a power of two
        return search_from(guide_[g], u);
    }
    // sample(u) is 0 exactly for u below this (P(K = 0); above 1 for an empty table), and
    // at most 1 below one_at_most_below() (P(K <= 1)).
    double none_below() const { return cdf_.empty() ? 2.0 : cdf_[0]; }
    double one_at_most_below() const { return cdf_.size() < 2 ? 2.0 : cdf_[1]; }
    const std::vector<double>& cdf() const { return cdf_; }
    std::size_t bytes() const { return cdf_.capacity() * sizeof(double) + guide_.capacity() * sizeof(std::uint32_t); }

private:
    // The number of entries <= u, knowing that the first k are.
    std::uint32_t search_from(std::uint32_t k, double u) const {
        while (k < cdf_.size() && cdf_[k] <= u) ++k;
        return k;
    }

    std::vector<double> cdf_;
    std::vector<std::uint32_t> guide_;
    unsigned guide_bits_ = 0;
    double guide_scale_ = 1.0; // G
};

} // namespace spikex
