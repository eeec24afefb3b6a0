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
    }
    std::uint32_t sample(double u) const {
        return static_cast<std::uint32_t>(std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
    }
    const std::vector<double>& cdf() const { return cdf_; }

private:
    std::vector<double> cdf_;
};

} // namespace spikex
