#include <cmath>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/synapses/stdp_pl_synapse_hom.hpp"

namespace spikex {

const std::vector<std::string>& stdp_pl_parameter_names() {
    static const std::vector<std::string> names = {"alpha", "lambda", "mu", "tau_plus"};
    return names;
}

stdp_pl_parameters parse_stdp_pl_parameters(const std::map<std::string, double>& params) {
    stdp_pl_parameters p;
    for (const auto& [name, value]: params) {
        if (name == "alpha")
            p.alpha = value;
        else if (name == "lambda")
            p.lambda = value;
        else if (name == "mu")
            p.mu = value;
        else if (name == "tau_plus")
            p.tau_plus = value;
        else {
            throw user_error(spikex::format(
                "stdp_pl_synapse_hom parameter \"{}\" is unknown: allowed are alpha, lambda, mu, tau_plus", name));
        }
    }
    auto require = [](bool ok, const std::string& what) {
        if (!ok) throw user_error(spikex::format("stdp_pl_synapse_hom parameter {}", what));
    };
    require(std::isfinite(p.alpha) && p.alpha >= 0, spikex::format("alpha = {:.6f}: must be >= 0", p.alpha));
    require(std::isfinite(p.lambda) && p.lambda >= 0, spikex::format("lambda = {:.6f}: must be >= 0", p.lambda));
    require(std::isfinite(p.mu) && p.mu >= 0, spikex::format("mu = {:.6f}: must be >= 0", p.mu));
    require(std::isfinite(p.tau_plus) && p.tau_plus > 0, spikex::format("tau_plus = {:.6f}: must be > 0", p.tau_plus));
    return p;
}

void post_history::record(step_type stamp, double dt_ms, double tau_minus, std::uint32_t incoming,
                          step_type max_delay) {
    while (size() > 1 && entries_[first_].reads >= incoming && stamp - entries_[first_ + 1].stamp > max_delay) {
        ++first_;
    }
    if (first_ > 16 && 2 * first_ > entries_.size()) {
        entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(first_));
        first_ = 0;
    }
    k_minus_ = k_minus_ * std::exp(double(last_ - stamp) * dt_ms / tau_minus) + 1.0; // 0 before the first
    last_ = stamp;
    entries_.push_back({stamp, k_minus_, 0});
    asked_ = -1; // a new spike can change the answer for later stamps
}

void post_history::answer(step_type t, double dt_ms, double tau_minus) {
    asked_ = t;
    answer_ = 0.0;
    for (std::size_t i = entries_.size(); i > first_; --i) {
        const entry& e = entries_[i - 1];
        if (e.stamp < t) {
            answer_ = e.k_minus * std::exp(double(e.stamp - t) * dt_ms / tau_minus);
            break;
        }
    }
}

void stdp_pl_advance(stdp_pre_state& pre, step_type stamp, const stdp_pl_rule& rule) {
    pre.k_plus = pre.k_plus * std::exp(double(pre.last_stamp - stamp) * rule.dt_ms / rule.parameters.tau_plus) + 1.0;
    pre.last_stamp = stamp;
}

} // namespace spikex
