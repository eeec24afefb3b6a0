// Bits to numbers for the distributions (part of the model definition: changing a line
// here changes every network that draws from it).
//  uniform u in [0, 1):  random_stream::next_uniform (two words, 53 bits).
//  normal:               Box-Muller on two uniforms u1, u2 (u1 first):
//                        z = sqrt(-2 ln(1 - u1)) * cos(2 pi u2); x = mean + std * z
//                        (one normal per pair; the sine half is not used, so every draw
//                        consumes exactly one block).
//  normal_clipped:       normal draws until low <= x <= high (each try one block).
//  uniform:              low + (high - low) * u.
//  lognormal:            exp(mean + std * z), z as for normal.
//  exponential:          -beta * ln(1 - u).
#include <cmath>
#include <numbers>
#include <sstream>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/network/random_distribution.hpp"

namespace spikex {
namespace {

std::string number(double x) {
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

double standard_normal(random_stream& stream) {
    const double u1 = stream.next_uniform();
    const double u2 = stream.next_uniform();
    return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Probability mass of [low, high] under normal(mean, std).
double normal_mass(double mean, double std, double low, double high) {
    auto cdf = [&](double x) { return 0.5 * std::erfc(-(x - mean) / (std * std::numbers::sqrt2)); };
    return cdf(high) - cdf(low);
}

// Below this mass a normal_clipped would need more than ~10^6 tries per draw.
constexpr double min_clipped_mass = 1e-6;

} // namespace

std::string distribution_name(distribution_kind kind) {
    switch (kind) {
    case distribution_kind::constant:
        return "constant";
    case distribution_kind::normal:
        return "normal";
    case distribution_kind::normal_clipped:
        return "normal_clipped";
    case distribution_kind::uniform:
        return "uniform";
    case distribution_kind::lognormal:
        return "lognormal";
    case distribution_kind::exponential:
        return "exponential";
    }
    return "?";
}

distribution_kind parse_distribution_kind(const std::string& name, const std::string& key) {
    for (auto k: {distribution_kind::constant, distribution_kind::normal, distribution_kind::normal_clipped,
                  distribution_kind::uniform, distribution_kind::lognormal, distribution_kind::exponential}) {
        if (distribution_name(k) == name) return k;
    }
    throw user_error(spikex::format("{}: distribution \"{}\" is unknown: allowed are \"constant\", \"normal\", "
                                    "\"normal_clipped\", \"uniform\", \"lognormal\", \"exponential\"",
                                    key, name));
}

void check_distribution(const random_distribution& d, const std::string& key) {
    const std::string name = distribution_name(d.kind);
    auto fail = [&](const std::string& parameter, double value, const std::string& allowed) {
        throw user_error(spikex::format("{}: {} {} = {}: {}", key, name, parameter, number(value), allowed));
    };
    auto finite = [&](const std::string& parameter, double value) {
        if (!std::isfinite(value)) fail(parameter, value, "must be a finite number");
    };
    switch (d.kind) {
    case distribution_kind::constant:
        finite("value", d.value);
        break;
    case distribution_kind::normal:
    case distribution_kind::lognormal:
        finite("mean", d.mean);
        finite("std", d.std);
        if (d.std < 0) fail("std", d.std, "must be >= 0");
        break;
    case distribution_kind::normal_clipped:
        finite("mean", d.mean);
        finite("std", d.std);
        if (d.std < 0) fail("std", d.std, "must be >= 0");
        if (std::isnan(d.low)) fail("low", d.low, "must be a number (or -inf)");
        if (std::isnan(d.high)) fail("high", d.high, "must be a number (or inf)");
        if (!(d.low <= d.high)) fail("low", d.low, spikex::format("must be <= high = {}", number(d.high)));
        if (d.std == 0) {
            if (d.mean < d.low || d.mean > d.high) {
                fail("mean", d.mean,
                     spikex::format("must lie in [low, high] = [{}, {}] when std = 0", number(d.low), number(d.high)));
            }
        } else if (normal_mass(d.mean, d.std, d.low, d.high) < min_clipped_mass) {
            fail("mean", d.mean,
                 spikex::format("with std = {}, [low, high] = [{}, {}] has probability < {:g}: no value could be drawn",
                                number(d.std), number(d.low), number(d.high), min_clipped_mass));
        }
        break;
    case distribution_kind::uniform:
        finite("low", d.low);
        finite("high", d.high);
        if (!(d.low <= d.high)) fail("low", d.low, spikex::format("must be <= high = {}", number(d.high)));
        break;
    case distribution_kind::exponential:
        finite("beta", d.beta);
        if (!(d.beta > 0)) fail("beta", d.beta, "must be > 0 (the mean)");
        break;
    }
}

double draw(const random_distribution& d, random_stream& stream) {
    switch (d.kind) {
    case distribution_kind::constant:
        return d.value;
    case distribution_kind::normal:
        return d.mean + d.std * standard_normal(stream);
    case distribution_kind::normal_clipped:
        for (;;) {
            const double x = d.mean + d.std * standard_normal(stream);
            if (x >= d.low && x <= d.high) return x;
        }
    case distribution_kind::uniform:
        return d.low + (d.high - d.low) * stream.next_uniform();
    case distribution_kind::lognormal:
        return std::exp(d.mean + d.std * standard_normal(stream));
    case distribution_kind::exponential:
        return -d.beta * std::log(1.0 - stream.next_uniform());
    }
    return d.value;
}

double lowest_value(const random_distribution& d) {
    switch (d.kind) {
    case distribution_kind::constant:
        return d.value;
    case distribution_kind::normal:
        return d.std == 0 ? d.mean : -INFINITY;
    case distribution_kind::normal_clipped:
        return d.std == 0 ? d.mean : d.low;
    case distribution_kind::uniform:
        return d.low;
    case distribution_kind::lognormal:
        return d.std == 0 ? std::exp(d.mean) : 0.0;
    case distribution_kind::exponential:
        return 0.0;
    }
    return d.value;
}

double highest_value(const random_distribution& d) {
    switch (d.kind) {
    case distribution_kind::constant:
        return d.value;
    case distribution_kind::normal:
        return d.std == 0 ? d.mean : INFINITY;
    case distribution_kind::normal_clipped:
        return d.std == 0 ? d.mean : d.high;
    case distribution_kind::uniform:
        return d.high;
    case distribution_kind::lognormal:
        return d.std == 0 ? std::exp(d.mean) : INFINITY;
    case distribution_kind::exponential:
        return INFINITY;
    }
    return d.value;
}

} // namespace spikex
