#pragma once
// x^mu for a fixed mu, keeping the last answer. The synapses one spike reaches often share a
// weight (networks start with one weight, and each synapse keeps it until its first update), and
// std::pow costs about 20 ns: in the hpc_benchmark's first 200 ms, 65 % of the facilitations ask
// for the same x as the one before. The answer is std::pow's for the same bits, so the weights
// are unchanged; a miss costs a comparison.
#include <bit>
#include <cmath>
#include <cstdint>

namespace spikex {

class repeated_power {
public:
    explicit repeated_power(double mu): mu_(mu), last_(compute(0.0)) {}
    double operator()(double x) {
        const auto bits = std::bit_cast<std::uint64_t>(x);
        if (bits != last_bits_) { // bits, not ==: -0 and +0 may differ
            last_bits_ = bits;
            last_ = compute(x);
        }
        return last_;
    }

private:
    double compute(double x) const { return mu_ == 0.0 ? 1.0 : mu_ == 1.0 ? x : std::pow(x, mu_); } // 0, 1: exact
    double mu_;
    std::uint64_t last_bits_ = 0; // +0.0's
    double last_;
};

} // namespace spikex
