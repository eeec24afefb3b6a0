#pragma once
// Distributions of parameters, weights and delays, drawn from one Philox stream
// (random_stream) so that a value depends only on the stream's key and purpose: never on
// ranks, threads, the exchange method or the cell distribution.
//
// Names and parameters as NEST's nest.random / PyNN's RandomDistribution:
//  constant        value
//  normal          mean, std                      Box-Muller, one normal per two uniforms
//  normal_clipped  mean, std, low, high           normal redrawn until low <= x <= high
//                                                 (NEST's math.redraw, PyNN's normal_clipped)
//  uniform         low, high                      low + (high - low) * u
//  lognormal       mean, std (of the log)         exp(normal)
//  exponential     beta (the scale = mean)        -beta * log(1 - u)
// The bits-to-number mapping is in random_distribution.cpp; it is part of the model
// definition (changing it changes every network that uses it).
#include <limits>
#include <string>

#include "spikex/core/random.hpp"

namespace spikex {

enum class distribution_kind { constant, normal, normal_clipped, uniform, lognormal, exponential };

struct random_distribution {
    distribution_kind kind = distribution_kind::constant;
    double value = 0.0;                                    // constant
    double mean = 0.0;                                     // normal, normal_clipped, lognormal (of the log)
    double std = 0.0;                                      // normal, normal_clipped, lognormal (of the log)
    double low = -std::numeric_limits<double>::infinity(); // normal_clipped, uniform
    double high = std::numeric_limits<double>::infinity(); // normal_clipped, uniform
    double beta = 1.0;                                     // exponential

    static random_distribution constant(double v) {
        random_distribution d;
        d.value = v;
        return d;
    }
    bool is_constant() const { return kind == distribution_kind::constant; }
};

// The distribution's name as users write it ("normal_clipped", ...); parse_distribution_kind
// throws user_error naming `key` and the allowed names.
std::string distribution_name(distribution_kind kind);
distribution_kind parse_distribution_kind(const std::string& name, const std::string& key);

// user_error naming `key`, the bad parameter, its value and what is allowed, for an
// impossible distribution (std < 0, low > high, beta <= 0, a normal_clipped whose
// interval has (numerically) no mass, non-finite numbers).
void check_distribution(const random_distribution& d, const std::string& key);

// One value from the stream (a constant consumes nothing).
double draw(const random_distribution& d, random_stream& stream);

// Smallest / largest value the distribution can produce (-inf / inf if unbounded).
double lowest_value(const random_distribution& d);
double highest_value(const random_distribution& d);

} // namespace spikex
